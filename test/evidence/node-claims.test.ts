import { describe, expect, it } from "vitest";
import {
  CLAIM_SCAN_CHARS,
  type ClaimObservation,
  checkClaims,
  readNodeClaims,
} from "../../src/evidence/node-claims.js";

const passed: ClaimObservation = { outcome: "passed", exitCode: 0, tests: null };
const failed: ClaimObservation = { outcome: "failed", exitCode: 1, tests: null };

describe("readNodeClaims: the fixed set of claims a reply can make", () => {
  it.each([
    ["All tests pass.", "tests-pass"],
    ["all 12 tests passed", "tests-count"],
    ["The tests now pass", "tests-pass"],
    ["Unit tests are all passing!", "tests-pass"],
    ["the test suite passes", "tests-pass"],
    ["The build succeeds.", "build-succeeds"],
    ["It compiles without errors.", "build-succeeds"],
    ["I've fixed the off-by-one in sum().", "fixed"],
    ["This fixes the failing test.", "fixed"],
  ])("%j is a %s claim", (reply, kind) => {
    expect(readNodeClaims(reply).map((c) => c.kind)).toContain(kind);
  });

  it("reads counts with and without a total", () => {
    expect(readNodeClaims("Result: 20/21 integration tests pass (1 pre-existing flaky timeout).")).toEqual([
      {
        kind: "tests-count",
        passed: 20,
        total: 21,
        quote: "Result: 20/21 integration tests pass (1 pre-existing flaky timeout).",
      },
    ]);
    expect(readNodeClaims("11 out of 12 tests passed")[0]).toMatchObject({ passed: 11, total: 12 });
    expect(readNodeClaims("12 tests pass")[0]).toMatchObject({ passed: 12, total: null });
    expect(readNodeClaims("  7 passing (40ms)")[0]).toMatchObject({ kind: "tests-count", passed: 7 });
  });

  it.each([
    "Not all tests pass yet.",
    "The tests no longer pass after the rename",
    "I could not make the build succeed",
    "The build never succeeded on CI",
    "I didn't fix the flaky test",
    "I wrote the function and a test for it.",
  ])("%j claims nothing", (reply) => {
    expect(readNodeClaims(reply)).toEqual([]);
  });

  it("keeps the last claim of a kind (the final summary wins) and reply order across kinds", () => {
    const claims = readNodeClaims("First run: 3 tests pass. I fixed the bug.\nNow 5 tests pass.");
    expect(claims.map((c) => c.kind)).toEqual(["fixed", "tests-count"]);
    expect(claims[1]).toMatchObject({ passed: 5 });
  });

  it("reads only the reply's last 16 KiB and quotes one bounded line", () => {
    const early = `All tests pass.\n${"x".repeat(CLAIM_SCAN_CHARS)}`;
    expect(readNodeClaims(early)).toEqual([]);
    const long = `All tests pass ${"and more words ".repeat(30)}`;
    const [claim] = readNodeClaims(long);
    expect(claim?.quote.length).toBeLessThanOrEqual(160);
    expect(claim?.quote.endsWith("…")).toBe(true);
  });
});

describe("checkClaims: the claim beside the observation", () => {
  it("a truthful node shows no contradiction", () => {
    const claims = readNodeClaims("All tests pass and the build succeeds. 12 tests pass.");
    const checked = checkClaims(claims, {
      ...passed,
      tests: { run: 12, passed: 12, failed: 0 },
    });
    expect(checked.map((c) => c.contradiction)).toEqual([null, null, null]);
  });

  it("a lying node: claimed pass over a failed verify is named, with the exit code", () => {
    const checked = checkClaims(readNodeClaims("Done: all 12 tests pass."), failed);
    expect(checked).toHaveLength(1);
    expect(checked[0]?.contradiction).toBe("claimed 12 passing tests; the verify command failed (exit 1)");
    expect(checkClaims(readNodeClaims("The build succeeds."), failed)[0]?.contradiction).toBe(
      "claimed the build succeeds; the verify command failed (exit 1)",
    );
    expect(
      checkClaims(readNodeClaims("I fixed it."), { outcome: "timed_out", exitCode: null, tests: null })[0]
        ?.contradiction,
    ).toBe("claimed a fix; the verify command timed out");
  });

  it("a count other than the receipt's is named even when the verify passed", () => {
    const [checked] = checkClaims(readNodeClaims("12 tests pass"), {
      ...passed,
      tests: { run: 11, passed: 11, failed: 0 },
    });
    expect(checked?.contradiction).toBe("claimed 12 passing tests; the receipt shows 11 passed of 11");
  });

  it("a partial count (20/21) over a failed verify is not a contradiction without a receipt", () => {
    const [checked] = checkClaims(readNodeClaims("20/21 tests pass"), failed);
    expect(checked?.contradiction).toBeNull();
  });

  it("'tests pass' over a passing command whose receipt shows failures is named", () => {
    const [checked] = checkClaims(readNodeClaims("All tests pass."), {
      ...passed,
      tests: { run: 3, passed: 2, failed: 1 },
    });
    expect(checked?.contradiction).toBe("claimed the tests pass; the receipt shows 1 failed");
  });

  it("a receipt that ran no test contradicts 'tests pass' and a claimed count (the zero-tests case)", () => {
    const none = { ...passed, tests: { run: 0, passed: 0, failed: 0 } };
    expect(checkClaims(readNodeClaims("All tests pass."), none)[0]?.contradiction).toBe(
      "claimed the tests pass; the receipt shows no test ran",
    );
    expect(checkClaims(readNodeClaims("5 passing"), none)[0]?.contradiction).toBe(
      "claimed 5 passing tests; the receipt shows 0 passed of 0",
    );
  });
});
