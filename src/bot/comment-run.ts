/**
 * A `/evidence-gate run` comment's workflow run with `report-to: bot` (issue 23 item 4): GitHub runs an
 * `issue_comment` workflow on the **default branch**, so its `workflow_run` names the default branch's head
 * commit (`head_sha`, `head_branch`) and no pull request (`pull_requests: []`). The pull request it ran on is
 * known only from the run's `run-name`, which the default branch's workflow sets from the event GitHub wrote
 * (`evidence-gate run #${{ github.event.issue.number }}`, docs/bot.md "The workflows") — never from the
 * ledger the run uploaded, which the pull request's code wrote:
 *
 * 1. the `run-name` must name a pull request ({@link commentRunNamedBy}); a run whose name names none is
 *    refused (nothing is posted, the ledger is never asked which pull request it is about);
 * 2. the ledger is read by the shared rule (`withWorkflowRunLedger`): a run that uploaded none posts nothing
 *    (a comment GitHub ran for anyone, e.g. a non-writer's the action refused, cannot fail a pull request's
 *    check);
 * 3. that pull request must be open (`GET /repos/{o}/{r}/pulls/{n}`) and the ledger's head commit must be its
 *    head **now**; else nothing is posted (`stale`: closed, or its head moved on — the new head has its own
 *    run and check run — or a ledger about another commit, e.g. another pull request's head);
 * 4. the run is then handled exactly as a `pull_request` run of that head would be (`workflow-run-handler.ts`
 *    `complete`): the event as GitHub sent it, with only its head (commit, branch, repository, fork or not)
 *    and its pull requests replaced by GitHub's own view of that pull request. The ledger is read again
 *    there and checked against that head, the provenance rule of
 *    docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md runs on that pull request's files,
 *    and GitHub's conclusion of the run bounds the ledger's.
 *
 * `requested` / `in_progress` of such a run move nothing (the check run waits, as queued or as its last run
 * left it).
 */
import { statusOf } from "../github/base-ref-file.js";
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import { withWorkflowRunLedger } from "../github/workflow-run-ledger.js";
import type { HandlerContext, HandlerResult } from "./handler.js";
import { commitSha, type RepositoryPart } from "./payload-parts.js";

/** What a comment run's `run-name` says it runs on: `evidence-gate run #<pull request number>`. */
const COMMENT_RUN = /\bevidence-gate run #([1-9][0-9]{0,9})\b/;

/**
 * The pull request number a comment run's `run-name` (`evidence-gate run #<number>`, docs/bot.md "The
 * workflows": `github.event.issue.number`, set by GitHub from the comment's event) names, else `null`.
 */
export function commentRunNamedBy(displayTitle: string | null): number | null {
  const named = COMMENT_RUN.exec(displayTitle ?? "");
  return named === null ? null : Number(named[1]);
}

/** A pull request as `GET /repos/{o}/{r}/pulls/{n}` (or the list) shows it: the parts a run's head takes. */
export interface PullRequestHead {
  readonly number: number;
  readonly head: {
    readonly sha: string;
    readonly ref: string;
    readonly repo: { readonly full_name: string } | null;
  };
}

/**
 * `upstream` as a `pull_request` run of `pull`'s head would be: its head commit, branch, repository and fork
 * status, and its pull requests, all from GitHub's view of `pull` (a run on the default branch — a comment's,
 * a Re-verify's — names the default branch's head instead).
 */
export function asPullRequestRun(
  upstream: WorkflowRunEvent,
  pull: PullRequestHead,
  repository: { readonly full_name: string },
): WorkflowRunEvent {
  const headRepository = pull.head.repo?.full_name ?? null;
  return {
    ...upstream,
    headSha: pull.head.sha.toLowerCase(),
    headBranch: pull.head.ref,
    headRepository,
    fromFork: headRepository === null || headRepository.toLowerCase() !== repository.full_name.toLowerCase(),
    pullRequests: [pull.number],
  };
}

/**
 * The `pull_request`-shaped view of a comment run (see the module comment), or the result to log when there
 * is none. `complete` is then given this view.
 */
export async function commentRunAsPullRequestRun(
  ctx: HandlerContext,
  upstream: WorkflowRunEvent,
  repository: RepositoryPart,
): Promise<WorkflowRunEvent | HandlerResult> {
  const what = `workflow run ${upstream.runId} (triggered by ${upstream.event})`;
  if (upstream.action !== "completed") {
    return { outcome: "ignored", detail: `${what} ${upstream.action}: it is reported once completed` };
  }
  const number = commentRunNamedBy(upstream.displayTitle);
  if (number === null) {
    return {
      outcome: "refused",
      detail: `${what}: its run-name ${JSON.stringify(upstream.displayTitle ?? "")} names no pull request; the workflow must set \`run-name: evidence-gate run #\${{ github.event.issue.number }}\` on issue_comment (docs/bot.md "The workflows"). Its ledger never says which pull request it is about: nothing is posted`,
    };
  }
  const owner = repository.owner.login;
  const repo = repository.name;
  const reading = { octokit: ctx.octokit, owner, repo, upstream, checkName: ctx.config.checkName };
  const claimed = await withWorkflowRunLedger({ ...reading, checkAgainst: "caller" }, async (read) =>
    read.kind === "ledger" ? (read.ledger.headSha?.toLowerCase() ?? null) : read.title,
  );
  if (claimed === null || !commitSha.safeParse(claimed).success) {
    return {
      outcome: "ignored",
      detail: `${what} on #${number}: ${claimed ?? "its ledger names no head commit"}; nothing is posted`,
    };
  }
  let pull: PullRequestHead & { readonly state: string };
  try {
    pull = (await ctx.octokit.rest.pulls.get({ owner, repo, pull_number: number })).data;
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
    return { outcome: "ignored", detail: `${what}: #${number} is no pull request of ${owner}/${repo}` };
  }
  const head = pull.head.sha.toLowerCase();
  if (pull.state !== "open" || head !== claimed) {
    return {
      outcome: "stale",
      detail: `${what}: pull request #${number} is ${pull.state} at ${head.slice(0, 7)}, and its ledger is about ${claimed.slice(0, 7)}${pull.state === "open" ? " (its head moved on, or the ledger names another commit)" : ""}; nothing is posted`,
    };
  }
  return asPullRequestRun(upstream, pull, repository);
}
