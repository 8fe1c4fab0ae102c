/**
 * Test helper: runs the pinned real `claude` CLI (devDependency) against a scripted model server, offline,
 * with a fresh temporary HOME and workspace (spawned as real-cli.ts says).
 */
import { fileURLToPath } from "node:url";
import { type ClaudeOutcome, createClaudeStreamParser } from "../../src/runtime/claude-stream.js";
import { claudeEnvFor, type ModelServer } from "../support/model-server/index.js";
import { type CliRun, makeScratchFor, type Scratch, SPAWN_PATH, spawnParsed } from "./real-cli.js";

export type { Scratch };

export const CLAUDE_BIN = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));

export type ClaudeRun = CliRun<ClaudeOutcome>;

/** A fresh HOME and workspace under the system temp dir. */
export function makeScratch(): Scratch {
  return makeScratchFor("claude");
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
  return spawnParsed({
    bin: CLAUDE_BIN,
    argv: options.argv,
    cwd: options.scratch.workspace,
    env: {
      PATH: SPAWN_PATH,
      ...claudeEnvFor(options.server.url, options.scratch.home),
      ...options.env,
    },
    parser: createClaudeStreamParser(),
  });
}
