import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decideReceipt } from "../../src/evidence/test-receipt.js";
import { readJUnitXml, readTap, readTestReport } from "../../src/evidence/test-reports.js";

/** Report files a verify command writes (issue 25 item 1): JUnit XML and TAP, from real runs where possible. */
const FIXTURES = join(import.meta.dirname, "../fixtures/receipts");
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), "utf8");

describe("JUnit XML", () => {
  it("node --test --test-reporter=junit (node 20.20.2)", () => {
    expect(readTestReport(fixture("node-junit.xml"))).toEqual({
      ok: true,
      counts: {
        format: "junit-xml",
        passed: 1,
        failed: 1,
        skipped: 1,
        failedNames: ["test.subtracts numbers"],
        failedNamed: 1,
      },
    });
  });

  it("pytest --junitxml (pytest 9.0.3)", () => {
    expect(readTestReport(fixture("pytest-junit.xml"))).toEqual({
      ok: true,
      counts: {
        format: "junit-xml",
        passed: 1,
        failed: 1,
        skipped: 1,
        failedNames: ["test_math.test_subtracts"],
        failedNamed: 1,
      },
    });
  });

  it("nested suites, <error>, and a report of suites' attributes only (Surefire's TEST-*.xml shape)", () => {
    const nested = `<testsuites><testsuite name="a"><testsuite name="b"><testcase name="x"/><testcase classname="C" name="y"><error message="boom"/></testcase></testsuite></testsuite></testsuites>`;
    expect(readJUnitXml(nested)).toMatchObject({
      ok: true,
      counts: { passed: 1, failed: 1, failedNames: ["C.y"] },
    });
    const attributes = `<?xml version="1.0"?><testsuite name="s" tests="5" failures="1" errors="1" skipped="1"></testsuite>`;
    expect(readJUnitXml(attributes)).toMatchObject({
      ok: true,
      counts: { passed: 2, failed: 2, skipped: 1 },
    });
    expect(readJUnitXml(`<testsuites></testsuites>`)).toMatchObject({ ok: false });
  });

  it("refuses a DOCTYPE, malformed XML and a file that is not a report", () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaa">]><testsuite tests="1"><testcase name="&a;"/></testsuite>`;
    expect(readJUnitXml(bomb)).toEqual({
      ok: false,
      reason: "a JUnit XML report with a DOCTYPE is not read",
    });
    expect(readJUnitXml(`<testsuite><testcase name="x"></testsuite>`)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^not well-formed XML/),
    });
    expect(readJUnitXml(`<html><body/></html>`)).toMatchObject({ ok: false });
  });
});

describe("TAP", () => {
  it("node --test --test-reporter=tap (node 20.20.2)", () => {
    expect(readTestReport(fixture("node-report.tap"))).toEqual({
      ok: true,
      counts: {
        format: "tap",
        passed: 1,
        failed: 1,
        skipped: 1,
        failedNames: ["subtracts numbers"],
        failedNamed: 1,
      },
    });
  });

  it("a plan the test lines do not reach, a bail-out, and no plan are no reading", () => {
    expect(readTap("1..3\nok 1 - a\nok 2 - b\n")).toEqual({
      ok: false,
      reason: "the TAP plan says 3 tests and 2 were reported",
    });
    expect(readTap("1..2\nok 1\nBail out! db down\n")).toMatchObject({ ok: false });
    expect(readTap("ok 1 - a\n")).toMatchObject({ ok: false });
    expect(readTap("TAP version 14\n1..0 # no tests\n")).toMatchObject({
      ok: true,
      counts: { passed: 0, failed: 0 },
    });
  });
});

describe("the receipt of a verify with test-reports", () => {
  const noOutput = { head: "", tail: "", droppedBytes: 0 };

  it("reports read win over the output, and are summed", () => {
    const receipt = decideReceipt(noOutput, {
      patterns: ["reports/*.xml"],
      files: [
        { path: "reports/a.xml", reading: readJUnitXml(fixture("pytest-junit.xml")) },
        { path: "reports/b.tap", reading: readTap(fixture("node-report.tap")) },
      ],
      passedOver: [],
    });
    expect(receipt).toMatchObject({
      kind: "counts",
      source: "reports",
      runners: ["junit-xml", "tap"],
      files: ["reports/a.xml", "reports/b.tap"],
      ran: 4,
      failed: 2,
    });
  });

  it("an unreadable report is no receipt; no report written falls back to the output", () => {
    expect(
      decideReceipt(noOutput, {
        patterns: ["r.xml"],
        files: [{ path: "r.xml", reading: readJUnitXml("<x") }],
        passedOver: [],
      }),
    ).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/^test report r\.xml: not well-formed XML/),
    });
    const fromOutput = decideReceipt(
      { head: fixture("node-one.txt"), tail: "", droppedBytes: 0 },
      { patterns: ["r.xml"], files: [], passedOver: [] },
    );
    expect(fromOutput).toMatchObject({ kind: "counts", source: "output", ran: 1 });
    expect(
      decideReceipt(noOutput, {
        patterns: ["r.xml"],
        files: [],
        passedOver: [{ path: "r.xml", reason: "older than the command" }],
      }),
    ).toEqual({
      kind: "none",
      reason:
        "no report file the command wrote matched test-reports (r.xml); passed over r.xml: older than the command, and no test runner's summary was recognised in the output",
    });
  });
});

describe("finding the report files (test-report-files.ts)", () => {
  it("reads a fresh file the pattern matches; passes over a symbolic link and a stale file; never leaves the folder", async () => {
    const { mkdtemp, mkdir, writeFile, symlink, utimes, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { readTestReportFiles } = await import("../../src/evidence/test-report-files.js");
    const root = await mkdtemp(join(tmpdir(), "eg-reports-"));
    try {
      const dir = join(root, "repo");
      await mkdir(join(dir, "reports/nested"), { recursive: true });
      await mkdir(join(root, "outside"));
      await writeFile(join(root, "outside/secret.xml"), fixture("pytest-junit.xml"));
      const started = Date.now();
      await writeFile(join(dir, "reports/nested/a.xml"), fixture("node-junit.xml"));
      await writeFile(join(dir, "reports/old.xml"), fixture("node-junit.xml"));
      await utimes(join(dir, "reports/old.xml"), new Date(started - 60_000), new Date(started - 60_000));
      await symlink(join(root, "outside/secret.xml"), join(dir, "reports/link.xml"));
      await symlink(join(root, "outside"), join(dir, "out"));
      const read = await readTestReportFiles(dir, ["reports/**/*.xml", "out/*.xml"], started);
      expect(read.files.map((f) => f.path)).toEqual(["reports/nested/a.xml"]);
      expect(read.passedOver).toEqual([
        { path: "reports/link.xml", reason: "a symbolic link (not followed)" },
        { path: "reports/old.xml", reason: "older than the verify command (not written by it)" },
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("misreadings a code review found (each failed before its fix)", () => {
  it("JUnit: a suite's errors beyond its test cases count once any <testcase> exists (a suite that failed to load)", () => {
    const xml =
      '<testsuites><testsuite name="a" tests="2"><testcase name="x"/><testcase name="y"/></testsuite><testsuite name="b" tests="0" errors="1"/></testsuites>';
    expect(readJUnitXml(xml)).toEqual({
      ok: true,
      counts: { format: "junit-xml", passed: 2, failed: 1, skipped: 0, failedNames: [], failedNamed: 1 },
    });
    const receipt = decideReceipt(
      { head: "", tail: "", droppedBytes: 0 },
      { patterns: ["r.xml"], files: [{ path: "r.xml", reading: readJUnitXml(xml) }], passedOver: [] },
    );
    expect(receipt).toMatchObject({ kind: "counts", failed: 1, failedNamesComplete: false });
    // Aggregated attributes that the cases already show add nothing (node's and pytest's real reports).
    expect(readJUnitXml(fixture("pytest-junit.xml"))).toMatchObject({ ok: true, counts: { failed: 1 } });
  });

  it("a report search that stopped early (too deep, too many files) is recorded, and makes no receipt", async () => {
    const { mkdtemp, mkdir, writeFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { readTestReportFiles, MAX_REPORT_FILES, MAX_DEPTH } = await import(
      "../../src/evidence/test-report-files.js"
    );
    const root = await mkdtemp(join(tmpdir(), "eg-reports-cut-"));
    try {
      const started = Date.now();
      const deep = join(root, "deep", ...Array.from({ length: MAX_DEPTH + 2 }, (_, i) => `d${i}`));
      await mkdir(deep, { recursive: true });
      await writeFile(join(root, "deep/a.xml"), fixture("node-junit.xml"));
      await writeFile(join(deep, "b.xml"), fixture("node-junit.xml"));
      const read = await readTestReportFiles(root, ["deep/**/*.xml"], started);
      expect(read.truncated).toMatch(/deeper than 16 folders/);
      expect(decideReceipt({ head: "", tail: "", droppedBytes: 0 }, read)).toEqual({
        kind: "none",
        reason: expect.stringMatching(
          /^the search for test report files \(deep\/\*\*\/\*\.xml\) stopped early: /,
        ),
      });

      await mkdir(join(root, "many"));
      for (let i = 0; i <= MAX_REPORT_FILES; i++) {
        await writeFile(join(root, `many/r${String(i).padStart(3, "0")}.xml`), fixture("node-junit.xml"));
      }
      const many = await readTestReportFiles(root, ["many/*.xml"], started);
      expect(many.files).toHaveLength(MAX_REPORT_FILES);
      expect(many.truncated).toBe(`${MAX_REPORT_FILES} report files matched, the most read`);

      // A pattern without ** does not walk deeper than it can match: a deep tree beside it is no truncation.
      const shallow = await readTestReportFiles(root, ["deep/*.xml"], started);
      expect(shallow.truncated).toBeUndefined();
      expect(shallow.files.map((f) => f.path)).toEqual(["deep/a.xml"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
