/**
 * `evidence-gate plan` (SPEC §11, plan only) with the real `claude` CLI and the scripted model server: how
 * it ends when no plan comes out — a plan refused again after its repair says "refused"; a planner reply
 * that holds no plan at all is a planning failure, not a refusal (it is not repaired). Exit 1 either way,
 * and no run directory is made.
 */
import { describe, expect, it } from "vitest";
import { runCliPlan } from "../../src/cli/plan-command.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { type CliHarness, cliHarness } from "../support/cli-harness.js";
import { fixSumScript, MARKS, refusedTwoNodePlan } from "../support/scenarios/fix-sum.js";

/** `plan --goal … --verify-cmd "npm test"` in-process against the harness's repository. */
async function plan(h: CliHarness): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCliPlan(
    [
      "--goal",
      `${MARKS.plannerGoal}.`,
      "--verify-cmd",
      "npm test",
      "--repo",
      h.repo.dir,
      "--claude-path",
      CLAUDE_BIN,
    ],
    {
      cwd: h.scratch,
      env: h.baseEnv(),
      out: { write: (t: string) => (stdout += t) },
      err: { write: (t: string) => (stderr += t) },
    },
  );
  return { code, stdout, stderr };
}

describe("evidence-gate plan: when no plan comes out", () => {
  it("a plan refused again after its repair: 'plan: refused', the refusals on stderr, exit 1, no run directory", async () => {
    const h = await cliHarness({
      script: (repo) =>
        fixSumScript({ repoDir: repo.dir, plannerReplies: [refusedTwoNodePlan(), refusedTwoNodePlan()] }),
    });
    const r = await plan(h);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("plan: refused, nothing to run");
    expect(r.stderr).toContain("the plan was refused after its repair");
    expect(h.runDirs()).toEqual([]);
  });

  it("a reply with no plan in it: 'plan: planning failed' (never 'refused'), the reason on stderr, exit 1", async () => {
    const h = await cliHarness({
      script: (repo) =>
        fixSumScript({ repoDir: repo.dir, plannerReplies: ["I would rather not plan today."] }),
    });
    const r = await plan(h);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("plan: planning failed, nothing to run");
    expect(r.stdout).not.toContain("refused");
    expect(r.stderr).toContain("planning failed:");
    expect(h.runDirs()).toEqual([]);
  });
});
