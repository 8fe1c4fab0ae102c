/**
 * The maintainers' policy file (SPEC §5, §6, §9, §11), in-process (test/support/action-in-process.ts):
 * `.github/evidence-gate.yml` is read by the action's `runAction` from the **base** ref through the GitHub
 * API double (which holds every request and response to GitHub's OpenAPI description), never from the pull
 * request's checkout; the model calls are played by the scripted stand-in. Moved from
 * test/e2e/action-policy.test.ts (issue 24), which keeps the one real run: the base policy's verify-cmd
 * used by the bundled action with the real claude CLI.
 */
import { describe, expect, it } from "vitest";
import type { Plays } from "../engine/port-harness.js";
import { actionInProcessResources } from "../support/action-in-process.js";
import { type ActionRun, checkRunWrites, completion, stepDebug } from "../support/action-step.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { makeFixedSampleRepo, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const POLICY = ".github/evidence-gate.yml";
const CONTENTS = "/repos/{owner}/{repo}/contents/{path}";
/** `pull_request.base.sha` of the event fixture (the harness keeps it unless told otherwise). */
const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const FROM_BASE = `${POLICY} (base ref main, commit ${BASE_SHA.slice(0, 7)})`;

const open = actionInProcessResources();
const { run } = open;

/**
 * The GitHub server, `basePolicy` put at the base SHA on it, and the plays of the review-only fix-sum
 * scenario (a test that expects no model call asserts none was made).
 */
async function servers(basePolicy: string | null): Promise<{ github: GitHubServer; plays: Plays }> {
  const github = await open.github();
  if (basePolicy !== null) github.state.addFile({ ref: BASE_SHA, path: POLICY, content: basePolicy });
  return { github, plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }) };
}

/** The sample Node project with sum() fixed: `npm test` passes on HEAD. */
async function fixedSampleRepo(): Promise<TempRepo> {
  return open.keep(await makeFixedSampleRepo());
}

/** A repository with no build signal at all. */
async function noSignalRepo(files: Record<string, string> = {}): Promise<TempRepo> {
  return open.keep(await makeTempRepo({ commit: true, files: { "README.md": "notes only\n", ...files } }));
}

/** The contents reads of the run: the policy file, at the base SHA. */
function policyReads(result: ActionRun): string[] {
  return result.calls
    .filter((c) => c.route === CONTENTS)
    .map((c) => `${c.method} ${c.path}?ref=${c.query.ref} ${c.status}`);
}

describe("action (in-process): the policy file comes from the base ref (SPEC §9, §11)", () => {
  it("require-evidence: true on the base ref makes accept-no-build-evidence a usage error naming the policy file on the base ref: 0 model requests, step failed", async () => {
    const repo = await noSignalRepo();
    const { github, plays } = await servers("require-evidence: true\n");

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "accept-no-build-evidence": "true" },
      github,
      plays,
    });

    expect(result.modelCallsMade).toHaveLength(0);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "usage-error", conclusion: "action_required" });
    expect(policyReads(result)).toEqual([
      `GET /repos/octo-org/widgets/contents/.github/evidence-gate.yml?ref=${BASE_SHA} 200`,
    ]);
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(`The maintainers' policy file ${FROM_BASE} sets require-evidence: true`);
    expect(summary).toContain("accept-no-build-evidence");
    expect(result.summary).toBe(summary);
    expect(github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "action_required" });
    github.assertNoViolations();
  });

  it("require-evidence: true on a repository with no build signals and no verify command is refused before any model call (it could only fail); the message names the policy's ref", async () => {
    const repo = await noSignalRepo();
    const { github, plays } = await servers("require-evidence: true\n");

    const result = await run({ workspace: repo.dir, inputs: { goal: GOAL }, github, plays });

    expect(result.modelCallsMade).toHaveLength(0);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("refused");
    expect(["success", "neutral"]).not.toContain(result.outputs.conclusion);
    expect(github.state.checkRuns[0]!.status).toBe("completed");
    expect(["success", "neutral"]).not.toContain(github.state.checkRuns[0]!.conclusion);
    const said = `policy file ${FROM_BASE} sets require-evidence: true, and no verify command was given, so this run could only fail`;
    expect(completion(result)!.output!.summary).toContain(said);
    expect(result.summary).toContain(said);
    github.assertNoViolations();
  });

  // A pull request's copy that differs from the base ref's (require-evidence: false beside true) is compared,
  // never read: test/github/base-policy.test.ts (prCopyNote). The notice end to end is the next test's.
  it("a pull request that adds a policy file does not get it applied: the base ref has none, so the defaults apply, and the summary says so", async () => {
    const repo = await noSignalRepo({ [POLICY]: "require-evidence: false\n" });
    const { github, plays } = await servers(null);

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "accept-no-build-evidence": "true" },
      github,
      plays,
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "neutral" });
    expect(policyReads(result)).toEqual([
      `GET /repos/octo-org/widgets/contents/.github/evidence-gate.yml?ref=${BASE_SHA} 404`,
    ]);
    expect(completion(result)!.output!.summary).not.toContain("**Policy:**");
    expect(result.summary).toContain(`This pull request's copy of ${POLICY} was ignored`);
    expect(result.commands).toContainEqual(expect.stringMatching(/^::notice::.*was ignored/));
    github.assertNoViolations();
  });

  it("a malformed base policy fails the step naming the key: nothing runs, nothing is spent", async () => {
    const repo = await fixedSampleRepo();
    const { github, plays } = await servers("require-evidence: true\nrequire_evidence: false\n");

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays,
    });

    expect(result.modelCallsMade).toHaveLength(0);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "usage-error", conclusion: "action_required" });
    expect(result.stdout).not.toContain("> sample@1.0.0 test");
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(`${FROM_BASE}: unknown key "require_evidence"`);
    expect(summary).toContain("the known keys are require-evidence, verify-cmd, planned-tools");
    expect(result.commands).toContainEqual(expect.stringMatching(/^::error::.*require_evidence/));
    github.assertNoViolations();
  });

  it("a base policy that cannot be read (403) fails the step naming contents: read; the run does not start without it", async () => {
    const repo = await fixedSampleRepo();
    const { github, plays } = await servers("require-evidence: true\n");
    github.failNext({ method: "GET", pathPattern: "/repos/{owner}/{repo}/contents/{path}", status: 403 });

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays,
    });

    expect(result.modelCallsMade).toHaveLength(0);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(`could not read ${FROM_BASE} through the API (HTTP 403`);
    expect(summary).toContain("contents: read");
    expect(checkRunWrites(result).at(-1)!.body.conclusion).toBe("action_required");
    github.assertNoViolations();
  });
});
