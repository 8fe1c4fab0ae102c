/**
 * The `/evidence-gate run` comment command (SPEC §9, §11): parsing a comment, and the two API calls that
 * decide and answer it — the commenter's permission (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`,
 * https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user) and a
 * reaction on the comment (`POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions`,
 * https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment).
 *
 * Only users whose role is `admin`, `maintain` or `write` may start a run; bots only when allow-listed.
 * On a fork's pull request the command must name the head commit the maintainer reviewed
 * (`/evidence-gate run @abc1234 …`): a push after the review must not ride on that approval.
 */
import { statusOf } from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";

/** The command word, as typed at the start of a comment. */
export const COMMENT_COMMAND = "/evidence-gate";

/** A parsed comment: not a command, a command this version does not know, or `run`. */
export type CommentCommand =
  | { readonly kind: "none" }
  | { readonly kind: "unknown"; readonly verb: string }
  | {
      readonly kind: "run";
      /** The `@<sha>` prefix (7–40 lower-case hex), when given. */
      readonly sha: string | null;
      /**
       * The text after the command (and after `@sha`): the rest of the first line and every later line,
       * trimmed; `""` when none. PR text: it reaches a prompt only fenced as data (`planner-prompt.ts`).
       */
      readonly text: string;
    };

const COMMAND_LINE = /^\/evidence-gate(?:[ \t]+(\S+))?(?:[ \t]+([\s\S]*))?$/;
const SHA_ARG = /^@([0-9a-fA-F]{7,40})$/;

/**
 * Parses a comment body. The command must open the comment (leading blank lines and spaces allowed): a
 * quote of it further down (`> /evidence-gate run`) is not a command.
 */
export function parseCommentCommand(body: string): CommentCommand {
  const text = body.replace(/\r\n?/g, "\n").replace(/^\s+/, "");
  const newline = text.indexOf("\n");
  const first = (newline < 0 ? text : text.slice(0, newline)).trimEnd();
  const rest = newline < 0 ? "" : text.slice(newline + 1);
  const match = COMMAND_LINE.exec(first);
  if (match === null) return { kind: "none" };
  const verb = match[1] ?? "";
  if (verb !== "run") return { kind: "unknown", verb };
  let args = (match[2] ?? "").trim();
  let sha: string | null = null;
  const firstArg = args.split(/\s+/, 1)[0] ?? "";
  const shaMatch = SHA_ARG.exec(firstArg);
  if (shaMatch !== null) {
    sha = shaMatch[1]!.toLowerCase();
    args = args.slice(firstArg.length).trim();
  }
  const goalText = [args, rest.trim()].filter((part) => part !== "").join("\n");
  return { kind: "run", sha, text: goalText };
}

/** The reactions this product leaves: `eyes` (a run starts) and `-1` (refused). */
export type CommandReaction = "eyes" | "-1";

/**
 * Reacts to the comment. Best effort: a failure is returned as a sentence for a warning (a missing
 * reaction must not stop a run the command was entitled to, nor hide a refusal), `null` when it worked.
 */
export async function reactToComment(
  octokit: GateOctokit,
  target: { readonly owner: string; readonly repo: string; readonly commentId: number },
  content: CommandReaction,
): Promise<string | null> {
  try {
    await octokit.rest.reactions.createForIssueComment({
      owner: target.owner,
      repo: target.repo,
      comment_id: target.commentId,
      content,
    });
    return null;
  } catch (error) {
    const status = statusOf(error);
    return `could not react ${content} to comment ${target.commentId} (${status === null ? "no answer" : `HTTP ${status}`}); the workflow's token needs \`pull-requests: write\` (or \`issues: write\`) for reactions`;
  }
}
