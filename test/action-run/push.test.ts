/**
 * `push: true` (SPEC §10 "Push", §11; ADR 0008), in-process (test/support/action-in-process.ts): the
 * action's `runAction` with the model calls played by the scripted stand-in, the OpenAPI-validating GitHub
 * API double, and the "PR branch" in a real bare repository served by `git http-backend` on loopback
 * (`GITHUB_SERVER_URL`), which refuses any request without the push token (test/support/scenarios/
 * push-world.ts). The push decisions moved here from test/e2e/action-push.test.ts (issue 24): a push the
 * remote rejects, no push without verified evidence, nothing fetched or pushed on a fork's pull request,
 * and the loop guard. The e2e file keeps the real runs: the main push and mode run's (whose agent
 * configuration from the base needs the real CLI's hooks).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { actionInProcessResources } from "../support/action-in-process.js";
import { checkRunWrites, stepDebug, TEST_REPOSITORY } from "../support/action-step.js";
import type { GitHttpServer } from "../support/git-http-server.js";
import { MARKS } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { BRANCH, makePushWorld, PUSH_TOKEN, type PushWorld } from "../support/scenarios/push-world.js";
import { commitAll, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;

const open = actionInProcessResources();
const servers: GitHttpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function scratch(): string {
  return open.dir(mkdtempSync(join(tmpdir(), "eg-push-")));
}

/** {@link makePushWorld}, its repositories and git server removed after the test. */
function world(o: Parameters<typeof makePushWorld>[1] = {}): Promise<PushWorld> {
  return makePushWorld({ repo: open.keep, server: (s) => servers.push(s) }, o);
}

/** Runs the action in push mode on `w`, with a verify command that also records its environment in `verifyEnv`. */
async function runPush(w: PushWorld, verifyEnv: string) {
  const github = await open.github();
  const result = await open.run({
    workspace: w.workspace.dir,
    inputs: {
      goal: GOAL,
      "verify-cmd": `env > '${verifyEnv}' && npm test`,
      push: "true",
      "push-token": PUSH_TOKEN,
    },
    github,
    plays: fixSumPlays(),
    headSha: w.headSha,
    baseSha: w.baseSha,
    githubSha: w.mergeSha,
    env: { GITHUB_SERVER_URL: w.git.url },
  });
  return { result, github };
}

describe("action (in-process) push: true (SPEC §10)", () => {
  it("a push the remote rejects (the branch moved during the run) fails the run on the old head's check run, naming the refusal; nothing is pushed", async () => {
    const w = await world({ mergeCheckout: false });
    // Someone pushes on top of the PR head after the checkout.
    await w.source.git(["checkout", "--quiet", "--detach", w.headSha]);
    await w.source.write("theirs.txt", "pushed meanwhile\n");
    const theirs = await commitAll(w.source, "theirs");
    await w.source.git([
      "push",
      "--quiet",
      join(w.git.root, `${TEST_REPOSITORY}.git`),
      `${theirs}:refs/heads/${BRANCH}`,
    ]);

    const { result, github } = await runPush(w, join(scratch(), "verify-env"));

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    expect(result.outputs["pushed-sha"]).toBeUndefined();
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(theirs);
    expect(github.state.checkRuns).toHaveLength(1);
    const check = github.state.checkRuns[0]!;
    expect(check).toMatchObject({ headSha: w.headSha, status: "completed", conclusion: "failure" });
    expect(check.output.title).toBe("Failed: the push to the pull request branch was refused");
    expect(check.output.summary).toContain("stale info");
    expect(check.output.summary).toContain("patch.diff");
    github.assertNoViolations();
  });

  it("a run without verified evidence (accept-no-build-evidence) does not push its changes: neutral on the PR head, the patch kept with the reason", async () => {
    const w = await world({ mergeCheckout: false });
    const github = await open.github();

    const result = await open.run({
      workspace: w.workspace.dir,
      inputs: { goal: GOAL, "accept-no-build-evidence": "true", push: "true", "push-token": PUSH_TOKEN },
      github,
      plays: fixSumPlays(),
      headSha: w.headSha,
      baseSha: w.baseSha,
      env: { GITHUB_SERVER_URL: w.git.url },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "neutral" });
    expect(result.outputs["pushed-sha"]).toBeUndefined();
    expect(w.git.requests.filter((r) => r.url.includes("receive-pack"))).toEqual([]);
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(w.headSha);
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ headSha: w.headSha, conclusion: "neutral" });
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8")) as {
      patch?: { notCommittedBecause?: string };
    };
    expect(ledger.patch?.notCommittedBecause).toBe(
      "push mode pushes only changes verified on the pushed tree (a success), and this run's evidence would end neutral",
    );
    github.assertNoViolations();
  });

  it("on a fork's pull request nothing is fetched or pushed: the job summary notes it and points at the patch", async () => {
    const w = await world({ mergeCheckout: false });
    const github = await open.github();

    const result = await open.run({
      workspace: w.workspace.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test", push: "true", "push-token": PUSH_TOKEN },
      github,
      plays: fixSumPlays(),
      headSha: w.headSha,
      baseSha: w.baseSha,
      env: { GITHUB_SERVER_URL: w.git.url },
      editPayload: (payload) => {
        const pr = payload.pull_request as { head: { repo: { id: number; full_name: string } } };
        // A fork is its own repository: another name and another id (the fork test prefers ids).
        pr.head.repo = { ...pr.head.repo, id: 99_000_001, full_name: "mona/widgets" };
      },
    });

    expect(result.outputs["pushed-sha"]).toBeUndefined();
    expect(w.git.requests).toEqual([]);
    expect(result.summary).toContain("push: true does nothing on this pull request");
    expect(result.summary).toContain("mona/widgets");
    expect(result.summary).toContain("patch.diff");
    expect(await w.git.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(w.headSha);
    expect(result.commands.some((c) => c.startsWith("::notice::push: true does nothing"))).toBe(true);
  });
});

describe("action (in-process): loop guard (SPEC §10): a run triggered by evidence-gate's own push does nothing", () => {
  /** A checkout whose HEAD is a commit push mode made (the trailer in its last paragraph). */
  async function pushedCheckout(): Promise<{ repo: TempRepo; head: string }> {
    const repo = open.keep(await makeSampleNodeRepo());
    await repo.write("src/sum.js", "export function sum(a, b) {\n  return a + b;\n}\n");
    await repo.git(["add", "-A"]);
    await repo.git([
      "commit",
      "--quiet",
      "-m",
      "evidence-gate: fix sum\n\nEvidence-Gate-Run: 20260101-000000-abcdef",
    ]);
    return { repo, head: await repo.git(["rev-parse", "HEAD"]) };
  }

  it("on pull_request synchronize: no model call, no GitHub API call (no check run touched), no outputs, and the job summary says why", async () => {
    const { repo } = await pushedCheckout();
    const github = await open.github();

    const result = await open.run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test", push: "true", "push-token": PUSH_TOKEN },
      github,
      plays: fixSumPlays(),
      editPayload: (payload) => {
        payload.action = "synchronize";
      },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toEqual({});
    expect(result.calls).toEqual([]);
    expect(result.modelCallsMade).toEqual([]);
    expect(result.summary).toContain("carries `Evidence-Gate-Run: 20260101-000000-abcdef`");
    expect(result.summary).toContain("does nothing (loop guard)");
  });

  it("on push: the head_commit message of the payload decides, no API call; the same commit on `opened` runs normally", async () => {
    const { repo, head } = await pushedCheckout();
    const github = await open.github();

    const skipped = await open.run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
      env: { GITHUB_EVENT_NAME: "push", GITHUB_REF: `refs/heads/${BRANCH}` },
      editPayload: (payload) => {
        payload.head_commit = {
          id: head,
          message: "evidence-gate: fix sum\n\nEvidence-Gate-Run: 20260101-000000-abcdef\n",
        };
      },
    });
    expect(skipped.exitCode, stepDebug(skipped)).toBe(0);
    expect(skipped.outputs).toEqual({});
    expect(skipped.calls).toEqual([]);

    // `opened` is a person's action, not a push: the guard does not apply (the run starts, creating its check
    // run). The guard comes before the mode is looked at (pull-request-run.ts), so mode verify shows it.
    const opened = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
    });
    expect(opened.outputs.outcome).toBeDefined();
    expect(checkRunWrites(opened)[0]).toMatchObject({ method: "POST" });
  });
});
