/**
 * The goal loop's cycles (`Ledger.goalLoop`, SPEC §7; issue 13 item 7) as the Markdown and text ledgers
 * print them, before the last run's own ledger: why the loop stopped and what the whole goal cost, then one
 * section per cycle — cycle k/N, its conclusion and run, the remaining items fed into it, its rows
 * (compact), the assessor's verdict and the run's cost. The assessor's words are model text: flattened to
 * one line, cut to a bound, and (in Markdown) escaped. Pure.
 */

import {
  assessmentWords,
  formatDuration,
  formatUsd,
  formatUsdTotal,
  goalLoopTotal,
  oneLineCut,
} from "./cells.js";
import type { CheckConclusion } from "./conclusion.js";
import type { GoalCycleRow, GoalLoopSection } from "./ledger.js";
import { codeSpan, escapeCell, escapeInline } from "./markdown-syntax.js";

/** The icon of each check conclusion, as the Markdown ledger's headings show it. */
export const CONCLUSION_ICONS: Readonly<Record<CheckConclusion, string>> = {
  success: "✅",
  neutral: "⚪",
  action_required: "⚠️",
  failure: "❌",
  cancelled: "⏹️",
  timed_out: "⏱️",
};

/** How much of the cycles a Markdown rendering keeps (the check run's compact rendering keeps less). */
export interface GoalLoopDetail {
  /** Rows listed per cycle (`null` = all). */
  readonly cycleRows: number | null;
  /** Longest assessor field (remaining, evidence, reason), in characters. */
  readonly cycleWordsChars: number;
  /** Longest row detail cell, in characters (`null` = whole). */
  readonly cellChars: number | null;
}

/**
 * The goal loop (SPEC §7): why it stopped, then one section per cycle — cycle k/N, its conclusion and run,
 * the remaining items fed into it, its rows (compact), the assessor's verdict and the costs. The assessor's
 * words are model text: flattened, bounded and escaped.
 */
export function goalLoopMarkdown(loop: GoalLoopSection, lastRunId: string, detail: GoalLoopDetail): string {
  const n = loop.cycles.length;
  const lines = [
    `### Goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} of at most ${loop.maxCycles}`,
    "",
    `Stopped: ${escapeInline(loop.stoppedBecause)}. The conclusion above is the last run's; the assessor's verdict never turns a failed run into a pass. Whole goal: **${escapeInline(formatUsdTotal(goalLoopTotal(loop)))}**.`,
  ];
  for (const cycle of loop.cycles) {
    const icon = cycle.conclusion === null ? "⏳" : CONCLUSION_ICONS[cycle.conclusion.conclusion];
    const words =
      cycle.conclusion === null
        ? "no conclusion"
        : `${cycle.conclusion.conclusion} — ${escapeInline(cycle.conclusion.title)}`;
    const last = cycle.runId === lastRunId ? " (this run, in full below)" : "";
    lines.push(
      "",
      `#### Cycle ${cycle.cycle}/${loop.maxCycles}: ${icon} ${words}`,
      "",
      `Run ${codeSpan(cycle.runId, { inTable: false })}${last}`,
    );
    if (cycle.remainingIn !== undefined) {
      lines.push(
        "",
        `**Remaining, fed into this cycle:** ${escapeInline(oneLineCut(cycle.remainingIn, detail.cycleWordsChars))}`,
      );
    }
    lines.push("", ...cycleTable(cycle.rows, detail));
    lines.push(
      "",
      `**Assessor:** ${escapeInline(assessmentWords(cycle.assessment, detail.cycleWordsChars))}`,
      "",
      `**Run cost:** ${escapeInline(formatUsdTotal(cycle.total))}`,
    );
  }
  return lines.join("\n");
}

function cycleTable(rows: readonly GoalCycleRow[], detail: GoalLoopDetail): string[] {
  if (rows.length === 0) return ["No node ran."];
  const shown = detail.cycleRows === null ? rows : rows.slice(0, detail.cycleRows);
  const lines = ["| node | verdict | cost | duration | detail |", "| --- | --- | ---: | ---: | --- |"];
  for (const row of shown) {
    const cells = [
      codeSpan(row.node, { inTable: true }),
      row.verdict.startsWith("FAIL") ? `**${escapeCell(row.verdict)}**` : escapeCell(row.verdict),
      formatUsd(row.costUsd),
      formatDuration(row.durationMs),
      escapeCell(oneLineCut(row.detail, detail.cellChars)),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  if (shown.length < rows.length) lines.push("", `… ${rows.length - shown.length} more rows not shown.`);
  return lines;
}

/** Longest assessor field (remaining, evidence, reason) a cycle block prints, in characters. */
const CYCLE_WORDS_MAX_CHARS = 300;

/** The goal loop (SPEC §7): a line saying why it stopped and what it cost, then one block per cycle. */
export function goalLoopText(loop: GoalLoopSection, lastRunId: string): string[] {
  const n = loop.cycles.length;
  const out = [
    `Goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} of at most ${loop.maxCycles} — stopped: ${flat(loop.stoppedBecause)}; whole goal ${formatUsdTotal(goalLoopTotal(loop))}; the conclusion is the last run's`,
  ];
  for (const cycle of loop.cycles) {
    const c = cycle.conclusion;
    const words = c === null ? "no conclusion" : `${c.conclusion} — ${flat(c.title)}`;
    const last = cycle.runId === lastRunId ? " (this run, below)" : "";
    out.push(`  Cycle ${cycle.cycle}/${loop.maxCycles}: ${words} — run ${cycle.runId}${last}`);
    if (cycle.remainingIn !== undefined) {
      out.push(`    remaining fed in: ${oneLineCut(cycle.remainingIn, CYCLE_WORDS_MAX_CHARS)}`);
    }
    for (const row of cycle.rows) {
      out.push(
        `    ${flat(row.node)}  ${row.verdict}  ${formatUsd(row.costUsd)}  ${formatDuration(row.durationMs)}${row.detail === "" ? "" : `  ${flat(row.detail)}`}`,
      );
    }
    if (cycle.rows.length === 0) out.push("    (no node ran)");
    out.push(`    assessor: ${assessmentWords(cycle.assessment, CYCLE_WORDS_MAX_CHARS)}`);
    out.push(`    run cost: ${formatUsdTotal(cycle.total)}`);
  }
  return out;
}

function flat(text: string): string {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}
