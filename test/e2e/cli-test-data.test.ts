/**
 * End-to-end: a verify that passes because a node changed what the test compares against — a data file the
 * test names, outside every test folder — is not `success` and is not committed (issue 22 item 4, rule
 * `verify-definition-changed`, kind `named-by-test`; ADR 0014). The CLI runs in-process against a real git
 * repository, the real pinned `claude` CLI (whose Edit tool really changes the file) and the scripted model
 * server. The other cheat shapes (a fixture, a snapshot, a golden file, a conftest.py fixture) go through
 * the engine's record and conclusion in test/evidence/test-data.test.ts.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { checkRunsOf, cliHarness } from "../support/cli-harness.js";
import {
  CASES_PATH,
  CHEATED_CASES,
  casesEditScript,
  makeCasesRepo,
  TEST_DATA_MARKS,
} from "../support/scenarios/test-data-edit.js";
import { BUGGY_SUM } from "../support/temp-repo.js";
import { verifyOutcome } from "../support/verify-outcome.js";

describe("a verify that passes because the nodes changed the tests' data is not success", () => {
  test('a node edits data/cases.json (named by test/sum.test.js) through the real Edit tool: auto --verify-cmd "npm test" --commit passes the verify, ends action_required naming the file and the test, and commits nothing', async () => {
    const h = await cliHarness({
      makeRepo: makeCasesRepo,
      script: (repo) => casesEditScript({ repoDir: repo.dir }),
    });
    const start = await h.repo.git(["rev-parse", "HEAD"]);
    expect(await verifyOutcome(h.repo.dir)).toBe("failed");

    const r = await h.run(["--verify-cmd", "npm test", "--commit"], {
      goal: `${TEST_DATA_MARKS.plannerGoal}.`,
    });

    expect(r.exitCode, r.stderr).toBe(4);
    // The edit really happened, the bug is still there, and npm test passes.
    expect(await h.repo.read(CASES_PATH)).toBe(CHEATED_CASES);
    expect(await h.repo.read("src/sum.js")).toBe(BUGGY_SUM);
    expect(await verifyOutcome(h.repo.dir)).toBe("passed");
    const ledger = r.ledger!;
    const row = ledger.rows.find((x) => x.nodeId === "rewrite");
    expect(row?.verdict === "PASS" && row.qualifier).toBe("verified");
    const why =
      'a data file the test test/sum.test.js names ("../data/cases.json"), what it reads or compares against, modified';
    expect(ledger.changedFiles?.verifyDefinition).toEqual([
      { path: CASES_PATH, kind: "named-by-test", detail: why },
    ]);
    expect(ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verify-definition-changed",
      title: "Verified, but the nodes changed what the tests compare against",
    });
    expect(ledger.conclusion?.reason).toContain(`${CASES_PATH}: ${why}`);
    // --commit committed nothing: HEAD is the start, the change is in patch.diff and says why.
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(await h.repo.git(["status", "--porcelain"])).toBe(` M ${CASES_PATH}`);
    expect(ledger.postedCommit).toBeUndefined();
    expect(ledger.patch?.notCommittedBecause).toBe("its evidence would end action_required");
    expect(existsSync(join(r.runDir!, "patch.diff"))).toBe(true);
    // The text ledger and the job summary name the file and why it counts.
    expect(r.stdout).toContain(`! modified  ${CASES_PATH} — ${why}`);
    expect(r.summary).toContain(`- ⚠️ \`${CASES_PATH}\` (modified) — ${why}`);
    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["action_required"]],
    ]);
  });
});
