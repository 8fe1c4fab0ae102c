/**
 * The bot with the real action (`node dist/index.js`, as the runner runs it — build first with
 * `npm run build`) and the real command (`node dist/cli.js bot`):
 *
 * 1. a fork's pull request runs the action (a hand-written graph verified by `npm test`): it posts no check run and uploads
 *    `evidence-gate-ledger`; the bot, told of the pull request and of the workflow run, completes the App's
 *    check run from that artifact — with the same conclusion, title, summary and text `mode: report` posts
 *    from it (only "posted by" differs);
 * 2. a same-repository pull request with `report-to: bot`: the action makes no check-run or comment call
 *    and uploads the ledger with its run-state digests; the App's paused check run carries them; a writer's
 *    Approve dispatches the resume, which the action runs (`mode: resume`, `approver` the writer, the App
 *    the actor, `report-to: bot`) — it finds the digests on the App's check run by run id — and the
 *    resume workflow's completion completes the App's check run from the resumed ledger, approved by the
 *    writer (issue 11);
 * 3. a same-repository pull request with `push: true` and `report-to: bot`: the action pushes the verified fix to
 *    the branch (a real bare repository behind `git http-backend`) and posts nothing; the bot checks the
 *    pushed commit through the API, supersedes the head's check run and completes the pushed commit's — the
 *    one the push's `synchronize` queued — with the verdict; no check run is left open;
 * 4. `evidence-gate bot` starts from the environment, answers `/healthz`, stops on SIGTERM, and refuses to
 *    start naming a missing variable.
 *
 * A fork's paused ledger offering Approve / Reject and a writer's Approve dispatching the resume are
 * test/bot/rerun-and-buttons.test.ts (in-process); a comment run bound by its run-name,
 * test/bot/two-stage.test.ts; a fork's comment leg of the action, test/e2e/action-triggers.test.ts.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import {
  actionTestResources,
  REPO_ROOT,
  startArtifactService,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
  type UploadedArtifact,
} from "../support/action-harness.js";
import {
  botEnv,
  botRigs,
  checkRunPayload,
  FORK,
  pullRequestPayload,
  RESUME_WORKFLOW_FILE,
  startAppGitHubServer,
  WEBHOOK_SECRET,
  workflowRunPayload,
} from "../support/bot-harness.js";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { GATED_GRAPH, GRAPH_PATH, handGraphScript, REVIEW_GRAPH } from "../support/scenarios/hand-graphs.js";
import { commitAll, makeFixedSampleRepo, makeSampleNodeRepo, makeTempRepo } from "../support/temp-repo.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN = 30_433_642;
const RESUME_RUN = 30_433_700;
/** The default branch's head: the resume workflow runs there. */
const MAIN_SHA = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";
const open = actionTestResources();
const rigs = botRigs();
/** The push token: the only credential the git server accepts. */
const PUSH_TOKEN = "ghp_botPushE2eToken00000000000000000000";
/** `pull_request.head.ref` of the action's event fixture: the branch push mode pushes to. */
const BRANCH = "retry-exporter";
let gitServer: GitHttpServer | undefined;
afterEach(async () => {
  await gitServer?.close();
  gitServer = undefined;
});

function ledgerOf(service: { artifacts: UploadedArtifact[] }): UploadedArtifact {
  const uploaded = service.artifacts.find((a) => a.name === "evidence-gate-ledger");
  expect(uploaded?.finalized).toBe(true);
  return uploaded!;
}

describe("the bot with the bundled action", () => {
  it("a fork's run of the action uploads its ledger; the App's check run completes from it with what mode: report would post", {
    timeout: 300_000,
  }, async () => {
    const repo = open.keep(await makeFixedSampleRepo("the pull request"));
    const head = await repo.git(["rev-parse", "HEAD"]);
    const rig = await rigs.start({}, { otherTokens: [TEST_GITHUB_TOKEN] });
    open.service = await startArtifactService();
    open.model = await startModelServer({ script: handGraphScript() });
    rig.github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: REVIEW_GRAPH });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: head, fork: true }));

    // A key is given and no writer approved the fork's head: verify-only (issue 12 item 4).
    const stage1 = await open.run({
      workspace: repo.dir,
      inputs: { goal: "Review the change.", "verify-cmd": "npm test" },
      github: rig.github,
      model: open.model,
      headRepository: FORK,
      env: open.service.env,
    });
    expect(stage1.exitCode, stepDebug(stage1)).toBe(0);
    expect(stage1.calls.filter((c) => (c.route ?? "").includes("check-runs"))).toEqual([]);
    const uploaded = ledgerOf(open.service);

    await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId: RUN, headSha: head }));
    // The fork's open pull request (found by its head: GitHub links none to a fork's run) changes no workflow.
    const forkPull = {
      number: 42,
      headSha: head,
      headRef: "fix-sum",
      headRepository: FORK,
      baseSha: BASE_SHA,
    };
    rig.github.state.addPullRequest(forkPull);
    rig.github.state.addArtifact({
      name: uploaded.name,
      zip: uploaded.zip,
      headSha: head,
      fromFork: true,
      workflowRunId: RUN,
    });
    const done = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: head }),
    );
    expect([done.statusCode, done.outcome], done.response).toEqual([202, "completed:success"]);
    const check = rig.github.state.checkRuns.find((r) => r.name === "evidence-gate")!;
    expect(check).toMatchObject({ headSha: head, status: "completed", conclusion: "success" });
    rig.github.assertNoViolations();

    // mode: report, from the same artifact on the same event, with GITHUB_TOKEN.
    const plain = await startGitHubServer();
    try {
      plain.state.addPullRequest(forkPull);
      plain.state.addArtifact({
        name: uploaded.name,
        zip: uploaded.zip,
        headSha: head,
        fromFork: true,
        workflowRunId: RUN,
      });
      const report = await open.run({
        workspace: repo.dir,
        github: plain,
        event: {
          name: "workflow_run",
          payload: workflowRunPayload({ action: "completed", runId: RUN, headSha: head }),
        },
        inputs: { mode: "report", "anthropic-api-key": "" },
      });
      expect(report.exitCode, stepDebug(report)).toBe(0);
      const posted = plain.state.checkRuns[0]!;
      const same = (text: string | null) =>
        (text ?? "")
          // The App's summary opens with the delivery that completed it (de-duplication on completion).
          .replace(/^<!-- evidence-gate-bot delivery=[0-9A-Za-z-]+ -->\n/, "")
          .replace("Posted by `mode: report`", "Posted by the evidence-gate App")
          .replace(/\(id \d+\)/g, "(id N)");
      expect(check.conclusion).toBe(posted.conclusion);
      expect(check.output.title).toBe(posted.output.title);
      expect(same(check.output.summary)).toBe(same(posted.output.summary));
      expect(check.output.text).toBe(posted.output.text);
      expect(check.output.summary).toContain("PASS (verified)");
      plain.assertNoViolations();
    } finally {
      await plain.close();
    }
  });
});

describe("report-to: bot, Approve, resume: the App's check run from pause to the resumed verdict (issue 11)", () => {
  it("a same-repository gated run posts nothing itself; the writer's Approve resumes it with the writer as approver; the resume's completion completes the App's check run success", {
    timeout: 300_000,
  }, async () => {
    const repo = open.keep(await makeFixedSampleRepo("the pull request"));
    const head = await repo.git(["rev-parse", "HEAD"]);
    const rig = await rigs.start({}, { otherTokens: [TEST_GITHUB_TOKEN] });
    open.service = await startArtifactService();
    open.model = await startModelServer({ script: handGraphScript() });
    const { github } = rig;
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: GATED_GRAPH });
    github.state.addPullRequest({ number: 42, headSha: head, baseSha: BASE_SHA });
    github.state.setCollaborator("mona", "write");
    await rig.deliver("pull_request", pullRequestPayload({ headSha: head }));

    // 1. The pull request's run, report-to: bot: no check-run call, no comment, the artifacts only.
    const paused = await open.run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH, inputs: "file=src/sum.js", "report-to": "bot" },
      github,
      model: open.model,
      env: open.service.env,
    });
    expect(paused.outputs.outcome, stepDebug(paused)).toBe("paused");
    const touched = (r: typeof paused) =>
      r.calls.filter((c) => /check-runs|comments/.test(c.route ?? c.path) && c.method !== "GET");
    expect(touched(paused)).toEqual([]);
    expect(paused.calls.filter((c) => /check-runs|comments/.test(c.route ?? c.path))).toEqual([]);
    expect(paused.summary).toContain("report-to: bot");
    const runId = paused.outputs["run-id"]!;
    const runDir = open.service.artifacts.find((a) => a.name === `evidence-gate-run-${runId}`)!;
    github.state.addArtifact({ name: runDir.name, zip: runDir.zip, headSha: head, workflowRunId: RUN });
    const firstLedger = ledgerOf(open.service);
    github.state.addArtifact({
      name: firstLedger.name,
      zip: firstLedger.zip,
      headSha: head,
      workflowRunId: RUN,
    });
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: head, fork: false, pullRequest: 42 }),
    );
    const check = github.state.checkRuns.find((r) => r.name === "evidence-gate")!;
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required" });
    // The digests the resumed leg checks its run directory against, from the ledger artifact.
    expect(check.output.summary).toContain(`<!-- evidence-gate-run-state run=${runId} state=`);

    // 2. The writer's Approve: the resume is dispatched, the check in progress, still carrying the digests.
    const clicked = await rig.deliver(
      "check_run",
      checkRunPayload({
        action: "requested_action",
        checkRunId: check.id,
        headSha: head,
        sender: "mona",
        // The Approve button as shown: its identifier binds this run, leg and gate.
        identifier: check.actions!.find((a) => a.label === "Approve sign-off")!.identifier,
      }),
    );
    expect(clicked.outcome).toBe("dispatched");
    expect(github.state.dispatches[0]?.inputs).toEqual({
      "run-id": runId,
      sha: head,
      "approve-gate": "sign-off",
      approver: "mona",
    });
    expect(check.status).toBe("in_progress");
    expect(check.output.summary).toContain(`<!-- evidence-gate-run-state run=${runId} state=`);

    // 3. The resume workflow, as the App dispatched it: GITHUB_ACTOR is the App, the approver the writer.
    const other = open.keep(await makeTempRepo({ noGit: true }));
    const checkout = join(other.dir, "checkout");
    await repo.git(["clone", "--quiet", repo.dir, checkout]);
    const resumed = await open.run({
      workspace: checkout,
      github,
      model: open.model,
      event: { name: "workflow_dispatch", inputs: { "run-id": runId } },
      inputs: {
        mode: "resume",
        "resume-run-id": runId,
        "approve-gate": "sign-off",
        approver: "mona",
        "report-to": "bot",
      },
      env: { ...open.service.env, GITHUB_ACTOR: "evidence-gate-app[bot]" },
    });
    expect(resumed.exitCode, stepDebug(resumed)).toBe(0);
    expect(resumed.outputs).toMatchObject({ outcome: "passed", conclusion: "success", "run-id": runId });
    expect(touched(resumed)).toEqual([]);
    const resumedLedger = JSON.parse(readFileSync(resumed.outputs["ledger-path"]!, "utf8")) as Ledger;
    const gateRow = resumedLedger.rows.find((r) => r.nodeId === "sign-off")!;
    expect(gateRow).toMatchObject({ verdict: "PASS", qualifier: "approved" });
    expect(gateRow.verdict === "PASS" && gateRow.approvedBy).toEqual({ login: "mona", headSha: head });
    expect(gateRow.detail).toContain("dispatched by evidence-gate-app[bot]");

    // 4. The resume workflow's run completes: the App's check run completes from its ledger.
    const ledgers = open.service.artifacts.filter((a) => a.name === "evidence-gate-ledger");
    expect(ledgers).toHaveLength(2);
    github.state.addArtifact({
      name: ledgers[1]!.name,
      zip: ledgers[1]!.zip,
      headSha: MAIN_SHA,
      workflowRunId: RESUME_RUN,
    });
    const resumeDone = workflowRunPayload({
      action: "completed",
      runId: RESUME_RUN,
      headSha: MAIN_SHA,
      fork: false,
      event: "workflow_dispatch",
      path: `.github/workflows/${RESUME_WORKFLOW_FILE}`,
      headBranch: "main",
      displayTitle: `evidence-gate resume ${runId} ${head}`,
    });
    const done = await rig.deliver("workflow_run", resumeDone);
    expect(done.outcome, done.response).toBe("completed:success");
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    expect(check.output.summary).toContain("approved by @mona");
    expect(check.externalId).not.toContain("resume=");
    // A redelivery writes nothing more.
    const again = await rig.deliver("workflow_run", resumeDone);
    expect(again.outcome).toBe("stale");
    github.assertNoViolations();
  });
});

describe("push: true with report-to: bot: the App's check run follows the pushed commit (issue 11)", () => {
  it("the action pushes the verified fix and posts nothing; the bot checks the pushed commit through the API, supersedes the head's check run and completes the one the push's synchronize queued with the verdict; none is left open", {
    timeout: 300_000,
  }, async () => {
    // The PR branch (the buggy sample project) in a bare repository served on loopback; the workspace
    // fetched it at depth 1, with no identity and no credential, as actions/checkout leaves it.
    gitServer = await startGitHttpServer({ token: PUSH_TOKEN });
    const bare = await gitServer.createRepository(TEST_REPOSITORY);
    const source = open.keep(await makeSampleNodeRepo());
    await source.write("README.md", "the pull request\n");
    const head = await commitAll(source, "the pull request");
    await source.git(["push", "--quiet", bare, `${head}:refs/heads/${BRANCH}`]);
    const workspace = open.keep(await makeTempRepo({ identity: false }));
    const basic = Buffer.from(`x-access-token:${PUSH_TOKEN}`).toString("base64");
    await workspace.git([
      "-c",
      `http.extraheader=AUTHORIZATION: basic ${basic}`,
      "fetch",
      "--quiet",
      "--depth=1",
      `${gitServer.url}/${TEST_REPOSITORY}.git`,
      `refs/heads/${BRANCH}`,
    ]);
    await workspace.git(["checkout", "--quiet", "--detach", "FETCH_HEAD"]);

    const rig = await rigs.start({}, { otherTokens: [TEST_GITHUB_TOKEN] });
    const { github } = rig;
    open.service = await startArtifactService();
    open.model = await startModelServer({ script: fixSumScript({ repoDir: workspace.dir }) });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: head }));
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "requested", runId: RUN, headSha: head, fork: false, pullRequest: 42 }),
    );

    const step = await open.run({
      workspace: workspace.dir,
      inputs: {
        goal: `${MARKS.plannerGoal}.`,
        "verify-cmd": "npm test",
        push: "true",
        "push-token": PUSH_TOKEN,
        "report-to": "bot",
      },
      github,
      model: open.model,
      headSha: head,
      baseSha: BASE_SHA,
      // `*.localhost` (git's libcurl resolves it to loopback): @actions/artifact refuses to upload when
      // GITHUB_SERVER_URL's host is not github.com, *.ghe.com or *.localhost (it takes 127.0.0.1 for GHES).
      env: { ...open.service.env, GITHUB_SERVER_URL: gitServer.url.replace("127.0.0.1", "git.localhost") },
    });
    expect(step.exitCode, stepDebug(step)).toBe(0);
    expect(step.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    const pushed = step.outputs["pushed-sha"]!;
    expect(await gitServer.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(pushed);
    // report-to: bot: the step made no check-run call at all.
    expect(step.calls.filter((c) => /check-runs/.test(c.route ?? c.path))).toEqual([]);
    const uploaded = ledgerOf(open.service);

    // GitHub now holds the pushed commit (as the bare repository has it), and tells the App of the push.
    const tree = await gitServer.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^{tree}`]);
    const parents = (await gitServer.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^@`])).split("\n");
    github.state.addCommit({ sha: pushed, tree, parents });
    // The pull request's head is now the pushed commit.
    github.state.addPullRequest({ number: 42, headSha: pushed, headRef: BRANCH, baseSha: BASE_SHA });
    await rig.deliver("pull_request", pullRequestPayload({ action: "synchronize", headSha: pushed }));
    expect(github.state.checkRuns.map((r) => [r.headSha, r.status])).toEqual([
      [head, "in_progress"],
      [pushed, "queued"],
    ]);

    github.state.addArtifact({ name: uploaded.name, zip: uploaded.zip, headSha: head, workflowRunId: RUN });
    const completed = workflowRunPayload({
      action: "completed",
      runId: RUN,
      headSha: head,
      fork: false,
      pullRequest: 42,
      headBranch: BRANCH,
    });
    const done = await rig.deliver("workflow_run", completed);
    expect(done.outcome, done.response).toBe("completed:success");
    const [old, next] = github.state.checkRuns;
    expect(github.state.checkRuns).toHaveLength(2);
    expect(github.state.checkRuns.every((r) => r.status === "completed")).toBe(true);
    expect(old).toMatchObject({ headSha: head, conclusion: "neutral" });
    expect(old!.output.title).toBe(`Superseded by ${pushed.slice(0, 7)}`);
    expect(old!.output.summary).toContain(`## Superseded by ${pushed.slice(0, 7)}`);
    expect(old!.output.summary).toContain(
      `pushed them to \`${BRANCH}\` as commit \`${pushed}\` (tree \`${tree}\`)`,
    );
    expect(old!.output.summary).toContain(`[the check run on ${pushed.slice(0, 7)}](http`);
    expect(old!.output.summary).toContain(`/octo-org/widgets/runs/${next!.id})`);
    expect(next).toMatchObject({
      headSha: pushed,
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1`,
      detailsUrl: `https://github.com/octo-org/widgets/actions/runs/${RUN}`,
    });
    expect(next!.output.summary).toContain("PASS (verified)");
    expect(next!.output.summary).toContain(tree.slice(0, 12));
    expect(next!.output.summary).toContain(`pushed to ${BRANCH}`);
    expect(next!.output.summary).toContain("Posted by the evidence-gate App from the artifact");
    // A redelivery of the completion writes nothing more.
    const again = await rig.deliver("workflow_run", completed);
    expect(again.outcome).toBe("stale");
    github.assertNoViolations();
  });
});

describe("evidence-gate bot (dist/cli.js)", () => {
  it("starts from the environment, answers /healthz, logs its start as JSON, and stops on SIGTERM; a missing APP_ID stops it naming the variable", {
    timeout: 60_000,
  }, async () => {
    const github = await startAppGitHubServer();
    try {
      const child = spawn(process.execPath, [`${REPO_ROOT}/dist/cli.js`, "bot"], {
        env: { PATH: process.env.PATH, ...botEnv(github) } as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
      });
      const closed = new Promise<number | null>((done) => child.on("close", done));
      for (let i = 0; i < 100 && !out.includes('"kind":"start"'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const start = JSON.parse(out.split("\n").find((l) => l.includes('"kind":"start"'))!) as { url: string };
      const health = await fetch(`${start.url}/healthz`);
      expect(health.status).toBe(200);
      child.kill("SIGTERM");
      expect(await closed).toBe(0);
      expect(out).toContain('"kind":"stop"');
      expect(github.calls).toEqual([]);

      const refused = spawn(process.execPath, [`${REPO_ROOT}/dist/cli.js`, "bot"], {
        env: { PATH: process.env.PATH, ...botEnv(github, { APP_ID: undefined }) } as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let err = "";
      refused.stderr.setEncoding("utf8").on("data", (c: string) => {
        err += c;
      });
      expect(await new Promise((done) => refused.on("close", done))).toBe(64);
      expect(err).toContain("APP_ID: is not set");
    } finally {
      await github.close();
    }
  });

  it("SIGTERM with work in flight: the process stops accepting, gives the work SHUTDOWN_DEADLINE, asks GitHub to redeliver what did not finish, and exits 0 (issue 23 item 6)", {
    timeout: 60_000,
  }, async () => {
    const github = await startAppGitHubServer();
    try {
      // Production waits, and a 60 s Retry-After on the check-run create: the work outlives the 1 s deadline.
      github.failNext({
        method: "POST",
        pathPattern: "/repos/{owner}/{repo}/check-runs",
        status: 403,
        headers: { "retry-after": "60" },
        body: {
          message:
            "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
          documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
        },
      });
      const child = spawn(process.execPath, [`${REPO_ROOT}/dist/cli.js`, "bot"], {
        env: {
          PATH: process.env.PATH,
          ...botEnv(github, { EVIDENCE_GATE_BACKOFF_SECOND_MS: undefined, SHUTDOWN_DEADLINE: "1s" }),
        } as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        out += c;
      });
      const closed = new Promise<number | null>((done) => child.on("close", done));
      for (let i = 0; i < 100 && !out.includes('"kind":"start"'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const start = JSON.parse(out.split("\n").find((l) => l.includes('"kind":"start"'))!) as { url: string };
      github.state.webhooks.target = { url: start.url, secret: WEBHOOK_SECRET };
      const record = await github.state.webhooks.deliver({
        event: "pull_request",
        payload: pullRequestPayload({ headSha: "0123456789abcdef0123456789abcdef01234567" }),
      });
      expect(record.statusCode).toBe(202);
      child.kill("SIGTERM");
      // Exits long before the 60 s wait would have ended.
      expect(await closed).toBe(0);
      const lines = out
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => l.kind === "stop")).toMatchObject({ abandoned: 1, deliveries: record.guid });
      expect(lines.find((l) => l.kind === "redeliver-one")).toMatchObject({ result: "redelivered" });
      expect(github.callsTo("POST", "/app/hook/deliveries/{delivery_id}/attempts")).toHaveLength(1);
      expect(github.state.checkRuns).toEqual([]);
    } finally {
      await github.close();
    }
  });
});
