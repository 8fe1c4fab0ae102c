/**
 * End-to-end: a verify that passes only because of a git-ignored file is not `success` (ADR 0003,
 * amendment 2026-11-29), nor one that passes because a node changed what the verify command runs (the
 * `package.json` test script, rule `verify-definition-changed`). The CLI runs in-process against a real
 * git repository, the real pinned `claude` CLI (whose Edit/Write tools really change the files) and the
 * scripted model server. That ignored files present and untouched leave a verified fix success is
 * asserted on the `--commit` run of test/e2e/cli-auto.test.ts; a node writing a new ignored file the build
 * uses, on the last run of test/cli/guards.test.ts (and the detection of added, modified and removed
 * ignored files in test/evidence/ignored-files.test.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCliLedger } from "../../src/cli/ledger-command.js";
import type { LedgerRow } from "../../src/core/ledger-row.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { checkRunsOf, cliHarness } from "../support/cli-harness.js";
import {
  IGNORED_GOAL,
  makeRunnerRepo,
  RUNNER_PATH,
  RUNNER_SOURCE,
  runnerEditScript,
  SCRIPT_MARKS,
  scriptEditScript,
} from "../support/scenarios/ignored-edit.js";
import { verifyOutcome } from "../support/verify-outcome.js";

const npmTest = (dir: string) => verifyOutcome(dir);

function row(ledger: Ledger, nodeId: string): LedgerRow {
  const found = ledger.rows.find((r) => r.nodeId === nodeId);
  if (found === undefined) throw new Error(`no row for ${nodeId}`);
  return found;
}

describe("a verify that passes on changed git-ignored files is not success", () => {
  test("a node edits the gitignored test runner in node_modules through the real Edit tool: npm test passes, the evidence tree is the commit's, and the conclusion is action_required naming the file (exit 4)", async () => {
    const h = await cliHarness({
      makeRepo: makeRunnerRepo,
      script: (repo) => runnerEditScript({ repoDir: repo.dir }),
    });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    const startTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);
    // The commit is broken: as checked out (with its installed runner), npm test fails.
    expect(await npmTest(h.repo.dir)).toBe("failed");

    const r = await h.run(["--verify-cmd", "npm test"], { goal: IGNORED_GOAL });

    expect(r.exitCode, r.stderr).toBe(4);
    // The edit really happened, through the CLI, to an ignored file.
    expect(await h.repo.read(RUNNER_PATH)).toBe(RUNNER_SOURCE.replace("process.exit(1)", "process.exit(0)"));
    expect(await h.repo.git(["status", "--porcelain"])).toBe("");
    expect(h.server.requests.filter((q) => q.conversation === "tamper").map((q) => q.step)).toEqual([
      0, 1, 2,
    ]);

    const ledger = r.ledger!;
    const tamper = row(ledger, "tamper");
    expect(tamper.verdict === "PASS" && tamper.qualifier).toBe("verified");
    expect(tamper.verify).toMatchObject({
      outcome: "passed",
      evidenceTree: startTree,
      ignoredFiles: "changed",
      ignoredFilesChanges: { total: 1, examples: [{ path: RUNNER_PATH, change: "modified" }] },
    });
    expect(ledger.evidenceTree).toBe(startTree);
    expect(ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-ignored-files-changed",
    });
    expect(ledger.conclusion?.reason).toContain(RUNNER_PATH);
    expect(ledger.conclusion?.reason).toContain("git-ignored files that are on no commit");
    expect(r.stdout).toMatch(/^tamper +PASS \(verified\) .*git-ignored files changed since the run started/m);
    expect(r.summary).toContain("node\\_modules/fake-runner/cli.js (modified)");

    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["action_required"]],
    ]);
  });
});

describe("a verify that passes because the nodes changed what it runs is not success", () => {
  test('a node edits package.json\'s test script to "true" through the real Edit tool: auto --verify-cmd "npm test" --commit passes the verify, ends action_required naming scripts.test, and commits nothing', async () => {
    const h = await cliHarness({ script: (repo) => scriptEditScript({ repoDir: repo.dir }) });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    expect(await npmTest(h.repo.dir)).toBe("failed");

    const r = await h.run(["--verify-cmd", "npm test", "--commit"], { goal: `${SCRIPT_MARKS.plannerGoal}.` });

    expect(r.exitCode, r.stderr).toBe(4);
    // The edit really happened, in a tracked file, and the disabled script passes.
    expect(JSON.parse(await h.repo.read("package.json")).scripts).toEqual({ test: "true" });
    expect(await npmTest(h.repo.dir)).toBe("passed");
    const ledger = r.ledger!;
    const disable = row(ledger, "disable");
    expect(disable.verdict === "PASS" && disable.qualifier).toBe("verified");
    expect(ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verify-definition-changed",
    });
    expect(ledger.conclusion?.reason).toContain("package.json: scripts.test changed");
    expect(ledger.changedFiles).toEqual({
      total: 1,
      counts: { added: 0, modified: 1, deleted: 0, renamed: 0 },
      files: [{ path: "package.json", status: "modified" }],
      verifyDefinition: [
        {
          path: "package.json",
          kind: "package-scripts",
          detail: "scripts.test changed",
          keys: ["scripts.test"],
        },
      ],
      flaggedTotal: 1,
    });
    // --commit committed nothing: HEAD is the start, the change is in patch.diff and says why.
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(await h.repo.git(["status", "--porcelain"])).toBe(" M package.json");
    expect(ledger.postedCommit).toBeUndefined();
    expect(ledger.patch?.notCommittedBecause).toBe("its evidence would end action_required");
    expect(existsSync(join(r.runDir!, "patch.diff"))).toBe(true);
    // Every rendering names the file and the key: the text ledger, the job summary, ledger RUN_ID.
    expect(r.stdout).toContain("! modified  package.json — scripts.test changed");
    expect(r.summary).toContain("- ⚠️ `package.json` (modified) — scripts.test changed");
    let saved = "";
    const code = await runCliLedger([ledger.runId, "--repo", h.repo.dir], {
      cwd: h.scratch,
      env: h.baseEnv(),
      out: { write: (t: string) => (saved += t) },
      err: { write: () => true },
    });
    expect(code).toBe(0);
    expect(saved).toContain("! modified  package.json — scripts.test changed");
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["action_required"]],
    ]);
  });
});
