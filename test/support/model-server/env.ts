/**
 * The environment that points the real `claude` CLI at a scripted model server, offline
 * (research/fake-model.md §2.1, §2.4).
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
