/**
 * `verify-base` (issue 25 item 3; ADR 0017): the classification of a head run against its base run, its
 * words on the row, the summary's section, ledger.json's `verify.base` — and that the base never changes a
 * verdict: a failing head stays failing whatever the base did, a passing head stays as its own rules say.
 */
import { describe, expect, test } from "vitest";
import type { BaseComparison, TestReceipt, VerifyEvidence } from "../../src/core/ledger-row.js";
import { compareWithBase, notCompared } from "../../src/evidence/base-comparison.js";
import { baseWords } from "../../src/ledger/cells.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import {
  ATTACHED,
  fail,
  fixtureLedger,
  OTHER_TREE,
  pass,
  STARTING_TREE,
  verifiedRunInput,
  verifiedSink,
  verifyEvidence,
  WRITE_CHECK_NODES,
} from "./fixtures.js";

const BASE = { commit: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", chosenAs: "the pull request's base" };

const counts = (ran: number, failedNames: readonly string[] = []): TestReceipt => ({
  kind: "counts",
  runners: ["node:test"],
  source: "output",
  ran,
  passed: ran - failedNames.length,
  failed: failedNames.length,
  skipped: 0,
  failedNames,
  failedNamesComplete: true,
});
const passed = (receipt?: TestReceipt): VerifyEvidence =>
  verifyEvidence({ ...(receipt !== undefined ? { receipt } : {}) });
const failed = (receipt?: TestReceipt): VerifyEvidence =>
  verifyEvidence({ exitCode: 1, outcome: "failed", ...(receipt !== undefined ? { receipt } : {}) });

describe("the classification", () => {
  test("fails on base, passes on head: fixed, naming the failing tests that now pass (not the ones still failing)", () => {
    const head = passed(counts(5));
    const base = failed(counts(5, ["adds", "subtracts"]));
    expect(compareWithBase(head, base, BASE)).toEqual({
      ...BASE,
      verdict: "fixed",
      verify: base,
      fixedTests: ["adds", "subtracts"],
    });
    // A test the head's receipt still names as failing (its exit code passed: expect_exit) is not "fixed".
    const still = compareWithBase(passed(counts(5, ["subtracts"])), base, BASE);
    expect(still.fixedTests).toEqual(["adds"]);
    // No receipt on the base: fixed, with no names.
    expect(compareWithBase(head, failed(), BASE)).not.toHaveProperty("fixedTests");
  });

  test("passes on both, fails on both (pre-existing), passes on base and fails on head (introduced)", () => {
    expect(compareWithBase(passed(), passed(), BASE).verdict).toBe("passes_on_both");
    expect(compareWithBase(failed(), failed(), BASE).verdict).toBe("fails_on_both");
    expect(compareWithBase(failed(), passed(), BASE).verdict).toBe("introduced");
    // A base that timed out did not pass: the head's pass is a fix of it.
    expect(
      compareWithBase(passed(), verifyEvidence({ exitCode: null, outcome: "timed_out" }), BASE).verdict,
    ).toBe("fixed");
  });

  test("a base that could not start is not compared", () => {
    const base = verifyEvidence({ exitCode: null, outcome: "spawn_failed" });
    expect(compareWithBase(passed(), base, BASE)).toMatchObject({ verdict: "not_compared", verify: base });
  });

  test("a head that ran fewer tests than the base is flagged, whatever the verdict; the same or more is not", () => {
    expect(compareWithBase(passed(counts(3)), passed(counts(5)), BASE).fewerTests).toEqual({
      base: 5,
      head: 3,
    });
    expect(compareWithBase(passed(counts(3)), failed(counts(5, ["a"])), BASE).fewerTests).toEqual({
      base: 5,
      head: 3,
    });
    expect(compareWithBase(passed(counts(5)), passed(counts(5)), BASE)).not.toHaveProperty("fewerTests");
    expect(compareWithBase(passed(counts(6)), passed(counts(5)), BASE)).not.toHaveProperty("fewerTests");
    // Without a count on both sides there is nothing to compare.
    expect(compareWithBase(passed(), passed(counts(5)), BASE)).not.toHaveProperty("fewerTests");
  });
});

describe("the words", () => {
  const compare = (head: VerifyEvidence, base: VerifyEvidence) =>
    baseWords(compareWithBase(head, base, BASE));

  test("each verdict, the base's receipt and the fewer-tests flag", () => {
    expect(compare(passed(counts(2)), failed(counts(2, ["adds"])))).toBe(
      "fails on base 1a2b3c4 (the pull request's base), passes on head: fixed (now passing: adds); base run: ran 2 tests: 1 passed, 1 failed (adds), per node:test",
    );
    expect(compare(passed(), passed())).toBe("passes on base 1a2b3c4 (the pull request's base) and on head");
    expect(compare(failed(), failed())).toBe(
      "fails on base 1a2b3c4 (the pull request's base) too: pre-existing, still not green",
    );
    expect(compare(failed(), passed())).toBe(
      "passes on base 1a2b3c4 (the pull request's base), fails on head: introduced by the change",
    );
    expect(compare(passed(counts(3)), passed(counts(5)))).toContain(
      "the head ran fewer tests than the base (3 against 5): look at which went",
    );
    expect(baseWords(notCompared(null, "the start commit's first parent", "no parent"))).toBe(
      "not compared with the base (the start commit's first parent): no parent",
    );
  });
});

/** A run whose sink `check` has `head` evidence compared with `base`. */
function comparedLedger(head: VerifyEvidence, base: BaseComparison) {
  const check =
    head.outcome === "passed"
      ? verifiedSink("check", { ...head, base })
      : fail("check", { sink: true, cause: "verify_failed", verify: { ...head, base } });
  return fixtureLedger({
    runId: "20260101-000000-abcdef",
    runtime: "claude",
    goal: "Fix the bug",
    buildEvidence: ATTACHED,
    nodes: WRITE_CHECK_NODES,
    rows: [pass("write"), check],
    planningCalls: [],
    evidenceTree: STARTING_TREE,
  });
}

describe("the ledger", () => {
  test("the base never turns a failing head green, and never makes a passing head less than its own rules", () => {
    const passingBase = compareWithBase(failed(), passed(), BASE);
    const failing = comparedLedger(failed(), passingBase);
    expect(failing.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
    const preExisting = comparedLedger(failed(), compareWithBase(failed(), failed(), BASE));
    expect(preExisting.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
    // The same run without a base concludes the same.
    const alone = decideConclusion(
      verifiedRunInput({
        rows: [pass("write"), fail("check", { sink: true, cause: "verify_failed", verify: failed() })],
      }),
    );
    expect(failing.conclusion?.conclusion).toBe(alone.conclusion);
    const fixed = comparedLedger(
      passed(counts(1)),
      compareWithBase(passed(counts(1)), failed(counts(1, ["a"])), BASE),
    );
    expect(fixed.conclusion).toMatchObject({ conclusion: "success", rule: "verified-on-commit" });
  });

  test("the row (text and Markdown), the summary's section with both evidence trees, and ledger.json", () => {
    const baseRun = { ...failed(counts(3, ["prevent `__proto__`"])), evidenceTree: OTHER_TREE };
    const base = compareWithBase(passed(counts(3)), baseRun, BASE);
    const ledger = comparedLedger(passed(counts(3)), base);
    const words =
      "fails on base 1a2b3c4 (the pull request's base), passes on head: fixed (now passing: prevent `__proto__`)";
    expect(renderLedgerText(ledger)).toContain(words);
    const markdown = renderLedgerMarkdown(ledger);
    expect(markdown).toContain("### The base beside the head");
    expect(markdown).toContain(`head tree \`${STARTING_TREE}\``);
    expect(markdown).toContain(`base tree \`${OTHER_TREE}\``);
    expect(markdown).toContain("now passing: prevent \\`\\_\\_proto\\_\\_\\`");
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok && parsed.ledger.rows[1]?.verify?.base).toEqual(base);
    // A run without verify-base has no section.
    expect(renderLedgerMarkdown(comparedLedger(passed(), base))).toContain("The base beside the head");
    expect(
      renderLedgerMarkdown(
        fixtureLedger({
          runId: "20260101-000000-abcdef",
          runtime: "claude",
          goal: "g",
          buildEvidence: ATTACHED,
          nodes: WRITE_CHECK_NODES,
          rows: [pass("write"), verifiedSink("check")],
          planningCalls: [],
          evidenceTree: STARTING_TREE,
        }),
      ),
    ).not.toContain("The base beside the head");
  });

  test("ledger.json refuses a malformed base (an untrusted artifact)", () => {
    const ledger = comparedLedger(passed(), compareWithBase(passed(), passed(), BASE));
    const json = JSON.parse(renderLedgerJson(ledger));
    json.rows[1].verify.base.verdict = "green";
    expect(parseLedgerJson(JSON.stringify(json)).ok).toBe(false);
    json.rows[1].verify.base.verdict = "passes_on_both";
    json.rows[1].verify.base.verify.base = { nested: true };
    expect(parseLedgerJson(JSON.stringify(json)).ok).toBe(false);
  });
});
