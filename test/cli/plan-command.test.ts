/**
 * `evidence-gate plan` (SPEC §11, plan only) in-process (issue 24: the CLI's decisions in the fast tier;
 * test/support/cli-in-process.ts, the planner's calls played by the scripted stand-in): how it ends when no
 * plan comes out — a plan refused again after its repair says "refused"; a planner reply that holds no plan
 * at all is a planning failure, not a refusal (it is not repaired). Exit 1 either way, and no run directory
 * is made. Moved from test/e2e/cli-plan.test.ts, which keeps one real run (a plan's prompts shown).
 */
import { describe, expect, it } from "vitest";
import type { Plays } from "../engine/port-harness.js";
import {
  type CliInProcessHarness,
  type CliInProcessResult,
  cliInProcess,
} from "../support/cli-in-process.js";
import { MARKS, refusedTwoNodePlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";

/** `plan --goal … --verify-cmd "npm test"` in-process against the harness's repository. */
function plan(h: CliInProcessHarness): Promise<CliInProcessResult> {
  return h.cli([
    "plan",
    "--goal",
    `${MARKS.plannerGoal}.`,
    "--verify-cmd",
    "npm test",
    "--repo",
    h.repo.dir,
    "--claude-path",
    h.claudeStandIn,
  ]);
}

const withPlanner = (replies: readonly string[]): Plays => fixSumPlays({ plannerReplies: replies });

describe("evidence-gate plan: when no plan comes out", () => {
  it("a plan refused again after its repair: 'plan: refused', the refusals on stderr, exit 1, no run directory", async () => {
    const h = await cliInProcess({ plays: withPlanner([refusedTwoNodePlan(), refusedTwoNodePlan()]) });
    const r = await plan(h);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("plan: refused, nothing to run");
    expect(r.stderr).toContain("the plan was refused after its repair");
    expect(h.runDirs()).toEqual([]);
    // The planner and its one repair, through the run's model port (never the CLI on PATH).
    expect(h.madeFor("planner")).toHaveLength(2);
  });

  it("a reply with no plan in it: 'plan: planning failed' (never 'refused'), the reason on stderr, exit 1", async () => {
    const h = await cliInProcess({ plays: withPlanner(["I would rather not plan today."]) });
    const r = await plan(h);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("plan: planning failed, nothing to run");
    expect(r.stdout).not.toContain("refused");
    expect(r.stderr).toContain("planning failed:");
    expect(h.runDirs()).toEqual([]);
    // The reply was the planner's: one call through the run's model port, not a CLI that could not start.
    expect(h.madeFor("planner")).toHaveLength(1);
    expect(r.stderr).not.toContain("claude produced no output");
  });
});
