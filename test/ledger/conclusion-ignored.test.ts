/**
 * The git-ignored-files rule of the conclusion (ADR 0003, amendment 2026-11-29): a verify that ran on
 * changed ignored files is never `success`, and the ledger says why in every rendering.
 */
import { describe, expect, it } from "vitest";
import type { VerifyEvidence } from "../../src/core/ledger-row.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import {
  ATTACHED,
  fixtureLedger,
  OTHER_TREE,
  pass,
  STARTING_TREE,
  verifiedRunInput,
  verifiedSink,
} from "./fixtures.js";

const CHANGED: Partial<VerifyEvidence> = {
  ignoredFiles: "changed",
  ignoredFilesChanges: {
    total: 2,
    examples: [
      { path: "config.local.js", change: "added" },
      { path: "node_modules/minitest/cli.js", change: "modified" },
    ],
  },
};

const run = verifiedRunInput;

describe("decideConclusion — git-ignored files", () => {
  it("`ignoredFiles: unchanged`, or absent (not measured), keeps success", () => {
    expect(decideConclusion(run()).conclusion).toBe("success");
    const measured = decideConclusion(
      run({ rows: [pass("write"), verifiedSink("check", { ignoredFiles: "unchanged" })] }),
    );
    expect(measured).toMatchObject({ conclusion: "success", rule: "verified-on-commit" });
  });

  it("a verify on the commit's tree with changed ignored files is action_required (outcome passed), naming the paths", () => {
    const decided = decideConclusion(run({ rows: [pass("write"), verifiedSink("check", CHANGED)] }));
    expect(decided).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-ignored-files-changed",
    });
    expect(decided.reason).toContain("node_modules/minitest/cli.js (modified)");
    expect(decided.reason).toContain("config.local.js (added)");
    expect(decided.reason).toContain("changed since the run started");
    expect(decided.reason).toContain("git-ignored files that are on no commit");
    expect(decided.title).toContain("git-ignored");
  });

  it("one clean sink does not save another whose ignored files changed", () => {
    const decided = decideConclusion(
      run({
        rows: [verifiedSink("a", { ignoredFiles: "unchanged" }), verifiedSink("b", CHANGED)],
        sinks: ["a", "b"],
      }),
    );
    expect(decided.rule).toBe("verified-ignored-files-changed");
    expect(decided.reason).toContain('sink "b"');
    expect(decided.reason).not.toContain('sink "a"');
  });

  it("is never softened to neutral: it wins over an unknown tree, and says so when the tree is off the commit too", () => {
    const unknownTree = decideConclusion(
      run({ rows: [pass("write"), verifiedSink("check", { ...CHANGED, evidenceTree: null })] }),
    );
    expect(unknownTree.conclusion).toBe("action_required");
    const offCommit = decideConclusion(
      run({ rows: [pass("write"), verifiedSink("check", { ...CHANGED, evidenceTree: OTHER_TREE })] }),
    );
    expect(offCommit.rule).toBe("verified-ignored-files-changed");
    expect(offCommit.reason).toContain("the evidence is for a patch that is not on this commit");
  });

  it("a failed verify still fails the run, changed ignored files or not", () => {
    const decided = decideConclusion(
      run({
        rows: [pass("write"), verifiedSink("check", { ...CHANGED, outcome: "failed", exitCode: 1 })],
      }),
    );
    expect(decided.conclusion).toBe("failure");
  });

  it("ignored files that could not be compared make the run neutral (failure under require-evidence), never success", () => {
    const rows = [
      pass("write"),
      verifiedSink("check", {
        ignoredFiles: "unknown",
        ignoredFilesReason: "more than 500000 git-ignored files",
      }),
    ];
    const decided = decideConclusion(run({ rows }));
    expect(decided).toMatchObject({ conclusion: "neutral", rule: "verified-ignored-files-unknown" });
    expect(decided.reason).toContain("more than 500000 git-ignored files");
    expect(decideConclusion(run({ rows, requireEvidence: true })).conclusion).toBe("failure");
  });
});

const IGNORED_LEDGER: Ledger = fixtureLedger({
  runId: "20261129-120000-ab12cd",
  runtime: "claude",
  goal: "Make npm test pass",
  buildEvidence: ATTACHED,
  nodes: [{ id: "check", dependsOn: [], allowedTools: ["Read", "Edit"], sink: true }],
  rows: [verifiedSink("check", CHANGED)],
  planningCalls: [{ costUsd: 0.001, usage: { inputTokens: 10, outputTokens: 5 } }],
  evidenceTree: STARTING_TREE,
});

describe("the renderers show it", () => {
  it("the row stays PASS (verified) and its detail names the changed ignored files, in text and Markdown", () => {
    expect(IGNORED_LEDGER.conclusion?.conclusion).toBe("action_required");
    const text = renderLedgerText(IGNORED_LEDGER);
    expect(text).toMatch(/^check +PASS \(verified\) .*git-ignored files changed since the run started/m);
    expect(text).toContain("node_modules/minitest/cli.js (modified)");
    const markdown = renderLedgerMarkdown(IGNORED_LEDGER);
    expect(markdown).toContain("git-ignored files changed since the run started, on no commit");
    // Markdown escapes the underscore.
    expect(markdown).toContain("node\\_modules/minitest/cli.js (modified)");
  });

  it("the ledger JSON round-trips the new fields", () => {
    expect(parseLedgerJson(renderLedgerJson(IGNORED_LEDGER))).toEqual({ ok: true, ledger: IGNORED_LEDGER });
  });
});
