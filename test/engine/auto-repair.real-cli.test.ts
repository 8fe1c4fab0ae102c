/**
 * `repair-attempts` in `auto` (SPEC §7; issue 13 item 5), at engine level (`runAuto`) on both runtimes:
 * the attached verify command becomes the sink's completion gate, so the first attempt's red build is fed
 * back (its output tail, fenced) into the sink's own session, the scripted agent fixes the bug from it, and
 * the sink ends `PASS (verified)` with one row per attempt. The real claude against the scripted model
 * server (the repair turn resumes the real session: the model sees the first turn), a real `node --test` in
 * the sample repository. Both runtimes through the model port: auto-repair.test.ts.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Runtime } from "../../src/engine/runtime-setup.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import type { ModelScript } from "../support/model-server/index.js";
import { makeSampleNodeRepo, SAMPLE_TEST_NAME, type TempRepo } from "../support/temp-repo.js";
import { asFail, asPass, graphHarnessPerTest, requestsOf, rowWords } from "./graph-harness.js";
import { editCall, historyText, readCall } from "./runtime-harness.js";

const harness = graphHarnessPerTest();

const GOAL = "REPAIR-GOAL: make node --test pass";

function script(runtime: Runtime, repo: TempRepo): ModelScript {
  const file = join(repo.dir, "src", "sum.js");
  const plan = {
    name: "fix-sum",
    version: "1",
    nodes: [
      { id: "implement", prompt: "IMPLEMENT-MARK: look at the project.", allowed_tools: ["Read", "Edit"] },
    ],
  };
  return {
    conversations: [
      {
        // The repair turn: only the fed-back build tail says what is wrong.
        name: "repair",
        match: ["COMPLETION CHECK FAILED", SAMPLE_TEST_NAME],
        turns: [
          { tool_calls: [readCall(runtime, file)] },
          { tool_calls: [editCall(runtime, file, "  return a - b;", "  return a + b;")] },
          { text: "Fixed sum()." },
        ],
      },
      { name: "implement", match: "IMPLEMENT-MARK", turns: [{ text: "Looked; all fine." }] },
      { name: "planner", match: "REPAIR-GOAL", turns: [{ text: JSON.stringify(plan) }] },
    ],
  };
}

describe("auto with repair-attempts on claude", () => {
  const runtime = "claude";
  test("a red build is fed back to the sink's session and the repaired sink ends PASS (verified)", async () => {
    const h = await harness({
      runtime,
      makeRepo: makeSampleNodeRepo,
      script: (repo) => script(runtime, repo),
    });
    const result = await h.auto({ goal: GOAL, verifyCmd: "node --test", repairAttempts: 2 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));
    const { ledger } = result;

    expect(rowWords(ledger.rows)).toEqual([
      "implement FAIL incomplete superseded",
      "implement PASS (verified)",
    ]);
    const first = asFail(ledger.rows[0]);
    expect(first.completion).toMatchObject({ attempt: 1, maxAttempts: 3, check: "failed" });
    expect(first.verify?.outputTail).toContain(SAMPLE_TEST_NAME);
    const fixed = asPass(ledger.rows[1]);
    expect(fixed.verify).toMatchObject({ command: "node --test", exitCode: 0 });
    expect(fixed.sessionId).toBe(first.sessionId);
    expect(ledger.plan.sinkCommands).toEqual([{ nodeId: "implement", command: "node --test" }]);

    // The repair turn is the same conversation, told the build's tail inside a nonce fence.
    const repair = requestsOf(h.server.requests, "repair")[0];
    if (repair === undefined) throw new Error("the repair turn never reached the model");
    expect(repair.promptText).toMatch(/<<<DATA completion-check-report nonce=[0-9a-f]+>>>/);
    expect(repair.promptText).toContain("completion.verify command: node --test");
    expect(historyText(repair)).toContain("IMPLEMENT-MARK");

    // The check run's ledger shows each attempt and the first one's build tail.
    const markdown = renderLedgerMarkdown(ledger);
    expect(markdown).toContain("attempt 1/3");
    expect(markdown).toContain("attempt 2/3");
    expect(markdown).toContain(SAMPLE_TEST_NAME);
  });
});
