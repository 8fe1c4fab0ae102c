/**
 * `evidence-gate auto --max-cycles` (SPEC §7; issue 13 item 7) end to end, in-process, with the real
 * pinned `claude` CLI against the scripted model server: the goal loop reaches the engine from the CLI,
 * prints one line per cycle, and the exit code and ledger are the last run's.
 */
import { expect, test } from "vitest";
import { cliHarness } from "../support/cli-harness.js";
import type { ModelScript } from "../support/model-server/index.js";

const GOAL = "LOOP-GOAL: tidy the project";

const plan = (id: string, mark: string): string =>
  JSON.stringify({
    name: `loop-${id}`,
    version: "1",
    nodes: [{ id, prompt: `${mark}: look at the project.`, allowed_tools: ["Read"] }],
  });

const SCRIPT: ModelScript = {
  conversations: [
    {
      name: "assess-1",
      match: ["You are the assessor", "first-pass"],
      turns: [
        {
          text: JSON.stringify({
            goal_met: false,
            remaining: "REMAINING-MARK: the README lacks a usage section",
            evidence: "row first-pass only looked",
          }),
        },
      ],
    },
    { name: "first", match: "FIRST-MARK", turns: [{ text: "Looked; all fine." }] },
    { name: "second", match: "SECOND-MARK", turns: [{ text: "Looked again." }] },
    {
      name: "planner-2",
      match: ["LOOP-GOAL", "REMAINING-MARK"],
      turns: [{ text: plan("second-pass", "SECOND-MARK") }],
    },
    { name: "planner-1", match: "LOOP-GOAL", turns: [{ text: plan("first-pass", "FIRST-MARK") }] },
  ],
};

test("--max-cycles 2 runs a second planned cycle after an unmet verdict; the last run's ledger and exit code stand", async () => {
  const h = await cliHarness({ script: () => SCRIPT });
  const r = await h.run(["--verify-cmd", "true", "--max-cycles", "2"], { goal: GOAL });

  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain("goal loop: 2 cycles");
  expect(r.stdout).toMatch(/cycle 1: run \S+, success; assessor: not met; remaining: REMAINING-MARK/);
  expect(r.stdout).toMatch(/cycle 2: run \S+, success; not assessed/);
  expect(r.stdout).toContain("stopped: max-cycles 2 reached; the conclusion is the last run's");
  expect(r.ledger?.rows.map((row) => row.nodeId)).toEqual(["second-pass"]);
  expect(h.runDirs()).toHaveLength(2);
  // The check run is concluded once, from the last run.
  const ends = (r.checkRunRequests ?? []).filter(
    (q) => (q.body as { status?: string }).status === "completed",
  );
  expect(ends.map((q) => (q.body as { conclusion?: string }).conclusion)).toEqual(["success"]);
});
