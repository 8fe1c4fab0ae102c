/**
 * The mutable `state.json` of a run while a leg runs (SPEC §4 "State"): the caller seeds it (a fresh run
 * or a resumed one), the engine changes it per node and saves it atomically (whole file, temp + rename)
 * within {@link STATE_COALESCE_MS} of every terminal node, and at every leg boundary at once; the caller
 * reads it afterwards (`run-state.ts` holds the file's shape).
 *
 * Why coalesced (issue 16, B1): each save stringifies, redacts and hashes the whole state, which grows by a
 * row per execution, on the engine's one thread — with 8 nodes settling together, one save per event was
 * a large part of the engine's time between nodes. Every write is a snapshot of the whole state, so the
 * file on disk is always a consistent prefix of the leg: a crash (`kill -9`) loses at most the last
 * window's changes, and a resume then runs those nodes again, as it runs a node that was still running.
 */
import type { LedgerRow } from "../core/ledger-row.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { GateRecord, NodeRecord, RunState } from "./run-state.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * How long (ms) a change saved with {@link RunStateStore.saveSoon} may wait before it is on disk: the most
 * a crash can lose. Saves within one window become one write.
 */
export const STATE_COALESCE_MS = 200;

/** A change to one node's record: its new `status` and any fields to set; the rest stay. */
export type NodeRecordPatch = Partial<NodeRecord> & Pick<NodeRecord, "status">;

/**
 * The mutable `state.json` of the run, saved by {@link RunStateStore.save}. The engine owns it for the
 * leg; the caller seeds it (fresh run or resume) and reads it afterwards. Every change is in memory until
 * the next `save()`.
 */
export class RunStateStore {
  state: Mutable<RunState>;
  /** The pending {@link saveSoon} write, `null` when the file is up to date. */
  #timer: NodeJS.Timeout | null = null;
  /** Why the last background write failed, until a later write succeeds (thrown by {@link flush}). */
  #failed: unknown = null;

  constructor(
    private readonly dir: RedactingRunDirectory,
    initial: RunState,
  ) {
    this.state = structuredClone(initial) as Mutable<RunState>;
  }

  /**
   * Writes `state.json` atomically (redacted) now, which also covers a pending {@link saveSoon}. Throws
   * when the write fails (an internal error).
   */
  save(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.dir.writeJson("state.json", this.state);
    this.#failed = null;
  }

  /**
   * Saves the state within {@link STATE_COALESCE_MS} (one write for every change made meanwhile): what the
   * engine calls per node event. A write that fails in the background is thrown by the next
   * {@link flush} (unless a later write succeeded).
   */
  saveSoon(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      try {
        this.save();
      } catch (error) {
        this.#failed = error;
      }
    }, STATE_COALESCE_MS);
  }

  /** Writes a pending {@link saveSoon} now; throws a background write's failure. Nothing pending: no write. */
  flush(): void {
    if (this.#timer !== null) this.save();
    else if (this.#failed !== null) {
      const failed = this.#failed;
      this.#failed = null;
      throw failed;
    }
  }

  node(id: string): NodeRecord | undefined {
    return this.state.nodes[id];
  }

  setNode(id: string, record: NodeRecord): void {
    this.state.nodes = { ...this.state.nodes, [id]: record };
  }

  /**
   * Changes one node's record: `patch` over the previous record's session, its cumulative cost (claude),
   * executions, feedback rounds, thread usage and completion progress (a node without a record starts with
   * no session and 0 executions). `judged` is dropped unless the patch sets it; `completion: undefined`
   * clears the progress. The session's cost stays with its session id: a `handoff: session` child resuming
   * it records only its own share, which a status patch dropping the cost would make unknown (issue 26).
   */
  patchNode(id: string, patch: NodeRecordPatch): void {
    const prev = this.node(id);
    this.setNode(id, {
      session_id: prev?.session_id ?? null,
      executions: prev?.executions ?? 0,
      ...(prev?.feedback_rounds !== undefined ? { feedback_rounds: prev.feedback_rounds } : {}),
      ...(prev?.session_cost_usd !== undefined ? { session_cost_usd: prev.session_cost_usd } : {}),
      ...(prev?.thread_usage !== undefined ? { thread_usage: prev.thread_usage } : {}),
      ...(prev?.completion !== undefined ? { completion: prev.completion } : {}),
      ...patch,
    });
  }

  setGate(id: string, record: GateRecord): void {
    this.state.gates = { ...this.state.gates, [id]: record };
  }

  addRow(row: LedgerRow): void {
    this.state.rows = [...this.state.rows, row];
  }

  /** Replaces the latest row of `nodeId` with `change(row)`; nothing when the node has no row. */
  rewriteLatest(nodeId: string, change: (row: LedgerRow) => LedgerRow): void {
    const rows = [...this.state.rows];
    for (let i = rows.length - 1; i >= 0; i--) {
      if (rows[i]!.nodeId !== nodeId) continue;
      rows[i] = change(rows[i]!);
      break;
    }
    this.state.rows = rows;
  }

  /**
   * Marks the latest FAIL row of `nodeId` superseded (a later execution replaces it: a retry, a feedback
   * round, a resumed leg). A PASS or SKIPPED row needs no mark: a later row replaces it anyway.
   */
  supersedeLatest(nodeId: string): void {
    this.rewriteLatest(nodeId, (row) =>
      row.verdict === "FAIL" && row.superseded !== true ? { ...row, superseded: true } : row,
    );
  }
}
