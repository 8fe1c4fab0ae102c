/**
 * What one model call means for a node's row, runtime-neutral (SPEC §4): the facts a row records (session,
 * cost, usage, denials, written paths, reply) and, when the call does not let the node go on to its
 * checks, why. `claude-call-report.ts` and `codex-call-report.ts` fold their CLI's outcome into a
 * {@link CallReport}; `agent-node.ts` judges everything after it the same way for both.
 *
 * The calls themselves go through {@link ModelCalls}, the engine's seam to the exec seam: the real
 * `invokeClaude` / `invokeCodex` by default, a scripted pair in unit tests that spawn nothing.
 */
import type { FailCause, TokenUsage } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import type { CliCallOutcome } from "../runtime/cli-call.js";
import { type ClaudeCall, type ClaudeCallOutcome, invokeClaude } from "../runtime/invoke-claude.js";
import { type CodexCall, type CodexCallOutcome, invokeCodex } from "../runtime/invoke-codex.js";
import type { DeclaredPlan } from "./completion-progress.js";

/**
 * The two model-CLI calls a node can make. Each resolves to the call's folded outcome and never rejects
 * for the CLI's own failures (a spawn failure, timeout or cancel is an outcome).
 */
export interface ModelCalls {
  readonly claude: (call: ClaudeCall) => Promise<ClaudeCallOutcome>;
  readonly codex: (call: CodexCall) => Promise<CodexCallOutcome>;
}

/** The real calls: `claude -p` and `codex exec` through `src/proc/` (SPEC §9, one exec seam). */
export const MODEL_CALLS: ModelCalls = { claude: invokeClaude, codex: invokeCodex };

/** The row's facts of one call. Cost in USD (`null` = unknown, never 0 for a call that ran), duration in ms. */
export interface CallFacts {
  sessionId: string | null;
  costUsd: number | null;
  usage: TokenUsage | null;
  numTurns: number | null;
  denied: number;
  /** The paths the model's file-writing tool calls named (relative ones against the node's cwd). */
  writtenPaths: readonly string[];
  durationMs: number;
  reply: string;
  /**
   * The latest plan the call declared (claude `TodoWrite`, codex `todo_list`), for a completion gate that
   * reads todos; `null` (or absent) when it declared none.
   */
  plan?: DeclaredPlan | null;
}

/** A call that never started: no session, nothing spent (0, not unknown), no usage. */
export const NO_CALL: CallFacts = {
  sessionId: null,
  costUsd: 0,
  usage: null,
  numTurns: null,
  denied: 0,
  writtenPaths: [],
  durationMs: 0,
  reply: "",
};

/**
 * Why a call does not let the node pass, before any predicate. `sessionLimit` is set when claude said
 * "hit your session limit" or codex "hit your usage limit" (SPEC §4: the run pauses); `resetsAt` is the
 * reset time as the CLI wrote it.
 */
export interface CallFailure {
  readonly cause: FailCause;
  readonly detail: string;
  readonly sessionLimit: { readonly resetsAt: string | null } | null;
  /**
   * A resumed call whose CLI no longer found the session (claude "No conversation found with session ID",
   * codex "no rollout found for thread id", or codex answering in another thread): never a silent fresh
   * session (SPEC §7; research/toolnexus.md case 14).
   */
  readonly sessionLost?: true;
}

/**
 * One model call, runtime-neutral: what the row records, and whether the node may go on to its checks
 * (`failure: null`). Codex adds the thread it reached (cumulative usage, `CODEX_HOME`); claude adds the
 * session's cumulative cost as reported (`null`: not reported).
 */
export interface CallReport {
  readonly facts: CallFacts;
  readonly failure: CallFailure | null;
  readonly codexThread?: { readonly usage: TokenUsage | null; readonly home: string | null };
  readonly sessionCostUsd?: number | null;
}

/** A {@link CallFailure}; without `sessionLimit` it is an ordinary failure. */
export function callFailure(
  cause: FailCause,
  detail: string,
  sessionLimit: CallFailure["sessionLimit"] = null,
): CallFailure {
  return { cause, detail, sessionLimit };
}

/** Why a call that never completed failed: it could not start, was cancelled, timed out, or left no result. */
export function unfinishedCall(
  outcome: Exclude<CliCallOutcome<unknown, unknown, unknown>, { kind: "completed" }>,
  executable: string,
): CallFailure {
  switch (outcome.kind) {
    case "spawn_failed":
      return callFailure("run_error", `could not start ${executable}: ${outcome.message}`);
    case "cancelled":
      return callFailure("cancelled", "cancelled");
    case "timed_out":
      return callFailure("timeout", `killed after its timeout of ${Math.round(outcome.timeoutMs / 1000)}s`);
    case "no_result":
      return callFailure("output_error", noResultWords(outcome.reason, outcome.stderrTail));
    default:
      return unreachable(outcome);
  }
}

/** A resumed call whose session is gone: `run_error` with the CLI's words, marked `sessionLost`. */
export function sessionLostFailure(cli: string, sessionId: string, said: string): CallFailure {
  return {
    cause: "run_error",
    detail: `session lost: ${cli} no longer finds session ${sessionId} (${oneLine(said).slice(0, 200)}); it was not replaced by a fresh session`,
    sessionLimit: null,
    sessionLost: true,
  };
}

function noResultWords(reason: string, stderrTail: string): string {
  return `${reason}${stderrTail ? ` — stderr: ${lastLine(stderrTail)}` : ""}`;
}

/** `text` on one line: every run of whitespace one space, trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return oneLine(lines[lines.length - 1] ?? "");
}
