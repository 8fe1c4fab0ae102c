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
const markerDirs: string[] = [];

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
  for (const dir of markerDirs) rmSync(dir, { recursive: true, force: true });
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

/** One run of the action whose verify command tries `crontab -`, and what it left: checked after a cron tick. */
interface CronRun {
  readonly run: Awaited<ReturnType<typeof open.run>>;
  /** Where the user's cron jobs (the one it had, the one it tried to add) touch their markers. */
  readonly markers: string;
  /** `crontab -l -u evidence-gate-pr`'s exit status right after the run (before the next run's set-up). */
  readonly crontabListStatus: number | null;
}

/**
 * Leaves the user a crontab, runs the action (as root, or as `owner` through sudo) with a verify command
 * that tries `crontab -`, and removes the markers of what cron started before the run's set-up removed the
 * crontab: from here on only a job started after the run can leave one.
 */
async function runWithCrontab(owner?: Owner): Promise<CronRun> {
  // Not in `open.dirs` (removed after each test): read by a later test, removed after the file.
  const markers = mkdtempSync(join(tmpdir(), "eg-cron-markers-"));
  markerDirs.push(markers);
  chmodSync(markers, 0o777);
  // A crontab the user has when the run starts (an earlier run's, before this fix).
  if (spawnSync("id", ["-u", USER]).status !== 0)
    execFileSync("useradd", ["--create-home", "--user-group", "--shell", "/bin/sh", USER]);
  leftCrontab(`* * * * * touch ${markers}/old-$(id -u)\n`);
  const repo = open.keep(await makeSampleNodeRepo());
  if (owner !== undefined) execFileSync("chown", ["-R", `${owner.uid}:${owner.gid}`, repo.dir]);
  const github = await startGitHubServer();
  await open.github?.close();
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
  const crontabListStatus = spawnSync("crontab", ["-l", "-u", USER]).status;
  // What cron started before the run's set-up removed the crontab does not count: only what comes after.
  for (const name of readdirSync(markers)) if (!name.startsWith("did-")) rmSync(join(markers, name));
  return { run, markers, crontabListStatus };
}

/** What `cron` did after `r`'s run, read after a cron tick past both runs. */
function noCronJobAfterTheRun(r: CronRun): void {
  const { run, markers } = r;
  expect(run.outputs.conclusion, stepDebug(run)).toBe("failure");
  expect(
    readdirSync(markers).filter((name) => !name.startsWith("did-")),
    `cron ran jobs of ${USER} after its run:\n${stepDebug(run)}`,
  ).toEqual([]);
  // The user had no crontab when the run ended, and the verify command's `crontab -` was refused.
  expect(r.crontabListStatus).not.toBe(0);
  expect(existsSync(join(markers, "did-crontab")), stepDebug(run)).toBe(false);
  expect(run.stdout, stepDebug(run)).toContain(`You (${USER}) are not allowed to use this program (crontab)`);
}

describe("cron jobs of the separate user", () => {
  // Both runs first, then one wait past the next minute for both (cron starts jobs once a minute: a wait
  // per run cost 35 s on average each). The second run's set-up writes the user's crontab again, so the
  // first run's end state is read before it (`crontab -l`); its markers are still watched through the tick.
  let runs: { asRoot: CronRun; throughSudo: CronRun } | undefined;
  beforeAll(async () => {
    const asRoot = await runWithCrontab();
    const throughSudo = await runWithCrontab(ensureRunnerUser());
    await pastNextMinute(5);
    runs = { asRoot, throughSudo };
  }, 360_000);

  it("as root: a crontab the user had is removed at the set-up, `crontab -` is refused, and no job starts after the run", () => {
    noCronJobAfterTheRun(runs!.asRoot);
  });

  it("through sudo: the same, the action run by a runner-like user with passwordless sudo", () => {
    noCronJobAfterTheRun(runs!.throughSudo);
  });
});
