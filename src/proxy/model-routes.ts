/**
 * Which requests the key proxy forwards (SPEC §9; research/security.md §3.4, §4.3): only the model API a
 * CLI needs, so a process that learns the proxy's address can spend the credential on model calls but not
 * on the rest of the account's API (files, batches, organisation, fine-tuning, admin keys, …).
 *
 * Paths are relative to the base URL the CLI is given (the proxy's per-run prefix removed) and compared
 * exactly, query string excluded; nothing is normalised, so `/v1/messages/../files`, `//v1/messages` or a
 * percent-encoded path never matches. Sources: the paths the pinned CLIs call (research/fake-model.md §1:
 * claude 2.1.332 `POST /v1/messages?beta=true`; codex 0.169.0 `POST <base_url>/responses`), plus the
 * model-API neighbours they may call (token counting, compaction, the model list).
 */

/** The wire API of a runtime: `anthropic` (claude, Anthropic Messages), `openai` (codex, OpenAI Responses). */
export type ModelApi = "anthropic" | "openai";

/** One forwarded route: an HTTP method and an exact path, or a path prefix followed by one id segment. */
interface Route {
  readonly method: "GET" | "POST";
  readonly path: string;
  /** When true, `path` is followed by `/<id>` (letters, digits, `.`, `_`, `:`, `-`). */
  readonly withId?: boolean;
}

const ROUTES: Readonly<Record<ModelApi, readonly Route[]>> = {
  // Relative to ANTHROPIC_BASE_URL (the SDK appends `/v1/...`).
  anthropic: [
    { method: "POST", path: "/v1/messages" },
    { method: "POST", path: "/v1/messages/count_tokens" },
    { method: "GET", path: "/v1/models" },
    { method: "GET", path: "/v1/models", withId: true },
  ],
  // Relative to a codex provider's `base_url` (which already ends in `/v1` upstream).
  openai: [
    { method: "POST", path: "/responses" },
    { method: "POST", path: "/responses/compact" },
    { method: "POST", path: "/chat/completions" },
    { method: "GET", path: "/models" },
    { method: "GET", path: "/models", withId: true },
  ],
};

const ID_SEGMENT = /^\/[A-Za-z0-9._:-]{1,200}$/;

function matches(route: Route, path: string): boolean {
  if (!route.withId) return path === route.path;
  return path.startsWith(route.path) && ID_SEGMENT.test(path.slice(route.path.length));
}

/**
 * Whether `method path` may be forwarded to `api`'s upstream.
 *
 * @param path the request path relative to the CLI's base URL, without the query string.
 * @returns `allowed`; `wrong-method` (405) when the path is a model route but not for this method; or
 *   `not-a-model-route` (404).
 */
export function routeDecision(
  api: ModelApi,
  method: string,
  path: string,
): "allowed" | "wrong-method" | "not-a-model-route" {
  const routes = ROUTES[api].filter((route) => matches(route, path));
  if (routes.length === 0) return "not-a-model-route";
  return routes.some((route) => route.method === method) ? "allowed" : "wrong-method";
}

/** The routes of `api`, as `METHOD path` lines (for messages and documentation). */
export function routeList(api: ModelApi): string[] {
  return ROUTES[api].map((route) => `${route.method} ${route.path}${route.withId ? "/<id>" : ""}`);
}
