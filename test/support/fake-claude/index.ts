/**
 * A scripted fake `claude` executable for engine tests.
 *
 * Why a fake and not the real CLI: the node lifecycle must be proven on outcomes the real CLI cannot be
 * made to emit on demand — a `result` with `is_error: true` and exit 0 (every error measured on claude
 * 2.1.332 exited 1; SPEC §4 says the field decides, whatever the exit code), a process that hangs past
 * its timeout with a grandchild in its group, output with no result line, a non-zero exit after a clean
 * result, a result without `total_cost_usd`. The real CLI is exercised against the scripted model server
 * in test/runtime/claude-cli.test.ts; here the engine's reading of the stream and the process is what is
 * under test, so the stream is written by hand and the process is a real child of the exec seam.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the executable script (`#!/usr/bin/env node`). */
export const FAKE_CLAUDE = fileURLToPath(new URL("./fake-claude.mjs", import.meta.url));

/** One thing the fake does, in order. `$SESSION_ID` is replaced by the session id from its argv. */
export type FakeStep =
  | { readonly stdout: string }
  | { readonly stderr: string }
  | { readonly json: Readonly<Record<string, unknown>> }
  | { readonly sleepMs: number }
  | { readonly spawnSleeper: true }
  | { readonly hang: true };

export interface FakeScenario {
  readonly steps: readonly FakeStep[];
  /** Exit code once the steps end (default 0). */
  readonly exitCode?: number;
  /** Where the fake reports `{argv, pid, sleeperPid}`. */
  readonly reportFile?: string;
}

/** What the fake wrote to its report file. */
export interface FakeReport {
  readonly argv: readonly string[];
  readonly pid: number;
  readonly sleeperPid: number | null;
}

/**
 * Makes sure the script is executable (a checkout or copy may drop the mode bit) and returns its path.
 */
export function fakeClaudeExecutable(): string {
  chmodSync(FAKE_CLAUDE, 0o755);
  return FAKE_CLAUDE;
}

/**
 * Writes `scenario` to `<dir>/<name>.json` and returns the complete child environment that makes the
 * fake play it: `PATH` (with this Node's directory first, for the shebang) and `FAKE_CLAUDE_SCENARIO`.
 */
export function fakeClaudeEnv(dir: string, name: string, scenario: FakeScenario): Record<string, string> {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(scenario));
  return {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    LANG: "C.UTF-8",
    FAKE_CLAUDE_SCENARIO: file,
  };
}

/** The fake's report, or `null` when it has not written one (yet). */
export function readFakeReport(file: string): FakeReport | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8")) as FakeReport;
}

/** `{"type":"system","subtype":"init",…}` as claude 2.1.x prints it first, with the argv session id. */
export function initEvent(): Record<string, unknown> {
  return {
    type: "system",
    subtype: "init",
    session_id: "$SESSION_ID",
    cwd: "/tmp/fake",
    model: "claude-fake",
    tools: ["Read"],
    permissionMode: "dontAsk",
    claude_code_version: "2.1.332",
  };
}

/**
 * A final `result` event with the fields the engine reads; `overrides` replace or add fields (pass
 * `undefined` to drop one, e.g. `total_cost_usd`).
 */
export function resultEvent(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const event: Record<string, unknown> = {
    type: "result",
    subtype: "success",
    is_error: false,
    result: "done",
    session_id: "$SESSION_ID",
    total_cost_usd: 0.0123,
    num_turns: 2,
    usage: { input_tokens: 100, output_tokens: 20 },
    permission_denials: [],
    ...overrides,
  };
  for (const [key, value] of Object.entries(event)) if (value === undefined) delete event[key];
  return event;
}
