/**
 * Test helper: runs the pinned real `codex` CLI (devDependency `@openai/codex@0.169.0`) against the
 * scripted model server, offline, with a fresh temporary CODEX_HOME (= HOME) and workspace (spawned as
 * real-cli.ts says).
 */
import { fileURLToPath } from "node:url";
import { type CodexOutcome, createCodexStreamParser } from "../../src/runtime/codex-stream.js";
import { codexEnvFor, type ModelServer } from "../support/model-server/index.js";
import { type CliRun, makeScratchFor, type Scratch, SPAWN_PATH, spawnParsed } from "./real-cli.js";

export const CODEX_BIN = fileURLToPath(new URL("../../node_modules/.bin/codex", import.meta.url));

export type CodexRun = CliRun<CodexOutcome>;

/** A fresh workspace and a fresh `home`, which is both CODEX_HOME and HOME (codex requires it to exist). */
export type CodexScratch = Scratch;

/** A fresh CODEX_HOME and workspace under the system temp dir. */
export function makeCodexScratch(): CodexScratch {
  return makeScratchFor("codex");
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
  return spawnParsed({
    bin: CODEX_BIN,
    argv: options.argv,
    cwd: options.scratch.workspace,
    env: {
      PATH: SPAWN_PATH,
      ...codexEnvFor(options.server.url, options.scratch.home),
      ...options.env,
    },
    parser: createCodexStreamParser(),
  });
}
