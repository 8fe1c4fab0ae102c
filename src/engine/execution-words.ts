/**
 * The words an execution's row says about which execution it was (SPEC §4, §7): its attempt when the node
 * may retry, a retried session handoff that started fresh, its feedback round; a cancelled row says by
 * whose failure or why. A gated node's completion attempt is said by `completion-judge.ts`.
 */
import type { LedgerRow } from "../core/ledger-row.js";
import { attemptsInAll, type Graph, type GraphNode } from "../graph/graph.js";
import type { ExecutionInput } from "./node-decision.js";

/**
 * The row with what this execution was: its attempt (when the node may retry), a retried session
 * handoff that started fresh, its feedback round; and a cancelled row says by whose failure or why.
 */
export function withExecutionWords(
  ctx: {
    readonly graph: Graph;
    readonly haltedBy: () => string | null;
    /** Why the run stopped, for a cancelled row (`core/run-timeout.ts`: cancelled, or its time bound). */
    readonly stopWords: () => string;
  },
  node: GraphNode,
  input: ExecutionInput,
  row: LedgerRow,
): LedgerRow {
  const maxAttempts = attemptsInAll(node);
  const arcOfBody = ctx.graph.nodes.find((n) => n.feedback?.body.includes(node.id))?.feedback ?? null;
  // A gated node's rows say its completion attempt (completion-judge.ts); a retry is then "retry a/M".
  const retryWord = node.completion !== null ? "retry attempt" : "attempt";
  const words = [
    maxAttempts > 1 ? `${retryWord} ${input.attempt}/${maxAttempts}` : null,
    notRetriedWords(node, input, row),
    input.attempt > 1 && node.handoff === "session"
      ? "retry started fresh — parent session not resumed"
      : null,
    input.round > 0 && arcOfBody !== null ? `feedback round ${input.round}/${arcOfBody.max}` : null,
  ].filter((w): w is string => w !== null);
  let worded = words.length > 0 ? { ...row, detail: `${row.detail}; ${words.join("; ")}` } : row;
  if (worded.verdict === "FAIL" && worded.cause === "cancelled") {
    const haltedBy = ctx.haltedBy();
    worded = {
      ...worded,
      detail:
        haltedBy !== null
          ? `cancelled: "${haltedBy}" failed and on_fail is halt`
          : `cancelled: ${ctx.stopWords()}`,
    };
  }
  return worded;
}

/**
 * Why a failed attempt with attempts left is the node's last (SPEC §4 "Failure"; docs/graph-format.md
 * "Retries": a failure is retried only when `retry.on` lists its cause, as in the Go CLI): without it,
 * "attempt 1/2" would promise a second attempt that never comes. `null` when the row is not such a FAIL, the
 * node has no retry, or its completion gate words its attempts (`completion-judge.ts`).
 */
function notRetriedWords(node: GraphNode, input: ExecutionInput, row: LedgerRow): string | null {
  if (row.verdict !== "FAIL" || row.cause === "cancelled" || node.completion !== null) return null;
  if (input.attempt >= attemptsInAll(node) || node.retry.on.includes(row.cause as never)) return null;
  const why = row.cause === "run_error" ? " (a failed model API call is run_error)" : "";
  return `not retried: retry.on lists ${node.retry.on.join(", ")}, not ${row.cause}${why}`;
}
