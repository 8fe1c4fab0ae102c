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
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readBotConfig } from "../../src/bot/config.js";
import { createBotLog } from "../../src/bot/delivery-log.js";
import { reconcileOpenCheckRuns } from "../../src/bot/reconcile.js";
import { startBot } from "../../src/bot/start-bot.js";
import { SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  artifactsOutage,
  type BotRig,
  botEnv,
  botRigs,
  pullRequestPayload,
  secondaryRateLimit,
  uploadLedger,
  workflowRunPayload,
} from "../support/bot-harness.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BASE = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN = 30_433_642;
const rigs = botRigs();

/** A pull request whose check run went `in_progress` for workflow run `RUN`; the run then completed at GitHub. */
async function runCompletedButNotDelivered(rig: BotRig, headSha = HEAD, runId = RUN, readable = true) {
  rig.github.state.addPullRequest({
    number: 42,
    headSha,
    baseSha: BASE,
    headRepository: "forker/widgets",
    headRef: "fix-sum",
  });
  await rig.deliver("pull_request", pullRequestPayload({ headSha, fork: true }));
  await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId, headSha }));
  uploadLedger(rig.github, { ledger: { ...SUCCESS_LEDGER, headSha }, runId, headSha });
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
    const rig = await rigs.start({ RECONCILE_AFTER: "1s" });
    const check = await runCompletedButNotDelivered(rig, HEAD, RUN, false);
    await sleep(1_100);
    await rig.bot.reconcile();
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.title).toBe(`Workflow run ${RUN} is gone`);
    expect(rig.logs.filter((l) => l.kind === "reconcile").at(-1)).toMatchObject({ open: 1, gone: 1 });
    rig.github.assertNoViolations();
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
});
