/**
 * Redaction (SPEC §9; research/security.md §4.6): the GitHub token, the model credential and any other
 * credential must not reach the ledger, the check run, the PR comment, the job summary, annotations, stdout
 * or an uploaded artifact, even when a child printed them (the verify command can read the parent's initial
 * environment through `/proc` — a known limit, SECURITY.md).
 *
 * Two nets, both applied by every redactor:
 *
 * - **Known values.** Each secret of at least {@link MIN_SECRET_LENGTH} characters is replaced by
 *   {@link REDACTED} in these forms: as written; as it appears inside a JSON string; as the ledger's
 *   Markdown renderers escape it (`\_`, `&amp;`: what a check run or comment receives); URL-encoded
 *   (`encodeURIComponent`, upper- and lower-case escapes); lower- and upper-case hex of its UTF-8 bytes;
 *   and base64 and base64url of its UTF-8 bytes — the whole encoding (padding optional), plus the
 *   characters that depend only on the secret when it was encoded after 0, 1 or 2 other bytes (so
 *   `env | base64` output is caught too). Shorter secrets are left alone, so a one-letter "secret" does not
 *   shred every string.
 * - **Token shapes** (`token-shapes.ts`): vendor-prefixed credentials nobody declared — `ghp_…`, `ghs_…`,
 *   `github_pat_…`, `sk-ant-…`, `sk-…`, `npm_…`, JWTs, PEM private keys and the rest of the table there,
 *   with the public source of each — replaced as written, whoever printed them.
 *
 * This is a safety net over what a child printed, not a guarantee: a secret printed reversed, split,
 * encoded twice or wrapped across lines (as `base64` wraps at 76 columns) passes through, and so does an
 * unknown credential without a vendor prefix.
 */
import { escapeMarkdownChars } from "./markdown-escape.js";
import { redactTokenShapes } from "./token-shapes.js";

// ANSI CSI/OSC sequences, C0 control characters (a backspace with the character it erases), and invisible or
// format characters (soft hyphen, combining grapheme joiner, zero-width and bidi marks, variation selectors,
// Hangul fillers, BOM).
const ESC = "\u001b";
const BEL = "\u0007";
// C0 controls except tab, newline and carriage return (a backspace erases the character before it on a
// terminal, so `c\b` is removed with that character).
const C0 = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001a\\u001c-\\u001f";
const INVISIBLE = new RegExp(
  `${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)|.\\u0008|[${C0}\\u007f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0]`,
  "g",
);

/** What a redacted secret is replaced with (the runner log's own mask). */
export const REDACTED = "***";
/** Secrets shorter than this are not redacted. */
// Shorter values are ordinary words ("PASS", "check", "test"): replacing them would rewrite the ledger's own
// vocabulary (verdicts, node ids, commands) and change its meaning. Real tokens and keys are far longer.
export const MIN_SECRET_LENGTH = 12;
/** A derived (encoded) form shorter than this is not used: it would match by chance. */
const MIN_FORM_LENGTH = 6;

export interface Redactor {
  /** Whether any known secret is long enough to redact. Token shapes are redacted either way. */
  readonly active: boolean;
  /**
   * `text` without terminal escapes and invisible characters (they could hide a secret from a plain
   * match, not from a reader), then with every form of every known secret and every token shape replaced
   * by {@link REDACTED}.
   */
  text(text: string): string;
  /**
   * A file's bytes with every form of every known secret (each also as written inside a JSON string) and
   * every token shape replaced by {@link REDACTED}. Nothing else changes: bytes that hold neither come back
   * identical (a patch still applies, a binary file stays valid), so invisible characters are not removed
   * here — a secret split by one passes, which is why text the engine writes goes through `text` first.
   */
  bytes(bytes: Buffer): Buffer;
  /**
   * A copy of a JSON-like value with every string (object keys included) redacted as by `text`. Arrays
   * and plain objects are copied where something inside them changed, and returned as they are where
   * nothing did; other values are returned as they are.
   */
  deep<T>(value: T): T;
  /**
   * Whether `text` holds any form of any *known* secret (token shapes do not count: a child environment
   * may pass a registry token through on purpose, `verify-env`).
   */
  contains(text: string): boolean;
}

/**
 * Every form of `secret` that {@link createRedactor} replaces, longest first; empty for a secret shorter
 * than {@link MIN_SECRET_LENGTH}.
 */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const bytes = Buffer.from(secret, "utf8");
  const forms = new Set<string>([secret, JSON.stringify(secret).slice(1, -1)]);
  const url = encodeURIComponent(secret);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  const hex = bytes.toString("hex");
  forms.add(hex);
  forms.add(hex.toUpperCase());
  // Every byte percent-encoded (%67%68…), and hex dumps with a space between bytes (od/xxd style).
  const pairs = hex.match(/../g) ?? [];
  forms.add(pairs.map((pair) => `%${pair}`).join(""));
  forms.add(pairs.map((pair) => `%${pair.toUpperCase()}`).join(""));
  forms.add(pairs.join(" "));
  forms.add(pairs.map((pair) => pair.toUpperCase()).join(" "));
  // As the ledger's Markdown renderers write it into a table cell or a line (src/ledger/markdown-syntax.ts):
  // a check run, job summary or comment receives that text, not the value.
  forms.add(escapeMarkdownChars(secret));
  // Partly percent-encoded: only the characters encodeURIComponent leaves alone but escape() would not.
  forms.add(
    secret.replace(/[^A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`),
  );
  for (const b64 of base64Forms(bytes)) {
    forms.add(b64);
    forms.add(b64.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...forms]
    .filter((f) => f === secret || f.length >= MIN_FORM_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/**
 * Base64 substrings that only the secret's bytes determine: the whole unpadded encoding, and for the
 * secret encoded after `k` = 0, 1, 2 other bytes, the characters between the first and last ones that
 * mix in a neighbouring byte.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms = [bytes.toString("base64").replace(/=+$/, "")];
  for (const k of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes])
      .toString("base64")
      .replace(/=+$/, "");
    // Characters 0..skip-1 carry bits of the k leading bytes (k=1: 2 chars, k=2: 3 chars).
    const skip = k === 0 ? 0 : k + 1;
    // When the secret does not end on a 3-byte boundary, the last character mixes in the next byte.
    const end = (k + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    forms.push(encoded.slice(skip, end));
  }
  return forms;
}

/**
 * A redactor for these secrets, which also redacts token shapes; `undefined`, empty and short values are
 * ignored (with none left, it redacts token shapes only).
 */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const forms = [...new Set(secrets.flatMap((s) => (typeof s === "string" ? secretForms(s) : [])))].sort(
    (a, b) => b.length - a.length,
  );
  const text = (value: string): string => {
    // Terminal escapes and zero-width characters printed between a secret's characters hide it from a
    // plain match but not from a reader (a terminal or the Actions log renders them away): they are
    // removed first. A ledger never needs either.
    let out = value.replace(INVISIBLE, "");
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    // Not URL passwords: this redactor also writes state.json and graph.json, run again on resume.
    return redactTokenShapes(out, { urlPasswords: false });
  };
  const deep = (value: unknown): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) {
      const copy = value.map(deep);
      return copy.some((inner, i) => inner !== value[i]) ? copy : value;
    }
    if (value !== null && typeof value === "object" && isPlainObject(value)) {
      const copy: Record<string, unknown> = {};
      let changed = false;
      for (const [key, inner] of Object.entries(value)) {
        const k = text(key);
        const v = deep(inner);
        changed ||= k !== key || v !== inner;
        copy[k] = v;
      }
      return changed ? copy : value;
    }
    return value;
  };
  return {
    active: forms.length > 0,
    text,
    bytes: (bytes) => redactBytes(bytes, forms),
    deep: <T>(value: T): T => deep(value) as T,
    contains: (value) => forms.some((form) => value.includes(form)),
  };
}

/**
 * `bytes` with each known form (as UTF-8, and as written inside a JSON string) and each token shape
 * replaced by {@link REDACTED}, byte for byte everywhere else. Worked on as latin1 (one character per
 * byte), so invalid UTF-8 and binary content pass through unchanged.
 */
function redactBytes(bytes: Buffer, forms: readonly string[]): Buffer {
  const original = bytes.toString("latin1");
  let out = original;
  const needles = new Set(forms.flatMap((form) => [form, JSON.stringify(form).slice(1, -1)]));
  for (const needle of [...needles].sort((a, b) => b.length - a.length)) {
    const latin1 = Buffer.from(needle, "utf8").toString("latin1");
    if (out.includes(latin1)) out = out.split(latin1).join(REDACTED);
  }
  out = redactTokenShapes(out, { urlPasswords: false });
  return out === original ? bytes : Buffer.from(out, "latin1");
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
