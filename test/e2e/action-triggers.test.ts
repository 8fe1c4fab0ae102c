/**
 * Triggers end to end (SPEC §2, §9, §11): the bundled action started by a writer's `/evidence-gate run`
 * comment, with GitHub's own webhook example payload, the local GitHub server (every request and response
 * held to the OpenAPI description), real git repositories (the pull request's head published as
 * `refs/pull/42/head` on the workspace's `origin`), the real `claude` CLI against the scripted model server
 * and a real verify command. The workspace is a clone of `main`, where `npm test` fails; the pull request's
 * head fixes it. A verify that passed therefore ran on the head the action checked out itself.
 *
 * Moved to the port tier, in-process (test/action-run/triggers.test.ts; issue 24): a read-only user's
 * command, a fork's command naming the reviewed head, a head that moved, `workflow_dispatch`,
 * `pull_request_target`, an unsupported event, a verify command that runs nothing, which `pull_request`
 * actions run, a fork's and Dependabot's pull request without a model credential or a writer's approval.
 */
import { describe, expect, it } from "vitest";
import { actionTestResources, checkRunWrites, completion, stepDebug } from "../support/action-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { type ModelServer, startModelServer } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import {
  commentPayload,
  holdPullRequest,
  makePullRequestHeads,
  type PullRequestHeads,
  reactionsOn,
} from "../support/scenarios/pr-heads.js";

const open = actionTestResources();
const { run } = open;

async function heads(): Promise<PullRequestHeads> {
  const made = await makePullRequestHeads();
  open.keep(made.upstream);
  open.keep(made.workspace);
  return made;
}

/** A GitHub server holding pull request 42 of `h` (`holdPullRequest`), closed after the test. */
async function githubFor(h: PullRequestHeads): Promise<GitHubServer> {
  const github = await startGitHubServer();
  open.github = github;
  return holdPullRequest(github, h);
}

/** The scripted model server playing the review-only plan (closed after the test). */
async function modelFor(h: PullRequestHeads): Promise<ModelServer> {
  const model = await startModelServer({
    script: fixSumScript({ repoDir: h.workspace.dir, plannerReplies: [reviewOnlyPlan()] }),
  });
  open.model = model;
  return model;
}

describe("action: /evidence-gate run comments (SPEC §9, §11)", () => {
  it("a writer's command runs on the pull request's head: eyes reaction, head checked out, the comment's text is the goal (SPEC §9), said in the summary", async () => {
    const h = await heads();
    const github = await githubFor(h);
    const model = await modelFor(h);
    const comment = `/evidence-gate run ${MARKS.plannerGoal}, and look at the overflow case.`;
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { goal: "The workflow's default goal.", "verify-cmd": "npm test" },
      github,
      model,
      event: { name: "issue_comment", payload: commentPayload({ body: comment, login: "maintainer" }) },
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(reactionsOn(github)).toEqual(["1100200300:eyes"]);
    expect(await h.workspace.git(["rev-parse", "HEAD"])).toBe(h.headSha);
    // No credential was persisted by the fetch.
    expect(await h.workspace.git(["config", "--local", "--list"])).not.toMatch(/extraheader|AUTHORIZATION/i);
    const writes = checkRunWrites(result);
    expect(writes[0]!.body.head_sha).toBe(h.headSha);
    expect(completion(result)!.output!.summary).toContain("PASS (verified)");
    const planner = result.modelRequests.find((r) => r.conversation === "planner")!.promptText!;
    const goalAt = planner.indexOf("## Goal (the operator's instruction)");
    expect(goalAt).toBeGreaterThanOrEqual(0);
    expect(planner.slice(goalAt, goalAt + 300)).toContain(
      `${MARKS.plannerGoal}, and look at the overflow case.`,
    );
    expect(planner).not.toContain("The workflow's default goal.");
    expect(result.summary).toContain("The goal is the text of @maintainer");
    github.assertNoViolations();
  });
});
