/**
 * The two-stage flow under the App's identity (SPEC §2.3), with ledger artifacts the tests build: a
 * pull request opens → the App's check run is `queued` on its head; the workflow runs → `in_progress`, the
 * run linked; it completes → the run's ledger artifact is read as untrusted data (the rule `mode: report`
 * follows) and the check run completes with it — or `failure` naming why, never green. Every handler is
 * idempotent: a replayed delivery writes nothing more, an older attempt never overwrites a newer one, and
 * two deliveries racing for one commit leave one check run.
 */
import { describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { FAILURE_LEDGER, STARTING_TREE, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  BASE_SHA,
  BOT_APP,
  botRigs,
  pullRequestPayload,
  uploadLedger,
  WORKFLOW_FILE,
  workflowRunPayload,
} from "../support/bot-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const RUN = 30_433_642;
const rigs = botRigs();

/** The writes the bot made to the repository (the token exchange is not one). */
function writes(github: GitHubServer) {
  return github.calls.filter(
    (c) => (c.method === "POST" || c.method === "PATCH") && !c.path.includes("access_tokens"),
  );
}

function theCheck(github: GitHubServer) {
  const runs = github.state.checkRuns.filter((r) => r.name === "evidence-gate");
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

describe("the two-stage flow under the App's identity", () => {
  it("pull_request opened → queued on the head, linking the workflow; workflow_run requested → in_progress, linking the run; completed → the ledger's conclusion, re-rendered", async () => {
    const rig = await rigs.start();
    const { github } = rig;

    expect(
      (await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: true }))).statusCode,
    ).toBe(202);
    let check = theCheck(github);
    expect(check).toMatchObject({
      app: BOT_APP,
      headSha: HEAD,
      status: "queued",
      externalId: "evidence-gate-bot:pr=42",
      detailsUrl: `https://github.com/octo-org/widgets/actions/workflows/${WORKFLOW_FILE}`,
    });
    expect(check.output.summary).toContain("pull request #42");

    await rig.deliver("workflow_run", workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD }));
    check = theCheck(github);
    expect(check).toMatchObject({
      status: "in_progress",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1`,
      detailsUrl: `https://github.com/octo-org/widgets/actions/runs/${RUN}`,
    });

    uploadLedger(github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    const done = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }),
    );
    expect(done.statusCode).toBe(202);
    check = theCheck(github);
    expect(check).toMatchObject({
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1`,
    });
    expect(check.output.summary).toContain("PASS (verified)");
    expect(check.output.summary).toContain(
      "Posted by the evidence-gate App from the artifact `evidence-gate-ledger`",
    );
    expect(check.output.summary).toContain("from the fork `forker/widgets`");
    // The artifact came through the API redirect, without the installation token on the storage URL.
    expect(github.blobRequests).toEqual([expect.objectContaining({ status: 200, authorization: undefined })]);
    // Every repository call used an installation token the server issued for the App's JWT.
    const repoCalls = github.calls.filter((c) => c.path.startsWith("/repos/"));
    const tokens = new Set(github.state.appAuth!.tokens.map((t) => `token ${t.token}`));
    expect(repoCalls.every((c) => tokens.has(c.authorization ?? ""))).toBe(true);
    expect(rig.deliveries().map((l) => l.outcome)).toEqual([
      "check-queued",
      "check-in-progress",
      "completed:success",
    ]);
    github.assertNoViolations();
  });

  it("a failed verify completes failure with its annotations on the workflow file, posted 50 per request", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const rows = Array.from({ length: 51 }, (_, i) => ({ ...FAILURE_LEDGER.rows[1]!, nodeId: `build-${i}` }));
    const many: Ledger = {
      ...FAILURE_LEDGER,
      headSha: HEAD,
      rows,
      plan: {
        ...FAILURE_LEDGER.plan,
        nodes: rows.map((r) => ({ id: r.nodeId, dependsOn: [], allowedTools: [], sink: true })),
      },
    };
    uploadLedger(github, { ledger: many, runId: RUN, headSha: HEAD });
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, conclusion: "failure" }),
    );
    const check = theCheck(github);
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.annotationsCount).toBe(51);
    const patches = github.callsTo("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}");
    const batches = patches.map(
      (c) => (c.body as { output?: { annotations?: unknown[] } }).output?.annotations?.length ?? 0,
    );
    expect(batches.filter((n) => n > 0)).toEqual([50, 1]);
    const first = (
      patches.find((c) => (c.body as { conclusion?: string }).conclusion) as {
        body: { output: { annotations: { path: string }[] } };
      }
    ).body.output.annotations[0]!;
    expect(first.path).toBe(`.github/workflows/${WORKFLOW_FILE}`);
    github.assertNoViolations();
  });

  it("a completed run without a ledger, and one whose ledger lies about its head SHA or is not the schema, complete failure naming why — never green", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const shas = [
      "1111111111111111111111111111111111111111",
      "2222222222222222222222222222222222222222",
      "3333333333333333333333333333333333333333",
    ];
    // 1: nothing uploaded (the run crashed).
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: 1001, headSha: shas[0]!, conclusion: "cancelled" }),
    );
    // 2: a ledger about another commit (replayed onto this one).
    uploadLedger(github, {
      ledger: { ...SUCCESS_LEDGER, headSha: shas[2]! },
      runId: 1002,
      headSha: shas[1]!,
    });
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: 1002, headSha: shas[1]! }),
    );
    // 3: not the schema.
    uploadLedger(github, {
      ledger: JSON.stringify({ ...SUCCESS_LEDGER, headSha: shas[2], schemaVersion: 2 }),
      runId: 1003,
      headSha: shas[2]!,
    });
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: 1003, headSha: shas[2]! }),
    );

    const bySha = (sha: string) => github.state.checkRuns.find((r) => r.headSha === sha)!;
    expect(shas.map((s) => [bySha(s).status, bySha(s).conclusion])).toEqual([
      ["completed", "failure"],
      ["completed", "failure"],
      ["completed", "failure"],
    ]);
    expect(bySha(shas[0]!).output.summary).toContain(
      "Workflow run 1001 ended cancelled and has no artifact evidence-gate-ledger",
    );
    expect(bySha(shas[1]!).output.summary).toContain(
      `the ledger is about head commit ${shas[2]}, but the workflow run's head commit is ${shas[1]}`,
    );
    expect(bySha(shas[2]!).output.summary).toContain("is not a ledger of this version's schema");
    for (const s of shas)
      expect(bySha(s).output.summary).toContain("Nothing from that run is posted as a verdict.");
    expect(writes(github).some((c) => (c.body as { conclusion?: string }).conclusion === "success")).toBe(
      false,
    );
    github.assertNoViolations();
  });

  it("push: true — a ledger whose postedCommit GitHub shows on top of the head with its tree: the head's check run is superseded, the pushed commit's carries the verdict; a later synchronize and a replay write nothing", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const pushed = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
    github.state.addCommit({ sha: pushed, tree: STARTING_TREE, parents: [HEAD] });
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      headSha: HEAD,
      postedCommit: { sha: pushed, tree: STARTING_TREE, description: "the pushed commit" },
    };
    uploadLedger(github, { ledger, runId: RUN, headSha: HEAD, fork: false });
    // The run pushed onto the pull request's branch: its head is the pushed commit when the App reads it.
    github.state.movePullRequestHead(42, pushed);
    const completed = workflowRunPayload({
      action: "completed",
      runId: RUN,
      headSha: HEAD,
      fork: false,
      pullRequest: 42,
    });
    const done = await rig.deliver("workflow_run", completed);
    expect(done.outcome, done.response).toBe("completed:success");
    const [old, next] = github.state.checkRuns;
    expect(github.state.checkRuns).toHaveLength(2);
    expect(old).toMatchObject({ headSha: HEAD, status: "completed", conclusion: "neutral" });
    expect(old!.output.title).toBe(`Superseded by ${pushed.slice(0, 7)}`);
    expect(next).toMatchObject({
      headSha: pushed,
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1`,
    });
    expect(next!.output.summary).toContain("PASS (verified)");
    // The synchronize of the push arrives after: the check run is already there.
    const before = writes(github).length;
    await rig.deliver("pull_request", pullRequestPayload({ action: "synchronize", headSha: pushed }));
    await rig.deliver("workflow_run", completed);
    expect(writes(github)).toHaveLength(before);
    expect(
      rig
        .deliveries()
        .slice(1)
        .map((l) => l.outcome),
    ).toEqual(["check-exists", "stale"]);

    // A push made with a push token starts a workflow run on the pushed commit: once that newer run holds
    // the pushed commit's check run, an older run's verdict is not written over it (the head is superseded).
    const head2 = "1234512345123451234512345123451234512345";
    const pushed2 = "5432154321543215432154321543215432154321";
    github.state.addCommit({ sha: pushed2, tree: STARTING_TREE, parents: [head2] });
    await rig.deliver("pull_request", pullRequestPayload({ action: "synchronize", headSha: pushed2 }));
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({
        action: "requested",
        runId: RUN + 9,
        headSha: pushed2,
        fork: false,
        pullRequest: 42,
      }),
    );
    uploadLedger(github, {
      ledger: { ...ledger, headSha: head2, postedCommit: { ...ledger.postedCommit!, sha: pushed2 } },
      runId: RUN + 1,
      headSha: head2,
      fork: false,
    });
    github.state.movePullRequestHead(42, pushed2);
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({
        action: "completed",
        runId: RUN + 1,
        headSha: head2,
        fork: false,
        pullRequest: 42,
      }),
    );
    const bySha = (sha: string) => github.state.checkRuns.find((r) => r.headSha === sha)!;
    expect(bySha(head2)).toMatchObject({ status: "completed", conclusion: "neutral" });
    expect(bySha(head2).output.summary).toContain("That commit's check run follows a newer workflow run");
    expect(bySha(pushed2)).toMatchObject({
      status: "in_progress",
      externalId: `evidence-gate-bot:pr=42:run=${RUN + 9}:attempt=1`,
    });
    github.assertNoViolations();
  });

  it("push: true — a postedCommit that lies (another parent, another tree, no such commit, a fork's run) completes the head's check run failure saying why, and nothing is posted on the claimed commit", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const heads = ["5", "6", "7", "8"].map((c) => c.repeat(40));
    const claims = ["a", "b", "c", "d"].map((c) => c.repeat(40));
    const otherTree = "e".repeat(40);
    github.state.addCommit({ sha: claims[0]!, tree: STARTING_TREE, parents: [heads[2]!] });
    github.state.addCommit({ sha: claims[1]!, tree: otherTree, parents: [heads[1]!] });
    github.state.addCommit({ sha: claims[3]!, tree: STARTING_TREE, parents: [heads[3]!] });
    for (const [i, head] of heads.entries()) {
      const ledger: Ledger = {
        ...SUCCESS_LEDGER,
        headSha: head,
        postedCommit: { sha: claims[i]!, tree: STARTING_TREE, description: "the pushed commit" },
      };
      const fork = i === 3;
      uploadLedger(github, { ledger, runId: 2001 + i, headSha: head, fork });
      await rig.deliver(
        "workflow_run",
        workflowRunPayload({
          action: "completed",
          runId: 2001 + i,
          headSha: head,
          fork,
          ...(fork ? {} : { pullRequest: 42 }),
        }),
      );
    }
    expect(github.state.checkRuns.map((r) => [r.headSha, r.status, r.conclusion])).toEqual(
      heads.map((h) => [h, "completed", "failure"]),
    );
    const summaries = github.state.checkRuns.map((r) => r.output.summary ?? "");
    expect(summaries[0]).toContain(`but that commit's first parent is ${heads[2]}`);
    expect(summaries[1]).toContain(`but that commit's tree is ${otherTree}`);
    expect(summaries[2]).toContain(`but octo-org/widgets has no such commit`);
    expect(summaries[3]).toContain("the run is a fork's pull request");
    for (const summary of summaries) {
      expect(summary).toContain("claims a push GitHub does not show");
      expect(summary).toContain("Nothing is posted on the commit it names.");
    }
    expect(writes(github).some((c) => (c.body as { conclusion?: string }).conclusion === "success")).toBe(
      false,
    );
    // The fork's claim was refused without asking GitHub.
    expect(github.calls.filter((c) => c.path.includes("/git/commits/")).map((c) => c.path)).toEqual(
      claims.slice(0, 3).map((c) => `/repos/octo-org/widgets/git/commits/${c}`),
    );
    github.assertNoViolations();
  });

  it("replayed deliveries write nothing more: the same pull_request, the same attempt's in_progress and completed again", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const opened = pullRequestPayload({ headSha: HEAD });
    const completed = workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD });
    uploadLedger(github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    const first = await rig.deliver("pull_request", opened);
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "in_progress", runId: RUN, headSha: HEAD }),
    );
    await rig.deliver("workflow_run", completed);
    const before = writes(github).length;

    await rig.deliver("pull_request", opened, { guid: first.guid });
    await rig.deliver("workflow_run", completed);
    // A late in_progress of the same attempt after it completed: out of order, not newer.
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "in_progress", runId: RUN, headSha: HEAD }),
    );

    expect(writes(github)).toHaveLength(before);
    expect(theCheck(github)).toMatchObject({ status: "completed", conclusion: "success" });
    expect(
      rig
        .deliveries()
        .slice(3)
        .map((l) => l.outcome),
    ).toEqual(["check-exists", "stale", "stale"]);
    github.assertNoViolations();
  });

  it("a completed check run never moves back: attempt 2 gets a fresh check run (its failure is the head's verdict), attempt 1's stays success, and attempt 1 replayed afterwards changes nothing", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    uploadLedger(github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    const attempt1 = workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, attempt: 1 });
    await rig.deliver("workflow_run", attempt1);
    const first = theCheck(github);
    expect(first.conclusion).toBe("success");
    const current = () => github.state.checkRuns.filter((r) => r.name === "evidence-gate")[1]!;
    // The re-run uploads a new artifact (newest first): this one a failure.
    uploadLedger(github, { ledger: { ...FAILURE_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "requested", runId: RUN, headSha: HEAD, attempt: 2 }),
    );
    expect(first).toMatchObject({ status: "completed", conclusion: "success" });
    expect(current()).toMatchObject({
      status: "in_progress",
      externalId: `evidence-gate-bot:run=${RUN}:attempt=2`,
    });
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({
        action: "completed",
        runId: RUN,
        headSha: HEAD,
        attempt: 2,
        conclusion: "failure",
      }),
    );
    expect(current()).toMatchObject({ status: "completed", conclusion: "failure" });
    const record = await rig.deliver("workflow_run", attempt1);
    expect(record.outcome).toBe("stale");
    expect(first).toMatchObject({
      conclusion: "success",
      externalId: `evidence-gate-bot:run=${RUN}:attempt=1:next`,
    });
    expect(current()).toMatchObject({
      conclusion: "failure",
      externalId: `evidence-gate-bot:run=${RUN}:attempt=2`,
    });
    github.assertNoViolations();
  });

  it("two deliveries racing for one commit (pull_request and workflow_run at once) leave one check run named evidence-gate", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const shas = Array.from({ length: 6 }, (_, i) => `${String(i + 4).repeat(40)}`.slice(0, 40));
    await Promise.all(
      shas.flatMap((sha, i) => [
        rig.deliver("pull_request", pullRequestPayload({ headSha: sha, number: 100 + i })),
        rig.deliver(
          "workflow_run",
          workflowRunPayload({ action: "requested", runId: 5000 + i, headSha: sha }),
        ),
        rig.deliver(
          "workflow_run",
          workflowRunPayload({ action: "in_progress", runId: 5000 + i, headSha: sha }),
        ),
      ]),
    );
    for (const sha of shas) {
      const named = github.state.checkRuns.filter((r) => r.headSha === sha && r.name === "evidence-gate");
      expect(named).toHaveLength(1);
      expect(named[0]!.status).toBe("in_progress");
    }
    // A duplicate a race created, if any, was renamed and skipped: it cannot stand in for the check.
    for (const dup of github.state.checkRuns.filter((r) => r.name !== "evidence-gate")) {
      expect(dup).toMatchObject({
        name: "evidence-gate (duplicate)",
        status: "completed",
        conclusion: "skipped",
      });
    }
    expect(rig.github.state.webhooks.records.every((r) => r.statusCode === 202)).toBe(true);
    github.assertNoViolations();
  });

  it("API faults on the way — two 502s, a secondary rate limit — are retried by Octokit's plugins: the delivery still succeeds, with one check run", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    github.failNext({
      method: "GET",
      pathPattern: "/repos/{owner}/{repo}/commits/{ref}/check-runs",
      status: 502,
      times: 2,
    });
    github.failNext({
      method: "POST",
      pathPattern: "/repos/{owner}/{repo}/check-runs",
      status: 429,
      headers: { "retry-after": "1" },
    });
    const record = await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }));
    expect(record.statusCode).toBe(202);
    expect(github.calls.filter((c) => c.injected).map((c) => c.status)).toEqual([502, 502, 429]);
    expect(theCheck(github).status).toBe("queued");
    expect(
      rig.logs.some((l) => l.kind === "octokit" && String(l.message).includes("secondary rate limit")),
    ).toBe(true);
  });

  it("runs of another workflow, and pull_request_target runs of this one, are ignored without a write", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({
        action: "completed",
        runId: RUN,
        headSha: HEAD,
        path: ".github/workflows/ci.yml",
      }),
    );
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, event: "pull_request_target" }),
    );
    expect(writes(github)).toEqual([]);
    expect(rig.deliveries().map((l) => l.outcome)).toEqual(["ignored", "ignored"]);
  });
});

describe("a /evidence-gate run comment's run with report-to: bot (issue 23 item 4)", () => {
  /**
   * The `workflow_run` GitHub sends for an `issue_comment` run: the workflow ran on the default branch, so
   * `head_sha` is the default branch's head, `head_branch` is `main`, the head repository is the base's and
   * `pull_requests` is empty — whatever pull request the comment was on.
   */
  function commentRunCompleted(displayTitle: string | null = "evidence-gate run #42") {
    return workflowRunPayload({
      action: "completed",
      runId: RUN,
      headSha: BASE_SHA,
      headBranch: "main",
      fork: false,
      event: "issue_comment",
      ...(displayTitle === null ? {} : { displayTitle }),
    });
  }

  it("is posted by the App on the head of the open pull request its run-name names, checked with GitHub and under the provenance rule", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    github.state.addPullRequest({
      number: 42,
      headSha: HEAD,
      headRef: "fix-sum",
      headRepository: "forker/widgets",
      baseSha: BASE_SHA,
      files: ["src/sum.js"],
    });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: true }));
    // The comment's run uploaded a ledger about the pull request's head; its own head is the default branch's.
    uploadLedger(github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: BASE_SHA,
      fork: false,
      pullRequest: false,
    });
    const payload = commentRunCompleted();
    expect((payload.workflow_run as { pull_requests: unknown[] }).pull_requests).toEqual([]);
    const done = await rig.deliver("workflow_run", payload);
    expect(done.outcome, JSON.stringify(rig.deliveries().at(-1))).toBe("completed:success");
    const check = theCheck(github);
    expect(check).toMatchObject({
      headSha: HEAD,
      status: "completed",
      conclusion: "success",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1`,
      detailsUrl: `https://github.com/octo-org/widgets/actions/runs/${RUN}`,
    });
    expect(check.output.summary).toContain("PASS (verified)");
    expect(check.output.summary).toContain("from the fork `forker/widgets`");
    // The provenance rule read the pull request's files (ADR 0013).
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files").length).toBeGreaterThan(
      0,
    );
    github.assertNoViolations();
  });

  it("posts nothing when the ledger's head is not its pull request's head: the artifact alone never names the commit", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    github.state.addPullRequest({ number: 42, headSha: HEAD, headRef: "fix-sum", baseSha: BASE_SHA });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: false }));
    const elsewhere = "fedcba9876543210fedcba9876543210fedcba98";
    uploadLedger(github, {
      ledger: { ...SUCCESS_LEDGER, headSha: elsewhere },
      runId: RUN,
      headSha: BASE_SHA,
      fork: false,
      pullRequest: false,
    });
    const before = writes(github).length;
    const done = await rig.deliver("workflow_run", commentRunCompleted());
    expect(done.outcome).toBe("stale");
    expect(writes(github)).toHaveLength(before);
    expect(theCheck(github)).toMatchObject({ headSha: HEAD, status: "queued" });
    expect(github.state.checkRuns.some((r) => r.headSha === elsewhere)).toBe(false);
    github.assertNoViolations();
  });

  it("a ledger naming another pull request's head gets no verdict there: the run is bound to the pull request its run-name names, from the event", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    // Y (#42) is someone else's pull request, waiting for its own run.
    github.state.addPullRequest({ number: 42, headSha: HEAD, headRef: "fix-sum", baseSha: BASE_SHA });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: false }));
    // A writer comments `/evidence-gate run` on X (#7); X's code writes a ledger about Y's head that decides success.
    const X_HEAD = "fedcba9876543210fedcba9876543210fedcba98";
    github.state.addPullRequest({ number: 7, headSha: X_HEAD, headRef: "evil", baseSha: BASE_SHA });
    uploadLedger(github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: BASE_SHA,
      fork: false,
      pullRequest: false,
    });
    const before = writes(github).length;
    const done = await rig.deliver("workflow_run", commentRunCompleted("evidence-gate run #7"));
    expect(done.outcome).toBe("stale");
    expect(writes(github)).toHaveLength(before);
    expect(theCheck(github)).toMatchObject({ headSha: HEAD, status: "queued", conclusion: null });
    expect(github.state.checkRuns.some((r) => r.headSha === X_HEAD)).toBe(false);
    github.assertNoViolations();
  });

  it("a comment run whose run-name names no pull request is refused, never bound by its ledger", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    github.state.addPullRequest({ number: 42, headSha: HEAD, headRef: "fix-sum", baseSha: BASE_SHA });
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork: false }));
    uploadLedger(github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: BASE_SHA,
      fork: false,
      pullRequest: false,
    });
    const before = writes(github).length;
    const done = await rig.deliver("workflow_run", commentRunCompleted(null));
    expect(done.outcome, JSON.stringify(rig.deliveries())).toBe("refused");
    expect(rig.deliveries().at(-1)?.detail).toContain("evidence-gate run #");
    expect(writes(github)).toHaveLength(before);
    expect(theCheck(github)).toMatchObject({ headSha: HEAD, status: "queued" });
    github.assertNoViolations();
  });
});
