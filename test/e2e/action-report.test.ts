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
 * The `workflow_run` payloads are GitHub's example (`@octokit/webhooks-examples`) with the fields of a fork's
 * pull request run put in: `event: pull_request`, a head repository that is not the repository, an empty
 * `pull_requests` list (what GitHub sends for a fork).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerJson } from "../../src/ledger/render-json.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  type ActionRun,
  actionTestResources,
  checkRunWrites,
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
import { BASE_SHA, FORK, WORKFLOW_RUN_ID, workflowRunPayload } from "../support/workflow-run-payload.js";
import { buildZip } from "../support/zip-builder.js";

const LEDGER_ARTIFACT = "evidence-gate-ledger";
const HEAD = "0123456789abcdef0123456789abcdef01234567";
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

/** A ledger artifact zip as `@actions/artifact` uploads it: `ledger.json` at the root. */
function ledgerZip(ledger: unknown): Buffer {
  const text = typeof ledger === "string" ? ledger : renderLedgerJson(ledger as Ledger);
  return buildZip([{ name: "ledger.json", content: text, deflate: true }]);
}

/** Puts `zip` among the fork run's artifacts on the GitHub server. */
function uploadedByForkRun(github: GitHubServer, zip: Buffer, extra: { sizeInBytes?: number } = {}) {
  return github.state.addArtifact({
    name: LEDGER_ARTIFACT,
    zip,
    headSha: HEAD,
    fromFork: true,
    workflowRunId: WORKFLOW_RUN_ID,
    ...extra,
  });
}

/** The upstream workflow file (`workflow_run.path` of {@link workflowRunPayload}). */
const PR_WORKFLOW = ".github/workflows/evidence-gate-pr.yml";

/**
 * The fork's open pull request #42 whose head is `headSha` (GitHub has one for every fork `pull_request` run;
 * the report finds it by head owner and branch), changing `files`; the base's copy of the workflow at
 * {@link BASE_SHA} uses the local action `./.github/actions/setup`.
 */
function openForkPullRequest(
  github: GitHubServer,
  headSha: string,
  files: readonly string[] = ["src/sum.js"],
) {
  github.state.addFile({
    ref: BASE_SHA,
    path: PR_WORKFLOW,
    content: [
      "on: pull_request",
      "jobs:",
      "  gate:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - uses: actions/checkout@v5",
      "      - uses: ./.github/actions/setup",
      "      - uses: evidence-gate/evidence-gate@v0",
      "",
    ].join("\n"),
  });
  return github.state.addPullRequest({
    number: 42,
    headSha,
    headRef: "fix-sum",
    headRepository: FORK,
    baseSha: BASE_SHA,
    files,
  });
}

/** Every call the run made to a check-run route (create, update, get, list). */
function checkRunCalls(result: ActionRun) {
  return result.calls.filter((c) => (c.route ?? c.path).includes("check-runs"));
}

/** The refused-ledger expectations every tampered artifact shares: a failure check run, the step failed. */
function expectRefused(result: ActionRun, github: GitHubServer, reason: string | RegExp): void {
  expect(result.exitCode, debugOf(result)).toBe(1);
  expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
  expect(github.state.checkRuns).toHaveLength(1);
  expect(github.state.checkRuns[0]).toMatchObject({
    headSha: HEAD,
    name: "evidence-gate",
    status: "completed",
    conclusion: "failure",
  });
  expect(checkRunWrites(result).some((w) => w.body.conclusion === "success")).toBe(false);
  const summary = completion(result)!.output!.summary!;
  expect(summary).toMatch(reason);
  expect(summary).toContain("Nothing from that run is posted as a verdict.");
  expect(result.summary).toMatch(reason);
  expect(result.commands.find((c) => c.startsWith("::error::"))).toBeDefined();
  github.assertNoViolations();
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

describe("fork pull requests: mode verify, then mode report (issue 11)", () => {
  it("a fork's mode: verify run records the PR head in its ledger, so mode report posts it on that head (a verify-only ledger without headSha was refused)", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    open.service = await startArtifactService();
    const { github, service } = open;
    const head = await repo.git(["rev-parse", "HEAD"]);

    const stage1 = await run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test", "anthropic-api-key": "" },
      github,
      headRepository: FORK,
      env: service.env,
    });
    expect(stage1.exitCode, debugOf(stage1)).toBe(0);
    expect(stage1.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(checkRunCalls(stage1)).toEqual([]);
    const ledger = JSON.parse(readFileSync(stage1.outputs["ledger-path"]!, "utf8")) as Ledger;
    expect(ledger.headSha).toBe(head);
    const uploaded = service.artifacts.find((a) => a.name === LEDGER_ARTIFACT);
    expect(uploaded?.finalized).toBe(true);

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
    expect(stage2.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({
      headSha: head,
      status: "completed",
      conclusion: "success",
    });
    expect(completion(stage2)!.output!.summary).toContain("PASS (verified)");
    github.assertNoViolations();
  });
});

describe("fork pull requests, stage 1: a run that ends early on a fork", () => {
  it("an unapproved fork run without a verify command ends refused in the job summary and the step, and still no check-run call", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const result = await run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH },
      github: open.github,
      headRepository: FORK,
    });
    expect(result.exitCode, debugOf(result)).toBe(1);
    expect(result.outputs.outcome).toBe("refused");
    expect(checkRunCalls(result)).toEqual([]);
    expect(result.summary).toContain("needs a writer's approval at its head");
    expect(result.summary).toContain(`comes from a fork (${FORK})`);
    open.github.assertNoViolations();
  });
});

describe("fork pull requests, stage 2: mode report posts only a ledger it can vouch for (SPEC §10)", () => {
  it("posts a valid ledger's failure as failure, re-rendered (the artifact's text escaped, never raw), on the event's head", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const github = open.github;
    const hostile: Ledger = {
      ...FAILURE_LEDGER,
      headSha: HEAD,
      startedAt: '<img src=x onerror="alert(1)">',
      plan: { ...FAILURE_LEDGER.plan, disclosure: "[click me](https://evil.example) <script>x</script>" },
      rows: FAILURE_LEDGER.rows.map((row) => ({
        ...row,
        detail: `${row.detail} <b>@org/team</b> ](javascript:x)`,
      })),
    };
    uploadedByForkRun(github, ledgerZip(hostile));

    const result = await report(
      repo.dir,
      github,
      workflowRunPayload({ headSha: HEAD, conclusion: "failure" }),
    );

    expect(result.exitCode, debugOf(result)).toBe(1);
    expect(result.outputs).toMatchObject({
      outcome: "failed",
      conclusion: "failure",
      "run-id": FAILURE_LEDGER.runId,
    });
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ headSha: HEAD, conclusion: "failure" });
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("**FAIL verify\\_failed**");
    for (const raw of ["<img", "<script>", "<b>", "[click me](https", " ](javascript"]) {
      expect(summary).not.toContain(raw);
      expect(result.summary).not.toContain(raw);
    }
    expect(summary).toContain("&lt;img src=x");
    github.assertNoViolations();
  });

  it("a ledger that is not the schema (an unknown key, a wrong version) is refused: a failure check run lists what was found, fenced, and the step fails", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const github = open.github;
    const forged = { ...SUCCESS_LEDGER, headSha: HEAD, schemaVersion: 2, "```\n## injected": true };
    uploadedByForkRun(github, ledgerZip(JSON.stringify(forged)));

    const result = await report(repo.dir, github, workflowRunPayload({ headSha: HEAD }));

    expectRefused(result, github, /is not a ledger of this version's schema/);
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("schemaVersion");
    // The forged key is shown inside a fence longer than any backtick run in it: it cannot close the fence
    // and open a heading after it.
    const fence = /\n(`{4,})\n([\s\S]*?)\n\1\n/.exec(summary);
    expect(fence?.[2]).toContain("## injected");
    expect(summary.replace(fence![0], "")).not.toContain("## injected");
  });

  // The other refusals of a schema-valid ledger — about another head commit, a conclusion flipped to success
  // while its rows say FAIL — are ledgerProblem's, in test/github/workflow-run-ledger.test.ts; an artifact
  // listed over 8 MiB is never downloaded (test/github/run-artifact-download.test.ts) and one that inflates
  // past 32 MiB is not extracted (test/github/artifact-zip.test.ts). A refused ledger end to end is the
  // schema test above.
  it("a fork's forged ledger — its pull request changed the workflow file that ran — is refused: action_required naming the file and what a writer does, never success (issue 22 item 1)", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const github = open.github;
    // The fork's workflow uploaded another tree's genuine passing ledger, re-pointed at its own head.
    openForkPullRequest(github, HEAD, ["src/sum.js", PR_WORKFLOW]);
    uploadedByForkRun(github, ledgerZip({ ...SUCCESS_LEDGER, headSha: HEAD }));

    const result = await report(repo.dir, github, workflowRunPayload({ headSha: HEAD }));

    expect(result.exitCode, debugOf(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({
      headSha: HEAD,
      status: "completed",
      conclusion: "action_required",
    });
    expect(checkRunWrites(result).some((w) => w.body.conclusion === "success")).toBe(false);
    const output = completion(result)!.output!;
    expect(output.title).toBe(
      "evidence-gate: pull request #42 changes the workflow that produced this ledger",
    );
    expect(output.summary).toContain(`- \`${PR_WORKFLOW}\`: the workflow file that ran`);
    expect(output.summary).not.toContain("src/sum.js");
    expect(output.summary).toContain("**What a writer does:**");
    expect(output.summary).not.toContain("PASS (verified)");
    expect(result.summary).toContain(PR_WORKFLOW);
    // The fork's pull request was found by its head (GitHub links none to a fork's run), its files listed.
    expect(result.calls.find((c) => c.route === "/repos/{owner}/{repo}/pulls")).toMatchObject({
      query: { head: "forker:fix-sum", state: "open" },
      status: 200,
    });
    expect(result.commands.find((c) => c.startsWith("::error::"))).toContain(PR_WORKFLOW);
    github.assertNoViolations();
  });

  it("a workflow run GitHub reports failure, with a success ledger, completes the check failure naming both verdicts (issue 22 item 2)", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const github = open.github;
    openForkPullRequest(github, HEAD);
    uploadedByForkRun(github, ledgerZip({ ...SUCCESS_LEDGER, headSha: HEAD }));

    const result = await report(
      repo.dir,
      github,
      workflowRunPayload({ headSha: HEAD, conclusion: "failure" }),
    );

    expect(result.exitCode, debugOf(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ headSha: HEAD, conclusion: "failure" });
    expect(checkRunWrites(result).some((w) => w.body.conclusion === "success")).toBe(false);
    const output = completion(result)!.output!;
    expect(output.title).toBe(`Workflow run ${WORKFLOW_RUN_ID} ended failure; its ledger says success`);
    expect(output.summary).toContain(`GitHub reports workflow run ${WORKFLOW_RUN_ID} ended failure`);
    expect(output.summary).toContain("while the ledger it uploaded concludes success");
    github.assertNoViolations();
  });

  it("a run that uploaded no ledger (cancelled) gets a failure check run saying so, never green", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const github = open.github;
    // Another run's ledger is not this run's.
    github.state.addArtifact({
      name: LEDGER_ARTIFACT,
      zip: ledgerZip({ ...SUCCESS_LEDGER, headSha: HEAD }),
      headSha: HEAD,
      fromFork: true,
    });

    const result = await report(
      repo.dir,
      github,
      workflowRunPayload({ headSha: HEAD, conclusion: "cancelled" }),
    );

    expect(result.exitCode, debugOf(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    expect(github.state.checkRuns).toEqual([
      expect.objectContaining({
        headSha: HEAD,
        conclusion: "failure",
        externalId: `workflow-run-${WORKFLOW_RUN_ID}`,
      }),
    ]);
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(
      `Workflow run ${WORKFLOW_RUN_ID} ended cancelled and has no artifact ${LEDGER_ARTIFACT}`,
    );
    expect(github.blobRequests).toEqual([]);
    github.assertNoViolations();
  });

  it("a same-repository pull request's run is left alone (it posted its own check run): no API call, the step passes", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const result = await report(repo.dir, open.github, workflowRunPayload({ headSha: HEAD, fork: false }));
    expect(result.exitCode, debugOf(result)).toBe(0);
    expect(result.calls).toEqual([]);
    expect(result.summary).toContain("same-repository pull request");
  });

  it("mode report outside a completed workflow_run is a usage error before any API call", async () => {
    const repo = await fixedRepo();
    open.github = await startGitHubServer();
    const onPr = await run({
      workspace: repo.dir,
      github: open.github,
      inputs: { mode: "report", "anthropic-api-key": "" },
    });
    expect(onPr.exitCode).toBe(1);
    expect(onPr.outputs.outcome).toBe("usage-error");
    expect(onPr.commands.find((c) => c.startsWith("::error::"))).toContain(
      "mode report runs on workflow_run",
    );
    const requested = await report(
      repo.dir,
      open.github,
      workflowRunPayload({ headSha: HEAD, action: "requested" }),
    );
    expect(requested.exitCode).toBe(1);
    expect(requested.commands.find((c) => c.startsWith("::error::"))).toContain("types: [completed]");
    expect([...onPr.calls, ...requested.calls]).toEqual([]);
  });
});
