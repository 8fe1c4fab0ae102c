/**
 * `push: true` with `report-to: bot` (issue 11; SPEC §10 "Push"; docs/bot.md): the action pushed the nodes'
 * verified changes to the pull request's branch as a new commit, and its ledger says so (`postedCommit`,
 * different from the ledger's `headSha`). The ledger is the pull request's, untrusted data, so before the
 * App posts anything on the commit it names, GitHub is asked what that commit is
 * (`GET /repos/{owner}/{repo}/git/commits/{commit_sha}`,
 * https://docs.github.com/rest/git/commits#get-a-commit-object): it must exist in the base repository, its
 * **first parent** must be the workflow run's head commit (the trusted `workflow_run.head_sha`) and its
 * **tree** must be the ledger's `postedCommit.tree` — the tree the verdict was judged on. The run must be a
 * same-repository pull request's: the action never pushes a fork's branch (`src/pull-request/push-mode.ts`), so a
 * fork's ledger claiming a push is refused without asking.
 *
 * {@link pushedCommitProblem} is the decision (pure); {@link checkPushedCommit} asks GitHub and applies it.
 */
import type { GateOctokit } from "../github/octokit.js";
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import type { WorkflowRunLedger } from "../github/workflow-run-ledger.js";
import type { Ledger, StartingCommit } from "../ledger/ledger.js";

/** What GitHub says of a commit object: its SHA, tree SHA and parent SHAs (in order), all 40 hex. */
export interface GitCommitFacts {
  readonly sha: string;
  readonly tree: string;
  readonly parents: readonly string[];
}

/** What a push claim is checked against: the trusted event's head commit and whether it came from a fork. */
export interface PushClaimContext {
  /** `workflow_run.head_sha`: the commit the run started from, which the pushed commit must have as parent. */
  readonly headSha: string;
  /** `workflow_run` from a fork's pull request (`head_repository` ≠ `repository`). */
  readonly fromFork: boolean;
  /** `OWNER/NAME` the commit was looked up in (for the messages). */
  readonly repository: string;
}

const FULL_SHA = /^[0-9a-f]{40}$/;

/** The abbreviated SHA the check runs name a commit by (as `push-mode.ts` does). */
export const shortSha = (sha: string): string => sha.slice(0, 7);

/**
 * Why the ledger's `postedCommit` is not a commit the App may post the verdict on, or `null` when it is.
 *
 * @param claimed the ledger's `postedCommit` (untrusted: any strings the schema allows).
 * @param commit what GitHub answered for `claimed.sha`; `null` when it has no such commit (404 / 409 / 422).
 *   Not consulted for a fork's run or a malformed SHA.
 * @returns one plain-text sentence (no Markdown: the caller escapes it) naming what did not match.
 */
export function pushedCommitProblem(
  claimed: StartingCommit,
  context: PushClaimContext,
  commit: GitCommitFacts | null,
): string | null {
  const before = claimProblem(claimed, context);
  if (before !== null) return before;
  const sha = claimed.sha.toLowerCase();
  const head = context.headSha.toLowerCase();
  if (commit === null) {
    return `the ledger says the run pushed commit ${sha}, but ${context.repository} has no such commit`;
  }
  const parent = commit.parents[0]?.toLowerCase();
  if (parent !== head) {
    return `the ledger says the run pushed commit ${sha} on top of ${head}, but that commit's first parent is ${parent ?? "none (a root commit)"}`;
  }
  if (commit.tree.toLowerCase() !== claimed.tree.toLowerCase()) {
    return `the ledger says the run pushed commit ${sha} with tree ${claimed.tree}, but that commit's tree is ${commit.tree}`;
  }
  return null;
}

/** What refuses the claim without asking GitHub: a fork's run, or SHAs that are not full 40-hex ones. */
function claimProblem(claimed: StartingCommit, context: PushClaimContext): string | null {
  if (context.fromFork) {
    return `the ledger says the run pushed commit ${claimed.sha}, but the run is a fork's pull request, whose branch evidence-gate never pushes to`;
  }
  if (!FULL_SHA.test(claimed.sha.toLowerCase()) || !FULL_SHA.test(claimed.tree.toLowerCase())) {
    return `the ledger's pushed commit (${claimed.sha}, tree ${claimed.tree}) is not a pair of full 40-hex SHAs`;
  }
  return null;
}

/**
 * Asks GitHub for the ledger's pushed commit and decides ({@link pushedCommitProblem}).
 * @returns `null` when the App may post the verdict on `claimed.sha`, else why not (one plain sentence).
 * @throws the API's error for anything but "no such commit" (404, 409, 422): a transient failure, so the
 *   delivery answers 5xx and a redelivery tries again rather than posting a failure that is not the run's.
 */
export async function checkPushedCommit(
  octokit: GateOctokit,
  o: { readonly owner: string; readonly repo: string; readonly claimed: StartingCommit },
  context: PushClaimContext,
): Promise<string | null> {
  const early = claimProblem(o.claimed, context);
  if (early !== null) return early;
  let commit: GitCommitFacts | null;
  try {
    const { data } = await octokit.rest.git.getCommit({
      owner: o.owner,
      repo: o.repo,
      commit_sha: o.claimed.sha.toLowerCase(),
    });
    commit = { sha: data.sha, tree: data.tree.sha, parents: data.parents.map((p) => p.sha) };
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (status !== 404 && status !== 409 && status !== 422) throw error;
    commit = null;
  }
  return pushedCommitProblem(o.claimed, context, commit);
}

/** The commit the ledger says the run pushed (`postedCommit`), when it is not the event's head; else `undefined`. */
export function pushedCommitOf(ledger: Ledger, upstream: WorkflowRunEvent): StartingCommit | undefined {
  const posted = ledger.postedCommit;
  if (posted === undefined || posted.sha.toLowerCase() === upstream.headSha.toLowerCase()) return undefined;
  return posted;
}

/** `found`, or — when GitHub does not show the pushed commit the ledger claims (`pushed-commit.ts`) — why not. */
export async function checkedPushClaim(
  octokit: GateOctokit,
  found: Extract<WorkflowRunLedger, { kind: "ledger" }>,
  claimed: StartingCommit,
  upstream: WorkflowRunEvent,
  where: { readonly owner: string; readonly repo: string },
): Promise<WorkflowRunLedger> {
  const problem = await checkPushedCommit(
    octokit,
    { ...where, claimed },
    { headSha: upstream.headSha, fromFork: upstream.fromFork, repository: `${where.owner}/${where.repo}` },
  );
  if (problem === null) return found;
  return {
    kind: "none",
    title: `the ledger of workflow run ${upstream.runId} claims a push GitHub does not show`,
    reason: `Artifact ${found.artifact.name} (id ${found.artifact.id}): ${problem}. Nothing is posted on the commit it names.`,
    issues: [],
    outcome: "failed",
    refusedRunId: found.ledger.runId,
  };
}
