/**
 * A bounded retry of a planner or assessor call whose CLI did not START (Go `runAssessorWithSpawnRetry`,
 * research/oh-my-graph.md §3.6; issue 26): up to {@link START_ATTEMPTS} attempts, {@link START_BACKOFF_MS}
 * apart, only while the outcome is `spawn_failed` (the executable missing or not executable — e.g. npm
 * replacing `claude` mid-run). A model refusal, a non-zero exit, a timeout, an unreadable reply or a
 * cancel is never retried here: those calls ran and were paid for.
 */

/** Attempts in all (1 + 2 retries). */
export const START_ATTEMPTS = 3;
/** Wait between attempts, in ms. */
export const START_BACKOFF_MS = 300;

/** The last outcome, and the message of every start that failed before it (one per retry made). */
export interface StartRetried<O> {
  readonly outcome: O;
  readonly failedStarts: readonly string[];
}

/**
 * Calls `call` until its outcome is not `spawn_failed`, at most {@link START_ATTEMPTS} times, waiting
 * `backoffMs` between attempts; stops early once `signal` is aborted (the last outcome is returned).
 */
export async function withStartRetry<O extends { readonly kind: string }>(
  call: () => Promise<O>,
  signal?: AbortSignal,
  backoffMs: number = START_BACKOFF_MS,
): Promise<StartRetried<O>> {
  const failedStarts: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await call();
    if (outcome.kind !== "spawn_failed" || attempt >= START_ATTEMPTS || signal?.aborted === true) {
      return { outcome, failedStarts };
    }
    failedStarts.push(messageOf(outcome));
    await new Promise((resolve) => setTimeout(resolve, backoffMs));
  }
}

/**
 * What the ledger says about the retries of `what` (`the planner CLI`, `the assessor CLI`): `null` when
 * the first attempt started; else how many starts failed, the first failure, and how it ended.
 */
export function startRetryNote(
  what: string,
  failedStarts: readonly string[],
  started: boolean,
): string | null {
  if (failedStarts.length === 0) return null;
  const n = failedStarts.length;
  const ending = started
    ? `it started on attempt ${n + 1} of ${START_ATTEMPTS}`
    : `all ${START_ATTEMPTS} attempts failed to start`;
  return `${what} failed to start ${n === 1 ? "once" : `${n} times`} (${failedStarts[0]}); retried ${START_BACKOFF_MS} ms apart, ${ending}`;
}

function messageOf(outcome: { readonly kind: string }): string {
  const message = (outcome as { readonly message?: unknown }).message;
  return typeof message === "string" ? message : outcome.kind;
}
