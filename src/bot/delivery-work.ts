/**
 * The work of accepted deliveries, run after their answer (SPEC §2 "Across deliveries": every delivery is
 * answered within a second, the work runs after the answer). GitHub waits 10 s for an answer
 * (https://docs.github.com/webhooks/using-webhooks/best-practices-for-using-webhooks#respond-within-10-seconds);
 * a handler's API calls — spaced one second apart per installation, waiting out `Retry-After` and
 * retrying 5xx — can take longer, so the HTTP edge answers `202` and hands the work here.
 *
 * Kept in memory only: a process killed mid-work loses it, which the reconcile sweep of the App's own
 * `queued` / `in_progress` check runs repairs from GitHub's state (`reconcile.ts`); a job that fails is
 * redelivered by the App itself (`redeliver.ts`, {@link redeliverDelivery}).
 */

/** One job: a label for the log (the delivery's GUID) and the work. */
interface Job {
  readonly label: string;
  readonly done: Promise<void>;
}

/** The in-flight work of one process; {@link drain} on shutdown. */
export class DeliveryWork {
  readonly #jobs = new Set<Job>();

  /** The last job per ordering key (see {@link run}). */
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Starts `work` (its rejection is the caller's to catch: it is logged, never thrown here). With `key`, it
   * starts only after the previous job of the same key finished: deliveries about one commit are worked in
   * the order they arrived, so answering first does not make this process reorder them (a `workflow_run
   * in_progress` worked after the same run's `completed`).
   */
  run(label: string, work: () => Promise<void>, key?: string): void {
    const before = key === undefined ? Promise.resolve() : (this.#tails.get(key) ?? Promise.resolve());
    const job: Job = {
      label,
      done: before
        .then(work)
        .catch(() => {})
        .finally(() => {
          this.#jobs.delete(job);
          if (key !== undefined && this.#tails.get(key) === job.done) this.#tails.delete(key);
        }),
    };
    if (key !== undefined) this.#tails.set(key, job.done);
    this.#jobs.add(job);
  }

  /** Jobs not yet finished. */
  get active(): number {
    return this.#jobs.size;
  }

  /**
   * Resolves once every job started so far (and any they started) finished — only those whose label
   * `which` accepts, when given.
   */
  async settled(which: (label: string) => boolean = () => true): Promise<void> {
    for (;;) {
      const open = [...this.#jobs].filter((j) => which(j.label));
      if (open.length === 0) return;
      await Promise.allSettled(open.map((j) => j.done));
    }
  }

  /**
   * Waits for the jobs to finish, at most `deadlineMs` milliseconds.
   * @returns the labels of the jobs still running at the deadline (empty: all finished).
   */
  async drain(deadlineMs: number): Promise<string[]> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
      timer.unref();
    });
    await Promise.race([this.settled(), deadline]);
    clearTimeout(timer);
    return [...this.#jobs].map((j) => j.label);
  }
}
