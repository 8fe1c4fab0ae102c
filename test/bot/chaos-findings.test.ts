/**
 * What the chaos test (`test/e2e/bot-chaos.test.ts`) found, each pinned down alone with the real bot in-process
 * and the OpenAPI-checked GitHub double:
 *
 * - the same Re-run click delivered twice and worked on two replicas at once: the copy that comes second
 *   finds the clicked check run still current (the first copy re-ran the run but has not yet made the fresh
 *   check run) — it got GitHub's 403 "already running" and completed the clicked, passing check run
 *   `failure`, or, once attempt 2 had finished, re-ran the run a second time (a model's spend);
 * - a check-run create whose answer was lost twice (a 5xx after GitHub made the run; Octokit retries it)
 *   left a check run named `evidence-gate` `queued` on the commit for good, beside the one the App kept:
 *   only the create's own last run was renamed a duplicate;
 * - a replica killed between a create and the rename of its race-losing duplicate left that duplicate
 *   `queued` for good: no delivery moves it (lookups take the lower id), and the reconcile sweep found it
 *   open, settled "its" workflow run through the handler — which wrote to the other check run — and left it;
 * - (seed 322255) a Re-run's fresh check run, `queued` for attempt 2, found by a reconcile sweep before attempt
 *   2 had sent anything: the GitHub double answered `GET …/actions/runs/{id}` with `run_attempt: 2` but attempt
 *   1's `status: completed` and conclusion, so the sweep settled the attempt-2 check run from attempt 1's run —
 *   and its ledger — and attempt 2's own `completed` was then stale. GitHub puts a re-run run back `queued`
 *   (`conclusion: null`) for its new attempt; the double now does too, and this pins what the App then does.
 */
import { describe, expect, it } from "vitest";
import { readBotConfig } from "../../src/bot/config.js";
import { createBotLog } from "../../src/bot/delivery-log.js";
import { reconcileOpenCheckRuns } from "../../src/bot/reconcile.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { FAILURE_LEDGER, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  BOT_APP,
  type BotRig,
  botEnv,
  botRigs,
  checkRunPayload,
  pullRequestPayload,
  uploadLedger,
  workflowRunPayload,
} from "../support/bot-harness.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BASE = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN = 30_433_642;
const rigs = botRigs();

/** Pull request #42's same-repository run RUN completed with a passing ledger: the App's check run says so. */
async function passedRun(rig: BotRig, ledger: Ledger = SUCCESS_LEDGER) {
  rig.github.state.addPullRequest({ number: 42, headSha: HEAD, headRef: "fix-sum", baseSha: BASE });
  const completed = workflowRunPayload({
    action: "completed",
    runId: RUN,
    headSha: HEAD,
    fork: false,
    pullRequest: 42,
  }) as { workflow_run: Record<string, unknown> };
  const run = rig.github.state.addWorkflowRun({ id: RUN, headSha: HEAD, body: completed.workflow_run });
  await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: false }));
  uploadLedger(rig.github, {
    ledger: { ...ledger, headSha: HEAD },
    runId: RUN,
    headSha: HEAD,
    fork: false,
  });
  await rig.deliver("workflow_run", completed);
  const check = rig.github.state.checkRuns[0]!;
  expect(check).toMatchObject({ status: "completed", conclusion: ledger.conclusion!.conclusion });
  return { run, check };
}

describe("found by the chaos test", () => {
  it("a copy of a Re-run click worked after another replica re-ran the run, before it made the fresh check run: nothing is written and nothing re-run — while attempt 2 runs and after it finished", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const { run, check } = await passedRun(rig);

    // The other replica's copy of the click: GitHub re-ran the run (attempt 2 is running).
    run.attempt = 2;
    run.running = true;
    const click = checkRunPayload({
      action: "rerequested",
      checkRunId: check.id,
      headSha: HEAD,
      sender: "mona",
    });
    const whileRunning = await rig.deliver("check_run", click);
    expect(whileRunning.outcome).toBe("stale");
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });

    // Attempt 2 finished; the other replica died before its fresh check run: a copy still re-runs nothing.
    run.running = false;
    const afterwards = await rig.deliver("check_run", click);
    expect(afterwards.outcome).toBe("stale");
    expect(rig.github.state.reruns).toEqual([]);
    expect(run.attempt).toBe(2);
    expect(rig.github.state.checkRuns).toHaveLength(1);
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    rig.github.assertNoViolations();
  });

  it("a check-run create whose answer is lost twice (GitHub made the run, then a 500; Octokit retries): one check run named evidence-gate stays, every other is renamed a duplicate and skipped", async () => {
    const rig = await rigs.start();
    rig.github.failNext({
      method: "POST",
      pathPattern: "/repos/{owner}/{repo}/check-runs",
      status: 500,
      afterHandling: true,
      times: 2,
    });
    const opened = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }));
    expect(opened.statusCode).toBe(202);
    const runs = rig.github.state.checkRuns;
    expect(runs).toHaveLength(3);
    expect(runs.filter((r) => r.name === "evidence-gate")).toHaveLength(1);
    expect(runs.filter((r) => r.name === "evidence-gate (duplicate)").map((r) => r.conclusion)).toEqual([
      "skipped",
      "skipped",
    ]);
    // The kept one is the first GitHub made; the workflow's run completes it as usual.
    const kept = runs.find((r) => r.name === "evidence-gate")!;
    expect(kept.id).toBe(Math.min(...runs.map((r) => r.id)));
    await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD }));
    expect(kept.status).toBe("in_progress");
    rig.github.assertNoViolations();
  });

  it("a race's duplicate its replica never renamed (killed between the create and the rename) is renamed and skipped by the reconcile sweep; the commit's check run keeps its verdict", async () => {
    const rig = await rigs.start();
    const { check } = await passedRun(rig);
    // The other replica's create for the same pull_request delivery, made just after; then it died.
    const orphan = rig.github.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD,
      app: BOT_APP,
      status: "queued",
      externalId: "evidence-gate-bot:pr=42",
    });
    const lines: Record<string, unknown>[] = [];
    const log = createBotLog({ secrets: [], write: (l) => void lines.push(JSON.parse(l)) });
    const later = () => new Date(Date.now() + 3_600_000);
    const sweep = await reconcileOpenCheckRuns(rig.bot.bot, readBotConfig(botEnv(rig.github)), log, later);
    expect(sweep).toMatchObject({ open: 1, duplicates: 1, failed: 0 });
    expect(orphan).toMatchObject({
      name: "evidence-gate (duplicate)",
      status: "completed",
      conclusion: "skipped",
    });
    expect(check).toMatchObject({ name: "evidence-gate", status: "completed", conclusion: "success" });
    // Nothing is open any more.
    expect(
      await reconcileOpenCheckRuns(rig.bot.bot, readBotConfig(botEnv(rig.github)), log, later),
    ).toMatchObject({
      open: 0,
    });
    rig.github.assertNoViolations();
  });

  it("a Re-run's fresh check run swept before its attempt sent anything stays open for that attempt — never settled from the attempt before it — and completes with its own ledger", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    // Attempt 1 fails (pull request 113 in seed 322255); a writer re-runs it.
    const { check } = await passedRun(rig, FAILURE_LEDGER);
    const click = checkRunPayload({
      action: "rerequested",
      checkRunId: check.id,
      headSha: HEAD,
      sender: "mona",
    });
    expect((await rig.deliver("check_run", click)).outcome).toBe("rerun");
    const fresh = rig.github.state.checkRuns.find((c) => c.id !== check.id)!;
    expect(fresh).toMatchObject({
      status: "queued",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=2`,
    });

    // A sweep past RECONCILE_AFTER, before attempt 2 reported: GitHub shows the run queued for attempt 2.
    const lines: Record<string, unknown>[] = [];
    const log = createBotLog({ secrets: [], write: (l) => void lines.push(JSON.parse(l)) });
    const later = () => new Date(Date.now() + 3_600_000);
    const sweep = await reconcileOpenCheckRuns(rig.bot.bot, readBotConfig(botEnv(rig.github)), log, later);
    expect(sweep).toMatchObject({ open: 1, left: 1, settled: 0, failed: 0 });
    expect(lines.find((l) => l.kind === "reconcile-check")).toMatchObject({ outcome: "left:running" });
    expect(fresh.status).toBe("queued");
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });

    // Attempt 2 runs and passes: its check run completes with its ledger.
    for (const action of ["requested", "in_progress"] as const) {
      const payload = workflowRunPayload({
        action,
        runId: RUN,
        headSha: HEAD,
        attempt: 2,
        fork: false,
        pullRequest: 42,
      });
      await rig.deliver("workflow_run", payload);
    }
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      fork: false,
    });
    const completed = workflowRunPayload({
      action: "completed",
      runId: RUN,
      headSha: HEAD,
      attempt: 2,
      fork: false,
      pullRequest: 42,
    });
    await rig.deliver("workflow_run", completed);
    expect(fresh).toMatchObject({ status: "completed", conclusion: "success" });
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(rig.github.state.checkRuns.filter((c) => c.name === "evidence-gate")).toHaveLength(2);
    rig.github.assertNoViolations();
  });
});
