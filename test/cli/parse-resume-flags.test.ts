import { describe, expect, test } from "vitest";
import { parseResumeFlags, RESUME_USAGE } from "../../src/cli/parse-resume-flags.js";

const ID = "20260101-120000-abcdef";
const errorsOf = (argv: string[]): string => {
  const parsed = parseResumeFlags(argv);
  return parsed.ok ? "" : parsed.errors.join("\n");
};

describe("resume takes exactly one action, and each error names the flag and the fix", () => {
  test.each([
    [["--approve", "ship"], { kind: "approve", gate: "ship" }],
    [["--reject", "ship"], { kind: "reject", gate: "ship" }],
    [["--retry-failed"], { kind: "retry-failed" }],
  ])("%j parses into the action", (flags, action) => {
    const parsed = parseResumeFlags([ID, ...flags]);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.flags.runId).toBe(ID);
      expect(parsed.flags.action).toEqual(action);
    }
  });

  test("--by, --concurrency and the report flags parse", () => {
    const parsed = parseResumeFlags([
      ID,
      "--approve",
      "ship",
      "--by",
      "alice",
      "--concurrency",
      "3",
      "--json",
    ]);
    expect(parsed.ok && parsed.flags.by).toBe("alice");
    expect(parsed.ok && parsed.flags.concurrency).toBe(3);
    expect(parsed.ok && parsed.flags.json).toBe(true);
  });

  test("no action names all three", () => {
    expect(errorsOf([ID])).toContain("resume needs one of --approve GATE, --reject GATE or --retry-failed");
  });

  test("two actions are refused, naming both", () => {
    expect(errorsOf([ID, "--approve", "a", "--retry-failed"])).toContain(
      "--approve and --retry-failed were given together: give one of --approve GATE, --reject GATE or --retry-failed",
    );
    expect(errorsOf([ID, "--approve", "a", "--reject", "a"])).toContain(
      "--approve and --reject were given together",
    );
  });

  test("the run id is required, and only one", () => {
    expect(errorsOf(["--retry-failed"])).toContain("resume needs the run id");
    expect(errorsOf([ID, ID, "--retry-failed"])).toContain("give one RUN_ID");
  });

  test.each([
    [[ID, "--approve", " "], "--approve is empty"],
    [[ID, "--retry-failed", "--by", "alice"], "--by applies to --approve and --reject"],
    [[ID, "--approve", "g", "--by", ""], '--by is "": give a GitHub login'],
    [[ID, "--retry-failed", "--input", "a=1"], "--input does not apply to resume"],
    [[ID, "--retry-failed", "--model", "m"], "--model does not apply to resume"],
    [[ID, "--retry-failed", "--concurrency", "12"], "--concurrency"],
    [
      [ID, "--retry-failed", "--concurrency", "-1"],
      "--concurrency must be a whole number from 1 to 10 (got -1)",
    ],
    [[ID, "--retry-failed", "--sha", "nothex"], "--sha"],
    [[ID, "--approve", "a", "--approve", "b"], "--approve was given more than once"],
    [[ID, "--retry-failed", "--verify-cmd", "x"], "--verify-cmd"],
  ])("%j is refused naming %s", (argv, flag) => {
    expect(errorsOf(argv)).toContain(flag);
  });
});

describe("--by is validated like the action's `approver` input: a GitHub login, anything else a usage error naming the flag and the fix", () => {
  test.each([
    "@octocat (GitHub-verified maintainer)",
    "@octocat",
    "octocat (local user)",
    "octo cat",
    "octocat-",
    "octo--cat",
    "octocat[bot]",
    "a".repeat(40),
  ])("--by %j is refused", (by) => {
    expect(errorsOf([ID, "--approve", "g", "--by", by])).toContain(
      `--by is ${JSON.stringify(by)}: give a GitHub login (letters, digits and single hyphens, at most 39 characters, no @), e.g. --by octocat; without --by the approver is recorded as the local user`,
    );
  });

  test.each(["octocat", "mona-lisa", "A1", "a".repeat(39)])("--by %j is a login", (by) => {
    const parsed = parseResumeFlags([ID, "--reject", "g", "--by", by]);
    expect(parsed.ok && parsed.flags.by).toBe(by);
  });
});

test("`resume --help` and README say the same default --concurrency: the concurrency the run started with", async () => {
  const { readFileSync } = await import("node:fs");
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const words = "the concurrency the run started with";
  expect(RESUME_USAGE).toContain(`--concurrency N              nodes running at once (default: ${words}`);
  expect(readme).toContain(`\`--concurrency\` defaults to ${words}`);
  expect(readme).not.toContain("the first leg's");
});
