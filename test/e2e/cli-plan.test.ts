/**
 * `evidence-gate plan` (SPEC §11, plan only) with the real `claude` CLI and the scripted model server: one
 * real run, showing what each node will be asked (issue 26).
 *
 * How it ends when no plan comes out (refused after its repair; a reply with no plan) runs in-process
 * through the model port: test/cli/plan-command.test.ts (issue 24).
 */
import { describe, expect, it } from "vitest";
import { runCliPlan } from "../../src/cli/plan-command.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { type CliHarness, cliHarness } from "../support/cli-harness.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";

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

describe("evidence-gate plan: what each node will be asked (issue 26)", () => {
  it("without --json the plan shows each node's prompt, on one line, cut to a bound with the rest counted", async () => {
    const long = `${MARKS.review} whether it looks correct.\nThen list every risk.\n${"x".repeat(600)}`;
    const h = await cliHarness({
      script: (repo) =>
        fixSumScript({
          repoDir: repo.dir,
          plannerReplies: [
            JSON.stringify({
              name: "review",
              version: "1",
              nodes: [{ id: "review", prompt: long, allowed_tools: ["Read"] }],
            }),
          ],
        }),
    });
    const r = await plan(h);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    const at = lines.indexOf("prompts (one line each, cut at 300 characters; --json prints them whole):");
    expect(at, r.stdout).toBeGreaterThan(0);
    const shown = lines[at + 1]!;
    const oneLine = long.replace(/\s*\n\s*/g, " ⏎ ");
    expect(shown).toBe(`  review: ${oneLine.slice(0, 300)}… (${oneLine.length - 300} more characters)`);
  });
});
