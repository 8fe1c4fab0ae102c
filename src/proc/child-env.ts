/**
 * Child-process environments (SPEC §9). Every spawn in this project builds its environment here.
 *
 * No child gets: `GITHUB_TOKEN`, `GH_TOKEN`, `ACTIONS_*` tokens and URLs, any `INPUT_*` variable (action
 * inputs, secrets included), the file-command paths (`GITHUB_ENV`, `GITHUB_OUTPUT`, `GITHUB_PATH`,
 * `GITHUB_STATE`, `GITHUB_STEP_SUMMARY`), or any variable whose value equals a known secret.
 * The verify command and git additionally get no model credential or provider setting
 * (`ANTHROPIC_*`, `CLAUDE_CODE_*`, `OPENAI_*`, `CODEX_*`). A model CLI keeps its own runtime's provider
 * settings and gets its credential through `set`, and loses the other runtime's.
 */

/** Which kind of child the environment is for. */
export type ChildKind =
  | { readonly kind: "model"; readonly runtime: "claude" | "codex" }
  | { readonly kind: "verify" }
  | { readonly kind: "git" };

export interface ChildEnvOptions {
  /** The environment to start from, usually `process.env`. Never mutated. */
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly child: ChildKind;
  /** Secret values: any variable whose value equals one of these is dropped (unless passed through). */
  readonly knownSecrets?: readonly string[];
  /**
   * Names passed through even if a rule would drop them (input `verify-env`), except `INPUT_*` and the
   * file-command paths, which no child may ever get.
   */
  readonly passThrough?: readonly string[];
  /** Variables set last, after every rule (the model credential, `HOME`, provider URL). */
  readonly set?: Readonly<Record<string, string>>;
}

const ALWAYS_DROPPED_NAMES = new Set([
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "GITHUB_ENV",
  "GITHUB_OUTPUT",
  "GITHUB_PATH",
  "GITHUB_STATE",
  "GITHUB_STEP_SUMMARY",
]);
const NEVER_PASSABLE_NAMES = new Set([
  "GITHUB_ENV",
  "GITHUB_OUTPUT",
  "GITHUB_PATH",
  "GITHUB_STATE",
  "GITHUB_STEP_SUMMARY",
]);

const CLAUDE_PROVIDER = [/^ANTHROPIC_/, /^CLAUDE_CODE_/, /^CLAUDE_CONFIG_DIR$/];
const CODEX_PROVIDER = [/^OPENAI_/, /^CODEX_/];

function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => p.test(name));
}

/** Why a variable is dropped for this child, or `null` to keep it. Names are compared upper-cased. */
function dropReason(name: string, child: ChildKind): string | null {
  const upper = name.toUpperCase();
  if (upper.startsWith("INPUT_")) return "action input";
  if (ALWAYS_DROPPED_NAMES.has(upper)) return "runner token or file command";
  if (upper.startsWith("ACTIONS_")) return "runner service token or URL";
  switch (child.kind) {
    case "model":
      return matchesAny(upper, child.runtime === "claude" ? CODEX_PROVIDER : CLAUDE_PROVIDER)
        ? "other runtime's provider setting"
        : null;
    case "verify":
    case "git":
      return matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER])
        ? "model credential or provider"
        : null;
    default:
      return unreachable(child);
  }
}

function unreachable(value: never): never {
  throw new Error(`Internal error: unexpected child kind ${JSON.stringify(value)}`);
}

/**
 * Builds the environment of one child process.
 *
 * @returns a fresh object holding only string values; `options.base` is not mutated.
 */
export function buildChildEnv(options: ChildEnvOptions): Record<string, string> {
  const secrets = new Set((options.knownSecrets ?? []).filter((s) => s.length > 0));
  const passThrough = new Set((options.passThrough ?? []).map((n) => n.toUpperCase()));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.base)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    const passable =
      passThrough.has(upper) && !upper.startsWith("INPUT_") && !NEVER_PASSABLE_NAMES.has(upper);
    if (!passable) {
      if (dropReason(name, options.child) !== null) continue;
      if (secrets.has(value)) continue;
    }
    env[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) env[name] = value;
  return env;
}
