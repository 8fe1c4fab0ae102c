/**
 * Child-process environments (SPEC §9; research/security.md §4.1–§4.2). Every spawn in this project
 * builds its environment here. The rule is a denylist over the parent's environment, applied to the
 * upper-cased name:
 *
 * 1. No child gets: `GITHUB_TOKEN`, `GH_TOKEN`, any `ACTIONS_*` variable (runner service tokens and
 *    URLs, `ACTIONS_STEP_DEBUG`, `ACTIONS_ALLOW_UNSECURE_COMMANDS`), any `INPUT_*` variable (action
 *    inputs, secrets included), the file-command paths (`GITHUB_ENV`, `GITHUB_OUTPUT`, `GITHUB_PATH`,
 *    `GITHUB_STATE`, `GITHUB_STEP_SUMMARY`), or any variable whose value equals a known secret.
 * 2. Model credentials and provider settings (`ANTHROPIC_*`, `CLAUDE_CODE_*`, `CLAUDE_CONFIG_DIR`,
 *    `OPENAI_*`, `CODEX_*`) reach only the model CLI of that runtime; the verify command and git get none.
 * 3. The secret-name rule ({@link isSecretLikeName}), for every child: split the name into words at every
 *    character that is not A–Z or 0–9; the name is dropped when any word is `TOKEN(S)`, `SECRET(S)`,
 *    `PASSWORD(S)`, `PASSWD`, `PASSPHRASE`, `CREDENTIAL(S)`, `CREDS`, `APIKEY`, `APITOKEN`, `AUTHTOKEN`,
 *    `ACCESSTOKEN`, `ACCESSKEY`, `SECRETKEY` or `PRIVATEKEY`, or when the last word is `KEY`, `KEYS`, `AUTH`, `PAT` or `PASS` — plus the cloud
 *    credential families `AWS_*`, `AZURE_*`, `CLOUDSDK_*`, and `DOCKER_AUTH_CONFIG`. So `NPM_TOKEN`,
 *    `NODE_AUTH_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DOCKER_PASSWORD`, `GOOGLE_APPLICATION_CREDENTIALS` and
 *    `npm_config__auth` are dropped; `PATH`, `HOME`, `CI` and `GITHUB_SHA` are not.
 * 4. Injection vectors, for every child: `NODE_OPTIONS`, `LD_PRELOAD`, `LD_LIBRARY_PATH`, `LD_AUDIT`,
 *    `DYLD_INSERT_LIBRARIES`, `DYLD_LIBRARY_PATH`, `BASH_ENV`, `ENV`, `PROMPT_COMMAND`, `PYTHONSTARTUP`,
 *    `PERL5OPT`, `RUBYOPT`, `GIT_ASKPASS`, `SSH_ASKPASS`, `GIT_SSH`, `GIT_SSH_COMMAND`,
 *    `GIT_PROXY_COMMAND`, `GIT_EXTERNAL_DIFF`, `RUNNER_DEBUG`. The verify command also loses
 *    `SSH_AUTH_SOCK` (an SSH agent is a credential).
 *
 * A model CLI is exempt from rules 3–4 for its own runtime's provider variables (`ANTHROPIC_*`,
 * `CLAUDE_CODE_*`, `CLAUDE_CONFIG_DIR` for claude; `OPENAI_*`, `CODEX_*` for codex) and, when claude is
 * switched to a cloud provider, for that provider's credentials (`CLAUDE_CODE_USE_BEDROCK` → `AWS_*`,
 * `CLAUDE_CODE_USE_VERTEX` → `GOOGLE_APPLICATION_CREDENTIALS` and `CLOUDSDK_*`, `CLAUDE_CODE_USE_FOUNDRY`
 * → `AZURE_*`). Its credential arrives through `set`, because value-equality scrubbing would drop it.
 *
 * `passThrough` (input `verify-env`) keeps a name that rules 3–4 would drop. It can never pass rule 1 or
 * rule 2 names, and a passed-through variable whose value equals a known secret is still dropped: the
 * GitHub token and the model credential never reach PR code under another name.
 */

import { createRedactor } from "../core/redact.js";
import { unreachable } from "../core/unreachable.js";

/** Which kind of child the environment is for. */
export type ChildKind =
  | { readonly kind: "model"; readonly runtime: "claude" | "codex" }
  | { readonly kind: "verify" }
  | { readonly kind: "git" };

export interface ChildEnvOptions {
  /** The environment to start from, usually `process.env`. Never mutated. */
  readonly base: Readonly<Record<string, string | undefined>>;
  readonly child: ChildKind;
  /** Secret values: any variable whose value equals one of these is dropped, passed through or not. */
  readonly knownSecrets?: readonly string[];
  /**
   * Names passed through even if the secret-name or injection rule would drop them (input `verify-env`).
   * Never: `INPUT_*`, `ACTIONS_*`, `GITHUB_TOKEN`, `GH_TOKEN`, the file-command paths, or a model
   * credential or provider setting ({@link neverPassableReason}).
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

const CLAUDE_PROVIDER = [/^ANTHROPIC_/, /^CLAUDE_CODE_/, /^CLAUDE_CONFIG_DIR$/];
const CODEX_PROVIDER = [/^OPENAI_/, /^CODEX_/];

/** Words that make a name secret-like wherever they stand in it. */
const SECRET_WORDS = new Set([
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWORDS",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "CREDS",
  "APIKEY",
  "APITOKEN",
  "AUTHTOKEN",
  "ACCESSTOKEN",
  "ACCESSKEY",
  "SECRETKEY",
  "PRIVATEKEY",
]);
/** Words that make a name secret-like when they are its last word. */
const SECRET_LAST_WORDS = new Set(["KEY", "KEYS", "AUTH", "PAT", "PASS"]);
/** Cloud credential families, dropped by prefix. */
const CLOUD_CREDENTIALS = [/^AWS_/, /^AZURE_/, /^CLOUDSDK_/, /^DOCKER_AUTH_CONFIG$/];

/** Variables that make a program load or run code the build did not ask for. */
const INJECTION_VECTORS = new Set([
  "NODE_OPTIONS",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "PYTHONSTARTUP",
  "PERL5OPT",
  "RUBYOPT",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "RUNNER_DEBUG",
]);

function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => p.test(name));
}

/**
 * The secret-name rule (rule 3 above), on any spelling of the name: a word of the name is `TOKEN`,
 * `SECRET`, `PASSWORD`, …, or its last word is `KEY`, `AUTH`, `PAT`, …; or it is a cloud credential
 * family (`AWS_*`, `AZURE_*`, `CLOUDSDK_*`, `DOCKER_AUTH_CONFIG`).
 */
export function isSecretLikeName(name: string): boolean {
  const upper = name.toUpperCase();
  if (matchesAny(upper, CLOUD_CREDENTIALS)) return true;
  const words = upper.split(/[^A-Z0-9]+/).filter((w) => w !== "");
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  const last = words.at(-1);
  return last !== undefined && SECRET_LAST_WORDS.has(last);
}

/**
 * Why `name` can never be passed to any child, not even through `verify-env`, or `null` when it can.
 * Compared upper-cased.
 */
export function neverPassableReason(name: string): string | null {
  const upper = name.toUpperCase();
  if (upper.startsWith("INPUT_")) return "it is an action input (inputs carry the action's secrets)";
  if (upper === "GITHUB_TOKEN" || upper === "GH_TOKEN")
    return "it is the GitHub token, which never reaches PR code";
  if (ALWAYS_DROPPED_NAMES.has(upper))
    return "it is a file-command path (PR code could forge the job's outputs, environment or summary)";
  if (upper.startsWith("ACTIONS_")) return "it is a runner service token, URL or debug switch";
  if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER]))
    return "it is a model credential or provider setting, which never reaches PR code";
  return null;
}

/** Whether claude's cloud-provider switch `name` is on in the base environment. */
function switchedOn(base: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const value = base[name];
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** A model CLI's own provider variables: kept by name, exempt from the secret-name rule. */
function ownProvider(
  upper: string,
  runtime: "claude" | "codex",
  base: Readonly<Record<string, string | undefined>>,
): boolean {
  if (runtime === "codex") return matchesAny(upper, CODEX_PROVIDER);
  if (matchesAny(upper, CLAUDE_PROVIDER)) return true;
  if (switchedOn(base, "CLAUDE_CODE_USE_BEDROCK") && upper.startsWith("AWS_")) return true;
  if (
    switchedOn(base, "CLAUDE_CODE_USE_VERTEX") &&
    (upper === "GOOGLE_APPLICATION_CREDENTIALS" || upper.startsWith("CLOUDSDK_"))
  )
    return true;
  return switchedOn(base, "CLAUDE_CODE_USE_FOUNDRY") && upper.startsWith("AZURE_");
}

/** Why a variable is dropped for this child, or `null` to keep it. Names are compared upper-cased. */
function dropReason(
  name: string,
  child: ChildKind,
  base: Readonly<Record<string, string | undefined>>,
): string | null {
  const upper = name.toUpperCase();
  if (upper.startsWith("INPUT_")) return "action input";
  if (ALWAYS_DROPPED_NAMES.has(upper)) return "runner token or file command";
  if (upper.startsWith("ACTIONS_")) return "runner service token or URL";
  switch (child.kind) {
    case "model":
      if (ownProvider(upper, child.runtime, base)) return null;
      if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER]))
        return "other runtime's provider setting";
      break;
    case "verify":
      if (upper === "SSH_AUTH_SOCK") return "SSH agent";
      if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER])) return "model credential or provider";
      break;
    case "git":
      if (matchesAny(upper, [...CLAUDE_PROVIDER, ...CODEX_PROVIDER])) return "model credential or provider";
      break;
    default:
      return unreachable(child);
  }
  if (isSecretLikeName(upper)) return "secret-like name";
  if (INJECTION_VECTORS.has(upper)) return "injection vector";
  return null;
}

/** Below this length a secret is only matched as a whole value, never inside a longer one. */
const MIN_EMBEDDED_SECRET_LENGTH = 12;

/**
 * A test: does a value embed a known secret (`Bearer <token>`, a proxy URL with the key in it), as written or
 * in any form the ledger's redactor knows (base64 of `user:token`, percent-encoded, hex).
 */
function embeddedSecretMatcher(secrets: ReadonlySet<string>): (value: string) => boolean {
  const long = [...secrets].filter((secret) => secret.length >= MIN_EMBEDDED_SECRET_LENGTH);
  if (long.length === 0) return () => false;
  const redactor = createRedactor(long);
  return (value) => redactor.contains(value);
}

/**
 * Builds the environment of one child process.
 *
 * @returns a fresh object holding only string values; `options.base` is not mutated.
 */
export function buildChildEnv(options: ChildEnvOptions): Record<string, string> {
  const secrets = new Set((options.knownSecrets ?? []).filter((s) => s.length > 0));
  const passThrough = new Set((options.passThrough ?? []).map((n) => n.toUpperCase()));
  // Built once per environment: a secret's encoded forms are computed here, not once per variable.
  const holdsEmbeddedSecret = embeddedSecretMatcher(secrets);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.base)) {
    if (value === undefined) continue;
    if (secrets.has(value) || holdsEmbeddedSecret(value)) continue;
    const upper = name.toUpperCase();
    const passable = passThrough.has(upper) && neverPassableReason(upper) === null;
    if (!passable && dropReason(name, options.child, options.base) !== null) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) env[name] = value;
  return env;
}

/** Names as `verify-env` may give them: shell variable names. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Every problem with the names given to `verify-env` (CLI `--verify-env`, action input `verify-env`),
 * each naming the variable and why, prefixed by `label` (`--verify-env`, "input `verify-env`"). Empty
 * when every name may be passed through.
 */
export function verifyEnvProblems(names: readonly string[], label: string): string[] {
  const problems: string[] = [];
  for (const name of names) {
    if (!VARIABLE_NAME.test(name)) {
      problems.push(
        `${label} names ${JSON.stringify(name)}, which is not a variable name (letters, digits and _, not starting with a digit)`,
      );
      continue;
    }
    const reason = neverPassableReason(name);
    if (reason !== null) problems.push(`${label} cannot pass ${name} to the verify command: ${reason}`);
  }
  return problems;
}
