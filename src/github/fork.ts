/**
 * Whether a pull request's token is read-only and its workflow gets no repository secrets (SPEC §10;
 * GitHub Docs, "Events that trigger workflows" → `pull_request`: workflows on a fork's pull request, or on
 * one Dependabot opened or triggered, get a read-only `GITHUB_TOKEN` and no repository secrets). The one
 * place both tests are made, for a `pull_request` payload, a pull request read through the API and (the fork
 * test) a `workflow_run` payload.
 */
import { COMMENT_COMMAND } from "./comment-command.js";

/** Dependabot's login on pull requests and as the workflow's actor. */
export const DEPENDABOT_LOGIN = "dependabot[bot]";

/** A repository as a payload or an API answer names it: its id, its `OWNER/NAME`, or both. */
export interface RepositoryIdentity {
  readonly id?: number;
  readonly full_name?: string;
}

/**
 * The fork test: true when the head branch lives in another repository than the base — a fork, or a head
 * repository that was deleted (`head` `null` or absent). The one place it is made, for a `pull_request`
 * payload, a pull request read through the API, a `workflow_run` payload (`head_repository` against
 * `repository`) and a listed artifact's run (`head_repository_id` against `repository_id`). Repository ids
 * decide when both sides carry one (an id survives a rename or a transfer; a name can be reused by another
 * repository); else names, case-insensitively (GitHub's are); with neither pair to compare, a fork (the same
 * repository is never assumed).
 */
export function isForkHead(head: RepositoryIdentity | null | undefined, base: RepositoryIdentity): boolean {
  if (head === null || head === undefined) return true;
  if (head.id !== undefined && base.id !== undefined) return head.id !== base.id;
  if (head.full_name !== undefined && base.full_name !== undefined)
    return head.full_name.toLowerCase() !== base.full_name.toLowerCase();
  return true;
}

/** True when any of `logins` (the pull request's author, the workflow's actor, …) is Dependabot. */
export function isDependabot(...logins: readonly (string | null | undefined)[]): boolean {
  return logins.some((login) => login === DEPENDABOT_LOGIN);
}

/** What {@link forkApprovalMissing} reads of a pull-request run's subject. */
export interface ForkApprovalSubject {
  readonly isFork: boolean;
  readonly headRepoFullName: string | null;
  readonly headSha: string;
  readonly number: number;
  /** How the run came to this pull request (`github/trigger.ts`). */
  readonly trigger: "pull_request" | "pull_request_target" | "issue_comment" | "workflow_dispatch";
}

/**
 * Why a fork's pull request may not use the model key on this run (issue 12 item 4; SECURITY.md "Fork pull
 * requests and the model key"), or `null` when it may. A model key is used on a fork's code only after a
 * writer approved that very head: the one approval pinned to a SHA is a `/evidence-gate run @<head sha>`
 * comment, which `trigger.ts` accepts only from a writer (or an allow-listed bot) and only while the SHA is
 * still the head. Every other trigger — the fork's own `pull_request` (a key is there when, e.g., the secret
 * is also a Dependabot secret or the organisation sends secrets to fork workflows), `pull_request_target`
 * even with its opt-in (a workflow-wide choice, not a review of this head), `workflow_dispatch` (names a
 * pull request, not a commit; the head can move between review and dispatch) — is not an approval of the
 * head, so the run is verify-only. A same-repository pull request needs no approval (its author can push to
 * the repository already).
 *
 * @returns one sentence naming the head and the comment that approves it.
 */
export function forkApprovalMissing(subject: ForkApprovalSubject): string | null {
  if (!subject.isFork || subject.trigger === "issue_comment") return null;
  const short = subject.headSha.slice(0, 7);
  return `Pull request #${subject.number} comes from a fork (${subject.headRepoFullName ?? "a deleted repository"}) and no writer approved its head ${short} on this run (trigger ${subject.trigger}): the model key is not used on a fork's code without that approval. A writer approves it by commenting \`${COMMENT_COMMAND} run @${short}\` after reviewing the head`;
}
