/**
 * A `/evidence-gate run` comment's workflow run with `report-to: bot` (issue 23 item 4): GitHub runs an
 * `issue_comment` workflow on the **default branch**, so its `workflow_run` names the default branch's head
 * commit (`head_sha`, `head_branch`) and no pull request (`pull_requests: []`). The pull request it ran on is
 * known only from the ledger the run uploaded — and the artifact is never trusted alone:
 *
 * 1. the ledger is read by the shared rule (`withWorkflowRunLedger`) only for the head commit it claims;
 * 2. that commit must be the head **now** of an open pull request of this repository, as GitHub lists them
 *    (`GET /repos/{o}/{r}/pulls`); else nothing is posted (`stale`: closed, or its head moved on — the new
 *    head has its own run and check run);
 * 3. the run is then handled exactly as a `pull_request` run of that head would be (`workflow-run-handler.ts`
 *    `complete`): the event as GitHub sent it, with only its head (commit, branch, repository, fork or not)
 *    and its pull requests replaced by GitHub's own view of those pull requests. The ledger is read again
 *    there and checked against that head, the provenance rule of
 *    docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md runs on those pull requests' files,
 *    and GitHub's conclusion of the run bounds the ledger's.
 *
 * `requested` / `in_progress` of such a run name no pull request and move nothing (the check run waits, as
 * queued or as its last run left it). A comment run that uploaded no ledger names no pull request either:
 * nothing is posted (logged `ignored`, saying why).
 */
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import { withWorkflowRunLedger } from "../github/workflow-run-ledger.js";
import type { HandlerContext, HandlerResult } from "./handler.js";
import { commitSha, type RepositoryPart } from "./payload-parts.js";

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
    return {
      outcome: "ignored",
      detail: `${what} ${upstream.action}: its pull request is known only from its ledger, once completed`,
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
      detail: `${what} names no pull request: ${claimed ?? "its ledger names no head commit"}; nothing is posted`,
    };
  }
  const open = await ctx.octokit.paginate(ctx.octokit.rest.pulls.list, {
    owner,
    repo,
    state: "open",
    per_page: 100,
  });
  const pulls = open.filter((p) => p.head.sha.toLowerCase() === claimed);
  const first = pulls[0];
  if (first === undefined) {
    return {
      outcome: "stale",
      detail: `${what}: no open pull request has ${claimed.slice(0, 7)} (its ledger's head) as its head now; nothing is posted`,
    };
  }
  const headRepository = first.head.repo?.full_name ?? null;
  return {
    ...upstream,
    headSha: claimed,
    headBranch: first.head.ref,
    headRepository,
    fromFork: headRepository === null || headRepository.toLowerCase() !== repository.full_name.toLowerCase(),
    pullRequests: pulls.map((p) => p.number),
  };
}
