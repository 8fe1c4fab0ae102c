/**
 * The CLI's stdout and stderr as outputs that survive their reader going away
 * (`evidence-gate auto … | head -1`).
 *
 * Node ignores SIGPIPE, so a write to a pipe whose reader has closed fails with EPIPE, reported as an
 * `error` event on `process.stdout` / `process.stderr`. With no listener that event is an uncaught
 * exception: the CLI died mid-run, leaving the run directory without `ledger.json` and with a stale
 * `run.lock`. The output is only the run's report; the run itself (its ledger, commit, exit code) must not
 * depend on anyone reading it. So once a stream errors, writes to it are dropped and the run goes on.
 */

/** A process output stream as this module uses it (`process.stdout`, `process.stderr`). */
export interface OutputStream {
  write(text: string): boolean;
  on(event: "error", listener: (error: Error) => void): unknown;
  readonly destroyed: boolean;
}

/** An output whose `write` never throws and never crashes the process once its reader is gone. */
export interface PipeSafeOutput {
  write(text: string): boolean;
  /** Why writes are dropped (`EPIPE`, or the error's code or message); `null` while the stream works. */
  readonly closedBy: string | null;
}

/**
 * Wraps `stream`: the first `error` it emits (EPIPE when the reader closed the pipe; anything else a
 * broken output is no better) stops every later write, which returns `false` and does nothing.
 */
export function pipeSafe(stream: OutputStream): PipeSafeOutput {
  let closedBy: string | null = null;
  stream.on("error", (error: Error & { code?: string }) => {
    closedBy ??= error.code ?? error.message;
  });
  return {
    write(text: string): boolean {
      if (closedBy !== null) return false;
      if (stream.destroyed) {
        closedBy = "destroyed";
        return false;
      }
      try {
        return stream.write(text);
      } catch (error) {
        // A synchronous failure (a stream that throws instead of emitting) is the same closed output.
        closedBy =
          error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
        return false;
      }
    },
    get closedBy() {
      return closedBy;
    },
  };
}
