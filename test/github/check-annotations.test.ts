/**
 * Failure annotations from a finished ledger (SPEC §6): where a failed execution's output names a file of
 * the repository (the forms compilers and test runners print), else the workflow file. Real files in a
 * temp directory decide what "a file of the repository" is.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LedgerRow } from "../../src/core/ledger-row.js";
import {
  failureAnnotations,
  MAX_LOCATIONS_PER_ROW,
  namedLocations,
  workflowFileFromEnv,
} from "../../src/github/check-annotations.js";
import { fail, fixtureLedger, NONE_DETECTED, pass, verifyEvidence } from "../ledger/fixtures.js";

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "eg-annotations-"));
  for (const file of [
    "src/sum.ts",
    "src/Sum.cs",
    "test/sum.test.js",
    "app/main.py",
    "node_modules/x/index.js",
  ]) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "x\n");
  }
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function ledgerOf(rows: LedgerRow[]) {
  return fixtureLedger({
    runId: "20250311-093000-a1b2c3",
    runtime: "claude",
    goal: "g",
    buildEvidence: NONE_DETECTED,
    nodes: [...new Set(rows.map((r) => r.nodeId))].map((id) => ({
      id,
      dependsOn: [],
      allowedTools: ["Read"],
      sink: true,
    })),
    rows,
    planningCalls: [],
    evidenceTree: null,
  });
}

function verifyFailed(nodeId: string, outputTail: string, cwd = root): LedgerRow {
  return fail(nodeId, {
    cause: "verify_failed",
    verify: verifyEvidence({ cwd, exitCode: 1, outcome: "failed", outputTail }),
  });
}

const WORKFLOW = ".github/workflows/gate.yml";

describe("namedLocations: the forms compilers and test runners print", () => {
  it.each([
    ["src/sum.ts:12:5 - error TS2322: Type 'string' is not assignable", "src/sum.ts", 12, 5],
    ["src/sum.ts(12,5): error TS2322: Type 'string'", "src/sum.ts", 12, 5],
    ["src/Sum.cs(3,17): error CS1002: ; expected", "src/Sum.cs", 3, 17],
    ["    at Object.<anonymous> (/w/repo/test/sum.test.js:7:20)", "/w/repo/test/sum.test.js", 7, 20],
    [" ❯ test/sum.test.js:7:20", "test/sum.test.js", 7, 20],
    [
      "    at TestContext.<anonymous> (file:///w/repo/test/sum.test.js:5:10)",
      "/w/repo/test/sum.test.js",
      5,
      10,
    ],
    ["  --> src/main.rs:3:9", "src/main.rs", 3, 9],
    ["./pkg/x.go:14: undefined: y", "./pkg/x.go", 14, undefined],
    ['  File "app/main.py", line 8, in <module>', "app/main.py", 8, undefined],
    ["\u001b[31msrc/sum.ts:2:1\u001b[39m error", "src/sum.ts", 2, 1],
  ])("%j → %s line %i column %s", (text, path, line, column) => {
    const [first] = namedLocations(text);
    expect(first).toMatchObject({ path, line });
    expect(first?.column).toBe(column);
  });

  it.each([
    "GET http://localhost:3000/app.js:1:2 failed",
    "at node:internal/modules/cjs/loader:1:2",
    "version 1.2.3:4",
    "Tests: 3 failed, 2 passed",
  ])("%j names no file", (text) => {
    expect(namedLocations(text)).toEqual([]);
  });
});

describe("failureAnnotations", () => {
  it("a failed verify is marked where its output names files of the repository, relative to the checkout", () => {
    const output = [
      "FAIL test/sum.test.js > sum > adds",
      "AssertionError: expected 5 to be 4",
      ` ❯ test/sum.test.js:7:20`,
      `    at add (${root}/src/sum.ts:3:10)`,
      `    at run (${root}/node_modules/x/index.js:1:1)`,
      "    at /elsewhere/outside.js:1:1",
      " ❯ test/missing.test.js:1:1",
      " ❯ test/sum.test.js:7:20",
    ].join("\n");
    const annotations = failureAnnotations(ledgerOf([verifyFailed("check", output)]), {
      repoRoot: root,
      workflowFile: WORKFLOW,
    });
    expect(annotations.map((a) => [a.path, a.startLine, a.startColumn])).toEqual([
      ["test/sum.test.js", 7, 20],
      ["src/sum.ts", 3, 10],
    ]);
    expect(annotations[0]).toMatchObject({
      level: "failure",
      title: "evidence-gate: check failed: verify command `npm test` exited 1 (expected 0)",
      message: expect.stringContaining("❯ test/sum.test.js:7:20"),
      rawDetails: expect.stringContaining("AssertionError"),
    });
  });

  it("relative paths are read from the verify command's working directory", () => {
    const annotations = failureAnnotations(
      ledgerOf([verifyFailed("check", "sum.ts(4,1): error", join(root, "src"))]),
      {
        repoRoot: root,
        workflowFile: WORKFLOW,
      },
    );
    expect(annotations.map((a) => [a.path, a.startLine])).toEqual([["src/sum.ts", 4]]);
  });

  it("an output that names no file of the repository marks the workflow file, line 1", () => {
    const rows = [
      verifyFailed("check", "npm ERR! missing script: test"),
      fail("review", { cause: "timeout", detail: "timed out after 10m" }),
    ];
    const annotations = failureAnnotations(ledgerOf(rows), { repoRoot: root, workflowFile: WORKFLOW });
    expect(annotations.map((a) => [a.path, a.startLine, a.title])).toEqual([
      [WORKFLOW, 1, "evidence-gate: check failed: verify command `npm test` exited 1 (expected 0)"],
      [WORKFLOW, 1, "evidence-gate: review failed (timeout)"],
    ]);
    expect(failureAnnotations(ledgerOf(rows), { repoRoot: root, workflowFile: null })).toEqual([]);
  });

  it("a run without failures has none; a superseded FAIL replaced by a later PASS has none", () => {
    expect(failureAnnotations(ledgerOf([pass("a")]), { repoRoot: root, workflowFile: WORKFLOW })).toEqual([]);
    const retried = [{ ...verifyFailed("a", "src/sum.ts:1:1"), superseded: true } as LedgerRow, pass("a")];
    expect(failureAnnotations(ledgerOf(retried), { repoRoot: root, workflowFile: WORKFLOW })).toEqual([]);
  });

  it(`at most ${MAX_LOCATIONS_PER_ROW} lines per failed execution`, () => {
    const output = Array.from({ length: 30 }, (_, i) => `src/sum.ts:${i + 1}:1 error`).join("\n");
    const annotations = failureAnnotations(ledgerOf([verifyFailed("check", output)]), {
      repoRoot: root,
      workflowFile: WORKFLOW,
    });
    expect(annotations.map((a) => a.startLine)).toEqual(
      Array.from({ length: MAX_LOCATIONS_PER_ROW }, (_, i) => i + 1),
    );
  });
});

describe("workflowFileFromEnv", () => {
  it("reads GITHUB_WORKFLOW_REF", () => {
    expect(
      workflowFileFromEnv({
        GITHUB_WORKFLOW_REF: "octo-org/widgets/.github/workflows/gate.yml@refs/pull/42/merge",
      }),
    ).toBe(".github/workflows/gate.yml");
    expect(workflowFileFromEnv({})).toBeNull();
    expect(workflowFileFromEnv({ GITHUB_WORKFLOW_REF: "something else" })).toBeNull();
  });
});
