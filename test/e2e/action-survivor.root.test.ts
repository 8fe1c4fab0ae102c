/**
 * Found by an attack (issue 21, the fresh home per run): one pull request's verify command leaves a fork
 * chain (as evidence-gate-pr: each process forks its successor and exits at once) that outran the run's
 * `pgrep`/`pkill` rounds; the next run's set-up killed nothing, so a survivor wrote `script-shell=/bin/true`
 * into the NEXT run's fresh HOME (owned by the same uid) and the next pull request's failing `npm test` was
 * posted `success`. Now the user's processes are killed with `kill(-1)` sent as the user — at the end of a
 * run and before the next one makes anything. The chains end by themselves after LIFETIME seconds, so a
 * regression cannot leave them running. NEEDS ROOT (CI runs as root); run under the e2e lock.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { actionTestResources, completion } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { ensureRunnerUser } from "../support/runner-user.js";
import { makeFixedSampleRepo, makeSampleNodeRepo } from "../support/temp-repo.js";

const LIFETIME = 40;
const open = actionTestResources();

function dirOf(owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-attack-"));
  open.dirs.push(dir);
  chmodSync(dir, 0o755);
  if (owner) execFileSync("chown", [`${owner.uid}:${owner.gid}`, dir]);
  return dir;
}

/** Live processes of evidence-gate-pr (a zombie is dead already, waiting for PID 1 to reap it). */
const prProcs = () =>
  (spawnSync("ps", ["-u", "evidence-gate-pr", "-o", "pid=,stat="], { encoding: "utf8" }).stdout ?? "")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, stat]) => pid !== undefined && pid !== "" && !stat?.startsWith("Z"))
    .map(([pid]) => pid as string);

async function attack(runAs?: { uid: number; gid: number }) {
  const temp = dirOf(runAs); // RUNNER_TEMP, the same for both jobs (a self-hosted runner's _work/_temp)
  const planter = `for my $h (glob("${temp}/evidence-gate/pr-user-*/home")) { if (open(my $f, ">", "$h/.npmrc")) { print $f "script-shell=/bin/true\\n"; close $f } }`;
  const chain = [
    "#!/bin/sh",
    `setsid perl -e 'my $end=time()+${LIFETIME}; for (1..60) { if (!fork) { while (time() < $end) { my $p = fork; next unless defined $p; exit 0 if $p; if (rand() < 0.05) { ${planter} } } exit 0 } } exit 0' </dev/null >/dev/null 2>&1 &`,
    "sleep 1",
    "npm test",
    "",
  ].join("\n");
  const attacker = open.keep(await makeFixedSampleRepo("attacker", { "chain.sh": chain }));
  const victim = open.keep(await makeSampleNodeRepo()); // its npm test fails
  for (const r of runAs ? [attacker, victim] : [])
    execFileSync("chown", ["-R", `${runAs!.uid}:${runAs!.gid}`, r.dir]);
  const github = await startGitHubServer();
  open.github = github;
  const first = await open.run({
    workspace: attacker.dir,
    inputs: { mode: "verify", "verify-cmd": "sh chain.sh", "isolate-user": "auto" },
    github,
    env: { RUNNER_TEMP: temp },
    ...(runAs ? { runAs } : {}),
  });
  expect(first.outputs.conclusion).toBe("success");
  // Nothing of the user outlives the run: checked at once, and again after the chains' usual step.
  expect(prProcs(), "processes of evidence-gate-pr alive after the run").toEqual([]);
  await new Promise((r) => setTimeout(r, 1500));
  expect(prProcs()).toEqual([]);
  const second = await open.run({
    workspace: victim.dir,
    inputs: { mode: "verify", "verify-cmd": "npm test", "isolate-user": "auto" },
    github,
    env: { RUNNER_TEMP: temp },
    ...(runAs ? { runAs } : {}),
  });
  expect(second.outputs.conclusion, "the victim's failing build").toBe("failure");
  expect(completion(second)?.conclusion).toBe("failure");
}

describe("a fork chain left by one run's verify command dies with the run and cannot reach the next run", () => {
  it("as root", async () => {
    await attack();
  }, 300_000);
  describe("through sudo", () => {
    let runner: { uid: number; gid: number };
    beforeAll(() => {
      runner = ensureRunnerUser();
    });
    it("as a runner-like user with passwordless sudo", async () => {
      await attack(runner);
    }, 300_000);
  });
});
