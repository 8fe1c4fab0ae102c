/**
 * Ctrl-C while `auto` is still planning (issue 26): no graph exists yet, so the CLI says the run was
 * interrupted while planning (not "planning failed") and suggests no `resume … --retry-failed`, which would
 * fail for want of a graph.
 */
import { expect, test } from "vitest";
import { eventually } from "../proc/process-probe.js";
import { CLAUDE_BIN, cliHarness, DEFAULT_GOAL } from "../support/cli-harness.js";
import { MARKS } from "../support/scenarios/fix-sum.js";

test("SIGINT while the planner call is in flight: exit 130, 'interrupted while planning', no resume suggested", async () => {
  const h = await cliHarness({
    script: () => ({
      conversations: [
        { name: "planner", match: MARKS.plannerGoal, turns: [{ delay_ms: 60_000, text: "{}" }] },
      ],
    }),
  });
  const run = h.spawnDist([
    "auto",
    "--goal",
    DEFAULT_GOAL,
    "--repo",
    h.repo.dir,
    "--claude-path",
    CLAUDE_BIN,
    "--verify-cmd",
    "npm test",
  ]);
  const asked = await eventually(() => h.server.requests.length > 0, 30_000);
  expect(asked, "the planner was never called").toBe(true);
  run.child.kill("SIGINT");
  const { code } = await run.closed;
  const { stdout, stderr } = run.output();

  expect(code, stdout + stderr).toBe(130);
  expect(stdout).toMatch(/^plan: interrupted while planning, nothing to run/m);
  expect(stdout).not.toContain("planning failed");
  expect(stdout + stderr).not.toContain("--retry-failed");
  expect(stdout).toContain("interrupted while planning: nothing ran, so there is nothing to resume");
});
