/**
 * The lifecycle of one agent node (SPEC §4), in order: interpolate → spawn the CLI → parse its output →
 * cheap predicates (`exit_zero`, `result_matches`) → the verify command (only if the node did not crash
 * and the cheap predicates passed) → save output → record PASS/FAIL with its qualifier.
 *
 * Runtime-neutral: the run's runtime (`NodeContext.runtime`, run-wide) decides which CLI the "spawn and
 * parse" step calls — `claude -p` (`invoke-claude.ts`) or `codex exec` (`invoke-codex.ts`) — and each
 * runtime's outcome is folded into the same {@link CallReport}; everything after it is shared.
 *
 * What differs on Codex (SPEC §4, §6, §8; research/oh-my-graph.md §5.3–§5.8):
 * - session = the thread id codex prints in `thread.started` (not minted: `onStarted` gets `null` for a
 *   fresh thread and `onSession` the id once it arrives); `handoff: session` = `exec … resume THREAD_ID`,
 *   run with the `CODEX_HOME` of the call that started the thread (its `sessions/` holds the thread);
 * - cost is `null` (unknown, never $0) on every row; token usage is on the row, the thread's cumulative
 *   count minus what the thread had used before this call (`codex-usage.ts`);
 * - `permission_mode` → `--sandbox` (`codexSandboxFor`), `approval_policy="never"` always; of the policy
 *   layers only layer 1 renders (the four isolation items); `allowed_tools`, `--tools` and the deny list
 *   have no Codex rendering — the sandbox is the boundary;
 * - `turn.failed` is `run_error` even on exit 0; a completed turn without an agent message is
 *   `output_error`; there is no session-limit detection (a limit is an ordinary failure) and no
 *   `--max-budget-usd` (codex reports no USD: `budget_usd` is warned about at run start, not enforced).
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FailCause, LedgerRow, TokenUsage, VerifyEvidence } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import { qualifierFor } from "../evidence/qualifier.js";
import type { VerifyQueue } from "../evidence/verify.js";
import { type Pattern, searchPattern } from "../graph/pattern.js";
import { ignoredFilesWords, outsideWritesWords, verifyExitWords } from "../ledger/cells.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ClaudePermissionMode } from "../runtime/claude-argv.js";
import { codexPromptProblem, isCodexThreadId } from "../runtime/codex-argv.js";
import type { CliCallOutcome } from "./cli-call.js";
import { codexTokenUsage, usageSince } from "./codex-usage.js";
import { type ClaudeCallOutcome, invokeClaude } from "./invoke-claude.js";
import { type CodexCallOutcome, invokeCodex } from "./invoke-codex.js";
import { outsideWrites } from "./outside-writes.js";
import type { RunDirectory } from "./run-dir.js";
import type { ModelEnvBuilder } from "./runtime-setup.js";

/** What the engine needs to run one agent node; built from the graph by the caller. */
export interface AgentNodeSpec {
  readonly id: string;
  readonly prompt: string;
  readonly permissionMode: ClaudePermissionMode;
  readonly policy: ToolPolicy;
  readonly timeoutMs: number;
  readonly cwd: string;
  /** The repository root (git work tree): a file the model writes outside it is recorded on the row. */
  readonly repoRoot: string;
  readonly sink: boolean;
  readonly exitZero: boolean;
  /** RE2 pattern searched over the raw reply (Go `MatchString` semantics). */
  readonly resultMatches: Pattern | null;
  readonly verify: {
    readonly command: string;
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly expectExit: number;
    /** `output_matches`: RE2 pattern searched over the command's full combined output. */
    readonly outputMatches?: Pattern | null;
  } | null;
  /**
   * `fresh` (default): a new session (claude: its id is minted here; codex: codex mints the thread id).
   * `resume`: continue that session (`--resume ID` / `exec … resume ID`; `handoff: session`, SPEC §4); the
   * row's session is the one the CLI reports.
   */
  readonly session?: { readonly kind: "fresh" } | ResumedSession;
  /**
   * The node's `budget_usd` (USD, > 0). Claude: `--max-budget-usd` plus a post-hoc check of the reported
   * cost. Codex: ignored (codex reports no USD; the run warned at start, `runtimeWarnings`).
   */
  readonly budgetUsd?: number | null;
}

/** The session a `handoff: session` node continues. */
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

/** Which model CLI a run spawns (SPEC §4): chosen run-wide, recorded in `state.json` as `runtime`. */
export type { Runtime };

/** Run-wide settings every node shares. */
export interface NodeContext {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  readonly claudeExecutable: string;
  /** Path or name of the `codex` executable (default `codex`); used when `runtime` is `codex`. */
  readonly codexExecutable?: string;
  /**
   * The operator's `codex-config` pairs (`KEY=VALUE`, already checked with `parseCodexConfig`), passed as
   * `-c PAIR` on every codex call, before (so never over) the engine's own boundary flags (SPEC §10).
   */
  readonly codexConfig?: readonly string[];
  /** `--model` (claude) / `-m` (codex). */
  readonly model?: string;
  /** Builds the model child's environment for one call (fresh HOME per CLI in the action). */
  readonly modelEnv: ModelEnvBuilder;
  readonly runDir: RunDirectory;
  readonly verifyQueue: VerifyQueue;
  readonly echo?: { readonly write: (text: string) => void; readonly fenceWorkflowCommands: boolean };
  /**
   * Called once before the spawn with the session id when it is known then: minted (claude), resumed
   * (either runtime), or `null` for a fresh codex thread (its id arrives with `onSession`).
   */
  readonly onStarted?: (nodeId: string, sessionId: string | null) => void;
  /** Codex, fresh thread: called once `thread.started` arrives, while the process still runs. */
  readonly onSession?: (nodeId: string, sessionId: string) => void;
  readonly onVerifying?: (nodeId: string, command: string) => void;
}

/** A finished node: its ledger row and the reply text (for artifacts). */
export interface AgentNodeResult {
  readonly row: LedgerRow;
  readonly reply: string;
  /**
   * The failure was a judgment about the node's work — its reply did not match `result_matches`, or its
   * verify command ran and said no — so a retry may quote the reply (research §6.4, ADR 0020). False for
   * a pass and for every infrastructure failure (spawn, timeout, crash, budget, a verify that could not run).
   */
  readonly judged: boolean;
  /**
   * Set when the CLI failed with "hit your session limit" (SPEC §4): the run pauses rather than fails.
   * `resetsAt` is the reset time as the CLI wrote it (never parsed), `null` when it gave none.
   */
  readonly sessionLimit: { readonly resetsAt: string | null } | null;
  /**
   * Codex, when the call reached a thread: the thread's cumulative usage after it (`null` when codex
   * reported none, e.g. `turn.failed`) and the `CODEX_HOME` it lives in, for a child that resumes it.
   */
  readonly codexThread?: { readonly usage: TokenUsage | null; readonly home: string | null };
  /** Claude: the session's cumulative cost after this call, as reported (`null`: not reported). */
  readonly sessionCostUsd?: number | null;
}

interface CallFacts {
  sessionId: string | null;
  costUsd: number | null;
  usage: TokenUsage | null;
  numTurns: number | null;
  denied: number;
  /** The paths the model's file-writing tool calls named (relative ones against the node's cwd). */
  writtenPaths: readonly string[];
  durationMs: number;
  reply: string;
}

function factsOf(outcome: ClaudeCallOutcome, sessionId: string): CallFacts {
  if (outcome.kind === "completed") {
    const r = outcome.result;
    return {
      sessionId: r.sessionId,
      costUsd: r.totalCostUsd,
      usage: r.usage,
      numTurns: r.numTurns,
      denied: r.deniedToolCalls,
      writtenPaths: r.writtenPaths,
      durationMs: outcome.durationMs,
      reply: r.result ?? "",
    };
  }
  // A call that ended without a result still shows the denials its stream carried before it stopped.
  const seen =
    outcome.kind === "timed_out"
      ? outcome.partial
      : outcome.kind === "spawn_failed"
        ? { deniedToolCalls: 0, writtenPaths: [] }
        : outcome;
  return {
    sessionId,
    costUsd: null,
    usage: null,
    numTurns: null,
    denied: seen.deniedToolCalls,
    writtenPaths: seen.writtenPaths,
    durationMs: outcome.durationMs,
    reply: "",
  };
}

/** Why a call does not let the node pass, before any predicate; `null` when the call succeeded. */
interface CallFailure {
  readonly cause: FailCause;
  readonly detail: string;
  readonly sessionLimit: AgentNodeResult["sessionLimit"];
}

/** One model call, runtime-neutral: what the row records, and whether the node may go on to its checks. */
interface CallReport {
  readonly facts: CallFacts;
  readonly failure: CallFailure | null;
  readonly codexThread?: AgentNodeResult["codexThread"];
  readonly sessionCostUsd?: number | null;
}

const failure = (
  cause: FailCause,
  detail: string,
  sessionLimit: CallFailure["sessionLimit"] = null,
): CallFailure => ({
  cause,
  detail,
  sessionLimit,
});

/** Why a call that never completed failed: it could not start, was cancelled, timed out, or left no result. */
function unfinishedCall(
  outcome: Exclude<CliCallOutcome<unknown, unknown, unknown>, { kind: "completed" }>,
  executable: string,
): CallFailure {
  switch (outcome.kind) {
    case "spawn_failed":
      return failure("run_error", `could not start ${executable}: ${outcome.message}`);
    case "cancelled":
      return failure("cancelled", "cancelled");
    case "timed_out":
      return failure("timeout", timeoutWords(outcome.timeoutMs));
    case "no_result":
      return failure("output_error", noResultWords(outcome.reason, outcome.stderrTail));
    default:
      return unreachable(outcome);
  }
}

/** The `claude -p` call of one node and what it means for the row (SPEC §4 "Claude CLI"). */
async function callClaude(spec: AgentNodeSpec, ctx: NodeContext, signal: AbortSignal): Promise<CallReport> {
  const session = spec.session ?? { kind: "fresh" };
  const sessionId = session.kind === "resume" ? session.sessionId : randomUUID();
  ctx.onStarted?.(spec.id, sessionId);
  const budgetUsd = spec.budgetUsd ?? null;
  const outcome = await invokeClaude({
    executable: ctx.claudeExecutable,
    prompt: spec.prompt,
    permissionMode: spec.permissionMode,
    policy: spec.policy,
    session: { kind: session.kind, sessionId },
    ...(budgetUsd !== null ? { budgetUsd } : {}),
    ...(ctx.model !== undefined ? { model: ctx.model } : {}),
    cwd: spec.cwd,
    env: ctx.modelEnv(spec.id, "claude"),
    timeoutMs: spec.timeoutMs,
    signal,
    ...(ctx.echo ? { echo: ctx.echo } : {}),
  });
  const facts = factsOf(outcome, sessionId);
  // `--resume` reports the whole session's cost: this call's is the difference (unknown if either is).
  const sessionCostUsd = facts.costUsd;
  if (session.kind === "resume") {
    const before = session.sessionCostUsd ?? null;
    facts.costUsd = sessionCostUsd !== null && before !== null ? Math.max(0, sessionCostUsd - before) : null;
  }
  const report = (f: CallFailure | null): CallReport => ({ facts, failure: f, sessionCostUsd });
  if (outcome.kind !== "completed") return report(unfinishedCall(outcome, ctx.claudeExecutable));
  const r = outcome.result;
  if (r.isError && r.sessionLimit !== null) {
    const resetsAt = r.sessionLimit.resetsAt ?? null;
    return report(
      failure(
        "run_error",
        `paused: the model's session limit was reached${resetsAt !== null ? ` (resets ${resetsAt})` : ""}; resume with --retry-failed`,
        { resetsAt },
      ),
    );
  }
  if (r.isError && r.budgetExhausted) {
    // The CLI stopped itself at --max-budget-usd: the row names both amounts, like the post-hoc check.
    const spent = facts.costUsd !== null ? `$${facts.costUsd.toFixed(4)}` : "an unknown cost";
    const limit = budgetUsd !== null ? `$${budgetUsd.toFixed(4)}` : "its --max-budget-usd";
    return report(
      failure(
        "budget_exceeded",
        `exceeded budget_usd: ${spent} vs ${limit} — claude stopped at --max-budget-usd (${oneLine(r.failureDetail ?? r.subtype)})`,
      ),
    );
  }
  if (r.isError) {
    const why = r.failureDetail ?? r.subtype;
    return report(
      failure("run_error", `claude reported is_error (exit ${outcome.exitCode}): ${oneLine(why)}`),
    );
  }
  if (outcome.exitCode !== 0) return report(failure("nonzero_exit", `claude exited ${outcome.exitCode}`));
  return report(null);
}

/**
 * The `CODEX_HOME` an environment gives codex: `CODEX_HOME`, else `$HOME/.codex` (codex's default), else
 * `null` (codex would then fail to find a home).
 */
export function codexHomeOf(env: Readonly<Record<string, string>>): string | null {
  if (env.CODEX_HOME !== undefined && env.CODEX_HOME !== "") return env.CODEX_HOME;
  return env.HOME !== undefined && env.HOME !== "" ? join(env.HOME, ".codex") : null;
}

/** The `codex exec` call of one node and what it means for the row (SPEC §4 "Codex CLI"). */
async function callCodex(spec: AgentNodeSpec, ctx: NodeContext, signal: AbortSignal): Promise<CallReport> {
  const session = spec.session ?? { kind: "fresh" };
  const resumed = session.kind === "resume" ? session : null;
  const nothingRan = (cause: FailCause, detail: string): CallReport => ({
    // Nothing was spawned, nothing was spent: 0, not unknown (like a node that failed before its spawn).
    facts: { ...NO_CALL, sessionId: resumed?.sessionId ?? null },
    failure: failure(cause, detail),
  });
  const promptProblem = codexPromptProblem(spec.prompt);
  if (promptProblem !== null)
    return nothingRan("run_error", `codex cannot run this prompt: ${promptProblem}`);
  if (resumed !== null && !isCodexThreadId(resumed.sessionId)) {
    return nothingRan(
      "run_error",
      `handoff: session cannot resume "${resumed.sessionId}": it is not a codex thread id (was the parent run on claude?)`,
    );
  }
  ctx.onStarted?.(spec.id, resumed?.sessionId ?? null);
  const executable = ctx.codexExecutable ?? "codex";
  const baseEnv = ctx.modelEnv(spec.id, "codex");
  // A thread lives in the CODEX_HOME that started it: a resumed call runs there, whatever home this call
  // was given (the action gives each call a fresh one).
  const env =
    resumed?.codexHome !== undefined && codexHomeOf(baseEnv) !== resumed.codexHome
      ? { ...baseEnv, CODEX_HOME: resumed.codexHome }
      : baseEnv;
  const home = codexHomeOf(env);
  const outcome = await invokeCodex({
    executable,
    prompt: spec.prompt,
    permissionMode: spec.permissionMode,
    policy: spec.policy,
    session: resumed !== null ? { kind: "resume", threadId: resumed.sessionId } : { kind: "fresh" },
    ...(ctx.model !== undefined ? { model: ctx.model } : {}),
    ...(ctx.codexConfig !== undefined ? { config: ctx.codexConfig } : {}),
    cwd: spec.cwd,
    env,
    timeoutMs: spec.timeoutMs,
    signal,
    ...(ctx.echo ? { echo: ctx.echo } : {}),
    ...(resumed === null
      ? { onThreadStarted: (threadId: string) => ctx.onSession?.(spec.id, threadId) }
      : {}),
  });
  const before = resumed?.threadUsage ?? null;
  const facts = codexFactsOf(outcome, resumed?.sessionId ?? null, before);
  const thread = (usage: TokenUsage | null): Pick<CallReport, "codexThread"> =>
    facts.sessionId !== null ? { codexThread: { usage, home } } : {};
  const report = (f: CallFailure | null, usage: TokenUsage | null = null): CallReport => ({
    facts,
    failure: f,
    ...thread(usage),
  });
  if (outcome.kind !== "completed") return report(unfinishedCall(outcome, executable));
  const r = outcome.result;
  const cumulative = r.usage !== null ? codexTokenUsage(r.usage) : null;
  // No session-limit detection on codex (research §5.6): a limit is an ordinary failure, as here.
  if (r.isError) {
    const why = r.failureDetail ?? "codex reported turn.failed";
    return report(
      failure("run_error", `codex reported turn.failed (exit ${outcome.exitCode}): ${oneLine(why)}`),
    );
  }
  if (outcome.exitCode !== 0)
    return report(failure("nonzero_exit", `codex exited ${outcome.exitCode}`), cumulative);
  if (r.agentMessages === 0) {
    return report(
      failure("output_error", "codex completed its turn without an agent message (no reply to judge)"),
      cumulative,
    );
  }
  return report(null, cumulative);
}

/** A call that never started: no session, nothing spent, no usage. */
const NO_CALL: CallFacts = {
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
 * The row's facts of one codex call. `sessionId` is the thread id (`thread.started`, else the resumed
 * id); cost is always `null` (codex reports no USD); usage is this call's share of the thread's count;
 * codex has no permission denials (a sandbox-blocked command reaches only the model), so `denied` is 0;
 * written paths are the apply_patch changes the stream showed (shell commands' writes are not visible).
 */
function codexFactsOf(
  outcome: CodexCallOutcome,
  resumedId: string | null,
  before: TokenUsage | null,
): CallFacts {
  const unknown = { costUsd: null, numTurns: null, denied: 0, durationMs: outcome.durationMs };
  switch (outcome.kind) {
    case "completed": {
      const r = outcome.result;
      return {
        ...unknown,
        sessionId: r.threadId,
        usage: r.usage !== null ? usageSince(codexTokenUsage(r.usage), before) : null,
        writtenPaths: r.writtenPaths,
        reply: r.reply ?? "",
      };
    }
    case "spawn_failed":
      return { ...unknown, sessionId: resumedId, usage: null, writtenPaths: [], reply: "" };
    case "timed_out":
      return {
        ...unknown,
        sessionId: outcome.partial.threadId ?? resumedId,
        usage: null,
        writtenPaths: outcome.partial.writtenPaths,
        reply: "",
      };
    case "no_result":
    case "cancelled":
      return {
        ...unknown,
        sessionId: outcome.threadId ?? resumedId,
        usage: null,
        writtenPaths: outcome.writtenPaths,
        reply: "",
      };
    default:
      return unreachable(outcome);
  }
}

function timeoutWords(timeoutMs: number): string {
  return `killed after its timeout of ${Math.round(timeoutMs / 1000)}s`;
}

function noResultWords(reason: string, stderrTail: string): string {
  return `${reason}${stderrTail ? ` — stderr: ${lastLine(stderrTail)}` : ""}`;
}

/** Runs one agent node and returns its ledger row. Never throws for the node's own failures. */
export async function runAgentNode(
  spec: AgentNodeSpec,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<AgentNodeResult> {
  const budgetUsd = spec.budgetUsd ?? null;
  const call =
    (ctx.runtime ?? "claude") === "codex"
      ? await callCodex(spec, ctx, signal)
      : await callClaude(spec, ctx, signal);
  const { facts } = call;
  const codexThread = {
    ...(call.codexThread !== undefined ? { codexThread: call.codexThread } : {}),
    ...(call.sessionCostUsd !== undefined ? { sessionCostUsd: call.sessionCostUsd } : {}),
  };
  // Writes outside the repository escape the evidence tree: recorded on the row whatever its verdict.
  const outside = outsideWrites(facts.writtenPaths, { cwd: spec.cwd, repoRoot: spec.repoRoot });
  const outsideWords = outsideWritesWords(outside);
  const base = {
    nodeId: spec.id,
    sessionId: facts.sessionId,
    costUsd: facts.costUsd,
    durationMs: facts.durationMs,
    deniedToolCalls: facts.denied,
    usage: facts.usage,
    numTurns: facts.numTurns,
    sink: spec.sink,
    ...(outside !== undefined ? { outsideWrites: outside } : {}),
  };
  const fail = (
    cause: FailCause,
    detail: string,
    verify?: VerifyEvidence,
    judged = false,
    sessionLimit: AgentNodeResult["sessionLimit"] = null,
  ): AgentNodeResult => {
    writeFileSync(ctx.runDir.failedOutputPath(spec.id), facts.reply);
    return {
      row: {
        ...base,
        verdict: "FAIL",
        cause,
        detail: outsideWords !== null ? `${detail}; ${outsideWords}` : detail,
        ...(verify ? { verify } : {}),
        // A session-limit pause is not the node's failure: a later leg re-runs the node (SPEC §4).
        ...(sessionLimit !== null ? { superseded: true } : {}),
      },
      reply: facts.reply,
      judged,
      sessionLimit,
      ...codexThread,
    };
  };

  if (call.failure !== null) {
    const f = call.failure;
    return fail(f.cause, f.detail, undefined, false, f.sessionLimit);
  }
  const reply = facts.reply;
  if (spec.resultMatches && !searchPattern(spec.resultMatches, reply)) {
    return fail(
      "result_mismatch",
      `reply does not match /${spec.resultMatches.source}/: ${oneLine(reply).slice(0, 200)}`,
      undefined,
      true,
    );
  }
  let verify: VerifyEvidence | undefined;
  if (spec.verify) {
    const stopped = `cancelled before its verify command \`${spec.verify.command}\` finished`;
    if (signal.aborted) return fail("cancelled", stopped);
    ctx.onVerifying?.(spec.id, spec.verify.command);
    // The node's signal reaches the verify too: `on_fail: halt` and a cancelled run stop a running build
    // (SPEC §4), instead of waiting for it and then recording a PASS for a halted sibling.
    verify = await ctx.verifyQueue.run({
      nodeId: spec.id,
      command: spec.verify.command,
      cwd: spec.verify.cwd,
      timeoutMs: spec.verify.timeoutMs,
      expectExit: spec.verify.expectExit,
      outputMatches: spec.verify.outputMatches ?? null,
      signal,
    });
    // A build stopped by the signal is not evidence about the tree either way: the row says cancelled.
    if (verify.outcome !== "passed" && signal.aborted) return fail("cancelled", stopped);
    if (verify.outcome !== "passed") {
      const detail = `verify \`${verify.command}\` ${verifyExitWords(verify)}`;
      // Only a command that ran and said no is a judgment; one that timed out or could not start is not.
      return fail("verify_failed", detail, verify, verify.outcome === "failed");
    }
  }
  writeFileSync(ctx.runDir.nodeOutputPath(spec.id), reply);
  // Post-hoc budget check (research §5.8): the output is kept, the node fails. Strictly greater.
  if (budgetUsd !== null && facts.costUsd !== null && facts.costUsd > budgetUsd) {
    return fail(
      "budget_exceeded",
      `exceeded budget_usd: $${facts.costUsd.toFixed(4)} vs $${budgetUsd.toFixed(4)} (over by $${(facts.costUsd - budgetUsd).toFixed(4)})`,
      verify,
    );
  }
  const qualifier = qualifierFor({
    gateApproved: false,
    verifyRan: verify ? { passed: true } : null,
    resultMatchesChecked: spec.resultMatches !== null,
    exitZeroChecked: spec.exitZero,
  });
  // The row stays PASS (verified) — the command did pass — but says when it ran on changed ignored files.
  const ignored = ignoredFilesWords(verify);
  const detail = verify
    ? `verify \`${verify.command}\` exited ${verify.exitCode}${verify.reusedFrom ? ` (result reused from "${verify.reusedFrom}": same tree, same command)` : ""}${ignored !== null ? `; ${ignored}` : ""}`
    : spec.resultMatches
      ? `reply matched /${spec.resultMatches.source}/`
      : "exited 0";
  return {
    row: {
      ...base,
      verdict: "PASS",
      qualifier,
      detail: outsideWords !== null ? `${detail}; ${outsideWords}` : detail,
      ...(verify ? { verify } : {}),
    },
    reply,
    judged: false,
    sessionLimit: null,
    ...codexThread,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return oneLine(lines[lines.length - 1] ?? "");
}
