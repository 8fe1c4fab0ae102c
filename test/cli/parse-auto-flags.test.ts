import { describe, expect, test } from "vitest";
import { parseAutoFlags } from "../../src/cli/parse-auto-flags.js";
import { parseRunFlags } from "../../src/cli/parse-run-flags.js";
import { parseVerifyFlags } from "../../src/cli/verify-command.js";

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

  test("--sha without --repository or --check-run-out is a usage error (it would be silently ignored)", () => {
    const sha = "a".repeat(40);
    expect(errorsOf(["--goal", "g", "--sha", sha]).join("\n")).toContain(
      "--sha names the commit a check run is posted on, but no check run is posted or recorded",
    );
    expect(errorsOf(["--goal", "g", "--sha", sha, "--check-run-out", "out.json"]).join("\n")).not.toContain(
      "--sha names",
    );
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

describe("--runtime, --model and --codex-config are checked against each other (SPEC §4, §10)", () => {
  test("--runtime codex with --codex-config pairs and --codex-path parses; pairs keep their order, spaces around = dropped", () => {
    const parsed = parseAutoFlags([
      "--goal",
      "g",
      "--runtime",
      "codex",
      "--model",
      "gpt-5.5",
      "--codex-path",
      "/opt/codex",
      "--codex-config",
      'model_provider = "gw"',
      "--codex-config",
      'model_providers.gw.base_url="http://127.0.0.1:1/v1"',
    ]);
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    expect(parsed.flags).toMatchObject({
      runtime: "codex",
      model: "gpt-5.5",
      codexPath: "/opt/codex",
      codexConfig: ['model_provider="gw"', 'model_providers.gw.base_url="http://127.0.0.1:1/v1"'],
    });
  });

  test("claude is the default runtime and takes no --codex-config", () => {
    const parsed = parseAutoFlags(["--goal", "g"]);
    expect(parsed.ok && parsed.flags.runtime).toBe("claude");
    expect(errorsOf(["--goal", "g", "--codex-config", "a=1"]).join("\n")).toContain(
      "codex-config applies only to the codex runtime: pass --runtime codex",
    );
  });

  test.each([
    [["--codex-config", "no-equals"], 'entry 1: expected KEY=VALUE, got "no-equals"'],
    [["--codex-config", "a=1", "--codex-config", "bad key=1"], 'entry 2: "bad key" is not a config key'],
    [
      ["--model", "-x"],
      '--model needs a value, and the word after it starts with "-": give it as --model=VALUE',
    ],
    [["--model=-x"], 'a codex model must be non-empty and not start with "-"'],
  ])("on codex, %j is refused naming it", (argv, message) => {
    expect(errorsOf(["--goal", "g", "--runtime", "codex", ...argv]).join("\n")).toContain(message);
  });

  test("an unknown --runtime is refused naming both runtimes", () => {
    expect(errorsOf(["--goal", "g", "--runtime", "gemini"]).join("\n")).toContain(
      '--runtime "gemini" is not a runtime: use claude or codex',
    );
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

describe("--repair-attempts (SPEC §7, issue 13 item 5)", () => {
  test("absent is 0 (off); a whole number 0-10 is read", () => {
    const absent = parseAutoFlags(["--goal", "g", "--verify-cmd", "npm test"]);
    const two = parseAutoFlags(["--goal", "g", "--verify-cmd", "npm test", "--repair-attempts", "2"]);
    expect(absent.ok && absent.flags.repairAttempts).toBe(0);
    expect(two.ok && two.flags.repairAttempts).toBe(2);
  });

  test.each(["11", "1.5", "two", "0x2"])(
    "--repair-attempts %j is refused naming the flag and the range",
    (v) => {
      expect(errorsOf(["--goal", "g", "--repair-attempts", v])).toEqual([
        `--repair-attempts is ${JSON.stringify(v)}: give a whole number from 0 (off) to 10, the times a failing build is fed back to a sink`,
      ]);
    },
  );
});

describe("--max-cycles and --max-cost-usd (SPEC §7, issue 13 item 7)", () => {
  test("absent --max-cycles is 1 (one run); a whole number 1-5 is read, with a positive --max-cost-usd", () => {
    const absent = parseAutoFlags(["--goal", "g", "--verify-cmd", "npm test"]);
    const three = parseAutoFlags([
      "--goal",
      "g",
      "--verify-cmd",
      "npm test",
      "--max-cycles",
      "3",
      "--max-cost-usd",
      "2.50",
    ]);
    expect(absent.ok && absent.flags.maxCycles).toBe(1);
    expect(absent.ok && absent.flags.maxCostUsd).toBeUndefined();
    expect(three.ok && three.flags.maxCycles).toBe(3);
    expect(three.ok && three.flags.maxCostUsd).toBe(2.5);
  });

  test.each(["0", "6", "1.5", "two"])("--max-cycles %j is refused naming the flag and the range", (v) => {
    expect(errorsOf(["--goal", "g", "--verify-cmd", "true", "--max-cycles", v])).toEqual([
      `--max-cycles is ${JSON.stringify(v)}: give a whole number from 1 (one run, the default) to 5, the runs one goal may take`,
    ]);
  });

  test.each(["0", "-1", "ten", "1e3"])("--max-cost-usd %j is refused naming the flag", (v) => {
    expect(
      errorsOf(["--goal", "g", "--verify-cmd", "true", "--max-cycles", "2", "--max-cost-usd", v]),
    ).toEqual([`--max-cost-usd is ${JSON.stringify(v)}: give a positive amount of US dollars, e.g. 2.50`]);
  });

  test("--max-cost-usd with one cycle is refused: it is only checked between cycles", () => {
    expect(errorsOf(["--goal", "g", "--verify-cmd", "true", "--max-cost-usd", "1"])).toEqual([
      "--max-cost-usd is checked between cycles, and --max-cycles is 1: give --max-cycles 2 or more, or drop it",
    ]);
  });
});

describe("an empty value of a numeric flag or of --model is a usage error naming the flag, never the default", () => {
  test.each([
    ["--verify-repeat", "1 to 10"],
    ["--verify-timeout", "--verify-timeout"],
    ["--timeout", "--timeout"],
    ["--concurrency", "1 to 10"],
    ["--max-cycles", "1 to 5"],
    ["--repair-attempts", "0 to 10"],
    ["--model", "model name"],
  ])("auto %s '' is refused", (flag, range) => {
    const errors = errorsOf(["--goal", "g", flag, ""]).join("\n");
    expect(errors).toContain(flag);
    expect(errors).toContain(range);
  });

  test.each([
    ["--verify-repeat", "1 to 10"],
    ["--verify-timeout", "--verify-timeout"],
    ["--timeout", "--timeout"],
  ])("verify %s '' is refused", (flag, range) => {
    const parsed = parseVerifyFlags([flag, ""]);
    const errors = parsed.ok ? "" : parsed.errors.join("\n");
    expect(errors).toContain(flag);
    expect(errors).toContain(range);
  });

  test.each([
    ["--concurrency", "1 to 10"],
    ["--model", "model name"],
  ])("run %s '' is refused", (flag, range) => {
    const parsed = parseRunFlags(["g.yml", flag, ""]);
    const errors = parsed.ok ? "" : parsed.errors.join("\n");
    expect(errors).toContain(flag);
    expect(errors).toContain(range);
  });
});
