/**
 * The bot across deliveries (issue 23 items 1 and 4): check-run transitions only move forward for one
 * workflow run and attempt, a Re-run makes a fresh check run per attempt and a repeated Re-run does nothing,
 * and a run GitHub holds for a maintainer's approval waits instead of failing.
 */
import { describe, expect, it } from "vitest";
import { REVERIFY_BUTTON } from "../../src/bot/gate-buttons.js";
import { SERVER_ERROR_RETRIES } from "../../src/github/octokit.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  artifactsOutage,
  type BotRig,
  botRigs,
  checkRunPayload,
  pullRequestPayload,
  uploadLedger,
  WORKFLOW_FILE,
  workflowRunPayload,
} from "../support/bot-harness.js";
import { pausedLedger } from "../support/paused-ledger.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BASE = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN = 30_433_642;
const rigs = botRigs();
const PAUSED_LEDGER = pausedLedger(HEAD);

/**
 * What the bot did with a delivery: the harness's `outcome` where it reads it from the bot's log (the bot
 * answers first and works after), else the answer's body (the bot answered after the work).
 */
function outcomeOf(record: { readonly response: string; readonly outcome?: string | null }): unknown {
  return record.outcome !== undefined
    ? record.outcome
    : (JSON.parse(record.response) as { outcome?: unknown }).outcome;
}

function appChecks(rig: BotRig) {
  return rig.github.state.checkRuns.filter((r) => r.name === "evidence-gate");
}

async function completedRun(rig: BotRig, fork = false, files?: readonly string[]) {
  rig.github.state.addPullRequest({
    number: 42,
    headSha: HEAD,
    headRef: "fix-sum",
    baseSha: BASE,
    ...(fork ? { headRepository: "forker/widgets" } : {}),
    ...(files === undefined ? {} : { files }),
  });
  rig.github.state.addWorkflowRun({ id: RUN, headSha: HEAD });
  await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork }));
  uploadLedger(rig.github, { ledger: { ...FAILURE_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD, fork });
  await rig.deliver(
    "workflow_run",
    workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD, fork, pullRequest: 42 }),
  );
  await rig.deliver(
    "workflow_run",
    workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, fork, pullRequest: 42 }),
  );
  const check = appChecks(rig)[0]!;
  expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
  return check;
}

describe("check-run transitions only move forward", () => {
  it("a late workflow_run.requested (and in_progress) after completed leaves the completed check as it is", async () => {
    const rig = await rigs.start();
    const check = await completedRun(rig);
    for (const action of ["requested", "in_progress"] as const) {
      const record = await rig.deliver(
        "workflow_run",
        workflowRunPayload({ action, runId: RUN, headSha: HEAD, fork: false, pullRequest: 42 }),
      );
      expect(outcomeOf(record)).toBe("stale");
    }
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(appChecks(rig)).toHaveLength(1);
    rig.github.assertNoViolations();
  });
});

describe("deliveries are de-duplicated on completion, not on receipt", () => {
  it("a workflow_run.completed whose last write failed is done again by its redelivery (same X-GitHub-Delivery); once it finished, a redelivery only reads", async () => {
    const rig = await rigs.start();
    rig.github.state.addPullRequest({ number: 42, headSha: HEAD, headRef: "fix-sum", baseSha: BASE });
    rig.github.state.addWorkflowRun({ id: RUN, headSha: HEAD });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: false }));
    uploadLedger(rig.github, {
      ledger: { ...FAILURE_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      fork: false,
    });
    const completed = workflowRunPayload({
      action: "completed",
      runId: RUN,
      headSha: HEAD,
      fork: false,
      pullRequest: 42,
    });
    // The completion is written; the last write (the buttons) never gets through: the delivery died mid-way.
    rig.github.failNext({
      method: "PATCH",
      pathPattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}",
      bodyMatches: (body) => (body as { actions?: unknown }).actions !== undefined,
      status: 502,
      times: SERVER_ERROR_RETRIES + 1,
    });
    const failed = await rig.github.state.webhooks.deliver({ event: "workflow_run", payload: completed });
    await rig.settle();
    expect(rig.outcomes(failed.guid)).toEqual(["error", "completed:failure"]);
    const check = appChecks(rig)[0]!;
    expect(check).toMatchObject({ status: "completed", conclusion: "failure", actions: [REVERIFY_BUTTON] });
    expect(check.output.summary).toContain(`delivery=${failed.guid}`);
    const done = structuredClone(check);
    const callsBefore = rig.github.calls.length;
    const again = await rig.deliver("workflow_run", completed, { guid: failed.guid });
    expect(outcomeOf(again)).toBe("duplicate");
    const made = rig.github.calls.slice(callsBefore);
    expect(made.filter((c) => c.method !== "GET").map((c) => `${c.method} ${c.route}`)).toEqual([]);
    expect(check).toEqual(done);
    expect(appChecks(rig)).toHaveLength(1);
    rig.github.assertNoViolations();
  });
});

describe("Re-run: a fresh check run per attempt, a repeated Re-run does nothing", () => {
  function rerunClick(check: { id: number; externalId: string | null }) {
    return checkRunPayload({
      action: "rerequested",
      checkRunId: check.id,
      headSha: HEAD,
      sender: "mona",
      externalId: check.externalId,
    });
  }

  it("a repeated Re-run while attempt 2 runs, and again after it passed, re-runs nothing more and attempt 2's verdict stands", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const first = await completedRun(rig);
    const click = rerunClick(first);
    expect(outcomeOf(await rig.deliver("check_run", click))).toBe("rerun");
    expect(rig.github.state.reruns).toEqual([RUN]);
    // The same click again (a second click on the page as it was; a redelivery) while attempt 2 runs.
    const again = await rig.deliver("check_run", click);
    expect(outcomeOf(again)).toBe("stale");
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "in_progress", runId: RUN, headSha: HEAD, fork: false, attempt: 2 }),
    );
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      fork: false,
    });
    rig.github.state.workflowRuns[0]!.running = false;
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({
        action: "completed",
        runId: RUN,
        headSha: HEAD,
        fork: false,
        attempt: 2,
        pullRequest: 42,
      }),
    );
    const checks = appChecks(rig);
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatchObject({
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=2`,
    });
    // The repeat after attempt 2: nothing re-run, no model spent, attempt 2's verdict stands.
    expect(outcomeOf(await rig.deliver("check_run", click))).toBe("stale");
    expect(rig.github.state.reruns).toEqual([RUN]);
    expect(checks[1]!.conclusion).toBe("success");
    expect(checks[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    // A Re-run of attempt 2's own check run is a new request: attempt 3, a third check run.
    expect(outcomeOf(await rig.deliver("check_run", rerunClick(checks[1]!)))).toBe("rerun");
    expect(rig.github.state.reruns).toEqual([RUN, RUN]);
    expect(appChecks(rig)).toHaveLength(3);
    rig.github.assertNoViolations();
  });

  it("a newer attempt started from the Actions tab after the check completed gets a fresh check run; the completed one never moves back", async () => {
    const rig = await rigs.start();
    const first = await completedRun(rig);
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({
        action: "requested",
        runId: RUN,
        headSha: HEAD,
        fork: false,
        attempt: 2,
        pullRequest: 42,
      }),
    );
    expect(first).toMatchObject({ status: "completed", conclusion: "failure" });
    const checks = appChecks(rig);
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatchObject({
      status: "in_progress",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=2`,
    });
    rig.github.assertNoViolations();
  });
});

describe("a fork run GitHub holds for a maintainer's approval", () => {
  it("completed with action_required before any job ran waits (queued, saying so), never failure; once approved, the same run's events run it and complete it with its ledger", async () => {
    const rig = await rigs.start();
    rig.github.state.addPullRequest({
      number: 42,
      headSha: HEAD,
      headRef: "fix-sum",
      baseSha: BASE,
      headRepository: "forker/widgets",
    });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: true }));
    await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD }));
    const held = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, conclusion: "action_required" }),
    );
    expect(outcomeOf(held)).toBe("held-for-approval");
    const check = appChecks(rig)[0]!;
    expect(check).toMatchObject({ status: "queued", conclusion: null });
    expect(check.output.title).toBe("Waiting for a maintainer to approve the workflow run");
    // A late requested of the held run does not say it runs.
    await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD }));
    expect(check.status).toBe("queued");
    // A maintainer approves: the same run (same attempt) runs and completes.
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "in_progress", runId: RUN, headSha: HEAD }),
    );
    expect(check.status).toBe("in_progress");
    uploadLedger(rig.github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    expect(appChecks(rig)).toHaveLength(1);
    rig.github.assertNoViolations();
  });
});

describe("Approve on a fork's check run created before its pull_request delivery", () => {
  it("records no pull request, yet a writer's Approve dispatches while an open pull request has that head", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.addWorkflowRun({ id: RUN, headSha: HEAD });
    // No pull_request delivery: the fork's workflow_run (no pull_requests) creates the check run.
    uploadLedger(rig.github, { ledger: PAUSED_LEDGER, runId: RUN, headSha: HEAD });
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    const check = appChecks(rig)[0]!;
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(check.externalId).toBe(`evidence-gate-bot:run=${RUN}:attempt=1`);
    const approve = checkRunPayload({
      action: "requested_action",
      checkRunId: check.id,
      headSha: HEAD,
      sender: "mona",
      identifier: check.actions!.find((a) => a.identifier.startsWith("approve-"))!.identifier,
    });
    const record = await rig.deliver("check_run", approve);
    expect(outcomeOf(record), record.response).toBe("dispatched");
    expect(rig.github.state.dispatches).toHaveLength(1);
    rig.github.assertNoViolations();
  });

  it("is refused when no open pull request has the check run's commit as its head", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    uploadLedger(rig.github, { ledger: PAUSED_LEDGER, runId: RUN, headSha: HEAD });
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    const check = appChecks(rig)[0]!;
    rig.github.state.movePullRequestHead(42, "fedcba9876543210fedcba9876543210fedcba98");
    const record = await rig.deliver(
      "check_run",
      checkRunPayload({
        action: "requested_action",
        checkRunId: check.id,
        headSha: HEAD,
        sender: "mona",
        identifier: check.actions!.find((a) => a.identifier.startsWith("approve-"))!.identifier,
      }),
    );
    expect(outcomeOf(record)).toBe("refused");
    expect(rig.github.state.dispatches).toHaveLength(0);
    rig.github.assertNoViolations();
  });
});

describe("Re-verify: the verify command only, on the pull request's current head, as a fresh check run", () => {
  const NEW_HEAD = "fedcba9876543210fedcba9876543210fedcba98";
  const VERIFY_RUN = 30_500_000;

  /** A rig whose repository has WORKFLOW_FILE taking the verify inputs on its default branch. */
  async function verifyRig() {
    const rig = await rigs.start();
    rig.github.state.addWorkflow({
      file: WORKFLOW_FILE,
      inputs: [{ name: "mode" }, { name: "sha" }, { name: "pull-request" }],
    });
    return rig;
  }

  function reverifyClick(check: { id: number }, sender: string) {
    return checkRunPayload({
      action: "requested_action",
      checkRunId: check.id,
      headSha: HEAD,
      sender,
      identifier: "reverify",
    });
  }

  /**
   * The Re-verify run of `sha` completed (on the default branch unless `branch` says another ref), its
   * passing ledger uploaded; `displayTitle` `null`: a run-name that names no commit.
   */
  function verifyRunCompleted(
    rig: BotRig,
    sha: string,
    o: { readonly branch?: string; readonly displayTitle?: string } = {},
  ) {
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: sha },
      runId: VERIFY_RUN,
      headSha: sha,
      fork: false,
    });
    return workflowRunPayload({
      action: "completed",
      runId: VERIFY_RUN,
      headSha: BASE,
      headBranch: o.branch ?? "main",
      fork: false,
      event: "workflow_dispatch",
      displayTitle: o.displayTitle ?? `evidence-gate verify ${sha}`,
    });
  }

  /** A writer's Re-verify of #42's head `HEAD` (its pull request changing `files`), dispatched: the fresh check run. */
  async function reverifyDispatched(rig: BotRig, files?: readonly string[]) {
    rig.github.state.addWorkflow({
      file: WORKFLOW_FILE,
      inputs: [{ name: "mode" }, { name: "sha" }, { name: "pull-request" }],
    });
    rig.github.state.setCollaborator("mona", "write");
    const first = await completedRun(rig, false, files);
    expect(outcomeOf(await rig.deliver("check_run", reverifyClick(first, "mona")))).toBe("dispatched");
    const fresh = appChecks(rig).find((r) => r.id !== first.id)!;
    expect(fresh).toMatchObject({ status: "queued", externalId: "evidence-gate-bot:pr=42:verify" });
    return fresh;
  }

  it("a Re-verify run from another ref than the default branch is no Re-verify: nothing is posted", async () => {
    const rig = await rigs.start();
    const fresh = await reverifyDispatched(rig);
    // A writer's branch with its own copy of the workflow, dispatched by hand with the same run-name.
    const done = await rig.deliver("workflow_run", verifyRunCompleted(rig, HEAD, { branch: "rewritten" }));
    expect(outcomeOf(done), done.response).toBe("refused");
    expect(fresh).toMatchObject({ status: "queued", conclusion: null });
    rig.github.assertNoViolations();
  });

  it("a Re-verify run whose run-name names no commit is stale: the ledger's head never picks the check run", async () => {
    const rig = await rigs.start();
    const fresh = await reverifyDispatched(rig);
    const done = await rig.deliver(
      "workflow_run",
      verifyRunCompleted(rig, HEAD, { displayTitle: "evidence-gate verify" }),
    );
    expect(outcomeOf(done), done.response).toBe("stale");
    expect(fresh).toMatchObject({ status: "queued", conclusion: null });
    rig.github.assertNoViolations();
  });

  it("a Re-verify run of a pull request that changes the workflow is no verdict: the provenance rule of pull request runs applies", async () => {
    const rig = await rigs.start();
    const fresh = await reverifyDispatched(rig, ["src/sum.js", `.github/workflows/${WORKFLOW_FILE}`]);
    const done = await rig.deliver("workflow_run", verifyRunCompleted(rig, HEAD));
    expect(outcomeOf(done), JSON.stringify(rig.deliveries().at(-1))).toBe("completed:action_required");
    expect(fresh).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(fresh.output.title).toBe(
      "evidence-gate: pull request #42 changes the workflow that produced this ledger",
    );
    expect(fresh.output.summary).not.toContain("PASS (verified)");
    rig.github.assertNoViolations();
  });

  it("every completed check run carries Re-verify; a writer's click dispatches the workflow in mode verify on the current head once, and its run completes the fresh check run", async () => {
    const rig = await verifyRig();
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.setCollaborator("reader", "read");
    const first = await completedRun(rig);
    expect(first.actions).toEqual([
      { label: "Re-verify", description: "Run only the verify command: no model", identifier: "reverify" },
    ]);
    // A reader's click dispatches nothing.
    const refused = await rig.deliver("check_run", reverifyClick(first, "reader"));
    expect(outcomeOf(refused)).toBe("refused");
    // The pull request moved on since: Re-verify is about its current head.
    rig.github.state.movePullRequestHead(42, NEW_HEAD);
    const click = reverifyClick(first, "mona");
    const record = await rig.deliver("check_run", click);
    expect(outcomeOf(record), record.response).toBe("dispatched");
    expect(rig.github.state.dispatches).toEqual([
      {
        repository: "octo-org/widgets",
        workflow: WORKFLOW_FILE,
        ref: "main",
        inputs: { mode: "verify", sha: NEW_HEAD, "pull-request": "42" },
      },
    ]);
    expect(rig.github.state.reruns).toEqual([]);
    const fresh = rig.github.state.checkRuns.find(
      (r) => r.headSha === NEW_HEAD && r.name === "evidence-gate",
    )!;
    expect(fresh).toMatchObject({ status: "queued", externalId: "evidence-gate-bot:pr=42:verify" });
    // The click again (a redelivery, a second click): nothing more.
    expect(outcomeOf(await rig.deliver("check_run", click))).toBe("stale");
    expect(rig.github.state.dispatches).toHaveLength(1);
    // The dispatched run (on the default branch) completes the fresh check run with its ledger.
    const done = await rig.deliver("workflow_run", verifyRunCompleted(rig, NEW_HEAD));
    expect(outcomeOf(done), done.response).toBe("completed:success");
    expect(fresh).toMatchObject({ status: "completed", conclusion: "success" });
    expect(first).toMatchObject({ status: "completed", conclusion: "failure" });
    rig.github.assertNoViolations();
  });

  it("a transient 5xx reading a Re-verify run's ledger is no verdict: the fresh check run stays open, the delivery fails, and the App's redelivery completes it (issue 23)", async () => {
    const rig = await verifyRig();
    rig.github.state.setCollaborator("mona", "write");
    const first = await completedRun(rig);
    expect(outcomeOf(await rig.deliver("check_run", reverifyClick(first, "mona")))).toBe("dispatched");
    const fresh = appChecks(rig).find((r) => r.id !== first.id)!;
    expect(fresh).toMatchObject({ status: "queued", externalId: "evidence-gate-bot:pr=42:verify" });
    const completed = verifyRunCompleted(rig, HEAD);
    rig.github.failNext(artifactsOutage());
    const done = await rig.deliver("workflow_run", completed);
    expect(outcomeOf(done)).toBe("error");
    expect(fresh).toMatchObject({ status: "queued", conclusion: null });
    await rig.settle();
    expect(rig.outcomes(done.guid)).toEqual(["error", "completed:success"]);
    expect(fresh).toMatchObject({ status: "completed", conclusion: "success" });
    rig.github.assertNoViolations();
  });

  it("a workflow that does not take the verify inputs: the fresh check run completes failure saying what to declare, and keeps Re-verify", async () => {
    const rig = await rigs.start();
    rig.github.state.addWorkflow({ file: WORKFLOW_FILE, inputs: [] });
    rig.github.state.setCollaborator("mona", "admin");
    const first = await completedRun(rig);
    const record = await rig.deliver("check_run", reverifyClick(first, "mona"));
    expect(outcomeOf(record)).toBe("dispatch-refused");
    const checks = appChecks(rig);
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(checks[1]!.output.summary).toContain("`mode`, `sha` and `pull-request`");
    expect(checks[1]!.actions?.map((a) => a.identifier)).toEqual(["reverify"]);
    rig.github.assertNoViolations();
  });

  it('a dispatch GitHub refuses with 422 "No ref found" (the default branch the click named was renamed) says so — not that the workflow\'s inputs are wrong (operator trial)', async () => {
    const rig = await verifyRig();
    rig.github.state.setCollaborator("mona", "write");
    const first = await completedRun(rig);
    const renamed = reverifyClick(first, "mona") as { repository: { default_branch: string } };
    renamed.repository.default_branch = "trunk";
    const record = await rig.deliver("check_run", renamed);
    expect(outcomeOf(record)).toBe("dispatch-refused");
    expect(rig.github.state.dispatches).toEqual([]);
    const fresh = appChecks(rig).find((r) => r.id !== first.id)!;
    expect(fresh).toMatchObject({ status: "completed", conclusion: "failure" });
    const summary = fresh.output.summary ?? "";
    expect(summary).toContain('GitHub answered 422 "No ref found for: trunk"');
    expect(summary).toContain("The repository has no branch trunk");
    expect(summary).toContain("The workflow's inputs are not the problem");
    expect(summary).not.toContain("accept `workflow_dispatch` with the inputs");
    // The one call off the contract is the dispatch on a branch that is not (any more) the default one.
    expect(rig.github.violations.flatMap((v) => v.errors)).toEqual([
      "dispatch ref trunk is not the default branch",
    ]);
  });
});
