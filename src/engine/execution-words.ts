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
