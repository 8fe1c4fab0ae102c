/**
 * A pull request read through the API (`GET /repos/{owner}/{repo}/pulls/{pull_number}`,
 * https://docs.github.com/rest/pulls/pulls#get-a-pull-request) into the same fields a `pull_request`
 * payload gives (`PullRequestFields`): what a comment command or a `workflow_dispatch` run needs, since
 * their payloads do not carry the pull request's head and base.
 */
import { statusOf } from "./base-ref-file.js";
import { type EventBase, type PullRequestFields, pullRequestFields } from "./event-context.js";
import type { GateOctokit } from "./octokit.js";

/** The pull request could not be read; `status` 404 means there is no such pull request. */
export class PullRequestReadError extends Error {
  override readonly name = "PullRequestReadError";
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/**
 * Reads pull request `number` of the repository in `where`. `action` is recorded as the webhook action would
 * be (e.g. `comment`, `dispatch`): nothing but messages read it.
 * @throws {PullRequestReadError} naming the pull request and the status.
 */
export async function readPullRequest(
  octokit: GateOctokit,
  where: EventBase,
  number: number,
  action: string,
): Promise<PullRequestFields> {
  let pr: Awaited<ReturnType<GateOctokit["rest"]["pulls"]["get"]>>["data"];
  try {
    ({ data: pr } = await octokit.rest.pulls.get({
      owner: where.owner,
      repo: where.repo,
      pull_number: number,
    }));
  } catch (error) {
    const status = statusOf(error);
    throw new PullRequestReadError(
      status === 404
        ? `pull request #${number} was not found in ${where.owner}/${where.repo}`
        : `could not read pull request #${number} of ${where.owner}/${where.repo} (${status === null ? "no answer" : `HTTP ${status}`}: ${error instanceof Error ? error.message : String(error)})`,
      status,
    );
  }
  return pullRequestFields(pr, { base: where, action });
}
