import type { LedgerRow } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { unreachable } from "../core/unreachable.js";
import {
  conclusionLabel,
  formatDuration,
  formatUsd,
  formatUsdTotal,
  loopTotalsWords,
  nodeLabel,
  rowDetail,
  runtimeWords,
  shortSession,
  tokenWords,
  verdictLabel,
  verifyExitWords,
} from "./cells.js";
import { type Ledger, PLANNING_WITH_ASSESSOR, policySettingsWords } from "./ledger.js";
import {
  answerWords,
  goalWords,
  hasNoBuildEvidence,
  NO_BUILD_EVIDENCE_WORDS,
  NO_PLAN_LINE,
  sinkEvidence,
  untrustedTextWords,
} from "./plan-words.js";
import { changedFilesText } from "./render-changed-files.js";
import { goalLoopText } from "./render-goal-loop.js";

const HEADERS = ["NODE", "VERDICT", "SESSION", "COST", "DURATION", "DENIED", "DETAIL"] as const;
/** Columns printed right-aligned (numbers). */
const RIGHT_ALIGNED = new Set<number>([3, 4, 5]);
const GAP = "  ";

/**
 * The ledger as a fixed-width text table for the CLI and the job log: a header line, the build-evidence
 * line(s), the goal loop's cycles when the run was the last of one (a block per cycle: its conclusion, the
 * remaining items fed into it, its rows, the assessor's verdict, its cost), one row per execution (a failed
 * verification's command, exit and output tail indented below its row), the files the nodes changed (when
 * they changed any), then totals and the conclusion.
 *
 * Pure. The output contains child-process output verbatim: a caller printing it to an Actions log must
 * fence it from the runner's workflow-command parser (SPEC §9, `::stop-commands::`).
 */
export function renderLedgerText(ledger: Ledger): string {
  const lines: string[] = [header(ledger)];
  if (ledger.goal !== undefined) lines.push(`Goal: ${goalWords(ledger.goal)}`);
  const { policy } = ledger.plan;
  if (policy !== undefined)
    lines.push(`Policy: ${oneLine(policy.source)} — ${oneLine(policySettingsWords(policy))}`);
  lines.push(...buildEvidence(ledger));
  for (const line of ledger.plan.fragments ?? []) lines.push(oneLine(line));
  for (const warning of ledger.plan.warnings ?? []) lines.push(`Warning: ${oneLine(warning)}`);
  const removed = untrustedTextWords(ledger.plan.untrustedText);
  if (removed !== null) lines.push(`Untrusted text: ${removed}`);
  if (ledger.goalLoop !== undefined) lines.push("", ...goalLoopText(ledger.goalLoop, ledger.runId));
  lines.push("");
  lines.push(...table(ledger.rows));
  lines.push("");
  const changed = changedFilesText(ledger.changedFiles);
  if (changed.length > 0) lines.push(...changed, "");
  lines.push(...totals(ledger));
  lines.push(...conclusion(ledger));
  return `${lines.join("\n")}\n`;
}

function header(ledger: Ledger): string {
  const runtime = runtimeWords(ledger);
  // A SKIPPED row is a node that never ran: not an execution.
  const n = ledger.rows.filter((row) => row.verdict !== "SKIPPED").length;
  return `Run ${ledger.runId} — ${ledger.mode}${runtime === null ? "" : `, ${runtime}`} — ${n} ${n === 1 ? "execution" : "executions"}`;
}

function buildEvidence(ledger: Ledger): string[] {
  const answer = answerWords(ledger.plan.buildEvidence);
  // No engine-run command: one line says so, with why (the kind) and what the verdicts stand on.
  if (ledger.plan.nodes.length > 0 && hasNoBuildEvidence(ledger.plan))
    return [`Build evidence: NONE (${answer.kind}) — ${answer.words}; ${NO_BUILD_EVIDENCE_WORDS}`];
  const lines = [`Build evidence: ${answer.kind} — ${answer.words}`];
  if (ledger.plan.nodes.length === 0) return [...lines, NO_PLAN_LINE];
  for (const sink of sinkEvidence(ledger.plan)) {
    switch (sink.kind) {
      case "command":
        lines.push(`  sink ${sink.nodeId}: ${shownCommand(sink.command)}`);
        break;
      case "gate":
        lines.push(`  sink ${sink.nodeId}: a gate (a person's approval, not build evidence)`);
        break;
      case "none":
        lines.push(`  sink ${sink.nodeId}: no verify command — its PASS is the model's, about its own work`);
        break;
      default:
        unreachable(sink);
    }
  }
  return lines;
}

function table(rows: readonly LedgerRow[]): string[] {
  const cells = rows.map((row) => [
    oneLine(nodeLabel(row)),
    verdictLabel(row),
    shortSession(row.sessionId),
    formatUsd(row.costUsd),
    formatDuration(row.durationMs),
    String(row.deniedToolCalls),
    oneLine(rowDetail(row)),
  ]);
  const widths = HEADERS.map((title, col) => Math.max(width(title), ...cells.map((row) => width(row[col]!))));
  const format = (row: readonly string[]): string =>
    row
      .map((cell, col) => {
        // The last column is ragged: no trailing padding.
        if (col === row.length - 1) return cell;
        const fill = " ".repeat(widths[col]! - width(cell));
        return RIGHT_ALIGNED.has(col) ? fill + cell : cell + fill;
      })
      .join(GAP)
      .trimEnd();
  const out = [format(HEADERS), format(widths.map((w) => "-".repeat(w)))];
  rows.forEach((row, i) => {
    out.push(format(cells[i]!));
    if (row.verdict === "FAIL" && row.verify !== undefined && row.verify.outcome !== "passed") {
      const { verify } = row;
      out.push(`    verify: ${shownCommand(verify.command)}`);
      out.push(`    result: ${verifyExitWords(verify)} in ${formatDuration(verify.durationMs)}`);
      const tail = verify.outputTail.replace(/\r\n|\r/g, "\n").replace(/\n$/, "");
      if (tail === "") {
        out.push("    output: (none)");
      } else {
        out.push("    output (tail):");
        for (const line of tail.split("\n")) out.push(`      ${line}`.trimEnd());
      }
    }
  });
  if (rows.length === 0) out.push("(no node ran)");
  return out;
}

/** The totals lines; a goal loop's ledger says its totals are the whole loop's (`loopTotals`). */
function totals(ledger: Ledger): string[] {
  const { totals: t } = ledger;
  return [
    // Only `auto` plans: a hand-written run has no planning line to read as "planning cost nothing".
    // A goal loop counts its assessor calls as planning (ledger.ts `loopTotals`): the line says so.
    ...(ledger.mode === "auto"
      ? [
          `PLANNING COST: ${formatUsdTotal(t.planning)}${ledger.goalLoop === undefined ? "" : PLANNING_WITH_ASSESSOR}`,
        ]
      : []),
    `NODE COST:     ${formatUsdTotal(t.nodes)}`,
    `TOTAL COST:    ${formatUsdTotal(t.total)}${ledger.goalLoop === undefined ? "" : ` ${loopTotalsWords(ledger.goalLoop)}`}`,
    `TOKENS:        ${tokenWords(t.tokens)}`,
  ];
}

function conclusion(ledger: Ledger): string[] {
  if (ledger.conclusion === null) return [`CONCLUSION:    ${conclusionLabel(null)}`];
  return [
    `CONCLUSION:    ${ledger.conclusion.conclusion} (outcome ${ledger.conclusion.outcome}) — ${oneLine(ledger.conclusion.title)}`,
    `               ${oneLine(ledger.conclusion.reason)}`,
  ];
}

function oneLine(text: string): string {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}

/** Display width in code points (a CJK character counts as one; good enough for an ASCII-heavy log). */
function width(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}
