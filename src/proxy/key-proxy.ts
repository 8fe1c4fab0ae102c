/**
 * The loopback key proxy (SPEC §9; research/security.md §3.4, §4.3 — the answer `openai/codex-action`
 * gives): the model credential lives only in this process's memory, and each model CLI gets the proxy's
 * base URL and a dummy key instead. A tool the model runs can read the CLI's environment and
 * `/proc/<cli>/environ`, and finds only the dummy and the proxy's address.
 *
 * - Listens on `127.0.0.1`, a random port, under a random per-proxy path prefix
 *   (`http://127.0.0.1:<port>/<32 base64url characters>`): a request outside the prefix is refused 403.
 * - Forwards only the model API's routes (`model-routes.ts`): anything else is refused 404 (405 for a model
 *   path with another method) and reported through `log` with its method and path, never its body.
 * - Bounds the request body (`maxRequestBytes`, default 32 MiB, the Messages API's own limit): a larger one
 *   is refused 413 before anything is sent upstream.
 * - Removes the CLI's auth header (`x-api-key`, `authorization`) and sets the real one
 *   (`credential.ts`); forwards every other request header except hop-by-hop ones and `host`, and asks for
 *   `accept-encoding: identity`.
 * - Streams a successful answer back unchanged: status, headers (hop-by-hop ones removed) and body bytes as
 *   they arrive, so SSE events reach the CLI when the upstream sends them. An error answer (status ≥ 400,
 *   at most 1 MiB read) is passed with any occurrence of the credential replaced by `***`, in case an
 *   upstream echoes it. A client that disconnects aborts its upstream request.
 * - The upstream is the operator's (`ANTHROPIC_BASE_URL`, a codex provider's `base_url`) or the vendor's
 *   API; it is fixed when the proxy starts, so no request can choose where the credential goes.
 *
 * What it does not do: it cannot stop a process that learns the address (the CLI's environment holds it)
 * from making model calls with the credential until the proxy closes — it keeps the key, not the spending.
 * Requests go straight to the upstream: an `HTTPS_PROXY` in the environment is not used.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import {
  type ClientRequest,
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { codexProxyPairs, OPENAI_API_BASE } from "./codex-provider.js";
import {
  AUTH_HEADERS,
  CREDENTIAL_VARIABLES,
  dummyCredentialEnv,
  type ModelCredential,
  upstreamAuthHeader,
} from "./credential.js";
import { endToEndHeaders, loggablePath, readBoundedBody, readCapped, sendApiError } from "./http-relay.js";
import { type ModelApi, routeDecision } from "./model-routes.js";

/** The Anthropic API, the claude upstream when the operator sets no `ANTHROPIC_BASE_URL`. */
export const ANTHROPIC_API_BASE = "https://api.anthropic.com";

/** The default request-body bound: 32 MiB (the Anthropic Messages API refuses larger requests). */
export const DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** How much of an upstream error body is read (and redacted) before it is passed on. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

export interface KeyProxyOptions {
  /** The real credential and the runtime it is for; it never leaves this process except upstream. */
  readonly credential: ModelCredential;
  /**
   * Where requests go: for claude an `ANTHROPIC_BASE_URL` (default {@link ANTHROPIC_API_BASE}); for codex
   * a provider `base_url` (default {@link OPENAI_API_BASE}). `http:` or `https:`, no user info, query or
   * fragment ({@link upstreamProblem}); a path is kept as the prefix of every forwarded path.
   */
  readonly upstream?: string;
  /**
   * codex only: the operator's provider id (`operatorCodexProvider`) whose `base_url` and `env_key` the
   * proxy's pairs re-point; absent = the proxy defines and selects a provider of its own.
   */
  readonly codexProvider?: string;
  /** The largest request body forwarded, in bytes; default {@link DEFAULT_MAX_REQUEST_BYTES}. */
  readonly maxRequestBytes?: number;
  /** Told about each refused request and each failed upstream call (no body, no credential). */
  readonly log?: (event: KeyProxyEvent) => void;
}

/** What the proxy reports. `path` is relative to the proxy's prefix, without the query, at most 200 characters. */
export type KeyProxyEvent =
  | {
      readonly kind: "refused";
      /** 403 outside the prefix, 404 not a model route, 405 wrong method, 413 body too large. */
      readonly status: 403 | 404 | 405 | 413;
      readonly method: string;
      readonly path: string;
      readonly reason: string;
    }
  | {
      readonly kind: "upstream-failed";
      readonly method: string;
      readonly path: string;
      readonly message: string;
    };

export interface KeyProxy {
  /**
   * The base URL the CLI is given (it holds the path prefix, so treat it as the CLI's, not as public):
   * claude's `ANTHROPIC_BASE_URL`, codex's provider `base_url`.
   */
  readonly baseUrl: string;
  /**
   * Variables for the model CLI's environment: claude `ANTHROPIC_BASE_URL` and the dummy under the
   * credential's variable; codex the dummy as `OPENAI_API_KEY` and `CODEX_API_KEY`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** codex: `-c` pairs to append after the operator's `codex-config` pairs (last wins). claude: empty. */
  readonly codexConfig: readonly string[];
  /**
   * `childEnv` for the CLI: a copy without any credential variable of the runtime and without any
   * variable whose value contains the real credential, with {@link env} set over it.
   */
  applyTo(childEnv: Readonly<Record<string, string>>): Record<string, string>;
  /** Stops listening, ends open connections and aborts upstream requests in flight. */
  close(): Promise<void>;
}

/** Why `url` cannot be a proxy upstream, or `null` when it can. */
export function upstreamProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return `${JSON.stringify(url)} is not an http or https URL`;
  if (parsed.username !== "" || parsed.password !== "")
    return "the URL holds a user name or password: give the credential as the key, not in the URL";
  if (parsed.search !== "" || parsed.hash !== "")
    return `${JSON.stringify(url)} has a query or fragment: give a base URL`;
  return null;
}

/** Whether the first path segment of `path` is `secret` (compared in constant time); the rest, or null. */
function afterPrefix(path: string, secret: Buffer): string | null {
  const match = /^\/([^/]*)(\/.*)?$/.exec(path);
  if (match === null) return null;
  const given = Buffer.from(match[1] ?? "", "utf8");
  if (given.length !== secret.length || !timingSafeEqual(given, secret)) return null;
  return match[2] ?? "/";
}

/** What one running proxy knows: fixed when it starts. */
interface ProxyState {
  readonly api: ModelApi;
  readonly credential: ModelCredential;
  readonly upstream: URL;
  /** The upstream's path without a trailing `/`: the prefix of every forwarded path. */
  readonly upstreamPath: string;
  readonly secret: Buffer;
  readonly maxRequestBytes: number;
  readonly log: (event: KeyProxyEvent) => void;
  readonly agent: HttpAgent;
  readonly send: typeof httpRequest;
  readonly inFlight: Set<ClientRequest>;
}

type Refusal = Omit<Extract<KeyProxyEvent, { kind: "refused" }>, "kind">;

function refuse(
  state: ProxyState,
  request: IncomingMessage,
  response: ServerResponse,
  refusal: Refusal,
): void {
  request.resume();
  state.log({ kind: "refused", ...refusal });
  sendApiError(response, state.api, refusal.status, refusal.reason);
}

/** Answers one request: refused (prefix, route, size), claude's probe, or forwarded. */
async function handle(state: ProxyState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = request.method ?? "";
  const raw = request.url ?? "/";
  const queryAt = raw.indexOf("?");
  const path = afterPrefix(queryAt < 0 ? raw : raw.slice(0, queryAt), state.secret);
  const query = queryAt < 0 ? "" : raw.slice(queryAt);
  if (path === null) {
    const reason = "the path is not under this proxy's prefix";
    return refuse(state, request, response, {
      status: 403,
      method,
      path: "(outside this proxy's prefix)",
      reason,
    });
  }
  // claude's connectivity probe (sent unless CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1): answered here.
  if (state.api === "anthropic" && path === "/api/hello" && (method === "HEAD" || method === "GET")) {
    request.resume();
    response.writeHead(200).end();
    return;
  }
  const decision = routeDecision(state.api, method, path);
  if (decision !== "allowed") {
    return refuse(state, request, response, {
      status: decision === "wrong-method" ? 405 : 404,
      method,
      path: loggablePath(path),
      reason:
        decision === "wrong-method"
          ? `${method} is not allowed on this model API path`
          : "not a model API path: only the model API is forwarded",
    });
  }
  const read = await readBoundedBody(request, state.maxRequestBytes);
  if (read.kind === "too-large") {
    const reason = `the request body is larger than ${state.maxRequestBytes} bytes`;
    return refuse(state, request, response, { status: 413, method, path: loggablePath(path), reason });
  }
  forward(state, { request, response }, { path, query, body: read.body });
}

/** Sends an allowed request upstream with the real credential and relays the answer. */
function forward(
  state: ProxyState,
  exchange: { readonly request: IncomingMessage; readonly response: ServerResponse },
  target: { readonly path: string; readonly query: string; readonly body: Buffer },
  retried = false,
): void {
  const { request, response } = exchange;
  const url = new URL(state.upstream.href);
  url.pathname = `${state.upstreamPath}${target.path}`;
  url.search = target.query;
  const headers = endToEndHeaders(request.headers, [
    "host",
    "content-length",
    "accept-encoding",
    ...AUTH_HEADERS,
  ]);
  const [authName, authValue] = upstreamAuthHeader(state.credential);
  headers[authName] = authValue;
  headers["accept-encoding"] = "identity";
  headers["content-length"] = String(target.body.length);
  const outgoing = state.send(url, { method: request.method, headers, agent: state.agent });
  state.inFlight.add(outgoing);
  response.on("close", () => {
    if (!response.writableFinished) outgoing.destroy();
    state.inFlight.delete(outgoing);
  });
  outgoing.on("error", (error: NodeJS.ErrnoException) => {
    state.inFlight.delete(outgoing);
    if (response.writableEnded || response.destroyed) return;
    // A kept-alive socket the upstream closed as this request went out: nothing reached the upstream's
    // handler, so the request is sent once more on a fresh socket (Node's http docs, `request.reusedSocket`).
    if (!retried && outgoing.reusedSocket && error.code === "ECONNRESET" && !response.headersSent)
      return forward(state, exchange, target, true);
    const message = `the upstream ${state.upstream.origin} could not be reached (${error.message})`;
    state.log({
      kind: "upstream-failed",
      method: request.method ?? "",
      path: loggablePath(target.path),
      message,
    });
    sendApiError(response, state.api, 502, message);
  });
  outgoing.on("response", (answer) => relay(state, answer, response));
  outgoing.end(target.body);
}

/** A success streams through unchanged; an error body is read (bounded) and any echoed credential replaced. */
function relay(state: ProxyState, answer: IncomingMessage, response: ServerResponse): void {
  const status = answer.statusCode ?? 502;
  const headers = endToEndHeaders(answer.headers, []);
  if (status < 400) {
    response.writeHead(status, headers);
    answer.on("error", () => response.destroy());
    answer.pipe(response);
    return;
  }
  readCapped(answer, MAX_ERROR_BODY_BYTES).then(
    (raw) => {
      const body = Buffer.from(raw.toString("latin1").split(state.credential.value).join("***"), "latin1");
      response.writeHead(status, { ...headers, "content-length": String(body.length) });
      response.end(body);
    },
    () => response.destroy(),
  );
}

/** The upstream (origin and path, no credential) of each proxy listening in this process, by its `host:port`. */
const LIVE_UPSTREAMS = new Map<string, string>();

/**
 * The model API a listening key proxy at `host` (`127.0.0.1:PORT`, as a CLI names its base URL's host)
 * relays to — the operator's `ANTHROPIC_BASE_URL` / provider `base_url`, else the vendor's API — or
 * `undefined` when no proxy of this process listens there. A model CLI's error names the proxy's loopback
 * address; this is what the user configured (issue 26).
 */
export function keyProxyUpstream(host: string): string | undefined {
  return LIVE_UPSTREAMS.get(host);
}

/**
 * Starts the proxy for one credential.
 *
 * @returns once it listens on `127.0.0.1` (random port).
 * @throws when `upstream` is not usable ({@link upstreamProblem}: validate operator input first) or the
 *   socket cannot be bound.
 */
export async function startKeyProxy(options: KeyProxyOptions): Promise<KeyProxy> {
  const { credential } = options;
  const api: ModelApi = credential.runtime === "claude" ? "anthropic" : "openai";
  const upstreamText = options.upstream ?? (api === "anthropic" ? ANTHROPIC_API_BASE : OPENAI_API_BASE);
  const problem = upstreamProblem(upstreamText);
  if (problem !== null) throw new Error(`evidence-gate key proxy: the upstream ${problem}`);
  const upstream = new URL(upstreamText);
  const https = upstream.protocol === "https:";
  const secretText = randomBytes(24).toString("base64url");
  const state: ProxyState = {
    api,
    credential,
    upstream,
    upstreamPath: upstream.pathname.replace(/\/+$/, ""),
    secret: Buffer.from(secretText, "utf8"),
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    log: options.log ?? (() => {}),
    agent: https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true }),
    send: https ? httpsRequest : httpRequest,
    inFlight: new Set(),
  };
  const server = createServer((request, response) => {
    handle(state, request, response).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      sendApiError(response, api, 500, `internal error (${message})`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/${secretText}`;
  const host = `127.0.0.1:${port}`;
  LIVE_UPSTREAMS.set(host, `${upstream.origin}${state.upstreamPath}`);
  const env: Record<string, string> =
    credential.runtime === "claude"
      ? { ANTHROPIC_BASE_URL: baseUrl, ...dummyCredentialEnv(credential) }
      : dummyCredentialEnv(credential);
  return {
    baseUrl,
    env,
    codexConfig: credential.runtime === "codex" ? codexProxyPairs(baseUrl, options.codexProvider) : [],
    applyTo: (childEnv) => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(childEnv)) {
        if (CREDENTIAL_VARIABLES[credential.runtime].includes(name.toUpperCase())) continue;
        if (credential.value !== "" && value.includes(credential.value)) continue;
        out[name] = value;
      }
      return { ...out, ...env };
    },
    close: () =>
      new Promise<void>((resolve) => {
        LIVE_UPSTREAMS.delete(host);
        for (const outgoing of state.inFlight) outgoing.destroy();
        state.inFlight.clear();
        server.close(() => resolve());
        server.closeAllConnections();
        state.agent.destroy();
      }),
  };
}
