/**
 * The summary lines of the common test runners, as they print them (issue 25 item 1; SPEC §7b): what a
 * verify command's output says its tests did. Pure: lines in, summaries out. Each recogniser knows one
 * runner's documented (and, where the runner installs here, really printed) format — the version each
 * was checked against is named in `test/evidence/runner-summaries.test.ts` — and recognises nothing
 * else: an unknown or half-printed summary is no summary, never a guess.
 *
 * Every pattern is anchored and linear (no nested quantifiers), applied line by line; a line is read at
 * most once per recogniser, so the cost is linear in the output the engine kept.
 *
 * What this does not defend against: the verify command is the pull request's code, and it can print a
 * runner's summary without running anything (it could also just exit 0). A receipt catches the honest
 * mistakes — a runner that found no test, a filter that matched none, a build-only command — not a forger.
 */
import { RECEIPT_MAX_NAMES } from "../core/ledger-row.js";

/** One runner's summary read from the output. */
export interface RunnerSummary {
  /** The runner, as the ledger names it (`node:test`, `vitest`, `jest`, `mocha`, `ava`, `pytest`, …). */
  readonly runner: string;
  /** Tests that ran and passed (a count of tests; xfailed / known failures included, see each runner). */
  readonly passed: number;
  /**
   * Tests that failed, plus every failure the runner reports outside a test (a test file or suite that
   * failed to load or compile, an uncaught error or unhandled rejection, a failed hook, a timeout), each
   * counted as one: a count of failures, never 0 when the runner saw one.
   */
  readonly failed: number;
  /** Skipped, pending, todo, ignored: tests that did not run (and so are not evidence); a count of tests. */
  readonly skipped: number;
  /** Failing tests' names, as printed (at most {@link RECEIPT_MAX_NAMES}, deduplicated). */
  readonly failedNames: readonly string[];
  /**
   * `true` when the counts are a tally of lines spread through the output (`go test -v`'s `--- PASS`
   * lines, one `test result:` per cargo test binary, one `Results:` per Maven module, ava's `✔` lines)
   * rather than one final line: any byte cut from the output can then change them.
   */
  readonly spread: boolean;
  /** The 0-based index of the summary's last line (to tell the kept tail's lines from the head's). */
  readonly line: number;
}

/** A recogniser: every summary of its runner found in `lines` (`others`: the other runners' summaries). */
type Recogniser = (lines: readonly string[], others: readonly RunnerSummary[]) => RunnerSummary[];

// ANSI escape sequences (colours, cursor moves) some runners print even when not on a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence starts with ESC.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/**
 * The output as lines the recognisers read: split on `\n`, a trailing `\r` removed, ANSI escape
 * sequences removed.
 */
export function outputLines(text: string): string[] {
  return text.split("\n").map((line) => line.replace(ANSI, "").replace(/\r$/, ""));
}

/** Every runner's summaries found in `lines`, in the order of {@link RECOGNISERS}, each in output order. */
export function readRunnerSummaries(lines: readonly string[]): RunnerSummary[] {
  // AVA's tally of `✔` lines needs to know where another runner's output ends: it is read last.
  const found = RECOGNISERS.map((recognise) => (recognise === ava ? [] : recognise(lines, [])));
  found[RECOGNISERS.indexOf(ava)] = ava(lines, found.flat());
  return found.flat();
}

/** A summary's fields with the names clipped to the kept count and deduplicated. */
function summary(
  fields: Omit<RunnerSummary, "failedNames"> & { failedNames: readonly string[] },
): RunnerSummary {
  const names = [...new Set(fields.failedNames.map((name) => name.trim()).filter((name) => name !== ""))];
  return { ...fields, failedNames: names.slice(0, RECEIPT_MAX_NAMES) };
}

/** `1 failed | 2 passed` / `1 failed, 2 passed` → a map of word to count; `null` when a part is not `N word`. */
function countWords(text: string, separator: string, known: ReadonlySet<string>): Map<string, number> | null {
  const counts = new Map<string, number>();
  for (const part of text.split(separator)) {
    const match = /^\s*(\d+) ([a-z][a-z ]*?)\s*$/.exec(part);
    if (match === null || !known.has(match[2]!)) return null;
    counts.set(match[2]!, (counts.get(match[2]!) ?? 0) + Number(match[1]));
  }
  return counts;
}

/** Lines `from` (inclusive) to `to` (exclusive) matching `pattern`, its first group each. */
function namesIn(lines: readonly string[], from: number, to: number, pattern: RegExp): string[] {
  const names: string[] = [];
  for (let i = Math.max(0, from); i < Math.min(to, lines.length); i++) {
    const match = pattern.exec(lines[i]!);
    if (match !== null) names.push(match[1]!);
  }
  return names;
}

/** A summary of a runner that says it found no test at all (`No test files found`). */
function noTests(runner: string, line: number): RunnerSummary {
  return { runner, passed: 0, failed: 0, skipped: 0, failedNames: [], spread: false, line };
}

/**
 * Node's test runner (`node --test`): the TAP reporter's `# tests N` … `# todo N` block (the default
 * when not on a terminal before Node 23) or the spec reporter's `ℹ tests N` block. Failing names: TAP
 * `not ok N - name` lines (without a SKIP/TODO directive) before the block, or the spec reporter's
 * `✖ failing tests:` list after it. `cancelled` counts as failed, `todo` as skipped.
 */
const nodeTest: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const head = /^(#|ℹ) tests (\d+)$/.exec(lines[i]!);
    if (head === null) continue;
    const mark = head[1]!;
    const fields = new Map<string, number>();
    let end = i;
    for (let j = i + 1; j < Math.min(lines.length, i + 9); j++) {
      const field = /^(#|ℹ) (suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d+(?:\.\d+)?)$/.exec(
        lines[j]!,
      );
      if (field === null || field[1] !== mark) break;
      fields.set(field[2]!, Number(field[3]));
      end = j;
    }
    if (!fields.has("pass") || !fields.has("fail")) continue;
    const failed = fields.get("fail")! + (fields.get("cancelled") ?? 0);
    const names =
      mark === "#"
        ? namesIn(lines, previousEnd, i, /^\s*not ok \d+ - (.+)$/)
        : specFailingNames(lines, end + 1);
    found.push(
      summary({
        runner: "node:test",
        passed: fields.get("pass")!,
        failed,
        skipped: (fields.get("skipped") ?? 0) + (fields.get("todo") ?? 0),
        failedNames: names.filter((name) => !/ # (?:SKIP|TODO)\b/i.test(name)),
        spread: false,
        line: end,
      }),
    );
    previousEnd = end + 1;
    i = end;
  }
  return found;
};

/** The spec reporter's `✖ failing tests:` list starting at or after `from`: its `✖ name (12ms)` lines. */
function specFailingNames(lines: readonly string[], from: number): string[] {
  let start = -1;
  for (let i = from; i < Math.min(lines.length, from + 4); i++) {
    if (lines[i] === "✖ failing tests:") start = i + 1;
  }
  if (start < 0) return [];
  const names: string[] = [];
  for (let i = start; i < lines.length; i++) {
    if (/^(#|ℹ) tests \d+$/.test(lines[i]!)) break;
    const match = /^✖ (.+) \(\d+(?:\.\d+)?m?s\)$/.exec(lines[i]!);
    if (match !== null) names.push(match[1]!);
  }
  return names;
}

const VITEST_WORDS = new Set(["passed", "failed", "skipped", "todo", "expected fail"]);

/**
 * Vitest: `Tests  1 failed | 2 passed | 1 skipped (4)` right after a `Test Files  1 failed | 1 passed (2)`
 * line, and an `Errors  N error(s)` line after it when errors were caught outside tests (unhandled
 * rejections, uncaught exceptions); `No test files found, exiting with code N` is zero tests. A test file
 * that failed to load counts no test, so failed is the larger of the failed tests and the failed files,
 * plus the errors. Failing names: ` FAIL  file > name` (or ` FAIL  file [ file ]`) lines before it.
 */
const vitest: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^No test files found, exiting with code \d+$/.test(line)) {
      found.push(noTests("vitest", i));
      previousEnd = i + 1;
      continue;
    }
    const match = /^\s*Tests {2}(.+?) \((\d+)\)$/.exec(line);
    const files = /^\s*Test Files {2}(.+?) \((\d+)\)$/.exec(lines[i - 1] ?? "");
    if (match === null || files === null) continue;
    const counts = countWords(match[1]!, "|", VITEST_WORDS);
    const fileCounts = countWords(files[1]!, "|", VITEST_WORDS);
    if (counts === null || fileCounts === null) continue;
    const errors = /^\s*Errors {2}(\d+) errors?$/.exec(lines[i + 1] ?? "");
    const end = errors === null ? i : i + 1;
    found.push(
      summary({
        runner: "vitest",
        passed: (counts.get("passed") ?? 0) + (counts.get("expected fail") ?? 0),
        failed: Math.max(counts.get("failed") ?? 0, fileCounts.get("failed") ?? 0) + Number(errors?.[1] ?? 0),
        skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
        failedNames: namesIn(lines, previousEnd, i, /^\s*FAIL {2}(.+?)\s*$/),
        spread: false,
        line: end,
      }),
    );
    previousEnd = end + 1;
    i = end;
  }
  return found;
};

const JEST_WORDS = new Set(["passed", "failed", "skipped", "todo", "total"]);

/**
 * Jest: `Tests:       1 failed, 1 skipped, 1 passed, 3 total`, after `Test Suites: 1 failed, 1 passed, 2
 * total`; `No tests found, exiting with code N` is zero tests. A suite that failed to run (a compile or
 * import error) counts no test, so failed is the larger of the failed tests and the failed suites.
 * Failing names: the `● name` headings before it (not `● Test suite failed to run`).
 */
const jest: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^No tests found, exiting with code \d+$/.test(line)) {
      found.push(noTests("jest", i));
      previousEnd = i + 1;
      continue;
    }
    const match = /^Tests: +(.+)$/.exec(line);
    if (match === null) continue;
    const counts = countWords(match[1]!, ",", JEST_WORDS);
    if (counts === null || !counts.has("total")) continue;
    const suites = /^Test Suites: +(.+)$/.exec(lines[i - 1] ?? "");
    const suiteCounts = suites === null ? null : countWords(suites[1]!, ",", JEST_WORDS);
    found.push(
      summary({
        runner: "jest",
        passed: counts.get("passed") ?? 0,
        failed: Math.max(counts.get("failed") ?? 0, suiteCounts?.get("failed") ?? 0),
        skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
        failedNames: namesIn(lines, previousEnd, i, /^ {2}● (?!Test suite failed to run$)(.+)$/),
        spread: false,
        line: i,
      }),
    );
    previousEnd = i + 1;
  }
  return found;
};

/**
 * Mocha (spec reporter): `N passing (12ms)`, then `N pending` and `N failing` when not zero;
 * `Error: No test files found` is zero tests. Failing names: the numbered list after `N failing`
 * (`1) suite` and its deeper-indented title lines up to the one ending in `:`, joined by spaces).
 */
const mocha: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^Error: No test files found/.test(lines[i]!)) {
      found.push(noTests("mocha", i));
      continue;
    }
    const passing = /^ {2}(\d+) passing \(\d+(?:ms|s|m|h|d)\)$/.exec(lines[i]!);
    if (passing === null) continue;
    let pending = 0;
    let failing = 0;
    let end = i;
    for (let j = i + 1; j < Math.min(lines.length, i + 3); j++) {
      const more = /^ {2}(\d+) (pending|failing)$/.exec(lines[j]!);
      if (more === null) break;
      if (more[2] === "pending") pending = Number(more[1]);
      else failing = Number(more[1]);
      end = j;
    }
    found.push(
      summary({
        runner: "mocha",
        passed: Number(passing[1]),
        failed: failing,
        skipped: pending,
        failedNames: failing > 0 ? mochaFailures(lines, end + 1, failing) : [],
        spread: false,
        line: end,
      }),
    );
    i = end;
  }
  return found;
};

/** Mocha's numbered failure titles after `from`: `  1) suite` + `       title:` → `suite title`. */
function mochaFailures(lines: readonly string[], from: number, count: number): string[] {
  const names: string[] = [];
  let next = 1;
  for (let i = from; i < lines.length && next <= count; i++) {
    const start = new RegExp(`^ {2}${next}\\) (.+)$`).exec(lines[i]!);
    if (start === null) continue;
    const parts = [start[1]!];
    let j = i;
    while (!parts[parts.length - 1]!.endsWith(":") && j + 1 < lines.length && j < i + 10) {
      j++;
      const title = /^ {5,}(\S.*)$/.exec(lines[j]!);
      if (title === null) break;
      parts.push(title[1]!);
    }
    names.push(parts.join(" ").replace(/:$/, ""));
    next++;
    i = j;
  }
  return names;
}

/**
 * AVA 7 (default reporter, `lib/reporters/default.js` `endRun`): the closing block of `N tests passed` /
 * `N tests failed` / `N known failure` / `N tests skipped` / `N tests todo` lines, and the failures outside
 * a test, each counted as failed: `N hooks failed`, `N unhandled rejections`, `N uncaught exceptions`,
 * `N tests remained pending after a timeout`; `Couldn’t find any files to test` is zero tests. When
 * anything failed AVA prints no passed count: it is then the number of `✔` lines after the last other
 * runner's summary that precedes the block (a tally: `spread`). Failing names: `✘ [fail]: name` lines.
 */
const ava: Recogniser = (lines, others) => {
  const found: RunnerSummary[] = [];
  const counts = new Map<string, number>();
  let first = -1;
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*✘ Couldn[’']t find any files to test$/.test(lines[i]!)) found.push(noTests("ava", i));
    const match =
      /^ {2}(\d+) (?:tests? (passed|failed|skipped|todo)|(known failures?)|(hooks? failed|unhandled rejections?|uncaught exceptions?|tests? remained pending after a timeout))$/.exec(
        lines[i]!,
      );
    if (match === null) continue;
    const word = match[2] ?? (match[3] !== undefined ? "known failure" : "failed");
    counts.set(word, (counts.get(word) ?? 0) + Number(match[1]));
    if (first < 0) first = i;
    last = i;
  }
  if (last < 0) return found;
  const failed = counts.get("failed") ?? 0;
  const tallied = !counts.has("passed") && failed > 0;
  // The AVA run's own lines: after the last other runner's summary that ends before its closing block.
  const from = others.reduce((end, other) => (other.line < first ? Math.max(end, other.line + 1) : end), 0);
  const passed = tallied
    ? lines.slice(from, last).filter((line) => /^\s*✔ /.test(line)).length
    : (counts.get("passed") ?? 0) + (counts.get("known failure") ?? 0);
  found.push(
    summary({
      runner: "ava",
      passed,
      failed,
      skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
      failedNames: namesIn(lines, from, last, /^\s*✘ \[fail\]: (.+?)(?: Error thrown in test)?$/),
      spread: tallied,
      line: last,
    }),
  );
  return found;
};

const PYTEST_WORDS = new Set([
  "passed",
  "failed",
  "skipped",
  "deselected",
  "xfailed",
  "xpassed",
  "error",
  "errors",
  "warning",
  "warnings",
  "rerun",
  "subtests passed",
  "subtests failed",
  "subtests skipped",
]);

/**
 * pytest: the closing `==== 1 failed, 2 passed, 1 skipped in 0.12s ====` line (or, with `-q`, the same
 * words without the `=` rule); `no tests ran in 0.01s` is zero tests. An error counts as failed, an
 * xfailed or xpassed test as passed (it ran, and pytest's exit code follows its marker). Failing
 * names: the short test summary's `FAILED id` / `ERROR id` lines before it.
 */
const pytest: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const match = /^(?:=+ )?(.+?) in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?(?: =+)?$/.exec(lines[i]!);
    if (match === null) continue;
    const ruled = lines[i]!.startsWith("=");
    if (ruled !== lines[i]!.endsWith("=")) continue;
    const words = match[1]!;
    const counts =
      words === "no tests ran" ? new Map<string, number>() : countWords(words, ",", PYTEST_WORDS);
    if (counts === null) continue;
    found.push(
      summary({
        runner: "pytest",
        passed: (counts.get("passed") ?? 0) + (counts.get("xfailed") ?? 0) + (counts.get("xpassed") ?? 0),
        failed: (counts.get("failed") ?? 0) + (counts.get("error") ?? 0) + (counts.get("errors") ?? 0),
        skipped: counts.get("skipped") ?? 0,
        failedNames: namesIn(lines, previousEnd, i, /^(?:FAILED|ERROR) (\S+)/),
        spread: false,
        line: i,
      }),
    );
    previousEnd = i + 1;
  }
  return found;
};

/**
 * `go test`: with `-v`, one `--- PASS: name (0.00s)` / `--- FAIL:` / `--- SKIP:` line per test and
 * subtest (a tally: `spread`), then the package's line: `ok  \tpkg\t0.01s`, `FAIL\tpkg\t0.01s` (no space
 * before the tab), `FAIL\tpkg [build failed]` or `?   \tpkg\t[no test files]`. A failed package counts at
 * least one failure (one that failed to build or set up printed no `--- FAIL` line): failed is the larger
 * of the `--- FAIL` lines and the `FAIL` packages. Without `-v` go prints no `--- PASS` lines, so its
 * passing tests cannot be counted: an `ok` package with no test line before it (and not `[no tests to
 * run]`) makes no receipt. A run whose every package says `[no test files]` or `[no tests to run]` is
 * zero tests.
 */
const goTest: Recogniser = (lines) => {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names: string[] = [];
  let last = -1;
  let packages = 0;
  let packagesWithoutTests = 0;
  let failedPackages = 0;
  let testsSincePackage = 0;
  let uncounted = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const test = /^\s*--- (PASS|FAIL|SKIP): (\S+) \(\d+(?:\.\d+)?s\)$/.exec(line);
    if (test !== null) {
      if (test[1] === "PASS") passed++;
      else if (test[1] === "SKIP") skipped++;
      else {
        failed++;
        names.push(test[2]!);
      }
      testsSincePackage++;
      last = i;
      continue;
    }
    const pkg = /^(ok|FAIL|\?) *\t(\S+)(?:\t(.*)| (\[[a-z ]+\]))$/.exec(line);
    if (pkg === null) continue;
    packages++;
    const status = pkg[3] ?? pkg[4]!;
    if (/\[no test files\]|\[no tests to run\]/.test(status)) packagesWithoutTests++;
    else if (pkg[1] === "FAIL") failedPackages++;
    else if (pkg[1] === "ok" && testsSincePackage === 0) uncounted = true;
    testsSincePackage = 0;
    last = i;
  }
  if (last < 0 || uncounted) return [];
  const failures = Math.max(failed, failedPackages);
  if (passed + failures + skipped === 0 && (packages === 0 || packagesWithoutTests < packages)) return [];
  return [
    summary({
      runner: "go test",
      passed,
      failed: failures,
      skipped,
      failedNames: names,
      spread: true,
      line: last,
    }),
  ];
};

const NEXTEST_WORDS = new Set(["passed", "failed", "skipped", "timed out", "exec failed"]);

/**
 * `cargo test`: one `test result: ok. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out` per test
 * binary and doc-test run, summed (`spread`); cargo-nextest's `Summary [ 0.01s] 3 tests run: 2 passed,
 * 1 failed, 0 skipped` line, whose parts other than `passed` appear only when not zero (`3 tests run: 3
 * passed, 0 skipped`, `… 1 timed out`, `… 1 exec failed`; `(1 slow)`-style notes dropped); timed out and
 * exec failed count as failed, an unknown part makes no summary. Failing names: `test name ... FAILED`
 * lines (nextest: `FAIL [ 0.01s] name`).
 */
const cargoTest: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    const result =
      /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; \d+ measured; \d+ filtered out/.exec(
        lines[i]!,
      );
    if (result !== null) {
      passed += Number(result[1]);
      failed += Number(result[2]);
      skipped += Number(result[3]);
      last = i;
      continue;
    }
    const nextest = /^\s*Summary \[\s*\d+(?:\.\d+)?s\] \d+ tests? run: (.+)$/.exec(lines[i]!);
    const parts =
      nextest === null ? null : countWords(nextest[1]!.replace(/ \([^()]*\)/g, ""), ",", NEXTEST_WORDS);
    if (parts?.has("passed") === true) {
      found.push(
        summary({
          runner: "cargo-nextest",
          passed: parts.get("passed")!,
          failed:
            (parts.get("failed") ?? 0) + (parts.get("timed out") ?? 0) + (parts.get("exec failed") ?? 0),
          skipped: parts.get("skipped") ?? 0,
          failedNames: namesIn(lines, 0, i, /^\s*FAIL \[\s*\d+(?:\.\d+)?s\] (.+)$/),
          spread: false,
          line: i,
        }),
      );
    }
  }
  if (last >= 0) {
    found.push(
      summary({
        runner: "cargo test",
        passed,
        failed,
        skipped,
        failedNames: namesIn(lines, 0, last, /^test (\S+) \.\.\. FAILED$/),
        spread: true,
        line: last,
      }),
    );
  }
  return found;
};

/**
 * Maven Surefire (and Failsafe): the `Results:` summary `[INFO] Tests run: 3, Failures: 1, Errors: 0,
 * Skipped: 1` (the per-class lines carry `Time elapsed` and are not read), one per module, summed
 * (`spread`); `No tests to run.` is zero tests. `Tests run` includes the skipped. Failing names: the
 * `[ERROR]   Class.method:12 message` lines of the `Failures:` / `Errors:` lists.
 */
const surefire: Recogniser = (lines) => {
  let run = 0;
  let failed = 0;
  let skipped = 0;
  let last = -1;
  const names: string[] = [];
  let inList = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const result =
      /^\[(?:INFO|WARNING|ERROR)\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)$/.exec(
        line,
      );
    if (result !== null) {
      run += Number(result[1]);
      failed += Number(result[2]) + Number(result[3]);
      skipped += Number(result[4]);
      last = i;
      inList = false;
      continue;
    }
    if (/^\[INFO\] No tests to run\.$/.test(line)) {
      last = i;
      continue;
    }
    if (/^\[ERROR\] (?:Failures|Errors): $|^\[ERROR\] (?:Failures|Errors):$/.test(line)) {
      inList = true;
      continue;
    }
    if (inList) {
      const name = /^\[ERROR\] {2,3}(?:Run \d+: )?([\w$.]+?)(?::\d+)?(?: |»|$)/.exec(line);
      if (name !== null) names.push(name[1]!);
      else if (!/^\[ERROR\] {4,}/.test(line)) inList = false;
    }
  }
  if (last < 0) return [];
  return [
    summary({
      runner: "maven-surefire",
      passed: Math.max(0, run - skipped - failed),
      failed,
      skipped,
      failedNames: names,
      spread: true,
      line: last,
    }),
  ];
};

/**
 * Gradle's test task: it prints counts only when tests failed — `3 tests completed, 1 failed, 1 skipped`
 * (completed includes the skipped); a passing run prints none (read its JUnit XML reports instead, under
 * `build/test-results/`). Failing names: `Class > method FAILED` lines.
 */
const gradle: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(\d+) tests? completed, (\d+) failed(?:, (\d+) skipped)?$/.exec(lines[i]!);
    if (match === null) continue;
    const completed = Number(match[1]);
    const failed = Number(match[2]);
    const skipped = Number(match[3] ?? 0);
    found.push(
      summary({
        runner: "gradle",
        passed: Math.max(0, completed - failed - skipped),
        failed,
        skipped,
        failedNames: namesIn(lines, 0, i, /^(\S.* > .+) FAILED$/).filter((n) => n.length < 2000),
        spread: false,
        line: i,
      }),
    );
  }
  return found;
};

/**
 * RSpec: `12 examples, 1 failure, 2 pending` (and `, N errors occurred outside of examples`); pending
 * examples are counted in the examples and did not run. Failing names: the `rspec ./spec/x_spec.rb:4 #
 * description` lines of `Failed examples:`.
 */
const rspec: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const match =
      /^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?(?:, (\d+) errors? occurred outside of examples)?$/.exec(
        lines[i]!,
      );
    if (match === null) continue;
    const examples = Number(match[1]);
    const failed = Number(match[2]);
    const pending = Number(match[3] ?? 0);
    found.push(
      summary({
        runner: "rspec",
        passed: Math.max(0, examples - failed - pending),
        failed: failed + Number(match[4] ?? 0),
        skipped: pending,
        failedNames: namesIn(lines, i + 1, lines.length, /^rspec \S+ # (.+)$/).concat(
          namesIn(lines, previousEnd, i, /^rspec \S+ # (.+)$/),
        ),
        spread: false,
        line: i,
      }),
    );
    previousEnd = i + 1;
  }
  return found;
};

/**
 * PHPUnit (10, 11): `OK (3 tests, 5 assertions)`, or `Tests: 5, Assertions: 7, Errors: 1, Failures: 1,
 * Skipped: 1, Incomplete: 1.` (after `FAILURES!`, `ERRORS!` or `OK, but …`); `No tests executed!` is zero
 * tests. Tests include the skipped and incomplete. Failing names: the `1) Class::method` lines.
 */
const phpunit: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^No tests executed!$/.test(line)) {
      found.push(noTests("phpunit", i));
      previousEnd = i + 1;
      continue;
    }
    const ok = /^OK \((\d+) tests?, \d+ assertions?\)$/.exec(line);
    const mixed = /^Tests: (\d+), Assertions: \d+((?:, [A-Z][a-z]+(?: [A-Z][a-z]+)?: \d+)*)\.$/.exec(line);
    if (ok === null && mixed === null) continue;
    const fields = new Map<string, number>();
    for (const part of (mixed?.[2] ?? "").split(", ").filter((p) => p !== "")) {
      const [key, value] = part.split(": ");
      fields.set(key!, Number(value));
    }
    const tests = Number((ok ?? mixed)![1]);
    const failed = (fields.get("Errors") ?? 0) + (fields.get("Failures") ?? 0);
    const skipped = (fields.get("Skipped") ?? 0) + (fields.get("Incomplete") ?? 0);
    found.push(
      summary({
        runner: "phpunit",
        passed: Math.max(0, tests - failed - skipped),
        failed,
        skipped,
        failedNames: namesIn(lines, previousEnd, i, /^\d+\) (\S+::\S+?)(?: with data set .*)?$/),
        spread: false,
        line: i,
      }),
    );
    previousEnd = i + 1;
  }
  return found;
};

/**
 * `dotnet test`: one `Failed!  - Failed:     1, Passed:     2, Skipped:     1, Total:     4, Duration: …`
 * (or `Passed!`) line per test project, summed (`spread`); the .NET 8+ terminal logger's `Test summary:
 * total: 4, failed: 1, succeeded: 2, skipped: 1, duration: 1s`. Failing names: `  Failed Name [12 ms]`.
 */
const dotnetTest: Recogniser = (lines) => {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let last = -1;
  const found: RunnerSummary[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const project =
      /^(?:Passed|Failed)! +- Failed: +(\d+), Passed: +(\d+), Skipped: +(\d+), Total: +(\d+)/.exec(line);
    if (project !== null) {
      failed += Number(project[1]);
      passed += Number(project[2]);
      skipped += Number(project[3]);
      last = i;
      continue;
    }
    const terminal =
      /^Test summary: total: (\d+), failed: (\d+), succeeded: (\d+), skipped: (\d+), duration: /.exec(line);
    if (terminal !== null) {
      found.push(
        summary({
          runner: "dotnet test",
          passed: Number(terminal[3]),
          failed: Number(terminal[2]),
          skipped: Number(terminal[4]),
          failedNames: namesIn(lines, 0, i, /^\s+Failed (\S+) \[/),
          spread: false,
          line: i,
        }),
      );
    }
  }
  if (last >= 0) {
    found.push(
      summary({
        runner: "dotnet test",
        passed,
        failed,
        skipped,
        failedNames: namesIn(lines, 0, last, /^\s+Failed (\S+) \[/),
        spread: true,
        line: last,
      }),
    );
  }
  return found;
};

/** Every recogniser, in the order their summaries are listed. */
const RECOGNISERS: readonly Recogniser[] = [
  nodeTest,
  vitest,
  jest,
  mocha,
  ava,
  pytest,
  goTest,
  cargoTest,
  surefire,
  gradle,
  rspec,
  phpunit,
  dotnetTest,
];
