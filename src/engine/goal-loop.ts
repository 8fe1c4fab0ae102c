/**
 * The goal loop of `auto` (`max-cycles` / `--max-cycles`, SPEC §7; issue 13 item 7). With `maxCycles` 1
 * (the default) this is `runAuto` once, nothing else: no assessor call, today's behaviour. With more:
 *
 * 1. a cycle is one whole `auto` run (its own run directory, plan, ledger and conclusion);
 * 2. when another cycle could follow, the `max-cost-usd` soft ceiling is checked first (the sum of every
 *    cycle's and assessor's known cost; a cost the runtime does not report — codex — stops the loop as
 *    unmeasurable, since the ceiling could not be honoured), then one isolated, tool-less assessor call
 *    (`assess-call.ts`) reads the goal and the cycle's ledger (fenced) and answers `{goal_met, remaining,
 *    evidence}`;
 * 3. a met goal ends the loop; otherwise the next cycle plans again with `remaining` fenced in its planner
 *    prompt. An assessor that fails or answers out of shape ends the loop (no verdict is guessed).
 *
 * The result is the last cycle's run as `runAuto` returns it — so the final conclusion is the last run's,
 * and a met verdict never turns a failed run into a pass — plus one {@link GoalCycle} per cycle and why the
 * loop stopped. The last cycle allowed is not assessed: nothing would follow from its verdict. The last
 * run's ledger (returned, and rewritten to its `ledger.json`, redacted) carries every cycle as its
 * `goalLoop` section, so the check run, the job summary, the artifact and the CLI show one section per
 * cycle; its `totals` are the whole loop's spend (every cycle's planner and nodes, every assessor call —
 * `loopTotals`), so TOTAL COST is what the goal cost, and each cycle's own run cost is in its section.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRedactor } from "../core/redact.js";
import { nodeLabel, rowDetail, verdictLabel } from "../ledger/cells.js";
import {
  type GoalCycleAssessment,
  type GoalCycleSection,
  type Ledger,
  loopTotals,
  type PlanningCall,
  type Totals,
} from "../ledger/ledger.js";
import { renderLedgerJson } from "../ledger/render-json.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { buildAssessorPrompt } from "../plan/assessor-prompt.js";
import { startRetryNote } from "../runtime/start-retry.js";
import { type AssessResult, assessCycle } from "./assess-call.js";
import { type AutoRunOptions, type AutoRunResult, runAuto } from "./auto-run.js";
import type { FinishedLeg } from "./leg.js";
import { executableFor } from "./runtime-setup.js";

/** The goal loop's own options, beside `auto`'s. */
export interface GoalLoopOptions {
  /** `max-cycles` (SPEC §7): integer from 1 (one run, no assessor) to `MAX_CYCLES` (`src/run/max-cycles.ts`). */
  readonly maxCycles: number;
  /** `max-cost-usd` (SPEC §7): the soft ceiling in USD, checked between cycles only. Absent: no ceiling. */
  readonly maxCostUsd?: number;
  /** The assessor call's timeout in ms; default the planner's (`plannerTimeoutMs`). */
  readonly assessorTimeoutMs?: number;
}

/** One cycle as the loop saw it. */
export interface GoalCycle {
  /** 1-based. */
  readonly cycle: number;
  readonly runId: string;
  readonly runDir: string;
  /** The cycle's run conclusion (`success`, `failure`, …), as its ledger says. */
  readonly conclusion: string | null;
  /** The assessor's verdict, or why there is none (`null`: not assessed, e.g. the last cycle). */
  readonly assessment: AssessResult | null;
}

/** The last cycle's run, with every cycle and why the loop stopped. */
export type GoalLoopFinished = FinishedLeg & {
  readonly cycles: readonly GoalCycle[];
  readonly stoppedBecause: string;
};

/** `runAuto`'s result, and with `finished` the cycles and why the loop stopped. */
export type GoalLoopResult = Exclude<AutoRunResult, FinishedLeg> | GoalLoopFinished;

/** Runs `auto` up to `maxCycles` times (see the module comment). Rejects only on internal errors. */
export async function runGoalLoop(o: AutoRunOptions, loop: GoalLoopOptions): Promise<GoalLoopResult> {
  if (!Number.isInteger(loop.maxCycles) || loop.maxCycles < 1) {
    throw new Error(`Internal error: max cycles must be an integer >= 1, got ${loop.maxCycles}`);
  }
  const cycles: GoalCycle[] = [];
  const sections: GoalCycleSection[] = [];
  const spend: LoopSpend = { cycles: [], assessorCalls: [] };
  let spent = { usd: 0, unknown: false };
  let last: FinishedLeg | null = null;
  let remaining: string | undefined;
  for (let cycle = 1; ; cycle++) {
    // Only cycle 1 may carry the caller's run id: every later cycle is a run of its own.
    const { runId, ...rest } = o;
    const cycleOptions: AutoRunOptions =
      cycle === 1 ? o : { ...rest, ...(remaining !== undefined ? { remaining } : {}) };
    const result = await runAuto(cycleOptions);
    if (result.kind !== "finished") {
      if (last === null) return result;
      return finish(
        o,
        loop,
        last,
        { cycles, sections, spend },
        `cycle ${cycle} did not start: ${result.message}`,
      );
    }
    last = result;
    spend.cycles.push(result.ledger.totals);
    spent = addUsd(spent, result.ledger.totals.total);
    const record = (assessment: AssessResult | null): void => {
      cycles.push({
        cycle,
        runId: result.ledger.runId,
        runDir: result.runDir,
        conclusion: result.ledger.conclusion?.conclusion ?? null,
        assessment,
      });
      sections.push(cycleSection(cycle, result.ledger, cycleOptions.remaining, assessment));
    };
    const stop = stopBefore(cycle, loop, spent, o.signal);
    if (stop !== null) {
      record(null);
      return finish(o, loop, result, { cycles, sections, spend }, stop);
    }
    const assessed = await assess(o, loop, result);
    record(assessed);
    spend.assessorCalls.push(assessed.call);
    spent = addUsd(
      spent,
      assessed.call.costUsd === null
        ? { kind: "unknown", knownUsd: 0, unknownCalls: 1 }
        : { kind: "known", usd: assessed.call.costUsd },
    );
    if (assessed.kind === "failed") {
      return finish(
        o,
        loop,
        result,
        { cycles, sections, spend },
        `no assessment of cycle ${cycle}: ${assessed.reason}`,
      );
    }
    if (assessed.assessment.goal_met) {
      return finish(
        o,
        loop,
        result,
        { cycles, sections, spend },
        `the assessor judged the goal met after cycle ${cycle}`,
      );
    }
    remaining = assessed.assessment.remaining;
  }
}

/** What the loop spent so far: each finished cycle's run totals and each assessor call's bill. */
interface LoopSpend {
  readonly cycles: Totals[];
  readonly assessorCalls: PlanningCall[];
}

/** The loop's record so far: what each cycle was, as the result and as the ledger's section, and the spend. */
interface LoopRecord {
  readonly cycles: readonly GoalCycle[];
  readonly sections: readonly GoalCycleSection[];
  readonly spend: LoopSpend;
}

/**
 * The loop's result: the last run, its ledger carrying every cycle (`goalLoop`) and the whole loop's totals,
 * which is also rewritten to that run's `ledger.json` with the known secrets redacted — the file every
 * surface reports from.
 */
function finish(
  o: AutoRunOptions,
  loop: GoalLoopOptions,
  last: FinishedLeg,
  { cycles, sections, spend }: LoopRecord,
  stoppedBecause: string,
): GoalLoopFinished {
  const ledger: Ledger = createRedactor(o.knownSecrets).deep({
    ...last.ledger,
    totals: loopTotals(spend.cycles, spend.assessorCalls),
    goalLoop: { maxCycles: loop.maxCycles, stoppedBecause, cycles: sections },
  });
  writeFileSync(last.ledgerPath, renderLedgerJson(ledger));
  return { ...last, ledger, cycles, stoppedBecause };
}

/** Longest row detail a cycle section keeps, in characters: the last run's full ledger follows anyway. */
const CYCLE_DETAIL_MAX_CHARS = 160;

/** One cycle as its run's ledger and the assessor saw it, compact (`GoalCycleSection`). */
function cycleSection(
  cycle: number,
  ledger: Ledger,
  remainingIn: string | undefined,
  assessed: AssessResult | null,
): GoalCycleSection {
  const conclusion = ledger.conclusion;
  return {
    cycle,
    runId: ledger.runId,
    ...(remainingIn !== undefined ? { remainingIn } : {}),
    conclusion:
      conclusion === null
        ? null
        : { conclusion: conclusion.conclusion, outcome: conclusion.outcome, title: conclusion.title },
    rows: ledger.rows.map((row) => {
      const detail = [...rowDetail(row).replace(/\s+/g, " ").trim()];
      return {
        node: nodeLabel(row),
        verdict: verdictLabel(row),
        costUsd: row.costUsd,
        durationMs: row.durationMs,
        detail:
          detail.length <= CYCLE_DETAIL_MAX_CHARS
            ? detail.join("")
            : `${detail.slice(0, CYCLE_DETAIL_MAX_CHARS - 1).join("")}…`,
      };
    }),
    total: ledger.totals.total,
    assessment: cycleAssessment(assessed),
  };
}

function cycleAssessment(assessed: AssessResult | null): GoalCycleAssessment {
  if (assessed === null) return { kind: "not_assessed" };
  if (assessed.kind === "failed") {
    return { kind: "failed", reason: assessed.reason, costUsd: assessed.call.costUsd };
  }
  const { goal_met, remaining, evidence } = assessed.assessment;
  const retried = startRetryNote("the assessor CLI", assessed.failedStarts, true);
  return {
    kind: "assessed",
    goalMet: goal_met,
    remaining,
    evidence,
    costUsd: assessed.call.costUsd,
    ...(retried !== null ? { startRetries: retried } : {}),
  };
}

/** Why no further cycle may follow cycle `cycle`, or `null` when one may. */
function stopBefore(
  cycle: number,
  loop: GoalLoopOptions,
  spent: { readonly usd: number; readonly unknown: boolean },
  signal: AbortSignal | undefined,
): string | null {
  if (cycle >= loop.maxCycles) return `max-cycles ${loop.maxCycles} reached`;
  if (signal?.aborted) return `the run was stopped during cycle ${cycle}`;
  if (loop.maxCostUsd === undefined) return null;
  if (spent.unknown) {
    return `max-cost-usd ${loop.maxCostUsd} cannot be checked: the runtime did not report the cost of cycle ${cycle} (unmeasurable)`;
  }
  if (spent.usd >= loop.maxCostUsd) {
    return `max-cost-usd ${loop.maxCostUsd} reached: $${spent.usd.toFixed(4)} spent after cycle ${cycle}`;
  }
  return null;
}

function addUsd(
  spent: { readonly usd: number; readonly unknown: boolean },
  total: FinishedLeg["ledger"]["totals"]["total"],
): { readonly usd: number; readonly unknown: boolean } {
  return total.kind === "known"
    ? { usd: spent.usd + total.usd, unknown: spent.unknown }
    : { usd: spent.usd + total.knownUsd, unknown: true };
}

/** The assessor call on a finished cycle, in its working directory, with the run's CLI and environment. */
function assess(o: AutoRunOptions, loop: GoalLoopOptions, cycle: FinishedLeg): Promise<AssessResult> {
  const cwd = o.workingDirectory !== undefined ? join(o.repoDir, o.workingDirectory) : o.repoDir;
  return assessCycle({
    runtime: o.runtime,
    executable: executableFor(o.runtime, o),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    prompt: buildAssessorPrompt({ goal: o.goal, ledgerText: renderLedgerText(cycle.ledger) }),
    cwd,
    env: o.modelEnv("assessor", o.runtime),
    ...(o.model !== undefined ? { model: o.model } : {}),
    timeoutMs: loop.assessorTimeoutMs ?? o.plannerTimeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.modelCalls !== undefined ? { calls: o.modelCalls } : {}),
  });
}
