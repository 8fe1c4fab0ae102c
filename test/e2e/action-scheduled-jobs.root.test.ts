/**
 * No cron job of the separate user outlives its run (SECURITY.md "A separate user for PR code";
 * `src/proc/scheduled-jobs.ts`), on the bundle as the runner runs it (`node dist/index.js`; build first).
 * NEEDS ROOT: installs Debian's `cron` when it is missing (and `sudo`, as `action-isolate-user.root.test.ts`
 * does) and starts the cron daemon (`cron -f`) for the file, stopped by its id after it.
 *
 * The attack: on a self-hosted runner the verify command, as `evidence-gate-pr`, installs a crontab
 * (`crontab -`); the kill of every process of the user when the run ends does not stop cron from starting
 * new ones a minute later, and such a job wrote `~/.npmrc` into the next run's fresh home (same uid), which
 * turned the next pull request's failing build green. Here the user also already has a crontab when the run
 * starts (one left by an earlier run, before this fix: written into cron's spool as `crontab -` did). Each cron job touches `<markers>/<name>-<uid>`; the
 * test waits past the next minute, when cron would have started them, and no marker may be there.
 *
 * Run under the e2e lock (`flock /tmp/eg-e2e.lock npx vitest run <this file>`): it shares the user
 * `evidence-gate-pr` with every other `*.root.test.ts`.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionTestResources, stepDebug } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { ensureRunnerUser } from "../support/runner-user.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const USER = "evidence-gate-pr";
const CRON = "/usr/sbin/cron";
/** Debian cron's spool of user crontabs (cron(8)). */
const SPOOL = "/var/spool/cron/crontabs";
const open = actionTestResources();
let daemon: ChildProcess | undefined;

beforeAll(() => {
  if (!existsSync(CRON)) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const installed =
      spawnSync("apt-get", ["update", "-qq"], { env, stdio: "ignore" }).status === 0 &&
      spawnSync("apt-get", ["install", "-y", "-qq", "cron"], { env, stdio: "ignore" }).status === 0;
    if (!installed || !existsSync(CRON))
      throw new Error("cron is not installed and `apt-get install -y cron` failed: install it as root");
  }
  // One daemon is enough: a second one exits at once (its pid file is locked) and the first runs the jobs.
  daemon = spawn(CRON, ["-f"], { stdio: "ignore" });
}, 300_000);

afterAll(() => {
  if (daemon?.pid !== undefined && daemon.exitCode === null) process.kill(daemon.pid, "SIGKILL");
  spawnSync("crontab", ["-r", "-u", USER], { stdio: "ignore" });
});

type Owner = { readonly uid: number; readonly gid: number };

function folder(prefix: string, mode: number, owner?: Owner): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  open.dirs.push(dir);
  chmodSync(dir, mode);
  if (owner !== undefined) execFileSync("chown", [`${owner.uid}:${owner.gid}`, dir]);
  return dir;
}

/**
 * Puts `table` in cron's spool as the user's crontab, as `crontab -` would have before this fix (the file
 * itself: `crontab -u` refuses a user `/etc/cron.deny` lists, even for root), and marks the spool changed.
 */
function leftCrontab(table: string): void {
  const file = join(SPOOL, USER);
  writeFileSync(file, table, { mode: 0o600 });
  execFileSync("chown", [`${USER}:crontab`, file]);
  const now = new Date();
  utimesSync(SPOOL, now, now);
}

/** Waits until `seconds` past the next minute's start (cron starts `* * * * *` jobs at second 0). */
async function pastNextMinute(seconds: number): Promise<void> {
  const now = Date.now();
  const next = Math.ceil((now + 1) / 60_000) * 60_000;
  await new Promise((resolve) => setTimeout(resolve, next - now + seconds * 1000));
}

async function noCronJobAfterTheRun(owner?: Owner): Promise<void> {
  const markers = folder("eg-cron-markers-", 0o777);
  // A crontab the user has when the run starts (an earlier run's, before this fix).
  if (spawnSync("id", ["-u", USER]).status !== 0)
    execFileSync("useradd", ["--create-home", "--user-group", "--shell", "/bin/sh", USER]);
  leftCrontab(`* * * * * touch ${markers}/old-$(id -u)\n`);
  const repo = open.keep(await makeSampleNodeRepo());
  if (owner !== undefined) execFileSync("chown", ["-R", `${owner.uid}:${owner.gid}`, repo.dir]);
  const github = await startGitHubServer();
  open.github = github;
  const verify = [
    `printf '* * * * * touch ${markers}/new-$(id -u)\\n' | crontab - && touch ${markers}/did-crontab`,
    "crontab -l || true",
    "npm test",
  ].join("\n");
  const run = await open.run({
    workspace: repo.dir,
    inputs: { mode: "verify", "verify-cmd": verify, "isolate-user": "auto" },
    github,
    env: { RUNNER_TEMP: folder("eg-cron-temp-", 0o755, owner) },
    ...(owner !== undefined ? { runAs: owner } : {}),
  });
  expect(run.outputs.conclusion, stepDebug(run)).toBe("failure");
  // What cron started before the run's set-up removed the crontab does not count: only what comes after.
  for (const name of readdirSync(markers)) if (!name.startsWith("did-")) rmSync(join(markers, name));
  await pastNextMinute(5);
  expect(
    readdirSync(markers).filter((name) => !name.startsWith("did-")),
    `cron ran jobs of ${USER} after its run:\n${stepDebug(run)}`,
  ).toEqual([]);
  // The user has no crontab, and the verify command's `crontab -` was refused.
  expect(spawnSync("crontab", ["-l", "-u", USER]).status).not.toBe(0);
  expect(existsSync(join(markers, "did-crontab")), stepDebug(run)).toBe(false);
  expect(run.stdout, stepDebug(run)).toContain(`You (${USER}) are not allowed to use this program (crontab)`);
}

describe("cron jobs of the separate user", () => {
  it("as root: a crontab the user had is removed at the set-up, `crontab -` is refused, and no job starts after the run", async () => {
    await noCronJobAfterTheRun();
  }, 240_000);

  it("through sudo: the same, the action run by a runner-like user with passwordless sudo", async () => {
    await noCronJobAfterTheRun(ensureRunnerUser());
  }, 240_000);
});
