/**
 * The maintainers' policy file end to end (SPEC §5, §6, §9, §11): `.github/evidence-gate.yml` is read by
 * the bundled action from the **base** ref through the local GitHub server (which holds every request and
 * response to GitHub's OpenAPI description), never from the pull request's checkout.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type ActionRun,
  actionTestResources,
  checkRunWrites,
  completion,
  stepDebug,
} from "../support/action-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";
import type { ModelServer } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const POLICY = ".github/evidence-gate.yml";
const CONTENTS = "/repos/{owner}/{repo}/contents/{path}";
/** `pull_request.base.sha` of the event fixture (the harness keeps it unless told otherwise). */
const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const FROM_BASE = `${POLICY} (base ref main, commit ${BASE_SHA.slice(0, 7)})`;

const open = actionTestResources();
const { run } = open;

/** Starts both servers; `basePolicy` is put at the base SHA on the GitHub server. */
async function servers(
  repo: TempRepo,
  basePolicy: string | null,
  plannerReplies: readonly string[] = [reviewOnlyPlan()],
): Promise<{ github: GitHubServer; model: ModelServer }> {
  const started = await open.servers(fixSumScript({ repoDir: repo.dir, plannerReplies }));
  if (basePolicy !== null) started.github.state.addFile({ ref: BASE_SHA, path: POLICY, content: basePolicy });
  return started;
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

describe("action: the policy file comes from the base ref (SPEC §9, §11)", () => {
  it("require-evidence: true on the base ref makes accept-no-build-evidence a usage error naming the policy file on the base ref: 0 model requests, step failed", async () => {
    const repo = await noSignalRepo();
    const { github, model } = await servers(repo, "require-evidence: true\n");

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "accept-no-build-evidence": "true" },
      github,
      model,
    });

    expect(result.modelRequests).toHaveLength(0);
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
    const { github, model } = await servers(repo, "require-evidence: true\n");

    const result = await run({ workspace: repo.dir, inputs: { goal: GOAL }, github, model });

    expect(result.modelRequests).toHaveLength(0);
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

  it("verify-cmd from the base policy is used when the workflow gives none: the sink is verified, recorded attached by policy, and the summary says the command came from the policy on the base ref", async () => {
    const repo = await fixedSampleRepo();
    const { github, model } = await servers(repo, "verify-cmd: npm test\n");

    const result = await run({ workspace: repo.dir, inputs: { goal: GOAL }, github, model });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(result.stdout).toContain("> sample@1.0.0 test");
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("PASS (verified)");
    expect(summary).toContain(
      "**Build evidence:** `attached` — the verify command comes from the maintainers' policy file (.github/evidence-gate.yml).",
    );
    expect(summary).toContain(`**Policy:** ${FROM_BASE} — require-evidence: false.`);
    expect(summary).toContain("- sink `review`: `npm test`");
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8")) as {
      plan: { buildEvidence: unknown; policy: unknown };
    };
    expect(ledger.plan.buildEvidence).toEqual({
      kind: "attached",
      command: "npm test",
      declaredBy: "policy",
    });
    expect(ledger.plan.policy).toEqual({ source: FROM_BASE, requireEvidence: false });
    github.assertNoViolations();
  });

  // A pull request's copy that differs from the base ref's (require-evidence: false beside true) is compared,
  // never read: test/github/base-policy.test.ts (prCopyNote). The notice end to end is the next test's.
  it("a pull request that adds a policy file does not get it applied: the base ref has none, so the defaults apply, and the summary says so", async () => {
    const repo = await noSignalRepo({ [POLICY]: "require-evidence: false\n" });
    const { github, model } = await servers(repo, null);

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "accept-no-build-evidence": "true" },
      github,
      model,
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
    const { github, model } = await servers(repo, "require-evidence: true\nrequire_evidence: false\n");

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      model,
    });

    expect(result.modelRequests).toHaveLength(0);
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
    const { github, model } = await servers(repo, "require-evidence: true\n");
    github.failNext({ method: "GET", pathPattern: "/repos/{owner}/{repo}/contents/{path}", status: 403 });

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      model,
    });

    expect(result.modelRequests).toHaveLength(0);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(`could not read ${FROM_BASE} through the API (HTTP 403`);
    expect(summary).toContain("contents: read");
    expect(checkRunWrites(result).at(-1)!.body.conclusion).toBe("action_required");
    github.assertNoViolations();
  });
});
