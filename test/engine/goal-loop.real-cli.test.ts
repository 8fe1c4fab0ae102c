/**
 * The goal loop's assessor through the REAL CLI (SPEC §7; issue 13 item 7): what only the real binary
 * shows — the assessor's call advertises no tool to the model (`--tools ""`) and the ledger reaches it
 * fenced. Every other goal-loop behaviour, on both runtimes, is goal-loop.test.ts (the model port).
 */
import { expect, test } from "vitest";
import type { ModelScript } from "../support/model-server/index.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";
import { graphHarnessPerTest, requestsOf } from "./graph-harness.js";

const harness = graphHarnessPerTest();

const script: ModelScript = {
  conversations: [
    {
      name: "assess",
      match: "You are the assessor",
      turns: [{ text: JSON.stringify({ goal_met: true, remaining: "", evidence: "the rows" }) }],
    },
    { name: "node", match: "NODE-MARK", turns: [{ text: "Looked; all fine." }] },
    {
      name: "planner",
      match: "LOOP-GOAL",
      turns: [
        {
          text: JSON.stringify({
            name: "loop",
            version: "1",
            nodes: [{ id: "look", prompt: "NODE-MARK: look at the project.", allowed_tools: ["Read"] }],
          }),
        },
      ],
    },
  ],
};

test("on claude, the assessor is tool-less: the CLI advertises no tool to the model, and reads the ledger fenced", async () => {
  const h = await harness({ runtime: "claude", makeRepo: makeSampleNodeRepo, script: () => script });
  const result = await h.goalLoop(
    { goal: "LOOP-GOAL: tidy the project", verifyCmd: "true" },
    { maxCycles: 2 },
  );
  if (result.kind !== "finished") throw new Error(JSON.stringify(result));
  expect(result.stoppedBecause).toBe("the assessor judged the goal met after cycle 1");
  const [assessor] = requestsOf(h.server.requests, "assess");
  if (assessor === undefined) throw new Error("the assessor never reached the model");
  expect(assessor.promptText).toMatch(/<<<DATA run-ledger nonce=[0-9a-f]+>>>/);
  expect((assessor.body as { tools?: unknown[] }).tools ?? []).toEqual([]);
});
