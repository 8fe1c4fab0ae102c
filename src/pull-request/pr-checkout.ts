/**
 * Checks out a pull request's head in the workspace, for the triggers whose checkout is not the pull
 * request (SPEC §9, §10): an `issue_comment` or `workflow_dispatch` workflow checks out the default branch,
 * and `pull_request_target` checks out the base. `actions/checkout` left a git repository whose `origin` is
 * the base repository, which holds every pull request's head as `refs/pull/<n>/head` (forks included).
 *
 * 1. `git fetch origin +refs/pull/<n>/head:refs/remotes/evidence-gate/pull/<n>` with the token as an
 *    `http.<server>/.extraheader` given to that one git process through `GIT_CONFIG_COUNT` variables
 *    (https://git-scm.com/docs/git-config#ENVIRONMENT): nothing is written to `.git/config`, and an
 *    extra header `actions/checkout` may have persisted is reset for this call (an empty value resets the
 *    list), so exactly one Authorization header is sent.
 * 2. The fetched ref must be the head SHA the run was decided on (the API's, or the one a maintainer's
 *    `@sha` named); a push in between is refused, never run.
 * 3. `git checkout --detach <sha>`, then `HEAD` must equal the head SHA before anything runs.
 */
import {
  NoCommitError,
  NotAGitRepositoryError,
  type StartingCommit,
  startingCommit,
} from "../evidence/evidence-tree.js";
import { GitError, git } from "../proc/git.js";

export interface PullRequestCheckoutOptions {
  /** `GITHUB_WORKSPACE`: the git repository `actions/checkout` left. */
  readonly workspace: string;
  readonly number: number;
  /** The head commit the run was decided on (40 hex). */
  readonly headSha: string;
  /** `GITHUB_SERVER_URL` (`https://github.com`, or a GHES host): the header is scoped to it. */
  readonly serverUrl: string;
  /** The workflow's token (`github-token`): given to the fetch only. */
  readonly token: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
}

export type PullRequestCheckout =
  | { readonly ok: true; readonly note: string }
  /** `moved`: the head is no longer the SHA the run was decided on; `failed`: git could not do it. */
  | { readonly ok: false; readonly reason: "moved" | "failed"; readonly message: string };

/** Fetches and checks out the head (see the module comment). Never throws for git's own failures. */
export async function checkOutPullRequestHead(o: PullRequestCheckoutOptions): Promise<PullRequestCheckout> {
  const gitOptions = { cwd: o.workspace, baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  const localRef = `refs/remotes/evidence-gate/pull/${o.number}`;
  const header = `http.${o.serverUrl.replace(/\/+$/, "")}/.extraheader`;
  const basic = Buffer.from(`x-access-token:${o.token}`, "utf8").toString("base64");
  try {
    await git(
      ["fetch", "--no-tags", "--no-recurse-submodules", "origin", `+refs/pull/${o.number}/head:${localRef}`],
      {
        ...gitOptions,
        timeoutMs: 10 * 60_000,
        set: {
          GIT_CONFIG_COUNT: "2",
          GIT_CONFIG_KEY_0: header,
          GIT_CONFIG_VALUE_0: "",
          GIT_CONFIG_KEY_1: header,
          GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${basic}`,
        },
      },
    );
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return {
      ok: false,
      reason: "failed",
      message: `could not fetch pull request #${o.number}'s head (refs/pull/${o.number}/head) from origin into ${o.workspace}: ${error.detail}. Check out the repository with actions/checkout first (the workspace must be its git repository).`,
    };
  }
  try {
    const fetched = await git(["rev-parse", "--verify", `${localRef}^{commit}`], gitOptions);
    if (fetched !== o.headSha) {
      return {
        ok: false,
        reason: "moved",
        message: `pull request #${o.number}'s head moved: the run was decided on ${o.headSha.slice(0, 7)}, and refs/pull/${o.number}/head is now ${fetched.slice(0, 7)}. Nothing ran; trigger the run again for the new head.`,
      };
    }
    await git(["-c", "advice.detachedHead=false", "checkout", "--detach", o.headSha], gitOptions);
    const head = await git(["rev-parse", "HEAD"], gitOptions);
    if (head !== o.headSha) {
      return {
        ok: false,
        reason: "failed",
        message: `after checking out ${o.headSha.slice(0, 7)}, HEAD is ${head.slice(0, 7)}: nothing ran.`,
      };
    }
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    return {
      ok: false,
      reason: "failed",
      message: `could not check out pull request #${o.number}'s head ${o.headSha.slice(0, 7)} in ${o.workspace}: ${error.detail}`,
    };
  }
  return {
    ok: true,
    note: `Checked out pull request #${o.number}'s head ${o.headSha.slice(0, 7)} (refs/pull/${o.number}/head) in the workspace; HEAD is that commit.`,
  };
}

/**
 * Why the workspace a `pull_request` run was handed is not the commit the event names (SPEC §9: "the
 * checkout must be the event's head or GitHub's merge of exactly that head"; issue 21 item 6), or `null`
 * when it is: `HEAD` is `headSha`, or a two-parent commit whose second (head) parent is `headSha`. GitHub's
 * merge ref follows the newest push, so a re-run, or a run that started late, can hold the merge of a
 * newer head than the event's — running it would put the old SHA's verdict on code it never named.
 * A workspace that is no git repository (or has no commit) is left to the run's own check, which reports it.
 *
 * @param o.workspace `GITHUB_WORKSPACE`; `o.headSha` `pull_request.head.sha` (40 hex).
 * @returns one sentence naming both SHAs, for a refusal.
 * @throws GitError when git fails otherwise.
 */
export async function eventCheckoutProblem(o: {
  readonly workspace: string;
  readonly headSha: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
}): Promise<string | null> {
  let start: StartingCommit;
  try {
    start = await startingCommit(o.workspace, {
      baseEnv: o.baseEnv,
      knownSecrets: o.knownSecrets,
      prHead: o.headSha,
    });
  } catch (error) {
    if (error instanceof NotAGitRepositoryError || error instanceof NoCommitError) return null;
    throw error;
  }
  if (start.sha.toLowerCase() === o.headSha.toLowerCase() || start.isMergeOfHead) return null;
  const [base, head] = start.parents;
  const held =
    start.parents.length === 2 && base !== undefined && head !== undefined
      ? `the merge commit ${start.sha}, whose head parent is ${head} (merged into ${base})`
      : `commit ${start.sha}`;
  return `the checkout is not the commit the event names: pull_request.head.sha is ${o.headSha}, and the workspace holds ${held}. The pull request's head moved after this run was triggered (GitHub's merge ref follows the newest push), so its code is not what the event named; nothing ran. The run triggered by the newer push checks that head.`;
}
