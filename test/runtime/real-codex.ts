/**
 * Test helper: runs the pinned real `codex` CLI (devDependency `@openai/codex@0.169.0`) against the
 * scripted model server, offline, with a fresh temporary CODEX_HOME (= HOME) and workspace. The process is
 * spawned asynchronously: the server answers from this test process's event loop, so a synchronous spawn
 * would deadlock. Tests may spawn directly; `src/` goes through `src/proc/`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CodexOutcome, createCodexStreamParser } from "../../src/runtime/codex-stream.js";
import { codexEnvFor, type ModelServer } from "../support/model-server/index.js";

export const CODEX_BIN = fileURLToPath(new URL("../../node_modules/.bin/codex", import.meta.url));

export interface CodexRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly outcome: CodexOutcome;
  readonly durationMs: number;
}

export interface CodexScratch {
  /** CODEX_HOME and HOME (codex requires it to exist). */
  readonly codexHome: string;
  readonly workspace: string;
  cleanup(): void;
}

/** A fresh CODEX_HOME and workspace under the system temp dir. */
export function makeCodexScratch(): CodexScratch {
  const codexHome = mkdtempSync(join(tmpdir(), "eg-codex-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "eg-codex-ws-"));
  return {
    codexHome,
    workspace,
    cleanup: () => {
      rmSync(codexHome, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export interface RunCodexOptions {
  readonly server: ModelServer;
  readonly scratch: CodexScratch;
  /** argv after the executable, e.g. from `buildCodexArgv` with `config: codexConfigFor(server.url)`. */
  readonly argv: readonly string[];
  /** Extra environment over PATH + `codexEnvFor`. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Spawns `codex ARGV` in the scratch workspace (stdin ignored) and parses stdout line by line. */
export function runCodex(options: RunCodexOptions): Promise<CodexRun> {
  const parser = createCodexStreamParser();
  const started = performance.now();
  const child = spawn(CODEX_BIN, options.argv, {
    cwd: options.scratch.workspace,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...codexEnvFor(options.server.url, options.scratch.codexHome),
      ...options.env,
    },
  });
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) parser.push(line);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode) => {
      if (pending !== "") parser.push(pending);
      resolve({
        exitCode,
        stdout,
        stderr,
        outcome: parser.finish(),
        durationMs: performance.now() - started,
      });
    });
  });
}
