/**
 * Feedback arcs at run time (SPEC §3 `feedback`, §4 "Failure"; research/oh-my-graph.md §2.5, §6.5): a
 * judgment failure of the declarer (`result_mismatch`, `verify_failed`, `nonzero_exit`) re-runs the arc's
 * body with the payload in `{{ feedback.DECLARER }}`, each body row says `feedback round k/N`, exhaustion
 * names the rounds, and an infrastructure fault (a verify that timed out) never fires it. The load rules
 * are tested in test/graph/validate.test.ts.
 *
 * Every test runs on BOTH runtimes: the real `claude` / `codex` CLI against the scripted model server
 * (the fix made with the runtime's own tools); the model server is stateless, so each round's reply is
 * chosen by what its prompt quotes (the payload, or the implementer's newer artifact). The fake plays only
 * the `nonzero_exit` of a clean result, which the real CLIs never produce, in the runtime's own stream.
 */
import { describe, expect } from "vitest";
import { answeredScenario } from "../support/fake-claude/index.js";
import type { ModelScript } from "../support/model-server/index.js";
import { makeSampleNodeRepo, SAMPLE_TEST_NAME, type TempRepo } from "../support/temp-repo.js";
import {
  asFail,
  graphHarnessPerTest,
  readEvents,
  readState,
  requestsOf,
  rowsOf,
  rowWords,
} from "./graph-harness.js";
import { describeEachBehaviourOnce, editCall, readCall } from "./runtime-harness.js";

const harness = graphHarnessPerTest();

/** implement → test → review, review re-runs implement (max 2). */
const REVIEW_LOOP = `
name: review-loop
nodes:
  - id: implement
    prompt: |-
      IMPLEMENT-MARK: add input validation to sum() in src/sum.js.
      Reviewer feedback from the last round (empty on the first pass):
      {{ feedback.review }}
    allowed_tools: [Read, Edit]
  - id: test
    depends_on: [implement]
    prompt: "TEST-MARK: run the unit tests against this change: {{ artifacts.implement | inline }}"
    allowed_tools: [Read]
  - id: review
    depends_on: [test]
    prompt: "REVIEW-MARK: review this change: {{ artifacts.implement | inline }}. Start with APPROVED, or list what to change."
    allowed_tools: [Read]
    success_check: { exit_zero: true, result_matches: "^APPROVED" }
    feedback: { rerun: implement, max: 2 }
`;

const REVIEW_NOTE = "Reject non-numbers with a TypeError.";

/** Implement replies `version N` by round; review approves `version 2` (or never, with `approve: null`). */
function reviewLoopScript(approve: string | null): ModelScript {
  return {
    conversations: [
      {
        name: "implement-2",
        match: ["IMPLEMENT-MARK", "feedback round 2/2"],
        turns: [{ text: "version 3" }],
      },
      {
        name: "implement-1",
        match: ["IMPLEMENT-MARK", "feedback round 1/2"],
        turns: [{ text: "version 2" }],
      },
      { name: "implement-0", match: "IMPLEMENT-MARK", turns: [{ text: "version 1" }] },
      { name: "test", match: "TEST-MARK", turns: [{ text: "tests pass" }] },
      ...(approve !== null
        ? [{ name: "review-ok", match: ["REVIEW-MARK", approve], turns: [{ text: "APPROVED: looks good" }] }]
        : []),
      { name: "review", match: "REVIEW-MARK", turns: [{ text: `CHANGES_REQUESTED: ${REVIEW_NOTE}` }] },
    ],
  };
}

describeEachBehaviourOnce("on %s", (runtime, once) => {
  describe("a feedback arc re-runs its body with the payload (research §2.5)", () => {
    once(
      "result_mismatch fires it: the payload reaches {{ feedback.review }}, body rows say the round, and the run passes",
      async () => {
        const h = await harness({ runtime, script: () => reviewLoopScript("version 2") });
        const { ledger, runDir } = await h.run(REVIEW_LOOP);

        expect(rowWords(ledger.rows)).toEqual([
          "implement PASS (exit-only)",
          "implement PASS (exit-only)",
          "test PASS (exit-only)",
          "test PASS (exit-only)",
          "review FAIL result_mismatch superseded",
          "review PASS (self-reported)",
        ]);
        // The first pass sees an empty payload; round 1 sees the review, fenced, under a header.
        const [pass0] = requestsOf(h.server.requests, "implement-0");
        expect(pass0!.promptText).not.toContain("feedback round");
        const [pass1] = requestsOf(h.server.requests, "implement-1");
        expect(pass1!.promptText).toContain("feedback round 1/2 from node review (cause result_mismatch)");
        expect(pass1!.promptText).toMatch(
          new RegExp(
            `<<<DATA feedback-payload nonce=(\\w+)>>>\\nCHANGES_REQUESTED: ${REVIEW_NOTE}\\n<<<END DATA nonce=\\1>>>`,
          ),
        );
        // Round 1's rows say so; round 0's do not.
        for (const node of ["implement", "test", "review"]) {
          const details = rowsOf(ledger.rows, node).map((r) => r.detail);
          expect(details[0], node).not.toContain("feedback round");
          expect(details[1], node).toContain("feedback round 1/2");
        }
        expect(ledger.conclusion).toMatchObject({ conclusion: "neutral", outcome: "passed" });

        const fired = readEvents(runDir).filter((e) => e.type === "node_retried");
        expect(fired).toEqual([
          expect.objectContaining({ node: "review", cause: "result_mismatch", round: 1, rerun: "implement" }),
        ]);
        const state = readState(runDir);
        expect(state.nodes).toMatchObject({
          implement: { status: "passed", executions: 2 },
          test: { status: "passed", executions: 2 },
          review: { status: "passed", executions: 2, feedback_rounds: 1 },
        });
      },
    );

    once(
      "exhausted: after max rounds the declarer's FAIL names the rounds, the body ran 1 + max times, and the run fails",
      async () => {
        const h = await harness({ runtime, script: () => reviewLoopScript(null) });
        const { ledger, runDir } = await h.run(REVIEW_LOOP);

        expect(rowWords(ledger.rows)).toEqual([
          "implement PASS (exit-only)",
          "implement PASS (exit-only)",
          "implement PASS (exit-only)",
          "test PASS (exit-only)",
          "test PASS (exit-only)",
          "test PASS (exit-only)",
          "review FAIL result_mismatch superseded",
          "review FAIL result_mismatch superseded",
          "review FAIL result_mismatch",
        ]);
        const last = asFail(ledger.rows[8]);
        expect(last.detail).toMatch(
          /^feedback exhausted after 2 rounds of implement → review: result_mismatch: /,
        );
        expect(last.detail).toContain("feedback round 2/2");
        expect(requestsOf(h.server.requests, "implement-2")[0]!.promptText).toContain(
          "feedback round 2/2 from node review (cause result_mismatch)",
        );
        expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
        expect(
          readEvents(runDir)
            .filter((e) => e.type === "node_retried")
            .map((e) => e.round),
        ).toEqual([1, 2]);
        expect(readState(runDir).nodes.review).toMatchObject({ status: "failed", feedback_rounds: 2 });
      },
    );

    once(
      "verify_failed fires it: the payload is the verification's evidence (command, exit code, output), and the fix verifies",
      async () => {
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
      },
    );

    once("nonzero_exit fires it", async () => {
      const h = await harness({ runtime, script: () => reviewLoopScript("version 2") });
      const { ledger } = await h.run(
        REVIEW_LOOP.replace(
          'success_check: { exit_zero: true, result_matches: "^APPROVED" }',
          "success_check: { exit_zero: true }",
        ),
        {
          executions: {
            review: [answeredScenario(runtime, "crashed after replying", 2)],
          },
        },
      );
      expect(rowWords(ledger.rows)).toEqual([
        "implement PASS (exit-only)",
        "implement PASS (exit-only)",
        "test PASS (exit-only)",
        "test PASS (exit-only)",
        "review FAIL nonzero_exit superseded",
        "review PASS (exit-only)",
      ]);
      expect(requestsOf(h.server.requests, "implement-1")[0]!.promptText).toContain(
        "feedback round 1/2 from node review (cause nonzero_exit)",
      );
    });

    once(
      "an infrastructure fault (the declarer's verify timed out) does not fire it: the body ran once and the FAIL is final",
      async () => {
        const h = await harness({ runtime, script: () => reviewLoopScript("version 2") });
        const { ledger, runDir } = await h.run(
          REVIEW_LOOP.replace(
            'success_check: { exit_zero: true, result_matches: "^APPROVED" }',
            'success_check: { verify: { command: "sleep 30", timeout: 1s } }',
          ),
        );
        expect(rowWords(ledger.rows)).toEqual([
          "implement PASS (exit-only)",
          "test PASS (exit-only)",
          "review FAIL verify_failed",
        ]);
        const review = asFail(ledger.rows[2]);
        expect(review.verify?.outcome).toBe("timed_out");
        expect(review.detail).not.toContain("feedback");
        expect(h.spawnsOf("implement")).toBe(1);
        expect(readEvents(runDir).filter((e) => e.type === "node_retried")).toEqual([]);
        expect(ledger.conclusion).toMatchObject({ conclusion: "failure" });
      },
    );

    once("a failure the arc does not answer (run_error) does not fire it either", async () => {
      const h = await harness({ runtime, script: () => reviewLoopScript("version 2") });
      const { ledger } = await h.run(REVIEW_LOOP, { executions: { review: ["spawn-error"] } });
      expect(rowWords(ledger.rows)).toEqual([
        "implement PASS (exit-only)",
        "test PASS (exit-only)",
        "review FAIL run_error",
      ]);
      expect(h.spawnsOf("implement")).toBe(1);
    });

    once("the node's own retries come first: the arc fires only once they are spent", async () => {
      const h = await harness({ runtime, script: () => reviewLoopScript("version 2") });
      const { ledger, runDir } = await h.run(
        REVIEW_LOOP.replace(
          "feedback: { rerun: implement, max: 2 }",
          "feedback: { rerun: implement, max: 2 }\n    retry: { max: 1, on: [result_mismatch] }",
        ),
      );
      expect(rowWords(rowsOf(ledger.rows, "review"))).toEqual([
        "review FAIL result_mismatch superseded",
        "review FAIL result_mismatch superseded",
        "review PASS (self-reported)",
      ]);
      expect(h.spawnsOf("implement")).toBe(2);
      const kinds = readEvents(runDir)
        .filter((e) => e.type === "node_retried")
        .map((e) => (e.round !== undefined ? `round ${e.round}` : `attempt ${e.attempt}`));
      expect(kinds).toEqual(["attempt 2", "round 1"]);
    });

    once(
      "--retry-failed after an exhausted arc re-arms the loop: the whole body runs again, with a fresh round count",
      async () => {
        const h = await harness({ runtime, script: () => reviewLoopScript(null) });
        const exhausted = await h.run(REVIEW_LOOP);
        expect(exhausted.ledger.conclusion).toMatchObject({ conclusion: "failure" });

        // The reviewer is satisfied now (the judged reply it gave is quoted to it).
        const server = await h.replaceServer({
          conversations: [
            { name: "implement", match: "IMPLEMENT-MARK", turns: [{ text: "version 4" }] },
            { name: "test", match: "TEST-MARK", turns: [{ text: "tests pass" }] },
            {
              name: "review",
              match: ["REVIEW-MARK", "previous-attempt-reply"],
              turns: [{ text: "APPROVED" }],
            },
          ],
        });
        const { ledger, runDir } = await h.resume(exhausted.runId, { kind: "retry-failed" });

        expect(requestsOf(server.requests, "implement")).toHaveLength(1);
        expect(requestsOf(server.requests, "test")).toHaveLength(1);
        expect(requestsOf(server.requests, "review")).toHaveLength(1);
        expect(rowWords(rowsOf(ledger.rows, "review"))).toEqual([
          "review FAIL result_mismatch superseded",
          "review FAIL result_mismatch superseded",
          "review FAIL result_mismatch superseded",
          "review PASS (self-reported)",
        ]);
        expect(rowsOf(ledger.rows, "implement")).toHaveLength(4);
        expect(ledger.conclusion).toMatchObject({ conclusion: "neutral", outcome: "passed" });
        expect(readState(runDir).nodes).toMatchObject({
          implement: { status: "passed", executions: 4 },
          review: { status: "passed", executions: 4 },
        });
      },
    );
  });
});
