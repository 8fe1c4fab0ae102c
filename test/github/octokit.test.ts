/**
 * Retry and throttling rules of the Octokit factory, against the local GitHub double. Waits are
 * shrunk to milliseconds through `timing`; the number of attempts is what is asserted.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  apiUrlFromEnv,
  BACKOFF_SECOND_MS_VARIABLE,
  createOctokit,
  DEFAULT_API_URL,
  type GateOctokit,
  octokitFromEnv,
  RATE_LIMIT_RETRIES,
  SERVER_ERROR_RETRIES,
  serverErrorBackoffMs,
  timingFromEnv,
} from "../../src/github/octokit.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const ROUTE = "/repos/{owner}/{repo}/check-runs";

let server: GitHubServer;
let octokit: GateOctokit;
let warnings: string[];

beforeEach(async () => {
  server = await startGitHubServer({ token: "ghs_test" });
  warnings = [];
  octokit = createOctokit({
    token: "ghs_test",
    baseUrl: server.url,
    timing: TEST_TIMING,
    log: { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
  });
});
afterEach(async () => {
  await server.close();
});

function createCheckRun() {
  return octokit.rest.checks.create({
    owner: "octo-org",
    repo: "widgets",
    name: "evidence-gate",
    head_sha: HEAD_SHA,
    status: "in_progress",
    output: { title: "Planning", summary: "Planning the graph." },
  });
}

async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { status?: number }).status;
  }
}

describe("createOctokit: what is retried", () => {
  it("a 500 followed by success is retried and the request succeeds", async () => {
    server.failNext({ method: "POST", pathPattern: ROUTE, status: 500 });
    const { status } = await createCheckRun();
    expect(status).toBe(201);
    expect(server.callsTo("POST", ROUTE).map((c) => c.status)).toEqual([500, 201]);
    server.assertNoViolations();
  });

  it(`5xx is retried ${SERVER_ERROR_RETRIES} times, then the error surfaces`, async () => {
    server.failNext({ method: "POST", pathPattern: ROUTE, status: 502, times: 10 });
    expect(await statusOf(createCheckRun())).toBe(502);
    expect(server.callsTo("POST", ROUTE)).toHaveLength(1 + SERVER_ERROR_RETRIES);
  });

  it("a 422 is never retried", async () => {
    server.failNext({ method: "POST", pathPattern: ROUTE, status: 422 });
    expect(await statusOf(createCheckRun())).toBe(422);
    expect(server.callsTo("POST", ROUTE)).toHaveLength(1);
    server.assertNoViolations();
  });

  it("a 403 that is not a rate limit (missing permission) is never retried", async () => {
    server.failNext({ method: "POST", pathPattern: ROUTE, status: 403 });
    expect(await statusOf(createCheckRun())).toBe(403);
    expect(server.callsTo("POST", ROUTE)).toHaveLength(1);
  });

  it("a secondary rate limit (403) is retried after retry-after and then succeeds", async () => {
    server.failNext({
      method: "POST",
      pathPattern: ROUTE,
      status: 403,
      headers: { "retry-after": "2" },
      body: {
        message: "You have exceeded a secondary rate limit. Please wait.",
        documentation_url: "https://docs.github.com",
      },
    });
    expect((await createCheckRun()).status).toBe(201);
    expect(server.callsTo("POST", ROUTE).map((c) => c.status)).toEqual([403, 201]);
    expect(warnings.join("\n")).toMatch(/secondary rate limit on POST .*retrying after 2s \(retry 1 of 2\)/);
  });

  it(`a rate limit (429, x-ratelimit-remaining: 0) is retried at most ${RATE_LIMIT_RETRIES} times`, async () => {
    server.failNext({
      method: "POST",
      pathPattern: ROUTE,
      status: 429,
      times: 10,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(Math.floor(Date.now() / 1000)) },
      body: {
        message: "API rate limit exceeded for installation.",
        documentation_url: "https://docs.github.com",
      },
    });
    expect(await statusOf(createCheckRun())).toBe(429);
    expect(server.callsTo("POST", ROUTE)).toHaveLength(1 + RATE_LIMIT_RETRIES);
    expect(warnings.at(-1)).toMatch(/primary rate limit .*giving up after 2 retries/);
  });

  it("the token is sent on every request", async () => {
    await createCheckRun();
    expect(server.calls[0]?.authorization).toBe("token ghs_test");
    server.assertNoViolations();
  });
});

describe("apiUrlFromEnv: GitHub Enterprise Server through GITHUB_API_URL", () => {
  it("reads GITHUB_API_URL when set, and defaults to api.github.com when unset or empty", () => {
    expect(apiUrlFromEnv({ GITHUB_API_URL: "https://ghe.example.com/api/v3" })).toBe(
      "https://ghe.example.com/api/v3",
    );
    expect(apiUrlFromEnv({})).toBe(DEFAULT_API_URL);
    expect(apiUrlFromEnv({ GITHUB_API_URL: " " })).toBe("https://api.github.com");
  });

  it("a baseUrl with a path prefix (GHES /api/v3) is kept in request URLs", async () => {
    const ghes = createOctokit({ token: "t", baseUrl: `${server.url}/api/v3/`, timing: { retryBaseMs: 1 } });
    expect(ghes.request.endpoint.DEFAULTS.baseUrl).toBe(`${server.url}/api/v3`);
  });
});

describe(`${BACKOFF_SECOND_MS_VARIABLE}: the documented way tests shorten the waits`, () => {
  it("unset or empty: GitHub's own waits; a number: milliseconds per second of backoff; anything else is refused by name", () => {
    expect(timingFromEnv({})).toEqual({});
    expect(timingFromEnv({ [BACKOFF_SECOND_MS_VARIABLE]: " " })).toEqual({});
    expect(timingFromEnv({ [BACKOFF_SECOND_MS_VARIABLE]: "1" })).toEqual({
      retryBaseMs: 1,
      rateLimitUnitMs: 1,
      spaceWrites: false,
    });
    expect(timingFromEnv({ [BACKOFF_SECOND_MS_VARIABLE]: "2000" })).toEqual({
      retryBaseMs: 2000,
      rateLimitUnitMs: 2000,
    });
    expect(() => timingFromEnv({ [BACKOFF_SECOND_MS_VARIABLE]: "-5" })).toThrow(BACKOFF_SECOND_MS_VARIABLE);
    expect(() => timingFromEnv({ [BACKOFF_SECOND_MS_VARIABLE]: "1s" })).toThrow(
      /whole number of milliseconds/,
    );
  });

  it("octokitFromEnv retries a 502 on the scaled schedule, and the hand-retry backoff follows the same scale", async () => {
    const scaled = octokitFromEnv("ghs_test", {
      GITHUB_API_URL: server.url,
      [BACKOFF_SECOND_MS_VARIABLE]: "1",
    });
    server.failNext({ method: "POST", pathPattern: ROUTE, status: 502, times: 2 });
    const { status } = await scaled.rest.checks.create({
      owner: "octo-org",
      repo: "widgets",
      name: "evidence-gate",
      head_sha: HEAD_SHA,
    });
    expect(status).toBe(201);
    expect(server.callsTo("POST", ROUTE).map((c) => c.status)).toEqual([502, 502, 201]);
    expect(serverErrorBackoffMs(scaled, 3)).toBe(9);
    expect(serverErrorBackoffMs(createOctokit({ token: "t" }), 2)).toBe(4000);
  });
});
