/**
 * End-to-end acceptance test of `evidence-gate auto` (SPEC §2, §4–§6, §9–§10): one real run — the CLI
 * command in-process against a real git repository, the real pinned `claude` CLI editing `src/sum.js`
 * through its own Read and Edit tools against the scripted model server, the real verify command, --commit
 * and the recorded check-run payloads.
 *
 * The CLI's decisions with the model incidental (build evidence refused or declared, usage errors, a
 * verified fix left as patch.diff, the verify command's environment, a planner reply with no plan, a failed
 * sink, the planner's repair, redaction of secrets, the merge checkout) run in-process through the model
 * port: test/cli/auto-command.test.ts (issue 24).
 */
import { describe, expect, test } from "vitest";
import type { LedgerRow } from "../../src/core/ledger-row.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { checkRunsOf, cliHarness, rowWords } from "../support/cli-harness.js";
import type { RecordedRequest } from "../support/model-server/index.js";
import { fixSumScript } from "../support/scenarios/fix-sum.js";
import { FIXED_SUM, makeSampleNodeRepo } from "../support/temp-repo.js";

function row(ledger: Ledger, nodeId: string): LedgerRow {
  const found = ledger.rows.find((r) => r.nodeId === nodeId);
  if (found === undefined) throw new Error(`no row for ${nodeId}: ${JSON.stringify(rowWords(ledger))}`);
  return found;
}

function requestsOf(requests: readonly RecordedRequest[], conversation: string): RecordedRequest[] {
  return requests.filter((r) => r.conversation === conversation);
}

describe("the two-node plan through the real CLI (SPEC §4–§6)", () => {
  test("with --commit a verified fix is committed with the run trailer and reported success on the new commit; the starting commit's check run is superseded neutral; git-ignored files present and untouched leave it success (ADR 0003)", async () => {
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
    const start = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    expect(r.exitCode, r.stderr).toBe(0);
    const ledger = r.ledger!;
    expect(rowWords(ledger)).toEqual(["implement PASS (exit-only)", "check PASS (verified)"]);
    expect(r.stdout).toMatch(/^implement +PASS \(exit-only\) /m);
    expect(r.stdout).toMatch(/^check +PASS \(verified\) /m);
    expect(ledger.conclusion).toMatchObject({ conclusion: "success", rule: "verified-on-commit" });
    expect(row(ledger, "check").verify?.ignoredFiles).toBe("unchanged");
    // A source edit is listed, and touches nothing the verify command runs.
    expect(ledger.changedFiles).toMatchObject({
      total: 1,
      files: [{ path: "src/sum.js", status: "modified" }],
      verifyDefinition: [],
    });
    // The model's Edit went through the real CLI (three scripted turns: Read, Edit, reply).
    expect(requestsOf(h.server.requests, "implement").map((q) => q.step)).toEqual([0, 1, 2]);

    const head = await h.repo.git(["rev-parse", "HEAD"]);
    expect(head).not.toBe(start);
    expect(await h.repo.git(["rev-parse", "HEAD^"])).toBe(start);
    expect(await h.repo.git(["show", "HEAD:src/sum.js"])).toBe(FIXED_SUM.trimEnd());
    const headTree = await h.repo.git(["rev-parse", "HEAD^{tree}"]);
    expect(row(ledger, "check").verify?.evidenceTree).toBe(headTree);
    expect(ledger.evidenceTree).toBe(headTree);
    expect(ledger.postedCommit).toMatchObject({ sha: head, tree: headTree });
    // The CLI names the commit it made, so the user need not look it up.
    expect(r.stdout).toContain(`--commit: the nodes' changes are committed as ${head} `);
    const trailer = await h.repo.git([
      "log",
      "-1",
      "--format=%(trailers:key=Evidence-Gate-Run,valueonly)",
      "HEAD",
    ]);
    expect(trailer.trim()).toBe(ledger.runId);
    expect(await h.repo.git(["status", "--porcelain"])).toBe("");
    expect(ledger.patch).toBeUndefined();

    const runs = checkRunsOf(r.checkRunRequests!);
    expect(runs.map((run) => [run.headSha, run.completions.map((c) => c.conclusion)])).toEqual([
      [start, ["neutral"]],
      [head, ["success"]],
    ]);
    expect(runs[0]!.completions[0]!.title).toContain("superseded");
    const last = r.checkRunRequests!.at(-1)!;
    expect(last.method).toBe("PATCH");
    expect(last.path).toBe(`/repos/local/repository/check-runs/${runs[1]!.id}`);
    expect(last.body).toMatchObject({ status: "completed", conclusion: "success" });
  });
});
