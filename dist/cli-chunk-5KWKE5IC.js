#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  NO_BUILD_EVIDENCE_WORDS,
  NO_PLAN_LINE,
  PLANNING_WITH_ASSESSOR,
  answerWords,
  changedFilesText,
  goalLoopText,
  goalWords,
  hasNoBuildEvidence,
  policySettingsWords,
  sinkEvidence,
  untrustedTextWords
} from "./cli-chunk-QIRV2OXE.js";
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
  shownCommand,
  tokenWords,
  verdictLabel,
  verifyExitWords
} from "./cli-chunk-65TFX77S.js";
import {
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/ledger/render-text.ts
var HEADERS = ["NODE", "VERDICT", "SESSION", "COST", "DURATION", "DENIED", "DETAIL"];
var RIGHT_ALIGNED = /* @__PURE__ */ new Set([3, 4, 5]);
var GAP = "  ";
function renderLedgerText(ledger) {
  const lines = [header(ledger)];
  if (ledger.goal !== void 0) lines.push(`Goal: ${goalWords(ledger.goal)}`);
  const { policy } = ledger.plan;
  if (policy !== void 0)
    lines.push(`Policy: ${oneLine(policy.source)} \u2014 ${oneLine(policySettingsWords(policy))}`);
  lines.push(...buildEvidence(ledger));
  for (const line of ledger.plan.fragments ?? []) lines.push(oneLine(line));
  for (const warning of ledger.plan.warnings ?? []) lines.push(`Warning: ${oneLine(warning)}`);
  const removed = untrustedTextWords(ledger.plan.untrustedText);
  if (removed !== null) lines.push(`Untrusted text: ${removed}`);
  if (ledger.goalLoop !== void 0) lines.push("", ...goalLoopText(ledger.goalLoop, ledger.runId));
  lines.push("");
  lines.push(...table(ledger.rows));
  lines.push("");
  const changed = changedFilesText(ledger.changedFiles);
  if (changed.length > 0) lines.push(...changed, "");
  lines.push(...totals(ledger));
  lines.push(...conclusion(ledger));
  return `${lines.join("\n")}
`;
}
function header(ledger) {
  const runtime = runtimeWords(ledger);
  const n = ledger.rows.filter((row) => row.verdict !== "SKIPPED").length;
  return `Run ${ledger.runId} \u2014 ${ledger.mode}${runtime === null ? "" : `, ${runtime}`} \u2014 ${n} ${n === 1 ? "execution" : "executions"}`;
}
function buildEvidence(ledger) {
  const answer = answerWords(ledger.plan.buildEvidence);
  if (ledger.plan.nodes.length > 0 && hasNoBuildEvidence(ledger.plan))
    return [`Build evidence: NONE (${answer.kind}) \u2014 ${answer.words}; ${NO_BUILD_EVIDENCE_WORDS}`];
  const lines = [`Build evidence: ${answer.kind} \u2014 ${answer.words}`];
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
        lines.push(`  sink ${sink.nodeId}: no verify command \u2014 its PASS is the model's, about its own work`);
        break;
      default:
        unreachable(sink);
    }
  }
  return lines;
}
function table(rows) {
  const cells = rows.map((row) => [
    oneLine(nodeLabel(row)),
    verdictLabel(row),
    shortSession(row.sessionId),
    formatUsd(row.costUsd),
    formatDuration(row.durationMs),
    String(row.deniedToolCalls),
    oneLine(rowDetail(row))
  ]);
  const widths = HEADERS.map((title, col) => Math.max(width(title), ...cells.map((row) => width(row[col]))));
  const format = (row) => row.map((cell, col) => {
    if (col === row.length - 1) return cell;
    const fill = " ".repeat(widths[col] - width(cell));
    return RIGHT_ALIGNED.has(col) ? fill + cell : cell + fill;
  }).join(GAP).trimEnd();
  const out = [format(HEADERS), format(widths.map((w) => "-".repeat(w)))];
  rows.forEach((row, i) => {
    out.push(format(cells[i]));
    if (row.verdict === "FAIL" && row.verify !== void 0 && row.verify.outcome !== "passed") {
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
function totals(ledger) {
  const { totals: t } = ledger;
  return [
    // Only `auto` plans: a hand-written run has no planning line to read as "planning cost nothing".
    // A goal loop counts its assessor calls as planning (ledger.ts `loopTotals`): the line says so.
    ...ledger.mode === "auto" ? [
      `PLANNING COST: ${formatUsdTotal(t.planning)}${ledger.goalLoop === void 0 ? "" : PLANNING_WITH_ASSESSOR}`
    ] : [],
    `NODE COST:     ${formatUsdTotal(t.nodes)}`,
    `TOTAL COST:    ${formatUsdTotal(t.total)}${ledger.goalLoop === void 0 ? "" : ` ${loopTotalsWords(ledger.goalLoop)}`}`,
    `TOKENS:        ${tokenWords(t.tokens)}`
  ];
}
function conclusion(ledger) {
  if (ledger.conclusion === null) return [`CONCLUSION:    ${conclusionLabel(null)}`];
  return [
    `CONCLUSION:    ${ledger.conclusion.conclusion} (outcome ${ledger.conclusion.outcome}) \u2014 ${oneLine(ledger.conclusion.title)}`,
    `               ${oneLine(ledger.conclusion.reason)}`
  ];
}
function oneLine(text) {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}
function width(text) {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

export {
  renderLedgerText
};
