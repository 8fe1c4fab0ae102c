/**
 * A scripted fake `claude` or `codex` executable for engine tests.
 *
 * Why a fake and not the real CLI: the node lifecycle must be proven on outcomes the real CLIs cannot be
 * made to emit on demand — a `result` with `is_error: true` and exit 0 (every error measured on claude
 * 2.1.332 exited 1; SPEC §4 says the field decides, whatever the exit code), a process that hangs past
 * its timeout with a grandchild in its group, output with no result line, a non-zero exit after a clean
 * result (claude) or after `turn.completed` (codex), a result without `total_cost_usd`. The real CLIs are
 * exercised against the scripted model server in test/runtime/claude-cli.test.ts and codex-cli.test.ts;
 * here the engine's reading of the stream and the process is what is under test, so the stream is
 * written by hand and the process is a real child of the exec seam.
 *
 * Both runtimes' streams: claude's stream-json (`initEvent`, `resultEvent`) and codex's `exec --json`
 * JSONL (`threadStartedEvent`, `agentMessageEvent`, `turnCompletedEvent`; shapes as
 * src/runtime/codex-stream.ts reads them). `startEvent` / `answeredScenario` / `hangScenario` pick the
 * runtime's own lines, for tests that run on both.
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
  /** Whose argv the session id is read from (default `claude`; see fake-claude.mjs). */
  readonly runtime?: "claude" | "codex";
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

// ---- codex `exec --json` lines (codex-cli 0.169.0; src/runtime/codex-stream.ts) -------------------------

/** `{"type":"thread.started","thread_id":…}`: the fresh thread's id, or the resumed one from argv. */
export function threadStartedEvent(): Record<string, unknown> {
  return { type: "thread.started", thread_id: "$SESSION_ID" };
}

/** A completed `agent_message` item: the reply. */
export function agentMessageEvent(text: string): Record<string, unknown> {
  return { type: "item.completed", item: { id: "item_0", type: "agent_message", text } };
}

/** `turn.completed` with the thread's cumulative usage (default 100 in / 20 out, nothing cached). */
export function turnCompletedEvent(
  usage: { readonly inputTokens: number; readonly outputTokens: number } = {
    inputTokens: 100,
    outputTokens: 20,
  },
): Record<string, unknown> {
  return {
    type: "turn.completed",
    usage: {
      input_tokens: usage.inputTokens,
      cached_input_tokens: 0,
      output_tokens: usage.outputTokens,
      reasoning_output_tokens: 0,
    },
  };
}

// ---- the same outcome on either runtime ------------------------------------------------------------

/** The runtime's first line: claude's `system/init`, codex's `thread.started`. */
export function startEvent(runtime: "claude" | "codex"): FakeStep {
  return { json: runtime === "claude" ? initEvent() : threadStartedEvent() };
}

/**
 * A clean answer `reply`, then exit `exitCode` (default 0): claude `init` + `result` (cost $0.0123),
 * codex `thread.started` + agent message + `turn.completed` (100 in / 20 out; no USD).
 */
export function answeredScenario(runtime: "claude" | "codex", reply: string, exitCode = 0): FakeScenario {
  const answer: FakeStep[] =
    runtime === "claude"
      ? [{ json: resultEvent({ result: reply }) }]
      : [{ json: agentMessageEvent(reply) }, { json: turnCompletedEvent() }];
  return { runtime, steps: [startEvent(runtime), ...answer], exitCode };
}

/** The runtime's first line, then (with `sleeper`) a `sleep` in the fake's process group, then no exit. */
export function hangScenario(
  runtime: "claude" | "codex",
  options: { readonly sleeper?: boolean } = {},
): FakeScenario {
  return {
    runtime,
    steps: [
      startEvent(runtime),
      ...(options.sleeper ? [{ spawnSleeper: true } as const] : []),
      { hang: true },
    ],
  };
}
