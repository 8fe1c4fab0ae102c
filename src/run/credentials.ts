/**
 * What the product knows about credentials, in one place (SPEC §9, §11): which environment variables hold a
 * known secret, which of them each runtime's model CLI needs, which action inputs carry them, and the usage
 * errors for a run that has none. Every surface (the CLI's environment, the action's inputs) builds its
 * known secrets and its model children's credentials from here.
 *
 * Rules: every credential value is a known secret (kept out of every child's environment by value and
 * redacted from everything the run writes); a model child gets back only its own runtime's credential
 * (`claude`: `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN` / `CLAUDE_CODE_OAUTH_TOKEN`; `codex`:
 * `OPENAI_API_KEY`, and `CODEX_API_KEY`, which `codex exec` reads —
 * developers.openai.com/codex/environment-variables); no verify command or git gets any.
 */
import { createRedactor, type Redactor } from "../core/redact.js";
import type { ModelEnvBuilder, Runtime } from "../engine/runtime-setup.js";
import { buildChildEnv } from "../proc/child-env.js";
import type { ModelCredentialInputs } from "../runtime/model-runtime.js";
import { runtimeFor } from "../runtime/runtime-for.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Credentials the CLI may find in its environment: each value is a known secret (SPEC §9). */
export const CREDENTIAL_VARIABLES = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
] as const;

/** The action's secret inputs (SPEC §11), as `INPUT_*` names and in the typed inputs. */
export interface ActionCredentialInputs extends ModelCredentialInputs {
  readonly githubToken?: string;
  readonly pushToken?: string;
}

/** The secret inputs' raw variables, read when the inputs did not parse (they are still masked). */
const SECRET_INPUT_VARIABLES = [
  "INPUT_GITHUB-TOKEN",
  "INPUT_ANTHROPIC-API-KEY",
  "INPUT_CLAUDE-CODE-OAUTH-TOKEN",
  "INPUT_OPENAI-API-KEY",
  "INPUT_PUSH-TOKEN",
] as const;

const present = (s: string | undefined): s is string => typeof s === "string" && s !== "";

/**
 * The action's known secrets: the GitHub token, the model credentials and the push token (SPEC §9), from
 * the parsed inputs — or, when the inputs did not parse, from their raw variables (they must be masked all
 * the same). Trimmed, empty ones left out.
 */
export function actionSecrets(parsed: ActionCredentialInputs | null, env: Env): string[] {
  const values =
    parsed !== null
      ? [
          parsed.githubToken,
          parsed.anthropicApiKey,
          parsed.claudeCodeOauthToken,
          parsed.openaiApiKey,
          parsed.pushToken,
        ]
      : SECRET_INPUT_VARIABLES.map((name) => env[name]);
  return values.map((s) => s?.trim()).filter(present);
}

/** The action's credential for `runtime` as the variables its CLI reads (empty when the input is). */
export function actionModelCredentials(
  inputs: ActionCredentialInputs,
  runtime: Runtime,
): Record<string, string> {
  return runtimeFor(runtime).credentialsFromInputs(inputs);
}

/**
 * The secret inputs of `runtime`, when none of them has a value; `null` when the model CLI has a credential.
 * claude: `anthropic-api-key` or `claude-code-oauth-token`; codex: `openai-api-key` (SPEC §11).
 */
export function missingModelCredential(
  inputs: ActionCredentialInputs & { readonly runtime: Runtime },
): readonly string[] | null {
  return runtimeFor(inputs.runtime).missingCredentialInputs(inputs);
}

/**
 * Why a run of `runtime` cannot start without its credential input (SPEC §11), naming the input(s) and the
 * fix; one sentence, no trailing period (callers add how the run ended).
 */
export function missingCredentialMessage(runtime: Runtime): string {
  return runtimeFor(runtime).missingCredentialMessage;
}

/** The secrets of a CLI run and what is built from them. */
export interface CliSecrets {
  /** Every credential value in the environment. */
  readonly knownSecrets: readonly string[];
  readonly redactor: Redactor;
  /** The GitHub token (`GITHUB_TOKEN`, else `GH_TOKEN`), for `--repository`. */
  readonly githubToken: string | undefined;
  /**
   * A model child's environment: scrubbed of every known secret, with its own runtime's credential set
   * back (a codex child never gets the claude key, nor the reverse). `HOME` / `CODEX_HOME` are the user's
   * own: in the CLI the operator's configuration is theirs (SPEC §8).
   */
  readonly modelEnv: ModelEnvBuilder;
}

/**
 * Every credential in the CLI's environment is a known secret: dropped by value from every child's
 * environment and redacted from everything the run writes, prints or posts (SPEC §9). A verify command
 * can read this process's initial environment through /proc and print it; redaction keeps that out of the
 * outputs.
 */
export function cliSecrets(env: Env): CliSecrets {
  const knownSecrets = CREDENTIAL_VARIABLES.map((name) => env[name]).filter(present);
  // The model child still needs its own credential: value scrubbing would drop it, so it is set explicitly.
  const credentialsOf = (runtime: Runtime): Record<string, string> => cliModelCredentials(env, runtime);
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  return {
    knownSecrets,
    redactor: createRedactor(knownSecrets),
    githubToken: token === "" ? undefined : token,
    modelEnv: (_label, runtime) =>
      buildChildEnv({
        base: env,
        child: { kind: "model", runtime },
        knownSecrets,
        set: credentialsOf(runtime),
      }),
  };
}

/**
 * Why a run from the CLI would have no model credential, as a usage error; `null` when it has one or may
 * have one. Claude: never (its own login is the CLI's business). Codex: without this, codex retries an
 * unauthenticated model server for as long as the planner's timeout; a credential is `OPENAI_API_KEY` or
 * `CODEX_API_KEY` in the environment, a `codex login`, or a provider of the operator's own
 * (`ModelRuntime.localCredentialProblem` in `src/runtime/codex-runtime.ts`).
 */
export function localCredentialProblem(
  env: Env,
  runtime: Runtime,
  codexConfig: readonly string[],
): string | null {
  return runtimeFor(runtime).localCredentialProblem(env, codexConfig);
}

/** The CLI's credential for `runtime`: its runtime's variables that have a value in the environment. */
export function cliModelCredentials(env: Env, runtime: Runtime): Record<string, string> {
  const set: Record<string, string> = {};
  for (const name of runtimeFor(runtime).credentialVariables) {
    const value = env[name];
    if (present(value)) set[name] = value;
  }
  return set;
}
