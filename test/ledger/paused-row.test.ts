/**
 * A session-limit PAUSED row (SPEC §4; issue 14 item 5) in every renderer: its own verdict with the reset
 * time as the CLI wrote it, never FAIL; the JSON round-trips through the schema; the paused run's
 * conclusion is `action_required`, not `failure`.
 */
import { describe, expect, it } from "vitest";
import type { PausedRow } from "../../src/core/ledger-row.js";
import { renderCommentBody } from "../../src/ledger/render-comment.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { ATTACHED, fixtureLedger, pass, STARTING_TREE } from "./fixtures.js";

function paused(resetsAt: string | null): PausedRow {
  const { qualifier: _qualifier, ...base } = pass("build");
  return {
    ...base,
    verdict: "PAUSED",
    pause: "session_limit",
    resetsAt,
    detail:
      "the model's session limit was reached: the run pauses; resume with --retry-failed after the reset",
  };
}

function pausedLedger(resetsAt: string | null) {
  return fixtureLedger({
    runId: "20260501-150000-0d0e0f",
    runtime: "claude",
    goal: "Build it",
    buildEvidence: ATTACHED,
    nodes: [
      { id: "plan", dependsOn: [], allowedTools: ["Read"], sink: false },
      { id: "build", dependsOn: ["plan"], allowedTools: ["Read"], sink: true },
    ],
    rows: [pass("plan"), paused(resetsAt)],
    planningCalls: [],
    evidenceTree: STARTING_TREE,
    end: { kind: "paused", reason: "session-limit", nodeId: "build" },
  });
}

describe("a PAUSED session-limit row", () => {
  it("reads PAUSED session limit, resets … in text and Markdown, and the run is action_required", () => {
    const ledger = pausedLedger("5:30pm (Europe/Paris)");
    expect(ledger.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
    const text = renderLedgerText(ledger);
    expect(text).toContain("PAUSED session limit, resets 5:30pm (Europe/Paris)");
    expect(text).not.toContain("FAIL");
    expect(renderLedgerMarkdown(ledger)).toContain("PAUSED session limit, resets 5:30pm (Europe/Paris)");
    const comment = renderCommentBody(ledger, { checkName: "evidence-gate", checkRunUrl: null });
    expect(comment).toContain("0 failed · 0 skipped · 1 paused");
    expect(comment).toContain("| build | PAUSED | session limit, resets 5:30pm (Europe/Paris) |");
  });

  it("without a reset time the verdict stops at the limit", () => {
    expect(renderLedgerText(pausedLedger(null))).toMatch(/PAUSED session limit(?!,)/);
  });

  it("round-trips through the ledger JSON and its schema", () => {
    for (const resetsAt of ["5:30pm (Europe/Paris)", null]) {
      const ledger = pausedLedger(resetsAt);
      expect(parseLedgerJson(renderLedgerJson(ledger))).toEqual({ ok: true, ledger });
    }
  });

  it("a pause other than the session limit is refused from an untrusted ledger", () => {
    const data = JSON.parse(renderLedgerJson(pausedLedger(null)));
    data.rows[1].pause = "coffee";
    const parsed = parseLedgerJson(JSON.stringify(data));
    expect(!parsed.ok && parsed.issues.join("\n")).toMatch(/rows\.1\.pause/);
  });
});
