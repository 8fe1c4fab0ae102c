/**
 * The plan section says what was removed from the pull request's text before the planner read it (issue
 * 12, item 6; `PlanSection.untrustedText`): in the Markdown (check run, job summary), in the text ledger,
 * and through the JSON a report step reads back.
 */
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { SUCCESS_LEDGER } from "./fixtures.js";

const withNote: Ledger = {
  ...SUCCESS_LEDGER,
  plan: {
    ...SUCCESS_LEDGER.plan,
    untrustedText: [
      { source: "pr-title", hiddenChars: 1, htmlComments: 0, hiddenHtml: 0, altTexts: 0, omittedChars: 0 },
      { source: "pr-body", hiddenChars: 3, htmlComments: 1, hiddenHtml: 2, altTexts: 1, omittedChars: 120 },
    ],
  },
};

const SENTENCE =
  "PR title: 1 hidden character; PR body: 3 hidden characters, 1 HTML comment, 2 hidden HTML elements, 1 alternative text, 120 visible characters cut to fit — removed before the planner read them (text nobody sees on the page, and what the prompt's bound left out).";

describe("the plan section names what the pull request hid", () => {
  it("Markdown: one line in the plan section, escaped", () => {
    const markdown = renderLedgerMarkdown(withNote);
    const plan = markdown.slice(markdown.indexOf("### Plan"));
    expect(plan).toContain(`**Untrusted text:** ${SENTENCE.replace(/_/g, "\\_")}`);
  });

  it("text: one line under the build evidence", () => {
    expect(renderLedgerText(withNote)).toContain(`\nUntrusted text: ${SENTENCE}\n`);
  });

  it("nothing removed: no line at all", () => {
    expect(renderLedgerMarkdown(SUCCESS_LEDGER)).not.toContain("Untrusted text");
    expect(renderLedgerText(SUCCESS_LEDGER)).not.toContain("Untrusted text");
  });

  it("JSON: the note round-trips through the strict schema, and a malformed one is refused", () => {
    expect(parseLedgerJson(renderLedgerJson(withNote))).toEqual({ ok: true, ledger: withNote });
    const bad = JSON.parse(renderLedgerJson(withNote)) as {
      plan: { untrustedText: Record<string, unknown>[] };
    };
    bad.plan.untrustedText[0]!.hiddenChars = -1;
    expect(parseLedgerJson(JSON.stringify(bad)).ok).toBe(false);
  });
});
