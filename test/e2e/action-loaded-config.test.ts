/**
 * `accept-loaded-user-config` through the bundled action (SPEC §8, §9; seed 001 §2.6), with the real `claude`
 * CLI and the scripted model server: in mode `auto` the input is the operator's, typed in the workflow; with
 * it, a planned node loads the operator's configuration — which in the action is the BASE branch's project
 * files (the pull request's copies are set aside first) — and the log says so with the loaded paragraph;
 * without it, the node runs isolated and the log carries the isolated paragraph. One paragraph, never both.
 */
import { describe, expect, it } from "vitest";
import { ceilingDisclosure } from "../../src/policy/disclosure.js";
import { actionTestResources, stepDebug } from "../support/action-harness.js";
import type { RecordedRequest } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { commitAll, makeFixedSampleRepo } from "../support/temp-repo.js";

const open = actionTestResources();
const BASE_TEXT = "BASE-CLAUDE-MD: the maintainers' instructions";
const PR_TEXT = "PR-CLAUDE-MD: the pull request's instructions";
const LOADED = ceilingDisclosure({ runtime: "claude", loadedUserConfig: true, surface: "action" });
const ISOLATED = ceilingDisclosure({ runtime: "claude", loadedUserConfig: false, surface: "action" });

/** A base commit with CLAUDE.md, a pull request commit changing it, and a one-node review plan. */
async function scenario() {
  const repo = open.keep(await makeFixedSampleRepo("the base", { "CLAUDE.md": `${BASE_TEXT}\n` }));
  const baseSha = await repo.git(["rev-parse", "HEAD"]);
  await repo.write("CLAUDE.md", `${PR_TEXT}\n`);
  await commitAll(repo, "the pull request");
  const { github, model } = await open.servers(
    fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
  );
  return { repo, baseSha, github, model };
}

/** The JSON bodies of the requests the planned `review` node sent (never the planner's). */
function reviewBodies(requests: readonly RecordedRequest[]): string[] {
  return requests.filter((r) => r.conversation === "review").map((r) => JSON.stringify(r.body));
}

describe("action: accept-loaded-user-config in mode auto (SPEC §8)", () => {
  it("true: the planned node loads the base branch's CLAUDE.md (never the PR's) and the log prints the loaded paragraph only", async () => {
    const { repo, baseSha, github, model } = await scenario();
    const result = await open.run({
      workspace: repo.dir,
      inputs: {
        goal: `${MARKS.plannerGoal}.`,
        "verify-cmd": "npm test",
        "accept-loaded-user-config": "true",
      },
      github,
      model,
      baseSha,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    const bodies = reviewBodies(result.modelRequests);
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.some((b) => b.includes(BASE_TEXT))).toBe(true);
    expect(bodies.some((b) => b.includes("PR-CLAUDE-MD"))).toBe(false);
    expect(result.stdout).toContain(`tool ceiling: ${LOADED}`);
    expect(result.stdout).not.toContain(ISOLATED);
    expect(await repo.read("CLAUDE.md")).toBe(`${PR_TEXT}\n`);
    github.assertNoViolations();
  });

  it("absent: the planned node runs isolated (no CLAUDE.md at all) and the log prints the isolated paragraph only", async () => {
    const { repo, baseSha, github, model } = await scenario();
    const result = await open.run({
      workspace: repo.dir,
      inputs: { goal: `${MARKS.plannerGoal}.`, "verify-cmd": "npm test" },
      github,
      model,
      baseSha,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    const bodies = reviewBodies(result.modelRequests);
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.some((b) => b.includes("CLAUDE-MD"))).toBe(false);
    expect(result.stdout).toContain(`tool ceiling: ${ISOLATED}`);
    expect(result.stdout).not.toContain(LOADED);
    github.assertNoViolations();
  });
});
