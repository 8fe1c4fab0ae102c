import { describe, expect, test } from "vitest";
import { parseRunFlags, RUN_USAGE } from "../../src/cli/parse-run-flags.js";
import { parseReportFlags } from "../../src/cli/parse-saved-run-flags.js";

const errorsOf = (argv: string[]): string => {
  const parsed = parseRunFlags(argv);
  return parsed.ok ? "" : parsed.errors.join("\n");
};

describe("run's flags are checked before anything runs, and each error names the flag and the fix", () => {
  test("a valid invocation parses into typed flags; --concurrency and --verify-timeout stay unset unless given", () => {
    const parsed = parseRunFlags([
      "graph.yml",
      "--input",
      "task=fix it",
      "--input",
      "who=a=b",
      "--continue-on-fail",
    ]);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.flags.graph).toBe("graph.yml");
    expect({ ...parsed.flags.inputs }).toEqual({ task: "fix it", who: "a=b" });
    expect(parsed.flags.continueOnFail).toBe(true);
    expect(parsed.flags.concurrency).toBeUndefined();
    expect(parsed.flags.verifyTimeoutMs).toBeUndefined();
    expect(parsed.flags.repo).toBe(".");
    expect(parsed.flags.checkName).toBe("evidence-gate");
  });

  test("--concurrency and --verify-timeout parse when given", () => {
    const parsed = parseRunFlags(["g.yml", "--concurrency", "2", "--verify-timeout", "15m"]);
    expect(parsed.ok && parsed.flags.concurrency).toBe(2);
    expect(parsed.ok && parsed.flags.verifyTimeoutMs).toBe(15 * 60_000);
  });

  test("the graph file is required, and only one", () => {
    expect(errorsOf([])).toContain("run needs the graph file to run: evidence-gate run GRAPH");
    expect(errorsOf(["a.yml", "b.yml"])).toContain('also got "b.yml"');
  });

  test.each([
    [
      ["g.yml", "--accept-loaded-user-config"],
      "--accept-loaded-user-config is meaningless on run: hand-written nodes already load your configuration",
    ],
    [["g.yml", "--goal", "fix it"], "--goal belongs to auto"],
    [["g.yml", "--verify-cmd", "npm test"], "--verify-cmd does not apply to run"],
    [["g.yml", "--accept-no-build-evidence"], "--accept-no-build-evidence does not apply to run"],
  ])("%j is refused with the reason", (argv, message) => {
    expect(errorsOf(argv)).toContain(message);
  });

  test.each([
    [["g.yml", "--input", "novalue"], "--input"],
    [["g.yml", "--input", "a=1", "--input", "a=2"], "--input a was given more than once"],
    [["g.yml", "--input", "bad name=1"], "--input"],
    [["g.yml", "--concurrency", "0"], "--concurrency"],
    [["g.yml", "--concurrency", "11"], "--concurrency"],
    [["g.yml", "--verify-timeout", "soon"], "--verify-timeout"],
    [["g.yml", "--verify-env", "GITHUB_TOKEN"], "--verify-env"],
    [["g.yml", "--runtime", "gemini"], "--runtime"],
    [["g.yml", "--codex-config", 'model="gpt-5.5"'], "codex-config applies only to the codex runtime"],
    [["g.yml", "--runtime", "codex", "--codex-config", "no-equals-sign"], '"no-equals-sign"'],
    [["g.yml", "--repository", "nope"], "--repository"],
    // Put into API paths with the token: `../x` would post to `/x/check-runs` on the same API host.
    [["g.yml", "--repository", "../x"], '--repository "../x": give OWNER/NAME'],
    [["g.yml", "--repository", "o/.."], '--repository "o/..": give OWNER/NAME'],
    [["g.yml", "--repository", "o/n/x"], '--repository "o/n/x": give OWNER/NAME'],
    [["g.yml", "--repository", "o.k/n"], '--repository "o.k/n": give OWNER/NAME'],
    [["g.yml", "--sha", "abc"], "--sha"],
    [["g.yml", "--check-name", " "], "--check-name"],
    [["g.yml", "--repository", "a/b", "--check-run-out", "x.json"], "--repository and --check-run-out"],
    [["g.yml", "--check-run-out", "x", "--summary-out", "x"], "--check-run-out and --summary-out"],
    [["g.yml", "--model", "a", "--model", "b"], "--model was given more than once"],
    [["g.yml", "--no-such-flag"], "--no-such-flag"],
  ])("%j is refused naming %s", (argv, flag) => {
    expect(errorsOf(argv)).toContain(flag);
  });

  test.each([
    [["g.yml", "--concurrency", "-1"], "--concurrency must be a whole number from 1 to 10 (got -1)"],
    [["g.yml", "--concurrency=-1"], "--concurrency must be a whole number from 1 to 10 (got -1)"],
    [["g.yml", "--concurrency", "-0.5"], "--concurrency must be a whole number from 1 to 10 (got -0.5)"],
    [["g.yml", "--concurrency", "0"], "--concurrency must be a whole number from 1 to 10 (got 0)"],
    [["g.yml", "--concurrency", " 4"], '--concurrency must be a whole number from 1 to 10 (got " 4")'],
  ])('%j: the usual message, not parseArgs\' "argument is ambiguous"', (argv, message) => {
    expect(errorsOf(argv)).toBe(message);
  });

  test("a value starting with a dash that is not a number is still a missing value", () => {
    expect(errorsOf(["g.yml", "--model", "-x"])).toBe(
      '--model needs a value, and the word after it starts with "-": give it as --model=VALUE',
    );
    // After `--` every word is a positional, dashes and all.
    expect(errorsOf(["g.yml", "--", "--concurrency", "-1"])).toContain("run takes one graph file");
  });

  test("every problem is reported at once, not only the first", () => {
    const errors = errorsOf(["g.yml", "--concurrency", "0", "--sha", "x", "--accept-loaded-user-config"]);
    expect(errors).toContain("--concurrency");
    expect(errors).toContain("--sha");
    expect(errors).toContain("--accept-loaded-user-config");
  });

  test("the usage text names the exit codes, including 64 for an invalid graph", () => {
    expect(RUN_USAGE).toContain("64 usage error (bad flags, unreadable or\ninvalid graph");
    expect(RUN_USAGE).toContain("2 paused");
  });
});

test("README's `run` synopsis names exactly the flags `run --help` lists", async () => {
  const { readFileSync } = await import("node:fs");
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const synopsis = /^evidence-gate run GRAPH(?:[^\n]*\\\n)*[^\n]*/m.exec(readme)?.[0] ?? "";
  const flags = (text: string): string[] => [...new Set(text.match(/--[a-z][a-z-]*/g) ?? [])].sort();
  const help = RUN_USAGE.split("\n")
    .filter((l) => /^ {2}--/.test(l))
    .join("\n");
  expect(flags(synopsis)).toEqual(flags(help));
});

describe("--repository of report, as of run", () => {
  test.each(["../x", "o/..", "o/.", "o/n?a=b"])("report --repository %j is refused", (repository) => {
    const parsed = parseReportFlags(["20260101-000000-abcdef", "--repository", repository]);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.errors.join("\n")).toContain(
      `--repository ${JSON.stringify(repository)}: give OWNER/NAME`,
    );
  });

  test.each(["octo-org/widgets", "o/n.js", "O-1/_x-y.z"])("report --repository %j is taken", (repository) => {
    const parsed = parseReportFlags(["20260101-000000-abcdef", "--repository", repository]);
    expect(parsed.ok ? parsed.flags.repository : parsed.errors).toBe(repository);
  });
});
