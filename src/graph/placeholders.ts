/**
 * Placeholders in prompts, `cwd` and verify commands (SPEC §3 "Placeholders"; Go `internal/handoff`).
 *
 * Exactly three namespaces are placeholders, whitespace-tolerant inside the braces:
 * - `{{ inputs.NAME }}` — the run's input value;
 * - `{{ artifacts.ID }}` — the path of node ID's saved output; `{{ artifacts.ID | inline }}` — its content;
 * - `{{ feedback.ID }}` — the latest feedback payload of node ID's arc (`""` before a round fires).
 *
 * Any other `{{ … }}` (`{{ foo }}`, `{{ item.name }}`) is ordinary text and is left exactly as written
 * (`lint` flags the ones that read like a misspelt placeholder: {@link lookalikePlaceholdersIn}).
 * A token in a known namespace that cannot resolve — unknown name, missing artifact, bad filter,
 * malformed — fails the node; the message says how to keep such text literal. Substitution is a single
 * pass: text that a substituted value contains is never scanned again.
 */

/** The three placeholder namespaces. */
export type PlaceholderNamespace = "inputs" | "artifacts" | "feedback";

/** One placeholder token found in a template. */
export interface PlaceholderRef {
  /** The token exactly as written, e.g. `{{ artifacts.plan | inline }}`. */
  readonly token: string;
  /** UTF-16 offset of the token in the template. */
  readonly index: number;
  readonly namespace: PlaceholderNamespace;
  /** The input name or node id (`""` when the token is malformed). */
  readonly name: string;
  /** True for `| inline` (artifacts only). */
  readonly inline: boolean;
  /** Why this token can never resolve, whatever the run (malformed, bad filter); `null` when well-formed. */
  readonly problem: string | null;
}

/** What a run supplies to resolve placeholders. Each lookup returns `undefined` when it has no value. */
export interface InterpolationContext {
  readonly inputs: Readonly<Record<string, string>>;
  /** Path of the saved output of a node that passed. */
  artifactPath(id: string): string | undefined;
  /** Content of that saved output. */
  readArtifact(id: string): string | undefined;
  /** Latest feedback payload of the arc node `id` declares (`""` before a round); `undefined` if none. */
  feedback(id: string): string | undefined;
}

/** Outcome of {@link interpolate}. `unresolved` lists the offending tokens as written, in order. */
export type InterpolationResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly unresolved: readonly string[]; readonly message: string };

/** The sentence every unresolved-placeholder message ends with (SPEC §3: say how to keep literal braces). */
export const LITERAL_BRACES_HINT =
  "Only {{ inputs.NAME }}, {{ artifacts.ID }}, {{ artifacts.ID | inline }} and {{ feedback.ID }} are " +
  "placeholders; any other {{ … }} text is kept as written. To keep one of these literally, put a space " +
  "between the braces, e.g. { { inputs.NAME } }.";

// A token in a known namespace: the namespace must be followed by `.`, `|` or the closing braces, so
// `{{ inputs-list }}` or `{{ artifactsDir }}` stay ordinary text. The body is judged by REF below.
const TOKEN = /\{\{\s*(inputs|artifacts|feedback)(?=\s*[.|]|\s*\}\})([^{}]*)\}\}/g;
// Reference characters as in Go (`[A-Za-z0-9._/-]`; `/` appears in ids minted by fragment splicing).
const REF = /^\.([A-Za-z0-9._/-]+)\s*(?:\|\s*(\S*)\s*)?$/;

const WANT: Record<PlaceholderNamespace, string> = {
  inputs: "{{ inputs.NAME }}",
  artifacts: "{{ artifacts.ID }} or {{ artifacts.ID | inline }}",
  feedback: "{{ feedback.ID }}",
};

/**
 * Lists every placeholder token in `template`, in order, with static problems already judged. Used by
 * validation (artifact ids must name ancestors, feedback tokens must sit in their arc's body) and lint.
 */
export function placeholdersIn(template: string): PlaceholderRef[] {
  const refs: PlaceholderRef[] = [];
  for (const match of template.matchAll(TOKEN)) {
    const [token, ns = "", body = ""] = match;
    const namespace = ns as PlaceholderNamespace;
    const base = { token, index: match.index, namespace };
    const ref = REF.exec(body);
    if (ref === null) {
      refs.push({
        ...base,
        name: "",
        inline: false,
        problem: `malformed placeholder; write ${WANT[namespace]}`,
      });
      continue;
    }
    const [, name = "", filter] = ref;
    let problem: string | null = null;
    if (filter !== undefined) {
      if (namespace !== "artifacts") {
        problem = `${namespace} placeholders take no filter; write {{ ${namespace}.${name} }}`;
      } else if (filter !== "inline") {
        problem = `unknown filter ${JSON.stringify(filter)}; the only filter is | inline`;
      }
    }
    refs.push({ ...base, name, inline: filter === "inline", problem });
  }
  return refs;
}

/**
 * A `{{ … }}` that reads like a placeholder — a name, optional `.path` segments and an optional `| filter`
 * — but whose first word is not one of the three namespaces (`{{ input.file }}`, `{{ Inputs.file }}`,
 * `{{ nodes.a.output }}`, `{{ bogus }}`). {@link interpolate} leaves such text exactly as written, so it
 * reaches the model (or the shell) literally; `lint` reports it, since it is usually a typo.
 */
export interface LookalikeRef {
  /** The token exactly as written, e.g. `{{ input.file }}`. */
  readonly token: string;
  /** UTF-16 offset of the token in the template. */
  readonly index: number;
  /** The first word, as written (`input`, `Inputs`, `nodes`, `bogus`). */
  readonly namespace: string;
  /** The dotted segments after it, without the leading dot (`["a", "output"]`); `[]` when none. */
  readonly path: readonly string[];
  /** The filter after `|` (`inline`), or `null`. */
  readonly filter: string | null;
}

// `${{ … }}` is a GitHub Actions expression quoted in the text, not a misspelt placeholder, so it is skipped.
const LOOKALIKE =
  /(?<!\$)\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_/-]+)*)\s*(?:\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*)?\}\}/g;
const NAMESPACES: readonly string[] = ["inputs", "artifacts", "feedback"] satisfies PlaceholderNamespace[];

/**
 * Lists every {@link LookalikeRef} in `template`, in order. Tokens in a real namespace (reported by
 * {@link placeholdersIn}) and text that does not read like a reference (`{{ .Name }}`, `{{ 1 + 2 }}`,
 * `${{ github.sha }}`) are not listed.
 */
export function lookalikePlaceholdersIn(template: string): LookalikeRef[] {
  const refs: LookalikeRef[] = [];
  for (const match of template.matchAll(LOOKALIKE)) {
    const [token, namespace = "", dotted = "", filter] = match;
    if (NAMESPACES.includes(namespace)) continue;
    refs.push({
      token,
      index: match.index,
      namespace,
      path: dotted === "" ? [] : dotted.slice(1).split("."),
      filter: filter ?? null,
    });
  }
  return refs;
}

/**
 * Resolves every placeholder in `template` against `ctx` in one pass.
 *
 * @returns `{ok: true, text}`, or `{ok: false, unresolved, message}` where `message` has one
 *   `cannot resolve TOKEN: WHY` line per distinct token, then {@link LITERAL_BRACES_HINT}.
 */
export function interpolate(template: string, ctx: InterpolationContext): InterpolationResult {
  const values = new Map<string, string>();
  const failures = new Map<string, string>();
  for (const ref of placeholdersIn(template)) {
    if (values.has(ref.token) || failures.has(ref.token)) continue;
    const resolved = resolve(ref, ctx);
    if (resolved.ok) values.set(ref.token, resolved.value);
    else failures.set(ref.token, resolved.why);
  }
  if (failures.size > 0) {
    const lines = [...failures].map(([token, why]) => `cannot resolve ${token}: ${why}`);
    return {
      ok: false,
      unresolved: [...failures.keys()],
      message: [...lines, LITERAL_BRACES_HINT].join("\n"),
    };
  }
  // A replacer function inserts values verbatim (no `$&` expansion) and never rescans them.
  const text = template.replace(TOKEN, (token) => values.get(token) ?? token);
  return { ok: true, text };
}

type Resolution = { ok: true; value: string } | { ok: false; why: string };

function resolve(ref: PlaceholderRef, ctx: InterpolationContext): Resolution {
  if (ref.problem !== null) return { ok: false, why: ref.problem };
  switch (ref.namespace) {
    case "inputs":
      // `hasOwn`, so `{{ inputs.constructor }}` cannot resolve to a prototype member.
      return Object.hasOwn(ctx.inputs, ref.name)
        ? { ok: true, value: ctx.inputs[ref.name] ?? "" }
        : { ok: false, why: "no such input was provided" };
    case "artifacts": {
      const path = ctx.artifactPath(ref.name);
      if (path === undefined) {
        return {
          ok: false,
          why: `no artifact from node "${ref.name}" (it has not passed, or is not in this run)`,
        };
      }
      if (!ref.inline) return { ok: true, value: path };
      const content = ctx.readArtifact(ref.name);
      return content === undefined
        ? { ok: false, why: `cannot read the artifact file ${path}` }
        : { ok: true, value: content };
    }
    case "feedback": {
      const payload = ctx.feedback(ref.name);
      return payload === undefined
        ? { ok: false, why: `node "${ref.name}" declares no feedback arc` }
        : { ok: true, value: payload };
    }
  }
}
