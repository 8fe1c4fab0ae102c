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
  readonly passed: number;
  readonly failed: number;
  /** Skipped, pending, todo, ignored: tests that did not run (and so are not evidence). */
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

/** A recogniser: every summary of its runner found in `lines`. */
type Recogniser = (lines: readonly string[]) => RunnerSummary[];

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
  return RECOGNISERS.flatMap((recognise) => recognise(lines));
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
 * Vitest: `Tests  1 failed | 2 passed | 1 skipped (4)` right after a `Test Files` line; `No test files
 * found, exiting with code N` is zero tests. Failing names: ` FAIL  file > name` lines before it.
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
    if (match === null || !/^\s*Test Files {2}/.test(lines[i - 1] ?? "")) continue;
    const counts = countWords(match[1]!, "|", VITEST_WORDS);
    if (counts === null) continue;
    found.push(
      summary({
        runner: "vitest",
        passed: (counts.get("passed") ?? 0) + (counts.get("expected fail") ?? 0),
        failed: counts.get("failed") ?? 0,
        skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
        failedNames: namesIn(lines, previousEnd, i, /^\s*FAIL {2}(.+?)\s*$/),
        spread: false,
        line: i,
      }),
    );
    previousEnd = i + 1;
  }
  return found;
};

const JEST_WORDS = new Set(["passed", "failed", "skipped", "todo", "total"]);

/**
 * Jest: `Tests:       1 failed, 1 skipped, 1 passed, 3 total`; `No tests found, exiting with code N` is
 * zero tests. Failing names: the `● name` headings before it (not `● Test suite failed to run`).
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
    found.push(
      summary({
        runner: "jest",
        passed: counts.get("passed") ?? 0,
        failed: counts.get("failed") ?? 0,
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
    const passing = /^ {2}(\d+) passing \(\d+(?:ms|s|m)\)$/.exec(lines[i]!);
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
 * AVA (default reporter): the closing block of `N tests passed` / `N tests failed` / `N known failure` /
 * `N tests skipped` / `N tests todo` lines; `Couldn’t find any files to test` is zero tests. When tests
 * failed AVA prints no passed count: it is then the number of `✔` lines (a tally: `spread`). Failing
 * names: `✘ [fail]: name` lines.
 */
const ava: Recogniser = (lines) => {
  const found: RunnerSummary[] = [];
  const counts = new Map<string, number>();
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*✘ Couldn[’']t find any files to test$/.test(lines[i]!)) found.push(noTests("ava", i));
    const match = /^ {2}(\d+) (?:tests? (passed|failed|skipped|todo)|(known failures?))$/.exec(lines[i]!);
    if (match === null) continue;
    const word = match[2] ?? "known failure";
    counts.set(word, (counts.get(word) ?? 0) + Number(match[1]));
    last = i;
  }
  if (last < 0) return found;
  const failed = counts.get("failed") ?? 0;
  const tallied = !counts.has("passed") && failed > 0;
  const passed = tallied
    ? lines.filter((line) => /^\s*✔ /.test(line)).length
    : (counts.get("passed") ?? 0) + (counts.get("known failure") ?? 0);
  found.push(
    summary({
      runner: "ava",
      passed,
      failed,
      skipped: (counts.get("skipped") ?? 0) + (counts.get("todo") ?? 0),
      failedNames: namesIn(lines, 0, last, /^\s*✘ \[fail\]: (.+?)(?: Error thrown in test)?$/),
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
 * subtest (a tally: `spread`). Without `-v` go prints one line per package and no counts: then only a
 * run whose every package says `[no test files]` or `[no tests to run]` is read (zero tests); otherwise
 * nothing is.
 */
const goTest: Recogniser = (lines) => {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names: string[] = [];
  let last = -1;
  let packages = 0;
  let packagesWithoutTests = 0;
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
      last = i;
      continue;
    }
    const pkg = /^(ok|FAIL|\?) +\t?(\S+)\t(.*)$/.exec(line);
    if (pkg === null) continue;
    packages++;
    if (/\[no test files\]|\[no tests to run\]/.test(pkg[3]!)) packagesWithoutTests++;
    last = i;
  }
  if (last < 0) return [];
  if (passed + failed + skipped === 0 && (packages === 0 || packagesWithoutTests < packages)) return [];
  return [
    summary({ runner: "go test", passed, failed, skipped, failedNames: names, spread: true, line: last }),
  ];
};

/**
 * `cargo test`: one `test result: ok. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out` per test
 * binary and doc-test run, summed (`spread`); cargo-nextest's `Summary [ 0.01s] 3 tests run: 2 passed,
 * 1 failed, 0 skipped` line. Failing names: `test name ... FAILED` lines (nextest: `FAIL [ 0.01s] name`).
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
    const nextest =
      /^\s*Summary \[\s*\d+(?:\.\d+)?s\] (\d+) tests? run: (\d+) passed(?: \(\d+ slow\))?, (\d+) failed(?:, (\d+) skipped)?/.exec(
        lines[i]!,
      );
    if (nextest !== null) {
      found.push(
        summary({
          runner: "cargo-nextest",
          passed: Number(nextest[2]),
          failed: Number(nextest[3]),
          skipped: Number(nextest[4] ?? 0),
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
