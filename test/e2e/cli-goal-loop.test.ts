/**
 * `evidence-gate auto --max-cycles` (SPEC §7; issue 13 item 7) end to end, in-process, with the real
 * pinned `claude` CLI against the scripted model server: the goal loop reaches the engine from the CLI,
 * the text ledger and the check run's summary show one section per cycle, and the exit code and ledger
 * are the last run's.
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
  // The text ledger: one block per cycle before the last run's table.
  expect(r.stdout).toMatch(
    /Goal loop: 2 cycles of at most 2 — stopped: max-cycles 2 reached; whole goal \$[0-9.]+; the conclusion is the last run's/,
  );
  expect(r.stdout).toMatch(
    /Cycle 1\/2: success — .* — run \S+\n {4}first-pass {2}PASS \(verified\).*\n {4}assessor: goal not met; remaining: REMAINING-MARK/,
  );
  expect(r.stdout).toMatch(
    /Cycle 2\/2: success — .* \(this run, below\)\n {4}remaining fed in: REMAINING-MARK/,
  );
  expect(r.ledger?.rows.map((row) => row.nodeId)).toEqual(["second-pass"]);
  expect(h.runDirs()).toHaveLength(2);
  // The check run is concluded once, from the last run.
  const ends = (r.checkRunRequests ?? []).filter(
    (q) => (q.body as { status?: string }).status === "completed",
  );
  expect(ends.map((q) => (q.body as { conclusion?: string }).conclusion)).toEqual(["success"]);
  // …with one section per cycle in its summary.
  const body = (ends[0]?.body ?? {}) as { output?: { summary?: string } };
  const summary = body.output?.summary ?? "";
  expect(summary).toMatch(
    /#### Cycle 1\/2: ✅ success[\s\S]*\*\*Assessor:\*\* goal not met[\s\S]*#### Cycle 2\/2: ✅ success/,
  );
});
