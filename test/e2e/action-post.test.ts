/**
 * The action's post step (`runs.post: dist/post.js`, SPEC §2, §6): `node dist/post.js` run as the runner
 * runs it (saved state as `STATE_*` variables, test/support/action-harness.ts) against the local GitHub
 * server that holds every request to GitHub's OpenAPI description. A check run the main step left in
 * progress is completed `cancelled` (cancel requested) or `failure` (the run ended before reporting); a check
 * run that is already completed is never written; a failed write fails the step. And the main step's own
 * cancellation (src/action/main.ts): on SIGTERM it saves `cancel-requested`, stops the running node and
 * completes the check run `cancelled` itself, so its post step has nothing to write.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  actionTestResources,
  type PostRun,
  runPostStep,
  stepDebug,
  TEST_GITHUB_TOKEN,
} from "../support/action-harness.js";
import { type GitHubServer, startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const CHECK_RUN = "/repos/{owner}/{repo}/check-runs/{check_run_id}";
const CREATE = "/repos/{owner}/{repo}/check-runs";
const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const RUN_ID = "20250311-093000-a1b2c3";

const open = actionTestResources();

async function github(): Promise<GitHubServer> {
  open.github = await startGitHubServer({ token: TEST_GITHUB_TOKEN });
  return open.github;
}

/** A check run as the main step would have created it and left it. */
function seed(server: GitHubServer, status: "in_progress" | "queued" = "in_progress") {
  return server.state.seedCheckRun({ name: "evidence-gate", headSha: HEAD_SHA, status, externalId: RUN_ID });
}

function patches(result: PostRun) {
  return result.calls.filter((c) => c.method === "PATCH");
}

describe("post step: a check run the main step left in progress is completed, never left green or stuck (SPEC §6)", () => {
  it("still in_progress and no flag saved: completed failure saying the run ended before reporting; the step passes with a warning", async () => {
    const server = await github();
    const stored = seed(server);

    const result = await runPostStep({
      github: server,
      state: { "check-run-id": String(stored.id), "run-id": RUN_ID },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.calls.map((c) => [c.method, c.route, c.status])).toEqual([
      ["GET", CHECK_RUN, 200],
      ["PATCH", CHECK_RUN, 200],
    ]);
    expect(result.calls.every((c) => c.authorization === `token ${TEST_GITHUB_TOKEN}`)).toBe(true);
    expect(stored).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(stored.output.title).toBe("Failed: the run was abandoned");
    expect(stored.output.summary).toContain("ended before reporting (the main step crashed or was killed)");
    expect(stored.output.summary).toContain(RUN_ID);
    expect(stored.output.summary).toContain("https://github.com/octo-org/widgets/actions/runs/7654321");
    // The job summary says the same; a warning annotation tells what the post step did.
    expect(result.summary).toBe(stored.output.summary);
    expect(result.commands.filter((c) => c.startsWith("::warning::"))).toEqual([
      expect.stringContaining("completed it `failure`"),
    ]);
    expect(result.commands.some((c) => c.startsWith("::error::"))).toBe(false);
    server.assertNoViolations();
  });

  it("a check run still queued is completed failure too", async () => {
    const server = await github();
    const stored = seed(server, "queued");

    const result = await runPostStep({ github: server, state: { "check-run-id": String(stored.id) } });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(stored).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(stored.output.summary).toContain("The run ended before reporting");
    expect(stored.output.summary).toContain("`queued`");
    server.assertNoViolations();
  });

  it("cancel requested (the main step got SIGINT/SIGTERM) and still in_progress: completed cancelled saying the workflow was cancelled before the run finished", async () => {
    const server = await github();
    const stored = seed(server);

    const result = await runPostStep({
      github: server,
      state: { "check-run-id": String(stored.id), "run-id": RUN_ID, "cancel-requested": "true" },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(stored).toMatchObject({ status: "completed", conclusion: "cancelled" });
    expect(stored.output.title).toBe("Cancelled");
    expect(stored.output.summary).toContain("The workflow was cancelled before run");
    expect(stored.output.summary).toContain("before it could post its ledger");
    expect(patches(result).map((c) => (c.body as { conclusion?: string }).conclusion)).toEqual(["cancelled"]);
    server.assertNoViolations();
  });
});

describe("post step: nothing to do is nothing written", () => {
  it("the main step completed the check run (check-run-completed saved): no API call at all", async () => {
    const server = await github();
    const stored = seed(server);

    const result = await runPostStep({
      github: server,
      state: { "check-run-id": String(stored.id), "run-id": RUN_ID, "check-run-completed": "true" },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.calls).toEqual([]);
    expect(server.callsTo("PATCH", CHECK_RUN)).toEqual([]);
    expect(stored.status).toBe("in_progress");
    expect(result.stdout).toContain(`the main step completed check run ${stored.id}: nothing to do`);
    server.assertNoViolations();
  });

  it("the check run is already completed (by someone else): read, never written", async () => {
    const server = await github();
    const stored = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      conclusion: "success",
      externalId: RUN_ID,
    });

    const result = await runPostStep({ github: server, state: { "check-run-id": String(stored.id) } });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.calls.map((c) => [c.method, c.route])).toEqual([["GET", CHECK_RUN]]);
    expect(stored).toMatchObject({ status: "completed", conclusion: "success" });
    expect(result.stdout).toContain("already completed (success): nothing to do");
    server.assertNoViolations();
  });

  it("the check run now carries another run's id (a newer run took it over): left alone", async () => {
    const server = await github();
    const stored = seed(server);

    const result = await runPostStep({
      github: server,
      state: { "check-run-id": String(stored.id), "run-id": "20250311-080000-000000" },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(patches(result)).toEqual([]);
    expect(stored.status).toBe("in_progress");
    expect(result.stdout).toContain(`now carries run ${RUN_ID}`);
    server.assertNoViolations();
  });

  it("no check run id saved (the main step never created one): no API call, exit 0", async () => {
    const server = await github();

    const result = await runPostStep({ github: server, state: {} });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.calls).toEqual([]);
    expect(result.stdout).toContain("saved no check run id");
    server.assertNoViolations();
  });
});

describe("post step: a failed API write is reported, never swallowed", () => {
  it("a 500 on completing that outlasts the retries (1 + 3 attempts) fails the step naming the check run and GitHub's answer", async () => {
    const server = await github();
    const stored = seed(server);
    server.failNext({ method: "PATCH", pathPattern: CHECK_RUN, status: 500, times: 4 });

    const result = await runPostStep({ github: server, state: { "check-run-id": String(stored.id) } });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(patches(result).map((c) => [c.status, c.injected])).toEqual([
      [500, true],
      [500, true],
      [500, true],
      [500, true],
    ]);
    expect(stored.status).toBe("in_progress");
    const errors = result.commands.filter((c) => c.startsWith("::error::"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`check run ${stored.id} could not be completed`);
    expect(errors[0]).toContain("GitHub answered 500");
    expect(result.summary).toContain("GitHub answered 500");
    server.assertNoViolations();
  }, 60_000);
});

describe("post step after a main step that was killed mid-run (dist/index.js, then dist/post.js)", () => {
  it("SIGKILL while the verify command runs leaves the check run in_progress; the post step, given the GITHUB_STATE the main step wrote, completes it failure", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const server = await github();
    open.model = await startModelServer({ script: fixSumScript({ repoDir: repo.dir }) });
    const marks = mkdtempSync(join(tmpdir(), "eg-post-marks-"));
    open.dirs.push(marks);
    const pidFile = join(marks, "verify.pid");

    let killed = false;
    const main = await open.run({
      workspace: repo.dir,
      // The verify command records its pid and sleeps: the main step is killed while it runs.
      inputs: { goal: `${MARKS.plannerGoal}.`, "verify-cmd": `echo $$ > '${pidFile}'; exec sleep 60` },
      github: server,
      model: open.model,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const created = server.callsTo("POST", CREATE).some((c) => c.status === 201);
          if (!created || !existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") return;
          clearInterval(poll);
          open.pids.push(Number(readFileSync(pidFile, "utf8").trim()));
          killed = child.kill("SIGKILL");
        }, 50);
        child.on("close", () => clearInterval(poll));
      },
    });

    expect(killed, `the main step ended before it was killed:\n${main.stdout.slice(-3000)}`).toBe(true);
    expect(main.exitCode).toBeNull();
    expect(server.state.checkRuns).toHaveLength(1);
    const stored = server.state.checkRuns[0]!;
    expect(stored.status).toBe("in_progress");
    // What the runner would hand to the post step: the id, the run id, and no completion or cancel flag.
    expect(main.state["check-run-id"]).toBe(String(stored.id));
    expect(main.state["run-id"]).toBe(stored.externalId);
    expect(main.state["check-run-completed"]).toBeUndefined();
    expect(main.state["cancel-requested"]).toBeUndefined();

    const result = await runPostStep({ github: server, state: main.state });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(stored).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(stored.output.summary).toContain("ended before reporting (the main step crashed or was killed)");
    server.assertNoViolations();
  }, 120_000);

  it("a main step that completes the check run itself saves check-run-completed, and its post step writes nothing", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const server = await github();

    // package.json and neither verify-cmd nor accept-no-build-evidence: refused before any model call.
    const main = await open.run({
      workspace: repo.dir,
      inputs: { goal: `${MARKS.plannerGoal}.` },
      github: server,
    });
    expect(main.exitCode).toBe(1);
    expect(server.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(main.state["check-run-completed"]).toBe("true");

    const result = await runPostStep({ github: server, state: main.state });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.calls).toEqual([]);
    expect(server.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "action_required" });
    server.assertNoViolations();
  });
});

describe("main step cancelled by the runner (dist/index.js gets SIGTERM, then dist/post.js)", () => {
  it("SIGTERM while a node waits on the model: the node is stopped, the main step completes the check run cancelled and saves it; its post step writes nothing", async () => {
    const repo = open.keep(await makeSampleNodeRepo());
    const server = await github();
    // The planner answers a one-node review plan; the review node's model never answers (in time).
    open.model = await startModelServer({
      script: {
        conversations: [
          { name: "review", match: MARKS.review, turns: [{ text: "never sent", delay_ms: 600_000 }] },
          { name: "planner", match: MARKS.plannerGoal, turns: [{ text: reviewOnlyPlan() }] },
        ],
      },
    });
    const model = open.model;

    let signalled = false;
    const main = await open.run({
      workspace: repo.dir,
      inputs: { goal: `${MARKS.plannerGoal}.`, "verify-cmd": "npm test" },
      github: server,
      model,
      // Bounds a broken test (a step that ignores the signal); never asserted as a duration.
      timeoutMs: 60_000,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          const created = server.callsTo("POST", CREATE).some((c) => c.status === 201);
          const nodeWaiting = model.requests.some((r) => r.conversation === "review");
          if (!created || !nodeWaiting) return;
          clearInterval(poll);
          signalled = child.kill("SIGTERM");
        }, 50);
        child.on("close", () => clearInterval(poll));
      },
    });

    expect(signalled, `the main step ended before it was signalled:\n${main.stdout.slice(-3000)}`).toBe(true);
    // The step ended on its own (not killed by the signal's default action) and did not pass.
    expect(main.exitCode, stepDebug(main)).not.toBeNull();
    expect(main.exitCode).not.toBe(0);
    expect(main.stdout).toContain("evidence-gate: SIGTERM received — stopping the running nodes");
    expect(server.state.checkRuns).toHaveLength(1);
    const stored = server.state.checkRuns[0]!;
    expect(stored).toMatchObject({ status: "completed", conclusion: "cancelled" });
    // The node never got an answer: no model reply was written after the signal.
    expect(
      model.requests.filter((r) => r.conversation === "review").every((r) => r.answeredAt === null),
    ).toBe(true);
    expect(main.state["cancel-requested"]).toBe("true");
    expect(main.state["check-run-completed"]).toBe("true");

    const result = await runPostStep({ github: server, state: main.state });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.calls.filter((c) => c.method !== "GET")).toEqual([]);
    expect(stored).toMatchObject({ status: "completed", conclusion: "cancelled" });
    server.assertNoViolations();
  }, 120_000);
});
