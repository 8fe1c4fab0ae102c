/**
 * Redaction of credential *shapes* (SPEC §9; issue 12 item 5): a token that no one told evidence-gate about
 * (a PAT in a build log, a key a model printed from a file) is still removed from everything that leaves,
 * because its vendor gave it a prefix made to be found. Known secret values are `redact.ts`'s job; this
 * module only knows shapes.
 *
 * The shapes, as RE2 patterns (each must also start at an ASCII word boundary, `\b`):
 *
 * | shape | pattern | source |
 * | --- | --- | --- |
 * | GitHub: personal access token (classic), OAuth, user-to-server, server-to-server (`GITHUB_TOKEN`, app installation), refresh | `gh[pousr]_[A-Za-z0-9_]{30,}` | GitHub Docs, "About authentication to GitHub" § GitHub's token formats; GitHub blog, "Behind GitHub's new authentication token formats" (2021-04-05: prefixes `ghp_` `gho_` `ghu_` `ghs_` `ghr_`, character set `[A-Za-z0-9_]`, 36 characters after the prefix today, up to 255 in all) |
 * | GitHub: fine-grained personal access token | `github_pat_[A-Za-z0-9_]{30,}` | the same GitHub Docs table (`github_pat_`; today 22 + `_` + 59 characters) |
 * | Anthropic: API key, admin key, Claude Code OAuth token | `sk-ant-[A-Za-z0-9_-]{20,}` | Anthropic Console keys `sk-ant-api03-…`, admin keys `sk-ant-admin01-…`, `claude setup-token` tokens `sk-ant-oat01-…` (the rule Anthropic gave GitLab's secret detection matches `sk-ant-` + 3 letters, 2 digits, 86 + 8 characters) |
 * | OpenAI: API key (legacy user, `sk-proj-`, `sk-svcacct-`, `sk-admin-`) | `sk-[A-Za-z0-9_-]{20,}`, and the part after `sk-` holds both an upper- and a lower-case letter | OpenAI API reference, "Authentication" (secret keys begin `sk-`; project keys `sk-proj-`) |
 * | npm access token | `npm_[A-Za-z0-9]{36,}` | GitHub blog, "npm's new access token format" (2021-09: `npm_` + 36 characters) |
 * | GitLab personal access token | `glpat-[A-Za-z0-9_-]{20,}` | GitLab Docs, "Token overview" § token prefixes |
 * | Slack bot, user, app-level, refresh and configuration tokens | `xox[abeoprs]-[A-Za-z0-9-]{10,}` | Slack API docs, "Token types" |
 * | AWS access key id (long-term and temporary) | `(?:AKIA\|ASIA)[A-Z0-9]{16}\b` | AWS IAM User Guide, "IAM identifiers" § unique identifier prefixes |
 * | Google API key | `AIza[A-Za-z0-9_-]{35}` | Google Cloud Docs, "Manage API keys" (39 characters, `AIza` prefix) |
 * | Stripe secret and restricted keys | `[rs]k_(?:live\|test)_[A-Za-z0-9]{16,}` | Stripe Docs, "API keys" |
 * | JSON Web Token (the Actions runtime token and the OIDC ID token are JWTs) | `eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*` | RFC 7519 §3 (base64url header `{"…` encodes to `eyJ`) |
 * | PEM private key block | `-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----` … `-----END … PRIVATE KEY-----` | RFC 7468 §10, §11 |
 * | a URL's password (`scheme://user:PASSWORD@host`; only the password is replaced) | scanned from each `://` | RFC 3986 §3.2.1 (userinfo; the password form is deprecated, connection strings still use it) |
 *
 * Anchoring, so ordinary words are not eaten: every shape begins with a vendor prefix at a word boundary
 * (`task-`, `risk-free` and `deskgh_x` hold no match), needs a long random-looking body (a kebab-case name
 * such as `sk-learn-style-package-name` has no upper-case letter, so it is not an OpenAI key), and the AWS
 * id must end at a boundary too. Text the ledger's Markdown renderers escaped (`ghp\_…` in a table cell,
 * CommonMark backslash escapes) is matched as it renders, and a PEM body broken by `<br>` (a table cell's
 * line break) counts as lines. A match is replaced whole by `***` (a PEM block keeps its BEGIN/END lines
 * around `***`, so a reader sees that a key was there).
 *
 * Time: linear in the text. The shapes are matched by RE2 (`re2js`), which never backtracks; to keep its
 * per-character cost off text that cannot hold a token, a V8 search for the literal prefixes alone runs
 * first, and RE2 only reads the whitespace-delimited words that hold one. The PEM scan is `indexOf`
 * driven. A token written in another form (base64 of it, split across lines, every character
 * percent-encoded) is not a shape match: known values get those forms (`redact.ts`), unknown ones do not.
 */
import { RE2JS } from "re2js";

/** What a matched token (or a PEM block's body) is replaced with (the runner log's own mask). */
const MASK = "***";

interface Shape {
  readonly name: string;
  /** RE2 syntax; becomes one capturing group of the combined pattern. */
  readonly pattern: string;
  /** A match is redacted only when this holds (default: always). */
  readonly accept?: (token: string) => boolean;
}

/** A body with both cases: random keys have them, kebab-case names do not. */
const mixedCase = (token: string): boolean => /[A-Z]/.test(token.slice(3)) && /[a-z]/.test(token.slice(3));

/** The one-line shapes, in order of precedence (more specific prefixes first). */
export const TOKEN_SHAPES: readonly Shape[] = [
  { name: "GitHub fine-grained personal access token", pattern: "github_pat_[A-Za-z0-9_]{30,}" },
  { name: "GitHub token", pattern: "gh[pousr]_[A-Za-z0-9_]{30,}" },
  { name: "Anthropic key or OAuth token", pattern: "sk-ant-[A-Za-z0-9_-]{20,}" },
  { name: "OpenAI API key", pattern: "sk-[A-Za-z0-9_-]{20,}", accept: mixedCase },
  { name: "npm access token", pattern: "npm_[A-Za-z0-9]{36,}" },
  { name: "GitLab personal access token", pattern: "glpat-[A-Za-z0-9_-]{20,}" },
  { name: "Slack token", pattern: "xox[abeoprs]-[A-Za-z0-9-]{10,}" },
  { name: "AWS access key id", pattern: "(?:AKIA|ASIA)[A-Z0-9]{16}\\b" },
  { name: "Google API key", pattern: "AIza[A-Za-z0-9_-]{35}" },
  { name: "Stripe key", pattern: "[rs]k_(?:live|test)_[A-Za-z0-9]{16,}" },
  { name: "JSON Web Token", pattern: "eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]*" },
];

const COMBINED = RE2JS.compile(`\\b(?:${TOKEN_SHAPES.map((s) => `(${s.pattern})`).join("|")})`);

// The literal prefixes of the shapes above, for the V8 pre-search (no quantifier: linear in V8 too).
// A `_` may be written `\_` (Markdown-escaped by the ledger's renderers).
const PREFIXES =
  /gh[pousr]\\?_|github\\?_pat\\?_|sk-|npm\\?_|glpat-|xox[abeoprs]-|AKIA|ASIA|AIza|[rs]k\\?_(?:live|test)\\?_|eyJ/g;

/** Whether a UTF-16 code unit is whitespace as `\s` means it (ASCII fast path). */
function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return /\s/.test(String.fromCharCode(code));
}

/** What {@link redactTokenShapes} removes besides the vendor shapes and PEM bodies. */
export interface TokenShapeOptions {
  /**
   * Also the password of every URL that carries one (`postgres://app:***@db:5432/x`); default `true`.
   * `redact.ts` turns it off: its redactor also writes the run directory's `state.json` and `graph.json`,
   * whose verify commands and prompts are run again on resume, and a connection string in a verify
   * command (`DATABASE_URL=postgres://test:test@localhost/t npm test`) must still connect then. What leaves
   * for GitHub (check run, job summary, PR comment, the App's check run) calls this with the default.
   */
  readonly urlPasswords?: boolean;
}

/**
 * `text` with every one-line token shape and every PEM private-key body replaced by `***`, and (unless
 * `options.urlPasswords` is `false`) the password of every URL that carries one.
 */
export function redactTokenShapes(text: string, options: TokenShapeOptions = {}): string {
  const shapes = redactPemBlocks(redactOneLineShapes(text));
  return options.urlPasswords === false ? shapes : redactUrlPasswords(shapes);
}

/** Ends a URL's authority (RFC 3986 §3.2: it runs to the next `/`, `?` or `#`); whitespace and quotes end the URL. */
const AUTHORITY_END = new Set(["/", "?", "#", '"', "'", "`", "<", ">", "\\"]);

/**
 * The password of a URL's userinfo replaced by `***` (RFC 3986 §3.2.1: `user:password@host`, a form the RFC
 * deprecates and connection strings still use — `DATABASE_URL=postgres://app:hunter2@db/app` printed by a
 * build). The user name and host stay, so a reader still sees which service it was. Linear: each `://` is
 * found by `indexOf`, its authority read once up to the first `/`, `?`, `#`, quote or whitespace.
 */
function redactUrlPasswords(text: string): string {
  let at = text.indexOf("://");
  if (at === -1) return text;
  let out = "";
  let copied = 0;
  while (at !== -1) {
    const start = at + 3;
    let end = start;
    while (end < text.length && !isSpace(text.charCodeAt(end)) && !AUTHORITY_END.has(text[end]!)) end++;
    const authority = text.slice(start, end);
    const atSign = authority.lastIndexOf("@");
    const colon = atSign === -1 ? -1 : authority.indexOf(":");
    if (colon !== -1 && colon < atSign - 1 && authority.slice(colon + 1, atSign) !== MASK) {
      out += `${text.slice(copied, start + colon + 1)}${MASK}`;
      copied = start + atSign;
    }
    at = text.indexOf("://", Math.max(end, start));
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Whether `text` holds any shape {@link redactTokenShapes} would replace. */
export function hasTokenShape(text: string): boolean {
  return redactTokenShapes(text) !== text;
}

function redactOneLineShapes(text: string): string {
  PREFIXES.lastIndex = 0;
  let out = "";
  let copied = 0;
  for (let hit = PREFIXES.exec(text); hit !== null; hit = PREFIXES.exec(text)) {
    // The whitespace-delimited word around the prefix; the scan back stops where the last word ended,
    // so every character is visited a bounded number of times.
    let start = hit.index;
    while (start > copied && !isSpace(text.charCodeAt(start - 1))) start--;
    let end = hit.index + hit[0].length;
    while (end < text.length && !isSpace(text.charCodeAt(end))) end++;
    out += text.slice(copied, start) + redactWord(text.slice(start, end));
    copied = end;
    PREFIXES.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function redactWord(word: string): string {
  const view = word.includes("\\") ? unescapedView(word) : { text: word, at: null };
  const m = COMBINED.matcher(view.text);
  let out = "";
  let copied = 0;
  while (m.find()) {
    const shape = TOKEN_SHAPES.findIndex((_, i) => m.group(i + 1) !== null);
    const token = m.group(0) ?? "";
    if (TOKEN_SHAPES[shape]?.accept?.(token) === false) continue;
    const start = view.at === null ? m.start() : view.at[m.start()]!;
    out += word.slice(copied, start) + MASK;
    copied = view.at === null ? m.end() : view.at[m.end()]!;
  }
  return copied === 0 ? word : out + word.slice(copied);
}

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;

/**
 * `word` with Markdown's backslash escapes resolved (CommonMark §2.4: `\_` is `_`), so a token the ledger's
 * renderers escaped (`ghp\_…` in a table cell) is still found; `at[i]` is where the view's character `i`
 * starts in `word` (and `at[view.length]` is `word.length`).
 */
function unescapedView(word: string): { readonly text: string; readonly at: number[] } {
  let text = "";
  const at: number[] = [];
  for (let i = 0; i < word.length; i++) {
    at.push(i);
    if (word[i] === "\\" && i + 1 < word.length && ASCII_PUNCTUATION.test(word[i + 1]!)) i++;
    text += word[i];
  }
  at.push(word.length);
  return { text, at };
}

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----/y;
const PEM_END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;
// The body of a block whose END line is missing (an output tail cut it): whole lines that are base64 (at
// least 16 characters, or the padded last one), encapsulated headers or empty, each after a newline (raw,
// or `\n` as a JSON string writes it). Each repetition consumes a newline and nothing follows the star,
// so V8 never backtracks into an earlier line: linear.
const PEM_SEP = String.raw`(?:\r?\n|\\r?\\n|<br>)`;
const PEM_LINE = "(?:[A-Za-z0-9+/=]{16,}|[A-Za-z0-9+/]*={1,2}|Proc-Type:[ -~]*?|DEK-Info:[ -~]*?)?";
const PEM_OPEN_BODY = new RegExp(`(?:${PEM_SEP}${PEM_LINE}(?=${PEM_SEP}|$))*`, "y");

/**
 * Replaces the body of every PEM private-key block (RFC 7468) by `***`, keeping its BEGIN and END lines.
 * A block without an END line loses the base64 lines that follow its BEGIN line.
 */
function redactPemBlocks(text: string): string {
  let at = text.indexOf("-----BEGIN ");
  if (at === -1) return text;
  let out = "";
  let copied = 0;
  let noEndAfter = Number.POSITIVE_INFINITY;
  while (at !== -1) {
    PEM_BEGIN.lastIndex = at;
    const begin = PEM_BEGIN.exec(text);
    if (begin === null) {
      at = text.indexOf("-----BEGIN ", at + 1);
      continue;
    }
    const bodyStart = at + begin[0].length;
    let bodyEnd: number;
    let resume: number;
    PEM_END.lastIndex = bodyStart;
    const end = bodyStart < noEndAfter ? PEM_END.exec(text) : null;
    if (end !== null) {
      bodyEnd = end.index;
      resume = end.index + end[0].length;
    } else {
      // No END line after here: none after any later BEGIN either, so the search is not repeated.
      noEndAfter = Math.min(noEndAfter, bodyStart);
      PEM_OPEN_BODY.lastIndex = bodyStart;
      PEM_OPEN_BODY.exec(text);
      bodyEnd = PEM_OPEN_BODY.lastIndex;
      resume = bodyEnd;
    }
    if (bodyEnd > bodyStart) {
      out += `${text.slice(copied, bodyStart)}${bodyBreak(text, bodyStart)}${MASK}${bodyBreak(text, bodyEnd, true)}`;
      copied = bodyEnd;
    }
    at = text.indexOf("-----BEGIN ", Math.max(resume, at + 1));
  }
  return out + text.slice(copied);
}

/** The line break a PEM body starts (or, `before`, ends) with, kept around the mask: `\n`, `\r\n` or JSON's `\n`. */
function bodyBreak(text: string, at: number, before = false): string {
  const around = before ? text.slice(Math.max(0, at - 4), at) : text.slice(at, at + 4);
  for (const br of ["\r\n", "\\r\\n", "\n", "\\n", "<br>"]) {
    if (before ? around.endsWith(br) : around.startsWith(br)) return br;
  }
  return "";
}
