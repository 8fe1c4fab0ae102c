/**
 * The one character-escaping rule for text put into GitHub-flavoured Markdown (a table cell, a heading, a
 * list item): HTML-significant characters as entities, Markdown punctuation and `|` backslash-escaped.
 * `src/ledger/markdown-syntax.ts` builds its cells and lines on it, and `redact.ts` uses it to know the form
 * a secret takes once rendered — so the two cannot drift apart.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  "`": "\\`",
  "*": "\\*",
  _: "\\_",
  "[": "\\[",
  "]": "\\]",
  "#": "\\#",
  "<": "&lt;",
  ">": "&gt;",
  "|": "\\|",
  "~": "\\~",
  "&": "&amp;",
};

/** `text` with `\ ` * _ [ ] # | ~` backslash-escaped and `< > &` as entities; line breaks are left as they are. */
export function escapeMarkdownChars(text: string): string {
  return text.replace(/[\\`*_[\]#<>|~&]/g, (ch) => ESCAPES[ch] ?? ch);
}
