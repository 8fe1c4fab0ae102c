/**
 * The completion gate's judgement of one attempt (SPEC §7; seed 002), between the settlement
 * (`node-settlement.ts`) and the agent lifecycle (`agent-node.ts`). The six rules, and where each is kept:
 *
 * 1. Absent ⇒ byte-identical: nothing here runs for a node without `completion` (the settlement never
 *    calls in), and attempt 1 of a gated node spawns exactly what it would without the gate, but for the
 *    plan tool a `todos: all_done` gate turns on (test/engine/completion-absent.test.ts pins the rest).
 * 2. The check runs only where the node would have passed ({@link judgeAttempt}: a PASS row, no session
 *    limit): never after a non-zero exit, `is_error`, `turn.failed`, a timeout or a budget stop.
 * 3. The engine only continues or stops: it reads the check's pass/fail and reason (`completion-gate.ts`).
 * 4. A failure is fed back into the SAME session — the node's own first session (claude `--resume`,
 *    codex `exec … resume`, every policy flag again: `buildClaudeArgv` / `buildCodexArgv` render the full
 *    policy on a resume) — as the fixed message of `completion-prompt.ts`.
 * 5. Exhaustion ends the node FAIL `incomplete` with `stoppedBy: "completion.verify failed N×: REASON"`.
 * 6. The check cannot pause for a person (`completion-gate.ts`).
 *
 * Accounting: every attempt is its own row (`attempt k/N`, its own cost and tokens); `budget_usd` and
 * `timeout` bind across attempts — what is left goes to the next attempt, and a budget or time spent
 * stops further attempts with the last reason kept. Retries (`retry`) apply to the first attempt only:
 * a later attempt continues the gate's session, and a retry would start a fresh one.
 */
import { renameSync } from "node:fs";
import type { FailRow, LedgerRow, PassRow } from "../core/ledger-row.js";
import type { Redactor } from "../core/redact.js";
import { claimsField } from "../evidence/node-claims.js";
import type { AgentNodeResult, NodeVerifier } from "./agent-node.js";
import { type CompletionCheck, runCompletionCheck } from "./completion-gate.js";
import { type CompletionProgress, oneLineClip } from "./completion-progress.js";
import { type CompletionStart, type GatedNode, limitSpent } from "./completion-start.js";
import type { ExecutionInput, RetrySettlement } from "./node-decision.js";
import type { RunDirectory } from "./run-dir.js";
import type { Runtime } from "./runtime-setup.js";

/** What one attempt came to. `next`: run attempt `next.attempt` (the row is superseded). */
export interface AttemptJudgement {
  readonly produced: AgentNodeResult;
  readonly next: CompletionProgress | null;
  /** The node record's progress after this attempt: a progress to keep, `null` to clear it, `undefined` to leave it. */
  readonly progress: CompletionProgress | null | undefined;
}

/** What {@link judgeAttempt} needs. */
export interface AttemptContext {
  readonly node: GatedNode;
  readonly start: Exclude<CompletionStart, { kind: "spent" }>;
  readonly cwd: string;
  readonly command?: string;
  readonly runtime: Runtime;
  readonly verifier: NodeVerifier;
  readonly onVerifying: (nodeId: string, command: string) => void;
  readonly dir: RunDirectory;
  readonly redactor: Redactor;
}

/**
 * Judges the attempt that just ran (its row already redacted): the check runs only on a PASS (rule 2);
 * a pass keeps the PASS with the check's evidence; a failure is fed back while attempts remain and no
 * limit is spent, else it stops the node. Every row says its attempt.
 */
export async function judgeAttempt(
  ctx: AttemptContext,
  produced: AgentNodeResult,
  signal: AbortSignal,
): Promise<AttemptJudgement> {
  const { node, start } = ctx;
  const attempt = start.kind === "first" ? 1 : start.progress.attempt;
  const max = node.completion.max_attempts;
  const words = `attempt ${attempt}/${max}`;
  const row = produced.row;
  if (row.verdict !== "PASS" || produced.sessionLimit !== null) {
    const lost = produced.sessionLost === true && row.verdict === "FAIL";
    const notRun: LedgerRow = {
      ...row,
      detail: `${row.detail}; ${words}`,
      completion: { attempt, maxAttempts: max, check: "not_run" },
      ...(lost ? { stoppedBy: "session lost" } : {}),
    };
    return { produced: { ...produced, row: notRun }, next: null, progress: undefined };
  }
  const previous = start.kind === "continue" ? start.progress : null;
  const plan = produced.plan ?? previous?.plan ?? null;
  const check = await runCompletionCheck(
    node.completion,
    plan,
    {
      nodeId: node.id,
      cwd: ctx.cwd,
      ...(ctx.command !== undefined ? { command: ctx.command } : {}),
      verifier: ctx.verifier,
      onVerifying: ctx.onVerifying,
    },
    signal,
  );
  if (check.kind === "passed")
    return {
      produced: { ...produced, row: passRow(row, check, attempt, max, ctx, produced.reply) },
      next: null,
      progress: null,
    };
  keepReplyAsFailed(ctx.dir, node.id);
  // Each attempt's row sets its own reply's claims beside its own check's verify (issue 25 item 4): the
  // "it passes" a model wrote over a red build is named whether or not the repair loop is on.
  const failedWith = (
    fail: Omit<FailRow, keyof PassRow | "verdict"> & Partial<FailRow>,
  ): AgentNodeResult => ({
    ...produced,
    judged: false,
    row: ctx.redactor.deep(failRowOf(row, { ...fail, ...claimsField(produced.reply, fail.verify) })),
  });
  if (check.kind === "cancelled") {
    return {
      produced: failedWith({ cause: "cancelled", detail: "cancelled before its completion check finished" }),
      next: null,
      progress: undefined,
    };
  }
  const completion = { attempt, maxAttempts: max, reason: oneLineClip(check.summary) };
  if (check.kind === "could_not_run") {
    const stoppedBy = `completion.verify could not run: ${oneLineClip(check.summary)}`;
    return {
      produced: failedWith({
        cause: "verify_failed",
        verify: check.verify,
        stoppedBy,
        completion: { ...completion, check: "could_not_run" },
        detail: `${stoppedBy} — an infrastructure fault, not fed back; ${words}`,
      }),
      next: null,
      progress: undefined,
    };
  }
  return failedCheck(ctx, produced, { check, attempt, plan, previous, failedWith });
}

/** A failed check: the next attempt's progress, or the stop (attempts used up, budget or time spent). */
function failedCheck(
  ctx: AttemptContext,
  produced: AgentNodeResult,
  o: {
    readonly check: Extract<CompletionCheck, { kind: "failed" }>;
    readonly attempt: number;
    readonly plan: CompletionProgress["plan"];
    readonly previous: CompletionProgress | null;
    readonly failedWith: (
      fail: Omit<FailRow, keyof PassRow | "verdict"> & Partial<FailRow>,
    ) => AgentNodeResult;
  },
): AttemptJudgement {
  const { node } = ctx;
  const { check, attempt, previous } = o;
  const max = node.completion.max_attempts;
  const row = produced.row;
  const summary = oneLineClip(ctx.redactor.text(check.summary));
  const reasons = [...(previous?.reasons ?? []), summary];
  const cost = row.costUsd;
  const spentBefore = previous === null ? 0 : previous.spentUsd;
  const next: CompletionProgress = {
    attempt: attempt + 1,
    sessionId: row.sessionId ?? previous?.sessionId ?? "",
    reasons,
    feedback: ctx.redactor.text(check.report),
    // Codex reports no USD: what its attempts spent is unknown, and its budget_usd is not enforced.
    spentUsd: spentBefore === null || cost === null ? null : spentBefore + cost,
    elapsedMs: (previous?.elapsedMs ?? 0) + row.durationMs,
    plan: o.plan,
    ...codexThreadOf(produced, previous),
    ...(produced.sessionCostUsd !== undefined ? { sessionCostUsd: produced.sessionCostUsd } : {}),
  };
  const verify = check.verify !== undefined ? { verify: check.verify } : {};
  const completion = { attempt, maxAttempts: max, check: "failed" as const, reason: summary };
  if (attempt >= max) {
    const stoppedBy = `completion.verify failed ${max}×: ${summary}`;
    return {
      produced: o.failedWith({
        cause: "incomplete",
        ...verify,
        stoppedBy,
        completion,
        detail: `${stoppedBy}; attempt ${attempt}/${max}`,
      }),
      next: null,
      progress: next,
    };
  }
  const limit = limitSpent(node, next);
  if (limit !== null) {
    return {
      produced: o.failedWith({
        cause: limit.cause,
        ...verify,
        stoppedBy: limit.stoppedBy,
        completion,
        detail: limit.detail,
      }),
      next: null,
      progress: next,
    };
  }
  if (next.sessionId === "") {
    const stoppedBy = "session lost";
    return {
      produced: o.failedWith({
        cause: "run_error",
        ...verify,
        stoppedBy,
        completion,
        detail: `completion.verify failed: ${summary}; the attempt reported no session to continue, and a fresh session would not be the same work — ${stoppedBy}`,
      }),
      next: null,
      progress: undefined,
    };
  }
  return {
    produced: o.failedWith({
      cause: "incomplete",
      superseded: true,
      ...verify,
      completion,
      detail: `completion.verify failed: ${summary}; attempt ${attempt}/${max}`,
    }),
    next,
    progress: next,
  };
}

/** Codex: the thread's home and cumulative usage after this attempt (claude: nothing). */
function codexThreadOf(
  produced: AgentNodeResult,
  previous: CompletionProgress | null,
): Pick<CompletionProgress, "codexHome" | "threadUsage"> {
  const thread = produced.codexThread;
  if (thread === undefined) return {};
  const home = thread.home ?? previous?.codexHome;
  return {
    ...(home !== undefined && home !== null ? { codexHome: home } : {}),
    ...(thread.usage !== null ? { threadUsage: thread.usage } : {}),
  };
}

/**
 * The attempt's PASS with the check's evidence: a command that passed is the engine's own evidence
 * (`verified`, its evidence on the row); a plan whose items are all done is the agent's own word
 * (`self-reported`, unless a `success_check.verify` already made the row `verified`). A command's evidence
 * comes with the attempt's `reply`'s claims set beside it.
 */
function passRow(
  row: PassRow,
  check: Extract<CompletionCheck, { kind: "passed" }>,
  attempt: number,
  max: number,
  ctx: AttemptContext,
  reply: string,
): PassRow {
  const qualifier = check.verify !== undefined || row.qualifier === "verified" ? "verified" : "self-reported";
  return ctx.redactor.deep({
    ...row,
    qualifier,
    ...(check.verify !== undefined ? { verify: check.verify, ...claimsField(reply, check.verify) } : {}),
    detail: `${row.detail}; completion.verify ${oneLineClip(check.summary)}; attempt ${attempt}/${max}`,
    completion: { attempt, maxAttempts: max, check: "passed" },
  });
}

/** The attempt's FAIL, from its PASS row's call fields and `fail`. */
function failRowOf(row: PassRow, fail: Omit<FailRow, keyof PassRow | "verdict"> & Partial<FailRow>): FailRow {
  const { qualifier: _qualifier, approvedBy: _approvedBy, ...call } = row;
  return { ...call, verdict: "FAIL", ...fail } as FailRow;
}

/** The attempt's reply moves from `nodes/ID.out` (a PASS's) to `failed/ID.out`: the node did not pass. */
function keepReplyAsFailed(dir: RunDirectory, nodeId: string): void {
  try {
    renameSync(dir.nodeOutputPath(nodeId), dir.failedOutputPath(nodeId));
  } catch {
    // Nothing was saved (an empty reply is still written, so this is a removed file): nothing to move.
  }
}

/**
 * The decision to run `next` (the scheduler announces it, then runs it in the same slot unless the run
 * stopped): the attempt's FAIL is superseded, the node's fields carry over, nothing is quoted (the
 * session already holds the previous attempt).
 */
export function continuationOf(
  node: GatedNode,
  input: ExecutionInput & { readonly carried: NonNullable<ExecutionInput["carried"]> },
  row: FailRow,
  next: CompletionProgress,
): RetrySettlement {
  const max = node.completion.max_attempts;
  const reason = next.reasons.at(-1) ?? "";
  return {
    kind: "retry",
    row,
    info: { kind: "completion", attempt: next.attempt, maxAttempts: max, reason },
    detail: `completion.verify failed (attempt ${next.attempt - 1}/${max}): ${reason}; attempt ${next.attempt}/${max} continues session ${next.sessionId}`,
    next: {
      attempt: input.attempt,
      round: input.round,
      carried: { ...input.carried, quoted: null },
      completion: next,
    },
  };
}
