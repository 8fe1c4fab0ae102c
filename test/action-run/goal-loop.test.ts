/**
 * The action's goal loop (`max-cycles`, SPEC §7; issue 13 item 7), in-process (test/support/action-in-process.ts:
 * the action's `runAction` with the model calls played by the scripted stand-in, the check run posted to
 * the local GitHub API double). Cycle 1 reviews only and its verify fails; the assessor says the goal is
 * not met; cycle 2 plans again from what remains, fixes `sum()` and is assessed met. The one check run
 * shows a section per cycle and concludes from the last run (its verified fix is not pushed:
 * `action_required`), neither cycle 1's failure nor the assessor's "met". (It ran the bundle with the real
 * claude CLI in test/e2e/ before: issue 24.)
 */
import { describe, expect, it } from "vitest";
import { replied } from "../engine/port-harness.js";
import { actionInProcessResources } from "../support/action-in-process.js";
import { completion, stepDebug } from "../support/action-step.js";
import { MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM, makeSampleNodeRepo } from "../support/temp-repo.js";

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

const open = actionInProcessResources();
const reply = (text: string, more: Parameters<typeof replied>[2] = {}) => replied("claude", text, more);
const verdict = (met: boolean, remaining: string, evidence: string) =>
  reply(JSON.stringify({ goal_met: met, remaining, evidence }));

describe("action: the goal loop (max-cycles)", () => {
  it("an unmet cycle 1 then a met cycle 2: one check run, a section per cycle, the conclusion the last run's", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const github = await open.github();

    const result = await open.run({
      workspace: repo.dir,
      // 3, so that cycle 2 is assessed (the last cycle allowed never is) and the loop stops on "met".
      inputs: { goal: GOAL, "verify-cmd": "npm test", "max-cycles": "3" },
      github,
      plays: {
        planner: [reply(reviewOnlyPlan()), reply(FIX_PLAN)],
        review: [reply("The file reads fine. Nothing to change.")],
        implement: [reply("Fixed sum() in src/sum.js.", { writes: { "src/sum.js": FIXED_SUM } })],
        assessor: [
          verdict(false, REMAINING, "ASSESS-1-MARK: the review sink's npm test failed"),
          verdict(true, "", "ASSESS-2-MARK: the implement sink's npm test passed"),
        ],
      },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    const planners = result.madeFor("planner");
    expect(planners).toHaveLength(2);
    expect(planners[0]!.prompt).not.toContain("REMAINING-MARK");
    expect(planners[1]!.prompt).toContain("REMAINING-MARK: sum() still subtracts");
    expect(result.madeFor("assessor")).toHaveLength(2);
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
  });
});
