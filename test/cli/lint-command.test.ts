import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { LINT_USAGE, parseLintFlags, runCliLint } from "../../src/cli/lint-command.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "eg-lint-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Lint {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `lint` in-process with `dir` as the working directory. */
async function lint(...argv: string[]): Promise<Lint> {
  let stdout = "";
  let stderr = "";
  const code = await runCliLint(argv, {
    cwd: dir,
    out: { write: (text: string) => (stdout += text) },
    err: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

const CLEAN = `
name: clean
inputs: [task]
nodes:
  - id: code
    prompt: "Implement {{ inputs.task }}"
    allowed_tools: [Read, Edit]
    success_check:
      verify: { command: npm test }
  - id: review
    depends_on: [code]
    prompt: Review the change. Reply PASS or FAIL first.
    allowed_tools: [Read]
    success_check:
      exit_zero: true
      result_matches: "^[*_\`\\\\s]*PASS"
      verify: { command: npm test }
`;

const UNCHECKED_VERDICT =
  'advisory: node "review": the prompt demands a verdict (PASS, FAIL) but success_check has no result_matches, ' +
  "so the node passes whatever verdict it gives; add success_check.result_matches: '^[*_`\\s]*PASS' — anchored, " +
  'so "did not PASS" does not match';

const SINK_REASON =
  "is a sink (no node depends on it) without success_check.verify: success needs an engine-run verify on every " +
  "sink that is not a gate, so the run's conclusion can be neutral at best (failure under the policy file's " +
  "require-evidence: true); add success_check.verify to it with a command that checks the work (the test " +
  "suite, a build)";

describe("the graph file is read bounded, and only a regular file is read (lint, resolve and run share the read)", () => {
  test("/dev/zero and a FIFO are refused at once with a usage error naming the file: exit 64", async () => {
    const zero = await lint("/dev/zero");
    expect(zero.code).toBe(64);
    expect(zero.stderr).toContain('"/dev/zero" is not a regular file');

    execFileSync("mkfifo", [join(dir, "pipe.yml")]);
    const fifo = await lint("pipe.yml");
    expect(fifo.code).toBe(64);
    expect(fifo.stderr).toContain('"pipe.yml"');
    expect(fifo.stderr).toContain("is not a regular file");
  });

  test("a graph file over 1 MiB is refused with a usage error naming the file and the limit: exit 64", async () => {
    write("big.yml", `# ${"x".repeat(1024 * 1024)}\nnodes: []\n`);
    const big = await lint("big.yml");
    expect(big.code).toBe(64);
    expect(big.stderr).toContain('"big.yml"');
    expect(big.stderr).toContain("1048576 bytes");
  });
});

describe("evidence-gate lint GRAPH: every error, every advisory, a summary", () => {
  test("a graph with five distinct errors prints all five, one per line, then the count: exit 1", async () => {
    const graph = write(
      "broken.yaml",
      `
nodes:
  - id: build
    prompt: build it
    timeout: soon
    allowed_tool: [Read]
  - id: test
    depends_on: [biuld]
    prompt: test it
    retry: { max: 1, on: [flaky] }
  - id: review
    depends_on: [test]
    prompt: review
    success_check: { result_matches: "(DONE" }
`,
    );
    const r = await lint(graph);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n")).toEqual([
      'invalid graph: node "build": unknown field "allowed_tool" (known fields: id, type, depends_on, prompt, cwd, ' +
        "allowed_tools, permission_mode, timeout, budget_usd, handoff, success_check, retry, feedback, completion, agent, worktree, description)",
      'invalid graph: node "test": depends_on unknown node "biuld"',
      'invalid graph: node "build": timeout: invalid duration "soon": "soon" has no number (want a Go duration like ' +
        "90s, 45m, 1h30m, 1.5h, 500ms)",
      'invalid graph: node "test": retry.on: unknown cause "flaky" (want one of: nonzero_exit, run_error, timeout, ' +
        "output_error, budget_exceeded, verify_failed, result_mismatch)",
      'invalid graph: node "review": success_check.result_matches: invalid regex "(DONE": error parsing regexp: ' +
        "missing closing ): `(DONE`",
      "5 errors, 0 advisories",
      "",
    ]);
  });

  test("a YAML syntax error is an error like any other: exit 1, naming the file as given", async () => {
    const r = await lint(write("bad.yaml", "nodes:\n  - id: a\n    prompt: [unclosed\n"));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^invalid graph: cannot parse bad\.yaml as YAML: .+\n1 error, 0 advisories\n$/);
  });

  test("a clean graph: exit 0 and `0 errors, 0 advisories`", async () => {
    const r = await lint(write("clean.yaml", CLEAN), "--input", "task=fix the login bug");
    expect(r).toEqual({ code: 0, stdout: "0 errors, 0 advisories\n", stderr: "" });
  });

  test("advisories alone exit 0; each is printed in full", async () => {
    const text = CLEAN.replace(
      / {4}success_check:\n {6}exit_zero: true\n {6}result_matches: .*\n {6}verify: .*\n$/,
      "",
    );
    expect(text).not.toContain("result_matches");
    const r = await lint(write("advised.yaml", text));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'advisory: node "code": prompt: {{ inputs.task }} is declared in inputs: but no value was given, so run ' +
          "refuses to start without it; pass --input task=VALUE",
        UNCHECKED_VERDICT,
        `advisory: node "review": ${SINK_REASON}`,
        "0 errors, 3 advisories",
        "",
      ].join("\n"),
    );
  });

  test("--input NAME=VALUE resolves an input advisory; the value may hold '=' and be empty", async () => {
    const graph = write("clean.yaml", CLEAN);
    expect((await lint(graph, "--input", "task=a=b")).stdout).toBe("0 errors, 0 advisories\n");
    expect((await lint(graph, "--input", "task=")).stdout).toBe("0 errors, 0 advisories\n");
  });

  test("--json prints {graph, errors, advisories} and nothing else", async () => {
    const graph = write(
      "mixed.json",
      JSON.stringify({ nodes: [{ id: "a", prompt: "hi", depends_on: ["a"], allowed_tools: ["Read"] }] }),
    );
    const errors = await lint(graph, "--json");
    expect(errors.code).toBe(1);
    expect(JSON.parse(errors.stdout)).toEqual({
      graph: "mixed.json",
      fragments: [],
      errors: [
        {
          nodeId: "a",
          reason: "node depends on itself",
          text: 'invalid graph: node "a": node depends on itself',
        },
      ],
      advisories: [],
    });

    const advised = await lint(
      write("advised.json", JSON.stringify({ nodes: [{ id: "a", prompt: "hi" }] })),
      "--json",
    );
    expect(advised.code).toBe(0);
    const reason =
      "declares neither allowed_tools nor success_check.verify, so what it may do is left to permission_mode " +
      "dontAsk and nothing but its own reply judges it; list the tools it needs in allowed_tools, or add " +
      "success_check.verify with a command that checks its work";
    expect(JSON.parse(advised.stdout)).toEqual({
      graph: "advised.json",
      fragments: [],
      errors: [],
      advisories: [
        { nodeId: "a", kind: "no-tools-no-verify", reason, text: `advisory: node "a": ${reason}` },
        {
          nodeId: "a",
          kind: "unverified-sink",
          reason: SINK_REASON,
          text: `advisory: node "a": ${SINK_REASON}`,
        },
      ],
    });
  });
});

describe("--verify-timeout D: the verify timeout ceiling, as run --verify-timeout sets it", () => {
  const slow = (): string =>
    write(
      "slow.yaml",
      CLEAN.replace(/verify: \{ command: npm test \}/g, "verify: { command: npm test, timeout: 20m }"),
    );

  test("a 20m verify timeout exceeds the default 10m ceiling: exit 1", async () => {
    const graph = slow();
    const r = await lint(graph, "--input", "task=x");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('node "code": success_check.verify.timeout 20m exceeds the 10m ceiling');
    expect(r.stdout).toMatch(/\n2 errors, 0 advisories\n$/);
  });

  test("--verify-timeout 30m lints the same graph clean, as run --verify-timeout 30m runs it", async () => {
    const graph = slow();
    expect(await lint(graph, "--input", "task=x", "--verify-timeout", "30m")).toEqual({
      code: 0,
      stdout: "0 errors, 0 advisories\n",
      stderr: "",
    });
    // A ceiling below the graph's timeout still refuses it.
    const low = await lint(graph, "--input", "task=x", "--verify-timeout", "15m");
    expect(low.code).toBe(1);
    expect(low.stdout).toContain("success_check.verify.timeout 20m exceeds the 15m ceiling");
  });

  test("the flag parses to verifyTimeoutMs; a bad duration is a usage error (exit 64)", async () => {
    expect(parseLintFlags(["g.yaml", "--verify-timeout", "30m"])).toEqual({
      ok: true,
      flags: { graph: "g.yaml", inputs: {}, verifyTimeoutMs: 30 * 60_000, json: false },
    });
    expect(parseLintFlags(["g.yaml", "--verify-timeout", "48h"])).toEqual({
      ok: false,
      errors: ['--verify-timeout "48h": give a duration from 1s to 24h'],
    });
    const r = await lint(write("clean.yaml", CLEAN), "--verify-timeout", "soon");
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toMatch(/^evidence-gate lint: --verify-timeout: /);
  });

  test("the usage names the flag", () => {
    expect(LINT_USAGE).toContain("--verify-timeout D");
  });
});

describe("usage errors exit 64 and say what to do", () => {
  test("a missing file names the path as given and where it was looked for", async () => {
    const r = await lint("nope.yaml");
    expect(r.code).toBe(64);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `evidence-gate lint: no graph file at "nope.yaml" (${join(dir, "nope.yaml")}): check the path (it is ` +
        "relative to the current directory)\n",
    );
  });

  test("a directory is not a graph file", async () => {
    mkdirSync(join(dir, "graphs"));
    const r = await lint("graphs");
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(
      `evidence-gate lint: "graphs" (${join(dir, "graphs")}) is a directory: give the path of a graph file (YAML or JSON)\n`,
    );
  });

  test("no GRAPH at all", async () => {
    const r = await lint();
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(
      "evidence-gate lint: lint needs the graph file to check: evidence-gate lint GRAPH\nrun `evidence-gate lint --help` for its flags\n",
    );
  });

  test.each([
    [["g.yaml", "--input", "task"], '--input "task": give NAME=VALUE, e.g. --input task="fix the login bug"'],
    [["g.yaml", "--input", "=x"], '--input "=x": give NAME=VALUE, e.g. --input task="fix the login bug"'],
    [
      ["g.yaml", "--input", "my task=x"],
      '--input "my task=x": NAME may hold only letters, digits, ".", "_", "-" or "/" (it is what {{ inputs.NAME }} names)',
    ],
    [
      ["g.yaml", "--input", "task=a", "--input", "task=b"],
      "--input task was given more than once: give each input once",
    ],
    [["a.yaml", "b.yaml"], 'lint checks one graph file; also got "b.yaml": lint them one at a time'],
  ])("%j is refused: %s", (argv, error) => {
    expect(parseLintFlags(argv)).toEqual({ ok: false, errors: [error] });
  });

  test("a bad --input is refused before the file is read: exit 64, the flag named", async () => {
    const r = await lint("missing.yaml", "--input", "task");
    expect(r.code).toBe(64);
    expect(r.stderr.split("\n")[0]).toBe(
      'evidence-gate lint: --input "task": give NAME=VALUE, e.g. --input task="fix the login bug"',
    );
  });

  test("an unknown flag is refused", async () => {
    const r = await lint("g.yaml", "--verbose");
    expect(r.code).toBe(64);
    expect(r.stderr).toBe(
      "evidence-gate lint: unknown flag --verbose: check its spelling against the flags --help lists\nrun `evidence-gate lint --help` for its flags\n",
    );
  });

  test("--help prints the usage to stdout: exit 0", async () => {
    expect(await lint("--help")).toEqual({ code: 0, stdout: LINT_USAGE, stderr: "" });
  });

  test("the flags parse into a typed object", () => {
    expect(parseLintFlags(["g.yaml", "--input", "a=1", "--input", "b=x=y", "--json"])).toEqual({
      ok: true,
      flags: { graph: "g.yaml", inputs: { a: "1", b: "x=y" }, json: true },
    });
  });
});
