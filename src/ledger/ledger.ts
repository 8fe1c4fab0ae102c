import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { ChangedFiles } from "../core/changed-files-record.js";
import { type LedgerRow, NOTHING_SPENT, type TokenUsage } from "../core/ledger-row.js";
import type { UntrustedTextRemoval } from "../core/untrusted-text-report.js";
import type { Conclusion } from "./conclusion-types.js";

/**
 * The qualified ledger of one run (SPEC §6): everything the text, Markdown and JSON renderers print, and
 * nothing they have to look up. Timestamps are ISO 8601 UTC strings; costs are USD; durations are ms.
 */
export interface Ledger {
  readonly schemaVersion: 1;
  /** `YYYYMMDD-HHMMSS-<6 hex>` (SPEC §11). */
  readonly runId: string;
  readonly mode: "auto" | "run" | "verify";
  readonly goal?: string;
  readonly runtime: "claude" | "codex";
  readonly model?: string;
  readonly plan: PlanSection;
  /** One row per node execution, in execution order. */
  readonly rows: readonly LedgerRow[];
  readonly totals: Totals;
  /** `null` while the run is in progress (the check run's `in_progress` summary). */
  readonly conclusion: Conclusion | null;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  /** The checked-out `HEAD` when the run began; `description` names it, e.g. "the merge of abc1234 into main". */
  readonly startingCommit: StartingCommit | null;
  /**
   * The pull request's head commit (40 hex) the run was about, when it was given one (the action's
   * `pull_request.head.sha`, a resumed leg's head): the check run's `head_sha` (SPEC §6). `mode: report`
   * refuses a ledger whose `headSha` is not the `workflow_run` event's (SPEC §10). Absent: no PR head given.
   */
  readonly headSha?: string;
  /**
   * The commit the check run is posted on, when it is not the starting commit (after `push` / `--commit`).
   * Absent = the starting commit. "Verified" is judged against this commit's tree.
   */
  readonly postedCommit?: StartingCommit;
  /**
   * The tree the sinks' verify commands ran on: `null` when no verify command ran, or when the sinks
   * verified different trees (each sink's verify evidence then names its own).
   */
  readonly evidenceTree: string | null;
  /**
   * The files the nodes changed (the starting commit's tree against the tree the run ended with), bounded,
   * with the changes that touch what defines the verify command. Absent: nothing changed, or no node ran
   * (`mode: verify`), or a ledger written before the record existed.
   */
  readonly changedFiles?: ChangedFiles;
  /** The nodes' uncommitted changes, when there are any (`patch.diff` in the run directory). */
  readonly patch?: PatchSummary;
  /**
   * The goal loop (`max-cycles` above 1, SPEC §7): every cycle of the goal, on the ledger of its last run.
   * Descriptive only: the conclusion above is this (last) run's own, never the assessor's. Absent outside
   * the loop (and with `max-cycles` 1, so such a ledger is byte-identical to one without the loop).
   */
  readonly goalLoop?: GoalLoopSection;
}

/** The goal loop's cycles as the ledger of its last run records them (`engine/goal-loop.ts` writes it). */
export interface GoalLoopSection {
  /** `max-cycles`: 2..5. */
  readonly maxCycles: number;
  /** Why no further cycle ran, one plain-text sentence (e.g. "max-cycles 2 reached"). */
  readonly stoppedBecause: string;
  /** Every cycle in the order it ran, this ledger's run the last; 1-based `cycle`. */
  readonly cycles: readonly GoalCycleSection[];
}

/**
 * One cycle of the goal loop, compact. The assessor's words (`remainingIn`, `remaining`, `evidence`,
 * `reason`) are model text, already sanitised and bounded by `parseAssessment`: renderers escape them.
 */
export interface GoalCycleSection {
  readonly cycle: number;
  readonly runId: string;
  /** What the assessor said the cycle before left to do, fed (fenced) to this cycle's planner. Absent on cycle 1. */
  readonly remainingIn?: string;
  /** The cycle's run conclusion, as its own ledger has it. */
  readonly conclusion: {
    readonly conclusion: Conclusion["conclusion"];
    readonly outcome: Conclusion["outcome"];
    readonly title: string;
  } | null;
  /** The run's rows in execution order: the text and Markdown renderers' cells, plain text. */
  readonly rows: readonly GoalCycleRow[];
  /** The run's total cost (planning and nodes; the assessor call is in `assessment`). */
  readonly total: UsdTotal;
  readonly assessment: GoalCycleAssessment;
}

/** One ledger row of a cycle, as the ledger table's cells (`cells.ts`) print it; `detail` is bounded. */
export interface GoalCycleRow {
  readonly node: string;
  readonly verdict: string;
  readonly costUsd: number | null;
  readonly durationMs: number;
  readonly detail: string;
}

/** The assessor's verdict on a cycle; `costUsd` is the assessor call's (`null`: not reported, e.g. codex). */
export type GoalCycleAssessment =
  | {
      readonly kind: "assessed";
      readonly goalMet: boolean;
      readonly remaining: string;
      readonly evidence: string;
      readonly costUsd: number | null;
      /** Set when the assessor CLI failed to start and a retry started it (runtime/start-retry.ts). */
      readonly startRetries?: string;
    }
  | { readonly kind: "failed"; readonly reason: string; readonly costUsd: number | null }
  /** Not assessed: the last cycle allowed, or the loop stopped first (the cost ceiling, a stop). */
  | { readonly kind: "not_assessed" };

export interface StartingCommit {
  readonly sha: string;
  readonly tree: string;
  /** A noun phrase: "the merge of abc1234 into main", "abc1234 (the pull request head)". */
  readonly description: string;
}

export interface PatchSummary {
  /** Where the full patch is: a run-directory path or an artifact name. */
  readonly path: string;
  readonly bytes: number;
  /** The patch's first lines, already bounded by the writer; renderers bound it again. */
  readonly preview: string;
  /**
   * The patch holds a known secret value (SPEC §9): the preview shows it as `***`, while the patch file is
   * the nodes' content byte for byte.
   */
  readonly holdsSecret?: true;
  /** Set when `--commit` left these changes uncommitted although every node passed, and why. */
  readonly notCommittedBecause?: string;
}

/** What the plan was and what stands behind its verdicts (SPEC §6, "the plan section"). */
export interface PlanSection {
  readonly buildEvidence: BuildEvidenceAnswer;
  /** The verify command attached to each sink, by trusted code (never by a planner). */
  readonly sinkCommands: readonly { readonly nodeId: string; readonly command: string }[];
  /** The tool-ceiling disclosure paragraph (SPEC §8): one slot, plain text (renderers escape it: a ledger read back is untrusted). */
  readonly disclosure: string;
  readonly nodes: readonly PlanNode[];
  /** USD of the planner call(s); `null` when a call reported no USD; `0` outside `auto`. */
  readonly planningCostUsd: number | null;
  /** Set when the planner's first spec was refused and one repair call fixed it. */
  readonly repaired?: { readonly refusals: readonly string[] };
  /**
   * The maintainers' policy file, when one applied (SPEC §5, §11): where it was read (e.g.
   * `.github/evidence-gate.yml (base ref main, commit 1a2b3c4)`) and what it set that judges the run.
   */
  readonly policy?: LedgerPolicy;
  /**
   * What the graph asks that the run's runtime does not enforce, one sentence each (e.g. a `budget_usd`
   * on the codex runtime, which reports no USD, naming the timeout that still bounds the node), and every
   * node that runs with permissions bypassed (`permission_mode: bypassPermissions`). Absent: none.
   */
  readonly warnings?: readonly string[];
  /**
   * The splice disclosure of a hand-written graph built from fragments (Go `printFragmentResolutions`):
   * one line per resolved `use:` (`formatSplice`), saying which fragment it spliced, what the citing node
   * overrode, which ids it minted and which grants a binding assembled. Absent: no fragment.
   */
  readonly fragments?: readonly string[];
  /**
   * What was removed from the pull request's text (title, body, the comment that started the run) before
   * the planner saw it: one entry per source that lost anything. Absent: nothing was removed, or nothing
   * untrusted was quoted.
   */
  readonly untrustedText?: readonly UntrustedTextRemoval[];
}

export interface PlanNode {
  readonly id: string;
  /** Absent = `agent`, the graph's default. */
  readonly type?: "agent" | "gate";
  readonly dependsOn: readonly string[];
  readonly allowedTools: readonly string[];
  readonly sink: boolean;
}

/** A USD sum that is `unknown` as soon as one call lacked USD, keeping what is known beside it. */
export type UsdTotal =
  | { readonly kind: "known"; readonly usd: number }
  | { readonly kind: "unknown"; readonly knownUsd: number; readonly unknownCalls: number };

export interface TokenTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheCreationInputTokens: number;
  /** Calls that reported no usage at all (not counted above). */
  readonly callsWithoutUsage: number;
}

/**
 * A run's spend: its planner calls, its node calls, both, and their tokens. On the ledger of a goal loop's
 * last run (`goalLoop` present) these are the whole loop's — every cycle's planner and nodes, and every
 * assessor call, counted in `planning` ({@link loopTotals}); each cycle's own is its section's `total`.
 */
export interface Totals {
  readonly planning: UsdTotal;
  readonly nodes: UsdTotal;
  readonly total: UsdTotal;
  readonly tokens: TokenTotals;
}

/** One planner (or repair, or assessor) call, as the totals see it. */
export interface PlanningCall {
  readonly costUsd: number | null;
  readonly usage: TokenUsage | null;
}

/** Appended to a goal loop's planning cost, which holds its assessor calls too ({@link loopTotals}). */
export const PLANNING_WITH_ASSESSOR = " — the planner and assessor calls";

/**
 * Planning, node and overall cost, and token sums. A call with `costUsd: null` makes its total `unknown`
 * (never `$0`), with the known subtotal kept.
 *
 * SKIPPED rows are not calls and count for nothing. Nor does a row that spawned nothing (a gate's
 * decision, a node that failed before its CLI started, the engine's own `verify` row): it carries no
 * session, `costUsd: 0` and no usage. Any other row is a call; one without USD makes the total `unknown`.
 */
export function computeTotals(rows: readonly LedgerRow[], planningCalls: readonly PlanningCall[]): Totals {
  const nodeCalls: PlanningCall[] = rows
    .filter((row) => row.verdict !== "SKIPPED" && !spawnedNothing(row))
    .map((row) => ({ costUsd: row.costUsd, usage: row.usage }));
  const planning = sumUsd(planningCalls);
  const nodes = sumUsd(nodeCalls);
  return {
    planning,
    nodes,
    total: addUsd(planning, nodes),
    tokens: sumTokens([...planningCalls, ...nodeCalls]),
  };
}

/**
 * The totals of a whole goal loop (`max-cycles` above 1, SPEC §7; issue 22 item 5): every cycle's
 * planning, node and token totals (`cycles`, each a cycle's own `computeTotals`) plus every assessor call
 * (`assessorCalls`), counted as planning. A call or cycle without USD keeps the sum `unknown` with the
 * known subtotal, as {@link computeTotals} does. Equal to `goalLoopTotal` of the loop's section.
 */
export function loopTotals(cycles: readonly Totals[], assessorCalls: readonly PlanningCall[]): Totals {
  const assessors = sumUsd(assessorCalls);
  const planning = cycles.reduce((sum, t) => addUsd(sum, t.planning), assessors);
  const nodes = cycles.reduce((sum, t) => addUsd(sum, t.nodes), sumUsd([]));
  const assessorTokens = sumTokens(assessorCalls);
  const tokens = cycles.reduce(
    (sum, t) => ({
      inputTokens: sum.inputTokens + t.tokens.inputTokens,
      outputTokens: sum.outputTokens + t.tokens.outputTokens,
      cacheReadInputTokens: sum.cacheReadInputTokens + t.tokens.cacheReadInputTokens,
      cacheCreationInputTokens: sum.cacheCreationInputTokens + t.tokens.cacheCreationInputTokens,
      callsWithoutUsage: sum.callsWithoutUsage + t.tokens.callsWithoutUsage,
    }),
    assessorTokens,
  );
  return { planning, nodes, total: addUsd(planning, nodes), tokens };
}

/** A row no CLI call stands behind (`NOTHING_SPENT`'s fields): no session, nothing spent, no usage. */
function spawnedNothing(row: LedgerRow): boolean {
  return (
    row.sessionId === NOTHING_SPENT.sessionId &&
    row.costUsd === NOTHING_SPENT.costUsd &&
    row.usage === NOTHING_SPENT.usage
  );
}

function sumUsd(calls: readonly PlanningCall[]): UsdTotal {
  let knownUsd = 0;
  let unknownCalls = 0;
  for (const call of calls) {
    if (call.costUsd === null || !Number.isFinite(call.costUsd)) unknownCalls += 1;
    else knownUsd += call.costUsd;
  }
  return unknownCalls === 0 ? { kind: "known", usd: knownUsd } : { kind: "unknown", knownUsd, unknownCalls };
}

function addUsd(a: UsdTotal, b: UsdTotal): UsdTotal {
  const knownUsd = knownPart(a) + knownPart(b);
  const unknownCalls = unknownPart(a) + unknownPart(b);
  return unknownCalls === 0 ? { kind: "known", usd: knownUsd } : { kind: "unknown", knownUsd, unknownCalls };
}

function knownPart(total: UsdTotal): number {
  return total.kind === "known" ? total.usd : total.knownUsd;
}

function unknownPart(total: UsdTotal): number {
  return total.kind === "known" ? 0 : total.unknownCalls;
}

function sumTokens(calls: readonly PlanningCall[]): TokenTotals {
  const totals = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    callsWithoutUsage: 0,
  };
  for (const { usage } of calls) {
    if (usage === null) {
      totals.callsWithoutUsage += 1;
      continue;
    }
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.cacheReadInputTokens += usage.cacheReadInputTokens ?? 0;
    totals.cacheCreationInputTokens += usage.cacheCreationInputTokens ?? 0;
  }
  return totals;
}

/**
 * What the ledger says of the maintainers' policy file (SPEC §5, §11): where it was read, its
 * `require-evidence`, and the other keys that judge a run when the file sets them — `require-tests: true`
 * (ADR 0016), `verify-repeat` (runs per verify, 1–10; a floor for the workflow's), `verify-base: true`
 * (ADR 0017) and `test-reports` (globs). Absent keys were not set by the file (an input may still have set
 * `verify-repeat` or `verify-base`; the rows say what ran).
 */
export interface LedgerPolicy {
  readonly source: string;
  readonly requireEvidence: boolean;
  readonly requireTests?: boolean;
  readonly verifyRepeat?: number;
  readonly verifyBase?: boolean;
  readonly testReports?: readonly string[];
}

/**
 * The policy's settings as one line's words, `require-evidence: true, require-tests: true, verify-repeat: 3,
 * verify-base: true, test-reports: reports/*.xml` — `require-evidence` always, each other key only when the
 * file set it. Plain text: a renderer escapes it for its medium.
 */
export function policySettingsWords(policy: LedgerPolicy): string {
  const parts = [`require-evidence: ${policy.requireEvidence}`];
  if (policy.requireTests === true) parts.push("require-tests: true");
  if (policy.verifyRepeat !== undefined && policy.verifyRepeat > 1)
    parts.push(`verify-repeat: ${policy.verifyRepeat}`);
  if (policy.verifyBase === true) parts.push("verify-base: true");
  if (policy.testReports !== undefined && policy.testReports.length > 0)
    parts.push(`test-reports: ${policy.testReports.join(", ")}`);
  return parts.join(", ");
}
