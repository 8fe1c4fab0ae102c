/**
 * The App posts a ledger as the check only from a run whose workflow definition is the base branch's, and
 * never `success` from a run GitHub does not report `success` (issue 22 items 1 and 2). The real bot against
 * the local GitHub double: the pull request's changed files come from `GET …/pulls/{n}/files`, a fork's pull
 * request is found by its head (GitHub links none to a fork's run).
 */

import { describe, expect, it } from "vitest";
import { REVERIFY_BUTTON } from "../../src/bot/gate-buttons.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { STARTING_TREE, SUCCESS_LEDGER } from "../ledger/fixtures.js";
import {
  botRigs,
  pullRequestPayload,
  uploadLedger,
  WORKFLOW_FILE,
  workflowRunPayload,
} from "../support/bot-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const RUN = 30_433_642;
const GATE_WORKFLOW = `.github/workflows/${WORKFLOW_FILE}`;
const rigs = botRigs();

function theCheck(github: GitHubServer) {
  const runs = github.state.checkRuns.filter((r) => r.name === "evidence-gate");
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

function everSuccess(github: GitHubServer): boolean {
  return github.calls.some(
    (c) => c.method === "PATCH" && (c.body as { conclusion?: string } | null)?.conclusion === "success",
  );
}

describe("provenance: a ledger from a run the pull request rewrote is never a verdict", () => {
  it("a fork's forged ledger (its pull request changed the workflow file) completes action_required naming the file; the same ledger from a pull request that did not touch the workflow completes success", async () => {
    const forged = await rigs.start();
    uploadLedger(forged.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      changedFiles: ["src/sum.js", GATE_WORKFLOW],
    });
    const refused = await forged.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }),
    );
    expect(refused.outcome, refused.response).toBe("completed:action_required");
    const check = theCheck(forged.github);
    expect(check).toMatchObject({ headSha: HEAD, status: "completed", conclusion: "action_required" });
    expect(check.output.title).toBe(
      "evidence-gate: pull request #42 changes the workflow that produced this ledger",
    );
    expect(check.output.summary).toContain(`- \`${GATE_WORKFLOW}\`: the workflow file that ran`);
    expect(check.output.summary).toContain("**What a writer does:**");
    expect(check.output.summary).toContain("from the fork `forker/widgets`");
    expect(check.output.summary).not.toContain("PASS (verified)");
    expect(everSuccess(forged.github)).toBe(false);
    expect(forged.github.callsTo("GET", "/repos/{owner}/{repo}/pulls")[0]).toMatchObject({
      query: { head: "forker:fix-sum", state: "open" },
    });
    forged.github.assertNoViolations();

    const genuine = await rigs.start();
    uploadLedger(genuine.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      changedFiles: ["src/sum.js"],
    });
    const posted = await genuine.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }),
    );
    expect(posted.outcome, posted.response).toBe("completed:success");
    expect(theCheck(genuine.github)).toMatchObject({ conclusion: "success" });
    genuine.github.assertNoViolations();
  });

  it("a same-repository pull request that edits the gate's workflow gets action_required from the App, on the check it owns", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }));
    expect(theCheck(github).status).toBe("queued");
    uploadLedger(github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      fork: false,
      changedFiles: [GATE_WORKFLOW, "src/sum.js"],
    });
    const done = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, fork: false, pullRequest: 42 }),
    );
    expect(done.outcome, done.response).toBe("completed:action_required");
    const check = theCheck(github);
    expect(check).toMatchObject({
      conclusion: "action_required",
      externalId: expect.stringContaining(`run=${RUN}`),
    });
    expect(check.output.summary).toContain(GATE_WORKFLOW);
    // No gate buttons from the refused run; only Re-verify, which dispatches the base's workflow.
    expect(check.actions).toEqual([REVERIFY_BUTTON]);
    expect(everSuccess(github)).toBe(false);
    // The linked pull request is read by number.
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")).toHaveLength(1);
    github.assertNoViolations();
  });

  it("a rewritten same-repository run that pushed a commit leaves neither check run open: the head's and the pushed commit's both complete action_required, nothing superseded", async () => {
    const rig = await rigs.start();
    const { github } = rig;
    const pushed = "abcdefabcdefabcdefabcdefabcdefabcdefabcd";
    github.state.addCommit({ sha: pushed, tree: STARTING_TREE, parents: [HEAD] });
    const ledger: Ledger = {
      ...SUCCESS_LEDGER,
      headSha: HEAD,
      postedCommit: { sha: pushed, tree: STARTING_TREE, description: "the pushed commit" },
    };
    await rig.deliver("pull_request", pullRequestPayload({ headSha: HEAD }));
    uploadLedger(github, { ledger, runId: RUN, headSha: HEAD, fork: false, changedFiles: [GATE_WORKFLOW] });
    // The run pushed onto the branch: the pull request's head is the pushed commit, whose check run is queued.
    github.state.movePullRequestHead(42, pushed);
    await rig.deliver("pull_request", pullRequestPayload({ action: "synchronize", headSha: pushed }));
    const done = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, fork: false, pullRequest: 42 }),
    );
    expect(done.outcome, done.response).toBe("completed:action_required");
    expect(github.state.checkRuns.map((r) => [r.headSha, r.status, r.conclusion])).toEqual([
      [HEAD, "completed", "action_required"],
      [pushed, "completed", "action_required"],
    ]);
    expect(everSuccess(github)).toBe(false);
    github.assertNoViolations();
  });

  it("a pull request GitHub no longer shows at the run's head (closed, or moved on) is not a verdict either", async () => {
    const rig = await rigs.start();
    uploadLedger(rig.github, {
      ledger: { ...SUCCESS_LEDGER, headSha: HEAD },
      runId: RUN,
      headSha: HEAD,
      pullRequest: false,
    });
    const done = await rig.deliver(
      "workflow_run",
      workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD }),
    );
    expect(done.outcome, done.response).toBe("completed:action_required");
    expect(theCheck(rig.github).output.summary).toContain("no open pull request of octo-org/widgets");
    rig.github.assertNoViolations();
  });
});

describe("agreement: the check is success only when GitHub's run conclusion is success too", () => {
  it.each([
    ["failure", "failure"],
    ["cancelled", "cancelled"],
    ["timed_out", "timed_out"],
  ])(
    "a run GitHub reports %s, whose ledger says success, completes the check %s naming both",
    async (run, posted) => {
      const rig = await rigs.start();
      uploadLedger(rig.github, { ledger: { ...SUCCESS_LEDGER, headSha: HEAD }, runId: RUN, headSha: HEAD });
      const done = await rig.deliver(
        "workflow_run",
        workflowRunPayload({ action: "completed", runId: RUN, headSha: HEAD, conclusion: run }),
      );
      expect(done.outcome, done.response).toBe(`completed:${posted}`);
      const check = theCheck(rig.github);
      expect(check.conclusion).toBe(posted);
      expect(check.output.title).toBe(`Workflow run ${RUN} ended ${run}; its ledger says success`);
      // Markdown-escaped in the summary (`timed\_out`).
      expect(check.output.summary).toContain(
        `GitHub reports workflow run ${RUN} ended ${run.replace("_", "\\_")}`,
      );
      expect(everSuccess(rig.github)).toBe(false);
      rig.github.assertNoViolations();
    },
  );
});
