/**
 * One line per node event (issue: "a line per node event — started, passed with qualifier and cost,
 * failed with cause, retried, verifying"; research/oh-my-graph.md §7.1), worded once for both entry
 * points: the CLI prints them (src/cli/progress-lines.ts), the action logs them (src/action/
 * progress-hooks.ts). Pure text; the caller decides where lines go.
 */

import type { LedgerRow } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { unreachable } from "../core/unreachable.js";
import type { RetryInfo } from "../engine/leg-hooks.js";
import { verdictLabel } from "../ledger/cells.js";

/** Where a run stopped to wait: at a gate for a person, or at the model's session limit. */
export type Pause =
  | { readonly kind: "gate"; readonly gate: string }
  | { readonly kind: "session-limit"; readonly nodeId: string; readonly resetsAt: string | null };

/**
 * The lines of one run's node events. It remembers each node's attempts in all (from its first retry),
 * so a later start says `attempt 2/3`.
 */
export class NodeLines {
  readonly #maxAttempts = new Map<string, number>();
  readonly #completionMax = new Map<string, number>();

  /** `▶ build started`, `▶ build started (attempt 2/3, feedback round 1)`, `(completion attempt 2/3)`. */
  started(
    nodeId: string,
    info?: { readonly attempt: number; readonly round: number; readonly completionAttempt?: number },
  ): string {
    const words: string[] = [];
    const completion = info?.completionAttempt;
    if (completion !== undefined && completion > 1) {
      const max = this.#completionMax.get(nodeId);
      words.push(`completion attempt ${completion}${max !== undefined ? `/${max}` : ""}`);
    }
    if (info !== undefined && info.attempt > 1) {
      const max = this.#maxAttempts.get(nodeId);
      words.push(`attempt ${info.attempt}${max !== undefined ? `/${max}` : ""}`);
    }
    if (info !== undefined && info.round > 0) words.push(`feedback round ${info.round}`);
    return `▶ ${nodeId} started${words.length > 0 ? ` (${words.join(", ")})` : ""}`;
  }

  /** `… build  verifying: npm test`. */
  verifying(nodeId: string, command: string): string {
    return `… ${nodeId}  verifying: ${shownCommand(command)}`;
  }

  /** {@link retryLine}, remembering the node's attempts in all. */
  retried(nodeId: string, info: RetryInfo): string {
    if (info.kind === "retry") this.#maxAttempts.set(nodeId, info.maxAttempts);
    if (info.kind === "completion") this.#completionMax.set(nodeId, info.maxAttempts);
    return retryLine(nodeId, info);
  }
}

/**
 * `✓ build  PASS (verified)  $0.0123  4.2s  DETAIL`; an unknown cost is `cost unknown`, never `$0`.
 * A verify result reused from another node (same tree, same command: the command did not run again) says
 * so after the duration. Without `detail` the line ends there (the action's log: the detail is free text,
 * shown fenced in the ledger instead).
 */
export function nodeLine(row: LedgerRow, o: { readonly detail?: boolean } = {}): string {
  const cost = row.costUsd === null ? "cost unknown" : `$${row.costUsd.toFixed(4)}`;
  const secs = `${(row.durationMs / 1000).toFixed(1)}s`;
  const from = row.verify?.reusedFrom;
  const reused = from !== undefined ? `  (verify result reused from "${from}": same tree, same command)` : "";
  const icon = row.verdict === "PASS" ? "✓" : row.verdict === "PAUSED" ? "⏸" : "✗";
  const line = `${icon} ${row.nodeId}  ${verdictWords(row)}  ${cost}  ${secs}${reused}`;
  if (o.detail === false) return line;
  // A PASS detail already names the reuse (agent-node.ts): said once, on the line.
  const detail =
    from !== undefined
      ? row.detail.replace(` (result reused from "${from}": same tree, same command)`, "")
      : row.detail;
  return `${line}  ${detail}`;
}

/** `PASS (verified)`, `FAIL verify_failed`, `SKIPPED`, `WAITING` or `PAUSED session limit, resets 5pm` (the ledger's words). */
export function verdictWords(row: LedgerRow): string {
  return verdictLabel(row);
}

/** `↻ test  retry: attempt 2/3 after result_mismatch (previous reply quoted)`, or a feedback round. */
export function retryLine(nodeId: string, info: RetryInfo): string {
  switch (info.kind) {
    case "retry":
      return `↻ ${nodeId}  retry: attempt ${info.attempt}/${info.maxAttempts} after ${info.cause}${info.judged ? " (previous reply quoted)" : ""}`;
    case "feedback":
      return `↻ ${nodeId}  feedback round ${info.round}/${info.max} after ${info.cause}: re-running ${info.rerun} → ${nodeId}`;
    case "completion":
      return `↻ ${nodeId}  completion check failed: ${info.reason} — attempt ${info.attempt}/${info.maxAttempts} continues the session`;
    default:
      return unreachable(info);
  }
}

/**
 * `⏸ review  gate paused — NEXT` or `⏸ build  session limit reached (resets 5pm) — NEXT`, where `next`
 * says what continues the run.
 */
export function pauseLine(pause: Pause, next: string): string {
  switch (pause.kind) {
    case "gate":
      return `⏸ ${pause.gate}  gate paused — ${next}`;
    case "session-limit":
      return `⏸ ${pause.nodeId}  session limit reached${pause.resetsAt !== null ? ` (resets ${pause.resetsAt})` : ""} — ${next}`;
    default:
      return unreachable(pause);
  }
}
