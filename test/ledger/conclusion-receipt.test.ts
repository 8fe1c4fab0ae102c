/**
 * The receipts rule of the conclusion (issue 25 items 1 and 2; ADR 0016): a recognised runner that ran no
 * test makes no evidence (`action_required`, "ran no test"), nor does one that reported failing tests
 * while the command exited as expected; under the policy's `require-tests: true` a verify without a
 * receipt, or that ran no test, is `failure`. The row, the Markdown, the text and ledger.json carry it.
 */
import { describe, expect, test } from "vitest";
import type { TestReceipt } from "../../src/core/ledger-row.js";
import { receiptWords } from "../../src/ledger/cells.js";
import { decideConclusion } from "../../src/ledger/conclusion.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import {
  ATTACHED,
  fixtureLedger,
  pass,
  STARTING_TREE,
  verifiedRunInput,
  verifiedSink,
  WRITE_CHECK_NODES,
} from "./fixtures.js";

const counts = (fields: Partial<Extract<TestReceipt, { kind: "counts" }>>): TestReceipt => ({
  kind: "counts",
  runners: ["node:test"],
  source: "output",
  ran: 0,
  passed: 0,
  failed: 0,
  skipped: 0,
  failedNames: [],
  failedNamesComplete: true,
  ...fields,
});
const ZERO = counts({});
const ONE = counts({ ran: 1, passed: 1 });
const NONE: TestReceipt = { kind: "none", reason: "no test runner's summary was recognised in the output" };

const judge = (verify: Parameters<typeof verifiedSink>[1]) =>
  decideConclusion(verifiedRunInput({ rows: [pass("write"), verifiedSink("check", verify)] }));

describe("the conclusion", () => {
  test("ran no test: action_required, naming the sink and the runner; one test ran: success", () => {
    const none = judge({ receipt: ZERO });
    expect(none).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-no-test",
    });
    expect(none.reason).toContain('sink "check": ran no test, per node:test');
    expect(judge({ receipt: ONE })).toMatchObject({ conclusion: "success", rule: "verified-on-commit" });
  });

  test("ran no test because a node changed git-ignored files the tests read: the ignored-files rule names the file (it says why), not 'ran no test'", () => {
    const both = judge({
      receipt: ZERO,
      ignoredFiles: "changed",
      ignoredFilesChanges: { total: 1, examples: [{ path: "config.local.js", change: "added" }] },
    });
    expect(both).toMatchObject({ conclusion: "action_required", rule: "verified-ignored-files-changed" });
    expect(both.reason).toContain("config.local.js");
  });

  test("no receipt (a build-only command) and a ledger written before receipts: success as before", () => {
    expect(judge({ receipt: NONE }).conclusion).toBe("success");
    expect(judge({}).conclusion).toBe("success");
  });

  test("every test skipped is no test run", () => {
    expect(judge({ receipt: counts({ skipped: 3 }) }).rule).toBe("verified-no-test");
  });

  test("failing tests behind an exit code as expected: action_required, naming the failing test", () => {
    const decided = judge({
      receipt: counts({ ran: 3, passed: 2, failed: 1, failedNames: ["suite › adds"] }),
    });
    expect(decided).toMatchObject({ conclusion: "action_required", rule: "verified-failing-tests" });
    expect(decided.reason).toContain("ran 3 tests: 2 passed, 1 failed (suite › adds)");
    // A verify that expects the tests to fail (expect_exit: 1, a reproduction) is not flagged for it.
    const failing = counts({ ran: 1, failed: 1, failedNames: ["reproduces the bug"] });
    expect(judge({ receipt: failing, expectExit: 1 }).conclusion).toBe("success");
  });

  test("require-tests: no receipt or no test is failure; a test run is success", () => {
    const noReceipt = judge({ receipt: NONE, testsRequired: true });
    expect(noReceipt).toMatchObject({ conclusion: "failure", outcome: "failed", rule: "tests-required" });
    expect(noReceipt.reason).toContain("require-tests: true");
    expect(noReceipt.reason).toContain(
      "no test receipt (no test runner's summary was recognised in the output)",
    );
    expect(judge({ receipt: ZERO, testsRequired: true }).conclusion).toBe("failure");
    expect(judge({ testsRequired: true }).conclusion).toBe("failure");
    expect(judge({ receipt: ONE, testsRequired: true }).conclusion).toBe("success");
  });
});

describe("the words", () => {
  test("ran 1 test, ran 12 tests with failing names, ran no test, reports, no receipt", () => {
    expect(receiptWords(ONE)).toBe("ran 1 test: 1 passed, per node:test");
    const names = Array.from({ length: 7 }, (_, i) => `t${i}`);
    expect(
      receiptWords(
        counts({ runners: ["pytest"], ran: 12, passed: 5, failed: 7, skipped: 2, failedNames: names }),
      ),
    ).toBe("ran 12 tests: 5 passed, 7 failed (t0, t1, t2, t3, t4, …), 2 skipped, per pytest");
    expect(receiptWords(counts({ skipped: 2 }))).toBe("ran no test (2 skipped), per node:test");
    expect(
      receiptWords(
        counts({ runners: ["junit-xml"], source: "reports", files: ["r/a.xml"], ran: 2, passed: 2 }),
      ),
    ).toBe("ran 2 tests: 2 passed, per junit-xml report r/a.xml");
    expect(receiptWords(NONE)).toBe("no test receipt: no test runner's summary was recognised in the output");
  });

  test("the row shows the receipt in the text and Markdown ledgers; ledger.json keeps it and reads back", () => {
    const ledger = fixtureLedger({
      runId: "20260101-000000-abcdef",
      runtime: "claude",
      goal: "Make npm test pass",
      buildEvidence: ATTACHED,
      nodes: WRITE_CHECK_NODES,
      rows: [pass("write"), verifiedSink("check", { receipt: ZERO })],
      planningCalls: [],
      evidenceTree: STARTING_TREE,
    });
    expect(ledger.conclusion?.rule).toBe("verified-no-test");
    expect(renderLedgerText(ledger)).toContain("ran no test, per node:test");
    expect(renderLedgerMarkdown(ledger)).toContain("ran no test, per node:test");
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok && parsed.ledger.rows[1]?.verify?.receipt).toEqual(ZERO);
  });

  test("ledger.json refuses a malformed receipt (untrusted artifact)", () => {
    const ledger = fixtureLedger({
      runId: "20260101-000000-abcdef",
      runtime: "claude",
      goal: "g",
      buildEvidence: ATTACHED,
      nodes: WRITE_CHECK_NODES,
      rows: [pass("write"), verifiedSink("check", { receipt: ONE })],
      planningCalls: [],
      evidenceTree: STARTING_TREE,
    });
    const json = JSON.parse(renderLedgerJson(ledger));
    json.rows[1].verify.receipt.ran = -1;
    expect(parseLedgerJson(JSON.stringify(json)).ok).toBe(false);
  });
});
