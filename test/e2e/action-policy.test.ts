/**
 * The maintainers' policy file end to end (SPEC §5, §6, §9, §11): `.github/evidence-gate.yml` is read by
 * the bundled action from the **base** ref through the local GitHub server (which holds every request and
 * response to GitHub's OpenAPI description), never from the pull request's checkout. One real run: the
 * base policy's verify-cmd verifies the sink of a run with the real claude CLI.
 *
 * Moved to the port tier, in-process (test/action-run/policy.test.ts; issue 24): require-evidence making
 * accept-no-build-evidence a usage error and refusing a run that could only fail, a pull request's own
 * policy file not applied, a malformed base policy, and a base policy that cannot be read (403).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { actionTestResources, completion, stepDebug } from "../support/action-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";
import type { ModelServer } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const POLICY = ".github/evidence-gate.yml";
/** `pull_request.base.sha` of the event fixture (the harness keeps it unless told otherwise). */
const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const FROM_BASE = `${POLICY} (base ref main, commit ${BASE_SHA.slice(0, 7)})`;

const open = actionTestResources();
const { run } = open;

/** Starts both servers; `basePolicy` is put at the base SHA on the GitHub server. */
async function servers(
  repo: TempRepo,
  basePolicy: string | null,
): Promise<{ github: GitHubServer; model: ModelServer }> {
  const started = await open.servers(fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }));
  if (basePolicy !== null) started.github.state.addFile({ ref: BASE_SHA, path: POLICY, content: basePolicy });
  return started;
}

/** The sample Node project with sum() fixed: `npm test` passes on HEAD. */
async function fixedSampleRepo(): Promise<TempRepo> {
  return open.keep(await makeFixedSampleRepo());
}

describe("action: the policy file comes from the base ref (SPEC §9, §11)", () => {
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
});
