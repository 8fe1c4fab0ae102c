/**
 * The environment (and, for codex, the `-c key=value` config) that points a real CLI at a scripted model
 * server, offline (research/fake-model.md §2.1, §2.4, §4.1, §4.6, §4.7).
 */

/** The dummy key the CLI sends; the scripted server accepts any key. */
export const SCRIPTED_API_KEY = "scripted-test-key";

/**
 * Env vars for one CLI run against `serverUrl`, with `home` as its (fresh, temporary) HOME:
 * - `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` alone removes every non-loopback lookup and the probe;
 * - `CLAUDE_CODE_MAX_RETRIES=0` makes an injected 5xx cost one request instead of ~3 minutes of retries
 *   (a 400 is still retried 5 times while the CLI drops betas; that path ignores the setting);
 * - `DISABLE_AUTOUPDATER=1` for good measure.
 * Merge it over a minimal base (e.g. `PATH`); do not inherit the caller's `ANTHROPIC_*` variables.
 */
export function claudeEnvFor(serverUrl: string, home: string): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: serverUrl,
    ANTHROPIC_API_KEY: SCRIPTED_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_MAX_RETRIES: "0",
    DISABLE_AUTOUPDATER: "1",
  };
}

/** The id of the custom model provider `codexConfigFor` defines (`model_providers.<id>`). */
export const SCRIPTED_CODEX_PROVIDER = "scripted";

/**
 * The model slug `codexConfigFor` selects: `gpt-5.5`, the one entry of codex 0.169.0's bundled catalog
 * (`codex debug models --bundled`) in classic tool mode, so the request advertises top-level function
 * tools (`exec_command`, `write_stdin`, …) and the custom `apply_patch`. codex's default slug
 * (`gpt-6.1-sol` on 0.169.0) is code-mode only: its one callable tool is a custom `exec` taking
 * JavaScript. A slug not in the catalog works but adds a "Model metadata for `X` not found" error item.
 */
export const SCRIPTED_CODEX_MODEL = "gpt-5.5";

/**
 * Env vars for one `codex` run, with `codexHome` as both `CODEX_HOME` and `HOME` (fresh and temporary;
 * it must already exist, or codex exits 1 with "Error finding codex home"):
 * - `OPENAI_API_KEY`: the dummy key the scripted provider reads (`env_key`); codex sends it as
 *   `authorization: Bearer …`. No login, no `auth.json`.
 * - `NO_PROXY` / `no_proxy`: the server's host, so a proxy in the caller's environment could never
 *   route the loopback request (the base env should not carry one anyway).
 * The server itself is reached through the `-c` pairs of `codexConfigFor`, not through the environment:
 * measured on 0.169.0, `OPENAI_BASE_URL` is ignored (codex went to the network over WebSockets and then
 * waited for it indefinitely). Merge over a minimal base (e.g. `PATH`); do not inherit `OPENAI_*`/`CODEX_*`.
 */
export function codexEnvFor(serverUrl: string, codexHome: string): Record<string, string> {
  const host = new URL(serverUrl).hostname;
  return {
    HOME: codexHome,
    CODEX_HOME: codexHome,
    OPENAI_API_KEY: SCRIPTED_API_KEY,
    NO_PROXY: host,
    no_proxy: host,
  };
}

/**
 * The `key=value` pairs (TOML values; pass each as `-c PAIR`, or as the lines of the `codex-config`
 * input, SPEC §10) that point codex at the scripted server at `serverUrl`, offline. Measured on
 * codex-cli 0.169.0 with strace (connect/sendto):
 * - a custom provider `scripted`: `base_url = <serverUrl>/v1`, `wire_api = "responses"` (codex then
 *   calls only `POST /v1/responses`, always streaming; no `/models`, no WebSocket),
 *   `env_key = "OPENAI_API_KEY"`;
 * - `request_max_retries = 0`, `stream_max_retries = 0`: a scripted 500 costs one request, not 30 over
 *   ~25 s, and an error turn fails at once;
 * - `model = "gpt-5.5"` (`SCRIPTED_CODEX_MODEL`): classic tools; an explicit `-m` still wins;
 * - `features.plugins = false` (= `--disable plugins`): no DNS for api.github.com and chatgpt.com;
 * - `analytics.enabled = false`: no DNS for ab.chatgpt.com.
 * With all of them a run made no non-loopback connection or DNS query at all. exec performs no update
 * check (none was observed), so there is no key for it.
 */
export function codexConfigFor(serverUrl: string): string[] {
  const provider = `model_providers.${SCRIPTED_CODEX_PROVIDER}`;
  const baseUrl = `${serverUrl.replace(/\/+$/, "")}/v1`;
  return [
    `model_provider=${JSON.stringify(SCRIPTED_CODEX_PROVIDER)}`,
    `${provider}.name="scripted model server"`,
    `${provider}.base_url=${JSON.stringify(baseUrl)}`,
    `${provider}.env_key="OPENAI_API_KEY"`,
    `${provider}.wire_api="responses"`,
    `${provider}.request_max_retries=0`,
    `${provider}.stream_max_retries=0`,
    `model=${JSON.stringify(SCRIPTED_CODEX_MODEL)}`,
    "features.plugins=false",
    "analytics.enabled=false",
  ];
}
