/**
 * The writer check: whether a user may decide for the repository — start a run by comment, approve or reject
 * a gate, re-run, re-verify (SPEC §9: write permission; `github.actor` or an event's `sender` alone is never
 * trusted). The one place this rule is made, for the action's comment commands (`github/trigger.ts`) and the
 * App's buttons (`bot/`), asked of GitHub for the user the event names:
 * `GET /repos/{owner}/{repo}/collaborators/{username}/permission`
 * (https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user).
 *
 * GitHub answers two fields: `permission`, the legacy base role (`admin`, `write` — maintain folded in —,
 * `read` — triage folded in —, `none`), and `role_name`, the role itself (`admin`, `maintain`, `write`,
 * `triage`, `read`, or an organisation's custom role). The rule reads both: a writer holds one of
 * {@link WRITER_ROLES} by `role_name`, or `admin` / `write` by `permission` (a custom role built on write).
 */
import { statusOf } from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";

/** The roles that may decide for the repository (SPEC §9: write permission or above). */
export const WRITER_ROLES = ["admin", "maintain", "write"] as const;

/** GitHub's answer about one user, and the rule's verdict. */
export interface WriterCheck {
  /** The user may decide for the repository. */
  readonly isWriter: boolean;
  /** `role_name` (else `permission`), lower case; `none` when not a collaborator. For messages. */
  readonly role: string;
  /** The legacy base role: `admin`, `write`, `read`, or `none` (not a collaborator). For messages. */
  readonly permission: string;
}

/** The permission lookup failed for a reason other than "not a collaborator" (`status`: HTTP, or null). */
export class PermissionLookupError extends Error {
  override readonly name = "PermissionLookupError";
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** The rule on GitHub's two fields (exported for its table test; {@link checkWriter} reads them). */
export function writerByRole(answer: {
  readonly role_name?: string | null;
  readonly permission?: string | null;
}): WriterCheck {
  const permission = (answer.permission || "none").toLowerCase();
  const role = (answer.role_name || permission).toLowerCase();
  const isWriter =
    (WRITER_ROLES as readonly string[]).includes(role) || permission === "admin" || permission === "write";
  return { isWriter, role, permission };
}

/**
 * Asks GitHub for `login`'s role on `owner/repo` and applies the rule. 404 (not a collaborator, or no such
 * user) is no access, not an error.
 *
 * @throws {PermissionLookupError} on any other failure, carrying the HTTP status: callers fail closed (a
 *   comment command is refused; an App delivery fails and GitHub's redelivery retries it).
 */
export async function checkWriter(
  octokit: GateOctokit,
  target: { readonly owner: string; readonly repo: string; readonly login: string },
): Promise<WriterCheck> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: target.owner,
      repo: target.repo,
      username: target.login,
    });
    return writerByRole(data);
  } catch (error) {
    const status = statusOf(error);
    if (status === 404) return { isWriter: false, role: "none", permission: "none" };
    throw new PermissionLookupError(
      `could not read ${target.login}'s permission on ${target.owner}/${target.repo} (${status === null ? "no answer" : `HTTP ${status}`}: ${error instanceof Error ? error.message : String(error)})`,
      status,
    );
  }
}

/** `write access`, `read access`, `no access`: a legacy base role in words. */
export function accessWords(permission: string): string {
  return `${permission === "none" ? "no" : permission} access`;
}
