/**
 * GitHub-flavoured Markdown building blocks for text the renderer does not control (node details, verify
 * output, commands). Everything that reaches a check run, job summary or PR comment goes through one of
 * these, so a model's reply cannot break the table, open a fence or inject HTML.
 */

import { escapeMarkdownChars } from "../core/markdown-escape.js";

/**
 * Plain text for a table cell: HTML-significant characters as entities, backslash and `|` escaped (GFM
 * splits cells on unescaped pipes before inline parsing), Markdown punctuation escaped, line breaks as
 * `<br>`.
 */
export function escapeCell(text: string): string {
  return escapeMarkdownChars(text).replace(/\r\n|\r|\n/g, "<br>");
}

/** Plain text for one line of Markdown (a heading, a list item): no formatting, no HTML, no line breaks. */
export function escapeInline(text: string): string {
  return escapeMarkdownChars(text).replace(/\r\n|\r|\n/g, " ");
}

/**
 * A code span that shows `text` literally: delimited by one more backtick than its longest backtick run,
 * padded with a space when it starts or ends with a backtick (CommonMark §6.1). Line breaks become
 * spaces. `inTable` escapes `|` as `\|`, which GFM resolves before the code span is parsed.
 */
export function codeSpan(text: string, options: { inTable: boolean }): string {
  const flat = text.replace(/\r\n|\r|\n/g, " ");
  const ticks = "`".repeat(longestRun(flat, "`") + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || flat === "" ? " " : "";
  const body = options.inTable ? flat.replace(/\|/g, "\\|") : flat;
  return `${ticks}${pad}${body}${pad}${ticks}`;
}

/**
 * A fenced code block around `content`, its fence one backtick longer than any backtick run inside (at
 * least three), so no line of the content can close it early.
 */
export function fencedBlock(content: string, info = ""): string {
  const fence = "`".repeat(Math.max(3, longestRun(content, "`") + 1));
  const body = content.endsWith("\n") ? content : `${content}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

function longestRun(text: string, ch: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === ch ? current + 1 : 0;
    if (current > longest) longest = current;
  }
  return longest;
}
