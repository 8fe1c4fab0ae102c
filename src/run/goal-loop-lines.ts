/**
 * The goal loop's cycles as the terminal prints them (SPEC §7; issue 13 item 7): one line per cycle — its
 * run id, its conclusion and the assessor's verdict — then why the loop stopped. The last cycle's ledger
 * follows, and its conclusion is the run's.
 */
import type { GoalCycle } from "../engine/goal-loop.js";

/** The lines, plain text. The assessor's words are the model's: one line each, cut to 200 characters. */
export function goalLoopLines(cycles: readonly GoalCycle[], stoppedBecause: string): string[] {
  const oneLine = (text: string): string => {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
  };
  const lines = [`goal loop: ${cycles.length} cycle${cycles.length === 1 ? "" : "s"}`];
  for (const c of cycles) {
    const a = c.assessment;
    const verdict =
      a === null
        ? "not assessed"
        : a.kind === "failed"
          ? `no assessment: ${oneLine(a.reason)}`
          : a.assessment.goal_met
            ? `assessor: goal met (${oneLine(a.assessment.evidence)})`
            : `assessor: not met; remaining: ${oneLine(a.assessment.remaining)}`;
    lines.push(`  cycle ${c.cycle}: run ${c.runId}, ${c.conclusion ?? "no conclusion"}; ${verdict}`);
  }
  lines.push(`  stopped: ${stoppedBecause}; the conclusion is the last run's`);
  return lines;
}
