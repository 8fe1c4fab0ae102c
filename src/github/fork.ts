/**
 * Whether a pull request's token is read-only and its workflow gets no repository secrets (SPEC §10;
 * GitHub Docs, "Events that trigger workflows" → `pull_request`: workflows on a fork's pull request, or on
 * one Dependabot opened or triggered, get a read-only `GITHUB_TOKEN` and no repository secrets). The one
 * place both tests are made, for a `pull_request` payload and for a pull request read through the API.
 */

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
