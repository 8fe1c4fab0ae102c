/**
 * The folder layers of `src/` (docs/architecture.md; issue: "one-way layers … a test that reads the imports
 * fails on a new cycle or an arrow not listed there"). It can fail:
 *
 * - every source file under `src/` is scanned (no include-list), and every folder found must have a row in
 *   the table, so a new folder is covered the day it appears;
 * - an import from one folder into another that its row does not list fails, naming the file and the
 *   specifier;
 * - a row may list only folders above it in the table, so the listed arrows cannot form a cycle; the
 *   cycle finder itself is checked against a probe graph with a cycle, and the real graph must have one
 *   arrow at least (a broken scanner that sees nothing goes red).
 *
 * Imports are read from the TypeScript syntax tree: `import`, `import type`, `export … from` and
 * `import("…")` with a literal specifier. Only relative specifiers name project folders.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = join(REPO, "src");

/** One folder-to-folder import: which file, which specifier. */
interface Arrow {
  readonly from: string;
  readonly to: string;
  readonly file: string;
  readonly specifier: string;
}

/** The table of docs/architecture.md: each folder, in table order, with the folders it may import. */
function readLayers(): {
  readonly order: readonly string[];
  readonly allowed: ReadonlyMap<string, Set<string>>;
} {
  const text = readFileSync(join(REPO, "docs", "architecture.md"), "utf8");
  const order: string[] = [];
  const allowed = new Map<string, Set<string>>();
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    // | `folder` | owns | may import |
    const folder = /^`([a-z-]+)`$/.exec(cells[1] ?? "")?.[1];
    if (folder === undefined || cells.length < 5) continue;
    order.push(folder);
    allowed.set(folder, new Set([...(cells[3] ?? "").matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!)));
  }
  return { order, allowed };
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (/\.[cm]?tsx?$/.test(entry.name)) found.push(full);
  }
  return found;
}

/** The relative module specifiers a source file imports or re-exports. */
function specifiersOf(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out.filter((s) => s.startsWith("."));
}

/** The top-level folder under `src/` a path lies in (`""` for a file at `src/` itself). */
function folderOf(path: string): string {
  const rel = relative(SRC, path).split(sep);
  return rel.length > 1 ? rel[0]! : "";
}

/** Every import from one folder of `src/` into another. */
function folderArrows(): Arrow[] {
  const arrows: Arrow[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const specifier of specifiersOf(file)) {
      const target = resolve(dirname(file), specifier);
      if (relative(SRC, target).startsWith("..")) continue;
      const to = folderOf(target);
      if (to !== from) arrows.push({ from, to, file: relative(REPO, file).split(sep).join("/"), specifier });
    }
  }
  return arrows;
}

/**
 * Every import from one source file of `src/` to another (type-only imports included: a type that crosses
 * back is still a circle a reader has to follow), keyed by the importing file's path under the repository.
 */
function fileEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  const name = (path: string): string => relative(REPO, path).split(sep).join("/");
  for (const file of sourceFiles(SRC)) {
    const targets = new Set<string>();
    for (const specifier of specifiersOf(file)) {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
      if (!relative(SRC, target).startsWith("..")) targets.add(name(target));
    }
    edges.set(name(file), targets);
  }
  return edges;
}

/**
 * The strongly connected parts of `edges` that hold a circle (two nodes or more, or one that imports itself),
 * each sorted, by Tarjan's algorithm: every circle in the graph lies inside one of them.
 */
function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      part.push(top);
    } while (top !== node);
    if (part.length > 1 || (edges.get(node)?.has(node) ?? false)) found.push(part.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A cycle among the folder arrows (as a path `a → b → … → a`), or `null`. */
function findCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found !== null) return found;
      }
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of edges.keys()) {
    if (state.get(node) === undefined) {
      const found = visit(node);
      if (found !== null) return found;
    }
  }
  return null;
}

describe("src/ layers (docs/architecture.md)", () => {
  const { order, allowed } = readLayers();
  const arrows = folderArrows();

  it("the table lists every folder of src/ once, and the scan sees arrows", () => {
    const folders = [
      ...new Set(
        readdirSync(SRC, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => e.name),
      ),
    ].sort();
    expect([...order].sort()).toEqual(folders);
    expect(new Set(order).size).toBe(order.length);
    expect(arrows.length).toBeGreaterThan(50);
    // No source file sits at src/ itself: every file belongs to a folder that owns it.
    expect(sourceFiles(SRC).filter((f) => folderOf(f) === "")).toEqual([]);
  });

  it("a row lists only folders above it, so the allowed arrows cannot form a cycle", () => {
    const misplaced: string[] = [];
    order.forEach((folder, i) => {
      for (const to of allowed.get(folder) ?? []) {
        const j = order.indexOf(to);
        if (j < 0 || j >= i) misplaced.push(`${folder} → ${to}`);
      }
    });
    expect(misplaced).toEqual([]);
    expect(findCycle(allowed)).toBeNull();
  });

  it("every import between folders is an arrow the table allows", () => {
    const unlisted = arrows
      .filter((a) => !(allowed.get(a.from)?.has(a.to) ?? false))
      .map((a) => `${a.file} imports ${a.specifier} (${a.from} → ${a.to} is not in docs/architecture.md)`);
    expect(unlisted).toEqual([]);
  });

  it("the imports themselves hold no cycle between folders", () => {
    const edges = new Map<string, Set<string>>();
    for (const a of arrows) edges.set(a.from, (edges.get(a.from) ?? new Set()).add(a.to));
    expect(findCycle(edges)).toBeNull();
  });

  it("no file under src/ imports itself back through other files (no file-level circle, issue 24)", () => {
    const edges = fileEdges();
    expect(edges.size).toBeGreaterThan(100);
    expect([...edges.values()].reduce((n, t) => n + t.size, 0)).toBeGreaterThan(arrows.length);
    expect(circles(edges)).toEqual([]);
  });

  it("the cycle finder finds a cycle where there is one (probe)", () => {
    const probe = new Map<string, Set<string>>([
      ["ledger", new Set(["core", "evidence"])],
      ["evidence", new Set(["core", "ledger"])],
      ["core", new Set()],
    ]);
    expect(findCycle(probe)).toEqual(["ledger", "evidence", "ledger"]);
    expect(
      findCycle(
        new Map([
          ["a", new Set(["b"])],
          ["b", new Set<string>()],
        ]),
      ),
    ).toBeNull();
    expect(circles(probe)).toEqual([["evidence", "ledger"]]);
    expect(circles(new Map([["a", new Set(["a"])]]))).toEqual([["a"]]);
  });
});
