/**
 * Markup a reader of the rendered pull request does not see, removed from untrusted text before it reaches
 * a prompt (SPEC §9; issue 12 item 6; research/security.md §3.3). One left-to-right scan, so whichever
 * construct starts first wins, as in a Markdown renderer.
 *
 * What counts as hidden (the decision, and why):
 *
 * - **HTML comments** `<!-- … -->`: never rendered. An unclosed `<!--` hides everything after it.
 * - **Elements whose content no browser shows as text**: `<script>`, `<style>`, `<template>`.
 * - **Elements their author marked hidden**: a `hidden` attribute, or a `style` with `display:none`,
 *   `visibility:hidden`, `opacity:0` or `font-size:0`. github.com drops `style` attributes, so such a span
 *   does show there — but it was written to be unseen by some reader (a mail client, another renderer),
 *   and nothing a reviewer must read is written that way.
 * - **The body of a collapsed `<details>`** (no `open` attribute): a reviewer sees the `<summary>` line
 *   and has to click to see the rest, so the rest is where an instruction hides from a skim. The
 *   `<details>` tags and the `<summary>` element are kept.
 * - **Markdown reference definitions used as comments**: a line such as `[//]: # (text)` or
 *   `[comment]: <> (text)` (a link definition whose destination is `#` or `<>`): never rendered.
 * - **Alternative text**: Markdown `![alt](url)` and HTML `alt="…"`/`title="…"` attribute values are
 *   emptied: shown to nobody while the image loads (a title only on hover), read by models.
 *
 * A hidden element (or a collapsed `<details>`) without its closing tag hides the rest of the text, as a
 * browser would, so everything after it is removed. A `<` that does not begin a complete tag (`a<b` with
 * no `>`, a quoted value that never closes) is text, as CommonMark renders it. Code is visible text: nothing
 * inside a fenced code block or an inline code span is touched. Tags, attributes and text that render are
 * kept byte for byte.
 *
 * Time: linear. Every character is scanned once by the main loop, or once more while a hidden region's
 * end is looked for — and that region is then skipped.
 */

/** What one scan removed. */
export interface HiddenMarkupResult {
  readonly text: string;
  /** HTML comments removed. */
  readonly htmlComments: number;
  /** Hidden elements, collapsed `<details>` bodies and comment-style reference definitions removed. */
  readonly hiddenHtml: number;
  /** Alternative texts and titles emptied. */
  readonly altTexts: number;
}

const HIDING_ELEMENTS = new Set(["script", "style", "template"]);
const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
const HIDING_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?(?:\s*(?:;|$|!))|font-size\s*:\s*0(?:\.0*)?(?:px|em|rem|pt|%)?\s*(?:;|$|!))/i;
const ALT_OR_TITLE = /(\s(?:alt|title)\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+)/gi;
// A link reference definition whose destination is `#` or `<>`: the Markdown comment idiom.
const COMMENT_DEFINITION = / {0,3}\[[^\]\n]+\]:[ \t]*(?:#|<>)(?:[ \t][^\n]*)?(?:\n|$)/y;
const FENCE_OPEN = / {0,3}(`{3,}|~{3,})[^\n]*(?:\n|$)/y;

/** A parsed tag at some position: its name (lower case), attributes text, end index, and kind. */
interface Tag {
  readonly name: string;
  readonly attributes: string;
  /** Index just after the tag's `>`. */
  readonly end: number;
  readonly closing: boolean;
}

/**
 * Parses the tag starting at `at` (`text[at] === "<"`) by CommonMark's raw-HTML grammar (§6.6): a tag
 * name, then attributes (`name`, `name=value`, `name='…'`, `name="…"`; a quoted value may hold `>` and
 * line breaks), then `>` or `/>`; a closing tag is `</name>` with optional whitespace. Returns `null` when
 * `at` does not begin a complete tag: such a `<` is text on the rendered page.
 */
function tagAt(text: string, at: number): Tag | null {
  let i = at + 1;
  const closing = text[i] === "/";
  if (closing) i++;
  const nameStart = i;
  if (!/[A-Za-z]/.test(text[i] ?? "")) return null;
  while (i < text.length && /[A-Za-z0-9-]/.test(text[i]!)) i++;
  const name = text.slice(nameStart, i).toLowerCase();
  const attrStart = i;
  const space = () => {
    const from = i;
    while (i < text.length && /\s/.test(text[i]!)) i++;
    return i > from;
  };
  if (closing) {
    space();
    return text[i] === ">" ? { name, attributes: "", end: i + 1, closing } : null;
  }
  for (;;) {
    const spaced = space();
    if (text[i] === ">") return { name, attributes: text.slice(attrStart, i), end: i + 1, closing };
    if (text[i] === "/" && text[i + 1] === ">")
      return { name, attributes: text.slice(attrStart, i), end: i + 2, closing };
    if (!spaced || !/[A-Za-z_:]/.test(text[i] ?? "")) return null;
    while (i < text.length && /[A-Za-z0-9_.:-]/.test(text[i]!)) i++;
    const beforeValue = i;
    space();
    if (text[i] !== "=") {
      i = beforeValue;
      continue;
    }
    i++;
    space();
    const q = text[i];
    if (q === '"' || q === "'") {
      const close = text.indexOf(q, i + 1);
      if (close === -1) return null;
      i = close + 1;
    } else {
      const from = i;
      while (i < text.length && !/[\s"'=<>`]/.test(text[i]!)) i++;
      if (i === from) return null;
    }
  }
}

function hasAttribute(attributes: string, name: string): boolean {
  return new RegExp(`(?:^|\\s)${name}(?:\\s*=|\\s|/|$)`, "i").test(
    attributes.replace(/"[^"]*"|'[^']*'/g, '""'),
  );
}

function styleOf(attributes: string): string | null {
  const m = /(?:^|\s)style\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attributes);
  return m === null ? null : (m[2] ?? m[3] ?? m[4] ?? "");
}

/** Whether an opening tag hides its element's content. */
function hides(tag: Tag): boolean {
  if (HIDING_ELEMENTS.has(tag.name)) return true;
  if (hasAttribute(tag.attributes, "hidden")) return true;
  const style = styleOf(tag.attributes);
  return style !== null && HIDING_STYLE.test(style);
}

/**
 * Where the element opened by a `name` tag ending at `from` closes: the index just after its matching
 * closing tag (same-name tags nest), and where that closing tag starts; `null` when it never closes.
 */
function elementEnd(text: string, name: string, from: number): { end: number; closeAt: number } | null {
  let depth = 1;
  let at = text.indexOf("<", from);
  while (at !== -1) {
    const tag = tagAt(text, at);
    if (tag === null) {
      at = text.indexOf("<", at + 1);
      continue;
    }
    if (tag.name === name) {
      depth += tag.closing ? -1 : 1;
      if (depth === 0) return { end: tag.end, closeAt: at };
    }
    at = text.indexOf("<", tag.end);
  }
  return null;
}

/** The `<summary>…</summary>` element that opens a details body, if it does (after whitespace). */
function leadingSummary(text: string, from: number, to: number): string {
  const at = text.slice(from, to).search(/\S/);
  if (at === -1) return "";
  const start = from + at;
  const tag = tagAt(text, start);
  if (tag === null || tag.closing || tag.name !== "summary") return "";
  const close = elementEnd(text, "summary", tag.end);
  return close === null || close.end > to ? "" : text.slice(from, close.end);
}

const atLineStart = (text: string, i: number): boolean => i === 0 || text[i - 1] === "\n";

/** The end of an inline code span opened by the backtick run at `at`, or `null` (CommonMark §6.1). */
function codeSpanEnd(text: string, at: number): { run: number; end: number | null } {
  let run = 0;
  while (text[at + run] === "`") run++;
  const ticks = "`".repeat(run);
  let search = at + run;
  for (;;) {
    const next = text.indexOf(ticks, search);
    if (next === -1) return { run, end: null };
    let len = 0;
    while (text[next + len] === "`") len++;
    if (len === run) return { run, end: next + run };
    search = next + len;
  }
}

/** One scan of `text`: see the module's docstring. */
export function stripHiddenMarkup(text: string): HiddenMarkupResult {
  let out = "";
  let htmlComments = 0;
  let hiddenHtml = 0;
  let altTexts = 0;
  let i = 0;
  // Per backtick-run length, where a search for a closing run last failed: later runs of that length
  // cannot find one either, so each length is searched to the end at most once.
  const noSpanClose = new Map<number, number>();
  let noBracketFrom = Number.POSITIVE_INFINITY;
  // Collapsed <details> bodies: when the scan reaches `from`, it goes on at `to` (innermost last).
  const skips: { readonly from: number; readonly to: number }[] = [];
  while (i < text.length) {
    while (skips.length > 0 && i >= skips[skips.length - 1]!.from) i = Math.max(i, skips.pop()!.to);
    if (i >= text.length) break;
    const c = text[i]!;
    if (atLineStart(text, i)) {
      FENCE_OPEN.lastIndex = i;
      const fence = FENCE_OPEN.exec(text);
      if (fence !== null) {
        const marker = fence[1]!;
        const close = new RegExp(`^ {0,3}${marker[0]}{${marker.length},}[ \\t]*$`, "gm");
        close.lastIndex = FENCE_OPEN.lastIndex;
        const m = close.exec(text);
        const end = m === null ? text.length : m.index + m[0].length;
        out += text.slice(i, end);
        i = end;
        continue;
      }
      COMMENT_DEFINITION.lastIndex = i;
      if (COMMENT_DEFINITION.exec(text) !== null) {
        hiddenHtml++;
        i = COMMENT_DEFINITION.lastIndex;
        continue;
      }
    }
    if (c === "`") {
      let run = 0;
      while (text[i + run] === "`") run++;
      const span = (noSpanClose.get(run) ?? Number.POSITIVE_INFINITY) < i ? null : codeSpanEnd(text, i);
      if (span?.end != null) {
        out += text.slice(i, span.end);
        i = span.end;
        continue;
      }
      if (span !== null) noSpanClose.set(run, i);
      out += text.slice(i, i + run);
      i += run;
      continue;
    }
    if (c === "!" && text[i + 1] === "[" && i < noBracketFrom) {
      const close = text.indexOf("]", i + 2);
      if (close === -1) noBracketFrom = i;
      if (close !== -1 && close > i + 2) {
        altTexts++;
        out += "![";
        i = close;
        continue;
      }
    }
    if (c === "<" && text.startsWith("<!--", i)) {
      htmlComments++;
      const close = text.indexOf("-->", i + 4);
      i = close === -1 ? text.length : close + 3;
      continue;
    }
    if (c === "<") {
      const tag = tagAt(text, i);
      if (tag !== null) {
        if (!tag.closing && hides(tag)) {
          hiddenHtml++;
          if (VOID_ELEMENTS.has(tag.name)) {
            i = tag.end;
            continue;
          }
          const end = elementEnd(text, tag.name, tag.end);
          i = end === null ? text.length : end.end;
          continue;
        }
        const open = tag.closing
          ? { text: text.slice(i, tag.end), count: 0 }
          : withoutAltTexts(text.slice(i, tag.end));
        altTexts += open.count;
        if (!tag.closing && tag.name === "details" && !hasAttribute(tag.attributes, "open")) {
          // Collapsed: the summary shows, the body does not (to the end, when </details> is missing).
          const end = elementEnd(text, "details", tag.end);
          const closeAt = end?.closeAt ?? text.length;
          const summaryEnd = tag.end + leadingSummary(text, tag.end, closeAt).length;
          if (text.slice(summaryEnd, closeAt).trim() !== "") hiddenHtml++;
          // The summary is scanned like any text (it may hide things too); the body after it is skipped.
          skips.push({ from: summaryEnd, to: closeAt });
          out += open.text;
          i = tag.end;
          continue;
        }
        out += open.text;
        i = tag.end;
        continue;
      }
    }
    out += c;
    i++;
  }
  return { text: out, htmlComments, hiddenHtml, altTexts };
}

/** An opening tag with its `alt` and `title` values emptied (`alt=""`), and how many were not empty. */
function withoutAltTexts(tag: string): { text: string; count: number } {
  let count = 0;
  const text = tag.replace(ALT_OR_TITLE, (whole, lead: string, value: string) => {
    if (value === '""' || value === "''") return whole;
    count++;
    return `${lead}""`;
  });
  return { text, count };
}
