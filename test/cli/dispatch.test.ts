/**
 * The CLI's dispatcher (src/cli/dispatch.ts; issue 24 item 5): `--help` and `--version` answered without
 * loading any command, each command loaded on demand with only its own code, SIGINT/SIGTERM armed only for
 * the commands that spawn model CLIs. The bundle keeping the split is test/e2e/cli-lazy-dist.test.ts.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { COMMANDS, runCli, USAGE } from "../../src/cli/dispatch.js";
import { VERSION } from "../../src/cli/version.js";
import { REPO_ROOT } from "../support/repo-root.js";

/** Runs `evidence-gate ARGV` in-process: exit code, what it wrote, and how often it armed the interrupt. */
async function cli(argv: readonly string[]) {
  let stdout = "";
  let stderr = "";
  let armed = 0;
  const code = await runCli(argv, {
    io: {
      cwd: REPO_ROOT,
      env: {},
      out: { write: (t: string) => (stdout += t) },
      err: { write: (t: string) => (stderr += t) },
    },
    armInterrupt: () => {
      armed++;
      return new AbortController().signal;
    },
  });
  return { code, stdout, stderr, armed };
}

describe("evidence-gate --version / --help", () => {
  it.each(["--version", "-v", "version"])("%s prints the version, exit 0, nothing armed", async (flag) => {
    expect(await cli([flag])).toEqual({
      code: 0,
      stdout: `evidence-gate ${VERSION}\n`,
      stderr: "",
      armed: 0,
    });
  });

  it.each(["--help", "-h", "help"])("%s prints the usage, exit 0", async (flag) => {
    expect(await cli([flag])).toEqual({ code: 0, stdout: USAGE, stderr: "", armed: 0 });
  });

  it("no command prints the usage, exit 64; an unknown one is named on stderr, exit 64", async () => {
    expect(await cli([])).toEqual({ code: 64, stdout: USAGE, stderr: "", armed: 0 });
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toBe(`evidence-gate: unknown command "frobnicate"\n\n${USAGE}`);
    expect((await cli(["toString"])).code).toBe(64); // not an inherited property of the table
  });

  // A Go-CLI user's trial (issue 26): the Go CLI takes its global flags before the command
  // (`oh-my-graph --runtime codex run graphs/haiku-smoke.yaml`, in the haiku-smoke graph's own comment).
  it("an option before the command says options follow the command, with the command line to type", async () => {
    const before = await cli([
      "--runtime",
      "codex",
      "run",
      "graphs/haiku-smoke.yaml",
      "--input",
      "dir=smoke",
    ]);
    expect(before.code).toBe(64);
    expect(before.stdout).toBe("");
    expect(before.stderr).toBe(
      'evidence-gate: "--runtime" is an option, and options follow the command (the Go CLI takes some before ' +
        "it): evidence-gate run --runtime codex graphs/haiku-smoke.yaml --input dir=smoke\n",
    );
    // No command anywhere: the plain unknown-command answer.
    expect((await cli(["--runtime", "codex"])).stderr).toBe(
      `evidence-gate: unknown command "--runtime"\n\n${USAGE}`,
    );
  });

  it("the usage lists exactly the commands the dispatcher knows", () => {
    const listed = [...USAGE.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(COMMANDS).sort());
  });
});

describe("each command, loaded on demand", () => {
  it.each(Object.keys(COMMANDS))(
    "%s --help prints its own usage; the interrupt is armed only when it spawns model CLIs",
    async (name) => {
      const r = await cli([name, "--help"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^usage: evidence-gate ${name}\\b`));
      expect(r.armed).toBe(COMMANDS[name]!.interruptible ? 1 : 0);
    },
  );

  it("the commands that spawn model CLIs are exactly auto, plan, run, verify, resume", () => {
    const interruptible = Object.entries(COMMANDS).filter(([, c]) => c.interruptible);
    expect(interruptible.map(([n]) => n).sort()).toEqual(["auto", "plan", "resume", "run", "verify"]);
  });
});

/** The modules `file` imports statically (values, not `import type`), resolved to `.ts` paths. */
function staticImports(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) && !ts.isExportDeclaration(s)) continue;
    if (s.moduleSpecifier === undefined || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    if (ts.isImportDeclaration(s) ? s.importClause?.isTypeOnly : s.isTypeOnly) continue;
    if (s.moduleSpecifier.text.startsWith("."))
      out.push(resolve(dirname(file), s.moduleSpecifier.text).replace(/\.js$/, ".ts"));
  }
  return out;
}

/** Every `src/` module the entry loads before any command is chosen (static imports, transitively). */
function loadedAtStart(entry: string): string[] {
  const seen = new Set<string>();
  const stack = [entry];
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...staticImports(f));
  }
  return [...seen].map((f) => relative(REPO_ROOT, f)).sort();
}

describe("what loads before a command is chosen", () => {
  it("the entry and the dispatcher load no command's code: only the CLI's own start-up modules and exit codes", () => {
    const loaded = loadedAtStart(join(REPO_ROOT, "src", "cli", "main.ts"));
    expect(loaded).toEqual([
      "src/cli/dispatch.ts",
      "src/cli/main.ts",
      "src/cli/pipe-safe-output.ts",
      "src/cli/version.ts",
      "src/local-run/exit-codes.ts",
    ]);
  });

  it("the reader sees static imports: a probe importing a command statically reaches it", () => {
    // runCliLint's module, loaded at start, would be listed (this is what the test above guards against).
    const loaded = loadedAtStart(join(REPO_ROOT, "src", "cli", "lint-command.ts"));
    expect(loaded).toContain("src/cli/lint-command.ts");
    expect(loaded.length).toBeGreaterThan(5);
    expect(loaded).toContain("src/cli/parse-command.ts");
  });
});
