import { describe, expect, test } from "vitest";
import { NO_BUILD_EVIDENCE_WORDS, NO_PLAN_LINE } from "../../src/ledger/plan-words.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { ATTACHED, fixtureLedger } from "./fixtures.js";

describe("a run whose plan never ran says so, and does not also claim build evidence NONE", () => {
  const ledger = fixtureLedger({
    runId: "20260501-120000-aaaaaa",
    runtime: "claude",
    goal: "fix it",
    buildEvidence: ATTACHED,
    nodes: [],
    rows: [],
    planningCalls: [{ costUsd: 0.01, usage: null }],
    evidenceTree: null,
    end: { kind: "plan-refused", refusals: ["allowed_tools names Bash(*)"] },
  });

  test("text: the no-plan line, never the NONE line", () => {
    const text = renderLedgerText(ledger);
    expect(text).toContain(NO_PLAN_LINE);
    expect(text).not.toContain(NO_BUILD_EVIDENCE_WORDS);
  });

  test("markdown: the no-plan line, never the NONE line", () => {
    const markdown = renderLedgerMarkdown(ledger);
    expect(markdown).toContain(NO_PLAN_LINE);
    expect(markdown).not.toContain(NO_BUILD_EVIDENCE_WORDS);
  });
});
