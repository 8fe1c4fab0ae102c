/**
 * The model credential the key proxy holds, and how each kind is sent (SPEC §9). Measured on the pinned
 * CLIs against a recording server (`ANTHROPIC_BASE_URL` / a codex provider `base_url` on loopback):
 *
 * | variable the CLI reads | runtime | header the CLI sends |
 * | --- | --- | --- |
 * | `ANTHROPIC_API_KEY` | claude 2.1.332 | `x-api-key: <key>` |
 * | `ANTHROPIC_AUTH_TOKEN` | claude 2.1.332 | `authorization: Bearer <token>` |
 * | `CLAUDE_CODE_OAUTH_TOKEN` | claude 2.1.332 | `authorization: Bearer <token>`, plus `oauth-2025-04-20` in `anthropic-beta` |
 * | the provider's `env_key` (`OPENAI_API_KEY`) | codex 0.169.0 | `authorization: Bearer <key>` |
 *
 * With any of them the CLI accepts a custom base URL and a dummy value (it never checks the value's shape
 * before sending), so the CLI is given {@link DUMMY_CREDENTIAL} and the proxy swaps the header for the real
 * one. Whatever auth header a request arrives with (`x-api-key` or `authorization`) is removed first.
 */

/** The value every model CLI gets in place of its credential. Not a secret; never accepted upstream. */
export const DUMMY_CREDENTIAL = "evidence-gate-key-proxy-dummy";

/** claude's credential variables (the CLI reads exactly one; see the table above). */
export type ClaudeCredentialVariable =
  | "ANTHROPIC_API_KEY"
  | "ANTHROPIC_AUTH_TOKEN"
  | "CLAUDE_CODE_OAUTH_TOKEN";
/** codex's credential variables: `OPENAI_API_KEY` (a provider's `env_key`) and `CODEX_API_KEY` (`codex exec`). */
export type CodexCredentialVariable = "OPENAI_API_KEY" | "CODEX_API_KEY";

/**
 * The real credential, named by the variable it would otherwise have reached the CLI in (what the model
 * environment builders set today: `ANTHROPIC_API_KEY` from input `anthropic-api-key`, …).
 */
export type ModelCredential =
  | { readonly runtime: "claude"; readonly variable: ClaudeCredentialVariable; readonly value: string }
  | { readonly runtime: "codex"; readonly variable: CodexCredentialVariable; readonly value: string };

/** Every credential variable of each runtime: none of them may carry the real value into the CLI. */
export const CREDENTIAL_VARIABLES: Readonly<Record<ModelCredential["runtime"], readonly string[]>> = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
};

/** Request headers that carry a credential: removed from every request before the real one is set. */
export const AUTH_HEADERS: readonly string[] = ["x-api-key", "authorization"];

/** The header (lower-case name, value) the upstream gets for `credential`. */
export function upstreamAuthHeader(credential: ModelCredential): readonly [name: string, value: string] {
  if (credential.runtime === "claude" && credential.variable === "ANTHROPIC_API_KEY")
    return ["x-api-key", credential.value];
  return ["authorization", `Bearer ${credential.value}`];
}

/**
 * The variables the CLI gets for its credential: the dummy under the variable the CLI reads. claude reads
 * the credential's own variable; codex gets the dummy under both of its variables (the proxy's provider
 * reads `OPENAI_API_KEY`, and `CODEX_API_KEY` must not keep a real value from the base environment).
 */
export function dummyCredentialEnv(credential: ModelCredential): Record<string, string> {
  if (credential.runtime === "codex")
    return { OPENAI_API_KEY: DUMMY_CREDENTIAL, CODEX_API_KEY: DUMMY_CREDENTIAL };
  return { [credential.variable]: DUMMY_CREDENTIAL };
}
