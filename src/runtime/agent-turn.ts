/**
 * One agent turn of a node (SPEC §4; issue 24 item 1): what the engine asks of the run's model CLI
 * ({@link AgentTurn}) and what the call means for the node's row, runtime-neutral ({@link CallReport}):
 * the facts a row records (session, cost, usage, denials, written paths, reply) and, when the call does
 * not let the node go on to its checks, why. Each runtime makes the turn its own way
 * (`ModelRuntime.agentTurn`: `claude-turn.ts`, `codex-turn.ts`) and folds its CLI's outcome into a
 * {@link CallReport}; `engine/agent-node.ts` judges everything after it the same way for both.
 */
import type { FailCause, TokenUsage } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ChildEcho } from "../proc/child-output.js";
import type { ClaudePermissionMode } from "./claude-argv.js";
import type { CliCallOutcome } from "./cli-call.js";
import type { DeclaredPlan } from "./declared-plan.js";
import type { ModelCalls } from "./model-calls.js";

/** The session a `handoff: session` node, or a continuing completion attempt, resumes. */
export interface ResumedSession {
  readonly kind: "resume";
  readonly sessionId: string;
  /**
   * Codex only: the thread's cumulative token usage before this call (what the call that left the thread
   * there reported; `null` = not known, nothing subtracted), so the row carries this call's share.
   */
  readonly threadUsage?: TokenUsage | null;
  /** Codex only: the `CODEX_HOME` the thread was started in (absent: the env's own). */
  readonly codexHome?: string;
  /**
   * Claude only: the session's cumulative `total_cost_usd` before this call (claude reports the whole
   * session's cost on `--resume`; measured on 2.1.332: $0.0008, then $0.0016). The row carries the
   * difference; `null` = not known, so this call's own cost is unknown.
   */
  readonly sessionCostUsd?: number | null;
}

/** What one attempt of a node with a completion gate asks of its model call (SPEC §7). */
export interface CompletionCall {
  /**
   * Offer the CLI's plan tool, because the gate reads the plan (`todos: all_done`): claude gets the
   * environment that enables `TodoWrite`, codex `tools.update_plan.enabled=true`.
   */
  readonly planTool: boolean;
  /**
   * The attempt continues the node's own session (attempt ≥ 2): a session the CLI no longer finds fails
   * the node "session lost", never a silent fresh session.
   */
  readonly continuing: boolean;
  /**
   * USD the node's earlier attempts spent (`null`: unknown): `budget_usd` binds across attempts, so the
   * CLI's own stop gets what is left and the post-hoc check counts the total.
   */
  readonly spentUsd: number | null;
}

/**
 * One agent turn as the engine asks for it: the node's interpolated prompt and boundary, its session,
 * and the run-wide settings of the CLI. Times in ms, money in USD.
 */
export interface AgentTurn {
  /** The node's id: the label its environment is built for, and what the callbacks name. */
  readonly nodeId: string;
  readonly prompt: string;
  readonly permissionMode: ClaudePermissionMode;
  readonly policy: ToolPolicy;
  readonly cwd: string;
  readonly timeoutMs: number;
  /** A fresh session, or the one a `handoff: session` node or a continuing completion attempt resumes. */
  readonly session: { readonly kind: "fresh" } | ResumedSession;
  /** The node's `budget_usd` (claude: `--max-budget-usd`; codex reports no USD and ignores it). */
  readonly budgetUsd: number | null;
  readonly completion?: CompletionCall;
  /** The run's model CLI (`ModelRuntime.executable`): a path or a name on `PATH`. */
  readonly executable: string;
  /** Codex only: the operator's `codex-config` pairs. */
  readonly codexConfig?: readonly string[];
  readonly model?: string;
  /** Builds the model child's environment for this call, just before the spawn. */
  readonly modelEnv: () => Readonly<Record<string, string>>;
  /** The model calls the run was handed (the real CLIs, or a test's scripted stand-in). */
  readonly calls: ModelCalls;
  readonly echo?: ChildEcho;
  /**
   * Called once before the spawn with the session id when it is known then: minted (claude), resumed
   * (either runtime), or `null` for a fresh codex thread (its id arrives with `onSession`).
   */
  readonly onStarted?: (sessionId: string | null) => void;
  /** Codex, fresh thread: called once `thread.started` arrives, while the process still runs. */
  readonly onSession?: (sessionId: string) => void;
}

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

/**
 * The failure of a call stopped at the model's limit (claude's session limit, codex's usage limit): it
 * pauses the run (SPEC §4); `resetsAt` as the CLI wrote it, `null` when it gave none.
 */
export function limitPause(limit: "session" | "usage", resetsAt: string | null): CallFailure {
  return callFailure(
    "run_error",
    `paused: the model's ${limit} limit was reached${resetsAt !== null ? ` (resets ${resetsAt})` : ""}; resume with --retry-failed`,
    { resetsAt },
  );
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
