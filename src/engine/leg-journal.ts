/**
 * What a leg reports while it runs, in the order it happens: one `events.jsonl` line per transition and
 * the matching progress hook, event first (SPEC §4 "State"; research/oh-my-graph.md §7.4). A recorded
 * execution is also a `state.json` save, requested before its event and on disk within the store's
 * coalescing window (`run-state-store.ts`), so a crash leaves a state file naming every node that finished
 * before that window.
 */
import type { FailCause, LedgerRow } from "../core/ledger-row.js";
import type { Redactor } from "../core/redact.js";
import type { Graph } from "../graph/graph.js";
import type { GraphRunHooks, RetryInfo } from "./leg-hooks.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { RunStateStore } from "./run-state-store.js";

/** Where a leg's reports go. */
export interface LegJournalOptions {
  readonly graph: Graph;
  readonly store: RunStateStore;
  readonly dir: RedactingRunDirectory;
  readonly redactor: Redactor;
  readonly hooks?: GraphRunHooks;
  /**
   * Called after each row is added to the state (whose save is then scheduled, `saveSoon`, not yet done),
   * before the hooks: the leg writes what a crash would lose (the ignored-files baseline).
   */
  readonly afterRecord?: () => void;
}

/** The events and hooks of one leg. Every method throws only when a write fails (an internal error). */
export class LegJournal {
  constructor(private readonly o: LegJournalOptions) {}

  /**
   * Records one execution's row (already redacted): appended to `state.json`'s rows and saved (within the
   * store's coalescing window), then its
   * `node_passed` / `node_failed` event (none for a superseded FAIL), then `onNodeFinished` and `onRows`.
   */
  async record(row: LedgerRow): Promise<void> {
    const { store, dir, hooks } = this.o;
    store.addRow(row);
    store.saveSoon();
    this.o.afterRecord?.();
    if (row.verdict === "PASS")
      dir.event({ type: "node_passed", node: row.nodeId, qualifier: row.qualifier });
    else if (row.verdict === "FAIL" && row.superseded !== true)
      dir.event({ type: "node_failed", node: row.nodeId, cause: row.cause, detail: row.detail });
    await hooks?.onNodeFinished?.(row);
    await hooks?.onRows?.(orderRows(this.o.graph, store.state.rows, []));
  }

  /**
   * An execution started: its session (`null`: a fresh codex thread), 1-based attempt and round (0 =
   * none), and for a node with a completion gate its completion attempt.
   */
  started(
    nodeId: string,
    sessionId: string | null,
    attempt: number,
    round: number,
    completionAttempt?: number,
  ): void {
    const completion = completionAttempt !== undefined ? { completionAttempt } : {};
    this.o.dir.event({ type: "node_started", node: nodeId, sessionId, attempt, round, ...completion });
    this.o.hooks?.onNodeStarted?.(nodeId, { sessionId, attempt, round, ...completion });
  }

  /** Codex: a fresh thread's id, once codex printed it. */
  session(nodeId: string, sessionId: string): void {
    this.o.dir.event({ type: "node_session", node: nodeId, sessionId });
    this.o.hooks?.onNodeSession?.(nodeId, sessionId);
  }

  /** The node's verify command starts (the hook gets it redacted; the run directory redacts its own). */
  verifying(nodeId: string, command: string): void {
    this.o.dir.event({ type: "node_verifying", node: nodeId, command });
    this.o.hooks?.onNodeVerifying?.(nodeId, this.o.redactor.text(command));
  }

  /** The model's session limit paused the node; `resetsAt` as the CLI wrote it (`null`: none given). */
  sessionLimit(nodeId: string, resetsAt: string | null): void {
    this.o.dir.event({ type: "session_limit", node: nodeId, resetsAt });
    this.o.hooks?.onSessionLimit?.(nodeId, resetsAt);
  }

  /** A failed execution runs again (a retry, or a feedback round); `detail` is the event's sentence. */
  retried(nodeId: string, info: RetryInfo, detail: string): void {
    const { dir, hooks } = this.o;
    if (info.kind === "retry")
      dir.event({ type: "node_retried", node: nodeId, cause: info.cause, attempt: info.attempt, detail });
    else if (info.kind === "completion")
      dir.event({
        type: "node_retried",
        node: nodeId,
        cause: "incomplete",
        completionAttempt: info.attempt,
        reason: info.reason,
        detail,
      });
    else
      dir.event({
        type: "node_retried",
        node: nodeId,
        cause: info.cause,
        round: info.round,
        rerun: info.rerun,
        detail,
      });
    hooks?.onNodeRetried?.(nodeId, info);
  }

  /** A FAIL that stands after all (a retry that never started), its row already rewritten in `state.json`. */
  failed(nodeId: string, cause: FailCause, detail: string): void {
    this.o.dir.event({ type: "node_failed", node: nodeId, cause, detail });
  }

  skipped(nodeId: string, reason: string): void {
    this.o.dir.event({ type: "node_skipped", node: nodeId, reason });
  }

  gatePaused(nodeId: string): void {
    this.o.dir.event({ type: "gate_paused", node: nodeId });
    this.o.hooks?.onGatePaused?.(nodeId);
  }
}

/**
 * The ledger's row order: by the node's position in the graph, each node's executions in the order they
 * ran (retries and feedback rounds together), a SKIPPED row after them.
 */
export function orderRows(
  graph: Graph,
  executions: readonly LedgerRow[],
  skipped: readonly LedgerRow[],
): LedgerRow[] {
  const position = new Map(graph.nodes.map((n, i) => [n.id, i]));
  const all = [...executions, ...skipped];
  return all
    .map((row, i) => ({ row, i }))
    .sort((a, b) => (position.get(a.row.nodeId) ?? 0) - (position.get(b.row.nodeId) ?? 0) || a.i - b.i)
    .map((x) => x.row);
}
