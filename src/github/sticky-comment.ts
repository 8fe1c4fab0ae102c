/**
 * One sticky comment per check name on a pull request (SPEC §2, §11 input `comment`): found again by the
 * hidden marker its body starts with (`commentMarker`), among the pull request's issue comments listed
 * page by page (`GET /repos/{owner}/{repo}/issues/{issue_number}/comments`, 100 per page), and updated
 * in place (`PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}`) — created
 * (`POST …/issues/{issue_number}/comments`) only when none exists. https://docs.github.com/rest/issues/comments
 *
 * Only a comment written by a bot account (`user.type === "Bot"`; with `identity`, that login exactly)
 * counts as ours: a person who pastes the marker into their own comment cannot make the action edit it.
 * The body is redacted before it is sent (SPEC §9): by the caller's redactor, then of token shapes.
 */
import { redactTokenShapes } from "../core/token-shapes.js";
import { statusOf } from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";

/** A comment write (or the listing before it) the API refused or never answered. */
export class StickyCommentError extends Error {
  override readonly name = "StickyCommentError";
  constructor(
    message: string,
    /** The HTTP status, `null` when there was no answer. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface StickyCommentTarget {
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  /** The pull request's number. */
  readonly issueNumber: number;
}

export interface UpsertStickyCommentOptions extends StickyCommentTarget {
  /** The hidden marker; `body` must start with it. */
  readonly marker: string;
  readonly body: string;
  /** Applied to `body` before it leaves the process (known secrets); token shapes are redacted after it either way. */
  readonly redact: (text: string) => string;
  /** The token's login when known (`github-actions[bot]` for `GITHUB_TOKEN`); else any bot author counts. */
  readonly identity?: string;
}

export interface StickyCommentRef {
  readonly action: "created" | "updated";
  readonly id: number;
  readonly htmlUrl: string;
}

/**
 * Creates or updates the sticky comment.
 * @throws {StickyCommentError} when listing or writing fails (a 403 names `pull-requests: write`).
 */
export async function upsertStickyComment(o: UpsertStickyCommentOptions): Promise<StickyCommentRef> {
  if (!o.body.startsWith(o.marker))
    throw new Error("Internal error: a sticky comment's body must start with its marker");
  const body = redactTokenShapes(o.redact(o.body));
  const where = { owner: o.owner, repo: o.repo };
  let existing: number | null = null;
  try {
    for await (const page of o.octokit.paginate.iterator(o.octokit.rest.issues.listComments, {
      ...where,
      issue_number: o.issueNumber,
      per_page: 100,
    })) {
      const mine = page.data.find(
        (c) =>
          c.body?.startsWith(o.marker) === true &&
          c.user?.type === "Bot" &&
          (o.identity === undefined || c.user.login === o.identity),
      );
      if (mine !== undefined) {
        existing = mine.id;
        break;
      }
    }
  } catch (error) {
    throw failure("list the pull request's comments", error);
  }
  try {
    if (existing !== null) {
      const { data } = await o.octokit.rest.issues.updateComment({ ...where, comment_id: existing, body });
      return { action: "updated", id: data.id, htmlUrl: data.html_url };
    }
    const { data } = await o.octokit.rest.issues.createComment({
      ...where,
      issue_number: o.issueNumber,
      body,
    });
    return { action: "created", id: data.id, htmlUrl: data.html_url };
  } catch (error) {
    throw failure(existing !== null ? `update comment ${existing}` : "create the comment", error);
  }
}

function failure(what: string, error: unknown): StickyCommentError {
  const status = statusOf(error);
  const permission =
    status === 403 || status === 404
      ? " The workflow's token needs `pull-requests: write` for the sticky comment (or set `comment: false`)."
      : "";
  return new StickyCommentError(
    `could not ${what} (${status === null ? "no answer" : `HTTP ${status}`}: ${error instanceof Error ? error.message : String(error)}).${permission}`,
    status,
  );
}
