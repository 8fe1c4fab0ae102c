/**
 * Killing what PR code left behind (issue 12 item 4: "every process the PR code started is gone when its
 * step ends"). Two mechanisms, by what the machine allows:
 *
 * - **With the separate user** (`child-identity.ts`): every process of that user, whatever it did
 *   (`setsid`, a double fork, a cleared environment), is killed with `pkill -KILL -u <user>` when the
 *   step's run ends ({@link killUserProcesses}).
 * - **Without it**, per child ({@link killMarked}): the exec seam gives each PR-code child a marker
 *   variable (`EVIDENCE_GATE_SPAWN=<random id>`) that its descendants inherit, and when the child settles
 *   it kills every process whose `/proc/<pid>/environ` holds that marker, plus every process still in the
 *   child's session (`/proc/<pid>/stat` field 6). That reaches `setsid` and double-forked descendants,
 *   which the process-group kill does not. It is a best effort: a descendant that re-executes itself with
 *   a cleared environment *and* leaves the session escapes it. Linux's `PR_SET_CHILD_SUBREAPER` is not
 *   reachable from Node without a native addon, and a cgroup v2 subtree is not writable for the runner's
 *   user on GitHub-hosted runners (nor here: cgroup v1), so neither is used.
 *
 * Both repeat until a scan finds nothing (a process may fork while it is being killed), at most
 * {@link MAX_ROUNDS} times. Linux only; elsewhere they find nothing.
 *
 * Where the engine is not root and switches to the user through `sudo` (GitHub-hosted runners), the
 * engine's user can neither read the user's `/proc/<pid>/environ` nor signal its processes (another
 * user's): {@link killMarked} then reads the markers and kills through `sudo -n` ({@link signalAs}), as
 * `test/e2e/action-isolate-sudo.root.test.ts` measured (a plain `kill` got EPERM and the process lived on).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { type ChildIdentity, privileged, SYSTEM_TOOLS_ENV } from "./child-identity.js";

/** The variable the exec seam marks a PR-code child's tree with. Not a secret. */
export const SPAWN_MARKER = "EVIDENCE_GATE_SPAWN";

const MAX_ROUNDS = 5;

/** What `/proc/<pid>/stat` says of a live process: its session id and its start time. */
interface ProcStat {
  /** Field 5. */
  readonly group: number;
  /** Field 6. */
  readonly session: number;
  /** Field 22: clock ticks after boot (`USER_HZ`). Only compared with another process's. */
  readonly startTicks: number;
}

/**
 * `/proc/<pid>/stat` of a live `pid`, or `null` when it is gone, unreadable or a zombie (already dead,
 * waiting for its parent).
 */
function statOf(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (the command) is parenthesised and may hold spaces: count from the last ')'. The slice
    // starts at field 3, so field N is index N - 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z"
      ? null
      : { group: Number(fields[2]), session: Number(fields[3]), startTicks: Number(fields[19]) };
  } catch {
    return null;
  }
}

function sessionOf(pid: number): number | null {
  return statOf(pid)?.session ?? null;
}

/**
 * The start time of a live `pid` (`/proc/<pid>/stat` field 22, clock ticks after boot), or `null` off
 * Linux or when it is already gone. Read by the exec seam right after a spawn, so {@link killMarked} looks
 * only at processes that started since.
 */
export function startTicksOf(pid: number): number | null {
  return statOf(pid)?.startTicks ?? null;
}

function holdsMarker(pid: number, needle: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(needle);
  } catch {
    return false;
  }
}

function processIds(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

/** The uid owning `/proc/<pid>` (the process's effective user), or `null` when it is gone. */
function ownerOf(pid: number): number | null {
  try {
    return statSync(`/proc/${pid}`).uid;
  } catch {
    return null;
  }
}

/** Whether signals to processes of `identity`'s user must go through `sudo -n` (the engine is not root). */
function throughSudo(identity: Pick<ChildIdentity, "via"> | null): boolean {
  return identity?.via === "sudo" && process.getuid?.() !== 0;
}

/**
 * Sends `signal` to each of `targets` (pids; a negative number is a process group) where the child runs as
 * `identity` (`null`: the engine's own user). With `via: "sudo"` and an engine that is not root the engine
 * cannot signal another user's processes (EPERM, silently), so it runs `sudo -n kill -s <SIG> -- <targets>`
 * (with {@link SYSTEM_TOOLS_ENV}); otherwise `process.kill`. A target already gone is no error. Never throws.
 */
export function signalAs(
  identity: Pick<ChildIdentity, "via"> | null,
  targets: readonly number[],
  signal: NodeJS.Signals,
): void {
  if (targets.length === 0) return;
  if (throughSudo(identity)) {
    // A `sudo` costs a process start: none for targets already gone (a settled child's empty group).
    const live = new Set(processIds().flatMap((pid) => [pid, -(statOf(pid)?.group ?? 0)]));
    targets = targets.filter((target) => live.has(target));
    if (targets.length === 0) return;
    const [file, ...args] = privileged({ via: "sudo" }, [
      "kill",
      "-s",
      signal.replace(/^SIG/, ""),
      "--",
      ...targets.map(String),
    ]);
    spawnSync(file as string, args, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
    return;
  }
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
      // ESRCH: already gone.
    }
  }
}

/**
 * Of `pids` (processes of the user, whose environment the engine's user cannot read), those whose
 * environment holds `needle`, read through `sudo -n grep -lzxF` (each `/proc/<pid>/environ` is a list of
 * NUL-ended `NAME=value` records; `-x` matches a whole record). A process gone meanwhile is skipped.
 */
function markedThroughSudo(pids: readonly number[], needle: string): number[] {
  if (pids.length === 0) return [];
  const [file, ...args] = privileged({ via: "sudo" }, [
    "grep",
    "-lzxF",
    "-e",
    needle,
    "--",
    ...pids.map((pid) => `/proc/${pid}/environ`),
  ]);
  const listed = spawnSync(file as string, args, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
  return (listed.stdout ?? "")
    .split("\n")
    .map((line) => /^\/proc\/(\d+)\/environ$/.exec(line.trim())?.[1])
    .filter((pid): pid is string => pid !== undefined)
    .map(Number);
}

/**
 * Kills (SIGKILL) every process marked with `marker` or still in session `session`.
 *
 * `sinceTicks` is the child's own start time ({@link startTicksOf}): a descendant cannot have started
 * before it, so an older process is not looked at. Without it every live process's environment was read
 * once per settled child (bench B1: the larger part of the engine's time between nodes on a busy machine);
 * `null` (unknown) looks at every process.
 *
 * `identity` is the user the child ran as (`null`: the engine's own): through `sudo`, the user's processes
 * outside the session have their markers read, and everything found is killed, with `sudo -n` (the
 * module comment).
 *
 * @returns the pids killed (each counted once), empty when nothing was left.
 */
export function killMarked(
  marker: string,
  session: number | null,
  sinceTicks: number | null = null,
  identity: Pick<ChildIdentity, "via" | "uid"> | null = null,
): number[] {
  const needle = `${SPAWN_MARKER}=${marker}`;
  const sudo = throughSudo(identity);
  const killed = new Set<number>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const candidates = processIds().filter((pid) => {
      const stat = statOf(pid);
      return stat !== null && (sinceTicks === null || stat.startTicks >= sinceTicks);
    });
    const found = candidates.filter(
      (pid) => (session !== null && sessionOf(pid) === session) || holdsMarker(pid, needle),
    );
    if (sudo && identity !== null) {
      const unread = candidates.filter((pid) => !found.includes(pid) && ownerOf(pid) === identity.uid);
      found.push(...markedThroughSudo(unread, needle));
    }
    if (found.length === 0) break;
    if (sudo) {
      signalAs(identity, found, "SIGKILL");
      for (const pid of found) killed.add(pid);
      continue;
    }
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
        killed.add(pid);
      } catch {
        // ESRCH: it ended on its own.
      }
    }
  }
  return [...killed];
}

/**
 * `kill(-1, SIGKILL)` sent **as the user**: the kernel signals every process that user may signal — all of
 * its own — in one pass under the task-list lock, so a fork chain (each process forks its successor and
 * exits at once) cannot outrun it the way it outruns a `pgrep` list followed by `pkill` (an attack kept
 * 39–94 such processes alive through five `pgrep`/`pkill` rounds, and they planted a `~/.npmrc` into the
 * next run's fresh home). The shell that sends it is the user's too and is spared by the kernel (the
 * sender's own process is), then exits. Source: kill(2), "If pid equals -1, then sig is sent to every
 * process for which the calling process has permission to send signals, except for process 1 (init)".
 */
function killAllAsUser(identity: ChildIdentity): void {
  // dash's builtin: `kill -9 -1` (it reads `-s KILL -1` and `-- -1` as bad options).
  const send = ["/bin/sh", "-c", "kill -9 -1"];
  const argv =
    identity.via === "root"
      ? [identity.setpriv, `--reuid=${identity.uid}`, `--regid=${identity.gid}`, "--clear-groups", ...send]
      : ["sudo", "-n", "-u", identity.user, ...send];
  spawnSync(argv[0] as string, argv.slice(1), { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
}

/**
 * Kills every process of `identity`'s user: `kill(-1, SIGKILL)` as the user ({@link killAllAsUser}), then
 * `pkill -KILL -u` (with `sudo -n` unless the engine is root) for anything left, until `pgrep` finds none
 * or {@link MAX_ROUNDS} rounds passed.
 *
 * @returns how many processes were found and killed (0: the user ran nothing any more).
 */
export function killUserProcesses(identity: ChildIdentity): number {
  let killed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const [pgrep, ...pgrepArgs] = privileged(identity, ["pgrep", "-u", String(identity.uid)]);
    const listed = spawnSync(pgrep as string, pgrepArgs, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
    // A zombie is dead already (where PID 1 does not reap, as in some containers, it stays listed).
    const pids = (listed.stdout ?? "")
      .split("\n")
      .filter((line) => /^\d+$/.test(line.trim()) && sessionOf(Number(line)) !== null);
    if (pids.length === 0) break;
    killAllAsUser(identity);
    const [pkill, ...pkillArgs] = privileged(identity, ["pkill", "-KILL", "-u", String(identity.uid)]);
    spawnSync(pkill as string, pkillArgs, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
    killed += pids.length;
    awaitGone(pids.map(Number));
  }
  return killed;
}

/** How long {@link awaitGone} waits for killed processes to finish dying, in milliseconds. */
const DYING_WAIT_MS = 2000;

/**
 * Blocks until none of `pids` is alive (gone or a zombie: {@link statOf}) or {@link DYING_WAIT_MS} passed,
 * polling every 10 ms. A process sent SIGKILL is still listed (by `pgrep`, by `ps`) while the kernel tears
 * it down; a large one can take tens of milliseconds, so without the wait a run could end, and the next
 * round count it again, while it is still there (seen in the fork-chain e2e test as root).
 */
function awaitGone(pids: readonly number[]): void {
  const end = Date.now() + DYING_WAIT_MS;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some((pid) => statOf(pid) !== null) && Date.now() < end) Atomics.wait(tick, 0, 0, 10);
}
