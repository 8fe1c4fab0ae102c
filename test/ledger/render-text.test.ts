import { describe, expect, it } from "vitest";
import { GATE_WAITING_REASON } from "../../src/core/ledger-row.js";
import { formatDuration, shortSession } from "../../src/ledger/cells.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { FAILURE_LEDGER, fail, pass, SUCCESS_LEDGER, skipped } from "./fixtures.js";

function withRows(rows: Ledger["rows"]): Ledger {
  return { ...SUCCESS_LEDGER, rows };
}

describe("renderLedgerText", () => {
  it("prints one Policy line when a policy file applied, none otherwise", () => {
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      plan: {
        ...SUCCESS_LEDGER.plan,
        policy: {
          source: ".github/evidence-gate.yml (base ref main, commit 1a2b3c4)",
          requireEvidence: true,
        },
      },
    };
    expect(renderLedgerText(ledger).split("\n")).toContain(
      "Policy: .github/evidence-gate.yml (base ref main, commit 1a2b3c4) — require-evidence: true",
    );
    expect(renderLedgerText(SUCCESS_LEDGER)).not.toContain("Policy:");
  });

  it("the Policy line names every key the file set that judges the run, not only require-evidence", () => {
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      plan: {
        ...SUCCESS_LEDGER.plan,
        policy: {
          source: ".github/evidence-gate.yml (base ref main, commit 1a2b3c4)",
          requireEvidence: false,
          requireTests: true,
          verifyRepeat: 3,
          verifyBase: true,
          testReports: ["reports/*.xml", "junit.xml"],
        },
      },
    };
    expect(renderLedgerText(ledger).split("\n")).toContain(
      "Policy: .github/evidence-gate.yml (base ref main, commit 1a2b3c4) — require-evidence: false, require-tests: true, verify-repeat: 3, verify-base: true, test-reports: reports/*.xml, junit.xml",
    );
  });

  it("aligns every column: each row's verdict starts where the header's VERDICT starts", () => {
    const text = renderLedgerText(withRows([pass("a"), fail("a-much-longer-node-id"), skipped("c")]));
    const lines = text.split("\n");
    const header = lines.find((line) => line.startsWith("NODE"))!;
    const column = header.indexOf("VERDICT");
    for (const [id, verdict] of [
      ["a ", "PASS (exit-only)"],
      ["a-much-longer-node-id", "FAIL nonzero_exit"],
      ["c ", "SKIPPED"],
    ] as const) {
      const row = lines.find((line) => line.startsWith(id))!;
      expect(row.slice(column, column + verdict.length)).toBe(verdict);
    }
  });

  it("a gate that waits for a person reads WAITING, not SKIPPED; a node passed over still reads SKIPPED (issue 17 item 9)", () => {
    const ledger = withRows([pass("a"), skipped("approve", { reason: GATE_WAITING_REASON }), skipped("c")]);
    const text = renderLedgerText(ledger);
    expect(text).toMatch(/^approve +WAITING +/m);
    expect(text).not.toMatch(/^approve +SKIPPED/m);
    expect(text).toMatch(/^c +SKIPPED +/m);
    expect(renderLedgerMarkdown(ledger)).toMatch(/\| `?approve`? \| WAITING \|/);
  });

  it("a verify failure prints its command, exit code and output tail indented under the row", () => {
    const text = renderLedgerText(FAILURE_LEDGER);
    const lines = text.split("\n");
    const at = lines.findIndex((line) => line.startsWith("build "));
    expect(lines.slice(at + 1, at + 4)).toEqual([
      "    verify: npm test",
      "    result: exited 1 (expected 0) in 12.3s",
      "    output (tail):",
    ]);
    expect(lines[at + 4]).toBe("      FAIL src/date.test.ts");
  });

  it("a line break in a detail cannot start a new table line", () => {
    const text = renderLedgerText(withRows([pass("a", { detail: "first\nsecond" })]));
    expect(text).toMatch(/^a .* first second$/m);
    expect(text).not.toMatch(/^second/m);
  });

  it("a 100 KB goal is shown as its first 500 characters and how many were left out, in text and markdown alike (issue 17 item 9)", () => {
    const goal = `Fix it. ${"x".repeat(100_000)}`;
    const ledger: Ledger = { ...SUCCESS_LEDGER, goal };
    const text = renderLedgerText(ledger);
    const shown = `${goal.slice(0, 500)}… (${goal.length - 500} more characters; the whole goal is in ledger.json)`;
    expect(text.split("\n")).toContain(`Goal: ${shown}`);
    expect(text.length).toBeLessThan(5_000);
    expect(renderLedgerMarkdown(ledger)).toContain(`**Goal:** ${shown}`);
    // A goal that fits is shown whole.
    expect(renderLedgerText({ ...SUCCESS_LEDGER, goal: "Fix sum()." })).toContain("\nGoal: Fix sum().\n");
  });

  it("ends with the totals and the conclusion", () => {
    const lines = renderLedgerText(SUCCESS_LEDGER).trimEnd().split("\n");
    expect(lines.at(-3)).toBe("TOKENS:        input 3300, output 720, cache read 0, cache write 0");
    expect(lines.at(-2)).toMatch(/^CONCLUSION: {4}success \(outcome passed\) — Verified: /);
  });

  it("an in-progress ledger says so instead of a conclusion", () => {
    const text = renderLedgerText({ ...SUCCESS_LEDGER, conclusion: null });
    expect(text.trimEnd().split("\n").at(-1)).toBe("CONCLUSION:    in progress");
  });
});

describe("ledger cells", () => {
  it("a session shows its first 8 characters, or - when there is none", () => {
    expect(shortSession("a1b2c3d4-e5f6-4a7b")).toBe("a1b2c3d4");
    expect(shortSession(null)).toBe("-");
  });

  it("a time-ordered (v7) session id — codex's threads — shows its last 8 characters, which differ per thread", () => {
    const a = "019a2334-0d5f-7c21-9b3e-5f1e2a7c44d0";
    const b = "019a2334-0d61-7aa0-8f11-0c9d3b6e12ab";
    expect(shortSession(a)).toBe("2a7c44d0");
    expect(shortSession(b)).toBe("3b6e12ab");
    expect(shortSession("9f1c2e4a-1111-4a7b-8c9d-0123456789ab")).toBe("9f1c2e4a");
  });

  it("a verify-only ledger's header names no runtime (no model ran)", () => {
    const verifyOnly: Ledger = { ...SUCCESS_LEDGER, mode: "verify" } as Ledger;
    const first = renderLedgerText(verifyOnly).split("\n")[0]!;
    expect(first).toMatch(/^Run \S+ — verify — /);
    expect(first).not.toContain(SUCCESS_LEDGER.runtime);
  });

  it("durations read as ms, tenths of seconds, minutes or hours", () => {
    expect(formatDuration(850)).toBe("850ms");
    expect(formatDuration(6400)).toBe("6.4s");
    expect(formatDuration(123_000)).toBe("2m03s");
    expect(formatDuration(3_720_000)).toBe("1h02m");
  });
});
