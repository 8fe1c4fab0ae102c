import { describe, expect, test } from "vitest";
import { parseAutoFlags } from "../../src/cli/parse-auto-flags.js";

const errorsOf = (argv: string[]): readonly string[] => {
  const parsed = parseAutoFlags(argv);
  return parsed.ok ? [] : parsed.errors;
};

describe("auto's flags are checked before anything runs, and each error names the flag and the fix", () => {
  test("a valid invocation parses into typed flags", () => {
    const parsed = parseAutoFlags(["--goal", "fix it", "--verify-cmd", "npm test", "--concurrency", "3"]);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.flags.concurrency).toBe(3);
      expect(parsed.flags.verifyCmd).toBe("npm test");
      expect(parsed.flags.verifyTimeoutMs).toBe(600_000);
    }
  });

  test.each([" 4", "0x4", "1e1", "0", "11", "2.5"])(
    "--concurrency %j is refused: whole numbers 1-10 only",
    (value) => {
      expect(errorsOf(["--goal", "g", "--concurrency", value]).join("\n")).toContain("--concurrency");
    },
  );

  test('--concurrency -1 gets the usual message, not parseArgs\' "argument is ambiguous"', () => {
    expect(errorsOf(["--goal", "g", "--concurrency", "-1"])).toEqual([
      "--concurrency must be a whole number from 1 to 10 (got -1)",
    ]);
  });

  test.each(["0", "0s", "500ms", "25h"])("--verify-timeout %j is refused: 1s to 24h", (value) => {
    const errors = errorsOf(["--goal", "g", "--verify-timeout", value]).join("\n");
    expect(errors).toContain("--verify-timeout");
    expect(errors).toContain("1s to 24h");
  });

  test("--sha must be a full 40-hex SHA", () => {
    expect(errorsOf(["--goal", "g", "--sha", "nothex"]).join("\n")).toContain("40-hex");
  });

  test("--repository and --check-run-out cannot be combined: post or record, not both", () => {
    expect(
      errorsOf(["--goal", "g", "--repository", "a/b", "--check-run-out", "x.json"]).join("\n"),
    ).toContain("--repository and --check-run-out");
  });

  test("--check-run-out and --summary-out must be different files", () => {
    expect(errorsOf(["--goal", "g", "--check-run-out", "x", "--summary-out", "x"]).join("\n")).toContain(
      "same file",
    );
  });

  test("an empty --check-name is refused", () => {
    expect(errorsOf(["--goal", "g", "--check-name", " "]).join("\n")).toContain("--check-name");
  });

  test("--verify-cmd with --accept-no-build-evidence names both", () => {
    const errors = errorsOf(["--goal", "g", "--verify-cmd", "make", "--accept-no-build-evidence"]).join("\n");
    expect(errors).toContain("--verify-cmd");
    expect(errors).toContain("--accept-no-build-evidence");
  });
});

test("a repeated flag is an error naming it, not a silent last-one-wins", () => {
  const errors = errorsOf(["--goal", "first", "--goal", "second", "--verify-cmd", "true"]).join("\n");
  expect(errors).toContain("--goal was given more than once");
});

test("a --verify-cmd that is only a shell comment is refused like a blank one: it would pass every time", () => {
  const errors = errorsOf(["--goal", "g", "--verify-cmd", "# npm test"]).join("\n");
  expect(errors).toContain("only # comments");
});
