/**
 * The scheduler of one leg (SPEC §4 "Execution"): the ready set, `concurrency`, `on_fail`, pauses, and
 * what a node's settlement decides (`node-settlement.ts`).
 *
 * - Ready-set scheduling, event-driven: a node starts as soon as every dependency passed, in graph order,
 *   up to `concurrency` at once; the leg wakes when a node settles, never by polling.
 * - `on_fail: halt`: the first FAIL aborts every running sibling's signal (its row says by whose failure)
 *   and launches nothing new; `continue` prunes only the failed node's descendants (a grandchild's
 *   reason names the node that failed).
 * - A gate with no decision pauses the leg (research/oh-my-graph.md §7.7): running siblings drain,
 *   nothing new launches. A session limit pauses it the same way; a gate pause outranks it (research §5.6).
 * - A `retry` decision runs the node's next attempt in the same slot; a `feedback` decision re-arms the
 *   arc's body for the next round (its nodes run again in dependency order).
 *
 * Every write (state, events, hooks) is the {@link SchedulerPort}'s: the scheduler owns only where each
 * node stands.
 */

import { GATE_WAITING_REASON } from "../core/ledger-row.js";
import { runTimedOut, stopWords } from "../core/run-timeout.js";
import { unreachable } from "../core/unreachable.js";
import type { Graph, GraphNode } from "../graph/graph.js";
import type {
  ExecutionInput,
  FailedSettlement,
  FeedbackSettlement,
  FinalSettlement,
  RetrySettlement,
  Settlement,
} from "./node-decision.js";
import type { PauseRecord } from "./run-state.js";

/** Where a node stands in this leg. */
export type ScheduleState =
  | "pending"
  | "running"
  | "passed"
  | "failed"
  | "cancelled"
  | "skipped"
  | "waiting"
  | "limited";

/** A node as the leg finds it: settled by an earlier leg (`passed`, `failed`, `cancelled`) or to run. */
export interface NodeStart {
  readonly state: "pending" | "passed" | "failed" | "cancelled";
  /** Feedback rounds its arc already fired (declarers; 0 = none). */
  readonly round: number;
}

/**
 * What the scheduler asks of the leg. Only `execute` and `internalError` are async; every other call is
 * made synchronously with the scheduler's own change, so no other node can observe one without the other.
 * Each may throw only on a failed write (an internal error: the leg stops and rethrows it).
 */
export interface SchedulerPort {
  /** One execution of an agent node; resolves to its decision. */
  execute(node: GraphNode, input: ExecutionInput, signal: AbortSignal): Promise<Settlement>;
  /** An execution rejected (an internal error): record the node's FAIL. */
  internalError(node: GraphNode, error: unknown): Promise<FailedSettlement>;
  /** A retry is about to start (announce it). */
  retrying(node: GraphNode, retry: RetrySettlement): void;
  /**
   * The run stopped after a retry was announced and before it started: the attempt's FAIL stands.
   * `haltedBy` names the node whose failure halted the run (`null`: the run was cancelled).
   */
  retryNotStarted(node: GraphNode, retry: RetrySettlement, haltedBy: string | null): FailedSettlement;
  /** The node's feedback arc fires: record it; the scheduler re-arms `feedback.arc.body`. */
  feedbackFired(node: GraphNode, feedback: FeedbackSettlement): void;
  /** The node's run in this leg ended with `settlement`. */
  settled(node: GraphNode, settlement: FinalSettlement): void;
  /** A pending node can no longer run (`reason` is its SKIPPED row's). */
  skipped(node: GraphNode, reason: string): void;
  /** An undecided gate became ready: the leg pauses there. */
  gateReached(node: GraphNode): void;
  /** At the leg's end, a node still pending (behind a pause) is recorded skipped. */
  neverRan(node: GraphNode): void;
}

/** What the scheduler needs. */
export interface SchedulerOptions {
  readonly graph: Graph;
  /** Nodes running at once, ≥ 1 (SPEC §3: default 4, cap 10). */
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  /** Aborts the leg: running nodes are cancelled, nothing new starts. */
  readonly signal?: AbortSignal;
  /** Each node's start; a node missing here is `pending` in round 0. */
  readonly start: ReadonlyMap<string, NodeStart>;
  /** Whether `nodeId` is a gate a person rejected (its descendants' reasons say "was rejected"). */
  readonly rejectedGate: (nodeId: string) => boolean;
  readonly port: SchedulerPort;
}

/** How the schedule ended. */
export interface ScheduleEnd {
  readonly states: ReadonlyMap<string, ScheduleState>;
  /** Why each node that did not run says so: skipped, pending behind a pause, waiting, limited. */
  readonly reasons: ReadonlyMap<string, string>;
  /** Why the leg paused; `null` when it did not, or when a failure halted it (the failure decides it). */
  readonly pause: PauseRecord | null;
}

/** Runs one leg's schedule; see the module comment. One {@link run} per instance. */
export class Scheduler {
  readonly #o: SchedulerOptions;
  readonly #states = new Map<string, ScheduleState>();
  readonly #rounds = new Map<string, number>();
  readonly #reasons = new Map<string, string>();
  /** The root failure a skipped node goes back to, so a grandchild's reason names the node that failed. */
  readonly #skippedBecauseOf = new Map<string, string>();
  readonly #running = new Map<string, AbortController>();
  /** Failed writes inside a node's settlement: the leg stops and the first is rethrown. */
  readonly #internalErrors: unknown[] = [];
  #haltedBy: string | null = null;
  #pause: PauseRecord | null = null;
  #wake: (() => void) | null = null;

  constructor(options: SchedulerOptions) {
    this.#o = options;
    for (const node of options.graph.nodes) {
      const start = options.start.get(node.id);
      this.#states.set(node.id, start?.state ?? "pending");
      if (start !== undefined && start.round > 0) this.#rounds.set(node.id, start.round);
    }
  }

  /** The node whose failure halted the run (`on_fail: halt`); `null` while none has. */
  get haltedBy(): string | null {
    return this.#haltedBy;
  }

  /**
   * Runs the schedule until nothing more can start and nothing runs.
   *
   * @returns every node's state, the reasons of those that did not run, and the pause.
   * @throws the first failed write of a node's settlement (after every running node settled).
   */
  async run(): Promise<ScheduleEnd> {
    const abortAll = (): void => this.#abortAll();
    this.#o.signal?.addEventListener("abort", abortAll, { once: true });
    while (true) {
      const stopping = this.#stopping();
      this.#prune(stopping);
      if (!stopping && this.#pause === null) this.#launchReady();
      if (this.#running.size === 0) {
        if (!this.#launchable(stopping)) break;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = null;
    }
    this.#o.signal?.removeEventListener("abort", abortAll);
    if (this.#internalErrors.length > 0) throw this.#internalErrors[0];
    this.#closeLeg();
    // A run halted by a failure is not waiting for anyone: the failure decides it, and `--retry-failed`
    // (not an approval) is what continues it — the gate pauses again then if it is reached.
    const pause = this.#haltedBy !== null ? null : this.#pause;
    return { states: this.#states, reasons: this.#reasons, pause };
  }

  #stopping(): boolean {
    return this.#haltedBy !== null || this.#o.signal?.aborted === true;
  }

  #abortAll(): void {
    for (const controller of this.#running.values()) controller.abort();
  }

  #isReady(node: GraphNode): boolean {
    return node.depends_on.every((d) => this.#states.get(d) === "passed");
  }

  #launchable(stopping: boolean): boolean {
    return this.#o.graph.nodes.some(
      (n) => this.#states.get(n.id) === "pending" && this.#isReady(n) && this.#pause === null && !stopping,
    );
  }

  /** Skips every pending node that can no longer run, until none is left to skip. */
  #prune(stopping: boolean): void {
    let pruned = true;
    while (pruned) {
      pruned = false;
      for (const node of this.#o.graph.nodes) {
        if (this.#states.get(node.id) !== "pending") continue;
        const reason = stopping
          ? this.#haltedBy !== null
            ? `run halted after "${this.#haltedBy}" failed`
            : runTimedOut(this.#o.signal) !== null
              ? `not started: ${stopWords(this.#o.signal)}`
              : "run cancelled"
          : this.#blockedReason(node);
        if (reason === null) continue;
        this.#states.set(node.id, "skipped");
        this.#reasons.set(node.id, reason);
        this.#o.port.skipped(node, reason);
        pruned = true;
      }
    }
  }

  /** Why `node` can never run (a dependency failed, was cancelled or rejected, or was skipped); `null` if it may. */
  #blockedReason(node: GraphNode): string | null {
    for (const dep of node.depends_on) {
      const s = this.#states.get(dep);
      if (s !== "failed" && s !== "cancelled" && s !== "skipped") continue;
      const root = s === "skipped" ? (this.#skippedBecauseOf.get(dep) ?? dep) : dep;
      this.#skippedBecauseOf.set(node.id, root);
      const what =
        this.#states.get(root) === "cancelled"
          ? "was cancelled"
          : this.#o.rejectedGate(root)
            ? "was rejected"
            : "failed";
      return root === dep
        ? `dependency "${dep}" ${what}`
        : `dependency "${dep}" was skipped because "${root}" ${what}`;
    }
    return null;
  }

  /** Starts ready nodes in graph order up to `concurrency`; an undecided gate pauses the leg instead. */
  #launchReady(): void {
    for (const node of this.#o.graph.nodes) {
      if (this.#running.size >= this.#o.concurrency || this.#pause !== null) break;
      if (this.#states.get(node.id) !== "pending" || !this.#isReady(node)) continue;
      if (node.type === "gate") {
        // A fresh leg cannot carry an approval: an undecided gate pauses the run (research §7.7).
        this.#states.set(node.id, "waiting");
        this.#pause = { reason: "gate", node: node.id };
        this.#o.port.gateReached(node);
        continue;
      }
      this.#launch(node);
    }
  }

  #launch(node: GraphNode): void {
    this.#states.set(node.id, "running");
    const controller = new AbortController();
    this.#running.set(node.id, controller);
    void Promise.resolve()
      .then(() =>
        this.#runToEnd(node, controller.signal).catch((error: unknown) =>
          // An internal error in one node's lifecycle fails that node, with the error as its detail.
          this.#o.port.internalError(node, error),
        ),
      )
      .then((settlement) => {
        this.#running.delete(node.id);
        this.#act(node, settlement, controller.signal.aborted);
        this.#notify();
      })
      .catch((error: unknown) => {
        // Acting writes state; a failed write must not hang the leg.
        this.#running.delete(node.id);
        this.#states.set(node.id, "failed");
        this.#internalErrors.push(error);
        this.#notify();
      });
  }

  /** Executes `node` until a decision other than `retry`; a retry keeps the node's slot. */
  async #runToEnd(node: GraphNode, signal: AbortSignal): Promise<Exclude<Settlement, RetrySettlement>> {
    let input: ExecutionInput = { attempt: 1, round: this.#rounds.get(node.id) ?? 0 };
    while (true) {
      const settlement = await this.#o.port.execute(node, input, signal);
      if (settlement.kind !== "retry") return settlement;
      this.#o.port.retrying(node, settlement);
      // The run stopped between attempts: the retry never starts (SPEC §4: halt launches nothing new).
      if (signal.aborted) return this.#o.port.retryNotStarted(node, settlement, this.#haltedBy);
      input = settlement.next;
    }
  }

  #notify(): void {
    this.#wake?.();
  }

  /** Acts on a node's decision. `aborted`: the node's signal was aborted (halt or cancel). */
  #act(node: GraphNode, settlement: Exclude<Settlement, RetrySettlement>, aborted: boolean): void {
    const id = node.id;
    switch (settlement.kind) {
      case "passed":
        this.#states.set(id, "passed");
        this.#o.port.settled(node, settlement);
        return;
      case "paused":
        this.#states.set(id, "limited");
        this.#o.port.settled(node, settlement);
        // A gate pause outranks a session limit (research §5.6).
        if (this.#pause === null)
          this.#pause = { reason: "session-limit", node: id, resets_at: settlement.resetsAt };
        return;
      case "cancelled":
        this.#states.set(id, "cancelled");
        this.#o.port.settled(node, settlement);
        return;
      case "feedback":
        // A halt or cancel that landed after the decision launches nothing new: the FAIL stands.
        if (aborted || this.#haltedBy !== null) {
          const { row, judged } = settlement;
          this.#fail(node, { kind: "failed", row, judged }, aborted);
          return;
        }
        this.#o.port.feedbackFired(node, settlement);
        // Re-arm the body: its nodes run again, in dependency order, with the payload available.
        for (const member of settlement.arc.body) {
          this.#states.set(member, "pending");
          this.#rounds.set(member, settlement.round);
        }
        return;
      case "failed":
        this.#fail(node, settlement, aborted);
        return;
      default:
        unreachable(settlement);
    }
  }

  #fail(node: GraphNode, settlement: FailedSettlement, aborted: boolean): void {
    this.#states.set(node.id, "failed");
    this.#o.port.settled(node, settlement);
    if (this.#o.onFail === "halt" && this.#haltedBy === null && !aborted) {
      this.#haltedBy = node.id;
      this.#abortAll();
    }
  }

  /** The reasons of nodes that never ran this leg: pending behind a pause, waiting at a gate (a limited node has its PAUSED row). */
  #closeLeg(): void {
    const pause = this.#pause;
    for (const node of this.#o.graph.nodes) {
      const s = this.#states.get(node.id);
      if (s === "pending") {
        const why =
          pause?.reason === "gate"
            ? `not run yet: the run is paused at gate "${pause.node}"`
            : pause?.reason === "session-limit"
              ? "not run yet: the run paused at the model's session limit"
              : "dependencies never passed";
        this.#reasons.set(node.id, why);
        this.#o.port.neverRan(node);
      } else if (s === "waiting") {
        this.#reasons.set(node.id, GATE_WAITING_REASON);
      }
    }
  }
}
