/**
 * Fork pull requests, two stages (SPEC §6, §10; research/security.md §1.3), in-process
 * (test/support/action-in-process.ts): the action's `runAction` against the GitHub API double (every request
 * and response held to the OpenAPI description) and the stand-in artifact service. A fork's `mode: verify`
 * run records the head its ledger is about and uploads it, so `mode: report` on the matching `workflow_run`
 * (completed) event posts it on that head; a fork's run that ends early makes no check-run call; and
 * `mode: report` posts only a ledger it can vouch for — a `failure` check run, failing the step, for a
 * forged, foreign or missing ledger, or one whose pull request changed the workflow that made it.
 *
 * The `workflow_run` payloads are GitHub's example (`@octokit/webhooks-examples`) with the fields of a fork's
 * pull request run put in: `event: pull_request`, a head repository that is not the repository, an empty
 * `pull_requests` list (what GitHub sends for a fork). Moved from test/e2e/action-report.test.ts (issue 24),
 * which keeps the one real run: both stages through the bundled action and its post step.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerJson } from "../../src/ledger/render-json.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import { actionInProcessResources } from "../support/action-in-process.js";
import { type ActionRun, checkRunWrites, completion, stepDebug } from "../support/action-step.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { GRAPH_PATH } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";
import {
  FORK,
  openForkPullRequest,
  PR_WORKFLOW,
  WORKFLOW_RUN_ID,
  workflowRunPayload,
} from "../support/workflow-run-payload.js";
import { buildZip } from "../support/zip-builder.js";

const LEDGER_ARTIFACT = "evidence-gate-ledger";
const HEAD = "0123456789abcdef0123456789abcdef01234567";

const open = actionInProcessResources();
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

describe("action (in-process): fork pull requests: mode verify, then mode report (issue 11)", () => {
  it("a fork's mode: verify run records the PR head in its ledger, so mode report posts it on that head (a verify-only ledger without headSha was refused)", async () => {
    const repo = await fixedRepo();
    const github = await open.github();
    const service = await open.artifactService();
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

describe("action (in-process): fork pull requests, stage 1: a run that ends early on a fork", () => {
  it("an unapproved fork run without a verify command ends refused in the job summary and the step, and still no check-run call", async () => {
    const repo = await fixedRepo();
    const github = await open.github();
    const result = await run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH },
      github,
      headRepository: FORK,
    });
    expect(result.exitCode, debugOf(result)).toBe(1);
    expect(result.outputs.outcome).toBe("refused");
    expect(checkRunCalls(result)).toEqual([]);
    expect(result.summary).toContain("needs a writer's approval at its head");
    expect(result.summary).toContain(`comes from a fork (${FORK})`);
    github.assertNoViolations();
  });
});

describe("action (in-process): fork pull requests, stage 2: mode report posts only a ledger it can vouch for (SPEC §10)", () => {
  it("posts a valid ledger's failure as failure, re-rendered (the artifact's text escaped, never raw), on the event's head", async () => {
    const repo = await fixedRepo();
    const github = await open.github();
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
    const github = await open.github();
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
    const github = await open.github();
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
    const github = await open.github();
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
    const github = await open.github();
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
    const github = await open.github();
    const result = await report(repo.dir, github, workflowRunPayload({ headSha: HEAD, fork: false }));
    expect(result.exitCode, debugOf(result)).toBe(0);
    expect(result.calls).toEqual([]);
    expect(result.summary).toContain("same-repository pull request");
  });

  it("mode report outside a completed workflow_run is a usage error before any API call", async () => {
    const repo = await fixedRepo();
    const github = await open.github();
    const onPr = await run({
      workspace: repo.dir,
      github,
      inputs: { mode: "report", "anthropic-api-key": "" },
    });
    expect(onPr.exitCode).toBe(1);
    expect(onPr.outputs.outcome).toBe("usage-error");
    expect(onPr.commands.find((c) => c.startsWith("::error::"))).toContain(
      "mode report runs on workflow_run",
    );
    const requested = await report(
      repo.dir,
      github,
      workflowRunPayload({ headSha: HEAD, action: "requested" }),
    );
    expect(requested.exitCode).toBe(1);
    expect(requested.commands.find((c) => c.startsWith("::error::"))).toContain("types: [completed]");
    expect([...onPr.calls, ...requested.calls]).toEqual([]);
  });
});
