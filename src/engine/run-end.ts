/**
 * How an aborted run ends (SPEC §6): `timed-out` when its signal was aborted by its own time bound
 * ({@link RunTimedOut}), else `cancelled` (the workflow cancelled, the CLI interrupted).
 */
import { runTimedOut } from "../core/run-timeout.js";
import type { RunEnd } from "../ledger/conclusion.js";

/** The end of a run stopped by `signal`. */
export function runEndOfAbort(
  signal: AbortSignal | undefined,
): Extract<RunEnd, { kind: "cancelled" | "timed-out" }> {
  const timedOut = runTimedOut(signal);
  return timedOut !== null
    ? { kind: "timed-out", limit: timedOut.limit, setting: timedOut.setting }
    : { kind: "cancelled" };
}
