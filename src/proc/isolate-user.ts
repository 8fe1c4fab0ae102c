/**
 * Setting up the separate user PR code runs as (input `isolate-user`; issue 12 item 3; SECURITY.md "A
 * separate user for PR code"). Linux only, and only with privileges: the engine is root (it switches with
 * `setpriv`), or `sudo -n true` succeeds (GitHub-hosted runners: passwordless sudo).
 *
 * Set-up, each step idempotent (a second run on the same runner finds the user and the modes in place):
 * 1. the user `evidence-gate-pr` is created when `id -u` does not know it (`useradd --create-home
 *    --user-group --shell /bin/sh`), and read back from `getent passwd`;
 * 2. the workspace is made writable for it and nothing else of the runner's: its group becomes the user's
 *    group (`chgrp -R`), group read/write is added (`chmod -R g+rwX`, owners unchanged, so the runner's user
 *    can still clean it) and its folders get the setgid bit (new files keep the group); each folder above
 *    it that others cannot traverse gets `o+x` (traverse, not list: named in the notice);
 * 3. each of `privateDirs` (the run directories) becomes mode 0700, so the user cannot read `state.json`;
 * 4. every process of the user is killed, what it left in `/tmp`, `/var/tmp` and `/dev/shm` is removed, its
 *    login home is emptied and locked, and the run gets a fresh home, temp folder and caches (`run-home.ts`;
 *    issue 21 item 3), removed (and the shared temporary folders swept again) when the run ends;
 * 5. the user is refused cron and at, and a crontab or at job it has is removed (`scheduled-jobs.ts`).
 * When no PR code runs any more, what the user made goes back to the engine's user (`hand-back.ts`).
 * What it then can and cannot read is measured in `test/proc/isolate-user.root.test.ts` (SECURITY.md).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ChildIdentity } from "./child-identity.js";
import { privileged, SYSTEM_TOOLS_ENV } from "./child-identity.js";
import { killUserProcesses } from "./leftovers.js";
import {
  lockLoginHome,
  makeRunHome,
  type RunHome,
  SHARED_TEMP_DIRS,
  type SharedCache,
  sweepSharedTemp,
} from "./run-home.js";
import { denyScheduledJobs, removeScheduledJobs } from "./scheduled-jobs.js";
import { findExecutable } from "./which.js";

/** Input `isolate-user`: `auto` (on where it can be set up), `true` (required), `false` (off). */
export type IsolateSetting = "auto" | "true" | "false";

/** The user's login name. */
export const ISOLATED_USER = "evidence-gate-pr";

/** What the set-up came to, with the one line the summary and the log show. */
export type Isolation =
  | {
      readonly kind: "on";
      readonly identity: ChildIdentity;
      /** The run's fresh home, temp folder and caches (remove it with `removeRunHome` when the run ends). */
      readonly runHome: RunHome;
      readonly note: string;
    }
  | {
      readonly kind: "off";
      /** `true` when `isolate-user: true` asked for it: the run must not go on. */
      readonly required: boolean;
      readonly note: string;
    };

export interface IsolationOptions {
  readonly setting: IsolateSetting;
  /** The checkout (`GITHUB_WORKSPACE`): made writable for the user. */
  readonly workspace: string;
  /** Folders the user must not read (the run directories): made mode 0700. */
  readonly privateDirs: readonly string[];
  /** Where the run's fresh home is made (`<RUNNER_TEMP>/evidence-gate`: outside the workspace). */
  readonly runHomeParent: string;
  /** Input `pr-user-cache`: the shared caches kept between runs (`run-home.ts`); default none. */
  readonly sharedCaches?: readonly SharedCache[];
  /** The run's environment (unused for the privileged tools, which run with `SYSTEM_TOOLS_ENV`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Default `process.platform`, `process.getuid()`, {@link ISOLATED_USER}: tests only. */
  readonly platform?: NodeJS.Platform;
  readonly uid?: number;
  readonly user?: string;
  /**
   * The `sudo` the engine's user would run for the `sudo -n true` probe (default `sudo` on the system
   * folders' `PATH`): tests only, e.g. `/bin/false` for a runner without passwordless sudo on a machine
   * where the test itself (root) has it.
   */
  readonly sudo?: string;
}

/** What does not hold without the user (the notice's second half). */
const WITHOUT =
  "the verify command and the model CLIs run as the runner's own user, so PR code can read the action's process memory, the run directory (state.json) and RUNNER_TEMP, and write the job's file-command files (SECURITY.md, known limits); the verify command's HOME, TMPDIR and caches are the runner's own, which a self-hosted runner keeps for the next job's build (only the model CLIs get a fresh HOME); leftover processes are still killed when each command ends";

/** Sets up the user (see the module comment), or says why not. Never throws. */
export function setUpIsolation(o: IsolationOptions): Isolation {
  if (o.setting === "false") {
    return { kind: "off", required: false, note: `isolate-user is false: ${WITHOUT}.` };
  }
  const reason = trySetUp(o);
  if (typeof reason !== "string") return reason;
  return {
    kind: "off",
    required: o.setting === "true",
    note: `isolate-user could not be set up (${reason}): ${WITHOUT}.`,
  };
}

type Run = (argv: readonly string[]) => { readonly ok: boolean; readonly out: string; readonly err: string };

function runner(via: ChildIdentity["via"]): Run {
  return (argv) => {
    const [file, ...args] = privileged({ via }, argv);
    const result = spawnSync(file as string, args, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
    return {
      ok: result.status === 0,
      out: result.stdout ?? "",
      err: (result.stderr ?? String(result.error ?? "")).trim().split("\n")[0] ?? "",
    };
  };
}

/** The set-up's steps; a string is why it could not be done. */
function trySetUp(o: IsolationOptions): Isolation | string {
  if ((o.platform ?? process.platform) !== "linux") return "it needs Linux";
  const uid = o.uid ?? process.getuid?.() ?? -1;
  const via: ChildIdentity["via"] | null =
    uid === 0
      ? "root"
      : spawnSync(o.sudo ?? "sudo", ["-n", "true"], { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } })
            .status === 0
        ? "sudo"
        : null;
  if (via === null) return "the action is not root and `sudo -n true` failed: no passwordless sudo";
  // From the system folders only: a `setpriv` an earlier step put on PATH must not run as root.
  const setpriv = findExecutable("setpriv", SYSTEM_TOOLS_ENV.PATH);
  if (via === "root" && setpriv === null) return "setpriv (util-linux) is not installed";
  const run = runner(via);
  const user = o.user ?? ISOLATED_USER;
  if (!run(["id", "-u", user]).ok) {
    const made = run(["useradd", "--create-home", "--user-group", "--shell", "/bin/sh", user]);
    if (!made.ok) return `useradd ${user} failed: ${made.err}`;
  }
  const entry = run(["getent", "passwd", user]);
  const fields = entry.out.trim().split(":");
  const [userUid, userGid, home] = [Number(fields[2]), Number(fields[3]), fields[5] ?? ""];
  if (!entry.ok || !Number.isInteger(userUid) || !Number.isInteger(userGid) || home === "")
    return `getent passwd ${user} gave no uid, gid and home`;
  if (userUid === 0) return `user ${user} is uid 0`;
  // No cron or at job of the user may start anything after its run (`scheduled-jobs.ts`).
  const scheduling = denyScheduledJobs({ via }, user);
  const left = removeScheduledJobs({ via }, user);
  if (scheduling.length + left.problems.length > 0) return [...scheduling, ...left.problems].join("; ");
  const workspace = resolve(o.workspace);
  for (const step of [
    ["chgrp", "-R", String(userGid), workspace],
    ["chmod", "-R", "g+rwX", workspace],
    ["find", workspace, "-type", "d", "-exec", "chmod", "g+s", "{}", "+"],
  ]) {
    const done = run(step);
    if (!done.ok) return `${step[0]} on the workspace failed: ${done.err}`;
  }
  const opened: string[] = [];
  for (let dir = dirname(workspace); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      if (!run(["chmod", "o+x", dir]).ok) return `chmod o+x ${dir} failed`;
      opened.push(dir);
    }
    if (dirname(dir) === dir) break;
  }
  for (const dir of o.privateDirs) {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o700);
  }
  const base: ChildIdentity = {
    user,
    uid: userUid,
    gid: userGid,
    home,
    via,
    setpriv: setpriv ?? "/usr/bin/setpriv",
  };
  // Nothing of the user may outlive a run into this one (a fork chain that survived an earlier run's kills
  // wrote into the next run's fresh home): every process of the user is killed before anything is made.
  const survivors = killUserProcesses(base);
  // Nor anything it left in /tmp, /var/tmp or /dev/shm since (a file written after the last run's sweep).
  const unswept = sweepSharedTemp(base, { keep: [workspace, ...o.privateDirs, o.runHomeParent] });
  const locked = lockLoginHome(base, home);
  if (locked !== null) return locked;
  let runHome: RunHome;
  try {
    runHome = makeRunHome(base, o.runHomeParent, o.sharedCaches ?? []);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const identity: ChildIdentity = { ...base, home: runHome.home, runEnv: runHome.env };
  const traverse = opened.length > 0 ? `; others may now traverse (not list) ${opened.join(", ")}` : "";
  const shared =
    runHome.sharedCaches.length > 0
      ? ` Shared caches (pr-user-cache): ${runHome.sharedCaches.map((c) => `${c.name} in ${c.path}`).join(", ")}, kept between runs: what one pull request's build writes there, the next one's reads.`
      : "";
  const killedFirst =
    survivors > 0
      ? ` ${survivors} process${survivors === 1 ? "" : "es"} of ${user} left from before this run ${survivors === 1 ? "was" : "were"} killed first.`
      : "";
  const sweepProblems = unswept.length > 0 ? ` Before this run: ${unswept.join("; ")}.` : "";
  return {
    kind: "on",
    identity,
    runHome,
    note: `isolate-user: the verify command and the model CLIs run as ${user} (uid ${userUid}, switched ${via === "root" ? "with setpriv" : "through sudo -n"}), which can write the workspace and cannot read the run directory or the action's processes${traverse}; its HOME, TMPDIR and caches are fresh for this run (${runHome.root}, removed when the run ends; its login home ${home} is emptied and not writable); every process of ${user} is killed when the run ends, what it made is handed back to the runner's user, and what it left in ${SHARED_TEMP_DIRS.join(", ")} is removed.${shared}${killedFirst}${sweepProblems}`,
  };
}
