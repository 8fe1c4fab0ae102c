/**
 * Who decided a gate, as the product records it (`approvedBy.login` on a gate's row; SPEC §6 "record who"):
 *
 * - a **GitHub login** — the App's clicker (asked of GitHub for write access), the action's `approver` input
 *   or `GITHUB_ACTOR`, the CLI's `--by LOGIN` — shown as `@login`;
 * - a GitHub App's bot account, `name[bot]` (a `GITHUB_ACTOR`), shown as `@name[bot]`;
 * - the CLI's default, the **local account** that ran `resume`, recorded as `NAME (local user)` so that no
 *   renderer shows it as a GitHub identity.
 *
 * Nothing else is an approver: the CLI refuses other `--by` text (exit 64) and a ledger read back (`report`,
 * `mode: report`, the App) that records anything else is refused as data ({@link isRecordedApprover}), so
 * free text such as `@octocat (GitHub-verified maintainer)` cannot be posted as who approved.
 */

/**
 * A GitHub user login as GitHub allows it when an account is made: 1–39 characters, ASCII letters, digits and
 * hyphens, no leading, trailing or doubled hyphen. (A bot's `name[bot]` is not one: only a person clicks.)
 */
export function isGitHubLogin(text: string): boolean {
  return /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(text);
}

/** What a local approver's record ends with. */
export const LOCAL_USER_SUFFIX = " (local user)";

/**
 * An account name the CLI records for a local approval: 1–64 letters, digits, `.`, `_`, `-` or spaces (a
 * Windows `USERNAME` may hold spaces), starting with a letter, digit or `_` — no `@`, parentheses or
 * Markdown, so the record cannot read as a GitHub identity or as more than a name.
 */
export function isLocalAccountName(text: string): boolean {
  return /^[\p{L}\p{N}_][\p{L}\p{N}._ -]{0,63}$/u.test(text) && text.trimEnd() === text;
}

/** The record of a local approval by account `name` (see {@link isLocalAccountName}): `NAME (local user)`. */
export function localApprover(name: string): string {
  return `${name}${LOCAL_USER_SUFFIX}`;
}

/** Whether `text` is one of the three approver records above (a login, `name[bot]`, `NAME (local user)`). */
export function isRecordedApprover(text: string): boolean {
  if (isGitHubLogin(text.replace(/\[bot\]$/, ""))) return true;
  return text.endsWith(LOCAL_USER_SUFFIX) && isLocalAccountName(text.slice(0, -LOCAL_USER_SUFFIX.length));
}
