/**
 * The orphan guard of the engine's child process groups (issue 17 item 7). Every child runs in its own
 * process group (so a timeout or a cancellation can stop its grandchildren), which also means nothing stops
 * it when the engine itself dies without running its cleanup — `kill -9`, the OOM killer: a node's `claude`
 * ran on until its model reply arrived, writing into the checkout of a run that had already ended.
 *
 * The guard is ONE tiny `/bin/sh` for the whole engine process (issue 16, B1: one per child cost a fork of
 * the engine per node, on its one thread), in a process group of its own, whose stdin is a pipe from the
 * engine. The engine writes a line per group: `+PGID` when a child starts, `-PGID` when it settled. The
 * guard keeps the set of live groups; when the engine dies — however it dies — the kernel closes the
 * engine's end, `read` returns at end of file, and the guard SIGKILLs every group still in its set. A
 * settled child's group is removed from the set before the engine lets go of it, so a group id the kernel
 * may later reuse is never signalled. The pipe is close-on-exec in the engine, so no other child holds it
 * open. The guard is started with the first guarded child and lives as long as the engine (it does not keep
 * the event loop alive); if it is gone (killed from outside), the next child starts a new one and the live
 * groups are registered with it again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { trustedCommand } from "./trusted-tools.js";

/** A guarded process group. */
export interface OrphanGuard {
  /** Drops the group from the guard without touching it (the child settled; the engine reaps the group). */
  release(): void;
}

/** The guard's name in its command line (`ps`, `/proc/<pid>/cmdline`): `sh -c SCRIPT NAME`. */
export const GUARD_NAME = "evidence-gate-orphan-guard";

/**
 * The guard's script. Lines `+PGID` / `-PGID` add / remove a group in `$groups` (space-separated, with a
 * space on both sides of each id; adding a listed id again is a no-op), using parameter expansion only: no
 * process per line. At end of file
 * (the engine died) `kill -s KILL -- -PGID` signals every group left; a group already gone is no error.
 * An id written `sPGID` is a group of the separate user the engine switched to through sudo, which the
 * engine's user cannot signal: it is killed through `/usr/bin/sudo -n kill` (never a `PATH` lookup).
 */
const GUARD_SCRIPT = `groups=' '
while read -r line; do
  id=\${line#?}
  case $line in
    +*) case $groups in *" $id "*) ;; *) groups="$groups$id " ;; esac ;;
    -*) case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
for id in $groups; do
  case $id in
    s*) /usr/bin/sudo -n kill -s KILL -- "-\${id#s}" 2>/dev/null ;;
    *) kill -s KILL -- "-$id" 2>/dev/null ;;
  esac
done
exit 0`;

let guard: ChildProcess | null = null;
/** The groups registered and not yet released (as the guard's ids): registered again with a guard started anew. */
const live = new Set<string>();

/** The running guard, started when there is none (or it is gone); `null` when it cannot start. */
function runningGuard(): ChildProcess | null {
  if (guard !== null && guard.exitCode === null && guard.signalCode === null && guard.stdin?.writable)
    return guard;
  let started: ChildProcess;
  try {
    started = spawn(trustedCommand("sh", "/bin/sh"), ["-c", GUARD_SCRIPT, GUARD_NAME], {
      env: { PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "ignore", "ignore"],
      // Its own group: a signal to the engine's group (Ctrl-C) must not end the guard before the engine
      // has stopped its children.
      detached: true,
    });
  } catch {
    return null;
  }
  started.on("error", () => {});
  started.stdin?.on("error", () => {});
  // The guard must not keep the engine's event loop alive.
  started.unref();
  (started.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  guard = started;
  if (live.size > 0) started.stdin?.write([...live].map((id) => `+${id}\n`).join(""));
  return started;
}

/**
 * Guards the process group led by `pgid` (a child spawned `detached`), starting the engine's one guard if
 * it does not run yet.
 *
 * @param pgid the child's pid, which is its process group's id.
 * @param o.throughSudo kill through `sudo -n` (the group holds another user's processes, which the engine
 *   switched to with sudo); default false.
 * @returns the group's handle; when the guard cannot start, the child is still tracked and registered
 *   with a guard a later child starts (the engine still stops it on every path it lives through).
 */
export function guardGroup(pgid: number, o: { readonly throughSudo?: boolean } = {}): OrphanGuard {
  const id = o.throughSudo === true ? `s${pgid}` : String(pgid);
  live.add(id);
  runningGuard()?.stdin?.write(`+${id}\n`);
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      live.delete(id);
      if (guard !== null && guard.exitCode === null && guard.signalCode === null && guard.stdin?.writable)
        guard.stdin.write(`-${id}\n`);
    },
  };
}

/** The pid of the engine's guard while it runs, else `null` (for tests and diagnostics). */
export function guardPid(): number | null {
  return guard !== null && guard.exitCode === null && guard.signalCode === null ? (guard.pid ?? null) : null;
}
