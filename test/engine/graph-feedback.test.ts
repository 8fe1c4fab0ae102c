/**
 * Feedback arcs at run time (SPEC §3 `feedback`, §4 "Failure"; research/oh-my-graph.md §2.5, §6.5): a
 * judgment failure of the declarer (`result_mismatch`, `verify_failed`, `nonzero_exit`) re-runs the arc's
 * body with the payload in `{{ feedback.DECLARER }}`, each body row says `feedback round k/N`, exhaustion
 * names the rounds, and an infrastructure fault (a verify that timed out) never fires it. The load rules
 * are tested in test/graph/validate.test.ts.
 *
 * Every test runs through the model port (./port-harness.ts) on ONE runtime, claude or codex in turn
 * ({@link describeEachBehaviourOnce}): feedback arcs are the engine's alone (it never branches on the
 * runtime: test/architecture/runtime-branches.test.ts), and each play is a plain reply or a CLI that cannot
 * start, whose stream each runtime's parser is tested on in test/runtime/claude-stream.test.ts and
 * codex-stream.test.ts. Each node's calls are scripted plays of its runtime's stream, read by the real
 * parsers, in a real repository with real verify commands; the fix a node makes is the play's `writes`. The
 * fix made by the real CLI's own edit tool is graph-feedback.real-cli.test.ts.
 */
import { describe, expect } from "vitest";
import { FIXED_SUM, makeSampleNodeRepo, SAMPLE_TEST_NAME } from "../support/temp-repo.js";
import { portHarnessPerTest, replied, type ScriptedPlay } from "./port-harness.js";
import { asFail, readEvents, readState, rowsOf, rowWords } from "./run-readers.js";
import { describeEachBehaviourOnce } from "./runtime-harness.js";

const harness = portHarnessPerTest();

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
const CHANGES = `CHANGES_REQUESTED: ${REVIEW_NOTE}`;

describeEachBehaviourOnce("on %s", (runtime, once) => {
  /** Implement replies `version N` in round N-1, test says the tests pass, review says `reviews` in order. */
  const reviewLoop = (rounds: number, reviews: readonly ScriptedPlay[]) => ({
    implement: Array.from({ length: rounds }, (_, i) => replied(runtime, `version ${i + 1}`)),
    test: Array.from({ length: rounds }, () => replied(runtime, "tests pass")),
    review: reviews,
  });

  describe("a feedback arc re-runs its body with the payload (research §2.5)", () => {
    once(
      "result_mismatch fires it: the payload reaches {{ feedback.review }}, body rows say the round, and the run passes",
      async () => {
        const h = await harness({
          runtime,
          plays: reviewLoop(2, [replied(runtime, CHANGES), replied(runtime, "APPROVED: looks good")]),
        });
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
        const [pass0, pass1] = h.callsOf("implement");
        expect(pass0!.prompt).not.toContain("feedback round");
        expect(pass1!.prompt).toContain("feedback round 1/2 from node review (cause result_mismatch)");
        expect(pass1!.prompt).toMatch(
          new RegExp(`<<<DATA feedback-payload nonce=(\\w+)>>>\\n${CHANGES}\\n<<<END DATA nonce=\\1>>>`),
        );
        // The second review read the implementer's newer artifact.
        expect(h.callsOf("review")[1]!.prompt).toContain("version 2");
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
        const changes = Array.from({ length: 3 }, () => replied(runtime, CHANGES));
        const h = await harness({ runtime, plays: reviewLoop(3, changes) });
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
        expect(h.callsOf("implement")[2]!.prompt).toContain(
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
          plays: {
            implement: [
              replied(runtime, "The code looks right to me."),
              replied(runtime, "Fixed the operator.", { writes: { "src/sum.js": FIXED_SUM } }),
            ],
            check: [replied(runtime, "Ran the tests."), replied(runtime, "Ran the tests.")],
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
        const round1 = h.callsOf("implement")[1]!.prompt;
        expect(round1).toContain("feedback round 1/1 from node check (cause verify_failed)");
        expect(round1).toContain("verification command: node --test");
        expect(round1).toContain("exit code: 1 (expected 0)");
        expect(round1).toContain(SAMPLE_TEST_NAME);
        // Verified — on the fixed working tree, which is not the commit the run started on.
        expect(ledger.conclusion).toMatchObject({
          conclusion: "action_required",
          outcome: "passed",
          rule: "verified-off-commit",
        });
      },
    );

    once("nonzero_exit fires it (a clean result, then a non-zero exit)", async () => {
      const h = await harness({
        runtime,
        plays: reviewLoop(2, [
          replied(runtime, "crashed after replying", { exitCode: 2 }),
          replied(runtime, "APPROVED"),
        ]),
      });
      const { ledger } = await h.run(
        REVIEW_LOOP.replace(
          'success_check: { exit_zero: true, result_matches: "^APPROVED" }',
          "success_check: { exit_zero: true }",
        ),
      );
      expect(rowWords(ledger.rows)).toEqual([
        "implement PASS (exit-only)",
        "implement PASS (exit-only)",
        "test PASS (exit-only)",
        "test PASS (exit-only)",
        "review FAIL nonzero_exit superseded",
        "review PASS (exit-only)",
      ]);
      expect(h.callsOf("implement")[1]!.prompt).toContain(
        "feedback round 1/2 from node review (cause nonzero_exit)",
      );
    });

    once(
      "an infrastructure fault (the declarer's verify timed out) does not fire it: the body ran once and the FAIL is final",
      async () => {
        const h = await harness({ runtime, plays: reviewLoop(1, [replied(runtime, "APPROVED")]) });
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

    once(
      "a failure the arc does not answer (run_error: the CLI could not start) does not fire it either",
      async () => {
        const h = await harness({
          runtime,
          plays: reviewLoop(1, [{ spawnFailed: "spawn model-cli ENOENT" }]),
        });
        const { ledger } = await h.run(REVIEW_LOOP);
        expect(rowWords(ledger.rows)).toEqual([
          "implement PASS (exit-only)",
          "test PASS (exit-only)",
          "review FAIL run_error",
        ]);
        expect(h.spawnsOf("implement")).toBe(1);
      },
    );

    once("the node's own retries come first: the arc fires only once they are spent", async () => {
      const h = await harness({
        runtime,
        plays: reviewLoop(2, [
          replied(runtime, CHANGES),
          replied(runtime, CHANGES),
          replied(runtime, "APPROVED"),
        ]),
      });
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
        const changes = Array.from({ length: 3 }, () => replied(runtime, CHANGES));
        const first = reviewLoop(3, changes);
        const h = await harness({
          runtime,
          plays: {
            implement: [...first.implement, replied(runtime, "version 4")],
            test: [...first.test, replied(runtime, "tests pass")],
            review: [...first.review, replied(runtime, "APPROVED")],
          },
        });
        const exhausted = await h.run(REVIEW_LOOP);
        expect(exhausted.ledger.conclusion).toMatchObject({ conclusion: "failure" });

        const { ledger, runDir } = await h.resume(exhausted.runId, { kind: "retry-failed" });

        // One more call each in the resumed leg; the reviewer is quoted the judged reply it gave.
        expect(h.spawnsOf("implement")).toBe(4);
        expect(h.spawnsOf("test")).toBe(4);
        expect(h.spawnsOf("review")).toBe(4);
        expect(h.callsOf("review")[3]!.prompt).toContain("previous-attempt-reply");
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
