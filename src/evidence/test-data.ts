/**
 * What the tests compare against (rules 8 and 9 of `verify-definition.ts`; issue 22 item 4, ADR 0014): the
 * fixtures, snapshots, golden files and data files a test reads. A node that changes `fixtures/expected.json`
 * from 12 to 7 makes the test pass without fixing the bug, exactly as one that rewrites the assertion does,
 * so such a change is flagged like a change to the tests themselves. Pure: the git side
 * (`changed-files.ts`) lists the candidates, searches the starting tree's test files for them and hands the
 * matching lines in.
 *
 * The folder and file names are those the common ecosystems' test tools use by convention:
 * - `testdata/` (Go's `go test` ignores it as a package and tests read it by relative path), `test-data/`,
 *   `test_data/`;
 * - `fixtures/`, `fixture/`, `__fixtures__/` (Jest, Rails, pytest plugins, Mocha projects);
 * - `__snapshots__/` and `*.snap` (Jest, Vitest, `insta` for Rust's `*.snap`);
 * - golden files: `golden/`, `goldens/`, `__golden__/`, `*.golden` (Go's `-update` convention, Flutter's
 *   `goldens/`) and approval tests' `*.approved.*` (ApprovalTests for .NET, Java, Python, JS);
 * - any data (non-code) file under a test folder (`test/`, `tests/`, `__tests__/`, `spec/` — also Maven and
 *   Gradle's `src/test/resources/`, which lies under `test/`): a test's code there is judged by rules 4–6.
 * `conftest.py` (pytest's fixtures and hooks) is a definition file (rule 2).
 */
import { posix } from "node:path";

/** Folder names whose every file is test data, with the words a flagged change prints. */
const DATA_FOLDERS: ReadonlyMap<string, string> = new Map([
  ["testdata", "test data"],
  ["test-data", "test data"],
  ["test_data", "test data"],
  ["fixtures", "a test fixture"],
  ["fixture", "a test fixture"],
  ["__fixtures__", "a test fixture"],
  ["__snapshots__", "a test snapshot"],
  ["golden", "a golden file"],
  ["goldens", "a golden file"],
  ["__golden__", "a golden file"],
]);

/** Folder names under which a file is a test's (`verify-definition.ts` rule 4 shares them). */
export const TEST_FOLDERS: ReadonlySet<string> = new Set(["test", "tests", "__tests__", "spec"]);

/**
 * File extensions of source code: a file with one of these is code, not data, when it lies under a test
 * folder (rules 4–6 judge it) or a test names it (an `import "../src/sum.js"` names the code under test,
 * the very file a fix changes). Lower case, without the dot.
 */
export const CODE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "js mjs cjs jsx ts mts cts tsx vue svelte py pyi go rb rs java kt kts scala groovy cs fs vb php swift " +
    "c h cc cpp cxx hh hpp m mm ex exs erl hrl clj cljs lua pl pm dart r jl hs ml zig nim sh bash zsh ps1"
  ).split(" "),
);

/** Whether `path`'s extension is a source-code one ({@link CODE_EXTENSIONS}). */
export function isCodeFile(path: string): boolean {
  const name = posix.basename(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 && CODE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/**
 * Why `path` (repository-relative, `/`-separated) is what the tests compare against, as the words a flagged
 * change prints ("a test fixture (under fixtures/)"), or `null` when it is not test data by its name.
 */
export function testDataReason(path: string): string | null {
  const parts = path.split("/");
  const name = parts[parts.length - 1] ?? "";
  const folders = parts.slice(0, -1);
  for (const folder of folders) {
    const words = DATA_FOLDERS.get(folder);
    if (words !== undefined) return `${words} (under ${folder}/), what the tests compare against`;
  }
  if (name.endsWith(".snap")) return "a test snapshot (*.snap), what the tests compare against";
  if (name.endsWith(".golden") || name.includes(".golden.")) {
    return "a golden file (*.golden), what the tests compare against";
  }
  if (name.includes(".approved.")) {
    return "an approved file of approval tests (*.approved.*), what the tests compare against";
  }
  const testFolder = folders.find((folder) => TEST_FOLDERS.has(folder));
  if (testFolder !== undefined && !isCodeFile(path)) {
    return `a data file under ${testFolder}/, what the tests read or compare against`;
  }
  return null;
}

/** Longest string literal read, in characters (a longer one names no file). */
const LITERAL_MAX_CHARS = 300;
/** Most literals of one line considered (and joined, for `join("data", "cases.json")`). */
const LITERALS_PER_LINE = 16;
/** Most consecutive literals joined with `/` into one path. */
const JOINED_MAX = 4;

const LITERAL = /"((?:[^"\\\n]|\\.){1,300})"|'((?:[^'\\\n]|\\.){1,300})'|`([^`$\n]{1,300})`/g;

/**
 * The repository-relative paths one line of the test file `testPath` may name: each string literal, and each
 * run of up to {@link JOINED_MAX} consecutive literals joined with `/` (`os.path.join(HERE, "data",
 * "cases.json")`, `Path(__file__).parent / "data" / "cases.json"`), each taken two ways — resolved against
 * the test file's folder (`new URL("../data/cases.json", import.meta.url)` from `test/`), and with its
 * leading `./`, `../` and `/` removed, as a suffix of a path (`path.join(__dirname, "../../data/cases.json")`
 * from any depth; a bare name `"cases.json"` then names only `cases.json` at the root). Returned as
 * `{exact, suffixes}`: paths named outright, and tails (with a `/`) that name any path ending in them.
 */
export function pathsNamedOnLine(
  testPath: string,
  line: string,
): { readonly exact: ReadonlySet<string>; readonly suffixes: ReadonlySet<string> } {
  const literals: string[] = [];
  for (const match of line.matchAll(LITERAL)) {
    const text = (match[1] ?? match[2] ?? match[3] ?? "").replaceAll("\\\\", "/");
    if (text.length <= LITERAL_MAX_CHARS) literals.push(text);
    if (literals.length >= LITERALS_PER_LINE) break;
  }
  const candidates = new Set<string>();
  for (let i = 0; i < literals.length; i++) {
    for (let n = 1; n <= JOINED_MAX && i + n <= literals.length; n++) {
      candidates.add(literals.slice(i, i + n).join("/"));
    }
  }
  const exact = new Set<string>();
  const suffixes = new Set<string>();
  const folder = posix.dirname(testPath);
  for (const candidate of candidates) {
    if (candidate === "" || /\s/.test(candidate) || candidate.includes("//")) continue;
    if (!candidate.startsWith("/")) {
      const resolved = posix.normalize(posix.join(folder, candidate));
      if (!resolved.startsWith("../") && resolved !== "..") exact.add(resolved);
    }
    const tail = candidate.replace(/^(?:\.{1,2}\/|\/)+/, "");
    if (tail === "" || tail.startsWith("..")) continue;
    exact.add(posix.normalize(tail));
    if (tail.includes("/")) suffixes.add(posix.normalize(tail));
  }
  return { exact, suffixes };
}

/** Whether `path` is one of `named`'s paths: named outright, or ending in `/` + one of its tails. */
export function isNamedBy(
  path: string,
  named: { readonly exact: ReadonlySet<string>; readonly suffixes: ReadonlySet<string> },
): boolean {
  if (named.exact.has(path)) return true;
  for (const tail of named.suffixes) if (path.endsWith(`/${tail}`)) return true;
  return false;
}
