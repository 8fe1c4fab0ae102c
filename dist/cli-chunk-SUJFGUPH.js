#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  CHECK_RUN_TEXT_MAX_BYTES,
  renderCheckRunOutput,
  trimmedNotice,
  truncateUtf8,
  utf8Bytes
} from "./cli-chunk-QIRV2OXE.js";
import {
  Octokit,
  legacyRestEndpointMethods,
  paginateRest,
  requestLog,
  require_light,
  retry
} from "./cli-chunk-NXCD5NAZ.js";
import {
  isRunId
} from "./cli-chunk-65TFX77S.js";
import {
  redactTokenShapes
} from "./cli-chunk-Q4DFSTE5.js";
import {
  __toESM
} from "./cli-chunk-VKCPXAXI.js";

// src/github/check-run-error.ts
var CheckRunWriteError = class extends Error {
  name = "CheckRunWriteError";
  /** HTTP status; `undefined` when no response arrived (network failure). */
  status;
  request;
  /** GitHub's own `message` (and validation `errors`), when it sent one. */
  githubMessage;
  constructor(init) {
    super(init.message, { cause: init.cause });
    this.status = init.status;
    this.request = init.request;
    this.githubMessage = init.githubMessage;
  }
  /**
   * True when GitHub refused the token — 401 (bad credentials), 403 or 404 (no `checks: write`, or no
   * access to the repository: GitHub answers 404 for a repository the token may not see) — but not a
   * rate limit (a 403 or 429 saying so: retrying later is the fix). What the operator must change, not a
   * failed run: the CLI exits 64 on it before anything runs (SPEC §10), as the action's other token
   * refusals end `usage-error`.
   */
  get tokenRefused() {
    const status = this.status;
    if (status !== 401 && status !== 403 && status !== 404) return false;
    return !RATE_LIMITED.test(this.githubMessage ?? "");
  }
};
var RATE_LIMITED = /rate limit/i;
function checkRunWriteError(call) {
  const error = call.cause;
  const hasResponse = error?.response !== void 0;
  const status = typeof error?.status === "number" && hasResponse ? error.status : void 0;
  const notTheApi = hasResponse ? notGitHubJson(error?.response) : null;
  const githubMessage = notTheApi !== null ? void 0 : githubMessageOf(call.cause) ?? (typeof error?.message === "string" ? error.message : void 0);
  const [method = "", path = ""] = call.route.split(" ");
  const url = error?.request?.url;
  return new CheckRunWriteError({
    message: notTheApi !== null ? `${call.what}: ${originOf(url) ?? "the server"} answered ${status ?? "without a status"} with ${notTheApi}, not the GitHub API's JSON. ${API_ROOT_HINT}` : describeFailure(call, status, githubMessage, hasResponse, url),
    status,
    request: {
      operation: call.operation,
      method: error?.request?.method ?? method,
      url: error?.request?.url ?? path,
      body: call.body
    },
    githubMessage,
    cause: call.cause
  });
}
function githubMessageOf(error) {
  const data = error?.response?.data;
  if (typeof data !== "object" || data === null) return void 0;
  const { message, errors } = data;
  if (typeof message !== "string") return void 0;
  if (!Array.isArray(errors) || errors.length === 0) return message;
  const details = errors.map(
    (e) => typeof e === "object" && e !== null && "message" in e ? String(e.message) : JSON.stringify(e)
  );
  return `${message}: ${details.join("; ")}`;
}
function describeFailure(call, status, githubMessage, hasResponse, url) {
  const { what } = call;
  if (!hasResponse) {
    const origin = originOf(url);
    const where = origin === null ? "" : ` at ${origin}`;
    return `${what}: no answer from the GitHub API${where} (${githubMessage ?? "network error"}). ${API_ROOT_HINT}`;
  }
  const said = githubMessage === void 0 ? "" : ` "${githubMessage}"`;
  const answered = `${what}: GitHub answered ${status}${said}.`;
  if ((status === 403 || status === 429) && RATE_LIMITED.test(githubMessage ?? "")) {
    return `${answered} The API rate limit was hit and the retries ran out; run the job again later.`;
  }
  if (status === 401 && call.surface === "cli") {
    return `${answered} GitHub did not accept the token the CLI uses (GITHUB_TOKEN, else GH_TOKEN): it is expired, revoked or mistyped; give a current token with \`checks: write\` on the repository.`;
  }
  if ((status === 403 || status === 404) && call.surface === "cli") {
    const reading = call.operation === "find" || call.operation === "get";
    return `${answered} ${reading ? "Listing or reading" : "Writing"} check runs there needs the token the CLI uses (GITHUB_TOKEN, else GH_TOKEN) to have \`checks: write\` on the repository: a fine-grained token with the Checks permission set to read and write on that repository, or a classic token with the \`repo\` scope (GitHub docs: REST API endpoints for check runs). A GitHub Actions GITHUB_TOKEN needs \`permissions: { checks: write }\` on its job; on a pull request from a fork it is read-only.`;
  }
  if (status === 403 || status === 404) {
    return `${answered} Writing check runs needs the token permission \`checks: write\`: add \`permissions: { checks: write }\` to the job (a GitHub App needs the Checks write permission). On a pull request from a fork the GITHUB_TOKEN is read-only whatever the workflow asks for: use the two-stage mode there (this workflow uploads the ledger artifact, and a \`workflow_run\` workflow on the base repository posts it with \`mode: report\`).`;
  }
  return answered;
}
var API_ROOT_HINT = "The API root comes from GITHUB_API_URL (https://api.github.com when it is not set; on GHES https://HOST/api/v3): check it and the network, then run again.";
function notGitHubJson(response) {
  const type = response?.headers?.["content-type"];
  const contentType = typeof type === "string" ? type.split(";")[0].trim().toLowerCase() : "";
  if (contentType.endsWith("json")) return null;
  if (contentType === "" && (typeof response?.data !== "string" || response.data === "")) return null;
  return contentType === "text/html" ? "an HTML page (text/html)" : `a ${contentType || "non-JSON"} body`;
}
function originOf(url) {
  if (url === void 0) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

// node_modules/@octokit/plugin-throttling/dist-bundle/index.js
var import_light = __toESM(require_light(), 1);
var VERSION = "0.0.0-development";
var noop = () => Promise.resolve();
function wrapRequest(state, request, options) {
  return state.retryLimiter.schedule(doRequest, state, request, options);
}
async function doRequest(state, request, options) {
  const { pathname } = new URL(options.url, "http://github.test");
  const isAuth = isAuthRequest(options.method, pathname);
  const isWrite = !isAuth && options.method !== "GET" && options.method !== "HEAD";
  const isSearch = options.method === "GET" && pathname.startsWith("/search/");
  const isGraphQL = pathname.startsWith("/graphql");
  const retryCount = ~~request.retryCount;
  const jobOptions = retryCount > 0 ? { priority: 0, weight: 0 } : {};
  if (state.clustering) {
    jobOptions.expiration = 1e3 * 60;
  }
  if (isWrite || isGraphQL) {
    await state.write.key(state.id).schedule(jobOptions, noop);
  }
  if (isWrite && state.triggersNotification(pathname)) {
    await state.notifications.key(state.id).schedule(jobOptions, noop);
  }
  if (isSearch) {
    await state.search.key(state.id).schedule(jobOptions, noop);
  }
  const req = (isAuth ? state.auth : state.global).key(state.id).schedule(jobOptions, request, options);
  if (isGraphQL) {
    const res = await req;
    if (res.data.errors != null && res.data.errors.some((error) => error.type === "RATE_LIMITED")) {
      const error = Object.assign(new Error("GraphQL Rate Limit Exceeded"), {
        response: res,
        data: res.data
      });
      throw error;
    }
  }
  return req;
}
function isAuthRequest(method, pathname) {
  return method === "PATCH" && // https://docs.github.com/en/rest/apps/apps?apiVersion=2022-11-28#create-a-scoped-access-token
  /^\/applications\/[^/]+\/token\/scoped$/.test(pathname) || method === "POST" && // https://docs.github.com/en/rest/apps/oauth-applications?apiVersion=2022-11-28#reset-a-token
  (/^\/applications\/[^/]+\/token$/.test(pathname) || // https://docs.github.com/en/rest/apps/apps?apiVersion=2022-11-28#create-an-installation-access-token-for-an-app
  /^\/app\/installations\/[^/]+\/access_tokens$/.test(pathname) || // https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
  pathname === "/login/oauth/access_token");
}
var triggers_notification_paths_default = [
  "/orgs/{org}/invitations",
  "/orgs/{org}/invitations/{invitation_id}",
  "/orgs/{org}/teams/{team_slug}/discussions",
  "/orgs/{org}/teams/{team_slug}/discussions/{discussion_number}/comments",
  "/repos/{owner}/{repo}/collaborators/{username}",
  "/repos/{owner}/{repo}/commits/{commit_sha}/comments",
  "/repos/{owner}/{repo}/issues",
  "/repos/{owner}/{repo}/issues/{issue_number}/comments",
  "/repos/{owner}/{repo}/issues/{issue_number}/sub_issue",
  "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues/priority",
  "/repos/{owner}/{repo}/pulls",
  "/repos/{owner}/{repo}/pulls/{pull_number}/comments",
  "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
  "/repos/{owner}/{repo}/pulls/{pull_number}/merge",
  "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers",
  "/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
  "/repos/{owner}/{repo}/releases",
  "/teams/{team_id}/discussions",
  "/teams/{team_id}/discussions/{discussion_number}/comments"
];
function routeMatcher(paths) {
  const regexes = paths.map(
    (path) => path.split("/").map((c) => c.startsWith("{") ? "(?:.+?)" : c).join("/")
  );
  const regex2 = `^(?:${regexes.map((r) => `(?:${r})`).join("|")})[^/]*$`;
  return new RegExp(regex2, "i");
}
var regex = routeMatcher(triggers_notification_paths_default);
var triggersNotification = regex.test.bind(regex);
var groups = {};
var createGroups = function(Bottleneck, common) {
  groups.global = new Bottleneck.Group({
    id: "octokit-global",
    maxConcurrent: 10,
    ...common
  });
  groups.auth = new Bottleneck.Group({
    id: "octokit-auth",
    maxConcurrent: 1,
    ...common
  });
  groups.search = new Bottleneck.Group({
    id: "octokit-search",
    maxConcurrent: 1,
    minTime: 2e3,
    ...common
  });
  groups.write = new Bottleneck.Group({
    id: "octokit-write",
    maxConcurrent: 1,
    minTime: 1e3,
    ...common
  });
  groups.notifications = new Bottleneck.Group({
    id: "octokit-notifications",
    maxConcurrent: 1,
    minTime: 3e3,
    ...common
  });
};
function throttling(octokit, octokitOptions) {
  const {
    enabled = true,
    Bottleneck = import_light.default,
    id = "no-id",
    timeout = 1e3 * 60 * 2,
    // Redis TTL: 2 minutes
    connection
  } = octokitOptions.throttle || {};
  if (!enabled) {
    return {};
  }
  const common = { timeout };
  if (typeof connection !== "undefined") {
    common.connection = connection;
  }
  const state = Object.assign(
    {
      clustering: connection != null,
      triggersNotification,
      fallbackSecondaryRateRetryAfter: 60,
      retryAfterBaseValue: 1e3,
      id
    },
    octokitOptions.throttle
  );
  if (typeof state.onSecondaryRateLimit !== "function" || typeof state.onRateLimit !== "function") {
    throw new Error(`octokit/plugin-throttling error:
        You must pass the onSecondaryRateLimit and onRateLimit error handlers.
        See https://octokit.github.io/rest.js/#throttling

        const octokit = new Octokit({
          throttle: {
            onSecondaryRateLimit: (retryAfter, options) => {/* ... */},
            onRateLimit: (retryAfter, options) => {/* ... */}
          }
        })
    `);
  }
  let initialized = false;
  const initializeBottleneck = () => {
    if (initialized) {
      return;
    }
    initialized = true;
    if (groups.global == null) {
      createGroups(Bottleneck, common);
    }
    state.global = state.global ?? groups.global;
    state.auth = state.auth ?? groups.auth;
    state.search = state.search ?? groups.search;
    state.write = state.write ?? groups.write;
    state.notifications = state.notifications ?? groups.notifications;
    state.retryLimiter = state.retryLimiter ?? new Bottleneck();
    const events = {};
    const emitter = new Bottleneck.Events(events);
    events.on("secondary-limit", state.onSecondaryRateLimit);
    events.on("rate-limit", state.onRateLimit);
    events.on(
      "error",
      (e) => octokit.log.warn("Error in throttling-plugin limit handler", e)
    );
    state.retryLimiter.on("failed", async function(error, info) {
      const [state2, request, options] = info.args;
      const { pathname } = new URL(options.url, "http://github.test");
      const shouldRetryGraphQL = pathname.startsWith("/graphql") && error.status !== 401;
      if (!(shouldRetryGraphQL || error.status === 403 || error.status === 429)) {
        return;
      }
      const retryCount = ~~request.retryCount;
      request.retryCount = retryCount;
      options.request.retryCount = retryCount;
      const { wantRetry, retryAfter = 0 } = await (async function() {
        if (/\bsecondary rate\b/i.test(error.message)) {
          const retryAfter2 = Number(error.response.headers["retry-after"]) || state2.fallbackSecondaryRateRetryAfter;
          const wantRetry2 = await emitter.trigger(
            "secondary-limit",
            retryAfter2,
            options,
            octokit,
            retryCount
          );
          return { wantRetry: wantRetry2, retryAfter: retryAfter2 };
        }
        if (error.response.headers != null && error.response.headers["x-ratelimit-remaining"] === "0" || (error.response.data?.errors ?? []).some(
          (error2) => error2.type === "RATE_LIMITED"
        )) {
          const rateLimitReset = new Date(
            ~~error.response.headers["x-ratelimit-reset"] * 1e3
          ).getTime();
          const retryAfter2 = Math.max(
            // Add one second so we retry _after_ the reset time
            // https://docs.github.com/en/rest/overview/resources-in-the-rest-api?apiVersion=2022-11-28#exceeding-the-rate-limit
            Math.ceil((rateLimitReset - Date.now()) / 1e3) + 1,
            0
          );
          const wantRetry2 = await emitter.trigger(
            "rate-limit",
            retryAfter2,
            options,
            octokit,
            retryCount
          );
          return { wantRetry: wantRetry2, retryAfter: retryAfter2 };
        }
        return {};
      })();
      if (wantRetry) {
        request.retryCount++;
        return retryAfter * state2.retryAfterBaseValue;
      }
    });
  };
  octokit.hook.wrap("request", (request, options) => {
    initializeBottleneck();
    return wrapRequest(state, request, options);
  });
  return {};
}
throttling.VERSION = VERSION;
throttling.triggersNotification = triggersNotification;

// node_modules/@octokit/rest/dist-src/version.js
var VERSION2 = "22.0.1";

// node_modules/@octokit/rest/dist-src/index.js
var Octokit2 = Octokit.plugin(requestLog, legacyRestEndpointMethods, paginateRest).defaults(
  {
    userAgent: `octokit-rest.js/${VERSION2}`
  }
);

// src/github/octokit.ts
var DEFAULT_API_URL = "https://api.github.com";
var SERVER_ERROR_RETRIES = 3;
var RATE_LIMIT_RETRIES = 2;
var DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];
var INSTALLATION_TOKEN = /\/app\/installations\/(?:\d+|\{installation_id\})\/access_tokens$/;
function tokenRequestsRetriedOutside(octokit) {
  octokit.hook.before("request", (options) => {
    if (options.method === "POST" && INSTALLATION_TOKEN.test(String(options.url ?? ""))) {
      options.request = { ...options.request, retries: 0 };
    }
  });
}
var GateOctokit = Octokit2.plugin(retry, throttling, tokenRequestsRetriedOutside);
var BACKOFF_SECOND_MS_VARIABLE = "EVIDENCE_GATE_BACKOFF_SECOND_MS";
var timings = /* @__PURE__ */ new WeakMap();
function timingFromEnv(env) {
  const raw = env[BACKOFF_SECOND_MS_VARIABLE]?.trim();
  if (raw === void 0 || raw === "") return {};
  if (!/^\d{1,7}$/.test(raw)) {
    throw new Error(
      `${BACKOFF_SECOND_MS_VARIABLE}=${JSON.stringify(raw)} is not a whole number of milliseconds (0\u20139999999): unset it for GitHub's own waits.`
    );
  }
  const ms = Number(raw);
  return { retryBaseMs: ms, rateLimitUnitMs: ms, ...ms < 1e3 ? { spaceWrites: false } : {} };
}
function octokitFromEnv(token, env) {
  return createOctokit({ token, baseUrl: apiUrlFromEnv(env), timing: timingFromEnv(env) });
}
function serverErrorBackoffMs(octokit, retry2) {
  return retry2 * retry2 * (timings.get(octokit)?.retryBaseMs ?? 1e3);
}
function apiUrlFromEnv(env) {
  const value = env.GITHUB_API_URL?.trim();
  return value === void 0 || value === "" ? DEFAULT_API_URL : value;
}
var unspacedWrites = {
  key: () => ({ schedule: (_options, fn) => fn() })
};
var QUIET_REQUEST_LOG = {
  debug: () => {
  },
  info: () => {
  },
  warn: (message) => console.warn(message),
  error: () => {
  }
};
function gateOctokitOptions(options) {
  const timing = options.timing ?? {};
  const log = options.log ?? QUIET_REQUEST_LOG;
  const onLimit = (kind) => (retryAfter, request, _octokit, retryCount) => {
    const cap = options.maxRetryAfterS;
    const tooLong = cap !== void 0 && retryAfter > cap;
    const retrying = retryCount < RATE_LIMIT_RETRIES && !tooLong;
    const what = `GitHub ${kind} rate limit on ${request.method} ${request.url}`;
    const next = tooLong ? `not waiting the ${retryAfter}s GitHub asks for (more than ${cap}s): giving up` : retrying ? `retrying after ${retryAfter}s (retry ${retryCount + 1} of ${RATE_LIMIT_RETRIES})` : `giving up after ${RATE_LIMIT_RETRIES} retries`;
    log.warn(`${what}; ${next}`);
    return retrying;
  };
  return {
    baseUrl: (options.baseUrl ?? DEFAULT_API_URL).replace(/\/+$/, ""),
    userAgent: options.userAgent ?? "evidence-gate",
    log,
    retry: {
      retries: SERVER_ERROR_RETRIES,
      doNotRetry: DO_NOT_RETRY,
      retryAfterBaseValue: timing.retryBaseMs ?? 1e3
    },
    throttle: {
      onRateLimit: onLimit("primary"),
      onSecondaryRateLimit: onLimit("secondary"),
      retryAfterBaseValue: timing.rateLimitUnitMs ?? 1e3,
      ...timing.spaceWrites === false ? { write: unspacedWrites, notifications: unspacedWrites } : {}
    }
  };
}
function createOctokit(options) {
  const octokit = new GateOctokit({ auth: options.token, ...gateOctokitOptions(options) });
  timings.set(octokit, options.timing ?? {});
  return octokit;
}

// src/github/check-run.ts
import { setTimeout as sleep } from "node:timers/promises";

// src/github/check-run-existing.ts
function existingCheckRunOf(data) {
  return {
    id: data.id,
    htmlUrl: data.html_url,
    status: data.status,
    conclusion: data.conclusion,
    externalId: data.external_id,
    appId: data.app?.id ?? null,
    summary: data.output?.summary ?? null,
    annotationsCount: data.output?.annotations_count ?? 0
  };
}

// src/github/check-run-output.ts
var CHECK_RUN_TITLE_MAX_CHARS = 255;
var CHECK_RUN_ANNOTATIONS_PER_REQUEST = 50;
var ANNOTATION_TEXT_MAX_BYTES = 64e3;
var OVERSIZE_NOTICE = "**Cut by evidence-gate:** this text exceeded GitHub's 65535-byte limit for check runs. The full ledger is in the job summary and the run's ledger artifact.";
function clampCheckRunTitle(title) {
  const chars = Array.from(title);
  if (chars.length <= CHECK_RUN_TITLE_MAX_CHARS) return title;
  return `${chars.slice(0, CHECK_RUN_TITLE_MAX_CHARS - 1).join("")}\u2026`;
}
function annotationBatches(items) {
  const out = [];
  for (let i = 0; i < items.length; i += CHECK_RUN_ANNOTATIONS_PER_REQUEST)
    out.push(items.slice(i, i + CHECK_RUN_ANNOTATIONS_PER_REQUEST));
  return out;
}
function checkRunOutput(input, shaping) {
  const { redact } = shaping;
  return {
    title: clampCheckRunTitle(redact(input.title)),
    summary: cutToLimit("summary", redact(input.summary), shaping.warn),
    ...input.text === void 0 ? {} : { text: cutToLimit("text", redact(input.text), shaping.warn) }
  };
}
function annotationObject(a, redact) {
  const oneLine = a.startLine === a.endLine;
  const cut = (text) => truncateUtf8(redact(text), ANNOTATION_TEXT_MAX_BYTES, "\u2026 (cut by evidence-gate: over 64 KB)");
  return {
    path: a.path,
    start_line: a.startLine,
    end_line: a.endLine,
    ...oneLine && a.startColumn !== void 0 ? { start_column: a.startColumn } : {},
    ...oneLine && a.endColumn !== void 0 ? { end_column: a.endColumn } : {},
    annotation_level: a.level,
    message: cut(a.message),
    ...a.title === void 0 ? {} : { title: clampCheckRunTitle(redact(a.title)) },
    ...a.rawDetails === void 0 ? {} : { raw_details: cut(a.rawDetails) }
  };
}
function cutToLimit(field, value, warn) {
  const bytes = utf8Bytes(value);
  if (bytes <= CHECK_RUN_TEXT_MAX_BYTES) return value;
  warn(
    `check run output.${field} was ${bytes} bytes, over GitHub's ${CHECK_RUN_TEXT_MAX_BYTES}; cut here with a notice (the caller should have cut it with the ledger renderer).`
  );
  return truncateUtf8(value, CHECK_RUN_TEXT_MAX_BYTES, OVERSIZE_NOTICE);
}

// src/github/check-run.ts
function githubTimestamp(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
var CheckRunClient = class {
  #octokit;
  #owner;
  #repo;
  #warn;
  #redact;
  #now;
  #surface;
  constructor(options) {
    this.#octokit = options.octokit;
    this.#owner = options.owner;
    this.#repo = options.repo;
    this.#warn = options.warn ?? ((message) => console.warn(message));
    const given = options.redact;
    this.#redact = given === void 0 ? redactTokenShapes : (text) => redactTokenShapes(given(text));
    this.#now = options.now ?? (() => /* @__PURE__ */ new Date());
    this.#surface = options.surface ?? "action";
  }
  /**
   * Creates the check run `in_progress` with `started_at` now. A 5xx or a lost answer is retried (at most
   * {@link SERVER_ERROR_RETRIES} times, waiting on the client's backoff schedule), but never blindly: GitHub
   * may have created the check run before the error, so each retry first looks for a check run named
   * `name` on `headSha` carrying `externalId`, and returns that one when it exists. 4xx is never retried.
   * @throws CheckRunWriteError when GitHub refused, or the retries ran out.
   */
  async create(input) {
    const body = {
      name: input.name,
      head_sha: input.headSha,
      external_id: input.externalId,
      status: "in_progress",
      started_at: githubTimestamp(this.#now()),
      output: this.#output(input),
      ...input.detailsUrl === void 0 ? {} : { details_url: input.detailsUrl }
    };
    const what = `Could not create check run "${input.name}" on ${input.headSha.slice(0, 7)} in ${this.#slug()}`;
    for (let retry2 = 0; ; retry2 += 1) {
      try {
        const { data } = await this.#call(
          "create",
          what,
          "POST /repos/{owner}/{repo}/check-runs",
          body,
          () => (
            // plugin-retry stays out of this one request: a blind repeat could create a second check run.
            this.#octokit.rest.checks.create({
              owner: this.#owner,
              repo: this.#repo,
              ...body,
              request: { retries: 0 }
            })
          )
        );
        return { id: data.id, htmlUrl: data.html_url };
      } catch (error) {
        const lost = error instanceof CheckRunWriteError && (error.status === void 0 || error.status >= 500);
        if (!lost || retry2 >= SERVER_ERROR_RETRIES) throw error;
        this.#warn(
          `${error.message} Looking for it before trying again (retry ${retry2 + 1} of ${SERVER_ERROR_RETRIES}).`
        );
        await sleep(serverErrorBackoffMs(this.#octokit, retry2 + 1));
        const made = ourCheckRun(
          await this.#find(input.name, input.headSha, (run) => run.externalId === input.externalId, {
            filter: "all"
          })
        );
        if (made !== void 0) return { id: made.id, htmlUrl: made.htmlUrl };
      }
    }
  }
  /** Replaces the output (title, summary, optional text) of a running check run. */
  async update(id, input) {
    return this.#patch("update", id, { output: this.#output(input) });
  }
  /**
   * Puts an existing check run (found by {@link findLatest} on a re-run) back `in_progress` for a new
   * run: new `external_id`, `started_at` now. GitHub keeps the old `conclusion` field until the run
   * completes again (https://github.com/Mergifyio/mergify/pull/444), so readers look at `status` first.
   */
  async restart(id, input) {
    return this.#patch("restart", id, {
      status: "in_progress",
      started_at: githubTimestamp(this.#now()),
      external_id: input.externalId,
      output: this.#output(input),
      ...input.detailsUrl === void 0 ? {} : { details_url: input.detailsUrl }
    });
  }
  /**
   * Completes the check run: `status: completed`, the conclusion, `completed_at` now, and the first
   * {@link CHECK_RUN_ANNOTATIONS_PER_REQUEST} annotations; then one update per further batch of annotations
   * (GitHub appends them). `n` annotations cost `1 + max(0, ceil(n / 50) − 1)` requests.
   * @throws CheckRunWriteError on the first write GitHub refuses (the completion, or a later batch).
   */
  async complete(id, input) {
    const [first = [], ...rest] = annotationBatches(input.annotations ?? []);
    const output = this.#output(input);
    const ref = await this.#patch("complete", id, {
      status: "completed",
      conclusion: input.conclusion,
      completed_at: githubTimestamp(this.#now()),
      output: first.length === 0 ? output : { ...output, annotations: first.map((a) => annotationObject(a, this.#redact)) },
      ...input.externalId === void 0 ? {} : { external_id: input.externalId },
      ...input.detailsUrl === void 0 ? {} : { details_url: input.detailsUrl }
    });
    for (const batch of rest) {
      await this.#patch("annotate", id, {
        output: {
          title: output.title,
          summary: output.summary,
          annotations: batch.map((a) => annotationObject(a, this.#redact))
        }
      });
    }
    return ref;
  }
  /** One check run by id, as GitHub shows it now (the post step reads its `status` before completing it). */
  async get(id) {
    const what = `Could not read check run ${id} in ${this.#slug()}`;
    const { data } = await this.#call(
      "get",
      what,
      "GET /repos/{owner}/{repo}/check-runs/{check_run_id}",
      void 0,
      () => this.#octokit.rest.checks.get({ owner: this.#owner, repo: this.#repo, check_run_id: id })
    );
    return existingCheckRunOf(data);
  }
  /**
   * The newest check run named `name` on `headSha`, of any app, that `carries` accepts (one page of 100,
   * `filter: all`) — e.g. the one holding a run's run-state digest, posted by the action or by the App.
   */
  async findCarrying(input) {
    return newestOf(await this.#find(input.name, input.headSha, input.carries, { filter: "all" }));
  }
  /**
   * The newest check run named `name` on `headSha`, optionally only among `appId`'s runs (the token's
   * own app: GitHub Actions is 15368 on github.com), or `undefined` when there is none.
   */
  async findLatest(input) {
    return newestOf(
      await this.#find(
        input.name,
        input.headSha,
        (run) => input.appId === void 0 || run.appId === input.appId,
        { filter: "latest", ...input.appId === void 0 ? {} : { app_id: input.appId } }
      )
    );
  }
  /**
   * The check run a new run on `headSha` takes over instead of creating a second one (SPEC §6: "a re-run
   * finds the existing check run by name and head SHA … and updates it"), or `undefined` when a new one
   * must be created. Of the check runs named `name` whose `external_id` is an evidence-gate run id
   * (`YYYYMMDD-HHMMSS-<6 hex>`) it is the one {@link ourCheckRun} picks (the lowest id: ADR 0007) — that test keeps a same-named check run evidence-gate did not create
   * (GitHub's own check run for a job called like the check, another tool's) out of reach. It is taken over
   * even when it carries annotations: GitHub appends annotations and offers no way to remove them, so the
   * caller says in the new run's summary that those marks are an earlier run's (`annotationsCount`).
   *
   * Re-runs: every leg mints a new run id, so "Re-run jobs" (same `GITHUB_RUN_ID`, next
   * `GITHUB_RUN_ATTEMPT`), a new workflow run on the same commit (`reopened`, a manual dispatch) and a
   * second workflow naming the same check all land on this one check run; `external_id` then names the
   * latest run that took it over, which is how the post step of an older one knows it was taken over.
   */
  async findReusable(input) {
    return ourCheckRun(
      await this.#find(
        input.name,
        input.headSha,
        (run) => run.externalId !== null && isRunId(run.externalId),
        { filter: "all" }
      )
    );
  }
  /**
   * The check runs named `name` on `headSha` that `accept`s, among the first 100 GitHub lists for `filter`
   * (`all`: every run; `latest`: the newest per app and name) and `app_id`, in GitHub's order.
   */
  async #find(name, headSha, accept, filters) {
    const query = { check_name: name, ...filters, per_page: 100 };
    const what = `Could not list check runs named "${name}" on ${headSha.slice(0, 7)} in ${this.#slug()}`;
    const { data } = await this.#call(
      "find",
      what,
      "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
      query,
      () => this.#octokit.rest.checks.listForRef({
        owner: this.#owner,
        repo: this.#repo,
        ref: headSha,
        ...query
      })
    );
    return data.check_runs.filter((run) => run.name === name).map(existingCheckRunOf).filter(accept);
  }
  async #patch(operation, id, body) {
    const what = `Could not ${operation} check run ${id} in ${this.#slug()}`;
    const { data } = await this.#call(
      operation,
      what,
      "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
      body,
      () => this.#octokit.rest.checks.update({ owner: this.#owner, repo: this.#repo, check_run_id: id, ...body })
    );
    return { id: data.id, htmlUrl: data.html_url };
  }
  async #call(operation, what, route, body, send) {
    try {
      return await send();
    } catch (cause) {
      throw checkRunWriteError({ operation, what, route, body, cause, surface: this.#surface });
    }
  }
  #output(input) {
    return checkRunOutput(input, { redact: this.#redact, warn: this.#warn });
  }
  #slug() {
    return `${this.#owner}/${this.#repo}`;
  }
};
function ourCheckRun(candidates) {
  let lowest;
  for (const run of candidates) if (lowest === void 0 || run.id < lowest.id) lowest = run;
  return lowest;
}
function newestOf(candidates) {
  let highest;
  for (const run of candidates) if (highest === void 0 || run.id > highest.id) highest = run;
  return highest;
}

// src/github/check-run-reporter.ts
var CheckRunReporter = class {
  #ref = null;
  #completed = false;
  #lastUpdate = Number.NEGATIVE_INFINITY;
  #options;
  constructor(options) {
    this.#options = options;
  }
  /** The check run, once created. */
  get ref() {
    return this.#ref;
  }
  /** True once the check run was completed by this reporter. */
  get completed() {
    return this.#completed;
  }
  /**
   * The check run for a new run (SPEC §6: one per check name and head SHA): takes over the one an earlier
   * run left on this head SHA ({@link CheckRunClient.findReusable}; back to `in_progress`, `external_id` =
   * `externalId`) or, when there is none, creates it. Either way it is then this reporter's.
   * @returns the check run, and the earlier run's check run when one was taken over.
   * @throws CheckRunWriteError when the lookup or the write failed.
   */
  async open(externalId, summary, title = "evidence-gate: starting") {
    const existing = await this.#options.client.findReusable({
      name: this.#options.name,
      headSha: this.#options.headSha
    });
    if (existing === void 0) return { ref: await this.start(externalId, summary, title), tookOver: null };
    return { ref: await this.restart(existing.id, { externalId, summary, title }), tookOver: existing };
  }
  /** Creates the check run `in_progress`. `externalId` carries the run id (SPEC §6). */
  async start(externalId, summary, title = "evidence-gate: starting") {
    this.#ref = await this.#options.client.create({
      name: this.#options.name,
      headSha: this.#options.headSha,
      externalId,
      title,
      summary,
      ...this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {}
    });
    return this.#ref;
  }
  /**
   * Takes over an existing check run (an earlier leg's, found by name and head SHA) for this leg: back to
   * `in_progress`, `external_id` = `externalId`, `started_at` now (SPEC §6: a re-run updates the check run
   * it finds). From then on it is this reporter's, as if {@link start} had created it.
   */
  async restart(id, output) {
    this.#ref = await this.#options.client.restart(id, {
      externalId: output.externalId,
      title: output.title ?? "evidence-gate: resuming",
      summary: output.summary,
      ...this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {}
    });
    return this.#ref;
  }
  /**
   * Replaces the output with an in-progress ledger. `force` skips the throttle (the plan section).
   * @returns true when an update was sent.
   */
  async progress(ledger, force) {
    if (this.#ref === null || this.#completed) return false;
    const now = (this.#options.now ?? Date.now)();
    if (!force && now - this.#lastUpdate < (this.#options.throttleMs ?? 1e4)) return false;
    this.#lastUpdate = now;
    const output = renderCheckRunOutput(ledger, this.#detailsOption());
    try {
      await this.#options.client.update(this.#ref.id, {
        title: output.title,
        summary: output.summary,
        text: output.text
      });
    } catch (error) {
      if (this.#options.onProgressError === void 0) throw error;
      this.#options.onProgressError(error);
      return false;
    }
    return true;
  }
  /**
   * Completes the check run with the finished ledger's conclusion. `appendix` (trusted Markdown, e.g. how
   * to resume a paused run) follows the ledger's summary whole: the ledger's part is cut to make room.
   * `annotations` (any number) are posted 50 per request, the first batch with the completion.
   * `ledgerArtifact` is linked, with the job summary, from the notice of a summary cut to the API's limit.
   */
  async finish(ledger, options = {}) {
    if (ledger.conclusion === null) throw new Error("Internal error: finish() needs a concluded ledger");
    const links = {
      ...this.#detailsOption(),
      ...options.ledgerArtifact === void 0 ? {} : { ledgerArtifact: options.ledgerArtifact }
    };
    const output = renderCheckRunOutput(ledger, links);
    const summary = options.appendix === void 0 ? output.summary : withAppendix(output.summary, options.appendix, trimmedNotice(links));
    return this.#complete(
      ledger.conclusion.conclusion,
      output.title,
      summary,
      output.text,
      options.annotations
    );
  }
  /** Completes the check run without a ledger (refusal, usage error, crash): title and Markdown summary. */
  async end(conclusion, title, summary) {
    return this.#complete(conclusion, title, summary, void 0, void 0);
  }
  async #complete(conclusion, title, summary, text, annotations) {
    if (this.#ref === null) throw new Error("Internal error: the check run was never created");
    const ref = await this.#options.client.complete(this.#ref.id, {
      conclusion,
      title,
      summary,
      ...text !== void 0 && text !== "" ? { text } : {},
      ...this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {},
      ...annotations !== void 0 && annotations.length > 0 ? { annotations } : {}
    });
    this.#completed = true;
    this.#options.onCompleted?.(ref);
    return ref;
  }
  #detailsOption() {
    return this.#options.detailsUrl ? { detailsUrl: this.#options.detailsUrl } : {};
  }
};
function withAppendix(summary, appendix, notice) {
  const tail = `

${appendix}`;
  const room = CHECK_RUN_TEXT_MAX_BYTES - utf8Bytes(tail);
  if (room <= 0) return truncateUtf8(appendix, CHECK_RUN_TEXT_MAX_BYTES, notice);
  return `${truncateUtf8(summary, room, notice)}${tail}`;
}

export {
  CheckRunWriteError,
  checkRunOutput,
  GateOctokit,
  timingFromEnv,
  octokitFromEnv,
  apiUrlFromEnv,
  gateOctokitOptions,
  createOctokit,
  CheckRunClient,
  ourCheckRun,
  CheckRunReporter,
  withAppendix
};
