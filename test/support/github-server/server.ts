/**
 * A local GitHub REST API for tests, on loopback and a random port. Every request (path parameters,
 * query, JSON body) is checked against the matching operation of GitHub's official description
 * (`@octokit/openapi`, api.github.com); every response it sends is checked against that operation's
 * response schema for the status. Anything that breaks the contract is answered with an error AND
 * recorded in `violations`, so a test that forgets to look still fails in `assertNoViolations()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AppAuthOptions } from "./app-auth.js";
import { type HttpMethod, OperationContract } from "./contract.js";
import { loadDescription } from "./description.js";
import type { AppFixture } from "./fixtures.js";
import { ARTIFACT_BLOB_PREFIX, ROUTES, type Route, type RouteResponse } from "./routes.js";
import { GitHubServerState } from "./state.js";

/** `OWNER/NAME` of the repository every server holds from the start unless told otherwise. */
export const DEFAULT_REPOSITORY = "octo-org/widgets";

export interface GitHubServerOptions {
  /** `OWNER/NAME` of the repository that exists from the start. Default `octo-org/widgets`. */
  readonly repository?: string;
  /** The app the product's token belongs to. Default: GitHub Actions (id 15368), as for `GITHUB_TOKEN`. */
  readonly app?: AppFixture;
  /** When set, a request without `Authorization: token <token>` (or `Bearer`) is a 401 violation. */
  readonly token?: string;
  /** Web origin used in `html_url`s. Default `https://github.com`. */
  readonly webUrl?: string;
  /**
   * GitHub App authentication (`app-auth.ts`): `/app/…` routes then take the App's JWT (verified against
   * `publicKey`), and every other route an installation token the double issued.
   */
  readonly appAuth?: AppAuthOptions;
}

export interface RecordedCall {
  readonly method: string;
  /** Decoded pathname, e.g. `/repos/octo-org/widgets/check-runs`. */
  readonly path: string;
  /** The description's path template, or `null` for an unknown route. */
  readonly route: string | null;
  readonly operationId: string | null;
  readonly query: Record<string, string>;
  readonly body: unknown;
  readonly status: number;
  /** True when `failNext` produced this response. */
  readonly injected: boolean;
  readonly authorization: string | undefined;
}

/** A download from the stand-in blob storage an artifact download redirects to (not an API call). */
export interface BlobRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** Must stay `undefined`: the token is for the API, never for the storage URL. */
  readonly authorization: string | undefined;
}

export interface Violation {
  readonly kind: "route" | "request" | "response" | "auth";
  readonly method: string;
  readonly path: string;
  readonly operationId: string | null;
  readonly errors: readonly string[];
}

export interface FaultSpec {
  /** Default: any method. */
  readonly method?: string;
  /** A description path template (`/repos/{owner}/{repo}/check-runs`), a concrete path, or a RegExp on the path. */
  readonly pathPattern: string | RegExp;
  readonly status: number;
  /** How many matching requests fail. Default 1. */
  readonly times?: number;
  /** Only requests whose parsed JSON body this accepts match (e.g. only the PATCH that completes). */
  readonly bodyMatches?: (body: unknown) => boolean;
  readonly headers?: Record<string, string>;
  /** Default: GitHub's error shape with a message typical for the status. */
  readonly body?: unknown;
  /**
   * Carry the request out first, then answer the fault instead of its response: a gateway that timed out
   * after GitHub did the write (a retried create must not make a second check run). Default false.
   */
  readonly afterHandling?: boolean;
}

export interface GitHubServer {
  /** e.g. `http://127.0.0.1:43127` — pass as Octokit `baseUrl` / `GITHUB_API_URL`. */
  readonly url: string;
  readonly calls: RecordedCall[];
  readonly violations: Violation[];
  /** Downloads from the artifact blob storage stand-in (redirect targets of `actions/download-artifact`). */
  readonly blobRequests: BlobRequest[];
  readonly state: GitHubServerState;
  failNext(fault: FaultSpec): void;
  /** Calls matching a method and description path template, in order. */
  callsTo(method: string, route: string): RecordedCall[];
  /** Throws, listing every violation, unless there are none. */
  assertNoViolations(): void;
  close(): Promise<void>;
}

interface CompiledRoute {
  readonly route: Route;
  readonly contract: OperationContract;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

const DEFAULT_FAULT_MESSAGES: Record<number, string> = {
  401: "Bad credentials",
  403: "Resource not accessible by integration",
  404: "Not Found",
  422: "Validation Failed",
  429: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
  500: "Server Error",
  502: "Server Error",
  503: "Service Unavailable",
};

function compileRoute(route: Route): CompiledRoute {
  const contract = new OperationContract(route.method, route.template);
  const names: string[] = [];
  const source = route.template
    .split("/")
    .map((segment) => {
      const match = /^\{(.+)\}$/.exec(segment);
      if (match === null) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(match[1]!);
      return contract.isMultiSegment(match[1]!) ? "(.+)" : "([^/]+)";
    })
    .join("/");
  return { route, contract, pattern: new RegExp(`^${source}$`), names };
}

let compiledRoutes: readonly CompiledRoute[] | undefined;

/** Which description template a path would match, for a helpful "no handler" message. */
function describeUnknownRoute(method: string, path: string): string {
  const paths = loadDescription().paths;
  for (const [template, operations] of Object.entries(paths)) {
    const source = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
    if (new RegExp(`^${source}$`).test(path)) {
      const op = operations[method.toLowerCase()];
      return op === undefined
        ? `${method} is not an operation of ${template} in GitHub's REST API description`
        : `${op.operationId} (${method} ${template}) exists in GitHub's description but this double has no handler; add one to test/support/github-server/routes.ts`;
    }
  }
  return `${method} ${path} is not in GitHub's REST API description`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startGitHubServer(options: GitHubServerOptions = {}): Promise<GitHubServer> {
  compiledRoutes ??= ROUTES.map(compileRoute);
  const routes = compiledRoutes;
  const state = new GitHubServerState({
    defaultRepository: options.repository ?? DEFAULT_REPOSITORY,
    ...(options.app === undefined ? {} : { app: options.app }),
    ...(options.appAuth === undefined ? {} : { appAuth: options.appAuth }),
  });
  const calls: RecordedCall[] = [];
  const violations: Violation[] = [];
  const blobRequests: BlobRequest[] = [];
  const faults: { spec: FaultSpec; remaining: number }[] = [];
  let url = "";
  const webUrl = options.webUrl ?? "https://github.com";

  const takeFault = (
    method: string,
    path: string,
    template: string | null,
    body: unknown,
  ): FaultSpec | undefined => {
    const entry = faults.find(({ spec, remaining }) => {
      if (remaining <= 0) return false;
      if (spec.method !== undefined && spec.method.toUpperCase() !== method) return false;
      if (spec.bodyMatches !== undefined && !spec.bodyMatches(body)) return false;
      const p = spec.pathPattern;
      return typeof p === "string" ? p === path || p === template : p.test(path);
    });
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    return entry.spec;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? "GET").toUpperCase();
    const requestUrl = new URL(req.url ?? "/", url);
    const rawPath = requestUrl.pathname;
    const path = decodeURIComponent(rawPath);
    const query: Record<string, string> = {};
    const queryErrors: string[] = [];
    for (const [name, value] of requestUrl.searchParams) {
      if (name in query) queryErrors.push(`query/${name}: given more than once`);
      else query[name] = value;
    }
    const authorization = req.headers.authorization;
    const text = await readBody(req);

    // The artifact blob storage stand-in: outside the API (and its description), as on GitHub, where the
    // redirect leads to another host. Its signed URL is the only credential it takes.
    if (path.startsWith(ARTIFACT_BLOB_PREFIX)) {
      const id = Number(/^(\d+)\.zip$/.exec(path.slice(ARTIFACT_BLOB_PREFIX.length))?.[1]);
      const artifact = Number.isSafeInteger(id) ? state.artifact(id) : undefined;
      const ok =
        method === "GET" &&
        artifact !== undefined &&
        requestUrl.searchParams.get("sig") === artifact.signature;
      blobRequests.push({ method, path, status: ok ? 200 : 403, authorization });
      if (!ok || artifact === undefined) {
        res.writeHead(403, { "content-type": "application/xml" });
        res.end("<Error><Code>AuthenticationFailed</Code></Error>");
        return;
      }
      res.writeHead(200, {
        "content-type": "application/zip",
        "content-length": String(artifact.zip.length),
      });
      res.end(artifact.zip);
      return;
    }

    let matched: { compiled: CompiledRoute; pathParams: Record<string, string> } | undefined;
    for (const compiled of routes) {
      if (compiled.route.method !== method) continue;
      const match = compiled.pattern.exec(rawPath);
      if (match === null) continue;
      const pathParams = Object.fromEntries(
        compiled.names.map((name, i) => [name, decodeURIComponent(match[i + 1] ?? "")]),
      );
      matched = { compiled, pathParams };
      break;
    }

    const operationId = matched?.compiled.contract.operationId ?? null;
    const template = matched?.compiled.route.template ?? null;
    const documentationUrl = matched?.compiled.contract.documentationUrl ?? "https://docs.github.com/rest";
    let body: unknown;
    let injected = false;

    const violate = (kind: Violation["kind"], errors: readonly string[]) => {
      violations.push({ kind, method, path, operationId, errors });
    };
    const finish = (response: RouteResponse) => {
      let { status } = response;
      let payload = response.body;
      if (response.raw === undefined && matched !== undefined) {
        const check = matched.compiled.contract.validateResponse(status, payload);
        if (check.errors.length > 0) {
          violate("response", check.errors);
          status = 500;
          payload = {
            message: `github-server: this response does not match GitHub's description: ${check.errors.join("; ")}`,
            documentation_url: documentationUrl,
          };
        }
      }
      calls.push({
        method,
        path,
        route: template,
        operationId,
        query,
        body,
        status,
        injected,
        authorization,
      });
      const headers: Record<string, string> = {
        "x-github-request-id": `0000:${calls.length}`,
        "x-github-api-version-selected": "2022-11-28",
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": "4999",
        "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
        ...response.headers,
      };
      if (response.raw !== undefined) {
        res.writeHead(status, { ...headers, "content-type": response.raw.contentType });
        res.end(response.raw.text);
      } else if (payload === undefined) {
        res.writeHead(status, headers);
        res.end();
      } else {
        res.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(payload));
      }
    };
    const refuse = (status: number, message: string, errors: readonly string[]) =>
      finish({
        status,
        body: {
          message,
          documentation_url: documentationUrl,
          status: String(status),
          ...(status === 422
            ? {
                errors: errors.map((e) => ({
                  resource: operationId ?? "Request",
                  code: "invalid",
                  message: e,
                })),
              }
            : {}),
        },
      });

    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        violate("request", ["body: not valid JSON"]);
        return refuse(400, "Problems parsing JSON", ["body: not valid JSON"]);
      }
    }
    if (matched === undefined) {
      violate("route", [describeUnknownRoute(method, path)]);
      return refuse(404, "Not Found", []);
    }
    if (state.appAuth !== null) {
      const problem = matched.compiled.route.template.startsWith("/app/")
        ? state.appAuth.jwtProblem(authorization)
        : state.appAuth.tokenProblem(authorization);
      if (problem !== null) {
        violate("auth", [problem]);
        return refuse(401, "Bad credentials", []);
      }
    }
    if (options.token !== undefined) {
      const given = /^(?:token|bearer)\s+(.+)$/i.exec(authorization ?? "")?.[1];
      if (given !== options.token) {
        violate("auth", [authorization === undefined ? "no Authorization header" : "wrong token"]);
        return refuse(401, "Bad credentials", []);
      }
    }

    const check = matched.compiled.contract.validateRequest({ pathParams: matched.pathParams, query, body });
    const requestErrors = [...queryErrors, ...check.errors];
    if (requestErrors.length > 0) {
      violate("request", requestErrors);
      return refuse(422, "Validation Failed", requestErrors);
    }

    const fault = takeFault(method, path, template, body);
    if (fault?.afterHandling === true) {
      const done = matched.compiled.route.handle(
        { params: check.params, query: check.query, body, headers: req.headers, url: requestUrl },
        { state, origins: { api: url, web: webUrl }, documentationUrl },
      );
      if (done.violation !== undefined) violate("request", [done.violation]);
    }
    if (fault !== undefined) {
      injected = true;
      return finish({
        status: fault.status,
        body: fault.body ?? {
          message: DEFAULT_FAULT_MESSAGES[fault.status] ?? "Error",
          documentation_url: documentationUrl,
          status: String(fault.status),
        },
        ...(fault.headers === undefined ? {} : { headers: fault.headers }),
      });
    }

    const response = matched.compiled.route.handle(
      { params: check.params, query: check.query, body, headers: req.headers, url: requestUrl },
      { state, origins: { api: url, web: webUrl }, documentationUrl },
    );
    if (response.violation !== undefined) violate("request", [response.violation]);
    return finish(response);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      violations.push({
        kind: "response",
        method: req.method ?? "?",
        path: req.url ?? "?",
        operationId: null,
        errors: [`github-server crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`],
      });
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
      res.end(
        JSON.stringify({
          message: "github-server crashed",
          documentation_url: "https://docs.github.com/rest",
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    calls,
    violations,
    blobRequests,
    state,
    failNext(fault) {
      faults.push({ spec: fault, remaining: fault.times ?? 1 });
    },
    callsTo(m, route) {
      return calls.filter((c) => c.method === m.toUpperCase() && c.route === route);
    },
    assertNoViolations() {
      if (violations.length === 0) return;
      const lines = violations.map(
        (v) =>
          `- ${v.kind} ${v.method} ${v.path}${v.operationId ? ` (${v.operationId})` : ""}:\n    ${v.errors.join("\n    ")}`,
      );
      throw new Error(`GitHub API contract violations (${violations.length}):\n${lines.join("\n")}`);
    },
    close() {
      return new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      });
    },
  };
}

export type { HttpMethod };
