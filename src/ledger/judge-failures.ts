/**
 * Which ledger rows decide a run, and the `failure` they decide (SPEC §6: "any node FAIL, any sink
 * verification failed … → failure").
 *
 * A node is judged by its executions: a later execution of the same node replaces a PASS or SKIPPED row,
 * and a FAIL row only when the engine marked it `superseded` — an unexplained FAIL always counts. A verify
 * evidence that did not pass counts as a failed verification even on a row that claims PASS.
 */

import type { FailRow, LedgerRow } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { verifyExitWords } from "./cells.js";
import type { Conclusion } from "./conclusion-types.js";
import { quoteList } from "./conclusion-words.js";

/**
 * The `failure` of any counted FAIL row or any counted verify evidence that did not pass, or `null` when
 * there is none. A failed sink verification is named first (rule `sink-verify-failed`, with the command
 * and how it exited); otherwise every failed node is listed with its causes (rule `node-failed`).
 */
export function judgeFailures(rows: readonly LedgerRow[]): Conclusion | null {
  const failedVerifies = rows.filter(
    (row, i) => row.verify !== undefined && row.verify.outcome !== "passed" && counts(rows, i),
  );
  const failedSinkVerifies = failedVerifies.filter((row) => row.sink);
  if (failedSinkVerifies.length > 0) {
    const first = failedSinkVerifies[0]!;
    const verify = first.verify!;
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "sink-verify-failed",
      title: `Failed: sink ${first.nodeId} failed its verify command`,
      reason: `The engine ran "${shownCommand(verify.command)}" for sink "${first.nodeId}" and it ${verify.repeat !== undefined && verify.repeat.passed > 0 ? "was " : ""}${verifyExitWords(verify)}. A sink that fails its verification fails the run.`,
    };
  }
  const failedRows = rows.filter((row, i): row is FailRow => row.verdict === "FAIL" && counts(rows, i));
  const failedIds = [...new Set([...failedRows, ...failedVerifies].map((row) => row.nodeId))];
  if (failedIds.length === 0) return null;
  const causes = [...new Set(failedRows.map((row) => row.cause))];
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: "node-failed",
    title:
      failedIds.length === 1
        ? `Failed: node ${failedIds[0]} failed`
        : `Failed: ${failedIds.length} nodes failed`,
    reason: `${quoteList(failedIds)} failed${causes.length > 0 ? ` (${causes.join(", ")})` : ""}. Any node FAIL fails the run.`,
  };
}

/** Each node's last row, by node id (in first-execution order). */
export function lastRowByNode(rows: readonly LedgerRow[]): Map<string, LedgerRow> {
  const last = new Map<string, LedgerRow>();
  for (const row of rows) last.set(row.nodeId, row);
  return last;
}

/**
 * Whether row `i` decides the run. A later execution of the same node replaces a PASS or SKIPPED row, and
 * a FAIL row only when the engine marked it `superseded`: an unexplained FAIL always counts.
 */
function counts(rows: readonly LedgerRow[], i: number): boolean {
  const row = rows[i]!;
  const replaceable = row.verdict !== "FAIL" || row.superseded === true;
  return !(replaceable && hasLaterRow(rows, i));
}

function hasLaterRow(rows: readonly LedgerRow[], i: number): boolean {
  const nodeId = rows[i]!.nodeId;
  return rows.slice(i + 1).some((later) => later.nodeId === nodeId);
}
