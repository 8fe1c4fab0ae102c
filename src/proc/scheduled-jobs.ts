/**
 * No scheduled job of the separate user outlives its run (SECURITY.md "A separate user for PR code"; the
 * attack: the verify command, as `evidence-gate-pr`, installed a crontab with `crontab -`; killing every
 * process of the user when the run ends does not stop cron from starting new ones later, and on a
 * self-hosted runner a cron job wrote `~/.npmrc` into the *next* run's fresh home — same uid — which turned
 * the next pull request's failing build green).
 *
 * At every set-up ({@link denyScheduledJobs}) the user is refused `crontab` and `at`, as cron(8)/crontab(1)
 * and at(1) read their access files: when `/etc/cron.allow` (`/etc/at.allow`) exists, only the users it
 * lists may use the tool, so the user's line is removed from it; otherwise the user's line is added to
 * `/etc/cron.deny` (`/etc/at.deny`), which is created when missing. Both are done whether or not cron or
 * at is installed (one installed later honours them). Then, at set-up and when the run ends
 * ({@link removeScheduledJobs}), a crontab and `at` jobs the user already has are removed (its file in cron's
 * spool, as `crontab -r -u` refuses a denied user even for root; `atq` + `atrm`), and where systemd runs, its lingering is switched off (`loginctl disable-linger`: no user
 * manager, so no `systemd-run --user` timer, starts without a login session, which the user never has).
 * Everything runs as root or through `sudo -n` with the system folders' `PATH` ({@link SYSTEM_TOOLS_ENV}).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ChildIdentity, privileged, SYSTEM_TOOLS_ENV } from "./child-identity.js";
import { findExecutable } from "./which.js";

type Via = Pick<ChildIdentity, "via">;

/** Where cron keeps user crontabs: Debian's cron (cron(8)), then cronie's. */
export const CRON_SPOOLS = ["/var/spool/cron/crontabs", "/var/spool/cron"] as const;

/** The access files of cron and at (cron(8), crontab(1), at(1) on Debian; cronie reads the same). */
export const SCHEDULER_ACCESS = [
  { tool: "crontab", allow: "/etc/cron.allow", deny: "/etc/cron.deny" },
  { tool: "at", allow: "/etc/at.allow", deny: "/etc/at.deny" },
] as const;

function run(via: Via, argv: readonly string[], input?: string) {
  const [file, ...args] = privileged(via, argv);
  return spawnSync(file as string, args, {
    encoding: "utf8",
    env: { ...SYSTEM_TOOLS_ENV },
    ...(input !== undefined ? { input } : {}),
  });
}

/** The first error line of a failed run, for a sentence. */
function why(done: ReturnType<typeof run>): string {
  return `exited ${done.status ?? done.signal}: ${(done.stderr ?? String(done.error ?? "")).trim().split("\n")[0] ?? ""}`;
}

/**
 * Refuses `user` cron and at (see the module comment).
 *
 * @returns a sentence per access file it could not change (the set-up must not go on: PR code could leave a
 *   job that runs in a later run), empty when all held.
 */
export function denyScheduledJobs(via: Via, user: string): string[] {
  const problems: string[] = [];
  const line = `^${user.replace(/[.]/g, "\\.")}$`;
  for (const access of SCHEDULER_ACCESS) {
    if (existsSync(access.allow)) {
      const removed = run(via, ["sed", "-i", `/${line}/d`, access.allow]);
      if (removed.status !== 0)
        problems.push(`could not remove ${user} from ${access.allow} (sed ${why(removed)})`);
      continue;
    }
    // grep: 0 listed, 1 not listed, 2 no such file (then tee -a creates it).
    if (run(via, ["grep", "-qx", user, access.deny]).status === 0) continue;
    const added = run(via, ["tee", "-a", access.deny], `${user}\n`);
    if (added.status !== 0) problems.push(`could not add ${user} to ${access.deny} (tee ${why(added)})`);
  }
  return problems;
}

/**
 * Removes `user`'s crontab and `at` jobs and switches its systemd lingering off, where each tool is
 * installed (see the module comment). Never throws.
 *
 * @returns what it removed, one phrase each (empty when the user had nothing scheduled), and a sentence per
 *   removal that failed.
 */
export function removeScheduledJobs(via: Via, user: string): { removed: string[]; problems: string[] } {
  const removed: string[] = [];
  const problems: string[] = [];
  const has = (tool: string) => findExecutable(tool, SYSTEM_TOOLS_ENV.PATH) !== null;
  // The spool file itself: `crontab -r -u` refuses a user cron.deny lists, even for root. Touching the
  // spool folder makes cron re-read it at its next minute.
  for (const spool of CRON_SPOOLS) {
    const file = join(spool, user);
    if (run(via, ["test", "-e", file]).status !== 0) continue;
    const done = run(via, ["rm", "-f", file]);
    if (done.status === 0 && run(via, ["touch", spool]).status === 0) removed.push("its crontab");
    else problems.push(`could not remove the crontab of ${user} (${file}: rm ${why(done)})`);
  }
  if (has("atq") && has("atrm")) {
    // As root, atq lists every user's jobs: "<id>\t<date> <queue> <user>".
    const jobs = (run(via, ["atq"]).stdout ?? "")
      .split("\n")
      .map((entry) => entry.trim().split(/\s+/))
      .filter((fields) => fields.length > 1 && fields.at(-1) === user && /^\d+$/.test(fields[0] ?? ""))
      .map((fields) => fields[0] as string);
    if (jobs.length > 0) {
      const done = run(via, ["atrm", ...jobs]);
      if (done.status === 0) removed.push(`${jobs.length} at job${jobs.length === 1 ? "" : "s"}`);
      else problems.push(`could not remove the at jobs of ${user} (atrm ${why(done)})`);
    }
  }
  if (existsSync("/run/systemd/system") && has("loginctl")) {
    const lingering = run(via, ["loginctl", "show-user", user, "--property=Linger"]).stdout ?? "";
    if (/Linger=yes/.test(lingering)) {
      const done = run(via, ["loginctl", "disable-linger", user]);
      if (done.status === 0) removed.push("its systemd lingering");
      else problems.push(`could not switch systemd lingering off for ${user} (loginctl ${why(done)})`);
    }
  }
  return { removed, problems };
}
