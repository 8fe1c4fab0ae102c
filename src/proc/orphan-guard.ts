/**
 * The orphan guard of one child's process group (issue 17 item 7). Every child runs in its own process
 * group (so a timeout or a cancellation can stop its grandchildren), which also means nothing stops it when
 * the engine itself dies without running its cleanup — `kill -9`, the OOM killer: a node's `claude` ran on
 * until its model reply arrived, writing into the checkout of a run that had already ended.
 *
 * The guard is a tiny `/bin/sh` in a process group of its own, whose stdin is a pipe from the engine. It
 * blocks reading that pipe; the engine never writes to it. When the engine dies — however it dies — the
 * kernel closes the engine's end, the read returns at end of file, and the guard SIGKILLs the child's group.
 * When the child settles normally, the engine ends the guard first ({@link OrphanGuard.release}), so a
 * group id the kernel may later reuse is never signalled. The pipe is close-on-exec in the engine, so no
 * other child holds it open.
 */
import { spawn } from "node:child_process";

/** A running guard of one process group. */
export interface OrphanGuard {
  /** Ends the guard without touching the group (the child settled; the engine reaps the group itself). */
  release(): void;
}

/**
 * The guard's script: `$1` is the process group id. `read` returns at end of file (the engine died);
 * `kill -s KILL -- -PGID` then signals the whole group; a group already gone is no error.
 */
const GUARD_SCRIPT = 'read _; kill -s KILL -- "-$1" 2>/dev/null; exit 0';
/**
 * The same through `sudo -n` (`/usr/bin/sudo`, never a `PATH` lookup), for a child that runs as the separate
 * user through sudo: the engine's user cannot signal that user's processes (`leftovers.ts`).
 */
const SUDO_GUARD_SCRIPT = 'read _; /usr/bin/sudo -n kill -s KILL -- "-$1" 2>/dev/null; exit 0';

/**
 * Starts the guard of the process group led by `pgid` (a child spawned `detached`).
 *
 * @param pgid the child's pid, which is its process group's id.
 * @param o.throughSudo kill through `sudo -n` (the group holds another user's processes, which the engine
 *   switched to with sudo); default false.
 * @returns the guard; a guard that could not start is a no-op guard (the child still runs, and the engine
 *   still stops it on every path it lives through).
 */
export function guardGroup(pgid: number, o: { readonly throughSudo?: boolean } = {}): OrphanGuard {
  let guard: ReturnType<typeof spawn>;
  const script = o.throughSudo === true ? SUDO_GUARD_SCRIPT : GUARD_SCRIPT;
  try {
    guard = spawn("/bin/sh", ["-c", script, "evidence-gate-orphan-guard", String(pgid)], {
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "ignore", "ignore"],
      // Its own group: a signal to the engine's group (Ctrl-C) must not end the guard before the engine
      // has stopped the child; the engine releases the guard itself.
      detached: true,
    });
  } catch {
    return { release: () => {} };
  }
  guard.on("error", () => {});
  guard.stdin?.on("error", () => {});
  // The guard must not keep the engine's event loop alive.
  guard.unref();
  (guard.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    release: () => {
      if (guard.exitCode === null && guard.signalCode === null) guard.kill("SIGKILL");
    },
  };
}
