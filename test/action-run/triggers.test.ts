/**
 * Triggers and `mode: verify` (SPEC §2, §6, §9, §10, §11), in-process (test/support/action-in-process.ts):
 * the action's `runAction` started by an `/evidence-gate run` comment, a `workflow_dispatch`,
 * `pull_request_target`, an unsupported event, the `pull_request` actions, and a fork's or Dependabot's
 * `pull_request` without a model credential — with GitHub's own webhook example payloads, the GitHub API
 * double (every request and response held to the OpenAPI description), real git repositories (the pull
 * request's head published as `refs/pull/42/head` on the workspace's `origin`) and real verify commands;
 * model calls, where a run makes any, are played by the scripted stand-in.
 *
 * The workspace is a clone of `main`, where `npm test` fails; the pull request's head fixes it. A verify that
 * passed therefore ran on the head the action checked out itself.
 *
 * Moved from test/e2e/action-triggers.test.ts (issue 24), which keeps the one real run: a writer's comment
 * command run by the bundled action with the real claude CLI. The trigger decisions themselves (every
 * refusal of a comment, a dispatch without `pr`, the `pull_request` actions) are unit-tested in
 * test/github/trigger.test.ts and trigger-actions.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Plays } from "../engine/port-harness.js";
import { actionInProcessResources, type InProcessActionRun } from "../support/action-in-process.js";
import { type ActionRun, checkRunWrites, completion, stepDebug } from "../support/action-step.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { REPO_ROOT } from "../support/repo-root.js";
import { MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import {
  commentPayload,
  dispatchPayload,
  FORK,
  holdPullRequest,
  makePullRequestHeads,
  PR_NUMBER,
  type PullRequestHeads,
  pushPayload,
  reactionsOn,
} from "../support/scenarios/pr-heads.js";

const open = actionInProcessResources();
const { run } = open;
const GOAL = `${MARKS.plannerGoal}.`;
const CHECK_RUNS = "/repos/{owner}/{repo}/check-runs";
/** The fork's repository id: a fork is its own repository, so GitHub's payload carries another id. */
const FORK_ID = 99_000_001;

async function heads(): Promise<PullRequestHeads> {
  const made = await makePullRequestHeads();
  open.keep(made.upstream);
  open.keep(made.workspace);
  return made;
}

/** The GitHub API double holding pull request 42 of `h` (`holdPullRequest`), closed after the test. */
async function githubFor(
  h: PullRequestHeads,
  o: { fork?: boolean; policy?: string } = {},
): Promise<GitHubServer> {
  return holdPullRequest(await open.github(), h, o);
}

/** The fields of the event fixture's `pull_request` a test edits. */
interface PullRequestShape {
  head: { sha: string; repo: { id: number; full_name: string } };
  user: { login: string; id: number; type: string };
}

/** The event fixture as a `name` event (pull_request or pull_request_target) with `edit` applied. */
function pullRequestEvent(
  name: string,
  headSha: string,
  edit: (payload: { action: string; pull_request: PullRequestShape }) => void = () => {},
): { name: string; payload: Record<string, unknown> } {
  const payload = JSON.parse(
    readFileSync(join(REPO_ROOT, "test", "fixtures", "events", "pull_request.opened.json"), "utf8"),
  ) as { action: string; pull_request: PullRequestShape };
  payload.pull_request.head.sha = headSha;
  edit(payload);
  return { name, payload };
}

/** The scripted stand-in's plays of the review-only plan (a test that expects no model call asserts none was made). */
function playsFor(): Plays {
  return fixSumPlays({ plannerReplies: [reviewOnlyPlan()] });
}

function expectRefusedWithoutCheckRun(result: InProcessActionRun, github: GitHubServer, words: string): void {
  expect(result.exitCode, stepDebug(result)).toBe(1);
  expect(result.outputs.outcome).toBe("refused");
  expect(github.callsTo("POST", CHECK_RUNS)).toHaveLength(0);
  expect(github.state.checkRuns).toHaveLength(0);
  expect(result.summary).toContain(words);
  expect(result.modelCallsMade).toHaveLength(0);
  github.assertNoViolations();
}

describe("action (in-process): /evidence-gate run comments (SPEC §9, §11)", () => {
  it("a read-only user's command is refused before any model call: -1 reaction, no check run, step failed", async () => {
    const h = await heads();
    const github = await githubFor(h);
    const plays = playsFor();
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays,
      event: {
        name: "issue_comment",
        payload: commentPayload({ body: "/evidence-gate run please", login: "reader" }),
      },
    });
    expectRefusedWithoutCheckRun(result, github, "reader's role on octo-org/widgets is read");
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission")).toHaveLength(
      1,
    );
    expect(reactionsOn(github)).toEqual(["1100200300:-1"]);
    // The workspace was not touched: still main.
    expect(await h.workspace.git(["rev-parse", "HEAD"])).toBe(h.baseSha);
  });

  // The refusals of a bare or stale command on a fork are decided in test/github/trigger.test.ts.
  it("on a fork's pull request a command naming the reviewed head runs it", async () => {
    const h = await heads();
    const github = await githubFor(h, { fork: true });
    const reviewed = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
      event: {
        name: "issue_comment",
        payload: commentPayload({
          body: `/evidence-gate run @${h.headSha.slice(0, 10)}`,
          login: "maintainer",
        }),
      },
    });
    expect(reviewed.exitCode, stepDebug(reviewed)).toBe(0);
    expect(reviewed.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(reactionsOn(github)).toEqual(["1100200300:eyes"]);
    expect(checkRunWrites(reviewed)[0]!.body.head_sha).toBe(h.headSha);
    github.assertNoViolations();
  });

  it("a head pushed after the API was read is refused on the check run (head-moved), and nothing runs", async () => {
    const h = await heads();
    const github = await githubFor(h);
    await h.push();
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
      event: {
        name: "issue_comment",
        payload: commentPayload({ body: "/evidence-gate run", login: "maintainer" }),
      },
    });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    expect(completion(result)!.output!.title).toBe("Refused: the pull request's head moved");
    expect(result.stdout).not.toContain("> sample@1.0.0 test");
    github.assertNoViolations();
  });
});

describe("action (in-process): workflow_dispatch, pull_request_target, other events (SPEC §10, §11)", () => {
  it("workflow_dispatch with pr runs on that pull request's head, looked up through the API", async () => {
    const h = await heads();
    const github = await githubFor(h);
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
      event: { name: "workflow_dispatch", payload: dispatchPayload({ pr: String(PR_NUMBER) }) },
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")).toHaveLength(1);
    expect(checkRunWrites(result)[0]!.body.head_sha).toBe(h.headSha);
    expect(await h.workspace.git(["rev-parse", "HEAD"])).toBe(h.headSha);
    github.assertNoViolations();
  });

  it("pull_request_target is refused on the check run with the reason; allow-pull-request-target: true runs it on the head with a warning", async () => {
    const h = await heads();
    const github = await githubFor(h, { fork: true });
    const event = pullRequestEvent("pull_request_target", h.headSha, (p) => {
      p.pull_request.head.repo = { ...p.pull_request.head.repo, id: FORK_ID, full_name: FORK };
    });
    const refused = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
      event,
    });
    expect(refused.exitCode, stepDebug(refused)).toBe(1);
    expect(refused.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    const output = completion(refused)!.output!;
    expect(output.title).toBe("Refused: unsupported trigger");
    expect(output.summary).toContain("runs with the base repository's secrets and a write token");
    expect(output.summary).toContain("allow-pull-request-target: true");
    expect(refused.stdout).not.toContain("> sample@1.0.0 test");

    const allowed = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test", "allow-pull-request-target": "true" },
      github,
      event,
    });
    expect(allowed.exitCode, stepDebug(allowed)).toBe(0);
    expect(allowed.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(allowed.commands.some((c) => c.startsWith("::warning::allow-pull-request-target: true"))).toBe(
      true,
    );
    expect(await h.workspace.git(["rev-parse", "HEAD"])).toBe(h.headSha);
    github.assertNoViolations();
  });

  // A closed pull_request (nothing to do) is decided in test/github/trigger-actions.test.ts; the step's
  // "nothing to do" end to end is converted_to_draft's, below.
  it("an unsupported event (push) is a usage error naming the supported ones", async () => {
    const h = await heads();
    const github = await githubFor(h);
    const push = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
      event: { name: "push", payload: pushPayload() },
    });
    expect(push.exitCode).toBe(1);
    expect(push.outputs.outcome).toBe("usage-error");
    expect(push.stdout).toContain(
      "evidence-gate runs on pull_request (opened, synchronize, reopened, ready_for_review), issue_comment",
    );
    expect(push.stdout).toContain("this run was triggered by push");
    expect(push.calls).toHaveLength(0);
  });
});

describe("action (in-process): a verify command that runs nothing is refused, as auto refuses it (SPEC §5, §10)", () => {
  it("mode verify with verify-cmd only a # comment: usage error, the command never runs, no success", async () => {
    const h = await heads();
    const github = await githubFor(h);
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify", "verify-cmd": "# nothing" },
      github,
      event: { name: "workflow_dispatch", payload: dispatchPayload({ pr: String(PR_NUMBER) }) },
    });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(result.outputs.conclusion).not.toBe("success");
    expect(result.stdout).toContain(
      "verify-cmd is empty (blank, or only # comments): it exits 0 and would pass every time",
    );
    expect(github.state.checkRuns.map((c) => c.conclusion)).not.toContain("success");
  });

  it("mode verify with the base branch policy's verify-cmd only a # comment: usage error naming the policy file", async () => {
    const h = await heads();
    const github = await githubFor(h, { policy: 'verify-cmd: "# just a comment"\n' });
    const result = await run({
      workspace: h.workspace.dir,
      inputs: { mode: "verify" },
      github,
      event: { name: "workflow_dispatch", payload: dispatchPayload({ pr: String(PR_NUMBER) }) },
    });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(result.stdout).toMatch(
      /The policy file \.github\/evidence-gate\.yml.* sets an empty verify-cmd \(blank, or only # comments\), which would pass every time/,
    );
    expect(github.state.checkRuns.map((c) => c.conclusion)).not.toContain("success");
  });
});

describe("action (in-process): which pull_request actions run (SPEC §11)", () => {
  /** The workspace at the pull request's head (as actions/checkout leaves it on `pull_request`). */
  async function atHead(): Promise<{ h: PullRequestHeads; github: GitHubServer }> {
    const h = await heads();
    await h.workspace.git(["checkout", "--quiet", "--detach", h.headSha]);
    return { h, github: await githubFor(h) };
  }

  // One action of each kind end to end; every action's decision is in test/github/trigger-actions.test.ts.
  it.each(["ready_for_review"])(
    "pull_request %s runs: the verify command on the head, the check run success on it",
    async (action) => {
      const { h, github } = await atHead();
      const result = await run({
        workspace: h.workspace.dir,
        inputs: { mode: "verify", "verify-cmd": "npm test" },
        github,
        event: pullRequestEvent("pull_request", h.headSha, (p) => {
          p.action = action;
        }),
      });
      expect(result.exitCode, stepDebug(result)).toBe(0);
      expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
      expect(result.stdout).toContain("> sample@1.0.0 test");
      expect(result.stdout).not.toContain("nothing to do");
      const writes = checkRunWrites(result);
      expect(writes[0]).toMatchObject({ method: "POST", body: { head_sha: h.headSha } });
      expect(completion(result)).toMatchObject({ conclusion: "success" });
      expect(github.state.checkRuns).toEqual([
        expect.objectContaining({ headSha: h.headSha, status: "completed", conclusion: "success" }),
      ]);
      github.assertNoViolations();
    },
  );

  it.each(["converted_to_draft"])(
    "pull_request %s is nothing to do: no API call, no verify command, the step passes",
    async (action) => {
      const { h, github } = await atHead();
      const result = await run({
        workspace: h.workspace.dir,
        inputs: { mode: "verify", "verify-cmd": "npm test" },
        github,
        event: pullRequestEvent("pull_request", h.headSha, (p) => {
          p.action = action;
        }),
      });
      expect(result.exitCode, stepDebug(result)).toBe(0);
      expect(result.outputs.outcome).toBeUndefined();
      expect(result.calls).toHaveLength(0);
      expect(result.stdout).toContain(`pull_request ${action}: nothing to do`);
      expect(result.stdout).not.toContain("> sample@1.0.0 test");
      expect(github.state.checkRuns).toHaveLength(0);
    },
  );
});

/** The check-run calls of a run (a fork's `pull_request` run makes none: its token is read-only). */
function checkRunCalls(result: ActionRun): readonly unknown[] {
  return result.calls.filter((c) => (c.route ?? c.path).includes("check-runs"));
}

describe("action (in-process): a fork's pull request without a model credential, or without a writer's approval at its head (SPEC §6, §10; issue 12)", () => {
  /** The fork's pull_request event on a workspace at the head (as actions/checkout leaves it). */
  async function forkRun(o: {
    verifyCmd?: string;
    fixed: boolean;
    /** Give the model key (a secret the fork's workflow got anyway, e.g. also a Dependabot secret). */
    withKey?: boolean;
  }): Promise<{ result: ActionRun; github: GitHubServer }> {
    const h = await heads();
    if (o.fixed) await h.workspace.git(["checkout", "--quiet", "--detach", h.headSha]);
    const github = await githubFor(h, { fork: true });
    const plays = playsFor();
    const workspaceHead = await h.workspace.git(["rev-parse", "HEAD"]);
    const result = await run({
      workspace: h.workspace.dir,
      inputs: {
        goal: GOAL,
        ...(o.withKey === true ? {} : { "anthropic-api-key": "" }),
        ...(o.verifyCmd !== undefined ? { "verify-cmd": o.verifyCmd } : {}),
      },
      github,
      plays,
      event: pullRequestEvent("pull_request", workspaceHead, (p) => {
        p.pull_request.head.repo = { ...p.pull_request.head.repo, id: FORK_ID, full_name: FORK };
      }),
    });
    expect(result.modelCallsMade).toHaveLength(0);
    return { result, github };
  }

  it("with a verify command the run is verify-only: one `verify (engine)` row, PASS (verified), success, and a notice says why", async () => {
    const { result, github } = await forkRun({ verifyCmd: "npm test", fixed: true });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(result.commands.some((c) => c.startsWith("::notice::No model credential"))).toBe(true);
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8")) as {
      mode: string;
      rows: { nodeId: string; label: string; verdict: string; qualifier?: string }[];
    };
    expect(ledger.mode).toBe("verify");
    expect(ledger.rows).toEqual([
      expect.objectContaining({
        nodeId: "verify",
        label: "verify (engine)",
        verdict: "PASS",
        qualifier: "verified",
      }),
    ]);
    // A fork's token is read-only: no check-run call; the job summary carries the ledger for stage 2.
    expect(checkRunCalls(result)).toEqual([]);
    expect(result.summary).toContain("verify (engine)");
    github.assertNoViolations();
  });

  it("a failing verify command makes the one row FAIL (verify_failed) and the check run failure", async () => {
    const { result, github } = await forkRun({ verifyCmd: "npm test", fixed: false });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8")) as {
      rows: { nodeId: string; verdict: string; cause?: string; verify?: { exitCode: number } }[];
    };
    expect(ledger.rows).toHaveLength(1);
    expect(ledger.rows[0]).toMatchObject({ nodeId: "verify", verdict: "FAIL", cause: "verify_failed" });
    expect(ledger.rows[0]!.verify!.exitCode).not.toBe(0);
    github.assertNoViolations();
  });

  it("with a verify command that is only a # comment the verify-only fallback is a usage error, never a pass", async () => {
    const { result } = await forkRun({ verifyCmd: "# nothing", fixed: true });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(result.stdout).toContain("verify-cmd is empty (blank, or only # comments)");
    expect(result.summary).not.toContain("PASS (verified)");
  });

  it("without a verify command nothing runs: action_required naming the missing secret", async () => {
    const { result, github } = await forkRun({ fixed: true });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    expect(checkRunCalls(result)).toEqual([]);
    expect(result.summary).toContain("Refused: no model credential and no verify command");
    expect(result.summary).toContain(
      "`anthropic-api-key` or `claude-code-oauth-token` is empty for a fork's pull request",
    );
    expect(result.summary).toContain("Nothing ran");
    github.assertNoViolations();
  });

  it("with a model key present but no writer's approval at the head, the key is not used: verify-only, a notice names the head and the comment that approves it", async () => {
    const { result, github } = await forkRun({ verifyCmd: "npm test", fixed: true, withKey: true });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    const head = result.payload.pull_request as { head: { sha: string } };
    const short = head.head.sha.slice(0, 7);
    const notice = result.commands.find(
      (c) => c.startsWith("::notice::") && c.includes("no writer approved"),
    );
    expect(notice).toContain(`/evidence-gate run @${short}`);
    expect(notice).toContain("verify-only");
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8")) as { mode: string };
    expect(ledger.mode).toBe("verify");
    github.assertNoViolations();
  });

  it("with a model key present, no approval and no verify command: refused (action_required), nothing ran", async () => {
    const { result, github } = await forkRun({ fixed: true, withKey: true });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    expect(result.summary).toContain("Refused: a fork's pull request needs a writer's approval at its head");
    expect(checkRunCalls(result)).toEqual([]);
    github.assertNoViolations();
  });
});

describe("action (in-process): a Dependabot pull request (SPEC §6, §10): read-only token, Dependabot secrets only", () => {
  it.each([
    ["opened by Dependabot (pull_request.user.login; a person's re-run)", true],
    ["triggered by Dependabot (GITHUB_ACTOR; opened by a person)", false],
  ])(
    "%s, without a model credential: verify-only with the verify command, no check-run call, no comment call, the ledger in the job summary",
    async (_name, openedByBot) => {
      const h = await heads();
      await h.workspace.git(["checkout", "--quiet", "--detach", h.headSha]);
      const github = await githubFor(h);
      const plays = playsFor();
      const result = await run({
        workspace: h.workspace.dir,
        inputs: { goal: GOAL, "anthropic-api-key": "", "verify-cmd": "npm test" },
        github,
        plays,
        // Each signal alone: the other one names a person.
        env: openedByBot
          ? {}
          : { GITHUB_ACTOR: "dependabot[bot]", GITHUB_TRIGGERING_ACTOR: "dependabot[bot]" },
        event: pullRequestEvent("pull_request", h.headSha, (p) => {
          if (openedByBot) p.pull_request.user = { login: "dependabot[bot]", id: 49699333, type: "Bot" };
        }),
      });
      expect(result.exitCode, stepDebug(result)).toBe(0);
      expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
      expect(result.modelCallsMade).toHaveLength(0);
      const notice = result.commands.find((c) => c.startsWith("::notice::No model credential"));
      expect(notice).toContain("a Dependabot pull request");
      // Not a fork: the head repository is the base's, yet the token is read-only all the same.
      expect(result.payload).toMatchObject({
        pull_request: { head: { repo: { full_name: "octo-org/widgets" } } },
      });
      expect(checkRunCalls(result)).toEqual([]);
      expect(result.calls.filter((c) => (c.route ?? c.path).includes("/issues/"))).toEqual([]);
      expect(github.state.checkRuns).toHaveLength(0);
      const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8")) as {
        mode: string;
        rows: { nodeId: string; label: string; verdict: string; qualifier?: string }[];
      };
      expect(ledger.mode).toBe("verify");
      expect(ledger.rows).toEqual([
        expect.objectContaining({ nodeId: "verify", verdict: "PASS", qualifier: "verified" }),
      ]);
      expect(result.summary).toContain("verify (engine)");
      expect(result.summary).toContain("was opened or triggered by Dependabot");
      github.assertNoViolations();
    },
  );
});
