import { describe, expect, it } from "vitest";
import { formatUsdTotal } from "../../src/ledger/cells.js";
import { computeTotals } from "../../src/ledger/ledger.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { FAILURE_LEDGER, fail, pass, skipped } from "./fixtures.js";

describe("computeTotals", () => {
  it("sums planning and node cost separately and in total when every call reported USD", () => {
    const totals = computeTotals(
      [pass("a", { costUsd: 0.01 }), pass("b", { costUsd: 0.02 })],
      [{ costUsd: 0.005, usage: null }],
    );
    expect(totals.planning).toEqual({ kind: "known", usd: 0.005 });
    expect(totals.nodes.kind).toBe("known");
    expect(totals.nodes.kind === "known" && totals.nodes.usd).toBeCloseTo(0.03, 10);
    expect(totals.total.kind === "known" && totals.total.usd).toBeCloseTo(0.035, 10);
  });

  it("one call without USD makes the total unknown and keeps the known subtotal", () => {
    const totals = computeTotals(
      [pass("a", { costUsd: 0.01 }), fail("b", { costUsd: null })],
      [{ costUsd: 0.005, usage: null }],
    );
    expect(totals.planning).toEqual({ kind: "known", usd: 0.005 });
    expect(totals.nodes).toEqual({ kind: "unknown", knownUsd: 0.01, unknownCalls: 1 });
    expect(totals.total).toEqual({ kind: "unknown", knownUsd: 0.015, unknownCalls: 1 });
    expect(formatUsdTotal(totals.total)).toBe("unknown (known subtotal $0.0150; 1 call without USD)");
  });

  it("a planning call without USD makes the planning cost and the total unknown, not $0", () => {
    const totals = computeTotals([pass("a", { costUsd: 0.01 })], [{ costUsd: null, usage: null }]);
    expect(totals.planning).toEqual({ kind: "unknown", knownUsd: 0, unknownCalls: 1 });
    expect(formatUsdTotal(totals.planning)).toBe("unknown (known subtotal $0.0000; 1 call without USD)");
    expect(totals.total).toEqual({ kind: "unknown", knownUsd: 0.01, unknownCalls: 1 });
  });

  it("skipped rows are not calls: they neither cost nor make the total unknown", () => {
    const totals = computeTotals([pass("a", { costUsd: 0.01 }), skipped("b")], []);
    expect(totals.total).toEqual({ kind: "known", usd: 0.01 });
    expect(totals.tokens.callsWithoutUsage).toBe(0);
  });

  it("token usage is summed over planning and node calls, and calls without usage are counted", () => {
    const totals = computeTotals(
      [
        pass("a", { usage: { inputTokens: 100, outputTokens: 10, cacheReadInputTokens: 50 } }),
        pass("b", { usage: null }),
      ],
      [{ costUsd: 0, usage: { inputTokens: 7, outputTokens: 3, cacheCreationInputTokens: 20 } }],
    );
    expect(totals.tokens).toEqual({
      inputTokens: 107,
      outputTokens: 13,
      cacheReadInputTokens: 50,
      cacheCreationInputTokens: 20,
      callsWithoutUsage: 1,
    });
  });

  it("an unknown cost renders as unknown in every renderer and never as $0", () => {
    const text = renderLedgerText(FAILURE_LEDGER);
    const markdown = renderLedgerMarkdown(FAILURE_LEDGER);
    for (const rendered of [text, markdown]) {
      expect(rendered).toContain("unknown (known subtotal $0.0000; 3 calls without USD)");
      // The only $0 allowed is the known subtotal beside the word unknown.
      expect(rendered.replaceAll("known subtotal $0.0000", "")).not.toContain("$0");
    }
    expect(text).toMatch(/^implement\s+PASS \(self-reported\)\s+0b7c1e2a\s+unknown\b/m);
    expect(markdown).toContain("| `implement` | PASS (self-reported) | `0b7c1e2a` | unknown |");
  });
});
