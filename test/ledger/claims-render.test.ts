import { describe, expect, it } from "vitest";
import type { LedgerRow, VerifyEvidence } from "../../src/core/ledger-row.js";
import { claimsForRow } from "../../src/evidence/node-claims.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderCheckRunOutput } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { ATTACHED, fail, fixtureLedger, pass, STARTING_TREE, verifyEvidence } from "./fixtures.js";

/** A one-sink ledger whose sink replied `reply` and whose verify ended as `verify` says. */
function sinkLedger(reply: string, verify: VerifyEvidence): Ledger {
  const claims = claimsForRow(reply, verify);
  const row: LedgerRow =
    verify.outcome === "passed"
      ? pass("build", { qualifier: "verified", sink: true, verify, detail: "verify `npm test` exited 0" })
      : fail("build", { cause: "verify_failed", sink: true, verify, detail: "verify `npm test` exited 1" });
  return fixtureLedger({
    runId: "20260501-130000-d4e5f6",
    runtime: "claude",
    goal: "Fix the date parser",
    buildEvidence: ATTACHED,
    nodes: [{ id: "build", dependsOn: [], allowedTools: ["Read", "Edit"], sink: true }],
    rows: [{ ...row, ...(claims !== undefined ? { claims } : {}) }],
    planningCalls: [],
    evidenceTree: STARTING_TREE,
  });
}

const FAILED = verifyEvidence({ exitCode: 1, outcome: "failed", outputTail: "1 failing\n" });
const PASSED = verifyEvidence({ exitCode: 0, outcome: "passed" });

describe("the node's claim beside the observation, on the row and in the check run", () => {
  it("a lying node (all 12 tests pass over a failed verify): named on its row and in the summary", () => {
    const ledger = sinkLedger("I fixed the parser. All 12 tests pass.", FAILED);
    const text = renderLedgerText(ledger);
    expect(text).toContain(
      'the node said "All 12 tests pass." — contradicted: claimed 12 passing tests; the verify command failed (exit 1)',
    );
    const { summary } = renderCheckRunOutput(ledger);
    expect(summary).toContain("### ⚠️ What a node claimed, and what the engine observed");
    expect(summary).toContain(
      "- `build` said “All 12 tests pass.” — claimed 12 passing tests; the verify command failed (exit 1)",
    );
    expect(summary).toContain("claimed a fix; the verify command failed (exit 1)");
    // The verdict is the observation's: the claim changes nothing.
    expect(ledger.conclusion?.conclusion).toBe("failure");
  });

  it("a truthful node: the row says it agrees, the summary has no claims section", () => {
    const ledger = sinkLedger("All tests pass.", PASSED);
    expect(renderLedgerText(ledger)).toContain(
      'the node said "All tests pass." — agrees with what the engine observed',
    );
    expect(renderCheckRunOutput(ledger).summary).not.toContain("What a node claimed");
    expect(ledger.conclusion?.conclusion).toBe("success");
  });

  it("model text in a quote is data in the summary: Markdown and HTML are escaped", () => {
    const ledger = sinkLedger("All tests pass <img src=x> [x](https://e.example).", FAILED);
    const { summary } = renderCheckRunOutput(ledger);
    expect(summary).not.toContain("<img");
    expect(summary).toContain("&lt;img src=x&gt;");
  });

  it("claims round-trip through ledger.json; an unknown claim kind is refused as data", () => {
    const ledger = sinkLedger("The build succeeds; 3 tests pass.", FAILED);
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok && parsed.ledger.rows[0]?.claims).toEqual(ledger.rows[0]?.claims);
    const forged = JSON.parse(renderLedgerJson(ledger));
    forged.rows[0].claims[0].kind = "everything-fine";
    const refused = parseLedgerJson(JSON.stringify(forged));
    expect(refused.ok).toBe(false);
  });
});
