/**
 * One model port (issue 24 item 1; CONVENTIONS "the engine, planner and goal loop talk to one runtime
 * interface and never branch on claude vs codex"): every difference between the `claude` and the `codex`
 * CLI is a member of `ModelRuntime` (src/runtime/model-runtime.ts), and a folder that may import
 * `runtime/` asks `runtimeFor(name)` instead of comparing the name. This test reads every source file
 * under `src/` and fails on a branch on a runtime's name outside the folders allowed below, naming the
 * file, the line and the code.
 *
 * A branch is what the syntax tree shows, however it is written: an equality (`===`, `!==`, `==`, `!=`)
 * with the string `"claude"` or `"codex"` on either side (`runtime === "codex"`, `"claude" !== x.runtime`,
 * inside a ternary or an `if`), or a `switch` with a `case "claude":` / `case "codex":`. A table keyed by
 * the name (`Record<Runtime, …>`) is no branch: the compiler makes it whole.
 *
 * The allowed folders are `runtime/` itself and the folders above it in docs/architecture.md's layer
 * table, which may not import `runtime/` and so cannot ask the port; the test checks that this list is
 * exactly those folders, so a layer change shows here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = join(REPO, "src");

/** Where a branch on the runtime's name may stand, and why. */
const ALLOWED: Readonly<Record<string, string>> = {
  runtime: "the port itself: `claude-runtime.ts` and `codex-runtime.ts` own the differences",
  core: "below the port: may import nothing",
  proc: "below the port: which credential variables a model child keeps (`child-env.ts`)",
  proxy: "below the port: how the key proxy sends each runtime's credential",
  graph: "below the port: the graph file knows no runtime",
  policy: "below the port: the ceiling disclosure's wording for each runtime",
};

const NAMES = new Set(["claude", "codex"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.[cm]?tsx?$/.test(entry.name) ? [full] : [];
  });
}

const isName = (node: ts.Node | undefined): boolean =>
  node !== undefined &&
  (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
  NAMES.has(node.text);

const EQUALITIES = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Each branch on a runtime's name in `text`, as `LINE: CODE` (1-based line, the expression or case). */
function runtimeBranches(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node): string =>
    `${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().replace(/\s+/g, " ")}`;
  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      EQUALITIES.has(node.operatorToken.kind) &&
      (isName(node.left) || isName(node.right))
    ) {
      found.push(at(node));
    } else if (ts.isCaseClause(node) && isName(node.expression)) {
      found.push(at(node.expression));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The folders above `runtime` in docs/architecture.md's layer table (rows in table order). */
function foldersAboveRuntime(): string[] {
  const order: string[] = [];
  for (const line of readFileSync(join(REPO, "docs", "architecture.md"), "utf8").split("\n")) {
    const folder = /^\|\s*`([a-z-]+)`\s*\|/.exec(line)?.[1];
    if (folder !== undefined) order.push(folder);
  }
  return order.slice(0, order.indexOf("runtime"));
}

describe("no branch on the runtime's name outside runtime/ (issue 24 item 1)", () => {
  it("the folders that may import runtime/ ask the port instead of comparing the name", () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const branches = files
      .filter((file) => !Object.hasOwn(ALLOWED, relative(SRC, file).split(sep)[0]!))
      .flatMap((file) =>
        runtimeBranches(file, readFileSync(file, "utf8")).map(
          (branch) => `${relative(REPO, file).split(sep).join("/")}:${branch}`,
        ),
      );
    expect(branches).toEqual([]);
  });

  it("the allowed folders are runtime/ and the folders that cannot import it (docs/architecture.md)", () => {
    expect(Object.keys(ALLOWED).sort()).toEqual(["runtime", ...foldersAboveRuntime()].sort());
  });

  it("the reader finds a branch however it is written (a check that could not fail would prove nothing)", () => {
    const probe = [
      'if (runtime === "codex") run();',
      'const cli = o.runtime !== "claude" ? a : b;',
      'const x = "codex" == name;',
      "switch (runtime) {",
      '  case "claude":',
      "    break;",
      "}",
      'const fine = runtimeFor(runtime).name; const label = "codex";',
    ].join("\n");
    expect(runtimeBranches("probe.ts", probe)).toEqual([
      '1: runtime === "codex"',
      '2: o.runtime !== "claude"',
      '3: "codex" == name',
      '5: "claude"',
    ]);
    // The real code still has branches where they belong: the reader sees them.
    const proxy = join(SRC, "proxy", "key-proxy.ts");
    expect(runtimeBranches(proxy, readFileSync(proxy, "utf8")).length).toBeGreaterThan(0);
  });
});
