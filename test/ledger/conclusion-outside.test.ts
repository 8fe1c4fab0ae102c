/**
 * The outside-writes rule of the conclusion: a run whose nodes (any node, not only sinks) wrote files
 * outside the repository is never `success`, and the ledger says which files in every rendering.
 */
import { describe, expect, it } from "vitest";
import type { OutsideWrites } from "../../src/core/ledger-row.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
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

const OUTSIDE: OutsideWrites = { total: 1, paths: ["/srv/x/node_modules/sumlib/index.js"] };

const run = verifiedRunInput;

describe("decideConclusion — writes outside the repository", () => {
  it("a non-sink node's outside write turns success into action_required (outcome passed), naming the path", () => {
    expect(decideConclusion(run()).conclusion).toBe("success");
    const decided = decideConclusion(
      run({ rows: [pass("write", { outsideWrites: OUTSIDE }), verifiedSink("check")] }),
    );
    expect(decided).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-outside-writes",
    });
    expect(decided.reason).toContain('node "write": /srv/x/node_modules/sumlib/index.js');
    expect(decided.reason).toContain(
      "a node wrote outside the repository; the evidence tree does not cover those files",
    );
    expect(decided.title).toContain("outside the repository");
  });

  it("a sink's outside write too, with the count of paths not named", () => {
    const decided = decideConclusion(
      run({
        rows: [
          pass("write"),
          { ...verifiedSink("check"), outsideWrites: { total: 12, paths: ["/a", "/b"] } },
        ],
      }),
    );
    expect(decided.rule).toBe("verified-outside-writes");
    expect(decided.reason).toContain('node "check": /a, /b, 10 more');
  });

  it("is not softened to neutral by an unknown tree, and adds the off-commit note", () => {
    const rows = (tree: string | null) => [
      pass("write", { outsideWrites: OUTSIDE }),
      verifiedSink("check", { evidenceTree: tree }),
    ];
    expect(decideConclusion(run({ rows: rows(null) })).conclusion).toBe("action_required");
    const off = decideConclusion(run({ rows: rows(OTHER_TREE) }));
    expect(off.rule).toBe("verified-outside-writes");
    expect(off.reason).toContain("not on this commit");
  });

  it("with changed git-ignored files as well, the ignored rule decides and its reason names the outside path", () => {
    const decided = decideConclusion(
      run({
        rows: [
          pass("write", { outsideWrites: OUTSIDE }),
          verifiedSink("check", {
            ignoredFiles: "changed",
            ignoredFilesChanges: { total: 1, examples: [{ path: "config.local.js", change: "added" }] },
          }),
        ],
      }),
    );
    expect(decided).toMatchObject({ conclusion: "action_required", rule: "verified-ignored-files-changed" });
    expect(decided.reason).toContain("/srv/x/node_modules/sumlib/index.js");
  });

  it("a failed run stays failure", () => {
    const decided = decideConclusion(
      run({
        rows: [
          pass("write", { outsideWrites: OUTSIDE }),
          verifiedSink("check", { outcome: "failed", exitCode: 1 }),
        ],
      }),
    );
    expect(decided.conclusion).toBe("failure");
  });

  it("the row's paths survive the JSON round trip and show in the text ledger's detail", () => {
    const ledger = fixtureLedger({
      runId: "20261129-120000-ab12cd",
      runtime: "claude",
      goal: "Make npm test pass",
      buildEvidence: ATTACHED,
      nodes: WRITE_CHECK_NODES,
      rows: [pass("write", { outsideWrites: OUTSIDE }), verifiedSink("check")],
      planningCalls: [{ costUsd: 0.001, usage: { inputTokens: 10, outputTokens: 5 } }],
      evidenceTree: STARTING_TREE,
    });
    expect(ledger.conclusion?.rule).toBe("verified-outside-writes");
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok && parsed.ledger.rows[0]?.outsideWrites).toEqual(OUTSIDE);
    expect(renderLedgerText(ledger)).toContain(
      "wrote outside the repository (not in the evidence tree): /srv/x/node_modules/sumlib/index.js",
    );
  });
});
