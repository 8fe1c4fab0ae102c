/**
 * The exec seam (SPEC §9): the only module in `src/` that spawns a process. `@actions/exec` cannot start a
 * child in its own process group or kill that group on timeout, so this seam is built on
 * `node:child_process` directly (CONVENTIONS "Stack").
 *
 * A child runs as a small state machine: spawned (own process group, stdin from the null device) →
 * running (stdout/stderr kept as bounded tails, optionally streamed line by line and echoed through a
 * {@link CommandFence}) → settled as exactly one {@link ProcessResult}. On timeout or cancellation the
 * whole group gets SIGTERM, then SIGKILL after a grace period.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { CommandFence } from "./command-fence.js";
import { OutputTail } from "./output-tail.js";

/** Options of one child process. Lengths are bytes, times are milliseconds. */
export interface RunProcessOptions {
  /** Executable (looked up on `env.PATH`) or, with `shell: true`, a shell command line. */
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd: string;
  /** The complete environment; build it with `buildChildEnv` — nothing is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Run `command` through `/bin/sh -c` (verify commands are shell command lines). */
  readonly shell?: boolean;
  /** Kill the process group after this long; the result is then `timed_out`. */
  readonly timeoutMs?: number;
  /** Abort to kill the process group; the result is then `cancelled`. */
  readonly signal?: AbortSignal;
  /** How much of each stream's end to keep (default 64 KiB). */
  readonly tailBytes?: number;
  /** Called with each complete stdout line (without the newline). */
  readonly onStdoutLine?: (line: string) => void;
  /**
   * Called with each raw stdout chunk, undecoded (for NUL-separated or binary output, e.g. `git … -z`).
   * Without `onStdoutLine` and `echo`, stdout is then not split into lines at all.
   */
  readonly onStdoutData?: (chunk: Buffer) => void;
  /** Called with each complete stderr line (without the newline). */
  readonly onStderrLine?: (line: string) => void;
  /** Echo both streams line by line, fenced from workflow commands when `fenceWorkflowCommands`. */
  readonly echo?: { readonly write: (text: string) => void; readonly fenceWorkflowCommands: boolean };
  /** Grace between SIGTERM and SIGKILL (default 3000). */
  readonly killGraceMs?: number;
}

interface Streams {
  readonly stdoutTail: string;
  readonly stderrTail: string;
  readonly durationMs: number;
  readonly pid: number | null;
}

/** The settled state of one child. A non-zero exit is a result, not an error. */
export type ProcessResult =
  | (Streams & { readonly kind: "exited"; readonly exitCode: number })
  | (Streams & { readonly kind: "signalled"; readonly signal: string })
  | (Streams & { readonly kind: "timed_out"; readonly timeoutMs: number })
  | (Streams & { readonly kind: "cancelled" })
  | { readonly kind: "spawn_failed"; readonly message: string; readonly durationMs: number };

const DEFAULT_TAIL = 64 * 1024;
/** The largest delay `setTimeout` honours (Node docs: "When delay is larger than 2147483647 … set to 1"). */
const MAX_TIMER_MS = 2_147_483_647;

class LineSplitter {
  private pending = "";
  // Decodes across chunks: a multi-byte character split between two pipe reads is kept whole.
  private readonly decoder = new StringDecoder("utf8");
  constructor(private readonly emit: (line: string) => void) {}
  push(chunk: Buffer): void {
    const text = this.pending + this.decoder.write(chunk);
    const parts = text.split("\n");
    this.pending = parts.pop() ?? "";
    for (const part of parts) this.emit(part.endsWith("\r") ? part.slice(0, -1) : part);
  }
  flush(): void {
    const rest = this.pending + this.decoder.end();
    if (rest.length > 0) this.emit(rest);
    this.pending = "";
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone — the outcome we wanted.
  }
}

/**
 * Runs one child to completion.
 *
 * @returns the settled {@link ProcessResult}; never rejects for a child's own failure (non-zero exit,
 *   spawn error, timeout, cancellation are all results).
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const started = Date.now();
  const tailBytes = options.tailBytes ?? DEFAULT_TAIL;
  const stdoutTail = new OutputTail(tailBytes);
  const stderrTail = new OutputTail(tailBytes);
  const fence = options.echo
    ? new CommandFence(options.echo.write, options.echo.fenceWorkflowCommands)
    : null;
  const onOut = (line: string): void => {
    fence?.line(line);
    options.onStdoutLine?.(line);
  };
  const onErr = (line: string): void => {
    fence?.line(line);
    options.onStderrLine?.(line);
  };
  const stdoutLines = new LineSplitter(onOut);
  // Splitting is only for line consumers; a raw-data consumer of a huge stream is spared the decoding.
  const splitStdout =
    fence !== null || options.onStdoutLine !== undefined || options.onStdoutData === undefined;
  const stderrLines = new LineSplitter(onErr);

  return new Promise<ProcessResult>((resolve) => {
    if (options.signal?.aborted) {
      // A cancellation, not a spawn failure: nothing was started.
      resolve({ kind: "cancelled", stdoutTail: "", stderrTail: "", durationMs: 0, pid: null });
      return;
    }
    const [file, argv] = options.shell
      ? ["/bin/sh", ["-c", options.command]]
      : [options.command, [...(options.args ?? [])]];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, argv, {
        cwd: options.cwd,
        env: { ...options.env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      resolve({ kind: "spawn_failed", message: String(error), durationMs: Date.now() - started });
      return;
    }
    const pid = child.pid ?? null;
    let stopReason: { kind: "timed_out" } | { kind: "cancelled" } | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const stop = (reason: { kind: "timed_out" } | { kind: "cancelled" }): void => {
      if (stopReason !== null || pid === null) return;
      stopReason = reason;
      killGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => killGroup(pid, "SIGKILL"), options.killGraceMs ?? 3000);
      killTimer.unref();
    };
    const timeout =
      options.timeoutMs !== undefined
        ? // setTimeout takes at most 2^31-1 ms (~24.8 days); a longer timeout would fire at once.
          setTimeout(() => stop({ kind: "timed_out" }), Math.min(options.timeoutMs, MAX_TIMER_MS))
        : undefined;
    const onAbort = (): void => stop({ kind: "cancelled" });
    options.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout?.on("data", (chunk: Buffer) => {
      if (settled) return;
      stdoutTail.push(chunk);
      options.onStdoutData?.(chunk);
      if (splitStdout) stdoutLines.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (settled) return;
      stderrTail.push(chunk);
      stderrLines.push(chunk);
    });

    const finish = (result: ProcessResult): void => {
      if (settled) return;
      settled = true;
      if (timeout) clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      stdoutLines.flush();
      stderrLines.flush();
      fence?.close();
      // A process that left the group (setsid, a double fork) can still hold our pipes: drop them, so
      // nothing it prints later reaches a callback or reopens the fence after the run settled.
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve(result);
    };

    child.on("error", (error) => {
      finish({ kind: "spawn_failed", message: error.message, durationMs: Date.now() - started });
    });
    const settle = (code: number | null, signal: NodeJS.Signals | null): void => {
      const streams: Streams = {
        stdoutTail: stdoutTail.text(),
        stderrTail: stderrTail.text(),
        durationMs: Date.now() - started,
        pid,
      };
      // Reap what the child left behind in its group (a background process holding our pipes open).
      if (pid !== null) killGroup(pid, "SIGKILL");
      if (stopReason?.kind === "timed_out") {
        finish({ ...streams, kind: "timed_out", timeoutMs: options.timeoutMs ?? 0 });
      } else if (stopReason?.kind === "cancelled") {
        finish({ ...streams, kind: "cancelled" });
      } else if (code !== null) {
        finish({ ...streams, kind: "exited", exitCode: code });
      } else {
        finish({ ...streams, kind: "signalled", signal: signal ?? "unknown" });
      }
    };
    child.on("exit", (code, signal) => {
      // Wait for stdio to drain; if a grandchild keeps the pipes open, settle anyway after a grace.
      drainTimer = setTimeout(() => settle(code, signal), 2000);
      drainTimer.unref();
      child.on("close", () => settle(code, signal));
    });
  });
}
