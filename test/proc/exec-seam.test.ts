/**
 * The exec-seam guard (SPEC §9: "One module spawns processes … Nothing else imports `child_process`";
 * house style §8 item 5). It can fail:
 *
 * - it scans every source file under `src/` (a skip-list, not an include-list), so a new directory is
 *   covered the day it appears;
 * - it asserts that the seam itself still imports `node:child_process`, so a scan that finds nothing
 *   (a broken walker, a broken detector) goes red;
 * - it checks its own detector against probe sources, both ways;
 * - it checks that each spawn site in `src/proc/` builds its environment through `buildChildEnv`, and
 *   that `runProcess` never inherits `process.env` (a real child prints its environment).
 *
 * Detector rule: a file "imports a spawning module" when its TypeScript syntax tree holds a string literal
 * (or a template literal without substitutions) whose value is exactly a banned module name, wherever it
 * appears. That covers `import`, `import type`, `export … from`, `import(…)`, `require(…)`, a
 * `createRequire` alias and `import x = require(…)` alike. Comments are trivia, not tokens, so a comment
 * that mentions child_process does not count (the seam's own docstrings name it). A type-only import counts
 * too: types of `node:child_process` belong behind the seam. Known limit: a name assembled at run time
 * (`"child_" + "process"`) is not seen; the guard catches mistakes, review catches intent.
 *
 * `@actions/exec` is banned with `child_process`: it spawns processes and by default hands the child our
 * whole `process.env` (every `INPUT_*` secret), and it cannot kill a process group.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../src/proc/run-process.js";
import { minimalEnv } from "./process-probe.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = join(REPO, "src");

/** Module names whose import spawns processes outside the seam. */
const SPAWNING_MODULES: ReadonlySet<string> = new Set([
  "child_process",
  "node:child_process",
  "@actions/exec",
]);

/** Files allowed to import a spawning module: everything under this directory (the exec seam). */
const SEAM_DIR = "src/proc/";

/** Seam files that must import `node:child_process`; if none does, the scan itself is broken. */
const REQUIRED_IMPORTERS: ReadonlyMap<string, string> = new Map([
  ["src/proc/run-process.ts", "node:child_process"],
]);

/**
 * Paths under `src/` the scan skips, each with its reason. Keep it empty unless a file truly cannot be
 * parsed as source; everything not listed here is scanned.
 */
const SKIPPED: ReadonlyMap<string, string> = new Map();

/** Extensions of files that can hold an import. */
const SOURCE_FILE = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;

/** Every source file under `src/`, as repo-relative paths with forward slashes. */
function sourceFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const rel = relative(REPO, full).split(sep).join("/");
      if (SKIPPED.has(rel)) continue;
      if (entry.isDirectory()) walk(full);
      else if (SOURCE_FILE.test(entry.name)) found.push(rel);
    }
  };
  walk(SRC);
  return found.sort();
}

function parse(source: string, fileName: string): ts.SourceFile {
  const kind = /\.[cm]?jsx?$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, kind);
}

function walkNodes(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walkNodes(child, visit));
}

/** The banned module names a source mentions as string literals (see the rule in the file header). */
function spawningImports(source: string, fileName = "probe.ts"): string[] {
  const found: string[] = [];
  walkNodes(parse(source, fileName), (node) => {
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      SPAWNING_MODULES.has(node.text)
    ) {
      found.push(node.text);
    }
  });
  return found;
}

const sources = new Map(sourceFiles().map((file) => [file, readFileSync(join(REPO, file), "utf8")]));

describe("the detector", () => {
  const positives: readonly [string, string][] = [
    ["static named import", `import { spawn } from "node:child_process";`],
    ["bare specifier", `import { spawn } from 'child_process';`],
    ["namespace import", `import * as cp from "child_process";`],
    ["default import", `import cp from "node:child_process";`],
    ["side-effect import", `import "node:child_process";`],
    ["type-only import", `import type { ChildProcess } from "node:child_process";`],
    ["named re-export", `export { spawn } from "node:child_process";`],
    ["star re-export", `export * from "child_process";`],
    ["namespace re-export", `export * as cp from "node:child_process";`],
    ["dynamic import", `const cp = await import("node:child_process");`],
    ["dynamic import, template literal", "const cp = await import(`child_process`);"],
    ["require", `const cp = require("child_process");`],
    ["require, destructured", `const { execSync } = require('node:child_process');`],
    ["createRequire alias", `const req = createRequire(import.meta.url); req("node:child_process");`],
    ["import-equals", `import cp = require("child_process");`],
    ["@actions/exec", `import { exec } from "@actions/exec";`],
    ["after a comment on the same line", `/* spawn */ import { spawn } from "node:child_process";`],
  ];
  for (const [name, probe] of positives) {
    it(`counts a ${name}`, () => {
      expect(spawningImports(probe)).toHaveLength(1);
    });
  }

  it("counts imports in JavaScript files too", () => {
    expect(spawningImports(`const cp = require("child_process");`, "probe.cjs")).toEqual(["child_process"]);
  });

  const negatives: readonly [string, string][] = [
    [
      "line comment naming child_process",
      `// we never import "node:child_process" here\nexport const x = 1;`,
    ],
    [
      "block comment naming child_process",
      `/* import { spawn } from "child_process"; */\nexport const x = 1;`,
    ],
    [
      "JSDoc naming child_process",
      `/** Built on \`node:child_process\` by the seam. */\nexport function f() {}`,
    ],
    ["longer string", `const msg = "do not import child_process outside src/proc";`],
    ["similar module name", `import x from "child_processes"; import y from "node:child_process2";`],
    ["identifier", `const child_process = 1; export { child_process };`],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the probe is source text holding a template literal.
    ["template with a substitution", "const m = `node:${name}`;"],
    ["another node module", `import { randomBytes } from "node:crypto";`],
    ["@actions/core", `import * as core from "@actions/core";`],
  ];
  for (const [name, probe] of negatives) {
    it(`does not count a ${name}`, () => {
      expect(spawningImports(probe)).toEqual([]);
    });
  }
});

describe("the scan", () => {
  it("covers every directory of src/, not only the seam", () => {
    const files = [...sources.keys()];
    expect(files).toContain("src/proc/run-process.ts");
    expect(files.some((file) => !file.startsWith(SEAM_DIR))).toBe(true);
    const topDirs = new Set(files.map((file) => file.split("/")[1]));
    const onDisk = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !SKIPPED.has(`src/${e.name}`))
      .map((e) => e.name);
    for (const dir of onDisk) {
      const hasSource = (function any(d: string): boolean {
        return readdirSync(d, { withFileTypes: true }).some((e) =>
          e.isDirectory() ? any(join(d, e.name)) : SOURCE_FILE.test(e.name),
        );
      })(join(SRC, dir));
      if (hasSource) expect(topDirs, `src/${dir}`).toContain(dir);
    }
  });

  it("every skipped path names its reason", () => {
    for (const [path, reason] of SKIPPED) expect(reason.trim(), path).not.toBe("");
    expect([...SKIPPED.keys()].filter((path) => path.startsWith(SEAM_DIR))).toEqual([]);
  });

  it("no file outside src/proc/ imports child_process or @actions/exec", () => {
    const offenders = [...sources]
      .filter(([file]) => !file.startsWith(SEAM_DIR))
      .flatMap(([file, source]) =>
        spawningImports(source, file).map((module) => `${file} imports ${module}`),
      );
    expect(offenders).toEqual([]);
  });

  it("the seam still imports node:child_process, so an empty scan cannot pass", () => {
    for (const [file, module] of REQUIRED_IMPORTERS) {
      const source = sources.get(file);
      expect(source, `${file} is missing`).toBeDefined();
      expect(spawningImports(source!, file)).toContain(module);
    }
  });
});

/** Functions of `node:child_process` that start a process. */
const SPAWN_FUNCTIONS = new Set([
  "spawn",
  "spawnSync",
  "exec",
  "execSync",
  "execFile",
  "execFileSync",
  "fork",
]);

function line(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function envProperty(
  call: ts.CallExpression,
): ts.PropertyAssignment | ts.ShorthandPropertyAssignment | undefined {
  for (const arg of call.arguments) {
    if (!ts.isObjectLiteralExpression(arg)) continue;
    for (const prop of arg.properties) {
      if (
        (ts.isPropertyAssignment(prop) || ts.isShorthandPropertyAssignment(prop)) &&
        prop.name.getText() === "env"
      ) {
        return prop;
      }
    }
  }
  return undefined;
}

interface SpawnSite {
  readonly where: string;
  readonly problem: string | null;
}

/**
 * Direct `child_process` calls: each must pass an explicit `env` that does not come from `process.env`
 * (Node's default when `env` is absent is to inherit all of it).
 */
function childProcessSites(file: string, source: string): SpawnSite[] {
  const sf = parse(source, file);
  const direct = new Set<string>();
  const namespaces = new Set<string>();
  for (const stmt of sf.statements) {
    if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier)) continue;
    if (!SPAWNING_MODULES.has(stmt.moduleSpecifier.text)) continue;
    const clause = stmt.importClause;
    if (clause?.name) namespaces.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) {
        if (SPAWN_FUNCTIONS.has((el.propertyName ?? el.name).text)) direct.add(el.name.text);
      }
    }
  }
  const sites: SpawnSite[] = [];
  walkNodes(sf, (node) => {
    if (!ts.isCallExpression(node)) return;
    const callee = node.expression;
    const isSpawn =
      (ts.isIdentifier(callee) && direct.has(callee.text)) ||
      (ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        namespaces.has(callee.expression.text) &&
        SPAWN_FUNCTIONS.has(callee.name.text));
    if (!isSpawn) return;
    const env = envProperty(node);
    const where = `${file}:${line(sf, node)}`;
    if (!env) sites.push({ where, problem: "passes no env, so the child inherits process.env" });
    else if (/process\s*\.\s*env/.test(env.getText(sf)))
      sites.push({ where, problem: "builds env from process.env" });
    else sites.push({ where, problem: null });
  });
  return sites;
}

/** True when `expr` is a `buildChildEnv(…)` call, or a const in the same file initialised with one. */
function isBuiltByChildEnv(expr: ts.Expression, sf: ts.SourceFile): boolean {
  if (ts.isCallExpression(expr))
    return ts.isIdentifier(expr.expression) && expr.expression.text === "buildChildEnv";
  if (!ts.isIdentifier(expr)) return false;
  let built = false;
  walkNodes(sf, (node) => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === expr.text &&
      node.initializer !== undefined &&
      ts.getCombinedNodeFlags(node.parent) & ts.NodeFlags.Const
    ) {
      built = isBuiltByChildEnv(node.initializer, sf);
    }
  });
  return built;
}

/** `runProcess(…)` calls: each must pass `env` built by `buildChildEnv` (SPEC §9 child environments). */
function runProcessSites(file: string, source: string): SpawnSite[] {
  const sf = parse(source, file);
  const sites: SpawnSite[] = [];
  walkNodes(sf, (node) => {
    if (
      !ts.isCallExpression(node) ||
      !ts.isIdentifier(node.expression) ||
      node.expression.text !== "runProcess"
    ) {
      return;
    }
    const where = `${file}:${line(sf, node)}`;
    const env = envProperty(node);
    if (!env) {
      sites.push({ where, problem: "passes no env" });
      return;
    }
    const value = ts.isPropertyAssignment(env) ? env.initializer : env.name;
    sites.push({ where, problem: isBuiltByChildEnv(value, sf) ? null : "env is not built by buildChildEnv" });
  });
  return sites;
}

const seamSources = [...sources].filter(([file]) => file.startsWith(SEAM_DIR));

describe("spawn sites in src/proc/", () => {
  it("each child_process call passes an explicit env that is not process.env", () => {
    const sites = seamSources.flatMap(([file, source]) => childProcessSites(file, source));
    expect(sites.length).toBeGreaterThan(0);
    expect(sites.filter((s) => s.problem !== null).map((s) => `${s.where} ${s.problem}`)).toEqual([]);
  });

  it("each runProcess call passes an env built by buildChildEnv", () => {
    const sites = seamSources.flatMap(([file, source]) => runProcessSites(file, source));
    // git.ts is one: the check is not vacuous.
    expect(sites.some((s) => s.where.startsWith("src/proc/git.ts:"))).toBe(true);
    expect(sites.filter((s) => s.problem !== null).map((s) => `${s.where} ${s.problem}`)).toEqual([]);
  });

  it("the spawn-site checks flag probes that inherit or bypass the child-env policy", () => {
    const inherit = `import { spawn, execFile as ef } from "node:child_process";
      spawn("a", []); spawn("a", [], { env: process.env }); ef("a", [], { env: { ...process.env, X: "1" } });
      spawn("a", [], { env: options.env });`;
    expect(childProcessSites("probe.ts", inherit).map((s) => s.problem)).toEqual([
      "passes no env, so the child inherits process.env",
      "builds env from process.env",
      "builds env from process.env",
      null,
    ]);
    const ns = `import * as cp from "child_process"; cp.execSync("x");`;
    expect(childProcessSites("probe.ts", ns).map((s) => s.problem)).toEqual([
      "passes no env, so the child inherits process.env",
    ]);
    const calls = `
      const good = buildChildEnv({ base: process.env, child: { kind: "git" } });
      let mutable = buildChildEnv({ base: process.env, child: { kind: "git" } });
      runProcess({ command: "a", env: buildChildEnv({ base: process.env, child: { kind: "verify" } }) });
      runProcess({ command: "a", env: good });
      const env = buildChildEnv({ base: {}, child: { kind: "verify" } }); runProcess({ command: "a", env });
      runProcess({ command: "a", env: process.env });
      runProcess({ command: "a", env: { PATH: "/bin" } });
      runProcess({ command: "a", env: mutable });
      runProcess({ command: "a" });`;
    expect(runProcessSites("probe.ts", calls).map((s) => s.problem)).toEqual([
      null,
      null,
      null,
      "env is not built by buildChildEnv",
      "env is not built by buildChildEnv",
      "env is not built by buildChildEnv",
      "passes no env",
    ]);
  });
});

describe("runProcess never inherits process.env", () => {
  const marker = `EG_SEAM_MARKER_${process.pid}_${Date.now()}`;

  async function childEnvOf(options: { shell: boolean }): Promise<Record<string, string>> {
    const printEnv = "process.stdout.write(JSON.stringify(process.env))";
    const result = await runProcess(
      options.shell
        ? {
            command: `${JSON.stringify(process.execPath)} -e '${printEnv}'`,
            shell: true,
            cwd: REPO,
            env: minimalEnv({ EG_GIVEN: "yes" }),
          }
        : {
            command: process.execPath,
            args: ["-e", printEnv],
            cwd: REPO,
            env: minimalEnv({ EG_GIVEN: "yes" }),
          },
    );
    expect(result.kind).toBe("exited");
    return JSON.parse(result.kind === "exited" ? result.stdoutTail : "{}") as Record<string, string>;
  }

  for (const shell of [false, true]) {
    it(`a variable set in process.env but absent from env never reaches the child (shell: ${shell})`, async () => {
      process.env[marker] = "leaked";
      process.env["INPUT_EG-PROBE-SECRET"] = "leaked";
      try {
        const env = await childEnvOf({ shell });
        expect(env.EG_GIVEN).toBe("yes");
        expect(env).not.toHaveProperty([marker]);
        expect(env).not.toHaveProperty(["INPUT_EG-PROBE-SECRET"]);
        expect(Object.values(env)).not.toContain("leaked");
      } finally {
        delete process.env[marker];
        delete process.env["INPUT_EG-PROBE-SECRET"];
      }
    });
  }

  it("git scrubs process.env through the git child policy by default", async () => {
    const { git } = await import("../../src/proc/git.js");
    const saved = { ...process.env };
    Object.assign(process.env, {
      GITHUB_TOKEN: "ghs_probeToken",
      GH_TOKEN: "ghs_probeToken",
      ACTIONS_RUNTIME_TOKEN: "probe-runtime",
      INPUT_EG_PROBE: "probe-input",
      ANTHROPIC_API_KEY: "sk-ant-probe",
      GITHUB_OUTPUT: "/tmp/eg-probe-output",
      EG_GIT_VISIBLE: "visible",
    });
    try {
      // A shell alias runs with git's own environment, so `env` shows what git received.
      const out = await git(["-c", "alias.eg-env=!env", "eg-env"], { cwd: REPO });
      const names = out.split("\n").map((l) => l.slice(0, l.indexOf("=")));
      expect(names).toContain("EG_GIT_VISIBLE");
      expect(names).toContain("GIT_TERMINAL_PROMPT");
      for (const dropped of [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "INPUT_EG_PROBE",
        "ANTHROPIC_API_KEY",
        "GITHUB_OUTPUT",
      ]) {
        expect(names, dropped).not.toContain(dropped);
      }
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});
