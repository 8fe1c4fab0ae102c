/**
 * End-to-end: a verify that passes only because of a git-ignored file is not `success` (ADR 0003,
 * amendment 2026-11-29). The CLI runs in-process against a real git repository, the real pinned `claude`
 * CLI (whose Edit/Write tools really change the ignored file) and the scripted model server.
 */
import { describe, expect, test } from "vitest";
import type { LedgerRow } from "../../src/core/ledger-row.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { checkRunsOf, cliHarness } from "../support/cli-harness.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";
import {
  CONFIG_PATH,
  configWriteScript,
  IGNORED_GOAL,
  makeConfigRepo,
  makeRunnerRepo,
  RUNNER_PATH,
  RUNNER_SOURCE,
  runnerEditScript,
} from "../support/scenarios/ignored-edit.js";
import { FIXED_SUM, makeSampleNodeRepo } from "../support/temp-repo.js";
import { verifyOutcome } from "../support/verify-outcome.js";

const npmTest = (dir: string) => verifyOutcome(dir);

function row(ledger: Ledger, nodeId: string): LedgerRow {
  const found = ledger.rows.find((r) => r.nodeId === nodeId);
  if (found === undefined) throw new Error(`no row for ${nodeId}`);
  return found;
}

describe("a verify that passes on changed git-ignored files is not success", () => {
  test("a node edits the gitignored test runner in node_modules through the real Edit tool: npm test passes, the evidence tree is the commit's, and the conclusion is action_required naming the file (exit 0)", async () => {
    const h = await cliHarness({
      makeRepo: makeRunnerRepo,
      script: (repo) => runnerEditScript({ repoDir: repo.dir }),
    });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    const startTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);
    // The commit is broken: as checked out (with its installed runner), npm test fails.
    expect(await npmTest(h.repo.dir)).toBe("failed");

    const r = await h.run(["--verify-cmd", "npm test"], { goal: IGNORED_GOAL });

    expect(r.exitCode, r.stderr).toBe(0);
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

  test("a node writes a gitignored config.local.js the tests load (skipping the failing test): action_required naming it", async () => {
    const h = await cliHarness({
      makeRepo: makeConfigRepo,
      script: (repo) => configWriteScript({ repoDir: repo.dir }),
    });
    expect(await npmTest(h.repo.dir)).toBe("failed");

    const r = await h.run(["--verify-cmd", "npm test"], { goal: IGNORED_GOAL });

    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = r.ledger!;
    expect(row(ledger, "configure").verify).toMatchObject({
      outcome: "passed",
      ignoredFiles: "changed",
    });
    expect(ledger.conclusion?.conclusion).toBe("action_required");
    expect(ledger.conclusion?.reason).toContain(CONFIG_PATH);
  });

  test("no regression: the plain fix scenario with --commit still ends success, the sink's ignored files unchanged (with ignored files present)", async () => {
    const h = await cliHarness({
      makeRepo: async () => {
        const repo = await makeSampleNodeRepo();
        // An installed dependency and an old build output: ignored, present, untouched by the run.
        await repo.write("node_modules/left-pad/index.js", "module.exports = (s) => s;\n");
        await repo.write("dist/old.js", "// old build\n");
        return repo;
      },
      script: (repo) => fixSumScript({ repoDir: repo.dir }),
    });

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = r.ledger!;
    expect(ledger.conclusion).toMatchObject({ conclusion: "success", rule: "verified-on-commit" });
    expect(row(ledger, "check").verify?.ignoredFiles).toBe("unchanged");
    expect(await h.repo.git(["show", "HEAD:src/sum.js"])).toBe(FIXED_SUM.trimEnd());
  });
});
