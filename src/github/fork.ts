/**
 * Whether a pull request's token is read-only and its workflow gets no repository secrets (SPEC §10;
 * GitHub Docs, "Events that trigger workflows" → `pull_request`: workflows on a fork's pull request, or on
 * one Dependabot opened or triggered, get a read-only `GITHUB_TOKEN` and no repository secrets). The one
 * place both tests are made, for a `pull_request` payload and for a pull request read through the API.
 */
import { COMMENT_COMMAND } from "./comment-command.js";

/** Dependabot's login on pull requests and as the workflow's actor. */
export const DEPENDABOT_LOGIN = "dependabot[bot]";

/**
 * True when the head branch lives in another repository than the base: a fork, or a head repository that
 * was deleted (`headRepoFullName` `null`). Repository names compare case-insensitively (GitHub's are).
 */
export function isForkHead(headRepoFullName: string | null, baseRepoFullName: string): boolean {
  return headRepoFullName === null || headRepoFullName.toLowerCase() !== baseRepoFullName.toLowerCase();
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
