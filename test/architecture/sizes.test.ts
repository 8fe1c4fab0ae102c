/**
 * Size limits of `src/` (issue 10: "no function in src/ over 120 lines; no file over ~400 lines";
 * CONVENTIONS.md: "A function that does not fit on two screens (~120 lines) is two jobs"; research/aesthetics.md
 * §8.10: "About 400 lines at most per module"). It can fail:
 *
 * - every source file under `src/` is parsed with the TypeScript compiler (no include-list), and the scan
 *   must see files and functions, so a broken scanner that sees nothing goes red;
 * - a function — declaration, method, constructor, accessor, arrow or function expression, nested ones
 *   too — over {@link MAX_FUNCTION_LINES} lines fails, naming file, function and line; so does a file over
 *   {@link MAX_FILE_LINES} lines;
 * - the detector itself is checked on probe sources just over and at each limit;
 * - the allow-list of today's offenders can only shrink: an entry whose file or function is gone, or is
 *   back within the limit, fails too, so it is removed the day its split lands.
 *
 * A function's lines run from its first token (its docstring is not counted) to its closing brace.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = join(REPO, "src");

/** Most lines a function may span (issue 10). */
const MAX_FUNCTION_LINES = 120;
/** Most lines a source file may hold (issue 10). */
const MAX_FILE_LINES = 400;

/** One function's extent: its name (`Class.method`, the variable an arrow is bound to), first line, length. */
interface FunctionSize {
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

/** What the scan measured of one file. */
interface FileSize {
  /** Repository-relative, `/`-separated: `src/engine/graph-run.ts`. */
  readonly file: string;
  readonly lines: number;
  readonly functions: readonly FunctionSize[];
}

/**
 * A known offender outside the files split so far. `function` absent: the file is over
 * {@link MAX_FILE_LINES}; present: that function is over {@link MAX_FUNCTION_LINES}.
 */
interface Allowed {
  readonly file: string;
  readonly function?: string;
  readonly reason: string;
}

/**
 * Offenders allowed over their limit: none since issue 10's splits landed. Split a file or function that
 * grows past its limit instead of adding it here (the last test fails on an entry that is gone).
 */
const ALLOWED: readonly Allowed[] = [];

/** Lines of a text, as `wc -l` counts them for a file that ends in a newline. */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The name a function-like node is known by; `(anonymous)` when nothing binds it. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name?.getText(source);
  const parent = node.parent;
  if (ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isAccessor(node)) {
    const owner = ts.isClassLike(parent) ? (parent.name?.getText(source) ?? "(class)") : "(object)";
    return `${owner}.${own ?? "constructor"}`;
  }
  if (own !== undefined) return own;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(source);
  }
  return "(anonymous)";
}

/** Measures one source file: its lines, and every function-like node with a body in it. */
function measureSource(file: string, text: string): FileSize {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const functions: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isAccessor(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node)) &&
      node.body !== undefined
    ) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push({ name: functionName(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, lines: lineCount(text), functions };
}

/** Every over-limit place in `sizes`, as `file: …` / `file name (line N): …` sentences. */
function offences(sizes: readonly FileSize[], allowed: readonly Allowed[]): string[] {
  const isAllowed = (file: string, name?: string): boolean =>
    allowed.some((entry) => entry.file === file && entry.function === name);
  const found: string[] = [];
  for (const size of sizes) {
    if (size.lines > MAX_FILE_LINES && !isAllowed(size.file)) {
      found.push(`${size.file}: ${size.lines} lines, over ${MAX_FILE_LINES}: split it by job`);
    }
    for (const fn of size.functions) {
      if (fn.lines > MAX_FUNCTION_LINES && !isAllowed(size.file, fn.name)) {
        found.push(
          `${size.file} ${fn.name} (line ${fn.line}): ${fn.lines} lines, over ${MAX_FUNCTION_LINES}: it is two jobs`,
        );
      }
    }
  }
  return found;
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

/** A probe source: `name` as an arrow function spanning exactly `lines` lines, then `padding` more lines. */
function probe(name: string, lines: number, padding = 0): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`);
  const pad = Array.from({ length: padding }, (_, i) => `export const p${i} = ${i};`);
  return [`export const ${name} = (): void => {`, ...body, "};", ...pad, ""].join("\n");
}

describe(`src/ sizes: no function over ${MAX_FUNCTION_LINES} lines, no file over ${MAX_FILE_LINES}`, () => {
  const sizes = sourceFiles(SRC).map((path) =>
    measureSource(relative(REPO, path).split(sep).join("/"), readFileSync(path, "utf8")),
  );

  it("the scan parses every file under src/ and sees their functions", () => {
    expect(sizes.length).toBeGreaterThan(100);
    expect(sizes.reduce((n, size) => n + size.functions.length, 0)).toBeGreaterThan(1000);
    expect(sizes.map((size) => size.file)).toContain("src/ledger/conclusion.ts");
  });

  it("the detector flags a function one line over the limit and a file one line over, and not at them", () => {
    expect(offences([measureSource("probe.ts", probe("atLimit", MAX_FUNCTION_LINES))], [])).toEqual([]);
    expect(offences([measureSource("probe.ts", probe("tooLong", MAX_FUNCTION_LINES + 1))], [])).toEqual([
      `probe.ts tooLong (line 1): ${MAX_FUNCTION_LINES + 1} lines, over ${MAX_FUNCTION_LINES}: it is two jobs`,
    ]);
    const atFileLimit = probe("f", 10, MAX_FILE_LINES - 10);
    expect(lineCount(atFileLimit)).toBe(MAX_FILE_LINES);
    expect(offences([measureSource("probe.ts", atFileLimit)], [])).toEqual([]);
    expect(offences([measureSource("probe.ts", `${atFileLimit}// one more\n`)], [])).toEqual([
      `probe.ts: ${MAX_FILE_LINES + 1} lines, over ${MAX_FILE_LINES}: split it by job`,
    ]);
  });

  it("names methods by class, nested functions by their own name, and counts from the first token", () => {
    const text = [
      "/** A docstring is not part of the function. */",
      "export class Client {",
      "  constructor() {}",
      "  run(): void {",
      "    function inner(): void {}",
      "    const bound = function (): void {};",
      "    [1].map((x) => x);",
      "  }",
      "}",
      "",
    ].join("\n");
    expect(measureSource("probe.ts", text).functions).toEqual([
      { name: "Client.constructor", line: 3, lines: 1 },
      { name: "Client.run", line: 4, lines: 5 },
      { name: "inner", line: 5, lines: 1 },
      { name: "bound", line: 6, lines: 1 },
      { name: "(anonymous)", line: 7, lines: 1 },
    ]);
  });

  it("no function or file under src/ is over its limit, but for the allow-list", () => {
    expect(offences(sizes, ALLOWED)).toEqual([]);
  });

  it("every allow-listed file and function still exists and is still over its limit (the list only shrinks)", () => {
    const stale = ALLOWED.filter((entry) => {
      const size = sizes.find((s) => s.file === entry.file);
      if (size === undefined) return true;
      if (entry.function === undefined) return size.lines <= MAX_FILE_LINES;
      const fns = size.functions.filter((fn) => fn.name === entry.function);
      return fns.length === 0 || fns.every((fn) => fn.lines <= MAX_FUNCTION_LINES);
    });
    expect(stale.map((entry) => `${entry.file}${entry.function ? ` ${entry.function}` : ""}`)).toEqual([]);
  });
});
