/**
 * Which of the nodes' changes touch what defines the verify command (the conclusion's rule
 * `verify-definition-changed`, SPEC §6). A verify that passes says the command exited 0 — not that the
 * tests ran: a node that rewrites `"test": "vitest run"` into `"test": "true"` makes `npm test` pass on any
 * code. The engine cannot tell a legitimate change of the build from a disabled one, so every such change
 * keeps the run from `success` and is named for a reviewer. Pure: the caller reads git
 * (`changed-files.ts`) and hands the contents in.
 *
 * A change is flagged when it is (the rules, in the order they are checked; one path may match several):
 *
 * 1. `package-scripts` — a `package.json` whose `scripts` differ (any key added, removed or changed), or
 *    whose test-runner configuration keys (`jest`, `mocha`, `ava`, `vitest`, `c8`, `nyc`) differ, compared as
 *    parsed JSON (formatting, key order, `dependencies`, `version`, `description` are not flagged). A
 *    `package.json` that does not parse on a side where it exists is flagged (its scripts cannot be compared).
 * 2. `definition-file` — any change to a build or test-runner definition file: `Makefile`, `GNUmakefile`,
 *    `makefile`, `*.mk`, `justfile` (and `Justfile`, `.justfile`), `Taskfile.yml`/`.yaml` (and lower-case
 *    `taskfile.*`), `Rakefile`, `build.xml`, `meson.build`, `jest.config.*`, `vitest.config.*`,
 *    `vitest.workspace.*`, `vite.config.*`, `.mocharc*`, `karma.conf.*`, `playwright.config.*`,
 *    `cypress.config.*`, `pytest.ini`, `tox.ini`, `noxfile.py`, `conftest.py`, `setup.cfg`,
 *    `CMakeLists.txt`, `build.gradle*`, `settings.gradle*`, `pom.xml`, and `pyproject.toml`. No TOML parser
 *    is installed, so **any** `pyproject.toml` change is flagged (not only its `[tool.pytest*]`,
 *    `[tool.tox*]`, `[tool.hatch.envs*]`, `[tool.poe*]` sections). The build-signal table
 *    (`signal-rules.ts`) spells the names it shares with this list the same way (a test checks it).
 * 3. `named-by-verify` — a file of the starting tree a verify command runs, changed in any way (modified,
 *    deleted, renamed): a word of the command that, resolved against the command's folder, is that path and
 *    is the program (`./scripts/ci.sh`), an interpreter's script (`bash test.sh`, `node check.mjs`) or a
 *    file option's value (`make -f ci.mk`, `--config=ci/jest.js`; `verify-command-files.ts`). A file the
 *    command only reads as data (`grep -q done notes.txt`) is not flagged: it is often the very file the
 *    nodes were asked to change. Nor is a file the nodes added (`test -f report.md` checks their output).
 * 4. `test-file-removed` — a test file of the starting tree (`*.test.*`, `*.spec.*`, `*_test.go`,
 *    `test_*.py`, `*_test.py`, or anything under a `test/`, `tests/`, `__tests__/` or `spec/` folder) that
 *    the nodes deleted or renamed (under its new name the runner may not find it).
 * 5. `skip-marker` — a skip or only marker in a test file's added lines: `.skip(`, `.only(`, `xit(`,
 *    `xdescribe(`, `skip: true`, `@pytest.mark.skip`, `t.Skip(`, `#[ignore]`.
 * 6. `test-lines-changed` — a test file of the starting tree with lines changed or removed (the `-` lines of
 *    its diff): an assertion rewritten (`assert.equal(sum(1, 2), 3)` → `…, -1)`), a test body wrapped in a
 *    condition that never holds (the re-indented lines), an expected value deleted. Lines only added (a new
 *    test case appended) are not flagged: a fix that adds tests keeps `success`.
 * 7. `policy-file` — the maintainers' policy file (`.github/evidence-gate.yml`: its `verify-cmd` is the
 *    verify command of later runs, its `require-evidence` what counts as green), changed in any way.
 * 8. `test-data` — what the tests compare against (`test-data.ts`, ADR 0014): a file of the starting tree
 *    under a test-data folder (`fixtures/`, `__fixtures__/`, `testdata/`, `__snapshots__/`, `golden/`, …),
 *    a snapshot or golden file (`*.snap`, `*.golden`, `*.approved.*`), or a data (non-code) file under a
 *    test folder (`test/fixtures/expected.json`, `src/test/resources/cases.csv`), changed in any way —
 *    modified (even lines only added: a JSON key appended, a second snapshot of the same name, overrides
 *    the first), deleted (Jest re-writes a missing snapshot) or renamed. Such a file is judged here, not by
 *    rules 4 and 6 (even when its name looks like a test's: `sum.test.js.snap`). A new fixture is not.
 * 9. `named-by-test` — a data (non-code) file of the starting tree that a test file of the starting tree
 *    names in a string literal (`readFileSync(new URL("../data/cases.json", import.meta.url))`), changed in
 *    any way; the git side finds the names (`changed-files.ts`, bounded there) and hands them in as
 *    `namedByTests`. A code file a test names (`import "../src/sum.js"`) is the code under test, not
 *    flagged; nor is a `package.json` (rule 1 judges it) or a path another rule flagged already.
 *
 * Rules 1 and 2 apply at any depth, except under the folders the build-signal scan never descends into
 * (hidden folders, `node_modules`, `vendor`, `dist`, `build`, … — `SKIPPED_FOLDERS`): a superset of the
 * depths the scan considers, since a nested package's scripts can be what a workspace's `npm test` runs.
 * A source file edited, a dependency bumped, a new test file added (with no marker) is not flagged.
 */
import { posix } from "node:path";
import type { ChangedFile, VerifyDefinitionChange } from "../core/changed-files-record.js";
import { POLICY_FILE } from "../policy/policy-file.js";
import { SKIPPED_FOLDERS } from "./build-signals.js";
import { TEST_FOLDERS, testDataReason } from "./test-data.js";
import { commandFiles } from "./verify-command-files.js";

/** The `package.json` keys that configure a test runner (rule 1), besides `scripts`. */
export const RUNNER_CONFIG_KEYS: readonly string[] = ["jest", "mocha", "ava", "vitest", "c8", "nyc"];

/** Exact file names of rule 2. */
export const DEFINITION_FILE_NAMES: ReadonlySet<string> = new Set([
  "Makefile",
  "GNUmakefile",
  "makefile",
  "justfile",
  "Justfile",
  ".justfile",
  "Taskfile.yml",
  "Taskfile.yaml",
  "taskfile.yml",
  "taskfile.yaml",
  "Rakefile",
  "build.xml",
  "meson.build",
  "pytest.ini",
  "tox.ini",
  "noxfile.py",
  "conftest.py",
  "setup.cfg",
  "CMakeLists.txt",
  "pom.xml",
  "pyproject.toml",
]);

/** Name prefixes of rule 2 (`jest.config.ts`, `build.gradle.kts`, `.mocharc.yml`). */
const DEFINITION_PREFIXES: readonly string[] = [
  "jest.config.",
  "vitest.config.",
  "vitest.workspace.",
  "vite.config.",
  ".mocharc",
  "karma.conf.",
  "playwright.config.",
  "cypress.config.",
  "build.gradle",
  "settings.gradle",
];

/** The markers of rule 5, each with the words the ledger prints. */
const SKIP_MARKERS: readonly { readonly pattern: RegExp; readonly words: string }[] = [
  { pattern: /\.skip\s*\(/, words: ".skip()" },
  { pattern: /\.only\s*\(/, words: ".only()" },
  { pattern: /\bxit\s*\(/, words: "xit()" },
  { pattern: /\bxdescribe\s*\(/, words: "xdescribe()" },
  { pattern: /\bskip\s*:\s*true\b/, words: "skip: true" },
  { pattern: /@pytest\.mark\.skip/, words: "@pytest.mark.skip" },
  { pattern: /\bt\.Skip(Now)?\s*\(/, words: "t.Skip()" },
  { pattern: /#\[ignore\]/, words: "#[ignore]" },
];

/** One verify command as it ran: the command line and its folder relative to the repository root (`""`: the root). */
export interface VerifyCommandAt {
  readonly command: string;
  readonly cwd: string;
}

/** The two sides of a `package.json` change: its text in the starting and final trees (`null`: absent there). */
export interface PackageJsonSides {
  readonly base: string | null;
  readonly final: string | null;
  /** Not read (the caller's bound on reads was reached): flagged, since its scripts were not compared. */
  readonly unread?: true;
}

/** What {@link classifyVerifyDefinition} judges. */
export interface VerifyDefinitionInput {
  /** Every change (not bounded), as `ChangedFile`s. */
  readonly changes: readonly ChangedFile[];
  /** For each change {@link packageJsonPaths} names, by its `path`: the texts of both sides. */
  readonly packageJsons: ReadonlyMap<string, PackageJsonSides>;
  /** The verify commands the run's rows ran (duplicates are fine). */
  readonly verifyCommands: readonly VerifyCommandAt[];
  /** A test file's added lines, by its (final) path; a path absent here has none known. */
  readonly addedLines: ReadonlyMap<string, readonly string[]>;
  /** How many of a test file's lines were changed or removed (rule 6), by its (final) path; absent: none known. */
  readonly removedLines?: ReadonlyMap<string, number>;
  /**
   * Rule 9: for a changed data file a test file of the starting tree names, by its path in the starting
   * tree, the first such test file and the literal naming it. Absent: none known.
   */
  readonly namedByTests?: ReadonlyMap<string, { readonly testPath: string; readonly literal: string }>;
}

/**
 * The changes that touch what defines the verify command (see the module docstring for the rules), in the
 * order of `input.changes`, each path's rules in rule order. `[]` when none does (or nothing changed).
 */
export function classifyVerifyDefinition(input: VerifyDefinitionInput): VerifyDefinitionChange[] {
  const named = namedPaths(input.verifyCommands);
  const out: VerifyDefinitionChange[] = [];
  for (const change of input.changes) {
    const sides = input.packageJsons.get(change.path);
    if (sides !== undefined) {
      const keys = packageJsonKeysChanged(sides);
      if (keys.length > 0) {
        out.push({ path: change.path, kind: "package-scripts", detail: `${keys.join(", ")} changed`, keys });
      }
    }
    const definition = [change.path, change.from].find((p) => p !== undefined && isDefinitionFile(p));
    if (definition !== undefined) {
      out.push({
        path: change.path,
        kind: "definition-file",
        detail:
          posix.basename(definition) === "conftest.py"
            ? `pytest's conftest.py (the fixtures and hooks the tests under its folder use, what they compare against), a test-runner definition file, ${change.status}`
            : `a build or test-runner definition file, ${change.status}`,
      });
    }
    const before = change.status === "renamed" ? change.from : change.path;
    const command = change.status === "added" || before === undefined ? [] : (named.get(before) ?? []);
    if (command.length > 0) {
      out.push({
        path: change.path,
        kind: "named-by-verify",
        detail: `named by the verify command "${command[0]}", ${change.status}`,
      });
    }
    const data = change.status === "added" || before === undefined ? null : testDataReason(before);
    const removedTest = change.status === "deleted" || change.status === "renamed";
    if (removedTest && before && isTestPath(before) && data === null) {
      out.push({
        path: change.path,
        kind: "test-file-removed",
        detail: change.status === "deleted" ? "a test file, deleted" : `a test file, renamed from ${before}`,
      });
    }
    const markers = change.status === "deleted" ? [] : markersIn(input.addedLines.get(change.path) ?? []);
    if (markers.length > 0 && isTestPath(change.path)) {
      out.push({ path: change.path, kind: "skip-marker", detail: `added ${markers.join(", ")}` });
    }
    const removed = change.status === "deleted" ? 0 : (input.removedLines?.get(change.path) ?? 0);
    if (removed > 0 && before !== undefined && isTestPath(before) && data === null) {
      out.push({
        path: change.path,
        kind: "test-lines-changed",
        detail: `a test file, ${removed} existing line${removed === 1 ? "" : "s"} changed or removed`,
      });
    }
    if ([change.path, change.from].includes(POLICY_FILE)) {
      out.push({
        path: change.path,
        kind: "policy-file",
        detail: `the maintainers' policy file (its verify-cmd and require-evidence decide later runs), ${change.status}`,
      });
    }
    if (data !== null) {
      out.push({ path: change.path, kind: "test-data", detail: `${data}, ${change.status}` });
    }
    const namer =
      before === undefined || change.status === "added" ? undefined : input.namedByTests?.get(before);
    if (namer !== undefined && !out.some((flag) => flag.path === change.path)) {
      out.push({
        path: change.path,
        kind: "named-by-test",
        detail: `a data file the test ${namer.testPath} names ("${namer.literal}"), what it reads or compares against, ${change.status}`,
      });
    }
  }
  return out;
}

/**
 * Which sides of `change` are `package.json` files rule 1 compares: the starting tree's path (`base`) and
 * the final tree's (`final`), each absent when that side is not a `package.json` (or not there).
 */
export function packageJsonPaths(change: ChangedFile): { readonly base?: string; readonly final?: string } {
  const before =
    change.status === "renamed" ? change.from : change.status === "added" ? undefined : change.path;
  const after = change.status === "deleted" ? undefined : change.path;
  const pick = (p: string | undefined): p is string =>
    p !== undefined && posix.basename(p) === "package.json" && !underSkippedFolder(p);
  return { ...(pick(before) ? { base: before } : {}), ...(pick(after) ? { final: after } : {}) };
}

/**
 * The keys of rule 1 that differ between two `package.json` texts: `scripts.<name>` for each script added,
 * removed or changed (`scripts` when `scripts` is not an object on a side), then each runner key
 * ({@link RUNNER_CONFIG_KEYS}) that differs; `["package.json (not valid JSON)"]` when a side that exists
 * does not parse as a JSON object; one "not compared" key when `sides.unread`.
 */
export function packageJsonKeysChanged(sides: PackageJsonSides): string[] {
  if (sides.unread === true) return ["package.json (not compared: too many package.json files changed)"];
  const parsedBase = parseObject(sides.base);
  const parsedFinal = parseObject(sides.final);
  if (parsedBase === undefined || parsedFinal === undefined) return ["package.json (not valid JSON)"];
  // An absent side (added, deleted, renamed away) has no scripts and no runner keys.
  const base = parsedBase ?? {};
  const final = parsedFinal ?? {};
  const keys: string[] = [];
  const baseScripts = base.scripts ?? {};
  const finalScripts = final.scripts ?? {};
  if (isPlainObject(baseScripts) && isPlainObject(finalScripts)) {
    const names = [...new Set([...Object.keys(baseScripts), ...Object.keys(finalScripts)])].sort();
    for (const name of names) {
      if (canonical(baseScripts[name]) !== canonical(finalScripts[name])) keys.push(`scripts.${name}`);
    }
  } else if (canonical(baseScripts) !== canonical(finalScripts)) {
    keys.push("scripts");
  }
  for (const key of RUNNER_CONFIG_KEYS) {
    if (canonical(base[key]) !== canonical(final[key])) keys.push(key);
  }
  return keys;
}

/** Rule 2: whether `path` (repository-relative) is a build or test-runner definition file. */
export function isDefinitionFile(path: string): boolean {
  if (underSkippedFolder(path)) return false;
  const name = posix.basename(path);
  return (
    DEFINITION_FILE_NAMES.has(name) ||
    name.endsWith(".mk") ||
    DEFINITION_PREFIXES.some((prefix) => name.startsWith(prefix))
  );
}

/** Rule 4's test-file patterns: whether `path` (repository-relative) looks like a test file. */
export function isTestPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts[parts.length - 1] ?? "";
  if (parts.slice(0, -1).some((folder) => TEST_FOLDERS.has(folder))) return true;
  return (
    /\.(test|spec)\./.test(name) ||
    name.endsWith("_test.go") ||
    /^test_.*\.py$/.test(name) ||
    name.endsWith("_test.py")
  );
}

/**
 * The added lines of each file in a `git diff` patch (`-U0` or any context): the `+` lines, by the path of
 * their `+++ b/…` header (a deleted file's `+++ /dev/null` has none). Paths git quoted (`"b/\t…"`) are
 * kept as quoted; they then match no changed path and count for nothing.
 */
export function addedLinesByFile(patch: string): Map<string, string[]> {
  const added = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of patch.split("\n")) {
    if (line.startsWith("diff --git ")) {
      current = null;
    } else if (line.startsWith("+++ ")) {
      const target = line.slice(4).replace(/\t$/, "");
      if (target.startsWith("b/")) {
        current = [];
        added.set(target.slice(2), current);
      } else {
        current = null;
      }
    } else if (current !== null && line.startsWith("+")) {
      current.push(line.slice(1));
    }
  }
  return added;
}

/**
 * How many lines each file of a `git diff` patch changed or removed: its `-` lines (not the `--- a/…`
 * header), by the path of its `+++ b/…` header (a deleted file's `+++ /dev/null` counts for nothing).
 */
export function removedLineCountsByFile(patch: string): Map<string, number> {
  const removed = new Map<string, number>();
  let current: string | null = null;
  for (const line of patch.split("\n")) {
    if (line.startsWith("diff --git ")) {
      current = null;
    } else if (line.startsWith("+++ ")) {
      const target = line.slice(4).replace(/\t$/, "");
      current = target.startsWith("b/") ? target.slice(2) : null;
    } else if (current !== null && line.startsWith("-")) {
      removed.set(current, (removed.get(current) ?? 0) + 1);
    }
  }
  return removed;
}

/** The markers of rule 5 found in `lines`, each once, in table order. */
function markersIn(lines: readonly string[]): string[] {
  return SKIP_MARKERS.filter((m) => lines.some((line) => m.pattern.test(line))).map((m) => m.words);
}

/** Repository-relative paths the verify commands name (rule 3), each with the commands naming it. */
function namedPaths(commands: readonly VerifyCommandAt[]): Map<string, string[]> {
  const named = new Map<string, string[]>();
  for (const { command, cwd } of commands) {
    for (const word of commandFiles(command)) {
      if (word.startsWith("/") || word.startsWith("~") || /[$*?`]/.test(word)) continue;
      const path = posix.normalize(posix.join(cwd === "" ? "." : cwd, word));
      if (path === "." || path.startsWith("../") || path === "..") continue;
      const list = named.get(path) ?? [];
      if (!list.includes(command)) list.push(command);
      named.set(path, list);
    }
  }
  return named;
}

/** Whether a path lies under a folder the build-signal scan never descends into (hidden, `node_modules`, …). */
function underSkippedFolder(path: string): boolean {
  return path
    .split("/")
    .slice(0, -1)
    .some((folder) => folder.startsWith(".") || SKIPPED_FOLDERS.has(folder));
}

/** `text` parsed as a JSON object; `null` for an absent side (`text` null); `undefined` when it does not parse as one. */
function parseObject(text: string | null): Record<string, unknown> | null | undefined {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON value as text with object keys sorted, so key order and formatting do not count as a change. */
function canonical(value: unknown): string {
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
