/**
 * The lifecycle of one agent node (SPEC §4), in order: spawn the CLI → parse its output → cheap
 * predicates (`exit_zero`, `result_matches`) → the verify command (only if the node did not crash and the
 * cheap predicates passed) → save output → the PASS/FAIL row with its qualifier. Interpolation comes
 * before (`node-fields.ts`), recording after (`node-settlement.ts`).
 *
 * Runtime-neutral: the "spawn and parse" step is the run's runtime's agent turn (`ModelRuntime.agentTurn`:
 * `runtime/claude-turn.ts` runs `claude -p`, `runtime/codex-turn.ts` runs `codex exec`), made through the
 * model calls the run was handed (`NodeContext.calls`; default the real CLIs) and folded into the same
 * `CallReport`; everything after it is shared, and this file never asks which runtime it is. What differs
 * on codex (the thread as session, unknown cost, `--sandbox`, `turn.failed`, the usage limit) is said
 * where it is done, in `codex-turn.ts` and `codex-argv.ts`.
 */

import { writeFileSync } from "node:fs";
import type {
  FailCause,
  LedgerRow,
  PassRow,
  RowClaim,
  TokenUsage,
  VerifyEvidence,
} from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { claimsForRow } from "../evidence/node-claims.js";
import { qualifierFor } from "../evidence/qualifier.js";
import { searchPattern } from "../graph/pattern.js";
import { ignoredFilesWords, outsideWritesWords, verifyExitWords } from "../ledger/cells.js";
import { type AgentTurn, type CallReport, oneLine } from "../runtime/agent-turn.js";
import type { DeclaredPlan } from "../runtime/declared-plan.js";
import { MODEL_CALLS } from "../runtime/model-calls.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import type { AgentNodeSpec, NodeContext } from "./agent-node-spec.js";
import { outsideWrites } from "./outside-writes.js";

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
   * Set when the CLI failed at the model's limit — claude's "hit your session limit", codex's "hit your
   * usage limit" (SPEC §4): the run pauses rather than fails.
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
  /** The latest plan the call declared (a completion gate's `todos: all_done` reads it); absent: none. */
  readonly plan?: DeclaredPlan;
  /** A continuing completion attempt whose session the CLI no longer found (never replaced; SPEC §7). */
  readonly sessionLost?: true;
}

/** The agent turn of `spec` with the run-wide settings of `ctx` (the runtime resolves the executable). */
function turnOf(spec: AgentNodeSpec, ctx: NodeContext): AgentTurn {
  const runtime = runtimeFor(ctx.runtime ?? "claude");
  return {
    nodeId: spec.id,
    prompt: spec.prompt,
    permissionMode: spec.permissionMode,
    policy: spec.policy,
    cwd: spec.cwd,
    timeoutMs: spec.timeoutMs,
    session: spec.session ?? { kind: "fresh" },
    budgetUsd: spec.budgetUsd ?? null,
    ...(spec.completion !== undefined ? { completion: spec.completion } : {}),
    executable: runtime.executable(ctx),
    ...(ctx.codexConfig !== undefined ? { codexConfig: ctx.codexConfig } : {}),
    ...(ctx.model !== undefined ? { model: ctx.model } : {}),
    modelEnv: () => ctx.modelEnv(spec.id, runtime.name),
    calls: ctx.calls ?? MODEL_CALLS,
    ...(ctx.echo ? { echo: ctx.echo } : {}),
    ...(ctx.onStarted ? { onStarted: (id: string | null) => ctx.onStarted?.(spec.id, id) } : {}),
    ...(ctx.onSession ? { onSession: (id: string) => ctx.onSession?.(spec.id, id) } : {}),
  };
}

/**
 * Runs one agent node and returns its ledger row. A FAIL saves the reply to `failed/ID.out`, a PASS to
 * `nodes/ID.out` (a post-hoc budget failure keeps it there too). Costs in USD, durations in ms.
 *
 * @returns the row, the reply and what the engine decides on (judged, session limit, session/thread);
 *   never rejects for the node's own failures.
 */
export async function runAgentNode(
  spec: AgentNodeSpec,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<AgentNodeResult> {
  const call = await runtimeFor(ctx.runtime ?? "claude").agentTurn(turnOf(spec, ctx), signal);
  const rows = new RowMaker(spec, ctx, call);
  if (call.failure !== null) {
    const f = call.failure;
    if (f.sessionLimit !== null) return rows.paused(f.sessionLimit.resetsAt);
    return rows.fail(f.cause, f.detail, {
      ...(f.sessionLost === true ? { sessionLost: true } : {}),
    });
  }
  const reply = call.facts.reply;
  if (spec.resultMatches && !searchPattern(spec.resultMatches, reply)) {
    return rows.fail(
      "result_mismatch",
      `reply does not match /${spec.resultMatches.source}/: ${oneLine(reply).slice(0, 200)}`,
      { judged: true },
    );
  }
  let verify: VerifyEvidence | undefined;
  if (spec.verify) {
    const verified = await runVerifyStep(spec, spec.verify, ctx, signal);
    if (verified.kind === "failed") return rows.fail(verified.cause, verified.detail, verified);
    verify = verified.evidence;
  }
  writeFileSync(ctx.runDir.nodeOutputPath(spec.id), reply);
  // Post-hoc budget check (research §5.8): the output is kept, the node fails. Strictly greater. A
  // completion attempt counts what the node's earlier attempts spent too (SPEC §7: the budget binds them all).
  const budgetUsd = spec.budgetUsd ?? null;
  const spentBefore = spec.completion?.spentUsd ?? 0;
  const costUsd = call.facts.costUsd === null ? null : call.facts.costUsd + spentBefore;
  if (budgetUsd !== null && costUsd !== null && costUsd > budgetUsd) {
    const across = spentBefore > 0 ? " across its completion attempts" : "";
    return rows.fail(
      "budget_exceeded",
      `exceeded budget_usd${across}: $${costUsd.toFixed(4)} vs $${budgetUsd.toFixed(4)} (over by $${(costUsd - budgetUsd).toFixed(4)})`,
      verify ? { verify } : {},
    );
  }
  return rows.pass(verify);
}

/** How the verify step ended: its passing evidence, or why the node fails (cancelled, or verify_failed). */
type VerifyStep =
  | { readonly kind: "passed"; readonly evidence: VerifyEvidence }
  | {
      readonly kind: "failed";
      readonly cause: FailCause;
      readonly detail: string;
      readonly verify?: VerifyEvidence;
      readonly judged: boolean;
    };

/**
 * Runs the node's verify command through `ctx.verifyQueue`. The node's signal reaches the verify too:
 * `on_fail: halt` and a cancelled run stop a running build (SPEC §4), instead of waiting for it and then
 * recording a PASS for a halted sibling; a build stopped so is not evidence either way (`cancelled`).
 */
async function runVerifyStep(
  spec: AgentNodeSpec,
  check: NonNullable<AgentNodeSpec["verify"]>,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<VerifyStep> {
  const stopped = `cancelled before its verify command \`${shownCommand(check.command)}\` finished`;
  if (signal.aborted) return { kind: "failed", cause: "cancelled", detail: stopped, judged: false };
  ctx.onVerifying?.(spec.id, check.command);
  const verify = await ctx.verifyQueue.run({
    nodeId: spec.id,
    command: check.command,
    cwd: check.cwd,
    timeoutMs: check.timeoutMs,
    expectExit: check.expectExit,
    outputMatches: check.outputMatches ?? null,
    signal,
  });
  if (verify.outcome === "passed") return { kind: "passed", evidence: verify };
  if (signal.aborted) return { kind: "failed", cause: "cancelled", detail: stopped, judged: false };
  return {
    kind: "failed",
    cause: "verify_failed",
    detail: `verify \`${shownCommand(verify.command)}\` ${verifyExitWords(verify)}`,
    verify,
    // Only a command that ran and said no is a judgment; one that timed out or could not start is not.
    judged: verify.outcome === "failed",
  };
}

/** Builds the node's row from its call: the fields every row shares, then PASS or FAIL. */
class RowMaker {
  readonly #base: Omit<PassRow, "verdict" | "qualifier" | "detail">;
  readonly #outsideWords: string | null;
  readonly #extras: Pick<AgentNodeResult, "codexThread" | "sessionCostUsd" | "plan">;

  constructor(
    private readonly spec: AgentNodeSpec,
    private readonly ctx: NodeContext,
    private readonly call: CallReport,
  ) {
    const facts = call.facts;
    // Writes outside the repository escape the evidence tree: recorded on the row whatever its verdict.
    const outside = outsideWrites(facts.writtenPaths, { cwd: spec.cwd, repoRoot: spec.repoRoot });
    this.#outsideWords = outsideWritesWords(outside);
    this.#base = {
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
    this.#extras = {
      ...(call.codexThread !== undefined ? { codexThread: call.codexThread } : {}),
      ...(call.sessionCostUsd !== undefined ? { sessionCostUsd: call.sessionCostUsd } : {}),
      ...(facts.plan != null ? { plan: facts.plan } : {}),
    };
  }

  /** A FAIL: the reply is saved to `failed/ID.out`. */
  fail(
    cause: FailCause,
    detail: string,
    more: {
      readonly verify?: VerifyEvidence;
      readonly judged?: boolean;
      readonly sessionLost?: true;
    },
  ): AgentNodeResult {
    writeFileSync(this.ctx.runDir.failedOutputPath(this.spec.id), this.call.facts.reply);
    return {
      row: {
        ...this.#base,
        verdict: "FAIL",
        cause,
        detail: this.#withOutside(detail),
        ...(more.verify ? { verify: more.verify, ...this.#claims(more.verify) } : {}),
      },
      reply: this.call.facts.reply,
      judged: more.judged ?? false,
      sessionLimit: null,
      ...(more.sessionLost === true ? { sessionLost: true } : {}),
      ...this.#extras,
    };
  }

  /**
   * A PAUSED row (SPEC §4): the model's session limit stopped the call; the reply is saved to
   * `failed/ID.out` like a failure's, and a later leg (`resume --retry-failed`) runs the node again.
   */
  paused(resetsAt: string | null): AgentNodeResult {
    writeFileSync(this.ctx.runDir.failedOutputPath(this.spec.id), this.call.facts.reply);
    return {
      row: {
        ...this.#base,
        verdict: "PAUSED",
        pause: "session_limit",
        resetsAt,
        detail: this.#withOutside(
          "the model's session limit was reached: the run pauses; resume with --retry-failed after the reset",
        ),
      },
      reply: this.call.facts.reply,
      judged: false,
      sessionLimit: { resetsAt },
      ...this.#extras,
    };
  }

  /** A PASS with its one qualifier (SPEC §6), computed from the checks that ran. */
  pass(verify: VerifyEvidence | undefined): AgentNodeResult {
    const spec = this.spec;
    const qualifier = qualifierFor({
      gateApproved: false,
      verifyRan: verify ? { passed: true } : null,
      resultMatchesChecked: spec.resultMatches !== null,
      exitZeroChecked: spec.exitZero,
    });
    // The row stays PASS (verified) — the command did pass — but says when it ran on changed ignored files.
    const ignored = ignoredFilesWords(verify);
    const detail = verify
      ? `verify \`${shownCommand(verify.command)}\` exited ${verify.exitCode}${verify.repeat !== undefined ? ` in each of ${verify.repeat.runs} runs on the same tree` : ""}${verify.reusedFrom ? ` (result reused from "${verify.reusedFrom}": same tree, same command)` : ""}${ignored !== null ? `; ${ignored}` : ""}`
      : spec.resultMatches
        ? `reply matched /${spec.resultMatches.source}/`
        : "exited 0";
    return {
      row: {
        ...this.#base,
        verdict: "PASS",
        qualifier,
        detail: this.#withOutside(detail),
        ...(verify ? { verify, ...this.#claims(verify) } : {}),
      },
      reply: this.call.facts.reply,
      judged: false,
      sessionLimit: null,
      ...this.#extras,
    };
  }

  /** The reply's claims beside the verify's result (issue 25 item 4), as a spreadable row field. */
  #claims(verify: VerifyEvidence): { claims?: RowClaim[] } {
    const claims = claimsForRow(this.call.facts.reply, verify);
    return claims !== undefined ? { claims } : {};
  }

  #withOutside(detail: string): string {
    return this.#outsideWords !== null ? `${detail}; ${this.#outsideWords}` : detail;
  }
}
