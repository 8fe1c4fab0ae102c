#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  MAX_VERIFY_REPEAT,
  describePolicySource,
  policySummary,
  readWorkingTreePolicy
} from "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import {
  GitError,
  buildChildEnv,
  currentTrustedGit,
  folderWriteProblem,
  git,
  gitObjectsProblem,
  hiddenPaths,
  isInside,
  outputFileProblem
} from "./cli-chunk-FXTLPJ5R.js";
import {
  createRedactor,
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";

// src/proxy/credential.ts
var DUMMY_CREDENTIAL = "evidence-gate-key-proxy-dummy";
var CREDENTIAL_VARIABLES = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"]
};
var AUTH_HEADERS = ["x-api-key", "authorization"];
function upstreamAuthHeader(credential) {
  if (credential.runtime === "claude" && credential.variable === "ANTHROPIC_API_KEY")
    return ["x-api-key", credential.value];
  return ["authorization", `Bearer ${credential.value}`];
}
function dummyCredentialEnv(credential) {
  if (credential.runtime === "codex")
    return { OPENAI_API_KEY: DUMMY_CREDENTIAL, CODEX_API_KEY: DUMMY_CREDENTIAL };
  return { [credential.variable]: DUMMY_CREDENTIAL };
}

// src/proxy/key-proxy.ts
import { randomBytes, timingSafeEqual } from "node:crypto";
import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

// src/proxy/codex-provider.ts
var PROXY_PROVIDER_ID = "evidence-gate-key-proxy";
var OPENAI_API_BASE = "https://api.openai.com/v1";
var PROXY_ENV_KEY = "OPENAI_API_KEY";
var BUILT_IN_PROVIDERS = /* @__PURE__ */ new Set(["openai"]);
function keySegment(id) {
  return /^[A-Za-z0-9_-]+$/.test(id) ? id : JSON.stringify(id);
}
function codexProxyPairs(baseUrl, provider) {
  const pairs = proxyPairs(baseUrl, provider);
  for (const pair of pairs) issuedPairs.add(pair);
  return pairs;
}
var issuedPairs = /* @__PURE__ */ new Set();
function proxyPairs(baseUrl, provider) {
  if (provider !== void 0 && !BUILT_IN_PROVIDERS.has(provider)) {
    const table2 = `model_providers.${keySegment(provider)}`;
    return [
      `${table2}.base_url=${JSON.stringify(baseUrl)}`,
      `${table2}.env_key=${JSON.stringify(PROXY_ENV_KEY)}`
    ];
  }
  const table = `model_providers.${PROXY_PROVIDER_ID}`;
  return [
    `model_provider=${JSON.stringify(PROXY_PROVIDER_ID)}`,
    `${table}.name="evidence-gate key proxy"`,
    `${table}.base_url=${JSON.stringify(baseUrl)}`,
    `${table}.env_key=${JSON.stringify(PROXY_ENV_KEY)}`,
    `${table}.wire_api="responses"`
  ];
}
function tomlString(value) {
  const v = value.trim();
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1);
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) {
    try {
      const parsed = JSON.parse(v);
      if (typeof parsed === "string") return parsed;
    } catch {
    }
    return v.slice(1, -1);
  }
  return v;
}
function segments(key) {
  return [...key.matchAll(/"([^"\n]*)"|'([^'\n]*)'|([^."']+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}
function operatorCodexProvider(pairs) {
  let selected;
  const baseUrls = /* @__PURE__ */ new Map();
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const key = segments(pair.slice(0, eq).trim());
    const value = tomlString(pair.slice(eq + 1));
    if (key.length === 1 && key[0] === "model_provider") selected = value;
    if (key.length === 3 && key[0] === "model_providers" && key[2] === "base_url")
      baseUrls.set(key[1], value);
  }
  if (selected === void 0 || BUILT_IN_PROVIDERS.has(selected)) return { kind: "none" };
  const baseUrl = baseUrls.get(selected);
  if (baseUrl === void 0)
    return {
      kind: "unusable",
      problem: `codex-config selects provider ${JSON.stringify(selected)} but gives it no base_url (model_providers.${keySegment(selected)}.base_url=\u2026): the key proxy needs it as its upstream`
    };
  return { kind: "provider", id: selected, baseUrl };
}
function isProxyProviderPair(pair) {
  return issuedPairs.has(pair);
}

// src/proxy/http-relay.ts
var HOP_BY_HOP = /* @__PURE__ */ new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
]);
function endToEndHeaders(headers, drop) {
  const named = String(headers.connection ?? "").split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== "");
  const out = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === void 0 || HOP_BY_HOP.has(name) || named.includes(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}
function loggablePath(path) {
  const clean = path.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > 200 ? `${clean.slice(0, 200)}\u2026` : clean;
}
function sendApiError(response, api, status, message) {
  const text = `evidence-gate key proxy: ${message}`;
  const body = api === "anthropic" ? {
    type: "error",
    error: {
      type: status === 413 ? "request_too_large" : status >= 500 ? "api_error" : "invalid_request_error",
      message: text
    }
  } : {
    error: {
      message: text,
      type: status >= 500 ? "server_error" : "invalid_request_error",
      code: null
    }
  };
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { "content-type": "application/json", connection: "close" });
  response.end(JSON.stringify(body));
}
function readBoundedBody(request, max) {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > max) return Promise.resolve({ kind: "too-large" });
  return new Promise((resolve4, reject) => {
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > max) {
        request.off("data", onData);
        resolve4({ kind: "too-large" });
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.on("end", () => resolve4({ kind: "read", body: Buffer.concat(chunks) }));
    request.on("error", reject);
  });
}
function readCapped(stream, max) {
  return new Promise((resolve4, reject) => {
    const chunks = [];
    let size = 0;
    stream.on("data", (chunk) => {
      if (size >= max) return;
      chunks.push(chunk.subarray(0, max - size));
      size += chunk.length;
    });
    stream.on("end", () => resolve4(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

// src/proxy/model-routes.ts
var ROUTES = {
  // Relative to ANTHROPIC_BASE_URL (the SDK appends `/v1/...`).
  anthropic: [
    { method: "POST", path: "/v1/messages" },
    { method: "POST", path: "/v1/messages/count_tokens" },
    { method: "GET", path: "/v1/models" },
    { method: "GET", path: "/v1/models", withId: true }
  ],
  // Relative to a codex provider's `base_url` (which already ends in `/v1` upstream).
  openai: [
    { method: "POST", path: "/responses" },
    { method: "POST", path: "/responses/compact" },
    { method: "POST", path: "/chat/completions" },
    { method: "GET", path: "/models" },
    { method: "GET", path: "/models", withId: true }
  ]
};
var ID_SEGMENT = /^\/[A-Za-z0-9._:-]{1,200}$/;
function matches(route, path) {
  if (!route.withId) return path === route.path;
  return path.startsWith(route.path) && ID_SEGMENT.test(path.slice(route.path.length));
}
function routeDecision(api, method, path) {
  const routes = ROUTES[api].filter((route) => matches(route, path));
  if (routes.length === 0) return "not-a-model-route";
  return routes.some((route) => route.method === method) ? "allowed" : "wrong-method";
}

// src/proxy/key-proxy.ts
var ANTHROPIC_API_BASE = "https://api.anthropic.com";
var DEFAULT_MAX_REQUEST_BYTES = 32 * 1024 * 1024;
var MAX_ERROR_BODY_BYTES = 1024 * 1024;
function upstreamProblem(url) {
  let parsed;
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
function afterPrefix(path, secret) {
  const match = /^\/([^/]*)(\/.*)?$/.exec(path);
  if (match === null) return null;
  const given = Buffer.from(match[1] ?? "", "utf8");
  if (given.length !== secret.length || !timingSafeEqual(given, secret)) return null;
  return match[2] ?? "/";
}
function refuse(state, request, response, refusal) {
  request.resume();
  state.log({ kind: "refused", ...refusal });
  sendApiError(response, state.api, refusal.status, refusal.reason);
}
async function handle(state, request, response) {
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
      reason
    });
  }
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
      reason: decision === "wrong-method" ? `${method} is not allowed on this model API path` : "not a model API path: only the model API is forwarded"
    });
  }
  const read = await readBoundedBody(request, state.maxRequestBytes);
  if (read.kind === "too-large") {
    const reason = `the request body is larger than ${state.maxRequestBytes} bytes`;
    return refuse(state, request, response, { status: 413, method, path: loggablePath(path), reason });
  }
  forward(state, { request, response }, { path, query, body: read.body });
}
function forward(state, exchange, target, retried = false) {
  const { request, response } = exchange;
  const url = new URL(state.upstream.href);
  url.pathname = `${state.upstreamPath}${target.path}`;
  url.search = target.query;
  const headers = endToEndHeaders(request.headers, [
    "host",
    "content-length",
    "accept-encoding",
    ...AUTH_HEADERS
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
  outgoing.on("error", (error) => {
    state.inFlight.delete(outgoing);
    if (response.writableEnded || response.destroyed) return;
    if (!retried && outgoing.reusedSocket && error.code === "ECONNRESET" && !response.headersSent)
      return forward(state, exchange, target, true);
    const message = `the upstream ${state.upstream.origin} could not be reached (${error.message})`;
    state.log({
      kind: "upstream-failed",
      method: request.method ?? "",
      path: loggablePath(target.path),
      message
    });
    sendApiError(response, state.api, 502, message);
  });
  outgoing.on("response", (answer) => relay(state, answer, response));
  outgoing.end(target.body);
}
function relay(state, answer, response) {
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
    () => response.destroy()
  );
}
var LIVE_UPSTREAMS = /* @__PURE__ */ new Map();
function keyProxyUpstream(host) {
  return LIVE_UPSTREAMS.get(host);
}
async function startKeyProxy(options) {
  const { credential } = options;
  const api = credential.runtime === "claude" ? "anthropic" : "openai";
  const upstreamText = options.upstream ?? (api === "anthropic" ? ANTHROPIC_API_BASE : OPENAI_API_BASE);
  const problem = upstreamProblem(upstreamText);
  if (problem !== null) throw new Error(`evidence-gate key proxy: the upstream ${problem}`);
  const upstream = new URL(upstreamText);
  const https = upstream.protocol === "https:";
  const secretText = randomBytes(24).toString("base64url");
  const state = {
    api,
    credential,
    upstream,
    upstreamPath: upstream.pathname.replace(/\/+$/, ""),
    secret: Buffer.from(secretText, "utf8"),
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    log: options.log ?? (() => {
    }),
    agent: https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true }),
    send: https ? httpsRequest : httpRequest,
    inFlight: /* @__PURE__ */ new Set()
  };
  const server = createServer((request, response) => {
    handle(state, request, response).catch((error) => {
      const message = error instanceof Error ? error.message : String(error);
      sendApiError(response, api, 500, `internal error (${message})`);
    });
  });
  await new Promise((resolve4, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve4();
    });
  });
  const { port } = server.address();
  const baseUrl = `http://127.0.0.1:${port}/${secretText}`;
  const host = `127.0.0.1:${port}`;
  LIVE_UPSTREAMS.set(host, `${upstream.origin}${state.upstreamPath}`);
  const env = credential.runtime === "claude" ? { ANTHROPIC_BASE_URL: baseUrl, ...dummyCredentialEnv(credential) } : dummyCredentialEnv(credential);
  return {
    baseUrl,
    env,
    codexConfig: credential.runtime === "codex" ? codexProxyPairs(baseUrl, options.codexProvider) : [],
    applyTo: (childEnv) => {
      const out = {};
      for (const [name, value] of Object.entries(childEnv)) {
        if (CREDENTIAL_VARIABLES[credential.runtime].includes(name.toUpperCase())) continue;
        if (credential.value !== "" && value.includes(credential.value)) continue;
        out[name] = value;
      }
      return { ...out, ...env };
    },
    close: () => new Promise((resolve4) => {
      LIVE_UPSTREAMS.delete(host);
      for (const outgoing of state.inFlight) outgoing.destroy();
      state.inFlight.clear();
      server.close(() => resolve4());
      server.closeAllConnections();
      state.agent.destroy();
    })
  };
}

// src/runtime/claude-turn.ts
import { randomUUID } from "node:crypto";

// src/runtime/agent-turn.ts
var NO_CALL = {
  sessionId: null,
  costUsd: 0,
  usage: null,
  numTurns: null,
  denied: 0,
  writtenPaths: [],
  durationMs: 0,
  reply: ""
};
function callFailure(cause, detail, sessionLimit = null) {
  return { cause, detail, sessionLimit };
}
function limitPause(limit, resetsAt) {
  return callFailure(
    "run_error",
    `paused: the model's ${limit} limit was reached${resetsAt !== null ? ` (resets ${resetsAt})` : ""}; resume with --retry-failed`,
    { resetsAt }
  );
}
function unfinishedCall(outcome, executable) {
  switch (outcome.kind) {
    case "spawn_failed":
      return callFailure("run_error", `could not start ${executable}: ${outcome.message}`);
    case "cancelled":
      return callFailure("cancelled", "cancelled");
    case "timed_out":
      return callFailure("timeout", `killed after its timeout of ${Math.round(outcome.timeoutMs / 1e3)}s`);
    case "no_result":
      return callFailure("output_error", noResultWords(outcome.reason, outcome.stderrTail));
    default:
      return unreachable(outcome);
  }
}
function sessionLostFailure(cli, sessionId, said) {
  return {
    cause: "run_error",
    detail: `session lost: ${cli} no longer finds session ${sessionId} (${oneLine(said).slice(0, 200)}); it was not replaced by a fresh session`,
    sessionLimit: null,
    sessionLost: true
  };
}
function noResultWords(reason, stderrTail) {
  return `${reason}${stderrTail ? ` \u2014 stderr: ${lastLine(stderrTail)}` : ""}`;
}
function oneLine(text) {
  return text.replace(/\s+/g, " ").trim();
}
function lastLine(text) {
  const lines = text.trim().split("\n");
  return oneLine(lines[lines.length - 1] ?? "");
}

// src/core/clip.ts
function clip(text, chars) {
  const points = Array.from(text);
  return points.length > chars ? `${points.slice(0, chars - 1).join("")}\u2026` : text;
}

// src/runtime/declared-plan.ts
var PLAN_ITEMS_KEPT = 200;
var PLAN_TEXT_CHARS = 300;
function declaredPlan(items) {
  return {
    items: items.slice(0, PLAN_ITEMS_KEPT).map((item) => ({ text: clip(item.text, PLAN_TEXT_CHARS), done: item.done })),
    total: items.length,
    open: items.filter((item) => !item.done).length
  };
}
function planOfClaudeTodos(todos) {
  return todos === null ? null : declaredPlan(todos.map((todo) => ({ text: todo.text, done: todo.status === "completed" })));
}
function planOfCodexTodos(todos) {
  return todos === null ? null : declaredPlan(todos.map((todo) => ({ text: todo.text, done: todo.completed })));
}

// src/runtime/claude-turn.ts
async function claudeTurn(turn, signal) {
  const session = turn.session;
  const sessionId = session.kind === "resume" ? session.sessionId : randomUUID();
  turn.onStarted?.(sessionId);
  const budgetUsd = turn.budgetUsd;
  const cliBudgetUsd = budgetUsd !== null ? budgetUsd - (turn.completion?.spentUsd ?? 0) : null;
  const env = turn.permissionMode === "bypassPermissions" ? { ...turn.modelEnv(), IS_SANDBOX: "1" } : turn.modelEnv();
  const outcome = await turn.calls.claude({
    label: turn.nodeId,
    executable: turn.executable,
    prompt: turn.prompt,
    permissionMode: turn.permissionMode,
    policy: turn.policy,
    session: { kind: session.kind, sessionId },
    ...cliBudgetUsd !== null && cliBudgetUsd > 0 ? { budgetUsd: cliBudgetUsd } : {},
    ...turn.model !== void 0 ? { model: turn.model } : {},
    cwd: turn.cwd,
    // 2.1.332 offers TodoWrite only with both switches (measured; claude-stream.ts): a gate reading todos.
    env: turn.completion?.planTool === true ? { ...env, CLAUDE_CODE_ENABLE_TASKS: "false", CLAUDE_CODE_ENABLE_TODO_TOOLS: "true" } : env,
    timeoutMs: turn.timeoutMs,
    signal,
    ...turn.echo ? { echo: turn.echo } : {}
  });
  const facts = claudeFactsOf(outcome, sessionId);
  const sessionCostUsd = facts.costUsd;
  if (session.kind === "resume") {
    const before = session.sessionCostUsd ?? null;
    facts.costUsd = sessionCostUsd !== null && before !== null ? Math.max(0, sessionCostUsd - before) : null;
  }
  const report = (f) => ({ facts, failure: f, sessionCostUsd });
  if (outcome.kind !== "completed") return report(unfinishedCall(outcome, turn.executable));
  const lost = turn.completion?.continuing === true ? lostSession(outcome) : null;
  if (lost !== null) return report(sessionLostFailure("claude", sessionId, lost));
  return report(completedFailure(outcome, facts, budgetUsd));
}
function lostSession(outcome) {
  const r = outcome.result;
  if (!r.isError) return null;
  return r.errors.find((e) => /No conversation found with session ID/i.test(e)) ?? null;
}
function completedFailure(outcome, facts, budgetUsd) {
  const r = outcome.result;
  if (r.sessionLimit !== null) {
    return limitPause("session", r.sessionLimit.resetsAt ?? null);
  }
  if (r.isError && r.budgetExhausted) {
    const spent = facts.costUsd !== null ? `$${facts.costUsd.toFixed(4)}` : "an unknown cost";
    const limit = budgetUsd !== null ? `$${budgetUsd.toFixed(4)}` : "its --max-budget-usd";
    return callFailure(
      "budget_exceeded",
      `exceeded budget_usd: ${spent} vs ${limit} \u2014 claude stopped at --max-budget-usd (${oneLine(r.failureDetail ?? r.subtype)})`
    );
  }
  if (r.isError) {
    const why = r.failureDetail ?? r.subtype;
    return callFailure("run_error", `claude reported is_error (exit ${outcome.exitCode}): ${oneLine(why)}`);
  }
  if (outcome.exitCode !== 0) return callFailure("nonzero_exit", `claude exited ${outcome.exitCode}`);
  return null;
}
function claudeFactsOf(outcome, sessionId) {
  if (outcome.kind === "completed") {
    const r = outcome.result;
    return {
      sessionId: r.sessionId,
      costUsd: r.totalCostUsd,
      usage: r.usage,
      numTurns: r.numTurns,
      denied: r.deniedToolCalls,
      writtenPaths: r.writtenPaths,
      durationMs: outcome.durationMs,
      reply: r.result ?? "",
      plan: planOfClaudeTodos(r.todos)
    };
  }
  const seen = outcome.kind === "timed_out" ? outcome.partial : outcome.kind === "spawn_failed" ? { deniedToolCalls: 0, writtenPaths: [] } : outcome;
  return {
    sessionId,
    costUsd: null,
    usage: null,
    numTurns: null,
    denied: seen.deniedToolCalls,
    writtenPaths: seen.writtenPaths,
    durationMs: outcome.durationMs,
    reply: ""
  };
}

// src/runtime/claude-runtime.ts
var CLAUDE_ORDER = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN"
];
var CLOUD_SWITCHES = ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"];
var on = (value) => value !== void 0 && value !== "" && value !== "0";
function proxyPlan(o) {
  if (CLOUD_SWITCHES.some((name) => on(o.env[name])))
    return { kind: "none", note: "key proxy: not used (claude runs on a cloud provider's credentials)" };
  const variable = CLAUDE_ORDER.find((name) => (o.credentials[name] ?? "") !== "");
  if (variable === void 0)
    return { kind: "none", note: "key proxy: not used (no claude credential given: the CLI's own login)" };
  const upstream = o.env.ANTHROPIC_BASE_URL;
  const problem = upstream !== void 0 && upstream !== "" ? upstreamProblem(upstream) : null;
  if (problem !== null) return { kind: "refused", message: `ANTHROPIC_BASE_URL: ${problem}` };
  return {
    kind: "proxy",
    credential: { runtime: "claude", variable, value: o.credentials[variable] },
    where: upstream !== void 0 && upstream !== "" ? { upstream } : {}
  };
}
function claudeNotLoggedInMessage(surface) {
  const said = 'the claude CLI answered "Not logged in" before reaching the model (nothing was spent)';
  return surface === "cli" ? `${said}: it has no credential. Set ANTHROPIC_API_KEY (an API key from console.anthropic.com), CLAUDE_CODE_OAUTH_TOKEN (a subscription's token: run \`claude setup-token\`) or ANTHROPIC_AUTH_TOKEN (a gateway's bearer token) in the environment, or log the CLI in (run \`claude\`, then /login), and run the command again.` : `${said}: give input \`anthropic-api-key\` or \`claude-code-oauth-token\` a secret that holds a credential.`;
}
var CLAUDE_RUNTIME = {
  name: "claude",
  agentTurn: claudeTurn,
  cliPackage: { bin: "claude", npmPackage: "@anthropic-ai/claude-code", cacheName: "claude-code" },
  executable: (o) => o.claudeExecutable,
  optionsProblem: (o) => o.codexConfig !== void 0 && o.codexConfig.length > 0 ? "codex-config applies only to the codex runtime: pass --runtime codex (input runtime: codex), or drop codex-config. Nothing was run." : null,
  missingCliMessage: (where) => `the claude CLI was not found: ${where}. Install @anthropic-ai/claude-code or point --claude-path at the executable; nothing was run`,
  graphProblem: () => null,
  nodeWarnings: (node) => node.permission_mode === "bypassPermissions" ? [
    `node "${node.id}" runs with permissions bypassed (permission_mode bypassPermissions): claude approves every tool call without asking; IS_SANDBOX=1 is set in that node's environment only (claude refuses the mode as root without it), never the verify command's or another node's`
  ] : [],
  recordedSettings: () => ({}),
  resumedSettingsProblem: () => null,
  resumedSession: (saved) => ({
    kind: "resume",
    sessionId: saved.sessionId,
    sessionCostUsd: saved.sessionCostUsd ?? null
  }),
  threadRecord: () => ({}),
  plannerWords: {
    cli: "claude",
    toolNote: "A node can use only the tools in its list; any other tool call is denied."
  },
  credentialVariables: CREDENTIAL_VARIABLES.claude,
  credentialsFromInputs: (inputs) => {
    const set = {};
    if (inputs.anthropicApiKey) set.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
    if (inputs.claudeCodeOauthToken) set.CLAUDE_CODE_OAUTH_TOKEN = inputs.claudeCodeOauthToken;
    return set;
  },
  missingCredentialInputs: (inputs) => inputs.anthropicApiKey || inputs.claudeCodeOauthToken ? null : ["anthropic-api-key", "claude-code-oauth-token"],
  missingCredentialMessage: "inputs `anthropic-api-key` and `claude-code-oauth-token` are both empty: runtime claude needs one (pass a repository secret, e.g. `anthropic-api-key: <secrets.ANTHROPIC_API_KEY>` in a workflow expression); it reaches the claude CLI only",
  localCredentialProblem: () => null,
  proxyPlan
};

// src/runtime/codex-runtime.ts
import { existsSync, readFileSync } from "node:fs";
import { join as join2 } from "node:path";

// src/graph/duration.ts
var DURATION_EXAMPLES = "90s, 45m, 1h30m, 1.5h, 500ms";
var NS_PER_UNIT = /* @__PURE__ */ new Map([
  ["ns", 1n],
  ["us", 1000n],
  ["\xB5s", 1000n],
  // U+00B5 micro sign
  ["\u03BCs", 1000n],
  // U+03BC Greek small mu
  ["ms", 1000000n],
  ["s", 1000000000n],
  ["m", 60000000000n],
  ["h", 3600000000000n]
]);
var MAX_NS = 2n ** 63n - 1n;
var TERM = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
function parseDuration(text) {
  const fail = (why) => ({
    ok: false,
    message: `invalid duration ${JSON.stringify(text)}: ${why} (want a Go duration like ${DURATION_EXAMPLES})`
  });
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return { ok: true, ms: 0 };
  if (rest === "") return fail("empty");
  let totalNs = 0n;
  while (rest !== "") {
    const term = TERM.exec(rest);
    if (term === null) {
      return fail(/^[\d.]+$/.test(rest) ? `missing unit after "${rest}"` : `cannot read "${rest}"`);
    }
    const [whole, intDigits = "", fracDigits, unit = ""] = term;
    if (intDigits === "" && (fracDigits === void 0 || fracDigits === "")) {
      return fail(`"${whole}" has no number`);
    }
    const unitNs = NS_PER_UNIT.get(unit);
    if (unitNs === void 0) return fail(`unknown unit "${unit}"`);
    let termNs = BigInt(intDigits === "" ? "0" : intDigits) * unitNs;
    if (fracDigits !== void 0 && fracDigits !== "") {
      termNs += BigInt(fracDigits) * unitNs / 10n ** BigInt(fracDigits.length);
    }
    totalNs += termNs;
    if (totalNs > MAX_NS) return fail("too large (over about 292 years)");
    rest = rest.slice(whole.length);
  }
  const ms = Number(totalNs) / 1e6;
  return { ok: true, ms: negative ? -ms : ms };
}
function formatDuration(ms) {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? "-" : "";
  let rest = Math.floor(Math.abs(ms));
  if (rest === 0) return "0";
  const parts = [];
  for (const [unit, size] of [
    ["h", 36e5],
    ["m", 6e4],
    ["s", 1e3],
    ["ms", 1]
  ]) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return sign + parts.join("");
}

// src/runtime/codex-argv.ts
function codexSandboxFor(mode) {
  switch (mode) {
    case "plan":
      return "read-only";
    case "bypassPermissions":
      return "danger-full-access";
    case "acceptEdits":
    case "auto":
    case "dontAsk":
    case "manual":
      return "workspace-write";
    default:
      return unreachable(mode);
  }
}
var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function isCodexThreadId(id) {
  return UUID.test(id);
}
function codexModelProblem(model) {
  return model === "" || model.startsWith("-") ? `a codex model must be non-empty and not start with "-" (got ${JSON.stringify(model)})` : null;
}
var CONFIG_KEY = /^(?:[A-Za-z0-9_][A-Za-z0-9_-]*|"[^"\n]*")(?:\.(?:[A-Za-z0-9_-]+|"[^"\n]*"))*$/;
function codexPromptProblem(prompt) {
  return prompt === "-" ? 'a prompt of exactly "-" makes codex read its prompt from stdin, which the engine does not provide' : null;
}
var ALLOWED_KEYS = "model, model_provider, model_providers.<id>.<key>, model_reasoning_effort, model_reasoning_summary, model_verbosity, model_context_window, model_auto_compact_token_limit, analytics.<key>, otel.<key>, features.<name>=false";
var ALLOWED_LEAVES = /* @__PURE__ */ new Set([
  "model",
  "model_provider",
  "model_reasoning_effort",
  "model_reasoning_summary",
  "model_verbosity",
  "model_context_window",
  "model_auto_compact_token_limit"
]);
var ALLOWED_TABLES = /* @__PURE__ */ new Set(["model_providers", "analytics", "otel"]);
function keySegments(key) {
  return [...key.matchAll(/"([^"\n]*)"|([^."]+)/g)].map((m) => m[1] ?? m[2] ?? "");
}
function codexConfigKeyProblem(key, value) {
  const [top = "", ...rest] = keySegments(key);
  const refuse2 = (why) => `${JSON.stringify(key)} is not allowed: codex-config may only configure the model provider; ${why} (allowed: ${ALLOWED_KEYS})`;
  if (ALLOWED_LEAVES.has(top)) {
    return rest.length === 0 ? null : refuse2(`${top} takes no sub-key`);
  }
  if (ALLOWED_TABLES.has(top)) {
    return rest.length > 0 ? null : refuse2(`set ${top}.<key> one key at a time`);
  }
  if (top === "features") {
    if (rest.length !== 1) return refuse2("set features.<name>=false one feature at a time");
    return value === "false" ? null : refuse2(`a feature may only be turned off (features.${rest[0]}=false)`);
  }
  return refuse2("sandbox, approval, isolation and every other setting stay the engine's");
}
function parseCodexConfig(text) {
  const pairs = [];
  const issues = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const eq = line.indexOf("=");
    const key = eq < 0 ? "" : line.slice(0, eq).trim();
    if (eq < 0) {
      issues.push(`codex-config line ${index + 1}: expected KEY=VALUE, got ${JSON.stringify(line)}`);
    } else if (!CONFIG_KEY.test(key)) {
      issues.push(
        `codex-config line ${index + 1}: ${JSON.stringify(key)} is not a config key (a dotted path such as model_providers.gw.base_url)`
      );
    } else {
      const value = line.slice(eq + 1).trim();
      const refused = codexConfigKeyProblem(key, value);
      if (refused !== null) issues.push(`codex-config line ${index + 1}: ${refused}`);
      else pairs.push(`${key}=${value}`);
    }
  });
  return issues.length === 0 ? { ok: true, pairs } : { ok: false, issues };
}
var WORKSPACE_WRITE_EXTENT = [
  "sandbox_workspace_write.writable_roots=[]",
  "sandbox_workspace_write.network_access=false"
];
function buildCodexArgv(inv) {
  const argv = ["exec", "--json", "--color", "never", "--skip-git-repo-check"];
  if (inv.model !== void 0) {
    const problem2 = codexModelProblem(inv.model);
    if (problem2 !== null) throw new Error(`Internal error: ${problem2}`);
    argv.push("-m", inv.model);
  }
  for (const pair of inv.config ?? []) {
    const parsed = parseCodexConfig(pair);
    if (!parsed.ok || parsed.pairs.length !== 1 || parsed.pairs[0] !== pair) {
      throw new Error(`Internal error: not a codex-config KEY=VALUE pair: ${JSON.stringify(pair)}`);
    }
    argv.push("-c", pair);
  }
  const sandbox = codexSandboxFor(inv.permissionMode);
  argv.push("--sandbox", sandbox);
  argv.push("--config", 'approval_policy="never"');
  if (sandbox === "workspace-write") for (const pair of WORKSPACE_WRITE_EXTENT) argv.push("--config", pair);
  if (inv.policy.settingSources !== void 0) {
    argv.push("--ignore-user-config", "--ignore-rules");
    argv.push("--config", "project_doc_max_bytes=0", "--config", "mcp_servers={}");
  }
  if (inv.planTool === true) argv.push("--config", "tools.update_plan.enabled=true");
  switch (inv.session.kind) {
    case "fresh":
      break;
    case "resume":
      if (!UUID.test(inv.session.threadId)) {
        throw new Error(`Internal error: a codex thread id must be a UUID, got "${inv.session.threadId}"`);
      }
      argv.push("resume", inv.session.threadId);
      break;
    default:
      return unreachable(inv.session);
  }
  const problem = codexPromptProblem(inv.prompt);
  if (problem !== null) throw new Error(`Internal error: ${problem}`);
  argv.push("--", inv.prompt);
  return argv;
}

// src/runtime/codex-turn.ts
import { join } from "node:path";

// src/runtime/codex-usage.ts
function codexTokenUsage(usage) {
  return {
    inputTokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens),
    outputTokens: usage.outputTokens,
    cacheReadInputTokens: usage.cachedInputTokens,
    ...usage.cacheWriteInputTokens !== void 0 ? { cacheCreationInputTokens: usage.cacheWriteInputTokens } : {}
  };
}
function usageSince(cumulative, before) {
  if (before === null) return cumulative;
  const minus = (a, b) => Math.max(0, a - (b ?? 0));
  return {
    inputTokens: minus(cumulative.inputTokens, before.inputTokens),
    outputTokens: minus(cumulative.outputTokens, before.outputTokens),
    ...cumulative.cacheReadInputTokens !== void 0 ? { cacheReadInputTokens: minus(cumulative.cacheReadInputTokens, before.cacheReadInputTokens) } : {},
    ...cumulative.cacheCreationInputTokens !== void 0 ? {
      cacheCreationInputTokens: minus(
        cumulative.cacheCreationInputTokens,
        before.cacheCreationInputTokens
      )
    } : {}
  };
}

// src/runtime/codex-turn.ts
function codexHomeOf(env) {
  if (env.CODEX_HOME !== void 0 && env.CODEX_HOME !== "") return env.CODEX_HOME;
  return env.HOME !== void 0 && env.HOME !== "" ? join(env.HOME, ".codex") : null;
}
async function codexTurn(turn, signal) {
  const session = turn.session;
  const resumed = session.kind === "resume" ? session : null;
  const nothingRan = (cause, detail) => ({
    facts: { ...NO_CALL, sessionId: resumed?.sessionId ?? null },
    failure: callFailure(cause, detail)
  });
  const promptProblem = codexPromptProblem(turn.prompt);
  if (promptProblem !== null)
    return nothingRan("run_error", `codex cannot run this prompt: ${promptProblem}`);
  if (resumed !== null && !isCodexThreadId(resumed.sessionId)) {
    return nothingRan(
      "run_error",
      `handoff: session cannot resume "${resumed.sessionId}": it is not a codex thread id (was the parent run on claude?)`
    );
  }
  turn.onStarted?.(resumed?.sessionId ?? null);
  const executable = turn.executable;
  const baseEnv = turn.modelEnv();
  const env = resumed?.codexHome !== void 0 && codexHomeOf(baseEnv) !== resumed.codexHome ? { ...baseEnv, CODEX_HOME: resumed.codexHome } : baseEnv;
  const home = codexHomeOf(env);
  const outcome = await turn.calls.codex({
    label: turn.nodeId,
    executable,
    prompt: turn.prompt,
    permissionMode: turn.permissionMode,
    policy: turn.policy,
    session: resumed !== null ? { kind: "resume", threadId: resumed.sessionId } : { kind: "fresh" },
    ...turn.model !== void 0 ? { model: turn.model } : {},
    ...turn.codexConfig !== void 0 ? { config: turn.codexConfig } : {},
    cwd: turn.cwd,
    env,
    timeoutMs: turn.timeoutMs,
    signal,
    ...turn.echo ? { echo: turn.echo } : {},
    ...resumed === null ? { onThreadStarted: (threadId) => turn.onSession?.(threadId) } : {},
    ...turn.completion?.planTool === true ? { planTool: true } : {}
  });
  const facts = codexFactsOf(outcome, resumed?.sessionId ?? null, resumed?.threadUsage ?? null);
  const report = (f, usage = null) => ({
    facts,
    failure: f,
    ...facts.sessionId !== null ? { codexThread: { usage, home } } : {}
  });
  const lost = resumed !== null && turn.completion?.continuing === true ? lostThread(outcome, resumed.sessionId) : null;
  if (lost !== null) return report(sessionLostFailure("codex", resumed?.sessionId ?? "", lost));
  if (outcome.kind !== "completed") return report(unfinishedCall(outcome, executable));
  const r = outcome.result;
  const cumulative = r.usage !== null ? codexTokenUsage(r.usage) : null;
  if (r.usageLimit !== null) {
    const resetsAt = r.usageLimit.resetsAt ?? null;
    return report(limitPause("usage", resetsAt));
  }
  if (r.isError) {
    const why = r.failureDetail ?? "codex reported turn.failed";
    return report(
      callFailure("run_error", `codex reported turn.failed (exit ${outcome.exitCode}): ${oneLine(why)}`)
    );
  }
  if (outcome.exitCode !== 0)
    return report(callFailure("nonzero_exit", `codex exited ${outcome.exitCode}`), cumulative);
  if (r.agentMessages === 0) {
    return report(
      callFailure("output_error", "codex completed its turn without an agent message (no reply to judge)"),
      cumulative
    );
  }
  return report(null, cumulative);
}
function lostThread(outcome, threadId) {
  if (outcome.kind === "no_result" && /no rollout found for thread id/i.test(outcome.stderrTail)) {
    const line = outcome.stderrTail.split("\n").find((l) => /no rollout found/i.test(l));
    return line ?? "no rollout found for thread id";
  }
  if (outcome.kind === "completed" && outcome.result.threadId !== threadId)
    return `codex answered in thread ${outcome.result.threadId}`;
  return null;
}
function codexFactsOf(outcome, resumedId, before) {
  const unknown = { costUsd: null, numTurns: null, denied: 0, durationMs: outcome.durationMs };
  switch (outcome.kind) {
    case "completed": {
      const r = outcome.result;
      return {
        ...unknown,
        sessionId: r.threadId,
        usage: r.usage !== null ? usageSince(codexTokenUsage(r.usage), before) : null,
        writtenPaths: r.writtenPaths,
        reply: r.reply ?? "",
        plan: planOfCodexTodos(r.todos)
      };
    }
    case "spawn_failed":
      return { ...unknown, sessionId: resumedId, usage: null, writtenPaths: [], reply: "" };
    case "timed_out":
      return {
        ...unknown,
        sessionId: outcome.partial.threadId ?? resumedId,
        usage: null,
        writtenPaths: outcome.partial.writtenPaths,
        reply: ""
      };
    case "no_result":
    case "cancelled":
      return {
        ...unknown,
        sessionId: outcome.threadId ?? resumedId,
        usage: null,
        writtenPaths: outcome.writtenPaths,
        reply: ""
      };
    default:
      return unreachable(outcome);
  }
}

// src/runtime/codex-runtime.ts
function codexConfigKeys(pairs) {
  const kept = [...pairs ?? []];
  const dropped = /* @__PURE__ */ new Set();
  for (let i = kept.length - 1; i >= 0; i--) {
    const pair = kept[i];
    if (isProxyProviderPair(pair) && !dropped.has(pair)) {
      dropped.add(pair);
      kept.splice(i, 1);
    }
  }
  return kept.map((pair) => pair.slice(0, pair.indexOf("=")).trim());
}
function resumedCodexConfigProblem(runId, recorded, given) {
  const have = new Set(codexConfigKeys(given));
  const missing = (recorded ?? []).filter((key) => !have.has(key));
  if (missing.length === 0) return null;
  return `run ${runId} was started with codex-config pairs for ${missing.map((k) => `"${k}"`).join(", ")}, which state.json does not record (a provider setting may carry a secret): give the same pairs again (--codex-config KEY=VALUE, or the codex-config input). Nothing was run.`;
}
function optionsProblem(o) {
  if (o.model !== void 0) {
    const problem = codexModelProblem(o.model);
    if (problem !== null) return `model: ${problem}. Nothing was run.`;
  }
  const issues = [];
  (o.codexConfig ?? []).forEach((pair, i) => {
    const parsed = parseCodexConfig(pair);
    if (!parsed.ok) issues.push(...parsed.issues.map((issue) => issue.replace(/line \d+/, `entry ${i + 1}`)));
    else if (parsed.pairs.length !== 1 || parsed.pairs[0] !== pair)
      issues.push(`codex-config entry ${i + 1}: expected one trimmed KEY=VALUE, got ${JSON.stringify(pair)}`);
  });
  return issues.length > 0 ? `${issues.join("; ")}. Nothing was run.` : null;
}
function userSelectsProvider(env) {
  const home = codexHomeOf(env);
  if (home === null) return false;
  const config = join2(home, "config.toml");
  return existsSync(config) && /^\s*model_provider\s*=/m.test(readFileSync(config, "utf8"));
}
function localCredentialProblem(env, codexConfig) {
  if (CREDENTIAL_VARIABLES.codex.some((name) => (env[name] ?? "") !== "")) return null;
  if (codexConfig.some((pair) => /^\s*"?model_provider"?\s*=/.test(pair))) return null;
  const codexHome = codexHomeOf(env);
  if (codexHome !== null && existsSync(join2(codexHome, "auth.json"))) return null;
  if (userSelectsProvider(env)) return null;
  return "codex has no credential: set OPENAI_API_KEY (or CODEX_API_KEY), run `codex login`, or name a provider with --codex-config model_provider=\u2026; nothing was run";
}
function proxyPlan2(o) {
  const value = o.credentials.OPENAI_API_KEY ?? o.credentials.CODEX_API_KEY;
  if (value === void 0 || value === "")
    return { kind: "none", note: "key proxy: not used (no codex credential given: the CLI's own login)" };
  if (o.readUserCodexConfig && userSelectsProvider(o.env))
    return {
      kind: "none",
      note: "key proxy: not used (your codex config.toml selects a provider of its own)"
    };
  const provider = operatorCodexProvider(o.codexConfig);
  if (provider.kind === "unusable") return { kind: "refused", message: provider.problem };
  const problem = provider.kind === "provider" ? upstreamProblem(provider.baseUrl) : null;
  if (problem !== null) return { kind: "refused", message: `codex-config base_url: ${problem}` };
  return {
    kind: "proxy",
    credential: { runtime: "codex", variable: "OPENAI_API_KEY", value },
    where: provider.kind === "provider" ? { upstream: provider.baseUrl, codexProvider: provider.id } : {}
  };
}
var CODEX_RUNTIME = {
  name: "codex",
  agentTurn: codexTurn,
  // Its platform binary comes as an optional dependency npm picks.
  cliPackage: { bin: "codex", npmPackage: "@openai/codex", cacheName: "codex" },
  executable: (o) => o.codexExecutable ?? "codex",
  optionsProblem,
  missingCliMessage: (where) => `the codex CLI was not found: ${where}. Install @openai/codex or give the path of the codex executable; nothing was run`,
  graphProblem: (graph) => {
    const withAgent = graph.nodes.filter((node) => node.agent !== null);
    if (withAgent.length === 0) return null;
    const named = withAgent.map((node) => `node "${node.id}" sets agent "${node.agent}"`).join("; ");
    return `${named}: agent names a Claude Code subagent, which the codex runtime cannot run \u2014 run with --runtime claude (input runtime: claude), or remove agent. Nothing was run.`;
  },
  nodeWarnings: (node, declaredTimeout) => [
    ...node.permission_mode === "bypassPermissions" ? [
      `node "${node.id}" runs with permissions bypassed (permission_mode bypassPermissions): codex --sandbox danger-full-access, no sandbox at all`
    ] : [],
    ...node.budget_usd === null ? [] : [
      `node "${node.id}": budget_usd ${node.budget_usd} is not enforced on the codex runtime (codex reports no USD cost, so every codex row's cost is unknown); what bounds this node is its timeout of ${formatDuration(node.timeout_ms)}${declaredTimeout ? "" : " (the default)"}`
    ]
  ],
  recordedSettings: (codexConfig) => (codexConfig ?? []).length > 0 ? { codex_config_keys: codexConfigKeys(codexConfig) } : {},
  resumedSettingsProblem: resumedCodexConfigProblem,
  resumedSession: (saved) => ({
    kind: "resume",
    sessionId: saved.sessionId,
    threadUsage: saved.threadUsage ?? null,
    ...saved.codexHome !== void 0 ? { codexHome: saved.codexHome } : {}
  }),
  threadRecord: (thread) => ({ thread_usage: thread?.usage ?? void 0 }),
  plannerWords: {
    cli: "codex",
    toolNote: "On this runtime the list is checked and recorded, and each node also runs in a sandbox that can write only the working tree."
  },
  credentialVariables: CREDENTIAL_VARIABLES.codex,
  credentialsFromInputs: (inputs) => inputs.openaiApiKey ? { OPENAI_API_KEY: inputs.openaiApiKey, CODEX_API_KEY: inputs.openaiApiKey } : {},
  missingCredentialInputs: (inputs) => inputs.openaiApiKey ? null : ["openai-api-key"],
  missingCredentialMessage: "input `openai-api-key` is empty: runtime codex needs an OpenAI API key (pass a repository secret, e.g. `openai-api-key: <secrets.OPENAI_API_KEY>` in a workflow expression); it reaches the codex CLI only",
  localCredentialProblem,
  proxyPlan: proxyPlan2
};

// src/runtime/runtime-for.ts
var RUNTIMES = { claude: CLAUDE_RUNTIME, codex: CODEX_RUNTIME };
function runtimeFor(name) {
  return RUNTIMES[name ?? "claude"];
}

// src/run/credentials.ts
var CREDENTIAL_VARIABLES2 = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "CODEX_API_KEY"
];
var present = (s) => typeof s === "string" && s !== "";
function cliSecrets(env) {
  const knownSecrets = CREDENTIAL_VARIABLES2.map((name) => env[name]).filter(present);
  const credentialsOf = (runtime) => cliModelCredentials(env, runtime);
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  return {
    knownSecrets,
    redactor: createRedactor(knownSecrets),
    githubToken: token === "" ? void 0 : token,
    modelEnv: (_label, runtime) => buildChildEnv({
      base: env,
      child: { kind: "model", runtime },
      knownSecrets,
      set: credentialsOf(runtime)
    })
  };
}
function localCredentialProblem2(env, runtime, codexConfig) {
  return runtimeFor(runtime).localCredentialProblem(env, codexConfig);
}
function cliModelCredentials(env, runtime) {
  const set = {};
  for (const name of runtimeFor(runtime).credentialVariables) {
    const value = env[name];
    if (present(value)) set[name] = value;
  }
  return set;
}

// src/local-run/local-setup.ts
import { join as join5, resolve as resolve3 } from "node:path";

// src/local-run/local-repository.ts
import { existsSync as existsSync2, realpathSync as realpathSync2, statSync } from "node:fs";
import { relative as relative2, resolve as resolve2, sep as sep2 } from "node:path";

// src/engine/outside-writes.ts
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join as join3, relative, resolve, sep } from "node:path";
var OUTSIDE_WRITES_KEPT = 10;
function outsideWrites(paths, where) {
  const root = realOrSelf(resolve(where.repoRoot));
  const outside = /* @__PURE__ */ new Set();
  for (const path of paths) {
    const placed = placePath(path, where.cwd);
    if (placed === null) {
      outside.add(path);
      continue;
    }
    if (!inside(root, placed)) outside.add(placed);
  }
  if (outside.size === 0) return void 0;
  return { total: outside.size, paths: [...outside].slice(0, OUTSIDE_WRITES_KEPT) };
}
function liesInRepository(path, where) {
  const placed = placePath(path, where.cwd);
  return placed !== null && inside(realOrSelf(resolve(where.repoRoot)), placed);
}
function placePath(path, cwd) {
  if (path === "~" || path.startsWith("~/") || path.startsWith(`~${sep}`)) return null;
  const absolute = resolve(cwd, path);
  const rest = [];
  let current = absolute;
  for (; ; ) {
    if (exists(current)) {
      try {
        return rest.length === 0 ? realpathSync(current) : join3(realpathSync(current), ...rest);
      } catch {
        return null;
      }
    }
    const parent = dirname(current);
    if (parent === current) return null;
    rest.unshift(basename(current));
    current = parent;
  }
}
function exists(path) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
function realOrSelf(path) {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
function inside(root, path) {
  const rel = relative(root, path);
  return rel === "" || !isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`);
}

// src/evidence/evidence-tree.ts
import { mkdtemp, rm as rm2, stat as stat2 } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join as join4 } from "node:path";

// src/evidence/seed-index.ts
import { createHash } from "node:crypto";
import { readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
var SEEDS_KEPT = 32;
var SEED_BYTES_KEPT = 256 * 1024 * 1024;
var STAT_BYTES = 40;
var CTIME_SECONDS_AT = 0;
var MODE_AT = 24;
var SIZE_AT = 36;
var EXTENDED = 16384;
function smudgedSince(bytes, sinceSecond) {
  const checked = checksummedBody(bytes);
  if (checked === null) return null;
  const body = Buffer.from(checked.body);
  const read = walkEntries(body, checked.idLength, (start) => {
    if (body.readUInt32BE(start + CTIME_SECONDS_AT) >= sinceSecond) body.writeUInt32BE(0, start + SIZE_AT);
  });
  if (!read) return null;
  return Buffer.concat([body, createHash(checked.algorithm).update(body).digest()]);
}
var GITLINK_MODE = 57344;
function gitlinkPaths(bytes) {
  const checked = checksummedBody(bytes);
  if (checked === null) return null;
  const paths = [];
  const { body } = checked;
  const read = walkEntries(body, checked.idLength, (start, pathAt, end) => {
    if ((body.readUInt32BE(start + MODE_AT) & 61440) === GITLINK_MODE) {
      paths.push(body.toString("utf8", pathAt, end));
    }
  });
  return read ? paths : null;
}
function checksummedBody(bytes) {
  for (const [algorithm, idLength] of [
    ["sha1", 20],
    ["sha256", 32]
  ]) {
    if (bytes.length < 12 + idLength) continue;
    const body = bytes.subarray(0, bytes.length - idLength);
    if (createHash(algorithm).update(body).digest().equals(bytes.subarray(bytes.length - idLength))) {
      return { body, idLength, algorithm };
    }
  }
  return null;
}
function walkEntries(body, idLength, visit) {
  if (body.toString("latin1", 0, 4) !== "DIRC") return false;
  const version = body.readUInt32BE(4);
  if (version !== 2 && version !== 3) return false;
  const count = body.readUInt32BE(8);
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    const flagsAt = start + STAT_BYTES + idLength;
    if (flagsAt + 2 > body.length) return false;
    const flags = body.readUInt16BE(flagsAt);
    let pathAt = flagsAt + 2;
    if ((flags & EXTENDED) !== 0) {
      if (version < 3) return false;
      pathAt += 2;
    }
    const end = body.indexOf(0, pathAt);
    if (end <= pathAt) return false;
    at = start + (end - start + 8 & ~7);
    if (at > body.length) return false;
    visit(start, pathAt, end);
  }
  while (at < body.length) {
    if (at + 8 > body.length) return false;
    if (body.toString("latin1", at, at + 4) === "link") return false;
    at += 8 + body.readUInt32BE(at + 4);
  }
  return at === body.length;
}
var SeedIndexes = class {
  #seeds = /* @__PURE__ */ new Map();
  #bytes = 0;
  /** The kept seed of `key`, or `null`. */
  get(key) {
    const seed = this.#seeds.get(key);
    if (seed === void 0) return null;
    this.#seeds.delete(key);
    this.#seeds.set(key, seed);
    return seed;
  }
  /**
   * Keeps `indexFile` (git-written by an `add -A` that began in second `readSince`) as `key`'s seed,
   * smudged ({@link smudgedSince}). A seed that cannot be kept is no error: the next tree starts from
   * `HEAD` and reads every file.
   */
  async keep(key, indexFile, readSince) {
    this.#drop(key);
    try {
      const [bytes, written] = await Promise.all([readFile(indexFile), stat(indexFile)]);
      const smudged = smudgedSince(bytes, readSince);
      if (smudged === null || smudged.length > SEED_BYTES_KEPT) return;
      this.#seeds.set(key, { bytes: smudged, mtimeMs: written.mtimeMs });
      this.#bytes += smudged.length;
      while (this.#seeds.size > SEEDS_KEPT || this.#bytes > SEED_BYTES_KEPT) {
        this.#drop(this.#seeds.keys().next().value);
      }
    } catch {
      this.#drop(key);
    }
  }
  #drop(key) {
    const seed = this.#seeds.get(key);
    if (seed === void 0) return;
    this.#seeds.delete(key);
    this.#bytes -= seed.bytes.length;
  }
};
var seedIndexes = new SeedIndexes();
async function copySeed(seed, indexFile) {
  if (seed === null) return false;
  try {
    await writeFile(indexFile, seed.bytes, { mode: 384 });
    const backdated = new Date(seed.mtimeMs - 1e3);
    await utimes(indexFile, backdated, backdated);
    return true;
  } catch {
    await rm(indexFile, { force: true });
    return false;
  }
}

// src/evidence/evidence-tree.ts
var NotAGitRepositoryError = class extends Error {
  constructor(dir, detail) {
    super(
      `${dir} is not inside a git working tree (${detail}); evidence-gate records the evidence tree and the starting commit with git. Run it in a checkout (actions/checkout, or git clone / git init).`
    );
    this.dir = dir;
    this.detail = detail;
    this.name = "NotAGitRepositoryError";
  }
  dir;
  detail;
};
var NoCommitError = class extends Error {
  constructor(dir) {
    super(`${dir} is a git repository with no commit yet: there is no starting commit to verify against.`);
    this.dir = dir;
    this.name = "NoCommitError";
  }
  dir;
};
var gitOptions = (cwd, context, set) => ({
  cwd,
  ...context.baseEnv !== void 0 ? { baseEnv: context.baseEnv } : {},
  ...context.knownSecrets !== void 0 ? { knownSecrets: context.knownSecrets } : {},
  ...set !== void 0 ? { set } : {}
});
async function workTreeRoot(dir, context = {}) {
  try {
    if (!(await stat2(dir)).isDirectory()) throw new NotAGitRepositoryError(dir, "not a directory");
  } catch (error) {
    if (error instanceof NotAGitRepositoryError) throw error;
    throw new NotAGitRepositoryError(dir, "the directory does not exist");
  }
  let root;
  try {
    root = await git(["rev-parse", "--show-toplevel"], gitOptions(dir, context));
  } catch (error) {
    if (error instanceof GitError && /not a git repository|must be run in a work tree/i.test(error.detail)) {
      throw new NotAGitRepositoryError(dir, "git rev-parse --show-toplevel found none");
    }
    throw error;
  }
  if (!isInside(dir, root)) {
    throw new NotAGitRepositoryError(
      dir,
      `git names ${root} as its work tree, which does not contain it: core.worktree points elsewhere`
    );
  }
  return root;
}
async function headCommit(root, context) {
  try {
    return await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], gitOptions(root, context));
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}
function nulFields(bytes) {
  const fields = bytes.toString("utf8").split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}
var EVIDENCE_TREE_PINS = [
  "-c",
  "core.ignoreStat=false",
  "-c",
  "core.checkStat=default",
  "-c",
  "core.trustctime=true",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "core.splitIndex=false",
  // What `add -A` takes from the files: every path (no sparse patterns), the mode and link bits as they are,
  // names as they are spelled, bytes as they are (no CRLF folding without an attribute; attribute
  // conversions are the gap check's: evidence-gaps.ts).
  "-c",
  "core.sparseCheckout=false",
  "-c",
  "core.fileMode=true",
  "-c",
  "core.symlinks=true",
  "-c",
  "core.ignoreCase=false",
  "-c",
  "core.autocrlf=false",
  // A seed is kept only in a form seed-index.ts reads (`feature.manyFiles` would ask for version 4 and no
  // checksum).
  "-c",
  "index.version=2",
  "-c",
  "index.skipHash=false"
];
async function withWorkingTreeIndex(repoDir, context, task) {
  const root = await workTreeRoot(repoDir, context);
  const tempDir = await mkdtemp(join4(tmpdir(), "evidence-gate-index-"));
  const indexFile = join4(tempDir, "index");
  try {
    const readSince = Math.floor(Date.now() / 1e3) - 1;
    const seedKey = `${currentTrustedGit()?.gitDir ?? ""}\0${root}`;
    const scoped = (args) => git([...EVIDENCE_TREE_PINS, ...args], gitOptions(root, context, { GIT_INDEX_FILE: indexFile }));
    if (!await copySeed(seedIndexes.get(seedKey), indexFile)) {
      try {
        await scoped(["read-tree", "HEAD"]);
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        await rm2(indexFile, { force: true });
      }
    }
    const hidden = hiddenPaths(root).map((rel) => `:(top,literal)${rel}`);
    if (hidden.length > 0) {
      await scoped(["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--", ...hidden]);
      const excluded = hidden.map((spec) => spec.replace(":(top,literal)", ":(top,literal,exclude)"));
      await scoped(["add", "-A", "--", ":/", ...excluded]);
    } else await scoped(["add", "-A"]);
    await seedIndexes.keep(seedKey, indexFile, readSince);
    await context.indexOverlay?.apply({ root, git: scoped });
    return await task({ root, git: scoped, indexFile });
  } finally {
    await rm2(tempDir, { recursive: true, force: true });
  }
}
async function evidenceTree(repoDir, context = {}) {
  return (await evidenceTreeAndRoot(repoDir, context)).tree;
}
function evidenceTreeAndRoot(repoDir, context = {}) {
  return withWorkingTreeIndex(repoDir, context, async (scope) => ({
    tree: await scope.git(["write-tree"]),
    root: scope.root
  }));
}
var sameSha = (a, b) => a.toLowerCase() === b.toLowerCase();
async function startingCommit(repoDir, options = {}) {
  const root = await workTreeRoot(repoDir, options);
  const sha = await headCommit(root, options);
  if (sha === null) throw new NoCommitError(root);
  const raw = await git(["cat-file", "commit", sha], gitOptions(root, options));
  const header = raw.split("\n\n", 1)[0] ?? "";
  let tree = "";
  const parents = [];
  for (const line of header.split("\n")) {
    if (line.startsWith("tree ")) tree = line.slice(5).trim();
    else if (line.startsWith("parent ")) parents.push(line.slice(7).trim());
  }
  if (tree === "") throw new GitError(["cat-file", "commit", sha], "commit has no tree line");
  const isMergeOfHead = options.prHead !== void 0 && parents.length === 2 && parents[1] !== void 0 && sameSha(parents[1], options.prHead);
  return { sha, tree, parents, isMergeOfHead };
}
var short = (sha) => sha.slice(0, 7);
function describeStartingCommit(commit) {
  const [base, head] = commit.parents;
  if (commit.parents.length === 2 && base !== void 0 && head !== void 0 && commit.prHead !== void 0) {
    if (sameSha(head, commit.prHead)) {
      return `the merge of ${short(head)} into ${commit.baseRef ?? short(base)}`;
    }
  }
  return short(commit.sha);
}

// src/local-run/local-repository.ts
var isDir = (path) => existsSync2(path) && statSync(path).isDirectory();
var realOrSelf2 = (path) => {
  try {
    return realpathSync2(path);
  } catch {
    return path;
  }
};
async function locateRepository(o) {
  const folder = resolve2(o.cwd, o.repo);
  const named = o.repo === "." ? `the current folder ${folder}` : `--repo ${folder}`;
  if (!existsSync2(folder))
    return { ok: false, problems: [`--repo ${folder} does not exist: give the repository's folder`] };
  if (!isDir(folder))
    return { ok: false, problems: [`--repo ${folder} is not a folder: give the repository's folder`] };
  let root;
  try {
    root = await workTreeRoot(folder, { baseEnv: o.env, knownSecrets: o.knownSecrets });
  } catch (error) {
    if (!(error instanceof NotAGitRepositoryError)) throw error;
    return {
      ok: false,
      problems: [
        `${named} is not inside a git working tree: evidence-gate records its evidence with git. Run it in a clone (git clone, or git init and a first commit), or give --repo a clone's folder. Nothing was run.`
      ]
    };
  }
  const workDir = resolve2(folder, o.workingDirectory ?? ".");
  const given = o.workingDirectory !== void 0 ? `--working-directory ${o.workingDirectory}` : named;
  if (!liesInRepository(workDir, { cwd: root, repoRoot: root })) {
    return {
      ok: false,
      problems: [
        `${given} is outside the repository ${root} (the git working tree of --repo): give a folder inside it (--working-directory is relative to --repo)`
      ]
    };
  }
  if (!isDir(workDir)) {
    return {
      ok: false,
      problems: [`${given} is not a folder inside ${root} (--working-directory is relative to --repo)`]
    };
  }
  const down = relative2(realOrSelf2(root), realOrSelf2(workDir)).split(sep2).join("/");
  return { ok: true, repo: { repoDir: root, ...down !== "" ? { workingDirectory: down } : {} } };
}

// src/local-run/local-setup.ts
function refuseUsage(io, command, problems) {
  if (problems.length === 0) return null;
  io.err.write(`evidence-gate ${command}: ${problems.join(`
evidence-gate ${command}: `)}
`);
  return EXIT.usage;
}
function runsDirFor(repoDir, runsDir, cwd) {
  return runsDir !== void 0 ? resolve3(cwd, runsDir) : join5(repoDir, ".evidence-gate", "runs");
}
async function savedRunsDir(io, repo, runsDir) {
  if (runsDir !== void 0) return resolve3(io.cwd, runsDir);
  const located = await locateRepository({ cwd: io.cwd, repo, env: io.env, knownSecrets: [] });
  return runsDirFor(located.ok ? located.repo.repoDir : resolve3(io.cwd, repo), void 0, io.cwd);
}
function pathProblems(f, cwd) {
  const problems = [];
  for (const [flag, value] of [
    ["--check-run-out", f.checkRunOut],
    ["--summary-out", f.summaryOut]
  ]) {
    if (value === void 0) continue;
    const problem = outputFileProblem(`${flag} ${value}`, resolve3(cwd, value));
    if (problem !== null) problems.push(problem);
  }
  return problems;
}
async function checkedRepository(command, f, io, o) {
  const knownSecrets = cliSecrets(io.env).knownSecrets;
  const located = await locateRepository({
    cwd: io.cwd,
    repo: f.repo,
    ...f.workingDirectory !== void 0 ? { workingDirectory: f.workingDirectory } : {},
    env: io.env,
    knownSecrets
  });
  const codex = f.runtime !== void 0 ? localCredentialProblem2(io.env, f.runtime, f.codexConfig ?? []) : null;
  const problems = [
    ...located.ok ? [] : located.problems,
    ...pathProblems(f, io.cwd),
    ...codex !== null ? [codex] : [],
    ...o.extra ?? []
  ];
  if (located.ok && o.runs) {
    const runsDir = runsDirFor(located.repo.repoDir, f.runsDir, io.cwd);
    const runsProblem = f.runsDir !== void 0 ? folderWriteProblem(
      `--runs-dir ${f.runsDir}`,
      runsDir,
      "give a folder on a writable disk (it is created when missing)"
    ) : folderWriteProblem(
      `the runs folder ${runsDir}`,
      runsDir,
      "give --runs-dir DIR on a writable disk, or run in a writable clone"
    );
    if (runsProblem !== null) problems.push(runsProblem);
    const objects = await gitObjectsProblem(located.repo.repoDir, { env: io.env, knownSecrets });
    if (objects !== null) problems.push(objects);
  }
  if (located.ok && f.baseRef !== void 0) {
    const found = await git(["rev-parse", "--verify", "--quiet", `${f.baseRef}^{commit}`], {
      cwd: located.repo.repoDir,
      baseEnv: io.env,
      knownSecrets
    }).catch(() => null);
    if (found === null)
      problems.push(
        `--base ${f.baseRef} names no commit in ${located.repo.repoDir}: give a branch, tag or commit it has (git fetch it first, or check the spelling)`
      );
  }
  const refused = refuseUsage(io, command, problems);
  if (refused !== null || !located.ok) return { exit: refused ?? EXIT.usage };
  return located.repo;
}
async function readCliPolicy(repoDir, say) {
  const policyFile = await readWorkingTreePolicy(repoDir);
  if (!policyFile.ok) {
    for (const error of policyFile.errors) say.error(error);
    return null;
  }
  if (policyFile.source.kind !== "none")
    say.line(`policy: ${describePolicySource(policyFile.source)}: ${policySummary(policyFile.policy)}`);
  return policyFile;
}

// src/cli/shared-flags.ts
import { parseArgs } from "node:util";

// src/run/max-cycles.ts
var MAX_CYCLES = 5;
function readMaxCycles(text, name, errors) {
  if (text === void 0 || text.trim() === "") return 1;
  const t = text.trim();
  const n = Number(t);
  if (/^\d+$/.test(t) && n >= 1 && n <= MAX_CYCLES) return n;
  errors.push(
    `${name} is ${JSON.stringify(text)}: give a whole number from 1 (one run, the default) to ${MAX_CYCLES}, the runs one goal may take`
  );
  return 1;
}
function readMaxCostUsd(text, name, errors) {
  if (text === void 0 || text.trim() === "") return void 0;
  const t = text.trim();
  const n = Number(t);
  if (/^\d+(\.\d+)?$/.test(t) && Number.isFinite(n) && n > 0) return n;
  errors.push(`${name} is ${JSON.stringify(text)}: give a positive amount of US dollars, e.g. 2.50`);
  return void 0;
}
function readGoalLoop(given, names, errors) {
  const maxCycles = readMaxCycles(given.maxCycles, names.maxCycles, errors);
  const maxCostUsd = readMaxCostUsd(given.maxCostUsd, names.maxCostUsd, errors);
  if (maxCostUsd !== void 0 && maxCycles === 1) errors.push(names.refusal);
  return { maxCycles, ...maxCostUsd !== void 0 ? { maxCostUsd } : {} };
}

// src/run/repair-attempts.ts
function readRepairAttempts(text, name, errors) {
  if (text === void 0 || text.trim() === "") return 0;
  const n = Number(text.trim());
  if (/^\d+$/.test(text.trim()) && n <= MAX_REPAIR_ATTEMPTS) return n;
  errors.push(
    `${name} is ${JSON.stringify(text)}: give a whole number from 0 (off) to ${MAX_REPAIR_ATTEMPTS}, the times a failing build is fed back to a sink`
  );
  return 0;
}
var MAX_REPAIR_ATTEMPTS = 10;

// src/cli/shared-flags.ts
function parseCommandLine(argv, options, allowPositionals) {
  try {
    const parsed = parseArgs({
      args: joinNegativeValues(argv, options),
      strict: true,
      allowPositionals,
      tokens: true,
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          { type: spec.type, ...spec.multiple === true ? { multiple: true } : {} }
        ])
      )
    });
    const seen = /* @__PURE__ */ new Map();
    for (const token of parsed.tokens) {
      if (token.kind === "option" && options[token.name]?.multiple !== true)
        seen.set(token.name, (seen.get(token.name) ?? 0) + 1);
    }
    const repeated = [...seen].filter(([, count]) => count > 1).map(([name]) => name);
    if (repeated.length > 0)
      return {
        ok: false,
        errors: repeated.map((name) => `--${name} was given more than once: give it once`)
      };
    return { ok: true, line: { values: parsed.values, positionals: parsed.positionals } };
  } catch (error) {
    return { ok: false, errors: [parserProblem(error)] };
  }
}
function parserProblem(error) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error?.code;
  const quoted = /'([^']*)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted !== void 0)
    return `unknown flag ${quoted}: check its spelling against the flags --help lists`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted !== void 0) {
    const flag = quoted.split(" ")[0];
    if (message.includes("ambiguous"))
      return `${flag} needs a value, and the word after it starts with "-": give it as ${flag}=VALUE`;
    return message.includes("argument missing") ? `${flag} needs a value: ${flag} VALUE` : `${flag} takes no value: give ${flag} alone`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted !== void 0)
    return `unexpected argument ${JSON.stringify(quoted)}: this command takes only flags (a flag's value goes right after it)`;
  return message;
}
function joinNegativeValues(argv, options) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (arg.startsWith("--") && options[arg.slice(2)]?.type === "string" && next !== void 0 && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}
function flagReader(line) {
  return {
    str: (name) => {
      const v = line.values[name];
      return typeof v === "string" ? v : void 0;
    },
    bool: (name) => line.values[name] === true,
    list: (name) => {
      const v = line.values[name];
      return Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
    },
    given: (name) => line.values[name] !== void 0,
    positionals: line.positionals
  };
}
var NOT_EMPTY = {
  "verify-repeat": `a whole number from 1 to ${MAX_VERIFY_REPEAT}`,
  "max-cycles": `a whole number from 1 to ${MAX_CYCLES}`,
  "repair-attempts": `a whole number from 0 to ${MAX_REPAIR_ATTEMPTS}`,
  model: "a model name the runtime accepts (e.g. sonnet)"
};
function parseFlags(argv, options, allowPositionals, read) {
  const parsed = parseCommandLine(argv, options, allowPositionals);
  if (!parsed.ok) return parsed;
  const errors = [];
  for (const [name, wanted] of Object.entries(NOT_EMPTY)) {
    const value = parsed.line.values[name];
    if (name in options && typeof value === "string" && value.trim() === "")
      errors.push(`--${name} ${JSON.stringify(value)}: give ${wanted}, or leave the flag out`);
  }
  const flags = read(flagReader(parsed.line), errors);
  return errors.length > 0 || flags === void 0 ? { ok: false, errors } : { ok: true, flags };
}
function onePositional(f, errors, problems) {
  const [first, ...extra] = f.positionals;
  if (first === void 0 || first.trim() === "") errors.push(problems.missing);
  if (extra.length > 0) errors.push(problems.extra(extra.map((arg) => JSON.stringify(arg)).join(", ")));
  return first;
}
function opt(key, value) {
  return value === void 0 ? {} : { [key]: value };
}
var INPUT_NAME = /^[A-Za-z0-9._/-]+$/;
function repositoryFlagProblem(repository) {
  const [owner, name, ...rest] = repository.split("/");
  const ok = rest.length === 0 && owner !== void 0 && /^[A-Za-z0-9-]+$/.test(owner) && name !== void 0 && /^[A-Za-z0-9._-]+$/.test(name) && name !== "." && name !== "..";
  return ok ? null : `--repository ${JSON.stringify(repository)}: give OWNER/NAME (the owner letters, digits and -; the name letters, digits, ., _ and -)`;
}
function inputFlags(pairs, errors) {
  const inputs = /* @__PURE__ */ Object.create(null);
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const name = at < 0 ? pair : pair.slice(0, at);
    if (at < 0 || name === "") {
      errors.push(`--input ${JSON.stringify(pair)}: give NAME=VALUE, e.g. --input task="fix the login bug"`);
    } else if (!INPUT_NAME.test(name)) {
      errors.push(
        `--input ${JSON.stringify(pair)}: NAME may hold only letters, digits, ".", "_", "-" or "/" (it is what {{ inputs.NAME }} names)`
      );
    } else if (Object.hasOwn(inputs, name)) {
      errors.push(`--input ${name} was given more than once: give each input once`);
    } else {
      inputs[name] = pair.slice(at + 1);
    }
  }
  return inputs;
}

// src/cli/parse-command.ts
function parseOrExit(argv, io, command, usage, parse) {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(usage);
    return { exit: EXIT.passed };
  }
  const parsed = parse(argv);
  if (parsed.ok) return { flags: parsed.flags };
  io.err.write(
    `evidence-gate ${command}: ${parsed.errors.join(`
evidence-gate ${command}: `)}
${helpHint(command)}
`
  );
  return { exit: EXIT.usage };
}
function helpHint(command) {
  return `run \`evidence-gate ${command} --help\` for its flags`;
}

export {
  keyProxyUpstream,
  startKeyProxy,
  oneLine,
  clip,
  claudeNotLoggedInMessage,
  parseDuration,
  formatDuration,
  parseCodexConfig,
  buildCodexArgv,
  codexTokenUsage,
  runtimeFor,
  cliSecrets,
  cliModelCredentials,
  outsideWrites,
  liesInRepository,
  gitlinkPaths,
  NotAGitRepositoryError,
  NoCommitError,
  gitOptions,
  workTreeRoot,
  nulFields,
  withWorkingTreeIndex,
  evidenceTree,
  evidenceTreeAndRoot,
  startingCommit,
  describeStartingCommit,
  refuseUsage,
  runsDirFor,
  savedRunsDir,
  checkedRepository,
  readCliPolicy,
  MAX_CYCLES,
  readGoalLoop,
  readRepairAttempts,
  parseFlags,
  onePositional,
  opt,
  repositoryFlagProblem,
  inputFlags,
  parseOrExit
};
