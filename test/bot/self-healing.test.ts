/**
 * Self-healing (SPEC §2 "Across deliveries"; issue 23 item 3), with the real bot in-process and the
 * OpenAPI-checked GitHub double:
 *
 * - a transient API failure (the artifact API answering 502 past Octokit's retries) is no verdict: the check
 *   run is not completed, the delivery fails, the App redelivers it, and the redelivery completes it;
 * - the reconcile sweep settles the App's own check runs left open by a lost delivery (a `workflow_run
 *   completed` that never arrived, as after a `kill -9` mid-delivery) from the workflow run's real state —
 *   from two replicas sweeping at the same moment — and completes, saying so, a check run whose workflow
 *   run is gone.
 */
import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_S } from "../../src/bot/bot-app.js";
import { readBotConfig } from "../../src/bot/config.js";
import { createBotLog } from "../../src/bot/delivery-log.js";
import { REVERIFY_BUTTON } from "../../src/bot/gate-buttons.js";
import { reconcileOpenCheckRuns } from "../../src/bot/reconcile.js";
import { startBot } from "../../src/bot/start-bot.js";
import { SERVER_ERROR_RETRIES } from "../../src/github/octokit.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  artifactsOutage,
  type BotRig,
  botEnv,
  botRigs,
  checkRunPayload,
  pullRequestPayload,
  RESUME_WORKFLOW_FILE,
  secondaryRateLimit,
  uploadLedger,
  WORKFLOW_FILE,
  workflowRunPayload,
} from "../support/bot-harness.js";
import { pausedLedger } from "../support/paused-ledger.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BASE = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN = 30_433_642;
const rigs = botRigs();
const BASE_HEAD = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";

/**
 * The reconcile sweep's clock, `ahead` ms past the system clock: a sweep run with `ahead = 1_100` sees the
 * check runs as a sweep 1.1 s from now would, without the test sleeping that long.
 */
function sweepClock(): { ahead: number; readonly now: () => Date } {
  const clock = { ahead: 0, now: () => new Date(Date.now() + clock.ahead) };
  return clock;
}

/** A click of the button `identifier` on check run `check` by `sender`, as GitHub delivers it. */
function clickOn(check: { id: number; headSha: string }, sender: string, identifier: string) {
  return checkRunPayload({
    action: "requested_action",
    checkRunId: check.id,
    headSha: check.headSha,
    sender,
    identifier,
  });
}

/** A `workflow_dispatch` run the App dispatched (on the default branch), completed, as GitHub lists it. */
function dispatchedRunCompleted(rig: BotRig, o: { runId: number; path: string; displayTitle: string }) {
  const body = (
    workflowRunPayload({
      action: "completed",
      runId: o.runId,
      headSha: BASE_HEAD,
      headBranch: "main",
      fork: false,
      event: "workflow_dispatch",
      path: o.path,
      displayTitle: o.displayTitle,
    }) as { workflow_run: Record<string, unknown> }
  ).workflow_run;
  rig.github.state.addWorkflowRun({
    id: o.runId,
    headSha: BASE_HEAD,
    body: { ...body, created_at: new Date().toISOString() },
  });
}

/** A pull request whose check run went `in_progress` for workflow run `RUN`; the run then completed at GitHub. */
async function runCompletedButNotDelivered(
  rig: BotRig,
  headSha = HEAD,
  runId = RUN,
  readable = true,
  ledger: Ledger = SUCCESS_LEDGER,
  number = 42,
) {
  rig.github.state.addPullRequest({
    number,
    headSha,
    baseSha: BASE,
    headRepository: "forker/widgets",
    headRef: "fix-sum",
  });
  await rig.deliver("pull_request", pullRequestPayload({ headSha, fork: true, number }));
  await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId, headSha }));
  uploadLedger(rig.github, { ledger: { ...ledger, headSha }, runId, headSha });
  const completed = workflowRunPayload({ action: "completed", runId, headSha }) as {
    workflow_run: Record<string, unknown>;
  };
  rig.github.state.addWorkflowRun({
    id: runId,
    headSha,
    ...(readable ? { body: completed.workflow_run } : {}),
  });
  const check = rig.github.state.checkRuns.find((c) => c.headSha === headSha)!;
  expect(check.status).toBe("in_progress");
  return check;
}

describe("the bot heals itself", () => {
  it("a transient 5xx on the artifact API is no verdict: the check run stays open, the delivery fails, and the App's own redelivery completes it from the ledger (issue 23)", async () => {
    const rig = await rigs.start();
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: true }));
    await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD }));
    uploadLedger(rig.github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    rig.github.failNext(artifactsOutage());
    const done = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }),
    );
    expect([done.statusCode, done.outcome]).toEqual([202, "error"]);
    const check = rig.github.state.checkRuns[0]!;
    expect(check).toMatchObject({ status: "in_progress", conclusion: null });

    await rig.settle();
    expect(rig.outcomes(done.guid)).toEqual(["error", "completed:success"]);
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    rig.github.assertNoViolations();
  });

  it("a workflow_run completed that never arrived (a replica killed mid-delivery): two replicas' reconcile sweeps at the same moment complete the one check run from the run's real state (issue 23)", async () => {
    const rig = await rigs.start();
    const check = await runCompletedButNotDelivered(rig);
    // A second replica of the same App, pointed at the same GitHub.
    const second = await startBot(readBotConfig(botEnv(rig.github)), { write: () => {} });
    const config = readBotConfig(botEnv(rig.github));
    const lines: Record<string, unknown>[] = [];
    const log = createBotLog({ secrets: [], write: (l) => void lines.push(JSON.parse(l)) });
    try {
      // Not yet older than RECONCILE_AFTER (15 min): left alone.
      expect(await reconcileOpenCheckRuns(rig.bot.bot, config, log)).toMatchObject({ open: 0 });
      expect(check.status).toBe("in_progress");
      // An hour later, both replicas sweep at once.
      const later = () => new Date(Date.now() + 3_600_000);
      const sweeps = await Promise.all([
        reconcileOpenCheckRuns(rig.bot.bot, config, log, later),
        reconcileOpenCheckRuns(second.bot, config, log, later),
      ]);
      expect(sweeps.map((s) => s.failed)).toEqual([0, 0]);
      expect(sweeps.map((s) => s.open)).toEqual([1, 1]);
      // A later sweep finds nothing open.
      expect(await reconcileOpenCheckRuns(rig.bot.bot, config, log, later)).toMatchObject({ open: 0 });
    } finally {
      await second.close();
    }
    expect(rig.github.state.checkRuns).toHaveLength(1);
    expect(check).toMatchObject({
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1`,
    });
    expect(check.output.summary).toContain("PASS (verified)");
    expect(lines.filter((l) => l.kind === "reconcile-check").map((l) => l.outcome)).toContain(
      "completed:success",
    );
    rig.github.assertNoViolations();
  });

  it("a check run whose workflow run is gone is completed failure saying so — never left in_progress, never green", async () => {
    // RECONCILE_AFTER 1s: by the time the sweep runs, the check run is older than that.
    const clock = sweepClock();
    const rig = await rigs.start({ RECONCILE_AFTER: "1s" }, {}, { now: clock.now });
    const check = await runCompletedButNotDelivered(rig, HEAD, RUN, false);
    clock.ahead = 1_100;
    await rig.bot.reconcile();
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.title).toBe(`Workflow run ${RUN} is gone`);
    expect(rig.logs.filter((l) => l.kind === "reconcile").at(-1)).toMatchObject({ open: 1, gone: 1 });
    rig.github.assertNoViolations();
  });

  it("one check run the sweep cannot settle now (its run's API read keeps failing) does not stop it settling the others (operator trial)", async () => {
    const clock = sweepClock();
    const rig = await rigs.start({ RECONCILE_AFTER: "1s" }, {}, { now: clock.now });
    const other = "fedcba9876543210fedcba9876543210fedcba98";
    const checks = [
      await runCompletedButNotDelivered(rig, HEAD, RUN, false),
      await runCompletedButNotDelivered(rig, other, RUN + 1, false, SUCCESS_LEDGER, 43),
    ];
    clock.ahead = 1_100;
    // The first run read fails through all its retries; the second is read (and found gone).
    rig.github.failNext({
      method: "GET",
      pathPattern: "/repos/{owner}/{repo}/actions/runs/{run_id}",
      status: 502,
      times: SERVER_ERROR_RETRIES + 1,
    });
    await rig.bot.reconcile();
    expect(rig.logs.filter((l) => l.kind === "reconcile").at(-1)).toMatchObject({
      open: 2,
      gone: 1,
      failed: 1,
    });
    expect(checks.filter((c) => c.status === "completed")).toHaveLength(1);
    expect(rig.logs.filter((l) => l.kind === "reconcile-check" && typeof l.error === "string")).toHaveLength(
      1,
    );
  });

  it("on shutdown the bot stops accepting, waits for in-flight work up to SHUTDOWN_DEADLINE, then abandons it and asks GitHub to redeliver it (issue 23 item 6)", async () => {
    // Production waits: the work below waits out a 60 s Retry-After, far past the 1 s deadline.
    const rig = await rigs.start({ EVIDENCE_GATE_BACKOFF_SECOND_MS: undefined, SHUTDOWN_DEADLINE: "1s" });
    rig.github.failNext(
      secondaryRateLimit({
        method: "POST",
        pathPattern: "/repos/{owner}/{repo}/check-runs",
        retryAfterS: 60,
      }),
    );
    const record = await rig.github.state.webhooks.deliver({
      event: "pull_request",
      payload: pullRequestPayload({ headSha: HEAD }),
    });
    expect(record.statusCode).toBe(202);
    expect(rig.bot.work.active).toBe(1);
    const started = performance.now();
    await rig.bot.close();
    // Well inside GitHub's own patience and any orchestrator's grace period; not a timing assertion.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(rig.logs.find((l) => l.kind === "stop")).toMatchObject({ abandoned: 1, deliveries: record.guid });
    expect(rig.logs.find((l) => l.kind === "redeliver-one")).toMatchObject({
      delivery: record.guid,
      result: "redelivered",
    });
    // It accepts nothing more.
    await expect(fetch(`${rig.bot.url}/healthz`)).rejects.toThrow();
    expect(rig.github.state.checkRuns).toEqual([]);
  });

  it("a Retry-After longer than the bot waits (an hour) is not waited out: the request fails at once, the delivery's work fails and the App's redelivery does it (operator trial)", async () => {
    const rig = await rigs.start();
    rig.github.failNext(
      secondaryRateLimit({
        method: "POST",
        pathPattern: "/repos/{owner}/{repo}/check-runs",
        retryAfterS: 3_600,
      }),
    );
    const record = await rig.github.state.webhooks.deliver({
      event: "pull_request",
      payload: pullRequestPayload({ headSha: HEAD }),
    });
    expect(record.statusCode).toBe(202);
    await rig.settle();
    expect(rig.outcomes(record.guid)).toEqual(["error", "check-queued"]);
    expect(rig.logs.find((l) => l.kind === "octokit" && l.level === "warn")?.message).toContain(
      `not waiting the 3600s GitHub asks for (more than ${MAX_RETRY_AFTER_S}s): giving up`,
    );
    expect(rig.github.state.checkRuns).toHaveLength(1);
    rig.github.assertNoViolations();
  });

  it("deliveries about one commit are worked in the order they arrived, though each is answered at once: a completed answered while the in_progress still waits out a Retry-After is not overtaken", async () => {
    const rig = await rigs.start({ EVIDENCE_GATE_BACKOFF_SECOND_MS: "100" });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: true }));
    uploadLedger(rig.github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    rig.github.failNext(
      secondaryRateLimit({
        method: "PATCH",
        pathPattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}",
        retryAfterS: 5,
        bodyMatches: (body) => (body as { status?: string }).status === "in_progress",
      }),
    );
    const running = await rig.github.state.webhooks.deliver({
      event: "workflow_run",
      payload: workflowRunPayload({ action: "in_progress", runId: RUN, headSha: HEAD }),
    });
    const completed = await rig.github.state.webhooks.deliver({
      event: "workflow_run",
      payload: workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }),
    });
    expect([running.statusCode, completed.statusCode]).toEqual([202, 202]);
    await rig.settle();
    const order = rig
      .deliveries()
      .filter((l) => l.event === "workflow_run")
      .map((l) => l.outcome);
    expect(order).toEqual(["check-in-progress", "completed:success"]);
    expect(rig.github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "success" });
    rig.github.assertNoViolations();
  });

  it("the sweep knows Re-verify check runs: a lost Re-verify dispatch completes failure 'never ran' (never the head's earlier full run's verdict); a Re-verify run that completed settles its check run (issue 23)", async () => {
    const clock = sweepClock();
    const rig = await rigs.start({ RECONCILE_AFTER: "2s" }, {}, { now: clock.now });
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.addWorkflow({
      file: WORKFLOW_FILE,
      inputs: [{ name: "mode" }, { name: "sha" }, { name: "pull-request" }],
    });
    const first = await runCompletedButNotDelivered(rig);
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    expect(first).toMatchObject({ status: "completed", conclusion: "success" });
    const clicked = await rig.deliver("check_run", clickOn(first, "mona", "reverify"));
    expect(clicked.outcome).toBe("dispatched");
    const lost = rig.github.state.checkRuns.find((c) => c.id !== first.id)!;
    expect(lost).toMatchObject({ status: "queued", externalId: "evidence-gate-bot:pr=42:verify" });
    // The dispatch produced no run (GitHub lost it, or the process died with it): no such run, ever. Until
    // twice RECONCILE_AFTER has passed it may still show up: the check run waits. (GitHub's started_at has
    // whole seconds: it may read up to a second early.)
    clock.ahead = 2_100;
    await rig.bot.reconcile();
    expect(lost).toMatchObject({ status: "queued", conclusion: null });
    clock.ahead = 4_100;
    await rig.bot.reconcile();
    expect(lost).toMatchObject({ status: "completed", conclusion: "failure", actions: [REVERIFY_BUTTON] });
    expect(lost.output.title).toBe("evidence-gate: Re-verify never ran");
    // Logged as every lost click is (a lost Approve: `lost-click:completed:action_required`, below).
    expect(rig.logs.filter((l) => l.kind === "reconcile-check").at(-1)).toMatchObject({
      checkRun: lost.id,
      outcome: "lost-click:completed:failure",
    });

    // Again; this time the run exists and completed, but its delivery was lost.
    expect((await rig.deliver("check_run", clickOn(lost, "mona", "reverify"))).outcome).toBe("dispatched");
    const fresh = rig.github.state.checkRuns.at(-1)!;
    expect(fresh).toMatchObject({ status: "queued", externalId: "evidence-gate-bot:pr=42:verify" });
    const VERIFY_RUN = 30_500_000;
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: VERIFY_RUN,
      headSha: BASE_HEAD,
      fork: false,
      pullRequest: false,
    });
    dispatchedRunCompleted(rig, {
      runId: VERIFY_RUN,
      path: `.github/workflows/${WORKFLOW_FILE}`,
      displayTitle: `evidence-gate verify ${HEAD}`,
    });
    // The sweep as 2.1 s after this click would see it (the earlier check run is settled already).
    clock.ahead = 2_100;
    await rig.bot.reconcile();
    expect(fresh).toMatchObject({
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${VERIFY_RUN}:attempt=1:verify`,
    });
    rig.github.assertNoViolations();
  });

  it("in a busy repository the sweep still finds the Re-verify run: it lists that workflow file's dispatch runs since the check run started, every page — not the repository's 100 newest", async () => {
    const clock = sweepClock();
    const rig = await rigs.start({ RECONCILE_AFTER: "1s" }, {}, { now: clock.now });
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.addWorkflow({
      file: WORKFLOW_FILE,
      inputs: [{ name: "mode" }, { name: "sha" }, { name: "pull-request" }],
    });
    const first = await runCompletedButNotDelivered(rig);
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    expect((await rig.deliver("check_run", clickOn(first, "mona", "reverify"))).outcome).toBe("dispatched");
    const fresh = rig.github.state.checkRuns.at(-1)!;
    expect(fresh).toMatchObject({ status: "queued", externalId: "evidence-gate-bot:pr=42:verify" });
    const VERIFY_RUN = 30_500_000;
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: VERIFY_RUN,
      headSha: BASE_HEAD,
      fork: false,
      pullRequest: false,
    });
    dispatchedRunCompleted(rig, {
      runId: VERIFY_RUN,
      path: `.github/workflows/${WORKFLOW_FILE}`,
      displayTitle: `evidence-gate verify ${HEAD}`,
    });
    // Then 80 dispatch runs of another workflow and 80 Re-verifies of other heads, all newer.
    for (let i = 1; i <= 160; i += 1) {
      const other = (i % 16).toString(16).repeat(40);
      dispatchedRunCompleted(rig, {
        runId: VERIFY_RUN + i,
        path: i <= 80 ? ".github/workflows/deploy.yml" : `.github/workflows/${WORKFLOW_FILE}`,
        displayTitle: i <= 80 ? "deploy" : `evidence-gate verify ${other === HEAD ? "f".repeat(40) : other}`,
      });
    }
    clock.ahead = 1_100;
    await rig.bot.reconcile();
    expect(fresh, JSON.stringify(rig.logs.filter((l) => l.kind === "reconcile-check"))).toMatchObject({
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${VERIFY_RUN}:attempt=1:verify`,
    });
    rig.github.assertNoViolations();
  });

  it("the sweep repairs a lost Approve click: a check run left in_progress awaiting a resume that never ran waits at its gate again, with its buttons; a resume run that completed settles it (issue 23)", async () => {
    const clock = sweepClock();
    const rig = await rigs.start({ RECONCILE_AFTER: "1s" }, {}, { now: clock.now });
    rig.github.state.setCollaborator("mona", "write");
    const paused = pausedLedger(HEAD);
    const check = await runCompletedButNotDelivered(rig, HEAD, RUN, true, paused);
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required" });
    const buttons = structuredClone(check.actions);
    const approve = buttons!.find((a) => a.identifier.startsWith("approve-"))!.identifier;
    expect((await rig.deliver("check_run", clickOn(check, "mona", approve))).outcome).toBe("dispatched");
    expect(check).toMatchObject({ status: "in_progress" });
    expect(check.externalId).toContain(`:resume=${paused.runId}`);
    // No resume run ever appears (the bound: twice RECONCILE_AFTER since the check run started).
    clock.ahead = 2_100;
    await rig.bot.reconcile();
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required", actions: buttons });
    expect(check.externalId).toBe(`evidence-gate-bot:pr=42:run=${RUN}:attempt=1`);
    expect(rig.logs.filter((l) => l.kind === "reconcile-check").at(-1)).toMatchObject({
      outcome: "lost-click:completed:action_required",
    });

    // Clicked again; the resume run completes, and its delivery is lost.
    expect((await rig.deliver("check_run", clickOn(check, "mona", approve))).outcome).toBe("dispatched");
    const RESUME_RUN = 30_600_000;
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, runId: paused.runId, headSha: HEAD },
      runId: RESUME_RUN,
      headSha: BASE_HEAD,
      fork: false,
      pullRequest: false,
    });
    dispatchedRunCompleted(rig, {
      runId: RESUME_RUN,
      path: `.github/workflows/${RESUME_WORKFLOW_FILE}`,
      displayTitle: `evidence-gate resume ${paused.runId} ${HEAD}`,
    });
    clock.ahead = 1_100;
    await rig.bot.reconcile();
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    expect(rig.github.state.dispatches).toHaveLength(2);
    rig.github.assertNoViolations();
  });
});
