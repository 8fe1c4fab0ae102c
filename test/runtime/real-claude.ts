/**
 * Test helper: runs the pinned real `claude` CLI (devDependency) against a scripted model server, offline,
 * with a fresh temporary HOME and workspace. Tests may spawn directly; `src/` goes through `src/proc/`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ClaudeOutcome, createClaudeStreamParser } from "../../src/runtime/claude-stream.js";
import { claudeEnvFor, type ModelServer } from "../support/model-server/index.js";

export const CLAUDE_BIN = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));

export interface ClaudeRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly outcome: ClaudeOutcome;
  readonly durationMs: number;
}

export interface Scratch {
  readonly home: string;
  readonly workspace: string;
  cleanup(): void;
}

/** A fresh HOME and workspace under the system temp dir. */
export function makeScratch(): Scratch {
  const home = mkdtempSync(join(tmpdir(), "eg-claude-home-"));
  const workspace = mkdtempSync(join(tmpdir(), "eg-claude-ws-"));
  return {
    home,
    workspace,
    cleanup: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export interface RunClaudeOptions {
  readonly server: ModelServer;
  readonly scratch: Scratch;
  readonly argv: readonly string[];
  /** Extra environment (e.g. IS_SANDBOX) over PATH + `claudeEnvFor`. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Spawns `claude ARGV` in the scratch workspace (stdin ignored) and parses stdout line by line. */
export function runClaude(options: RunClaudeOptions): Promise<ClaudeRun> {
  const parser = createClaudeStreamParser();
  const started = performance.now();
  const child = spawn(CLAUDE_BIN, options.argv, {
    cwd: options.scratch.workspace,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ...claudeEnvFor(options.server.url, options.scratch.home),
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
