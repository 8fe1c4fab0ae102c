/**
 * `agreedWithRun`, `needsProvenance` and `provenanceRefusal` (issue 22 items 1 and 2): GitHub's verdict on
 * the run bounds the ledger's, and a run whose provenance is not the base branch's is never a verdict.
 */
import { describe, expect, it } from "vitest";
import { agreedWithRun, needsProvenance, provenanceRefusal } from "../../src/github/run-verdict.js";
import type { WorkflowRunEvent } from "../../src/github/workflow-run-event.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";

const RUN = 30_433_642;

/** SUCCESS_LEDGER with another conclusion, its outcome still `passed` (the step passed). */
function withConclusion(conclusion: "neutral" | "action_required"): Ledger {
  return { ...SUCCESS_LEDGER, conclusion: { ...SUCCESS_LEDGER.conclusion!, conclusion } };
}

describe("agreedWithRun", () => {
  it("a success ledger keeps its conclusion only when GitHub says success", () => {
    expect(agreedWithRun(SUCCESS_LEDGER, { runId: RUN, conclusion: "success" })).toBe(SUCCESS_LEDGER);
    for (const [github, posted, outcome] of [
      ["failure", "failure", "failed"],
      ["cancelled", "cancelled", "cancelled"],
      ["timed_out", "timed_out", "timed-out"],
      ["startup_failure", "failure", "failed"],
      [null, "failure", "failed"],
    ] as const) {
      const agreed = agreedWithRun(SUCCESS_LEDGER, { runId: RUN, conclusion: github });
      expect(agreed.conclusion).toMatchObject({
        conclusion: posted,
        outcome,
        rule: "workflow-run-not-success",
      });
      expect(agreed.conclusion!.title).toBe(
        `Workflow run ${RUN} ended ${github ?? "no conclusion"}; its ledger says success`,
      );
      expect(agreed.rows).toBe(SUCCESS_LEDGER.rows);
    }
  });

  it("a ledger whose step would have passed (neutral, paused, action_required with outcome passed) is bounded too; one whose outcome failed its step keeps its conclusion", () => {
    const paused: Ledger = {
      ...SUCCESS_LEDGER,
      conclusion: { ...SUCCESS_LEDGER.conclusion!, conclusion: "action_required", outcome: "paused" },
    };
    for (const ledger of [withConclusion("neutral"), withConclusion("action_required"), paused]) {
      expect(agreedWithRun(ledger, { runId: RUN, conclusion: "failure" }).conclusion).toMatchObject({
        conclusion: "failure",
        rule: "workflow-run-not-success",
      });
    }
    const refused: Ledger = {
      ...SUCCESS_LEDGER,
      conclusion: { ...SUCCESS_LEDGER.conclusion!, conclusion: "action_required", outcome: "refused" },
    };
    const cancelled: Ledger = {
      ...SUCCESS_LEDGER,
      conclusion: { ...SUCCESS_LEDGER.conclusion!, conclusion: "cancelled", outcome: "cancelled" },
    };
    for (const ledger of [FAILURE_LEDGER, refused, cancelled]) {
      expect(agreedWithRun(ledger, { runId: RUN, conclusion: "failure" })).toBe(ledger);
    }
  });
});

describe("needsProvenance", () => {
  it("what could pass or resume needs it; what is posted as failing does not", () => {
    expect(needsProvenance(SUCCESS_LEDGER, { runId: RUN, conclusion: "success" })).toBe(true);
    expect(needsProvenance(withConclusion("neutral"), { runId: RUN, conclusion: "success" })).toBe(true);
    expect(needsProvenance(withConclusion("action_required"), { runId: RUN, conclusion: "success" })).toBe(
      true,
    );
    expect(needsProvenance(SUCCESS_LEDGER, { runId: RUN, conclusion: "failure" })).toBe(false);
    expect(needsProvenance(FAILURE_LEDGER, { runId: RUN, conclusion: "success" })).toBe(false);
  });
});

describe("provenanceRefusal", () => {
  const upstream = { runId: RUN } as WorkflowRunEvent;
  const words = { upstream, provenance: "PROVENANCE", permissions: "`pull-requests: read`" };

  it("base: nothing to refuse", () => {
    expect(provenanceRefusal({ kind: "base", pullRequests: [7] }, words)).toBeNull();
  });

  it("rewritten: action_required, each file with its role, what a writer does, the provenance last", () => {
    const refusal = provenanceRefusal(
      {
        kind: "rewritten",
        pullRequest: 7,
        files: [
          { path: ".github/workflows/gate.yml", role: "the workflow file that ran" },
          { path: "a_b/x.js", role: "the local action ./a_b it uses" },
        ],
      },
      words,
    )!;
    expect(refusal).toMatchObject({ conclusion: "action_required", outcome: "refused" });
    expect(refusal.summary).toContain("- `.github/workflows/gate.yml`: the workflow file that ran");
    expect(refusal.summary).toContain("- `a_b/x.js`: the local action ./a\\_b it uses");
    expect(refusal.summary).toContain("**What a writer does:** review the change to these files.");
    expect(refusal.summary.trimEnd().endsWith("PROVENANCE")).toBe(true);
    expect(refusal.reason).toContain("pull request #7 changes .github/workflows/gate.yml, a_b/x.js");
  });

  it("unknown: action_required, or failure naming the permission when GitHub refused the token", () => {
    const unknown = provenanceRefusal(
      { kind: "unknown", reason: "no open pull request", apiStatus: null },
      words,
    )!;
    expect(unknown).toMatchObject({ conclusion: "action_required", outcome: "refused" });
    const denied = provenanceRefusal({ kind: "unknown", reason: "listing failed", apiStatus: 403 }, words)!;
    expect(denied).toMatchObject({ conclusion: "failure", outcome: "usage-error" });
    expect(denied.summary).toContain("The token was refused: it needs `pull-requests: read`.");
  });
});
