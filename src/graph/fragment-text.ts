/**
 * The text operations of fragment splicing (Go ADR 0013 merge mechanics, ADR 0027 namespacing), over plain
 * data — every string anywhere in a node body, nested `with:` values included:
 *
 * - **substitution points** `{{ with.NAME }}`: resolved once, at load. A string that IS the token gets
 *   the bound value itself (a bound list stays a list); a token inside longer text gets the bound scalar
 *   as text. Bound text is never scanned again.
 * - **id references** `{{ artifacts.ID }}`, `{{ artifacts.ID | inline }}`, `{{ feedback.ID }}`: renamed
 *   through a map (a fragment's own ids to their spliced ids; a citing node's id to its fragment's exit).
 */
import { placeholdersIn } from "./placeholders.js";
import { isPlainRecord } from "./plain-data.js";

const WITH_TOKEN = /\{\{\s*with\.([A-Za-z0-9_]+)\s*\}\}/g;
const WHOLE_WITH_TOKEN = /^\{\{\s*with\.([A-Za-z0-9_]+)\s*\}\}$/;
const ANY_TOKEN = /\{\{([^{}]*)\}\}/g;
const LEADING_WORD = /^\s*([A-Za-z0-9_]+)/;
// A reference token's head, `{{ artifacts.` or `{{ feedback.`, then the id (placeholders.ts REF).
const REF_HEAD = /^(\{\{\s*(?:artifacts|feedback)\.)([A-Za-z0-9._/-]+)/;

/** What the substitution tokens of some data say: the names they use, and the tokens that can never work. */
export interface WithTokens {
  /** Names used by well-formed tokens, in first-use order, each once. */
  readonly names: readonly string[];
  /**
   * Tokens that claim the `with` namespace without its grammar (`{{ with.x | inline }}`, `{{ with. }}`,
   * `{{ With.x }}`): they could never be substituted, so they would reach a paid prompt verbatim.
   */
  readonly malformed: readonly string[];
}

/** Every string in `value` (mapping values and list items, at any depth), in document order. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isPlainRecord(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** The substitution tokens in every string of `value`. */
export function withTokensIn(value: unknown): WithTokens {
  const names: string[] = [];
  const malformed: string[] = [];
  for (const text of stringsIn(value)) {
    for (const match of text.matchAll(ANY_TOKEN)) {
      const word = LEADING_WORD.exec(match[1] ?? "")?.[1];
      if (word === undefined || word.toLowerCase() !== "with") continue;
      const strict = WHOLE_WITH_TOKEN.exec(match[0]);
      if (strict === null || word !== "with") malformed.push(match[0]);
      else if (!names.includes(strict[1] ?? "")) names.push(strict[1] ?? "");
    }
  }
  return { names, malformed };
}

/**
 * A copy of `value` with every `{{ with.NAME }}` replaced by `bindings[NAME]` (names not bound are left as
 * written; the caller has checked every name is declared and bound). A mapping value that is exactly one
 * token bound to `""` is left out, as the Go CLI reads an empty value as the field's default (`agent: ""`
 * is no subagent, `timeout: ""` the default bound). `problems` lists bindings a token could not take
 * (a list or mapping bound into longer text).
 */
export function substituteWith(
  value: unknown,
  bindings: Readonly<Record<string, unknown>>,
): { readonly value: unknown; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const bound = (name: string): boolean => Object.hasOwn(bindings, name);
  const text = (source: string): unknown => {
    const whole = WHOLE_WITH_TOKEN.exec(source);
    if (whole !== null && bound(whole[1] ?? "")) return structuredClone(bindings[whole[1] ?? ""]);
    return source.replace(WITH_TOKEN, (token, name: string) => {
      if (!bound(name)) return token;
      const replacement = bindings[name];
      if (typeof replacement === "string") return replacement;
      if (typeof replacement === "number" || typeof replacement === "boolean") return String(replacement);
      problems.push(
        `with: ${name} is bound to ${Array.isArray(replacement) ? "a list" : "a mapping"}, which cannot be ` +
          `spliced into text (${JSON.stringify(token)} sits inside a longer string); bind text, or make the ` +
          "token the whole value",
      );
      return token;
    });
  };
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return text(node);
    if (Array.isArray(node)) return node.map(walk);
    if (!isPlainRecord(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      const replaced = walk(child);
      const emptied = replaced === "" && typeof child === "string" && WHOLE_WITH_TOKEN.test(child);
      if (!emptied) out[key] = replaced;
    }
    return out;
  };
  return { value: walk(value), problems };
}

/** Which reference tokens a rename applies to. */
export type RefNamespace = "artifacts" | "feedback";

/**
 * `text` with the id of every well-formed token in `namespaces` renamed by `rename` (`undefined`: kept
 * as written). The rest of each token — spacing, `| inline` — is kept.
 */
export function renameRefs(
  text: string,
  rename: (id: string) => string | undefined,
  namespaces: readonly RefNamespace[] = ["artifacts", "feedback"],
): string {
  const refs = placeholdersIn(text).filter(
    (ref) => ref.problem === null && (namespaces as readonly string[]).includes(ref.namespace),
  );
  if (refs.length === 0) return text;
  let out = "";
  let at = 0;
  for (const ref of refs) {
    const renamed = rename(ref.name);
    if (renamed === undefined) continue;
    out +=
      text.slice(at, ref.index) + ref.token.replace(REF_HEAD, (_all, head: string) => `${head}${renamed}`);
    at = ref.index + ref.token.length;
  }
  return out + text.slice(at);
}

/** A copy of `value` with {@link renameRefs} applied to every string in it. */
export function renameRefsIn(
  value: unknown,
  rename: (id: string) => string | undefined,
  namespaces: readonly RefNamespace[] = ["artifacts", "feedback"],
): unknown {
  if (typeof value === "string") return renameRefs(value, rename, namespaces);
  if (Array.isArray(value)) return value.map((item) => renameRefsIn(item, rename, namespaces));
  if (!isPlainRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, renameRefsIn(child, rename, namespaces)]),
  );
}

/** The ids named by the well-formed artifacts / feedback tokens in every string of `value`, with the token. */
export function refsIn(value: unknown): { readonly id: string; readonly token: string }[] {
  return stringsIn(value).flatMap((text) =>
    placeholdersIn(text)
      .filter((ref) => ref.namespace !== "inputs" && ref.problem === null)
      .map((ref) => ({ id: ref.name, token: ref.token })),
  );
}
