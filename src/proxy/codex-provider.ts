/**
 * How codex is pointed at the key proxy (codex-cli 0.169.0; research/fake-model.md §1, §4.7;
 * test/support/model-server/env.ts). Measured there: `OPENAI_BASE_URL` is ignored by 0.169.0 (it went to
 * the network over WebSockets), while a provider table given with `-c` is honoured — `base_url`, `env_key`
 * (the variable whose value is sent as `authorization: Bearer …`) and `wire_api = "responses"` (codex then
 * calls only `POST <base_url>/responses`, streaming). `-c` pairs are applied in order and the last one for
 * a key wins, so these pairs go after the operator's `codex-config` pairs.
 *
 * Two cases:
 * - no provider of the operator's: a provider {@link PROXY_PROVIDER_ID} is defined and selected
 *   (`model_provider`), upstream `https://api.openai.com/v1`;
 * - the operator's `codex-config` selects a provider of its own (`model_provider="gw"` with
 *   `model_providers.gw.base_url=…`): that provider's `base_url` becomes the proxy's upstream, and only its
 *   `base_url` and `env_key` are re-pointed; its other keys (`wire_api`, `query_params`, `http_headers`, …)
 *   stay, and the headers they add pass through the proxy.
 */

/** The id of the provider the proxy defines when the operator names none. */
export const PROXY_PROVIDER_ID = "evidence-gate-key-proxy";

/** OpenAI's Responses API base, the upstream when no provider of the operator's gives one. */
export const OPENAI_API_BASE = "https://api.openai.com/v1";

/** The variable the re-pointed provider reads its (dummy) key from. */
const PROXY_ENV_KEY = "OPENAI_API_KEY";

/** Built-in codex providers: never re-pointed (codex owns their tables); a proxy provider replaces them. */
const BUILT_IN_PROVIDERS: ReadonlySet<string> = new Set(["openai"]);

/** A TOML key segment: bare when it can be, else a basic string. */
function keySegment(id: string): string {
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : JSON.stringify(id);
}

/**
 * The `-c` pairs that send codex's model requests to the proxy at `baseUrl`.
 *
 * @param provider the operator's provider id to re-point, or `undefined` to define and select
 *   {@link PROXY_PROVIDER_ID}.
 */
export function codexProxyPairs(baseUrl: string, provider: string | undefined): string[] {
  const pairs = proxyPairs(baseUrl, provider);
  for (const pair of pairs) issuedPairs.add(pair);
  return pairs;
}

/** Every pair {@link codexProxyPairs} returned in this process ({@link isProxyProviderPair}). */
const issuedPairs = new Set<string>();

function proxyPairs(baseUrl: string, provider: string | undefined): string[] {
  if (provider !== undefined && !BUILT_IN_PROVIDERS.has(provider)) {
    const table = `model_providers.${keySegment(provider)}`;
    return [
      `${table}.base_url=${JSON.stringify(baseUrl)}`,
      `${table}.env_key=${JSON.stringify(PROXY_ENV_KEY)}`,
    ];
  }
  const table = `model_providers.${PROXY_PROVIDER_ID}`;
  return [
    `model_provider=${JSON.stringify(PROXY_PROVIDER_ID)}`,
    `${table}.name="evidence-gate key proxy"`,
    `${table}.base_url=${JSON.stringify(baseUrl)}`,
    `${table}.env_key=${JSON.stringify(PROXY_ENV_KEY)}`,
    `${table}.wire_api="responses"`,
  ];
}

/** The operator's codex provider, as `codex-config` selects it. */
export type OperatorCodexProvider =
  | { readonly kind: "none" }
  | { readonly kind: "provider"; readonly id: string; readonly baseUrl: string }
  | { readonly kind: "unusable"; readonly problem: string };

/** A `-c` VALUE as codex reads it: a TOML basic or literal string, else the text itself. */
function tomlString(value: string): string {
  const v = value.trim();
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1);
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (typeof parsed === "string") return parsed;
    } catch {
      // not a JSON-compatible basic string: taken as written below
    }
    return v.slice(1, -1);
  }
  return v;
}

/** `key` split into its dotted segments, quotes removed (`model_providers."my gw".base_url`). */
function segments(key: string): string[] {
  return [...key.matchAll(/"([^"\n]*)"|'([^'\n]*)'|([^."']+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/**
 * The provider the operator's `codex-config` pairs select (the last `model_provider=` wins, as in codex),
 * with the `base_url` its pairs give it. `none` when no pair selects a provider, or when the selected one
 * is codex's built-in `openai` (the proxy then stands in for it, upstream {@link OPENAI_API_BASE}).
 * `unusable` when a custom provider is selected without a `base_url` in the pairs (it may come from a
 * `config.toml` the proxy cannot see), so the caller can refuse rather than guess.
 *
 * @param pairs `KEY=VALUE` lines as `parseCodexConfig` returns them.
 */
export function operatorCodexProvider(pairs: readonly string[]): OperatorCodexProvider {
  let selected: string | undefined;
  const baseUrls = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const key = segments(pair.slice(0, eq).trim());
    const value = tomlString(pair.slice(eq + 1));
    if (key.length === 1 && key[0] === "model_provider") selected = value;
    if (key.length === 3 && key[0] === "model_providers" && key[2] === "base_url")
      baseUrls.set(key[1]!, value);
  }
  if (selected === undefined || BUILT_IN_PROVIDERS.has(selected)) return { kind: "none" };
  const baseUrl = baseUrls.get(selected);
  if (baseUrl === undefined)
    return {
      kind: "unusable",
      problem: `codex-config selects provider ${JSON.stringify(selected)} but gives it no base_url (model_providers.${keySegment(selected)}.base_url=…): the key proxy needs it as its upstream`,
    };
  return { kind: "provider", id: selected, baseUrl };
}

/**
 * True for a `-c` pair {@link codexProxyPairs} made in this process: the run adds these on every leg, so
 * `state.json` does not record their keys as pairs a resumed leg must be given. Told by identity, not by
 * shape: an operator's pair that re-points their own provider looks the same, but never carries this
 * process's loopback proxy URL (random port, per-run path).
 */
export function isProxyProviderPair(pair: string): boolean {
  return issuedPairs.has(pair);
}
