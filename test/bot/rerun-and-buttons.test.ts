/**
 * What the App's check run offers that a `GITHUB_TOKEN` check run cannot (SPEC §2.3): "Re-run" re-runs the
 * workflow run its `external_id` records, and a run paused at a gate gets "Approve <gate>" / "Reject
 * <gate>" buttons whose click — from a writer, on the head the buttons were shown for — dispatches the
 * resume workflow. A reader's click, a click after the head moved, and a replayed click dispatch nothing.
 */
import { describe, expect, it } from "vitest";
import { buttonIdentifier, REVERIFY_BUTTON } from "../../src/bot/gate-buttons.js";
import { SERVER_ERROR_RETRIES } from "../../src/github/octokit.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { FAILURE_LEDGER, fixtureLedger, pass, SUCCESS_LEDGER, skipped } from "../ledger/fixtures.js";
import {
  type BotRig,
  botRigs,
  checkRunPayload,
  checkSuitePayload,
  pullRequestPayload,
  RESUME_WORKFLOW_FILE,
  uploadLedger,
  workflowRunPayload,
} from "../support/bot-harness.js";
import { pausedLedger } from "../support/paused-ledger.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BASE = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const RUN = 30_433_642;
const rigs = botRigs();

const PAUSED_LEDGER: Ledger = pausedLedger(HEAD);

/** A pull request whose run completed with `ledger`: the App's check run completed on HEAD. */
async function completedRun(rig: BotRig, ledger: Ledger, o: { readonly fork?: boolean } = {}) {
  const fork = o.fork ?? false;
  rig.github.state.addPullRequest({
    number: 42,
    headSha: HEAD,
    headRef: "fix-sum",
    baseSha: BASE,
    ...(fork ? { headRepository: "forker/widgets" } : {}),
  });
  rig.github.state.addWorkflowRun({ id: RUN, headSha: HEAD });
  await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD, fork }));
  uploadLedger(rig.github, { ledger, runId: RUN, headSha: HEAD, fork });
  await rig.deliver(
    "workflow_run",
    workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, fork }),
  );
  const check = rig.github.state.checkRuns.find((r) => r.name === "evidence-gate")!;
  expect(check.status).toBe("completed");
  return check;
}

/**
 * The delivery GitHub sends when `sender` clicks the check run's `decision` button as it is shown now (its
 * identifier read from the check run), or, with `identifier`, a button with exactly that identifier.
 */
function click(
  check: { id: number; headSha: string; actions?: readonly { identifier: string }[] },
  sender: string,
  decision: "approve" | "reject",
  identifier?: string,
) {
  const shown = check.actions?.find((a) => a.identifier.startsWith(`${decision}-`))?.identifier;
  return checkRunPayload({
    action: "requested_action",
    checkRunId: check.id,
    headSha: check.headSha,
    sender,
    identifier: identifier ?? shown ?? decision,
  });
}

describe("Re-run on the App's check run", () => {
  it("check_run.rerequested from a writer re-runs the workflow run the check run records, in a fresh check run queued for the next attempt; the clicked one stays as it completed", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const check = await completedRun(rig, { ...FAILURE_LEDGER, headSha: HEAD });
    const record = await rig.deliver(
      "check_run",
      checkRunPayload({
        action: "rerequested",
        checkRunId: check.id,
        headSha: HEAD,
        sender: "mona",
        externalId: check.externalId,
      }),
    );
    expect(record.outcome).toBe("rerun");
    expect(rig.github.state.reruns).toEqual([RUN]);
    expect(rig.github.callsTo("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun")[0]!.path).toBe(
      `/repos/octo-org/widgets/actions/runs/${RUN}/rerun`,
    );
    expect(check).toMatchObject({
      status: "completed",
      conclusion: "failure",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=1:next`,
    });
    const fresh = rig.github.state.checkRuns.filter((r) => r.name === "evidence-gate")[1]!;
    expect(fresh).toMatchObject({
      status: "queued",
      headSha: HEAD,
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=2`,
    });
    // The new attempt's events then drive the fresh check run.
    await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "in_progress", runId: RUN, headSha: HEAD, fork: false, attempt: 2 }),
    );
    expect(fresh.status).toBe("in_progress");
    expect(check.status).toBe("completed");
    rig.github.assertNoViolations();
  });

  it("Re-run on a Re-verify's check run (`:verify`, whose own run never came) re-runs the head's full run, not nothing (operator trial: docs/bot.md 'Re-run stays the full run')", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const check = await completedRun(rig, { ...FAILURE_LEDGER, headSha: HEAD });
    const completed = workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }) as {
      workflow_run: Record<string, unknown>;
    };
    rig.github.state.addWorkflowRun({ id: RUN, headSha: HEAD, body: completed.workflow_run });
    // As the reconcile sweep leaves a Re-verify whose dispatch never produced a run.
    check.externalId = "evidence-gate-bot:pr=42:verify";
    const record = await rig.deliver(
      "check_run",
      checkRunPayload({
        action: "rerequested",
        checkRunId: check.id,
        headSha: HEAD,
        sender: "mona",
        externalId: check.externalId,
      }),
    );
    expect([record.outcome, rig.github.state.reruns]).toEqual(["rerun", [RUN]]);
    const fresh = rig.github.state.checkRuns.filter((r) => r.name === "evidence-gate").at(-1)!;
    expect(fresh).toMatchObject({
      status: "queued",
      externalId: `evidence-gate-bot:pr=42:run=${RUN}:attempt=2`,
    });
    rig.github.assertNoViolations();
  });

  it("check_suite.rerequested (re-run all checks) re-runs it too; a reader's re-run is refused and nothing is re-run", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "admin");
    rig.github.state.setCollaborator("reader", "read");
    const check = await completedRun(rig, { ...FAILURE_LEDGER, headSha: HEAD });
    const refused = await rig.deliver("check_suite", checkSuitePayload({ headSha: HEAD, sender: "reader" }));
    expect(refused.outcome).toBe("refused");
    expect(rig.github.state.reruns).toEqual([]);
    expect(check.status).toBe("completed");
    await rig.deliver("check_suite", checkSuitePayload({ headSha: HEAD, sender: "mona" }));
    expect(rig.github.state.reruns).toEqual([RUN]);
    rig.github.assertNoViolations();
  });

  it("a check run whose workflow run cannot be found is completed failure saying so", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.addPullRequest({
      number: 42,
      headSha: HEAD,
      headRef: "fix-sum",
      headRepository: "forker/widgets",
      baseSha: BASE,
    });
    uploadLedger(rig.github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
    // The run is not known to GitHub any more (deleted): no addWorkflowRun.
    await rig.deliver("workflow_run", workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }));
    const check = rig.github.state.checkRuns[0]!;
    expect(check.conclusion).toBe("success");
    await rig.deliver(
      "check_run",
      checkRunPayload({ action: "rerequested", checkRunId: check.id, headSha: HEAD, sender: "mona" }),
    );
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.title).toBe(`evidence-gate: workflow run ${RUN} cannot be re-run`);
    expect(check.output.summary).toContain("GitHub answered 404");
    rig.github.assertNoViolations();
  });
});

describe("Approve / Reject buttons on a run paused at a gate", () => {
  it("a paused run completes action_required with Approve and Reject for its gate, within GitHub's limits, and the gate marker last", async () => {
    const rig = await rigs.start();
    const check = await completedRun(rig, PAUSED_LEDGER, { fork: true });
    expect(check.conclusion).toBe("action_required");
    // The identifiers bind this run, this leg (the workflow run that uploaded the ledger) and this gate.
    const waiting = { gate: "sign-off", runId: PAUSED_LEDGER.runId, leg: { id: RUN, attempt: 1 } };
    expect(check.actions).toEqual([
      {
        label: "Approve sign-off",
        description: "Resume the run past gate sign-off",
        identifier: buttonIdentifier(waiting, "approve"),
      },
      {
        label: "Reject sign-off",
        description: "Fail the run at gate sign-off",
        identifier: buttonIdentifier(waiting, "reject"),
      },
      REVERIFY_BUTTON,
    ]);
    expect(
      check.output
        .summary!.trimEnd()
        .endsWith(`<!-- evidence-gate-bot gate=sign-off run=20260501-150000-abcdef leg=${RUN}.1 -->`),
    ).toBe(true);
    // A finished run offers no gate buttons: only Re-verify.
    const other = await rigs.start();
    const done = await completedRun(other, { ...SUCCESS_LEDGER, headSha: HEAD });
    expect(done.actions).toEqual([REVERIFY_BUTTON]);
    rig.github.assertNoViolations();
  });

  it("Approve from a writer dispatches the resume workflow on the default branch with the run id, the gate, the SHA it was shown for and the approver; the check goes in_progress without buttons, and a replayed click dispatches nothing more", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "maintain");
    const check = await completedRun(rig, PAUSED_LEDGER, { fork: true });
    const payload = click(check, "mona", "approve");
    const record = await rig.deliver("check_run", payload);
    expect(record.outcome).toBe("dispatched");
    expect(rig.github.state.dispatches).toEqual([
      {
        repository: "octo-org/widgets",
        workflow: RESUME_WORKFLOW_FILE,
        ref: "main",
        inputs: { "run-id": PAUSED_LEDGER.runId, sha: HEAD, "approve-gate": "sign-off", approver: "mona" },
      },
    ]);
    expect(check).toMatchObject({ status: "in_progress", actions: [] });
    expect(check.output.title).toBe("Gate sign-off approved by mona: resuming");
    // The permission was asked of GitHub for the clicker.
    expect(
      rig.github.callsTo("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission")[0]!.path,
    ).toContain("/mona/");

    const replay = await rig.deliver("check_run", payload, { guid: record.guid });
    expect(replay.outcome).toBe("stale");
    expect(rig.github.state.dispatches).toHaveLength(1);
    rig.github.assertNoViolations();
  });

  it("Reject dispatches reject-gate", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const check = await completedRun(rig, PAUSED_LEDGER);
    await rig.deliver("check_run", click(check, "mona", "reject"));
    expect(rig.github.state.dispatches.map((d) => d.inputs)).toEqual([
      { "run-id": PAUSED_LEDGER.runId, sha: HEAD, "reject-gate": "sign-off", approver: "mona" },
    ]);
  });

  it("a reader's click (and a non-collaborator's) is refused: nothing is dispatched, the check says so and keeps its buttons for a writer", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("reader", "triage");
    const check = await completedRun(rig, PAUSED_LEDGER, { fork: true });
    const record = await rig.deliver("check_run", click(check, "reader", "approve"));
    // The clicker's login in the payload says nothing about access: a stranger is refused too.
    await rig.deliver("check_run", click(check, "stranger", "approve"));
    expect(record.outcome).toBe("refused");
    expect(rig.github.state.dispatches).toEqual([]);
    expect(check.conclusion).toBe("action_required");
    expect(check.actions).toHaveLength(3);
    expect(check.output.summary).toContain("**Refused:** reader has read access");
    expect(check.output.summary).toContain("**Refused:** stranger has no access");
    expect(check.output.summary!.trimEnd().endsWith("-->")).toBe(true);
    rig.github.assertNoViolations();
  });

  it("after the pull request's head moved, a writer's approval is refused: nothing is dispatched, the buttons go, the check says why", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "admin");
    const check = await completedRun(rig, PAUSED_LEDGER, { fork: true });
    const pull = rig.github.state.pullRequest("octo-org", "widgets", 42)!;
    (pull.head as { sha: string }).sha = "fedcba9876543210fedcba9876543210fedcba98";
    const record = await rig.deliver("check_run", click(check, "mona", "approve"));
    expect(record.outcome).toBe("refused");
    expect(rig.github.state.dispatches).toEqual([]);
    // The gate buttons go; Re-verify (of the pull request's current head) stays.
    expect(check).toMatchObject({ conclusion: "action_required", actions: [REVERIFY_BUTTON] });
    expect(check.output.title).toBe("Gate sign-off: not decided, the pull request moved on");
    expect(check.output.summary).toContain("head is now fedcba9, not 0123456");
    rig.github.assertNoViolations();
  });

  it("a resume workflow that does not take the approver input refuses the dispatch (422): the check says what the workflow must declare", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.workflows.splice(0);
    rig.github.state.addWorkflow({
      file: RESUME_WORKFLOW_FILE,
      inputs: ["run-id", "sha", "approve-gate", "reject-gate", "retry-failed"].map((name) => ({ name })),
    });
    const check = await completedRun(rig, PAUSED_LEDGER);
    const record = await rig.deliver("check_run", click(check, "mona", "approve"));
    expect(record.outcome).toBe("dispatch-refused");
    expect(rig.github.state.dispatches).toEqual([]);
    expect(check.output.summary).toContain("Unexpected inputs provided");
    expect(check.output.summary).toContain("`approver`");
    // The decision was recorded before the dispatch; refused, the check run waits again with the same buttons.
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(check.externalId).not.toContain("resume=");
    const waiting = { gate: "sign-off", runId: PAUSED_LEDGER.runId, leg: { id: RUN, attempt: 1 } };
    expect(check.actions!.map((a) => a.identifier)).toEqual([
      buttonIdentifier(waiting, "approve"),
      buttonIdentifier(waiting, "reject"),
      "reverify",
    ]);
    expect(check.output.summary!.trimEnd().endsWith("-->")).toBe(true);
  });

  it("a redelivery of a click whose delivery already finished (the dispatch refused, the check put back) does nothing: only reads, no dispatch, no write (issue 23: de-duplicated on completion)", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    rig.github.state.workflows.splice(0);
    rig.github.state.addWorkflow({ file: RESUME_WORKFLOW_FILE, inputs: [{ name: "run-id" }] });
    const check = await completedRun(rig, PAUSED_LEDGER);
    const first = await rig.deliver("check_run", click(check, "mona", "approve"));
    expect(first.outcome).toBe("dispatch-refused");
    const after = structuredClone(check);
    const callsBefore = rig.github.calls.length;
    // GitHub's redelivery: the same X-GitHub-Delivery and body.
    const again = await rig.deliver("check_run", click(check, "mona", "approve"), { guid: first.guid });
    expect(again.outcome).toBe("duplicate");
    const made = rig.github.calls.slice(callsBefore).filter((c) => c.route !== null);
    expect(made.length).toBeGreaterThan(0);
    expect(made.filter((c) => c.method !== "GET").map((c) => `${c.method} ${c.route}`)).toEqual([]);
    expect(check).toEqual(after);
    // Another click (a new delivery) on the same check run is worked as usual.
    const other = await rig.deliver("check_run", click(check, "mona", "approve"));
    expect(other.outcome).toBe("dispatch-refused");
    rig.github.assertNoViolations();
  });

  it("the decision is written on the check run before the dispatch: when that write fails, nothing is dispatched and the delivery fails; its redelivery dispatches exactly once", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const check = await completedRun(rig, PAUSED_LEDGER);
    const payload = click(check, "mona", "approve");
    rig.github.failNext({
      method: "PATCH",
      pathPattern: "/repos/{owner}/{repo}/check-runs/{check_run_id}",
      bodyMatches: (body) => (body as { status?: string }).status === "in_progress",
      status: 502,
      // The first try and every retry of Octokit's plugin.
      times: SERVER_ERROR_RETRIES + 1,
    });
    const failed = await rig.deliver("check_run", payload);
    expect([failed.statusCode, failed.outcome]).toEqual([202, "error"]);
    expect(rig.github.state.dispatches).toEqual([]);
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required" });

    // The App asks GitHub to redeliver the failed delivery itself; that redelivery dispatches.
    await rig.settle();
    expect(rig.outcomes(failed.guid)).toEqual(["error", "dispatched"]);
    const again = await rig.deliver("check_run", payload, { guid: failed.guid });
    expect(again.outcome).toBe("stale");
    expect(rig.github.state.dispatches).toHaveLength(1);
  });

  it("a dispatch GitHub does not answer (5xx until Octokit gives up) puts the check run back waiting, with the same buttons, and fails the delivery; its redelivery dispatches once", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const check = await completedRun(rig, PAUSED_LEDGER);
    const buttons = structuredClone(check.actions);
    const payload = click(check, "mona", "approve");
    rig.github.failNext({
      method: "POST",
      pathPattern: "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
      status: 503,
      times: SERVER_ERROR_RETRIES + 1,
    });
    const failed = await rig.deliver("check_run", payload);
    expect([failed.statusCode, failed.outcome]).toEqual([202, "error"]);
    expect(rig.github.state.dispatches).toEqual([]);
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required", actions: buttons });
    expect(check.externalId).not.toContain("resume=");
    expect(check.output.summary).toContain("**Not dispatched:** GitHub answered 503");
    expect(check.output.summary!.trimEnd().endsWith(`leg=${RUN}.1 -->`)).toBe(true);

    await rig.settle();
    expect(rig.outcomes(failed.guid)).toEqual(["error", "dispatched"]);
    expect(rig.github.state.dispatches).toHaveLength(1);
    expect(check.status).toBe("in_progress");
  });

  it("a fork's ledger that names free text as a gate's approver is refused as data: failure, the approver never posted", async () => {
    const rig = await rigs.start();
    const forged: Ledger = {
      ...SUCCESS_LEDGER,
      headSha: HEAD,
      rows: [
        pass("sign-off", {
          qualifier: "approved",
          approvedBy: { login: "@octocat (GitHub-verified maintainer)", headSha: HEAD },
        }),
        ...SUCCESS_LEDGER.rows,
      ],
    };
    const check = await completedRun(rig, forged, { fork: true });
    expect(check.conclusion).toBe("failure");
    expect(check.output.summary).toContain("approvedBy.login: not an approver the product records");
    expect(check.output.summary).not.toContain("approved by @octocat");
    rig.github.assertNoViolations();
  });

  it("a ledger's gate id that is not a node id gets no buttons (what is dispatched is never free text)", async () => {
    const rig = await rigs.start();
    const hostile: Ledger = {
      ...PAUSED_LEDGER,
      plan: {
        ...PAUSED_LEDGER.plan,
        nodes: PAUSED_LEDGER.plan.nodes.map((n) => (n.id === "sign-off" ? { ...n, id: "x --> <b>" } : n)),
      },
    };
    const check = await completedRun(rig, hostile);
    expect(check.conclusion).toBe("action_required");
    expect(check.actions).toEqual([REVERIFY_BUTTON]);
    expect(check.output.summary).not.toContain("<!-- evidence-gate-bot gate=");
  });
});

describe("the resume workflow's completion (issue 11): the check run awaiting it never stays in_progress", () => {
  const MAIN = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";
  const RESUME_RUN = 30_433_700;
  const resumeCompleted = (o: { readonly displayTitle?: string; readonly conclusion?: string }) =>
    workflowRunPayload({
      action: "completed",
      runId: RESUME_RUN,
      headSha: MAIN,
      fork: false,
      event: "workflow_dispatch",
      path: `.github/workflows/${RESUME_WORKFLOW_FILE}`,
      headBranch: "main",
      ...o,
    });

  /** A paused check run a writer approved: in_progress, awaiting the resume of PAUSED_LEDGER's run. */
  async function approved(rig: BotRig) {
    rig.github.state.setCollaborator("mona", "write");
    const check = await completedRun(rig, PAUSED_LEDGER);
    const record = await rig.deliver("check_run", click(check, "mona", "approve"));
    expect(record.outcome).toBe("dispatched");
    expect(check.externalId).toContain(`:resume=${PAUSED_LEDGER.runId}`);
    return check;
  }

  it("a resume run that left no ledger completes the awaiting check run failure, found by its run-name, saying why", async () => {
    const rig = await rigs.start();
    const check = await approved(rig);
    const done = await rig.deliver(
      "workflow_run",
      resumeCompleted({
        displayTitle: `evidence-gate resume ${PAUSED_LEDGER.runId} ${HEAD}`,
        conclusion: "failure",
      }),
    );
    expect(done.outcome).toBe("completed:failure");
    expect(check).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(check.output.summary).toContain(`workflow run ${RESUME_RUN} uploaded no ledger`);
    expect(check.externalId).not.toContain("resume=");
    rig.github.assertNoViolations();
  });

  it("a resumed ledger of another run, or about another commit, is refused: failure, never green", async () => {
    const rig = await rigs.start();
    const check = await approved(rig);
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, runId: "20260501-150000-ffffff", headSha: HEAD },
      runId: RESUME_RUN,
      headSha: MAIN,
      fork: false,
    });
    const done = await rig.deliver(
      "workflow_run",
      resumeCompleted({ displayTitle: `evidence-gate resume ${PAUSED_LEDGER.runId} ${HEAD}` }),
    );
    expect(done.outcome).toBe("completed:failure");
    expect(check.output.summary).toContain(`run ${PAUSED_LEDGER.runId} was awaited`);
    rig.github.assertNoViolations();
  });

  it("without a run-name the ledger's own run and head find the check run; the resumed success completes it success", async () => {
    const rig = await rigs.start();
    const check = await approved(rig);
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, runId: PAUSED_LEDGER.runId, headSha: HEAD },
      runId: RESUME_RUN,
      headSha: MAIN,
      fork: false,
    });
    const done = await rig.deliver("workflow_run", resumeCompleted({ displayTitle: "evidence-gate resume" }));
    expect(done.outcome).toBe("completed:success");
    expect(check).toMatchObject({ status: "completed", conclusion: "success" });
    rig.github.assertNoViolations();
  });

  it("a resume run for a check run that awaits nothing writes nothing (a manual dispatch, a redelivery)", async () => {
    const rig = await rigs.start();
    const check = await completedRun(rig, PAUSED_LEDGER);
    const before = structuredClone(check);
    const done = await rig.deliver(
      "workflow_run",
      resumeCompleted({ displayTitle: `evidence-gate resume ${PAUSED_LEDGER.runId} ${HEAD}` }),
    );
    expect(done.outcome).toBe("stale");
    expect(check).toEqual(before);
    rig.github.assertNoViolations();
  });

  /** review → g1 → build → g2 → finish: paused at `g1` (first leg), then at `g2` (the resumed leg). */
  function twoGates(o: { readonly g1: "waiting" | "approved" }): Ledger {
    const runId = "20260501-150000-0a1b2c";
    return {
      ...fixtureLedger({
        runId,
        runtime: "claude",
        goal: "Two sign-offs",
        buildEvidence: { kind: "attached", command: "npm test", declaredBy: "input" },
        nodes: [
          { id: "review", dependsOn: [], allowedTools: ["Read"], sink: false },
          { id: "g1", type: "gate", dependsOn: ["review"], allowedTools: [], sink: false },
          { id: "build", dependsOn: ["g1"], allowedTools: ["Read"], sink: false },
          { id: "g2", type: "gate", dependsOn: ["build"], allowedTools: [], sink: false },
          { id: "finish", dependsOn: ["g2"], allowedTools: ["Read"], sink: true },
        ],
        rows:
          o.g1 === "waiting"
            ? [
                pass("review"),
                skipped("g1", { reason: "waiting for a person to approve or reject this gate" }),
                skipped("build", { reason: 'not run yet: the run is paused at gate "g1"' }),
                skipped("g2", { reason: 'not run yet: the run is paused at gate "g1"' }),
                skipped("finish", { sink: true, reason: 'not run yet: the run is paused at gate "g1"' }),
              ]
            : [
                pass("review"),
                pass("g1", { qualifier: "approved", approvedBy: { login: "mona", headSha: HEAD } }),
                pass("build"),
                skipped("g2", { reason: "waiting for a person to approve or reject this gate" }),
                skipped("finish", { sink: true, reason: 'not run yet: the run is paused at gate "g2"' }),
              ],
        planningCalls: [],
        evidenceTree: null,
        end: { kind: "paused", reason: "gate", nodeId: o.g1 === "waiting" ? "g1" : "g2" },
      }),
      headSha: HEAD,
    };
  }

  it("a click decides one gate of one run, once: the approval of g1, redelivered (same X-GitHub-Delivery) after the resumed run paused at g2, dispatches nothing and says why; a click on g2's button dispatches exactly once", async () => {
    const rig = await rigs.start();
    rig.github.state.setCollaborator("mona", "write");
    const first = twoGates({ g1: "waiting" });
    const check = await completedRun(rig, first);
    expect(check.actions!.map((a) => a.label)).toEqual(["Approve g1", "Reject g1", "Re-verify"]);
    const approveG1 = click(check, "mona", "approve");
    const record = await rig.deliver("check_run", approveG1);
    expect(record.outcome).toBe("dispatched");
    expect(rig.github.state.dispatches.map((d) => d.inputs["approve-gate"])).toEqual(["g1"]);

    // The resumed leg (the resume workflow's run) pauses at g2: the check run waits again, with g2's buttons.
    uploadLedger(rig.github, {
      ledger: twoGates({ g1: "approved" }),
      runId: RESUME_RUN,
      headSha: MAIN,
      fork: false,
    });
    const resumed = await rig.deliver(
      "workflow_run",
      resumeCompleted({ displayTitle: `evidence-gate resume ${first.runId} ${HEAD}` }),
    );
    expect(resumed.outcome).toBe("completed:action_required");
    expect(check.actions!.map((a) => a.label)).toEqual(["Approve g2", "Reject g2", "Re-verify"]);

    // The same delivery again (GitHub's redelivery, or the App's sweep after a slow answer).
    const again = await rig.deliver("check_run", approveG1, { guid: record.guid });
    expect(again.guid).toBe(record.guid);
    expect(again.outcome).toBe("stale");
    expect(rig.github.state.dispatches).toHaveLength(1);
    const line = rig.deliveries().find((l) => l.delivery === record.guid && l.outcome === "stale")!;
    expect(line.detail).toContain(
      `another gate, leg or run (a redelivered click, or a page shown before the run moved on); check run ${check.id} now waits at gate g2 of run ${first.runId}, workflow run ${RESUME_RUN} (attempt 1)`,
    );
    expect(line.detail).toContain("Nothing was dispatched.");
    // The check run still waits at g2 with its buttons, and says why the click did nothing.
    expect(check).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(check.actions!.map((a) => a.label)).toEqual(["Approve g2", "Reject g2", "Re-verify"]);
    expect(check.output.summary).toContain(
      "**Not dispatched:** the approval by mona came from a button of another gate",
    );
    expect(check.output.summary!.trimEnd().endsWith(`leg=${RESUME_RUN}.1 -->`)).toBe(true);

    // A click on g2's own button decides g2, once.
    const approveG2 = click(check, "mona", "approve");
    const decided = await rig.deliver("check_run", approveG2);
    expect(decided.outcome).toBe("dispatched");
    expect(rig.github.state.dispatches.map((d) => d.inputs)).toEqual([
      { "run-id": first.runId, sha: HEAD, "approve-gate": "g1", approver: "mona" },
      { "run-id": first.runId, sha: HEAD, "approve-gate": "g2", approver: "mona" },
    ]);
    const replay = await rig.deliver("check_run", approveG2, { guid: decided.guid });
    expect(replay.outcome).toBe("stale");
    expect(rig.deliveries().at(-1)!.detail).toContain("the click was already acted on");
    expect(rig.github.state.dispatches).toHaveLength(2);
    rig.github.assertNoViolations();
  });

  it("the paused run's completion redelivered while the resume is awaited does not overwrite the check run", async () => {
    const rig = await rigs.start();
    const check = await approved(rig);
    const again = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, fork: false, pullRequest: 42 }),
    );
    expect(again.outcome).toBe("stale");
    expect(check.status).toBe("in_progress");
  });
});
