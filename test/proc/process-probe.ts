/**
 * Helpers for tests that drive real child processes: is a pid gone, wait for a condition (bounded), and
 * clean up pids a failing test left behind.
 */
import { readFileSync } from "node:fs";

/**
 * True when `pid` no longer runs.
 *
 * `process.kill(pid, 0)` throwing ESRCH is the primary proof. A zombie also counts as gone: it has
 * exited and holds nothing but a process-table slot until its parent reaps it. That matters here because
 * a grandchild whose shell died is re-parented to PID 1, and in some containers (this sandbox's PID 1 is
 * not an init) nobody ever reaps it, so `kill(pid, 0)` keeps succeeding on a dead process. The zombie
 * state is read from `/proc/<pid>/stat` (Linux only; elsewhere only ESRCH counts).
 */
export function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
    throw error;
  }
  if (process.platform !== "linux") return false;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true; // vanished between the two checks
  }
  // Format: "pid (comm) S ..."; comm may itself contain ") ", so take the last one.
  const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
  return state === "Z" || state === "X";
}

/**
 * Polls `predicate` every 20 ms until it holds or `boundMs` passes; returns its last value. The bound only
 * stops a broken test from hanging; callers assert on the returned value, never on how long it took.
 */
export async function eventually(predicate: () => boolean, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (!predicate()) {
    if (Date.now() > deadline) return predicate();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** SIGKILLs every pid still running; for `afterEach`, so a failing test leaks no sleepers. */
export function killLeftovers(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Parses one pid per line as printed by `echo $!` / `echo $$`. */
export function parsePid(line: string): number {
  const pid = Number.parseInt(line.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 1)
    throw new Error(`Internal error: not a pid: ${JSON.stringify(line)}`);
  return pid;
}

/** A minimal child environment for tests that spawn `/bin/sh`, `sleep`, `cat` or node. */
export function minimalEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", ...extra };
}
