/**
 * Test report files a verify command writes (issue 25 item 1; SPEC §7b): JUnit XML (the format pytest's
 * `--junitxml`, node's `--test-reporter=junit`, Maven Surefire, Gradle, jest-junit, vitest's `junit`
 * reporter, go-junit-report, cargo-nextest and `dotnet test --logger junit` write) and TAP (13 and 14).
 * Pure: a file's text in, its counts out, or why it could not be read — never a guess.
 *
 * JUnit XML is parsed with `fast-xml-parser` (a dependency of `@actions/artifact`'s Azure XML layer,
 * pinned as our own), after refusing any DOCTYPE (a JUnit report needs none, and a DTD is where entity
 * expansion lives). Counts come from the `<testcase>` elements (failure / error / skipped children);
 * a report with no `<testcase>` falls back to its suites' `tests` / `failures` / `errors` / `skipped`
 * attributes. A suite whose `failures` + `errors` attributes say more than its test cases show (an error
 * outside any test: a suite that failed to load, a failing setup) adds the difference as failed.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { RECEIPT_MAX_NAMES } from "../core/ledger-row.js";

/** The counts of one report file (or of several, summed). `ran` is `passed + failed`. */
export interface ReportCounts {
  readonly format: "junit-xml" | "tap";
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Failing tests' names (`classname.name` for JUnit, the description for TAP); at most {@link RECEIPT_MAX_NAMES}. */
  readonly failedNames: readonly string[];
  /** How many failing tests there were in all (the names may be fewer). */
  readonly failedNamed: number;
}

/** A report file read, or why not. */
export type ReportReading =
  | { readonly ok: true; readonly counts: ReportCounts }
  | { readonly ok: false; readonly reason: string };

/** Reads one report: JUnit XML when it starts with `<` (after a BOM and blanks), else TAP. */
export function readTestReport(text: string): ReportReading {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  return body.startsWith("<") ? readJUnitXml(body) : readTap(body);
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => name === "testsuite" || name === "testcase" || name === "testsuites",
});

type XmlNode = Record<string, unknown>;

/** Parses a JUnit XML report (the common subset every writer above shares). */
export function readJUnitXml(text: string): ReportReading {
  if (/<!DOCTYPE/i.test(text)) return { ok: false, reason: "a JUnit XML report with a DOCTYPE is not read" };
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    return { ok: false, reason: `not well-formed XML (line ${valid.err.line}: ${valid.err.msg})` };
  }
  let root: XmlNode;
  try {
    root = parser.parse(text) as XmlNode;
  } catch (error) {
    return {
      ok: false,
      reason: `not readable XML: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const suites = [...children(root, "testsuites"), ...children(root, "testsuite")];
  if (suites.length === 0) return { ok: false, reason: "no <testsuites> or <testsuite> element" };
  const tally = { passed: 0, failed: 0, skipped: 0, names: [] as string[], cases: 0 };
  for (const suite of suites) countCases(suite, tally);
  if (tally.cases > 0) {
    // Suite-level failures no test case carries (their names are unknown).
    tally.failed += suites.reduce((sum, suite) => sum + unshownFailures(suite).extra, 0);
    return {
      ok: true,
      counts: {
        format: "junit-xml",
        passed: tally.passed,
        failed: tally.failed,
        skipped: tally.skipped,
        failedNames: [...new Set(tally.names)].slice(0, RECEIPT_MAX_NAMES),
        failedNamed: tally.failed,
      },
    };
  }
  return suiteAttributes(suites);
}

/** The child elements named `name` of `node` (always a list). */
function children(node: XmlNode, name: string): XmlNode[] {
  const value = node[name];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  // An empty element parses to "" (no attributes, no children): an element all the same.
  return list.map((item) => (typeof item === "object" && item !== null ? (item as XmlNode) : {}));
}

/** Counts every `<testcase>` under `node` (nested suites included). */
function countCases(
  node: XmlNode,
  tally: { passed: number; failed: number; skipped: number; names: string[]; cases: number },
): void {
  for (const testCase of children(node, "testcase")) {
    tally.cases++;
    if ("failure" in testCase || "error" in testCase) {
      tally.failed++;
      const name = attribute(testCase, "name") ?? "(unnamed)";
      const className = attribute(testCase, "classname");
      tally.names.push(className !== undefined && className !== "" ? `${className}.${name}` : name);
    } else if ("skipped" in testCase) {
      tally.skipped++;
    } else {
      tally.passed++;
    }
  }
  for (const nested of [...children(node, "testsuite"), ...children(node, "testsuites")]) {
    countCases(nested, tally);
  }
}

/**
 * The failures `node`'s `failures` + `errors` attributes declare beyond the failing test cases under it
 * (`extra`), and all its failures (`total`: cases, nested suites' extra, and its own extra). An absent or
 * unreadable attribute declares nothing.
 */
function unshownFailures(node: XmlNode): { readonly total: number; readonly extra: number } {
  let total = children(node, "testcase").filter((c) => "failure" in c || "error" in c).length;
  let extra = 0;
  for (const nested of [...children(node, "testsuite"), ...children(node, "testsuites")]) {
    const inner = unshownFailures(nested);
    total += inner.total;
    extra += inner.extra;
  }
  const declared = ["failures", "errors"].reduce((sum, name) => {
    const value = attribute(node, name);
    return sum + (value !== undefined && /^\d+$/.test(value) ? Number(value) : 0);
  }, 0);
  const own = Math.max(0, declared - total);
  return { total: total + own, extra: extra + own };
}

function attribute(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === "string" ? value : undefined;
}

/** A report without `<testcase>` elements: its top suites' count attributes, or no reading when absent. */
function suiteAttributes(suites: readonly XmlNode[]): ReportReading {
  let tests = 0;
  let failed = 0;
  let skipped = 0;
  for (const suite of suites) {
    const count = (name: string): number | null => {
      const value = attribute(suite, name);
      if (value === undefined) return 0;
      return /^\d+$/.test(value) ? Number(value) : null;
    };
    const values = [count("tests"), count("failures"), count("errors"), count("skipped"), count("disabled")];
    if (values.some((value) => value === null) || attribute(suite, "tests") === undefined) {
      return { ok: false, reason: "no <testcase> element and no readable tests attribute" };
    }
    const [t, f, e, s, d] = values as number[];
    tests += t!;
    failed += f! + e!;
    skipped += s! + d!;
  }
  return {
    ok: true,
    counts: {
      format: "junit-xml",
      passed: Math.max(0, tests - failed - skipped),
      failed,
      skipped,
      failedNames: [],
      failedNamed: 0,
    },
  };
}

/**
 * Parses a TAP stream (13 or 14): top-level `ok` / `not ok` lines (indented subtests are the parent's
 * business); `# SKIP` counts as skipped and `# TODO` as skipped (a todo's failure does not count); a
 * plan `1..N` that the test lines do not reach, or a `Bail out!`, makes the stream incomplete: no reading.
 */
export function readTap(text: string): ReportReading {
  let planned: number | null = null;
  let seen = 0;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (/^Bail out!/.test(line)) return { ok: false, reason: "the TAP stream bailed out" };
    const plan = /^1\.\.(\d+)(?:\s*#.*)?$/.exec(line);
    if (plan !== null) {
      planned = Number(plan[1]);
      continue;
    }
    const test = /^(not )?ok\b(?: (\d+))?(?: -)?(?: ([^#]*?))?\s*(?:# *(skip|todo)\S*.*)?$/i.exec(line);
    if (test === null) continue;
    seen++;
    const directive = test[4]?.toLowerCase();
    if (directive !== undefined) skipped++;
    else if (test[1] !== undefined) {
      failed++;
      names.push((test[3] ?? "").trim() || `test ${test[2] ?? seen}`);
    } else passed++;
  }
  if (planned === null) {
    if (seen === 0) return { ok: false, reason: "no TAP plan and no test line" };
    return { ok: false, reason: "the TAP stream has no plan (1..N): it may be cut off" };
  }
  if (seen !== planned) {
    return { ok: false, reason: `the TAP plan says ${planned} tests and ${seen} were reported` };
  }
  return {
    ok: true,
    counts: {
      format: "tap",
      passed,
      failed,
      skipped,
      failedNames: [...new Set(names)].slice(0, RECEIPT_MAX_NAMES),
      failedNamed: failed,
    },
  };
}
