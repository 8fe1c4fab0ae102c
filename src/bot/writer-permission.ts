/**
 * Whether a user may decide for the repository: write access or above, asked of GitHub for the user the
 * event names (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`,
 * https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user). The event's
 * `sender` says who clicked; only this lookup says what they may do (SPEC §9: `github.actor` alone is never
 * trusted). `permission` is the legacy base role: `admin`, `write` (maintain included), `read` (triage
 * included) or `none`.
 */
import type { GateOctokit } from "../github/octokit.js";

export interface WriterCheck {
  readonly allowed: boolean;
  /** `admin`, `write`, `read`, `none` (not a collaborator), as GitHub answered. */
  readonly permission: string;
}

/** @throws the client's error for anything but "not a collaborator" (404), so the delivery fails and is retried. */
export async function writerPermission(
  octokit: GateOctokit,
  o: { readonly owner: string; readonly repo: string; readonly login: string },
): Promise<WriterCheck> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: o.owner,
      repo: o.repo,
      username: o.login,
    });
    return {
      allowed: data.permission === "admin" || data.permission === "write",
      permission: data.permission,
    };
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return { allowed: false, permission: "none" };
    throw error;
  }
}

/** `write access`, `read access`, `no access`: the permission in words. */
export function accessWords(permission: string): string {
  return `${permission === "none" ? "no" : permission} access`;
}
