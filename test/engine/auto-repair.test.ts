/**
 * `repair-attempts` in `auto` (SPEC §7; issue 13 item 5), at engine level (`runAuto`) on both runtimes
 * through the model port (./port-harness.ts): the attached verify command becomes the sink's completion
 * gate, so the first attempt's red build is fed back (its output tail, fenced) into the sink's own session,
 * the scripted agent fixes the bug (its play writes the fix), and the sink ends `PASS (verified)` with one
 * row per attempt. A real `node --test` in the sample repository. The real claude resuming its session is
 * auto-repair.real-cli.test.ts.
 */
import { describe, expect, it } from "vitest";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { FIXED_SUM, makeSampleNodeRepo, SAMPLE_TEST_NAME } from "../support/temp-repo.js";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { asFail, asPass, rowWords } from "./run-readers.js";
import { RUNTIMES } from "./runtime-harness.js";

const harness = portHarnessPerTest();

const GOAL = "REPAIR-GOAL: make node --test pass";

const PLAN = JSON.stringify({
  name: "fix-sum",
  version: "1",
  nodes: [
    { id: "implement", prompt: "IMPLEMENT-MARK: look at the project.", allowed_tools: ["Read", "Edit"] },
  ],
});

describe.each(RUNTIMES)("auto with repair-attempts on %s", (runtime) => {
  it("a red build is fed back to the sink's session and the repaired sink ends PASS (verified)", async () => {
    const h = await harness({
      runtime,
      makeRepo: makeSampleNodeRepo,
      plays: {
        planner: [replied(runtime, PLAN)],
        implement: [
          replied(runtime, "Looked; all fine."),
          replied(runtime, "Fixed sum().", { writes: { "src/sum.js": FIXED_SUM } }),
        ],
      },
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

    // The repair turn resumes the first turn's session, told the build's tail inside a nonce fence.
    const repair = h.callsOf("implement")[1];
    if (repair === undefined) throw new Error("the repair turn was never called");
    const resumed = repair.session;
    expect(resumed.kind).toBe("resume");
    const id = "sessionId" in resumed ? resumed.sessionId : "threadId" in resumed ? resumed.threadId : null;
    expect(id).toBe(first.sessionId);
    expect(repair.prompt).toMatch(/<<<DATA completion-check-report nonce=[0-9a-f]+>>>/);
    expect(repair.prompt).toContain("completion.verify command: node --test");

    // The check run's ledger shows each attempt and the first one's build tail.
    const markdown = renderLedgerMarkdown(ledger);
    expect(markdown).toContain("attempt 1/3");
    expect(markdown).toContain("attempt 2/3");
    expect(markdown).toContain(SAMPLE_TEST_NAME);
  });

  it("each attempt's row sets its own reply's claim beside its own build: a false 'all pass' is named", async () => {
    const h = await harness({
      runtime,
      makeRepo: makeSampleNodeRepo,
      plays: {
        planner: [replied(runtime, PLAN)],
        implement: [
          replied(runtime, "Looked. All 2 tests pass."),
          replied(runtime, "Changed nothing. Still all tests pass."),
        ],
      },
    });
    const result = await h.auto({ goal: GOAL, verifyCmd: "node --test", repairAttempts: 1 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));
    const { ledger } = result;

    expect(rowWords(ledger.rows)).toEqual([
      "implement FAIL incomplete superseded",
      "implement FAIL incomplete",
    ]);
    expect(asFail(ledger.rows[0]).claims).toEqual([
      {
        kind: "tests-count",
        passed: 2,
        total: null,
        quote: "All 2 tests pass.",
        contradiction: "claimed 2 passing tests; the receipt shows 0 passed of 1",
      },
    ]);
    expect(asFail(ledger.rows[1]).claims).toEqual([
      {
        kind: "tests-pass",
        quote: "Still all tests pass.",
        contradiction: "claimed the tests pass; the verify command failed (exit 1)",
      },
    ]);
    const markdown = renderLedgerMarkdown(ledger);
    expect(markdown).toContain(
      'the node said "All 2 tests pass." — contradicted: claimed 2 passing tests; the receipt shows 0 passed of 1',
    );
    expect(markdown).toContain(
      'the node said "Still all tests pass." — contradicted: claimed the tests pass; the verify command failed (exit 1)',
    );
  });

  it("a repaired attempt's true claim agrees with its passing build", async () => {
    const h = await harness({
      runtime,
      makeRepo: makeSampleNodeRepo,
      plays: {
        planner: [replied(runtime, PLAN)],
        implement: [
          replied(runtime, "Looked. I fixed it."),
          replied(runtime, "Fixed sum(); all tests pass.", { writes: { "src/sum.js": FIXED_SUM } }),
        ],
      },
    });
    const result = await h.auto({ goal: GOAL, verifyCmd: "node --test", repairAttempts: 1 });
    if (result.kind !== "finished") throw new Error(JSON.stringify(result));
    const { ledger } = result;

    expect(rowWords(ledger.rows)).toEqual([
      "implement FAIL incomplete superseded",
      "implement PASS (verified)",
    ]);
    expect(asFail(ledger.rows[0]).claims).toEqual([
      {
        kind: "fixed",
        quote: "I fixed it.",
        contradiction: "claimed a fix; the verify command failed (exit 1)",
      },
    ]);
    expect(asPass(ledger.rows[1]).claims).toEqual([
      { kind: "tests-pass", quote: "all tests pass.", contradiction: null },
    ]);
  });
});
