/**
 * Fork pull requests, two stages (SPEC §6, §10; research/security.md §1.3), through the bundled action:
 *
 * 1. the pull request's workflow on a fork's `pull_request` event makes no check-run call at all, writes the
 *    ledger to the job summary and uploads `<check-name>-ledger` (to the stand-in artifact service);
 * 2. `mode: report` on the matching `workflow_run` (completed) event finds that artifact among the run's
 *    artifacts on the local GitHub server, downloads it through the redirect, validates it as untrusted data
 *    and posts the check run on the event's head commit — and posts a `failure` check run, failing the
 *    step, for a tampered, oversized, foreign or missing ledger.
 *
 * One real run, both stages through the bundled action (and its post step). Moved to the port tier,
 * in-process (test/action-run/report.test.ts; issue 24): a fork's mode verify then mode report, a fork's run
 * that ends early, and every decision of stage 2 (a re-rendered failure, a ledger that is not the schema, a
 * forged ledger, a failed workflow run with a success ledger, a missing ledger, a same-repository run, mode
 * report outside a completed workflow_run).
 *
 * The `workflow_run` payloads are GitHub's example (`@octokit/webhooks-examples`) with the fields of a fork's
 * pull request run put in: `event: pull_request`, a head repository that is not the repository, an empty
 * `pull_requests` list (what GitHub sends for a fork).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import {
  type ActionRun,
  actionTestResources,
  completion,
  runPostStep,
  startArtifactService,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
} from "../support/action-harness.js";
import { type GitHubServer, startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { GRAPH_PATH, handGraphScript, REVIEW_GRAPH } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";
import {
  BASE_SHA,
  FORK,
  openForkPullRequest,
  WORKFLOW_RUN_ID,
  workflowRunPayload,
} from "../support/workflow-run-payload.js";

const LEDGER_ARTIFACT = "evidence-gate-ledger";
const RUN_ARTIFACTS = "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts";

const open = actionTestResources();
const { run } = open;

const debugOf = (result: ActionRun): string => stepDebug(result, 5000);

function fixedRepo(): Promise<TempRepo> {
  return makeFixedSampleRepo("the pull request").then(open.keep);
}

/** `mode: report` on `payload` (no model, no model credential). */
function report(
  workspace: string,
  github: GitHubServer,
  payload: Record<string, unknown>,
): Promise<ActionRun> {
  return run({
    workspace,
    github,
    event: { name: "workflow_run", payload },
    inputs: { mode: "report", "anthropic-api-key": "" },
  });
}

/** Every call the run made to a check-run route (create, update, get, list). */
function checkRunCalls(result: ActionRun) {
  return result.calls.filter((c) => (c.route ?? c.path).includes("check-runs"));
}

describe("fork pull requests, stage 1: the pull request's run posts no check run (SPEC §10)", () => {
  it("a fork's pull_request run makes no check-run call at all, writes the full ledger to the job summary, uploads the ledger artifact, says stage 2 posts the check run — and stage 2 (mode report on the workflow_run) posts it on the PR head", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    open.model = await startModelServer({ script: handGraphScript() });
    open.service = await startArtifactService();
    const { github, model, service } = open;
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: REVIEW_GRAPH });
    const head = await repo.git(["rev-parse", "HEAD"]);

    // A key is given, and no writer approved the fork's head: the run is verify-only (issue 12 item 4).
    const stage1 = await run({
      workspace: repo.dir,
      inputs: { goal: "Review the change.", "verify-cmd": "npm test" },
      github,
      model,
      headRepository: FORK,
      env: service.env,
    });

    expect(stage1.exitCode, debugOf(stage1)).toBe(0);
    expect(stage1.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(stage1.outputs["check-run-id"]).toBeUndefined();
    // Not one check-run call: the fork's token is read-only, so none is even tried.
    expect(checkRunCalls(stage1)).toEqual([]);
    expect(github.state.checkRuns).toEqual([]);
    expect(stage1.state).toEqual({});
    // The run itself went on: the engine ran the verify command; the model key was not used on the fork's code.
    expect(stage1.modelRequests).toEqual([]);
    expect(stage1.summary).toContain("no writer approved its head");
    expect(stage1.summary).toContain("PASS (verified)");
    expect(stage1.summary).toContain(`comes from a fork (${FORK})`);
    expect(stage1.summary).toContain("mode: report, on workflow\\_run");
    const notice = stage1.commands.find(
      (c) => c.startsWith("::notice::") && c.includes("creates no check run"),
    );
    expect(notice).toContain(LEDGER_ARTIFACT);
    const runId = stage1.outputs["run-id"]!;
    const uploaded = service.artifacts.find((a) => a.name === LEDGER_ARTIFACT);
    expect(uploaded?.finalized).toBe(true);
    // The ledger records the head it is about: stage 2 checks it against the event.
    const ledger = JSON.parse(readFileSync(stage1.outputs["ledger-path"]!, "utf8")) as Ledger;
    expect(ledger).toMatchObject({ runId, headSha: head });
    // The post step finds no check run to complete, and calls nothing.
    const post = await runPostStep({ github, state: stage1.state });
    expect(post.exitCode).toBe(0);
    expect(post.calls).toEqual([]);

    // Stage 2: GitHub lists the artifact among the fork run's; the report workflow posts it. The pull
    // request does not touch the workflow, so its run's ledger is a verdict.
    openForkPullRequest(github, head);
    github.state.addArtifact({
      name: uploaded!.name,
      zip: uploaded!.zip,
      headSha: head,
      fromFork: true,
      workflowRunId: WORKFLOW_RUN_ID,
    });
    const stage2 = await report(repo.dir, github, workflowRunPayload({ headSha: head }));

    expect(stage2.exitCode, debugOf(stage2)).toBe(0);
    expect(stage2.outputs).toMatchObject({ outcome: "passed", conclusion: "success", "run-id": runId });
    expect(stage2.modelRequests).toEqual([]);
    const listed = stage2.calls.find((c) => c.route === RUN_ARTIFACTS);
    expect(listed).toMatchObject({
      path: `/repos/${TEST_REPOSITORY}/actions/runs/${WORKFLOW_RUN_ID}/artifacts`,
      query: { name: LEDGER_ARTIFACT },
      status: 200,
    });
    // Downloaded through the redirect, without the token.
    expect(github.blobRequests.at(-1)).toMatchObject({ status: 200, authorization: undefined });
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({
      name: "evidence-gate",
      headSha: head,
      status: "completed",
      conclusion: "success",
      externalId: runId,
    });
    expect(stage2.outputs["check-run-id"]).toBe(String(github.state.checkRuns[0]!.id));
    const output = completion(stage2)!.output!;
    expect(output.summary).toContain("PASS (verified)");
    expect(output.summary).toContain("`npm test`");
    expect(output.summary).toContain(`from the fork \`${FORK}\`, branch \`fix-sum\``);
    expect(output.summary).toContain(`Posted by \`mode: report\` from the artifact \`${LEDGER_ARTIFACT}\``);
    expect(stage2.summary).toContain("PASS (verified)");
    // The details link is the pull request's run (its job summary has the whole ledger).
    expect(github.state.checkRuns[0]!.detailsUrl).toBe(
      `https://github.com/${TEST_REPOSITORY}/actions/runs/${WORKFLOW_RUN_ID}`,
    );
    expect(JSON.stringify(stage2.calls.map((c) => c.body))).not.toContain(TEST_GITHUB_TOKEN);
    github.assertNoViolations();
  });
});
