/**
 * The verify-definition rule of the conclusion (`judge-verified-sinks.ts`, rule 1): a run whose every sink
 * verified, but whose nodes changed what defines the verify command (a `package.json` script, a build
 * file, a test file deleted), is `action_required` — never `success`, never softened to `neutral` — and
 * every ledger rendering shows the changed files with the flagged ones marked.
 */
import { describe, expect, it } from "vitest";
import type { ChangedFiles } from "../../src/core/changed-files-record.js";
import { ledgerProblem } from "../../src/github/workflow-run-ledger.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
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
  WRITE_CHECK_NODES,
} from "./fixtures.js";

const SCRIPT_CHANGED: ChangedFiles = {
  total: 2,
  counts: { added: 0, modified: 2, deleted: 0, renamed: 0 },
  files: [
    { path: "package.json", status: "modified" },
    { path: "src/sum.js", status: "modified" },
  ],
  verifyDefinition: [
    { path: "package.json", kind: "package-scripts", detail: "scripts.test changed", keys: ["scripts.test"] },
  ],
  flaggedTotal: 1,
};

const SOURCE_ONLY: ChangedFiles = {
  ...SCRIPT_CHANGED,
  total: 1,
  counts: { added: 0, modified: 1, deleted: 0, renamed: 0 },
  files: [{ path: "src/sum.js", status: "modified" }],
  verifyDefinition: [],
  flaggedTotal: 0,
};

describe("decideConclusion — the nodes changed what the verify command runs", () => {
  it("turns success into action_required (outcome passed), naming the file, the script key and what to check", () => {
    const decided = decideConclusion(verifiedRunInput({ changedFiles: SCRIPT_CHANGED }));
    expect(decided).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verify-definition-changed",
      title: "Verified, but the nodes changed what the verify command runs",
    });
    expect(decided.reason).toContain("package.json: scripts.test changed");
    expect(decided.reason).toContain("A reviewer must read these changes");
    expect(decided.reason).not.toContain("not on this commit");
  });

  it("a record with no flagged change, or none at all, leaves success alone", () => {
    expect(decideConclusion(verifiedRunInput({ changedFiles: SOURCE_ONLY })).rule).toBe("verified-on-commit");
    expect(decideConclusion(verifiedRunInput()).rule).toBe("verified-on-commit");
  });

  it("is not softened to neutral by an unknown tree or unknown ignored files; off the commit it says so too", () => {
    const rows = (verify: Parameters<typeof verifiedSink>[1]) => [
      pass("write"),
      verifiedSink("check", verify),
    ];
    for (const verify of [{ evidenceTree: null }, { ignoredFiles: "unknown" as const }]) {
      const decided = decideConclusion(
        verifiedRunInput({ rows: rows(verify), changedFiles: SCRIPT_CHANGED }),
      );
      expect(decided.rule).toBe("verify-definition-changed");
    }
    const off = decideConclusion(
      verifiedRunInput({ rows: rows({ evidenceTree: OTHER_TREE }), changedFiles: SCRIPT_CHANGED }),
    );
    expect(off.rule).toBe("verify-definition-changed");
    expect(off.reason).toContain("not on this commit");
  });

  it("a failed verify stays failure, and more flagged changes than the reason names are counted", () => {
    const failed = decideConclusion(
      verifiedRunInput({
        rows: [pass("write"), verifiedSink("check", { outcome: "failed", exitCode: 1 })],
        changedFiles: SCRIPT_CHANGED,
      }),
    );
    expect(failed.conclusion).toBe("failure");
    const many: ChangedFiles = {
      ...SCRIPT_CHANGED,
      verifyDefinition: Array.from({ length: 12 }, (_, i) => ({
        path: `test/t${i}.test.js`,
        kind: "test-file-removed" as const,
        detail: "a test file, deleted",
      })),
      flaggedTotal: 40,
    };
    const decided = decideConclusion(verifiedRunInput({ changedFiles: many }));
    expect(decided.reason).toContain("test/t9.test.js: a test file, deleted; and 30 more");
    expect(decided.reason).not.toContain("test/t10.test.js");
  });
});

describe("the changed-files section of the ledger", () => {
  const ledger = fixtureLedger({
    runId: "20261202-120000-ab12cd",
    runtime: "claude",
    goal: "Make npm test pass",
    buildEvidence: ATTACHED,
    nodes: WRITE_CHECK_NODES,
    rows: [pass("write"), verifiedSink("check")],
    planningCalls: [],
    evidenceTree: STARTING_TREE,
    changedFiles: SCRIPT_CHANGED,
  });

  it("survives the JSON round trip (evidence-gate ledger RUN_ID reads it back) with the rule", () => {
    expect(ledger.conclusion?.rule).toBe("verify-definition-changed");
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok && parsed.ledger.changedFiles).toEqual(SCRIPT_CHANGED);
    expect(parsed.ok && parsed.ledger.conclusion?.rule).toBe("verify-definition-changed");
  });

  it("the text ledger lists counts and paths, the flagged one first and marked", () => {
    const text = renderLedgerText(ledger);
    expect(text).toContain(
      [
        "CHANGED FILES: 2 files changed: 2 modified — 1 change touches what the verify command runs (marked !)",
        "  ! modified  package.json — scripts.test changed",
        "    modified  src/sum.js",
      ].join("\n"),
    );
  });

  it("the Markdown lists them too, bounded to 30 paths with the rest counted", () => {
    expect(renderLedgerMarkdown(ledger)).toContain(
      [
        "### Changed files",
        "",
        "2 files changed: 2 modified. **1 change touches what the verify command runs** (marked ⚠️).",
        "",
        "- ⚠️ `package.json` (modified) — scripts.test changed",
        "- `src/sum.js` (modified)",
      ].join("\n"),
    );
    const files = Array.from({ length: 45 }, (_, i) => ({
      path: `src/f${String(i).padStart(2, "0")}.js`,
      status: "added" as const,
    }));
    const big = fixtureLedger({
      runId: "20261202-120000-ab12cd",
      runtime: "claude",
      goal: "Make npm test pass",
      buildEvidence: ATTACHED,
      nodes: WRITE_CHECK_NODES,
      rows: [pass("write"), verifiedSink("check")],
      planningCalls: [],
      evidenceTree: STARTING_TREE,
      changedFiles: {
        ...SOURCE_ONLY,
        total: 45,
        counts: { ...SOURCE_ONLY.counts, added: 45, modified: 0 },
        files,
      },
    });
    const markdown = renderLedgerMarkdown(big);
    expect(markdown).toContain("- `src/f29.js` (added)\n- … and 15 more");
    expect(markdown).not.toContain("src/f30.js");
    expect(big.conclusion?.rule).toBe("verified-on-commit");
  });

  it("a rename shows its old path in both renderings", () => {
    const renamed = fixtureLedger({
      runId: "20261202-120000-ab12cd",
      runtime: "claude",
      goal: "Make npm test pass",
      buildEvidence: ATTACHED,
      nodes: WRITE_CHECK_NODES,
      rows: [pass("write"), verifiedSink("check")],
      planningCalls: [],
      evidenceTree: STARTING_TREE,
      changedFiles: {
        total: 1,
        counts: { added: 0, modified: 0, deleted: 0, renamed: 1 },
        files: [{ path: "test/a.test.js.off", status: "renamed", from: "test/a.test.js" }],
        verifyDefinition: [
          {
            path: "test/a.test.js.off",
            kind: "test-file-removed",
            detail: "a test file, renamed from test/a.test.js",
          },
        ],
        flaggedTotal: 1,
      },
    });
    expect(renderLedgerText(renamed)).toContain(
      "  ! renamed   test/a.test.js.off (from test/a.test.js) — a test file, renamed from test/a.test.js",
    );
    expect(renderLedgerMarkdown(renamed)).toContain(
      "- ⚠️ `test/a.test.js.off` (renamed from `test/a.test.js`) — a test file, renamed from test/a.test.js",
    );
  });

  it("a ledger claiming success over flagged changes is refused by mode report (its own record decides otherwise)", () => {
    const flipped = {
      ...ledger,
      headSha: "a".repeat(40),
      conclusion: {
        ...ledger.conclusion!,
        conclusion: "success" as const,
        rule: "verified-on-commit" as const,
      },
    };
    expect(ledgerProblem(flipped, { headSha: "a".repeat(40) })).toContain(
      "its own rows decide action_required (verify-definition-changed)",
    );
  });
});
