/**
 * Ready-set scheduling (SPEC §4): a node starts when all its dependencies passed, up to `concurrency`
 * at once, so independent branches run in parallel. `on_fail: halt` aborts running siblings (their
 * outcome is `cancelled`, naming the failed node) and launches nothing new; `continue` prunes only the
 * failed node's descendants.
 */

/** The scheduler's view of a node. */
export interface ScheduledNode {
  readonly id: string;
  readonly dependsOn: readonly string[];
}

/** What running one node produced, as the scheduler needs it. */
export type NodeVerdict = "passed" | "failed" | "cancelled";

/** The final state of one node after scheduling. */
export type ScheduleOutcome =
  | { readonly kind: "passed" }
  | { readonly kind: "failed" }
  /** Was running when `haltedBy` failed, and was stopped. */
  | { readonly kind: "cancelled"; readonly haltedBy: string | null }
  /** Never started: an ancestor did not pass, or the run halted. */
  | { readonly kind: "skipped"; readonly because: string };

export interface ScheduleOptions {
  readonly nodes: readonly ScheduledNode[];
  /** Maximum nodes running at once (≥ 1). */
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  /**
   * Runs one node. Must settle; must honour `signal` by stopping its process and returning `cancelled`.
   * A thrown error counts as `failed` (the caller's node runner should not throw).
   */
  readonly run: (id: string, signal: AbortSignal) => Promise<NodeVerdict>;
  /** Aborts the whole run (workflow cancelled, run timeout): running nodes are cancelled. */
  readonly signal?: AbortSignal;
}

export interface ScheduleResult {
  readonly outcomes: ReadonlyMap<string, ScheduleOutcome>;
  /** The node whose failure halted the run, if any. */
  readonly haltedBy: string | null;
}

/**
 * Runs the nodes in dependency order.
 *
 * @returns an outcome for every node, in no particular order.
 */
export async function schedule(options: ScheduleOptions): Promise<ScheduleResult> {
  // NaN or a fraction would slip past a bare `< 1` check and lift (or blur) the limit.
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new Error(`Internal error: concurrency must be an integer ≥ 1, got ${options.concurrency}`);
  }
  const outcomes = new Map<string, ScheduleOutcome>();
  const running = new Map<string, AbortController>();
  const pending = new Set(options.nodes.map((n) => n.id));
  const byId = new Map(options.nodes.map((n) => [n.id, n]));
  let haltedBy: string | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    wake?.();
  };

  const abortAll = (): void => {
    for (const controller of running.values()) controller.abort();
  };
  options.signal?.addEventListener("abort", abortAll, { once: true });

  // The node whose failure (or cancellation) a skip goes back to, so a skipped grandchild's reason names
  // the node that actually failed, not only the skipped node in between.
  const skippedBecauseOf = new Map<string, string>();
  const blockedReason = (node: ScheduledNode): string | null => {
    for (const dep of node.dependsOn) {
      const outcome = outcomes.get(dep);
      if (outcome === undefined || outcome.kind === "passed") continue;
      const root = outcome.kind === "skipped" ? skippedBecauseOf.get(dep) : dep;
      if (root === undefined) return `dependency "${dep}" was skipped`;
      skippedBecauseOf.set(node.id, root);
      const rootOutcome = outcomes.get(root);
      const what = rootOutcome?.kind === "cancelled" ? "was cancelled" : "failed";
      return root === dep
        ? `dependency "${dep}" ${what}`
        : `dependency "${dep}" was skipped because "${root}" ${what}`;
    }
    return null;
  };
  const isReady = (node: ScheduledNode): boolean =>
    node.dependsOn.every((d) => outcomes.get(d)?.kind === "passed");

  while (pending.size > 0 || running.size > 0) {
    const stopping = haltedBy !== null || options.signal?.aborted === true;
    // Prune what can no longer run.
    let pruned = true;
    while (pruned) {
      pruned = false;
      for (const id of pending) {
        const node = byId.get(id)!;
        const reason = stopping
          ? haltedBy !== null
            ? `run halted after "${haltedBy}" failed`
            : "run cancelled"
          : blockedReason(node);
        if (reason !== null) {
          pending.delete(id);
          outcomes.set(id, { kind: "skipped", because: reason });
          pruned = true;
        }
      }
    }
    // Launch what is ready.
    for (const id of [...pending]) {
      if (running.size >= options.concurrency) break;
      const node = byId.get(id)!;
      if (!isReady(node)) continue;
      pending.delete(id);
      const controller = new AbortController();
      running.set(id, controller);
      // `Promise.resolve().then` also turns a synchronous throw of `run` into a failed node, not a
      // rejected schedule.
      void Promise.resolve()
        .then(() => options.run(id, controller.signal))
        .catch((): NodeVerdict => "failed")
        .then((verdict) => {
          running.delete(id);
          if (verdict === "passed") outcomes.set(id, { kind: "passed" });
          else if (verdict === "cancelled" || controller.signal.aborted) {
            outcomes.set(id, { kind: "cancelled", haltedBy });
          } else {
            outcomes.set(id, { kind: "failed" });
            if (options.onFail === "halt" && haltedBy === null) {
              haltedBy = id;
              abortAll();
            }
          }
          notify();
        });
    }
    if (running.size === 0) {
      if (pending.size === 0) break;
      // Nothing running and nothing launchable: the remaining nodes wait on something that will never pass.
      for (const id of pending) outcomes.set(id, { kind: "skipped", because: "dependencies never passed" });
      pending.clear();
      break;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = null;
  }
  options.signal?.removeEventListener("abort", abortAll);
  return { outcomes, haltedBy };
}
