/**
 * The action's goal loop (`max-cycles`, SPEC §7; issue 13 item 7) end to end: `node dist/index.js` as the
 * runner runs it, the real `claude` CLI driven by the scripted model server, the check run posted to the
 * local GitHub server (OpenAPI-validated). Cycle 1 reviews only and its verify fails; the assessor says
 * the goal is not met; cycle 2 plans again from what remains, fixes `sum()` and is assessed met. The one
 * check run shows a section per cycle and concludes from the last run (its verified fix is not pushed:
 * `action_required`), neither cycle 1's failure nor the assessor's "met".
 */
import { describe, expect, it } from "vitest";
import { actionTestResources, completion, stepDebug } from "../support/action-harness.js";
import type { ModelScript } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const REMAINING = "REMAINING-MARK: sum() still subtracts; npm test fails";

/** Cycle 2's plan: the fix-sum scenario's implement node alone, so it is the sink `npm test` verifies. */
const FIX_PLAN = JSON.stringify({
  name: "fix",
  version: "1",
  nodes: [
    {
      id: "implement",
      prompt: `${MARKS.implement} so that sum(a, b) returns a + b. Edit only that file.`,
      allowed_tools: ["Read", "Edit"],
    },
  ],
});

const open = actionTestResources();
const { run, servers } = open;

/**
 * The fix-sum scenario with a planner per cycle (cycle 2's prompt quotes `remaining`) and an assessor
 * verdict per cycle, told apart by the node ids in the ledger each reads. First match wins: the assessor's
 * prompt quotes the goal, so its conversations come before the planners'.
 */
function script(repoDir: string): ModelScript {
  const base = fixSumScript({ repoDir });
  const verdict = (met: boolean, remaining: string, evidence: string) => ({
    text: JSON.stringify({ goal_met: met, remaining, evidence }),
  });
  return {
    conversations: [
      {
        name: "assess-2",
        match: ["You are the assessor", "implement"],
        turns: [verdict(true, "", "ASSESS-2-MARK: the implement sink's npm test passed")],
      },
      {
        name: "assess-1",
        match: ["You are the assessor"],
        turns: [verdict(false, REMAINING, "ASSESS-1-MARK: the review sink's npm test failed")],
      },
      { name: "planner-2", match: [MARKS.plannerGoal, "REMAINING-MARK"], turns: [{ text: FIX_PLAN }] },
      { name: "planner-1", match: MARKS.plannerGoal, turns: [{ text: reviewOnlyPlan() }] },
      ...base.conversations.filter((c) => !c.name?.startsWith("planner")),
    ],
  };
}

describe("action: the goal loop (max-cycles)", () => {
  it("an unmet cycle 1 then a met cycle 2: one check run, a section per cycle, the conclusion the last run's", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const { github, model } = await servers(script(repo.dir));

    const result = await run({
      workspace: repo.dir,
      // 3, so that cycle 2 is assessed (the last cycle allowed never is) and the loop stops on "met".
      inputs: { goal: GOAL, "verify-cmd": "npm test", "max-cycles": "3" },
      github,
      model,
      timeoutMs: 170_000,
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    const names = result.modelRequests.map((r) => r.conversation);
    expect(names.filter((n) => n?.startsWith("planner"))).toEqual(["planner-1", "planner-2"]);
    expect(names).toContain("assess-1");
    expect(names).toContain("assess-2");
    // One check run, concluded from the last run: its fix is verified but not pushed.
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(result.outputs).toMatchObject({ conclusion: "action_required" });

    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("### Goal loop: 2 cycles of at most 3");
    expect(summary).toContain("Stopped: the assessor judged the goal met after cycle 2.");
    const cycle1 = summary.slice(summary.indexOf("#### Cycle 1/3"), summary.indexOf("#### Cycle 2/3"));
    const cycle2 = summary.slice(summary.indexOf("#### Cycle 2/3"), summary.indexOf("### Plan"));
    expect(cycle1).toMatch(/^#### Cycle 1\/3: ❌ failure/);
    expect(cycle1).toContain("| `review` | **FAIL verify\\_failed** |");
    expect(cycle1).toMatch(
      /\*\*Assessor:\*\* goal not met; remaining: REMAINING-MARK: sum\(\) still subtracts.*ASSESS-1-MARK/,
    );
    expect(cycle1).not.toContain("fed into this cycle");
    expect(cycle2).toMatch(/^#### Cycle 2\/3: ⚠\uFE0F? action_required/);
    expect(cycle2).toContain("(this run, in full below)");
    expect(cycle2).toContain("**Remaining, fed into this cycle:** REMAINING-MARK: sum() still subtracts");
    expect(cycle2).toContain("| `implement` | PASS (verified) |");
    expect(cycle2).toMatch(/\*\*Assessor:\*\* goal met; evidence: ASSESS-2-MARK/);
    // The job summary carries the same sections.
    expect(result.summary).toContain("#### Cycle 1/3: ❌ failure");
    expect(result.summary).toMatch(/#### Cycle 2\/3: ⚠\uFE0F? action_required/);
    github.assertNoViolations();
  }, 180_000);
});
