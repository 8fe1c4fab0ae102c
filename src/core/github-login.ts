/**
 * A GitHub user login as GitHub allows it when an account is made: 1–39 characters, ASCII letters, digits and
 * hyphens, no leading, trailing or doubled hyphen. (A bot's `name[bot]` is not one: only a person clicks.)
 */
export function isGitHubLogin(text: string): boolean {
  return /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(text);
}
