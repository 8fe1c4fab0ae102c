import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TestReceipt } from "../../src/core/ledger-row.js";
import { receiptFromOutput } from "../../src/evidence/test-receipt.js";

/**
 * Receipts read from runners' output (issue 25 item 1). Fixtures under test/fixtures/receipts/ are real
 * runs (versions in its README.md); runners that do not install here are read from their documented
 * output format, with the version named in the test.
 */
const FIXTURES = join(import.meta.dirname, "../fixtures/receipts");
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), "utf8");
const whole = (text: string): TestReceipt => receiptFromOutput({ head: text, tail: "", droppedBytes: 0 });

/** The counts part of a receipt, or a failure naming what it was. */
function counts(receipt: TestReceipt) {
  if (receipt.kind !== "counts") throw new Error(`expected counts, got none: ${receipt.reason}`);
  return receipt;
}

describe("real runs", () => {
  it.each([
    // file, runner, passed, failed, skipped, failing names
    ["node-mixed.txt", "node:test", 1, 1, 1, ["subtracts numbers"]],
    ["node-spec-mixed.txt", "node:test", 1, 1, 1, ["subtracts numbers"]],
    ["node-one.txt", "node:test", 1, 0, 0, []],
    ["node-empty.txt", "node:test", 0, 0, 0, []],
    ["vitest-mixed.txt", "vitest", 1, 1, 1, ["math.test.js > subtracts numbers"]],
    ["vitest-one.txt", "vitest", 1, 0, 0, []],
    ["vitest-empty.txt", "vitest", 0, 0, 0, []],
    ["vitest-empty-pass.txt", "vitest", 0, 0, 0, []],
    ["jest-mixed.txt", "jest", 1, 1, 1, ["subtracts numbers"]],
    ["jest-empty-pass.txt", "jest", 0, 0, 0, []],
    ["mocha-mixed.txt", "mocha", 1, 1, 1, ["math subtracts numbers"]],
    ["mocha-one.txt", "mocha", 1, 0, 0, []],
    ["mocha-none.txt", "mocha", 0, 0, 0, []],
    ["mocha-empty.txt", "mocha", 0, 0, 0, []],
    ["ava-mixed.txt", "ava", 1, 1, 1, ["subtracts numbers"]],
    ["ava-one.txt", "ava", 1, 0, 0, []],
    ["ava-empty.txt", "ava", 0, 0, 0, []],
    ["pytest-mixed.txt", "pytest", 1, 1, 1, ["test_math.py::test_subtracts"]],
    ["pytest-mixed-q.txt", "pytest", 1, 1, 1, ["test_math.py::test_subtracts"]],
    ["pytest-one.txt", "pytest", 1, 0, 0, []],
    ["pytest-empty.txt", "pytest", 0, 0, 0, []],
    ["cargo-mixed.txt", "cargo test", 1, 1, 1, ["tests::subtracts_numbers"]],
    ["cargo-empty.txt", "cargo test", 0, 0, 0, []],
  ] as const)(
    "%s: %s ran %i passed, %i failed, %i skipped",
    (file, runner, passed, failed, skipped, names) => {
      const receipt = counts(whole(fixture(file)));
      expect(receipt).toEqual({
        kind: "counts",
        runners: [runner],
        source: "output",
        ran: passed + failed,
        passed,
        failed,
        skipped,
        failedNames: names,
        failedNamesComplete: true,
      });
    },
  );
});

describe("documented formats (runners that do not install here)", () => {
  it("go test -v (go 1.22, testing package's -v lines): each test and subtest line, the package lines", () => {
    const out = [
      "=== RUN   TestAdd",
      "--- PASS: TestAdd (0.00s)",
      "=== RUN   TestSub",
      "    math_test.go:9: got 1, want 0",
      "--- FAIL: TestSub (0.00s)",
      "=== RUN   TestLater",
      "    math_test.go:12: later",
      "--- SKIP: TestLater (0.00s)",
      "FAIL",
      "FAIL\texample.com/m\t0.002s",
      "FAIL",
    ].join("\n");
    expect(counts(whole(out))).toMatchObject({
      runners: ["go test"],
      ran: 2,
      passed: 1,
      failed: 1,
      skipped: 1,
      failedNames: ["TestSub"],
    });
  });

  it("go test without -v (go 1.22): package lines carry no counts, so no receipt — unless no package has a test", () => {
    expect(whole("ok  \texample.com/m\t0.002s\n").kind).toBe("none");
    const none = "?   \texample.com/m\t[no test files]\nok  \texample.com/m/sub\t0.001s [no tests to run]\n";
    expect(counts(whole(none))).toMatchObject({ runners: ["go test"], ran: 0 });
  });

  it("Maven Surefire 3.5 (Results block; per-class lines are not read; two modules summed)", () => {
    const out = [
      "[INFO] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: 0.05 s <<< FAILURE! -- in demo.MathTest",
      "[ERROR] demo.MathTest.subtractsNumbers -- Time elapsed: 0.01 s  <<< FAILURE!",
      "[INFO] ",
      "[INFO] Results:",
      "[INFO] ",
      "[ERROR] Failures: ",
      "[ERROR]   MathTest.subtractsNumbers:7 expected: <0> but was: <1>",
      "[INFO] ",
      "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1",
      "[INFO] Results:",
      "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0",
    ].join("\n");
    expect(counts(whole(out))).toMatchObject({
      runners: ["maven-surefire"],
      ran: 6,
      passed: 5,
      failed: 1,
      skipped: 1,
      failedNames: ["MathTest.subtractsNumbers"],
    });
    expect(counts(whole("[INFO] No tests to run.\n"))).toMatchObject({ ran: 0 });
  });

  it("Gradle 8 test task (counts only when a test failed)", () => {
    const out =
      "MathTest > subtractsNumbers() FAILED\n    org.opentest4j.AssertionFailedError at MathTest.java:7\n\n3 tests completed, 1 failed, 1 skipped\n";
    expect(counts(whole(out))).toMatchObject({
      runners: ["gradle"],
      ran: 2,
      passed: 1,
      failed: 1,
      skipped: 1,
      failedNames: ["MathTest > subtractsNumbers()"],
    });
    expect(whole("BUILD SUCCESSFUL in 3s\n4 actionable tasks: 4 executed\n").kind).toBe("none");
  });

  it("RSpec 3.13 (pending examples did not run)", () => {
    const out =
      "Finished in 0.01 seconds (files took 0.1 seconds to load)\n4 examples, 1 failure, 1 pending\n\nFailed examples:\n\nrspec ./spec/math_spec.rb:5 # Math subtracts numbers\n";
    expect(counts(whole(out))).toMatchObject({
      runners: ["rspec"],
      ran: 3,
      passed: 2,
      failed: 1,
      skipped: 1,
      failedNames: ["Math subtracts numbers"],
    });
    expect(counts(whole("0 examples, 0 failures\n"))).toMatchObject({ ran: 0 });
  });

  it("PHPUnit 11 (OK line, FAILURES! line, No tests executed!)", () => {
    expect(counts(whole("OK (3 tests, 5 assertions)\n"))).toMatchObject({
      runners: ["phpunit"],
      ran: 3,
      passed: 3,
    });
    const out =
      "There was 1 failure:\n\n1) MathTest::testSubtracts\nFailed asserting that 1 matches expected 0.\n\nFAILURES!\nTests: 4, Assertions: 4, Failures: 1, Skipped: 1.\n";
    expect(counts(whole(out))).toMatchObject({
      ran: 3,
      passed: 2,
      failed: 1,
      skipped: 1,
      failedNames: ["MathTest::testSubtracts"],
    });
    expect(counts(whole("No tests executed!\n"))).toMatchObject({ ran: 0 });
  });

  it("dotnet test (.NET 8 SDK: one line per test project, summed; the terminal logger's Test summary)", () => {
    const out = [
      "  Failed Demo.MathTests.Subtracts [3 ms]",
      "  Error Message:",
      "   Assert.Equal() Failure",
      "Failed!  - Failed:     1, Passed:     1, Skipped:     1, Total:     3, Duration: 12 ms - Demo.dll (net8.0)",
      "Passed!  - Failed:     0, Passed:     2, Skipped:     0, Total:     2, Duration: 4 ms - Other.dll (net8.0)",
    ].join("\n");
    expect(counts(whole(out))).toMatchObject({
      runners: ["dotnet test"],
      ran: 4,
      passed: 3,
      failed: 1,
      skipped: 1,
      failedNames: ["Demo.MathTests.Subtracts"],
    });
    expect(
      counts(whole("Test summary: total: 2, failed: 0, succeeded: 2, skipped: 0, duration: 1.1s\n")),
    ).toMatchObject({ ran: 2 });
  });
});

describe("no receipt, never a guess", () => {
  it("a build-only command's output", () => {
    expect(whole("tsc -p .\nbuilt in 2s\n")).toEqual({
      kind: "none",
      reason: "no test runner's summary was recognised in the output",
    });
  });

  it("a half-printed summary is not a summary", () => {
    expect(whole("# tests 3\n# suites 0\n").kind).toBe("none");
    expect(whole("Tests:       1 failed, 1 passed\n").kind).toBe("none"); // jest always ends with N total
  });

  it("two runners in one command are summed, in output order", () => {
    const receipt = counts(whole(`${fixture("pytest-one.txt")}\n${fixture("node-one.txt")}`));
    expect(receipt).toMatchObject({ runners: ["pytest", "node:test"], ran: 2, passed: 2 });
  });

  it("cut output: the one final summary in the kept tail counts, its names marked incomplete", () => {
    const text = fixture("pytest-mixed.txt");
    const receipt = counts(
      receiptFromOutput({
        head: "collected 3 items\n",
        // A tail cut in the middle of the line before the short test summary's FAILED line.
        tail: text.slice(text.indexOf("FAILED ") - 3),
        droppedBytes: 900,
      }),
    );
    expect(receipt).toMatchObject({
      ran: 2,
      failed: 1,
      failedNames: ["test_math.py::test_subtracts"],
      failedNamesComplete: false,
    });
  });

  it("cut output: a summary cut off, a tally (cargo), or a summary in the head is no receipt", () => {
    const cargo = fixture("cargo-mixed.txt");
    expect(
      receiptFromOutput({ head: "Compiling\n", tail: cargo.slice(-400), droppedBytes: 5000 }),
    ).toMatchObject({ kind: "none" });
    expect(
      receiptFromOutput({
        head: "start\n",
        tail: "…output that ends before the summary\n",
        droppedBytes: 5000,
      }),
    ).toMatchObject({ kind: "none" });
    const one = fixture("node-one.txt");
    expect(receiptFromOutput({ head: one, tail: one, droppedBytes: 10 })).toMatchObject({ kind: "none" });
  });

  it("ANSI colours and CRLF line ends do not hide a summary", () => {
    const coloured =
      "\u001b[1m\u001b[31mTests:       \u001b[39m\u001b[22m\u001b[1m\u001b[31m1 failed\u001b[39m\u001b[22m, 2 passed, 3 total\r\n";
    expect(counts(whole(coloured))).toMatchObject({ runners: ["jest"], ran: 3, failed: 1 });
  });
});

describe("misreadings a code review found (each failed before its fix)", () => {
  it("jest 30.5.2: a suite that fails to compile counts no test, and is a failure all the same", () => {
    // `Test Suites: 1 failed, 1 passed, 2 total` + `Tests: 2 passed, 2 total` (real run).
    expect(counts(whole(fixture("jest-suite-failed.txt")))).toMatchObject({
      runners: ["jest"],
      passed: 2,
      failed: 1,
      failedNames: [],
      failedNamesComplete: false,
    });
  });

  it("vitest 4.1.12: a test file that fails to load is a failure; its FAIL line names it", () => {
    // `Test Files  1 failed | 1 passed (2)` + `Tests  2 passed (2)` (real run).
    expect(counts(whole(fixture("vitest-file-failed.txt")))).toMatchObject({
      runners: ["vitest"],
      passed: 2,
      failed: 1,
      failedNames: ["broken.test.js [ broken.test.js ]"],
      failedNamesComplete: true,
    });
  });

  it("vitest 4.1.12: `Errors  1 error` (an unhandled rejection) is a failure", () => {
    expect(counts(whole(fixture("vitest-errors.txt")))).toMatchObject({
      runners: ["vitest"],
      passed: 3,
      failed: 1,
      failedNamesComplete: false,
    });
  });

  it("ava 7.0.0: an uncaught exception and a failed hook are failures", () => {
    // `1 test passed` + `1 uncaught exception` (real run).
    expect(counts(whole(fixture("ava-uncaught.txt")))).toMatchObject({
      runners: ["ava"],
      passed: 1,
      failed: 1,
    });
    // `1 hook failed` alone: AVA prints no passed count, so the `✔` lines are counted.
    expect(counts(whole(fixture("ava-hook.txt")))).toMatchObject({
      runners: ["ava"],
      passed: 1,
      failed: 1,
      failedNames: ["tears down"],
    });
    // The other AVA 7 closing lines (lib/reporters/default.js endRun).
    const more =
      "  ✔ adds numbers\n  ─\n\n  2 unhandled rejections\n  1 test remained pending after a timeout\n";
    expect(counts(whole(more))).toMatchObject({ passed: 1, failed: 3 });
  });

  it("ava's tally counts only its own ✔ lines, not another runner's printed before it", () => {
    const receipt = counts(whole(`${fixture("node-spec-mixed.txt")}\n${fixture("ava-mixed.txt")}`));
    expect(receipt).toMatchObject({ runners: ["node:test", "ava"], passed: 2, failed: 2 });
  });

  it("cut output: the tail's first line may be the end of a longer one, and is not read", () => {
    // The line was `1 failed, 2 passed in 0.50s`; the tail starts in its middle.
    expect(
      receiptFromOutput({ head: "collected 3 items\n", tail: " 2 passed in 0.50s\n", droppedBytes: 600_000 }),
    ).toMatchObject({ kind: "none" });
    expect(
      counts(
        receiptFromOutput({
          head: "collected 3 items\n",
          tail: "ed\n1 failed, 2 passed in 0.50s\n",
          droppedBytes: 600_000,
        }),
      ),
    ).toMatchObject({ passed: 2, failed: 1 });
  });

  it("go test (go 1.22): `FAIL\\tpkg [build failed]` (a tab, no space) is a failure, not 'ran no test'", () => {
    const out = "?   \texample.com/a\t[no test files]\nFAIL\texample.com/b [build failed]\nFAIL\n";
    expect(counts(whole(out))).toMatchObject({ runners: ["go test"], passed: 0, failed: 1 });
    // -v over two packages, one failing to build: its failure is not lost behind the other's passes.
    const verbose =
      "--- PASS: TestAdd (0.00s)\nok  \texample.com/a\t0.002s\nFAIL\texample.com/b [setup failed]\n";
    expect(counts(whole(verbose))).toMatchObject({ passed: 1, failed: 1 });
    // An `ok` package without -v lines (its passing tests are not printed) beside a -v one: no receipt.
    const mixed = "--- PASS: TestAdd (0.00s)\nok  \texample.com/a\t0.002s\nok  \texample.com/c\t0.001s\n";
    expect(whole(mixed).kind).toBe("none");
  });

  it("cargo-nextest 0.9: a green run prints no `failed` part; timed out and exec failed are failures", () => {
    expect(counts(whole("     Summary [   0.010s] 3 tests run: 3 passed, 0 skipped\n"))).toMatchObject({
      runners: ["cargo-nextest"],
      passed: 3,
      failed: 0,
    });
    const bad =
      "     Summary [   2.010s] 4 tests run: 1 passed (1 slow), 1 failed, 1 timed out, 1 exec failed, 2 skipped\n";
    expect(counts(whole(bad))).toMatchObject({ passed: 1, failed: 3, skipped: 2 });
    expect(whole("     Summary [   0.010s] 3 tests run: 3 passed, 1 unheard of\n").kind).toBe("none");
  });

  it("mocha 12: a run of an hour or more, `(1h)`, is still read", () => {
    expect(counts(whole("  3 passing (1h)\n"))).toMatchObject({ runners: ["mocha"], passed: 3 });
  });
});
