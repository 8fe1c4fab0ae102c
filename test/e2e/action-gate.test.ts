/**
 * The action end to end: `node dist/index.js` run as the runner runs it (test/support/action-harness.ts),
 * the real `claude` CLI driven by the scripted model server, the check run posted to the local GitHub
 * server that holds every request and response to GitHub's OpenAPI description.
 *
 * One real run: the fix-sum scenario verified but not pushed (the check run in progress before the first
 * model request reaches the model server, the real CLI's edit in the evidence tree, the ledger, the warning).
 * The action's decisions around it run in-process in test/action-run/gate.test.ts (issue 24): the build-
 * evidence refusal and the verify-cmd/accept-no-build-evidence usage error, a sink whose verify fails,
 * accept-no-build-evidence's neutral, success on the test merge commit, the stop-commands fence around a
 * child's output, and a 403/404 on creating the check run.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { actionTestResources, checkRunWrites, completion, stepDebug } from "../support/action-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { commitAll, FIXED_SUM, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const CHECK_RUNS = "/repos/{owner}/{repo}/check-runs";

const open = actionTestResources();
const { run, servers } = open;

async function sampleRepo(): Promise<TempRepo> {
  return open.keep(await makeSampleNodeRepo());
}

/** The one check run the GitHub server holds, as GitHub would show it now. */
function onlyCheckRun(github: GitHubServer) {
  expect(github.state.checkRuns).toHaveLength(1);
  return github.state.checkRuns[0]!;
}

describe("action: the check run is never green on a head the engine did not verify (SPEC §6)", () => {
  it("a verified fix that is not pushed completes action_required naming the verified tree and the patch; outputs passed/action_required; step passes with a warning; the check run is created in_progress before the planner call", async () => {
    const repo = await sampleRepo();
    const { github, model } = await servers(fixSumScript({ repoDir: repo.dir }));
    const head = await repo.git(["rev-parse", "HEAD"]);

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      model,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);

    // Order: the check run exists, in progress, before the planner is asked anything (the only call
    // before it looks for a check run an earlier run left on this head SHA).
    const created = result.timeline.findIndex(
      (e) => e.github?.method === "POST" && e.github.route === CHECK_RUNS,
    );
    const first = result.timeline[created]!;
    expect(result.timeline.slice(0, created).map((e) => `${e.github?.method} ${e.github?.route}`)).toEqual([
      "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    ]);
    expect(first.github).toMatchObject({ method: "POST", route: CHECK_RUNS, status: 201 });
    expect((first.github!.body as { status?: string }).status).toBe("in_progress");
    const firstModel = result.timeline.findIndex((e) => e.source === "model");
    expect(firstModel).toBeGreaterThan(created);
    expect(result.timeline[firstModel]!.model!.conversation).toBe("planner");

    // Never success, on any write.
    const writes = checkRunWrites(result);
    expect(writes.every((w) => w.body.head_sha === undefined || w.body.head_sha === head)).toBe(true);
    expect(writes.map((w) => w.body.conclusion).filter((c) => c !== undefined)).toEqual(["action_required"]);
    const stored = onlyCheckRun(github);
    expect(stored).toMatchObject({ headSha: head, status: "completed", conclusion: "action_required" });

    // The evidence tree is the tree of the patched working tree: commit the nodes' change and compare.
    const tree = result.outputs["evidence-tree"]!;
    expect(tree).toMatch(/^[0-9a-f]{40}$/);
    expect(tree).not.toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(await repo.read("src/sum.js")).toBe(FIXED_SUM);
    expect(await repo.git(["status", "--porcelain"])).toBe(" M src/sum.js");

    const output = completion(result)!.output!;
    expect(output.title).toBe("Verified, but not on this commit");
    expect(output.summary).toContain(`\`${tree.slice(0, 12)}\``);
    expect(output.summary).toContain(`**not** the tree of ${head.slice(0, 7)}`);
    expect(output.summary).toContain("patch.diff");
    // The patch preview (bounded) is in the check run's text.
    expect(output.text).toContain("### Patch");
    expect(output.text).toContain("```diff");
    expect(output.text).toContain("+  return a + b;");

    expect(result.outputs.outcome).toBe("passed");
    expect(result.outputs.conclusion).toBe("action_required");
    expect(result.outputs["check-run-id"]).toBe(String(stored.id));
    expect(result.state["check-run-id"]).toBe(String(stored.id));
    expect(result.outputs["run-id"]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(stored.externalId).toBe(result.outputs["run-id"]);
    const ledgerPath = result.outputs["ledger-path"]!;
    expect(existsSync(ledgerPath)).toBe(true);
    const ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as {
      runId: string;
      evidenceTree: string;
      conclusion: { conclusion: string };
    };
    expect(ledger).toMatchObject({ runId: result.outputs["run-id"], evidenceTree: tree });
    expect(ledger.conclusion.conclusion).toBe("action_required");
    await commitAll(repo, "the nodes' change");
    expect(await repo.git(["rev-parse", "HEAD^{tree}"])).toBe(tree);

    // The step passes with a warning annotation that carries the verdict.
    expect(result.commands.filter((c) => c.startsWith("::warning::"))).toEqual([
      expect.stringContaining("action_required"),
    ]);
    expect(result.commands.some((c) => c.startsWith("::error::"))).toBe(false);
    // The job summary has the full ledger.
    expect(result.summary).toContain("Verified, but not on this commit");
    expect(result.summary).toContain("+  return a + b;");
    github.assertNoViolations();
  });
});
