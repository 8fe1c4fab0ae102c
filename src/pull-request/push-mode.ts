/**
 * `push: true` (SPEC §6, §10 "Push", §11; ADR 0008): the action commits the nodes' verified changes and pushes
 * them to the pull request's branch, and the verdict is posted on the pushed commit.
 *
 * - Before anything runs: a fork's pull request gets a note and no push (the action pushes only to branches of
 *   this repository; the nodes' changes stay in `patch.diff`, in the run-directory artifact). Otherwise the
 *   checkout must be clean and the action checks out `pull_request.head.sha` itself (fetching it with full
 *   history when it is not there), so the run starts from the PR head — never from GitHub's test merge of
 *   the base, which must never be pushed. If it cannot, the run stops as a usage error saying how to fix the
 *   workflow.
 * - When the run ends (`finish-run.ts`): the engine commits only when the run would be `success` on the
 *   committed tree (every node passed, every non-gate sink verified that very tree); {@link PushTarget.publish}
 *   then pushes with the push credential (`src/proc/git-push.ts`), guarded by a lease on the PR head. A
 *   refused push fails the run; the changes stay in `patch.diff`.
 * - Reporting: {@link PushTarget.moveCheckRun} creates the check run on the pushed commit, completes the one
 *   created on the old head at start `neutral` ("Superseded by <sha>"), and hands the post step the new one.
 */
import type { PublishCommit } from "../engine/run-frame.js";
import { evidenceTree } from "../evidence/evidence-tree.js";
import { GitError, git } from "../proc/git.js";
import { fetchCommit, type GitCredential, pushCommit } from "../proc/git-push.js";
import {
  checkRunReporter,
  endRun,
  type PullRequestRun,
  type PushTarget,
  saveCheckRun,
} from "./running-mode.js";
import { SAVED_STATE } from "./saved-state.js";

const short = (sha: string): string => sha.slice(0, 7);

/**
 * Sets up push mode for a pull-request run: the run unchanged when `push` is off, with a note on a fork,
 * with its {@link PushTarget} once the PR head is checked out; `null` when the run was ended (the head could
 * not be checked out: reported as a usage error on the check run).
 */
export async function openPushMode(
  run: PullRequestRun,
): Promise<(PullRequestRun & { push?: PushTarget }) | null> {
  const { event, inputs } = run;
  if (!inputs.push) return run;
  if (event.isFork) {
    const note = `push: true does nothing on this pull request: its branch is in another repository (${event.headRepoFullName ?? "a deleted fork"}), and evidence-gate pushes only to branches of ${event.owner}/${event.repo}. The nodes' changes, if any, are in patch.diff in the run-directory artifact.`;
    run.runner.notice(note);
    return { ...run, notes: [...run.notes, note] };
  }
  const context = { baseEnv: run.env, knownSecrets: run.secrets };
  const credential: GitCredential = {
    serverUrl: event.run.serverUrl,
    token: inputs.pushToken ?? inputs.githubToken,
  };
  // The repository's URL from trusted values, never the checkout's remote (which a node could rewrite).
  const url = `${event.run.serverUrl}/${event.owner}/${event.repo}.git`;
  const problem = await checkOutHead(run, { url, credential });
  if (problem !== null) {
    await endRun(run, {
      kind: "usage-error",
      message: `push: true needs the pull request head ${short(event.headSha)} checked out, and ${problem}.`,
    });
    return null;
  }
  run.runner.info(`push: the run starts from the pull request head ${event.headSha} (${event.headRef})`);
  const branch = event.headRef;
  const publish: PublishCommit = async ({ sha }) => {
    // The same rule as at the start (SPEC §9): what is pushed stands on the head the event names, nothing else.
    const parent = await firstParent(run, sha);
    if (parent !== event.headSha)
      return {
        kind: "refused",
        reason: `the commit to push, ${short(sha)}, does not stand on the pull request's head ${event.headSha} the event names (its parent is ${parent ?? "unknown"}): nothing was pushed`,
      };
    const result = await pushCommit({
      ...context,
      repoDir: run.workspace,
      tempParent: run.temp,
      url,
      credential,
      sha,
      branch,
      expectedOld: event.headSha,
    });
    switch (result.kind) {
      case "pushed":
        run.runner.setOutput("pushed-sha", sha);
        run.runner.info(`push: ${sha} pushed to ${branch}`);
        return {
          kind: "published",
          note: `the nodes' verified changes, pushed to ${branch} by evidence-gate`,
        };
      case "rejected":
        return {
          kind: "refused",
          reason: `${event.owner}/${event.repo} refused the update of ${branch} (${result.reason}): the branch moved since the run started from ${short(event.headSha)}, or a rule protects it`,
        };
      case "failed":
        return { kind: "refused", reason: `git push to ${branch} failed: ${result.reason}` };
      default:
        return result satisfies never;
    }
  };
  const moveCheckRun: PushTarget["moveCheckRun"] = async (pushed) => {
    const { reporter } = checkRunReporter({
      runner: run.runner,
      octokit: run.octokit,
      owner: event.owner,
      repo: event.repo,
      secrets: run.secrets,
      name: inputs.checkName,
      headSha: pushed.sha,
      detailsUrl: event.run.runUrl,
    });
    const ref = await reporter.start(
      run.runId,
      `Run \`${run.runId}\` pushed ${short(pushed.sha)} to \`${branch}\`; its ledger follows here.`,
      "evidence-gate: reporting",
    );
    const link =
      ref.htmlUrl === null
        ? `check run ${ref.id}`
        : `[the check run on ${short(pushed.sha)}](${ref.htmlUrl})`;
    await run.reporter.end(
      "neutral",
      `Superseded by ${short(pushed.sha)}`,
      [
        `## Superseded by ${short(pushed.sha)}`,
        "",
        `Run \`${run.runId}\` verified the nodes' changes and pushed them to \`${branch}\` as commit \`${pushed.sha}\` (tree \`${pushed.tree}\`). The verdict is posted on that commit: ${link}.`,
        "",
        `This check run, on ${short(event.headSha)}, carries no verdict.`,
        "",
      ].join("\n"),
    );
    // The post step now watches the new check run (the old one is completed).
    saveCheckRun(run.runner, ref, run.runId);
    run.runner.saveState(SAVED_STATE.checkRunCompleted, "false");
    return reporter;
  };
  return { ...run, push: { branch, publish, moveCheckRun } };
}

/** The first parent of `sha` in the workspace, or `null` when git cannot name one (a root commit, an error). */
async function firstParent(run: PullRequestRun, sha: string): Promise<string | null> {
  try {
    return await git(["rev-parse", "--verify", "--quiet", `${sha}^1`], {
      cwd: run.workspace,
      baseEnv: run.env,
      knownSecrets: run.secrets,
    });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return null;
  }
}

/**
 * Checks out `pull_request.head.sha` (detached, hooks off), fetching it with full history when it is missing
 * or the checkout is shallow. The checkout must be clean: the nodes' changes are what gets committed.
 *
 * @returns `null` when `HEAD` is the PR head, else what went wrong (a clause for the usage error).
 */
async function checkOutHead(
  run: PullRequestRun,
  o: { readonly url: string; readonly credential: GitCredential },
): Promise<string | null> {
  const { event } = run;
  const context = { baseEnv: run.env, knownSecrets: run.secrets };
  const inWorkspace = { cwd: run.workspace, ...context };
  try {
    const head = await git(["rev-parse", "--verify", "HEAD^{commit}"], inWorkspace);
    const headTree = await git(["rev-parse", `${head}^{tree}`], inWorkspace);
    if ((await evidenceTree(run.workspace, context)) !== headTree) {
      return `the checkout ${run.workspace} has uncommitted changes (tracked edits or untracked, not ignored files), which push would commit as the nodes' work: run evidence-gate on a fresh checkout`;
    }
    if (head === event.headSha) return null;
    const shallow = (await git(["rev-parse", "--is-shallow-repository"], inWorkspace)) === "true";
    let present = true;
    try {
      await git(["cat-file", "-e", `${event.headSha}^{commit}`], inWorkspace);
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      present = false;
    }
    if (!present || shallow) {
      run.runner.info(`push: fetching ${event.headSha} with full history from ${o.url}`);
      await fetchCommit({
        ...context,
        repoDir: run.workspace,
        url: o.url,
        credential: o.credential,
        sha: event.headSha,
      });
    }
    await git(
      [
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "advice.detachedHead=false",
        "checkout",
        "--quiet",
        "--detach",
        "--no-recurse-submodules",
        event.headSha,
      ],
      inWorkspace,
    );
    const now = await git(["rev-parse", "HEAD"], inWorkspace);
    if (now !== event.headSha) return `HEAD is ${short(now)} after checking it out`;
    return null;
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return `the action could not check it out (${error.message}). Give actions/checkout \`ref: \${{ github.event.pull_request.head.sha }}\` and \`fetch-depth: 0\`, and a token that can read the repository`;
  }
}
