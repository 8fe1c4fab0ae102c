/**
 * A feedback arc through the REAL CLI (SPEC §3 `feedback`): the verify command's failure reaches the
 * implementer, whose real CLI fixes the file with its own edit tool, and the fix verifies. What only the
 * real binary shows here is the fix made through the runtime's own tools against the scripted model server;
 * the engine's handling of feedback arcs on both runtimes is tested through the model port in
 * graph-feedback.test.ts.
 */
import { describe, expect, test } from "vitest";
import { makeSampleNodeRepo, SAMPLE_TEST_NAME, type TempRepo } from "../support/temp-repo.js";
import { graphHarnessPerTest, requestsOf, rowWords } from "./graph-harness.js";
import { editCall, readCall } from "./runtime-harness.js";

const harness = graphHarnessPerTest();

describe("on claude", () => {
  const runtime = "claude";
  describe("a feedback arc re-runs its body with the payload (research §2.5)", () => {
    test("verify_failed fires it: the payload is the verification's evidence (command, exit code, output), and the fix verifies", async () => {
      const h = await harness({
        runtime,
        makeRepo: makeSampleNodeRepo,
        script: (repo: TempRepo) => {
          const file = `${repo.dir}/src/sum.js`;
          return {
            conversations: [
              {
                name: "implement-1",
                match: ["IMPLEMENT-MARK", "verification command: node --test"],
                turns: [
                  { tool_calls: [readCall(runtime, file)] },
                  { tool_calls: [editCall(runtime, file, "  return a - b;", "  return a + b;")] },
                  { text: "Fixed the operator." },
                ],
              },
              {
                name: "implement-0",
                match: "IMPLEMENT-MARK",
                turns: [{ text: "The code looks right to me." }],
              },
              { name: "check", match: "CHECK-MARK", turns: [{ text: "Ran the tests." }] },
            ],
          };
        },
      });
      const { ledger } = await h.run(`
name: verify-loop
nodes:
  - id: implement
    prompt: |-
      IMPLEMENT-MARK: make the unit tests pass.
      {{ feedback.check }}
    allowed_tools: [Read, Edit]
  - id: check
    depends_on: [implement]
    prompt: "CHECK-MARK: run the unit tests."
    allowed_tools: [Read]
    success_check: { verify: { command: "node --test" } }
    feedback: { rerun: implement, max: 1 }
`);
      expect(rowWords(ledger.rows)).toEqual([
        "implement PASS (exit-only)",
        "implement PASS (exit-only)",
        "check FAIL verify_failed superseded",
        "check PASS (verified)",
      ]);
      const [round1] = requestsOf(h.server.requests, "implement-1");
      expect(round1!.promptText).toContain("feedback round 1/1 from node check (cause verify_failed)");
      expect(round1!.promptText).toContain("exit code: 1 (expected 0)");
      expect(round1!.promptText).toContain(SAMPLE_TEST_NAME);
      // Verified — on the fixed working tree, which is not the commit the run started on.
      expect(ledger.conclusion).toMatchObject({
        conclusion: "action_required",
        outcome: "passed",
        rule: "verified-off-commit",
      });
    });
  });
});
