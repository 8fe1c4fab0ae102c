/**
 * A goal longer than the planner takes (8,000 characters of what it reads) is refused before any model
 * call, never cut: a goal is often a PR body or a comment, and a goal cut in the middle asks for something
 * else (a new user's trial, closing note of the sixth session). In-process (test/support/action-in-process.ts):
 * the action's input `goal`, and the text of a `/evidence-gate run` comment that gives the goal. The CLI's
 * `--goal` is test/cli/goal-length.test.ts.
 */
import { describe, expect, it } from "vitest";
import { actionInProcessResources } from "../support/action-in-process.js";
import { completion, stepDebug } from "../support/action-step.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { commentPayload, makePullRequestHeads, PR_NUMBER } from "../support/scenarios/pr-heads.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const open = actionInProcessResources();
const { run } = open;

/** The hidden part of {@link goalOf}: an HTML comment, as a PR template leaves one. */
const HINT = "<!-- a PR template's hint -->";

/** A goal of `n` visible characters (no spaces at its ends), and an HTML comment that does not count. */
function goalOf(n: number): string {
  return `${HINT}${"Fix_sum().".repeat(Math.ceil(n / 10)).slice(0, n)}`;
}

/** The check run completed `action_required` as a usage error, the step failed, no model call. */
function expectRefused(result: Awaited<ReturnType<typeof run>>, github: GitHubServer): string {
  expect(result.madeFor("planner")).toHaveLength(0);
  expect(result.exitCode, stepDebug(result)).toBe(1);
  expect(result.outputs).toMatchObject({ outcome: "usage-error", conclusion: "action_required" });
  const done = completion(result)!;
  expect(done.output!.title).toBe("Usage error: nothing ran");
  github.assertNoViolations();
  return done.output!.summary!;
}

describe("action (in-process): a goal over 8,000 characters is refused, never cut", () => {
  it("input `goal` of 8,001 characters: usage error naming the input, its length and the fix; 8,000 (with a hidden comment besides) plans", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const github = await open.github();
    const result = await run({
      workspace: repo.dir,
      inputs: { goal: goalOf(8_001), "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
    });
    const summary = expectRefused(result, github);
    expect(summary).toContain(
      "input `goal` is 8,001 characters long (not counting hidden characters and HTML comments), over the 8,000 the planner takes",
    );
    expect(summary).toContain("Shorten input `goal` to 8,000 characters or fewer");
    expect(result.stdout).toContain("::error::");

    const fits = await run({
      workspace: repo.dir,
      inputs: { goal: goalOf(8_000), "verify-cmd": "npm test" },
      github: await open.github(),
      plays: fixSumPlays(),
    });
    const planner = fits.madeFor("planner")[0];
    if (planner === undefined) throw new Error(`the planner was not called: ${stepDebug(fits)}`);
    expect(planner.prompt).toContain(goalOf(8_000).replace(HINT, ""));
    expect(planner.prompt).not.toContain("characters omitted by evidence-gate");
  });

  it("a `/evidence-gate run` comment whose text is 9,000 characters: usage error naming the comment and the fix, no model call", async () => {
    const h = await makePullRequestHeads();
    open.keep(h.upstream);
    open.keep(h.workspace);
    const github = await open.github();
    github.state.addPullRequest({
      number: PR_NUMBER,
      headSha: h.headSha,
      baseSha: h.baseSha,
      title: "Fix sum()",
      body: "Please merge.",
    });
    github.state.setCollaborator("maintainer", "write");
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { goal: "The workflow's default goal.", "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
      event: {
        name: "issue_comment",
        payload: commentPayload({ body: `/evidence-gate run ${goalOf(9_000)}`, login: "maintainer" }),
      },
    });
    const summary = expectRefused(result, github);
    expect(summary).toContain(
      "The text of the /evidence-gate run comment is 9,000 characters long (not counting hidden characters and HTML comments), over the 8,000 the planner takes",
    );
    expect(summary).toContain("Comment again with the text shortened to 8,000 characters or fewer");
    expect(summary).toContain("The goal is the text of @maintainer");
  });
});
