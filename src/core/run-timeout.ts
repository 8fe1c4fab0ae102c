/**
 * The whole run's time bound (SPEC §6 `timed_out`, §10 exit 124; issue 14): the action's `timeout-minutes`
 * input and the CLI's `--timeout DURATION`. The run service aborts the run's signal with a
 * {@link RunTimedOut} as its reason when the bound is reached; the engine stops the run exactly as for a
 * cancel (every running node's process group killed, nothing new started, the run directory saved) and
 * tells the two apart by that reason: the run ends `timed-out`, and its stopped rows say the bound stopped
 * them rather than "the run was cancelled".
 */

/** The reason a run's signal is aborted with when its time bound is reached. */
export class RunTimedOut extends Error {
  override readonly name = "RunTimedOut";

  /**
   * @param limit the bound as given, e.g. `"2s"`, `"340 min"`.
   * @param setting what set it, e.g. `"--timeout"`, `"timeout-minutes"`.
   */
  constructor(
    readonly limit: string,
    readonly setting: string,
  ) {
    super(`the run reached its time bound (${setting} ${limit})`);
  }
}

/** The {@link RunTimedOut} a signal was aborted with, or `null` (not aborted, or cancelled otherwise). */
export function runTimedOut(signal: AbortSignal | undefined): RunTimedOut | null {
  return signal?.aborted === true && signal.reason instanceof RunTimedOut ? signal.reason : null;
}

/** Why an aborted run stopped, as a row's detail says it: its time bound, else "the run was cancelled". */
export function stopWords(signal: AbortSignal | undefined): string {
  const timedOut = runTimedOut(signal);
  return timedOut !== null ? `${timedOut.message}` : "the run was cancelled";
}
