/**
 * `evidence-gate auto --goal` over 8,000 characters (of what the planner reads) is a usage error before
 * anything is spent, never cut in the middle (a new user's trial, closing note of the sixth session).
 * In-process: `runCliAuto` with the model calls played by the scripted stand-in (test/engine/scripted-calls.ts).
 * The action's input `goal` and a comment's text are test/action-run/goal-length.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runCliPlan } from "../../src/cli/plan-command.js";
import { runCliAuto } from "../../src/cli/run-auto-command.js";
import { replied } from "../engine/port-harness.js";
import { scriptedCallsByLabel } from "../engine/scripted-calls.js";
import { hermeticGitEnv, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

/** `n` visible characters, no spaces at the ends. */
const goalOf = (n: number): string => "Fix_sum().".repeat(Math.ceil(n / 10)).slice(0, n);

/** Runs `COMMAND --goal GOAL --verify-cmd "node --test"` in-process; the planner's one play refuses to plan. */
async function withGoal(goal: string, command: typeof runCliAuto = runCliAuto) {
  const repo = await makeSampleNodeRepo();
  repos.push(repo);
  const scripted = scriptedCallsByLabel({ planner: [replied("claude", "I will not plan this.")] });
  let stdout = "";
  let stderr = "";
  const code = await command(
    ["--repo", repo.dir, "--goal", goal, "--verify-cmd", "node --test", "--claude-path", process.execPath],
    {
      cwd: repo.dir,
      env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: "sk-ant-api03-goal-length-test" },
      out: { write: (t: string) => (stdout += t) },
      err: { write: (t: string) => (stderr += t) },
      modelCalls: scripted.calls,
    },
  );
  return { code, stdout, stderr, planner: scripted.madeFor("planner") };
}

describe("evidence-gate auto: a goal over 8,000 characters is refused, never cut", () => {
  it("--goal of 8,001 characters: exit 64 naming --goal, its length and the fix; the planner never called", async () => {
    const r = await withGoal(goalOf(8_001));
    expect(r.code, r.stderr + r.stdout).toBe(64);
    expect(r.stderr).toContain(
      "evidence-gate auto: --goal is 8,001 characters long (not counting hidden characters and HTML comments), over the 8,000 the planner takes, and a goal cut to fit would ask for something else. Shorten --goal to 8,000 characters or fewer",
    );
    expect(r.planner).toHaveLength(0);
  });

  it("plan --goal of 8,001 characters: the same usage error, exit 64, no planner call", async () => {
    const r = await withGoal(goalOf(8_001), runCliPlan);
    expect(r.code, r.stderr + r.stdout).toBe(64);
    expect(r.stderr).toContain("evidence-gate plan: --goal is 8,001 characters long");
    expect(r.planner).toHaveLength(0);
  });

  it("--goal of 8,000 characters reaches the planner whole", async () => {
    const r = await withGoal(goalOf(8_000));
    expect(r.planner).toHaveLength(1);
    expect(r.planner[0]!.prompt).toContain(goalOf(8_000));
    expect(r.planner[0]!.prompt).not.toContain("characters omitted by evidence-gate");
    expect(r.stderr + r.stdout).not.toContain("over the 8,000 the planner takes");
  });
});

describe("evidence-gate auto: a goal with nothing visible is refused (a new user's trial, seventh session)", () => {
  it.each(["<!-- say hello -->", "\u200b\u200b", "  <!-- x --> \u2060 "])(
    "--goal %j: exit 64 naming --goal, before any planner call",
    async (goal) => {
      const r = await withGoal(goal);
      expect(r.code, r.stderr + r.stdout).toBe(64);
      expect(r.stderr).toContain(
        "--goal has no visible text: the planner reads a goal without hidden characters and HTML comments",
      );
      expect(r.planner).toHaveLength(0);
    },
  );

  it("a goal with visible text beside a comment still plans", async () => {
    const r = await withGoal("Fix sum() <!-- in src/sum.js -->");
    expect(r.planner).toHaveLength(1);
  });
});
