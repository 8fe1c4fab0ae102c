import { describe, expect, it } from "vitest";
import { type ConclusionInput, decideConclusion } from "../../src/ledger/conclusion.js";
import {
  ATTACHED,
  DECLARED,
  fail,
  NONE_DETECTED,
  OTHER_TREE,
  pass,
  STARTING_TREE,
  skipped,
  verifiedSink,
  verifyEvidence,
} from "./fixtures.js";

/** A finished two-node run (`write` → sink `check`) whose sink was verified on the posted commit's tree. */
function run(fields: Partial<ConclusionInput> = {}): ConclusionInput {
  return {
    rows: [pass("write"), verifiedSink("check")],
    sinks: ["check"],
    gateSinks: [],
    buildEvidence: ATTACHED,
    postedCommitTree: STARTING_TREE,
    requireEvidence: false,
    end: { kind: "completed" },
    ...fields,
  };
}

const failedVerify = verifyEvidence({
  exitCode: 1,
  outcome: "failed",
  outputTail: "error: cannot find symbol",
});

describe("decideConclusion — SPEC §6, row by row", () => {
  describe("success", () => {
    it("every node PASS and every non-gate sink PASS (verified) on the posted commit's tree is success", () => {
      const decided = decideConclusion(run());
      expect(decided).toMatchObject({ conclusion: "success", outcome: "passed", rule: "verified-on-commit" });
    });

    it("a gate sink beside a verified sink does not stop success: gates are not asked for build evidence", () => {
      const decided = decideConclusion(
        run({
          rows: [
            pass("write"),
            verifiedSink("check"),
            pass("release", { qualifier: "approved", sink: true }),
          ],
          sinks: ["check", "release"],
          gateSinks: ["release"],
        }),
      );
      expect(decided.conclusion).toBe("success");
    });

    it("verify mode (no model credential, a verify command given): a passing engine verify row decides success", () => {
      const decided = decideConclusion(
        run({ rows: [verifiedSink("verify", {})], sinks: ["verify"], gateSinks: [] }),
      );
      expect(decided).toMatchObject({ conclusion: "success", outcome: "passed" });
    });

    it("verify mode: a failing engine verify row decides failure", () => {
      const decided = decideConclusion(
        run({
          rows: [fail("verify", { cause: "verify_failed", sink: true, verify: failedVerify })],
          sinks: ["verify"],
        }),
      );
      expect(decided).toMatchObject({ conclusion: "failure", outcome: "failed", rule: "sink-verify-failed" });
    });
  });

  describe("no engine-run evidence", () => {
    it("every node PASS with build evidence declared absent is neutral", () => {
      const decided = decideConclusion(
        run({ rows: [pass("write"), pass("check", { sink: true })], buildEvidence: DECLARED }),
      );
      expect(decided).toMatchObject({ conclusion: "neutral", outcome: "passed", rule: "no-engine-evidence" });
      expect(decided.reason).toContain("package.json");
    });

    it("every node PASS with no build signal detected is neutral", () => {
      const decided = decideConclusion(
        run({
          rows: [pass("check", { sink: true, qualifier: "self-reported" })],
          buildEvidence: NONE_DETECTED,
        }),
      );
      expect(decided).toMatchObject({ conclusion: "neutral", rule: "no-engine-evidence" });
    });

    it("require-evidence turns a run without engine-run evidence from neutral into failure", () => {
      const decided = decideConclusion(
        run({ rows: [pass("check", { sink: true })], buildEvidence: NONE_DETECTED, requireEvidence: true }),
      );
      expect(decided).toMatchObject({ conclusion: "failure", outcome: "failed", rule: "no-engine-evidence" });
      expect(decided.reason).toContain("require-evidence: true");
    });

    it("require-evidence leaves a verified run on this commit a success", () => {
      expect(decideConclusion(run({ requireEvidence: true })).conclusion).toBe("success");
    });
  });

  describe("verified on a tree that is not the posted commit's", () => {
    it("is action_required, saying the evidence is for a patch that is not on this commit", () => {
      const decided = decideConclusion(
        run({ rows: [pass("write"), verifiedSink("check", { evidenceTree: OTHER_TREE })] }),
      );
      expect(decided).toMatchObject({
        conclusion: "action_required",
        outcome: "passed",
        rule: "verified-off-commit",
      });
      expect(decided.reason).toContain("the evidence is for a patch that is not on this commit");
      // The fix named is the tool's own (issue 17 item 9), not a bare "Push the patch".
      expect(decided.reason).toContain(
        "Commit the patch and verify that commit (`evidence-gate run --commit` or `auto --commit` does both when HEAD does not move during the run; the action's push: true pushes it), or re-run on a commit that contains it.",
      );
      expect(decided.reason).not.toContain("Push the patch");
    });

    it("a `verify` run off the commit is told to commit or stash and verify again, not about a --commit it lacks", () => {
      const row = { ...verifiedSink("verify", { evidenceTree: OTHER_TREE }), label: "verify (engine)" };
      const decided = decideConclusion(run({ rows: [row], sinks: ["verify"] }));
      expect(decided.rule).toBe("verified-off-commit");
      expect(decided.reason).toContain(
        "Commit (or stash) the uncommitted changes and run `evidence-gate verify` again",
      );
      expect(decided.reason).not.toContain("--commit");
    });

    it("one sink on the commit's tree and one off it is action_required: the sinks verified different trees, and the reason says the files were not verified as a whole", () => {
      const decided = decideConclusion(
        run({
          rows: [verifiedSink("a"), verifiedSink("b", { evidenceTree: OTHER_TREE })],
          sinks: ["a", "b"],
        }),
      );
      expect(decided).toMatchObject({ conclusion: "action_required", rule: "verified-different-trees" });
      expect(decided.reason).toContain(`sink "b": ${OTHER_TREE.slice(0, 12)}`);
      expect(decided.reason).toContain("Do not push the patch as it is");
    });

    it("two sinks on one tree (off the commit) are verified-off-commit, not different trees", () => {
      const decided = decideConclusion(
        run({
          rows: [
            verifiedSink("a", { evidenceTree: OTHER_TREE }),
            verifiedSink("b", { evidenceTree: OTHER_TREE }),
          ],
          sinks: ["a", "b"],
        }),
      );
      expect(decided.rule).toBe("verified-off-commit");
    });

    it("a verified sink whose tree is unknown is not success (the evidence cannot be tied to this commit)", () => {
      expect(decideConclusion(run({ postedCommitTree: null }))).toMatchObject({
        conclusion: "neutral",
        rule: "verified-tree-unknown",
      });
      const noTree = decideConclusion(
        run({ rows: [pass("write"), verifiedSink("check", { evidenceTree: null })] }),
      );
      expect(noTree.conclusion).toBe("neutral");
    });
  });

  describe("partly verified, or only gates", () => {
    it("some sinks verified and some not is neutral: success needs every non-gate sink verified", () => {
      const decided = decideConclusion(
        run({ rows: [verifiedSink("a"), pass("b", { sink: true })], sinks: ["a", "b"] }),
      );
      expect(decided).toMatchObject({ conclusion: "neutral", rule: "partially-verified" });
      expect(decided.reason).toContain('"b"');
    });

    it("every sink a gate is neutral: an approval is not build evidence", () => {
      const decided = decideConclusion(
        run({
          rows: [pass("write"), pass("release", { qualifier: "approved", sink: true })],
          sinks: ["release"],
          gateSinks: ["release"],
        }),
      );
      expect(decided).toMatchObject({ conclusion: "neutral", rule: "only-gate-sinks" });
    });

    it("require-evidence turns partly verified and gates-only runs into failure too", () => {
      const partly = run({ rows: [verifiedSink("a"), pass("b", { sink: true })], sinks: ["a", "b"] });
      expect(decideConclusion({ ...partly, requireEvidence: true }).conclusion).toBe("failure");
      const gates = run({
        rows: [pass("release", { qualifier: "approved", sink: true })],
        sinks: ["release"],
        gateSinks: ["release"],
        requireEvidence: true,
      });
      expect(decideConclusion(gates).conclusion).toBe("failure");
    });
  });

  describe("failure", () => {
    it("any node FAIL is failure, even when the sink was verified", () => {
      const decided = decideConclusion(
        run({ rows: [fail("lint", { cause: "result_mismatch" }), pass("write"), verifiedSink("check")] }),
      );
      expect(decided).toMatchObject({ conclusion: "failure", outcome: "failed", rule: "node-failed" });
      expect(decided.reason).toContain("result_mismatch");
    });

    it("a sink FAIL with verify_failed is never success, and names the command and exit code", () => {
      const decided = decideConclusion(
        run({
          rows: [pass("write"), fail("check", { cause: "verify_failed", sink: true, verify: failedVerify })],
        }),
      );
      expect(decided).toMatchObject({ conclusion: "failure", rule: "sink-verify-failed" });
      expect(decided.reason).toContain('"npm test"');
      expect(decided.reason).toContain("exited 1 (expected 0)");
    });

    it("a sink verify that did not pass fails the run even on a row that claims PASS", () => {
      const lying = pass("check", { qualifier: "verified", sink: true, verify: failedVerify });
      expect(decideConclusion(run({ rows: [pass("write"), lying] })).conclusion).toBe("failure");
    });

    it("a verify that timed out or could not start is never a silent pass", () => {
      for (const outcome of ["timed_out", "spawn_failed"] as const) {
        const verify = verifyEvidence({ exitCode: null, outcome });
        const decided = decideConclusion(
          run({ rows: [pass("write"), fail("check", { cause: "verify_failed", sink: true, verify })] }),
        );
        expect(decided.conclusion).toBe("failure");
      }
    });

    it("a FAIL followed by a PASS of the same node still fails unless the engine marked it superseded", () => {
      const rows = [
        pass("write"),
        fail("check", { cause: "verify_failed", sink: true, verify: failedVerify }),
      ];
      expect(decideConclusion(run({ rows: [...rows, verifiedSink("check")] })).conclusion).toBe("failure");
    });

    it("a FAIL superseded by a later passing attempt of the same node does not decide the run", () => {
      const rows = [
        pass("write"),
        fail("check", { cause: "verify_failed", sink: true, verify: failedVerify, superseded: true }),
        verifiedSink("check"),
      ];
      expect(decideConclusion(run({ rows })).conclusion).toBe("success");
    });

    it("a FAIL marked superseded with no later attempt still fails the run", () => {
      const rows = [pass("write"), fail("check", { cause: "verify_failed", sink: true, superseded: true })];
      expect(decideConclusion(run({ rows })).conclusion).toBe("failure");
    });

    it("a completed run with a sink that never ran is failure, not neutral", () => {
      expect(decideConclusion(run({ rows: [pass("write")] }))).toMatchObject({
        conclusion: "failure",
        rule: "node-did-not-run",
      });
      expect(
        decideConclusion(run({ rows: [pass("write"), skipped("check", { sink: true })] })).conclusion,
      ).toBe("failure");
    });

    it("a plan refused twice is failure", () => {
      const decided = decideConclusion(
        run({ rows: [], end: { kind: "plan-refused", refusals: ["tool WebFetch"] } }),
      );
      expect(decided).toMatchObject({ conclusion: "failure", outcome: "failed", rule: "plan-refused" });
      expect(decided.reason).toContain("tool WebFetch");
    });

    it("a planning failure is failure headlined as one, never 'engine error'; a refused credential is named (issue 26)", () => {
      const unusable = decideConclusion(
        run({ rows: [], end: { kind: "planning-failed", message: "the reply holds no JSON plan" } }),
      );
      expect(unusable).toMatchObject({
        conclusion: "failure",
        outcome: "failed",
        rule: "planning-failed",
        title: "Failed: planning failed (no usable plan)",
      });
      expect(unusable.reason).toBe("Planning failed: the reply holds no JSON plan. No node ran.");
      // A message that ends its own sentence (the model API's advice) gets no second full stop.
      const ended = decideConclusion(
        run({
          rows: [],
          end: { kind: "planning-failed", message: "the API answered 500. Check the model API." },
        }),
      );
      expect(ended.reason).toBe("Planning failed: the API answered 500. Check the model API. No node ran.");
      const noKey = decideConclusion(
        run({
          rows: [],
          end: {
            kind: "planning-failed",
            message: "the planner call failed: Invalid API key · Please run /login",
          },
        }),
      );
      expect(noKey.title).not.toMatch(/engine error/i);
      expect(noKey.reason).toContain("The model API refused the credential: check the model key");
    });

    it("a model CLI that could not be installed is failure, the runner's environment named, never a usage error (issue 26)", () => {
      const decided = decideConclusion(
        run({
          rows: [],
          end: {
            kind: "setup-failed",
            message: "could not install @anthropic-ai/claude-code@2.1.332: npm exited 1.",
          },
        }),
      );
      expect(decided).toMatchObject({
        conclusion: "failure",
        outcome: "failed",
        rule: "setup-failed",
        title: "Failed: the model CLI could not be installed",
      });
      expect(decided.reason).toContain("not your inputs");
      expect(decided.reason).toContain("Nothing ran and nothing was spent.");
    });

    it("an engine error is failure whatever the rows say", () => {
      const decided = decideConclusion(
        run({ end: { kind: "engine-error", message: "state.json: disk full" } }),
      );
      expect(decided).toMatchObject({ conclusion: "failure", outcome: "failed", rule: "engine-error" });
      expect(decided.reason).toContain("disk full");
    });
  });

  describe("action_required: refused, usage errors, pauses", () => {
    it("refused for build evidence is action_required with outcome refused", () => {
      const decided = decideConclusion(
        run({ rows: [], end: { kind: "refused", reason: "build-evidence", message: "Found package.json." } }),
      );
      expect(decided).toMatchObject({ conclusion: "action_required", outcome: "refused", rule: "refused" });
      expect(decided.reason).toContain("Nothing ran and nothing was spent.");
    });

    it("no model credential and no verify command is action_required saying nothing ran", () => {
      const decided = decideConclusion(
        run({ rows: [], end: { kind: "refused", reason: "no-credential", message: "Add a verify-cmd." } }),
      );
      expect(decided).toMatchObject({ conclusion: "action_required", outcome: "refused" });
      expect(decided.reason).toContain("Nothing ran");
    });

    it("a usage error is action_required with outcome usage-error", () => {
      const decided = decideConclusion(
        run({ rows: [], end: { kind: "usage-error", message: "goal and graph were both given." } }),
      );
      expect(decided).toMatchObject({ conclusion: "action_required", outcome: "usage-error" });
      expect(decided.reason).toContain("goal and graph");
    });

    it("paused at a gate is action_required with outcome paused, naming the gate", () => {
      const decided = decideConclusion(
        run({ rows: [pass("write")], end: { kind: "paused", reason: "gate", nodeId: "release" } }),
      );
      expect(decided).toMatchObject({ conclusion: "action_required", outcome: "paused", rule: "paused" });
      expect(decided.title).toContain("release");
    });

    it("a session limit is a pause, not a failure", () => {
      const decided = decideConclusion(
        run({ rows: [pass("write")], end: { kind: "paused", reason: "session-limit", nodeId: "check" } }),
      );
      expect(decided).toMatchObject({ conclusion: "action_required", outcome: "paused" });
      expect(decided.reason).toContain("--retry-failed");
    });

    it("a FAIL recorded before a pause is failure: approving the gate cannot make the run green", () => {
      const decided = decideConclusion(
        run({ rows: [fail("write")], end: { kind: "paused", reason: "gate", nodeId: "release" } }),
      );
      expect(decided.conclusion).toBe("failure");
    });
  });

  describe("cancelled, abandoned, timed out", () => {
    it("a cancelled workflow is cancelled", () => {
      expect(decideConclusion(run({ end: { kind: "cancelled" } }))).toMatchObject({
        conclusion: "cancelled",
        outcome: "cancelled",
      });
    });

    it("an abandoned run (check still in progress at the post step) is failure", () => {
      expect(decideConclusion(run({ end: { kind: "abandoned" } }))).toMatchObject({
        conclusion: "failure",
        rule: "abandoned",
      });
    });

    it("a run over timeout-minutes is timed_out with outcome timed-out", () => {
      const decided = decideConclusion(
        run({ end: { kind: "timed-out", limit: "30 min", setting: "timeout-minutes" } }),
      );
      expect(decided).toMatchObject({ conclusion: "timed_out", outcome: "timed-out" });
      expect(decided.reason).toContain("(timeout-minutes 30 min)");
      expect(decided.title).toBe("Timed out after 30 min");
    });
  });
});
