/**
 * The exec seam (SPEC §9): the only module in `src/` that spawns a process. `@actions/exec` cannot start a
 * child in its own process group or kill that group on timeout, so this seam is built on
 * `node:child_process` directly (CONVENTIONS "Stack").
 *
 * A child runs as a small state machine: spawned (own process group, stdin from the null device) →
 * running (stdout/stderr read once, chunk by chunk, in linear time and bounded memory: kept as bounded
 * tails, and only for consumers that want them split into runs of whole lines, streamed line by line
 * and echoed through a `CommandFence` — `child-output.ts`) → settled as exactly one
 * {@link ProcessResult}. On timeout or cancellation the whole group gets SIGTERM, then SIGKILL after a
 * grace period. Unless `orphanGuard: false`, an orphan guard (`orphan-guard.ts`) SIGKILLs the group if the
 * engine dies without settling it (`kill -9`).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  type ChildIdentity,
  type ChildScope,
  commandAs,
  currentChildIdentity,
  currentChildScope,
} from "./child-identity.js";
import { ChildOutput, type ChildOutputOptions } from "./child-output.js";
import { killMarked, SPAWN_MARKER, signalAs, startTicksOf } from "./leftovers.js";
import { guardGroup } from "./orphan-guard.js";
import { trustedCommand } from "./trusted-tools.js";

export type { ChildOutputOptions, OutputPiece, PieceKind } from "./child-output.js";

/**
 * Options of one child process. Lengths are bytes, times are milliseconds. Where its output goes (tails,
 * line callbacks, pieces, echo) is {@link ChildOutputOptions}.
 */
export interface RunProcessOptions extends ChildOutputOptions {
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
  /** Grace between SIGTERM and SIGKILL (default 3000). */
  readonly killGraceMs?: number;
  /**
   * How long a child that exited may keep its pipes open (a background grandchild holds them) before the
   * run settles anyway, ms (default {@link DRAIN_GRACE_MS}, 2000). Tests of such grandchildren lower it.
   */
  readonly drainGraceMs?: number;
  /**
   * Guard the child's group against the engine's own death (default `true`): a `kill -9` of the engine
   * then ends the child too (`orphan-guard.ts`; issue 17 item 7). `false` only for short local commands
   * (local git), where the guard's extra process costs more than an orphan that ends by itself.
   */
  readonly orphanGuard?: boolean;
  /**
   * The child runs PR code (the verify command, a model CLI): it runs as the separate user when the run
   * has one (`child-identity.ts`), and when it settles every process it left behind — `setsid` and
   * double-forked descendants included — is killed and counted in `leftBehind` (`leftovers.ts`).
   */
  readonly prCode?: boolean;
}

interface Streams {
  readonly stdoutTail: string;
  readonly stderrTail: string;
  readonly durationMs: number;
  readonly pid: number | null;
  /**
   * `prCode` children: how many processes were still running when the child ended (its background jobs,
   * `setsid` or double-forked descendants) and were killed then. Absent for other children.
   */
  readonly leftBehind?: number;
}

/** The settled state of one child. A non-zero exit is a result, not an error. */
export type ProcessResult =
  | (Streams & { readonly kind: "exited"; readonly exitCode: number })
  | (Streams & { readonly kind: "signalled"; readonly signal: string })
  | (Streams & { readonly kind: "timed_out"; readonly timeoutMs: number })
  | (Streams & { readonly kind: "cancelled" })
  | { readonly kind: "spawn_failed"; readonly message: string; readonly durationMs: number };

/** The largest delay `setTimeout` honours (Node docs: "When delay is larger than 2147483647 … set to 1"). */
const MAX_TIMER_MS = 2_147_483_647;
/** How long a child that exited may keep its pipes open (a background grandchild) before it settles. */
const DRAIN_GRACE_MS = 2000;

type StopReason = { readonly kind: "timed_out" } | { readonly kind: "cancelled" };

/**
 * Signals the child's whole process group. A child started as the separate user through `sudo` is in the
 * group of `sudo` (root), which the engine's user may signal, but its command and their descendants are the
 * user's, which it may not: the signal then goes through `sudo -n kill` (`signalAs`), or a SIGKILL on
 * timeout would end `sudo` alone and leave the command running. ESRCH (the group is gone) is no error.
 */
function killGroup(pid: number, signal: NodeJS.Signals, identity: ChildIdentity | null): void {
  signalAs(identity, [-pid], signal);
}

/**
 * Runs one child to completion.
 *
 * @returns the settled {@link ProcessResult}; never rejects for a child's own failure (non-zero exit,
 *   spawn error, timeout, cancellation are all results).
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise<ProcessResult>((resolve) => {
    if (options.signal?.aborted) {
      // A cancellation, not a spawn failure: nothing was started.
      resolve({ kind: "cancelled", stdoutTail: "", stderrTail: "", durationMs: 0, pid: null });
      return;
    }
    let start: ReturnType<typeof startLine>;
    let child: ReturnType<typeof spawn>;
    try {
      // No trusted shell (the action's start found none) is a spawn failure naming it, like a missing file.
      start = startLine(options);
      child = spawn(start.file, start.args, {
        cwd: options.cwd,
        env: start.env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      resolve({ kind: "spawn_failed", message: String(error), durationMs: Date.now() - started });
      return;
    }
    superviseChild(child, { ...options, marker: start.marker, scope: currentChildScope() }, started, resolve);
  });
}

/**
 * What is executed: the command (through `/bin/sh -c` with `shell`), for a `prCode` child marked with a
 * fresh {@link SPAWN_MARKER}, a node script its scope registered started with the engine's own node
 * (`ChildScope.runWithOwnNode`), and started as the run's separate user when there is one.
 */
function startLine(options: RunProcessOptions): {
  readonly file: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly marker: string | null;
} {
  const [command, commandArgs] = options.shell
    ? [trustedCommand("sh", "/bin/sh"), ["-c", options.command]]
    : [options.command, [...(options.args ?? [])]];
  if (options.prCode !== true)
    return { file: command, args: commandArgs, env: { ...options.env }, marker: null };
  // A model CLI that is a node script runs on the engine's node, not the `node` its PATH finds first.
  const { file, args } = currentChildScope()?.launch(command, commandArgs) ?? {
    file: command,
    args: commandArgs,
  };
  const marker = randomUUID();
  const env = { ...options.env, [SPAWN_MARKER]: marker };
  const identity = currentChildIdentity();
  return identity === null
    ? { file, args, env, marker }
    : { ...commandAs(identity, file, args, env), marker };
}

/**
 * The running state of one spawned child: its output routed ({@link ChildOutput}), the timeout and the
 * abort signal armed to stop its group (SIGTERM, then SIGKILL after the grace), and exactly one result
 * handed to `resolve` — after `close` (stdio drained) or, when a grandchild holds the pipes open, a grace
 * after `exit`.
 */
function superviseChild(
  child: ReturnType<typeof spawn>,
  options: RunProcessOptions & { readonly marker: string | null; readonly scope: ChildScope | null },
  started: number,
  resolve: (result: ProcessResult) => void,
): void {
  const output = new ChildOutput(options);
  const pid = child.pid ?? null;
  // Who the child runs as: a PR-code child (marked) in a scope with the separate user.
  const identity = options.marker !== null ? (options.scope?.identity ?? null) : null;
  const guard =
    pid !== null && options.orphanGuard !== false
      ? guardGroup(pid, { throughSudo: identity?.via === "sudo" && process.getuid?.() !== 0 })
      : null;
  // Read at once, while the child certainly lives: its descendants started at or after this.
  const startTicks = pid !== null && options.marker !== null ? startTicksOf(pid) : null;
  let stopReason: StopReason | null = null;
  const timers: NodeJS.Timeout[] = [];
  let settled = false;

  const stop = (reason: StopReason): void => {
    if (stopReason !== null || pid === null) return;
    stopReason = reason;
    killGroup(pid, "SIGTERM", identity);
    const kill = setTimeout(() => killGroup(pid, "SIGKILL", identity), options.killGraceMs ?? 3000);
    kill.unref();
    timers.push(kill);
  };
  if (options.timeoutMs !== undefined) {
    // setTimeout takes at most 2^31-1 ms (~24.8 days); a longer timeout would fire at once.
    timers.push(setTimeout(() => stop({ kind: "timed_out" }), Math.min(options.timeoutMs, MAX_TIMER_MS)));
  }
  const onAbort = (): void => stop({ kind: "cancelled" });
  options.signal?.addEventListener("abort", onAbort, { once: true });

  child.stdout?.on("data", (chunk: Buffer) => output.stdout(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.stderr(chunk));

  const finish = (result: ProcessResult): void => {
    if (settled) return;
    settled = true;
    guard?.release();
    for (const timer of timers) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    output.end();
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
    if (settled) return;
    // Flush the last lines before the tails are read, so every consumer has seen all the output.
    output.end();
    // Kill what a PR-code child left behind: its session (its group included) and every marked descendant.
    const leftBehind =
      options.marker !== null ? killMarked(options.marker, pid, startTicks, identity).length : undefined;
    if (options.scope !== null && leftBehind !== undefined) options.scope.leftBehind += leftBehind;
    const streams: Streams = {
      ...output.tails(),
      durationMs: Date.now() - started,
      pid,
      ...(leftBehind !== undefined ? { leftBehind } : {}),
    };
    // Reap what the child left behind in its group (a background process holding our pipes open).
    if (pid !== null) killGroup(pid, "SIGKILL", identity);
    finish(resultOf(streams, { stopReason, code, signal, timeoutMs: options.timeoutMs ?? 0 }));
  };
  child.on("exit", (code, signal) => {
    // Wait for stdio to drain; if a grandchild keeps the pipes open, settle anyway after a grace.
    const drain = setTimeout(() => settle(code, signal), options.drainGraceMs ?? DRAIN_GRACE_MS);
    drain.unref();
    timers.push(drain);
    child.on("close", () => settle(code, signal));
  });
}

/** The result of a child that ended: a stop we asked for wins over how it ended. */
function resultOf(
  streams: Streams,
  end: {
    readonly stopReason: StopReason | null;
    readonly code: number | null;
    readonly signal: NodeJS.Signals | null;
    readonly timeoutMs: number;
  },
): ProcessResult {
  if (end.stopReason?.kind === "timed_out")
    return { ...streams, kind: "timed_out", timeoutMs: end.timeoutMs };
  if (end.stopReason?.kind === "cancelled") return { ...streams, kind: "cancelled" };
  if (end.code !== null) return { ...streams, kind: "exited", exitCode: end.code };
  return { ...streams, kind: "signalled", signal: end.signal ?? "unknown" };
}
