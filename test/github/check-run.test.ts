/**
 * The check-run lifecycle against the local GitHub double: every request the client sends must pass
 * GitHub's description, and every refusal must reach the caller as a CheckRunWriteError.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CHECK_RUN_TEXT_MAX_BYTES,
  CHECK_RUN_TITLE_MAX_CHARS,
  CheckRunClient,
  CheckRunWriteError,
  clampCheckRunTitle,
} from "../../src/github/check-run.js";
import { createOctokit } from "../../src/github/octokit.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const CREATE = "/repos/{owner}/{repo}/check-runs";
const UPDATE = "/repos/{owner}/{repo}/check-runs/{check_run_id}";
const NOW = new Date("2025-03-11T09:30:00.123Z");

let server: GitHubServer;
let warnings: string[];

function client(options: { redact?: (text: string) => string; url?: string } = {}): CheckRunClient {
  const octokit = createOctokit({
    token: "ghs_test",
    baseUrl: options.url ?? server.url,
    timing: TEST_TIMING,
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
  return new CheckRunClient({
    octokit,
    owner: "octo-org",
    repo: "widgets",
    warn: (m) => warnings.push(m),
    now: () => NOW,
    ...(options.redact === undefined ? {} : { redact: options.redact }),
  });
}

const created = {
  name: "evidence-gate",
  headSha: HEAD_SHA,
  externalId: "20250311-093000-a1b2c3",
  title: "Planning",
  summary: "Planning the graph.",
};

async function failure(promise: Promise<unknown>): Promise<CheckRunWriteError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckRunWriteError);
  return error as CheckRunWriteError;
}

beforeEach(async () => {
  server = await startGitHubServer({ token: "ghs_test" });
  warnings = [];
});
afterEach(async () => {
  await server.close();
});

describe("CheckRunClient: the lifecycle", () => {
  it("create → update → complete is sent in order, each request valid against GitHub's description", async () => {
    const checks = client();
    const ref = await checks.create({
      ...created,
      detailsUrl: "https://github.com/octo-org/widgets/actions/runs/1",
    });
    await checks.update(ref.id, { title: "Running 2 of 3 nodes", summary: "| node | verdict |" });
    const done = await checks.complete(ref.id, {
      conclusion: "success",
      title: "3 nodes passed, every sink verified",
      summary: "## Ledger",
      text: "details",
      externalId: "20250311-093000-a1b2c3",
    });

    server.assertNoViolations();
    expect(ref.htmlUrl).toBe(`https://github.com/octo-org/widgets/runs/${ref.id}`);
    expect(done).toEqual(ref);
    expect(server.calls.map((c) => [c.method, c.route])).toEqual([
      ["POST", CREATE],
      ["PATCH", UPDATE],
      ["PATCH", UPDATE],
    ]);
    expect(server.calls[0]?.body).toEqual({
      name: "evidence-gate",
      head_sha: HEAD_SHA,
      external_id: "20250311-093000-a1b2c3",
      status: "in_progress",
      started_at: "2025-03-11T09:30:00Z",
      details_url: "https://github.com/octo-org/widgets/actions/runs/1",
      output: { title: "Planning", summary: "Planning the graph." },
    });
    expect(server.calls[1]?.body).toEqual({
      output: { title: "Running 2 of 3 nodes", summary: "| node | verdict |" },
    });
    expect(server.calls[2]?.body).toEqual({
      status: "completed",
      conclusion: "success",
      completed_at: "2025-03-11T09:30:00Z",
      external_id: "20250311-093000-a1b2c3",
      output: { title: "3 nodes passed, every sink verified", summary: "## Ledger", text: "details" },
    });
    expect(server.state.checkRuns).toEqual([
      expect.objectContaining({
        status: "completed",
        conclusion: "success",
        completedAt: "2025-03-11T09:30:00Z",
      }),
    ]);
  });

  it("a re-run finds the newest run of that name on the head SHA among its own app's runs, and restarts it", async () => {
    server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      app: { id: 99, slug: "other-app", name: "Other", owner: { login: "someone", id: 5, type: "User" } },
    });
    const older = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      conclusion: "failure",
    });
    const checks = client();

    const found = await checks.findLatest({ name: "evidence-gate", headSha: HEAD_SHA, appId: 15368 });
    expect(found).toMatchObject({ id: older.id, status: "completed", conclusion: "failure", appId: 15368 });
    await checks.restart(older.id, {
      externalId: "20250311-100000-ffffff",
      title: "Planning",
      summary: "again",
    });

    server.assertNoViolations();
    expect(server.calls[0]?.query).toEqual({
      check_name: "evidence-gate",
      filter: "latest",
      per_page: "100",
      app_id: "15368",
    });
    expect(server.state.checkRuns.find((r) => r.id === older.id)).toMatchObject({
      status: "in_progress",
      externalId: "20250311-100000-ffffff",
      startedAt: "2025-03-11T09:30:00Z",
    });
  });

  it("findLatest answers undefined when no run of that name exists on the SHA", async () => {
    expect(await client().findLatest({ name: "evidence-gate", headSha: HEAD_SHA })).toBeUndefined();
    server.assertNoViolations();
  });

  it("get reads one check run's status, conclusion and external_id as GitHub shows it now", async () => {
    const checks = client();
    const ref = await checks.create(created);
    expect(await checks.get(ref.id)).toMatchObject({
      id: ref.id,
      status: "in_progress",
      conclusion: null,
      externalId: created.externalId,
    });
    await checks.complete(ref.id, { conclusion: "failure", title: "Failed", summary: "x" });
    expect(await checks.get(ref.id)).toMatchObject({ status: "completed", conclusion: "failure" });
    const missing = await failure(checks.get(ref.id + 1000));
    expect(missing.status).toBe(404);
    expect(missing.request).toMatchObject({ operation: "get", method: "GET" });
    expect(server.callsTo("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}")).toHaveLength(3);
    server.assertNoViolations();
  });
});

describe("CheckRunClient: a refused write is an error the user sees", () => {
  it("a 403 on create is a CheckRunWriteError naming the missing permission `checks: write`", async () => {
    server.failNext({ method: "POST", pathPattern: CREATE, status: 403 });
    const error = await failure(client().create(created));
    expect(error.status).toBe(403);
    expect(error.message).toContain("`checks: write`");
    expect(error.message).toContain('GitHub answered 403 "Resource not accessible by integration"');
    expect(error.request).toMatchObject({
      operation: "create",
      method: "POST",
      body: { head_sha: HEAD_SHA },
    });
    expect(error.request.url).toMatch(/\/repos\/octo-org\/widgets\/check-runs$/);
    expect(server.calls).toHaveLength(1);
  });

  it("a 404 on complete is a CheckRunWriteError naming `checks: write`", async () => {
    server.failNext({ method: "PATCH", pathPattern: UPDATE, status: 404 });
    const checks = client();
    const { id } = await checks.create(created);
    const error = await failure(checks.complete(id, { conclusion: "failure", title: "t", summary: "s" }));
    expect(error).toMatchObject({ status: 404, request: { operation: "complete", method: "PATCH" } });
    expect(error.message).toMatch(
      /^Could not complete check run \d+ in octo-org\/widgets: GitHub answered 404/,
    );
    expect(error.message).toContain("`checks: write`");
  });

  it("a rate-limit 403 that outlasts the retries is reported as a rate limit, not as a permission problem", async () => {
    server.failNext({
      method: "POST",
      pathPattern: CREATE,
      status: 403,
      times: 5,
      headers: { "retry-after": "1" },
      body: {
        message: "You have exceeded a secondary rate limit.",
        documentation_url: "https://docs.github.com",
      },
    });
    const error = await failure(client().create(created));
    expect(error.message).toContain("rate limit was hit and the retries ran out");
    expect(error.message).not.toContain("checks: write");
  });

  it("a 422 carries GitHub's validation message", async () => {
    server.failNext({
      method: "PATCH",
      pathPattern: UPDATE,
      status: 422,
      body: {
        message: "Validation Failed",
        errors: [{ resource: "CheckRun", code: "custom", field: "summary", message: "summary is broken" }],
        documentation_url: "https://docs.github.com/rest/checks/runs#update-a-check-run",
      },
    });
    const checks = client();
    const { id } = await checks.create(created);
    const error = await failure(checks.update(id, { title: "t", summary: "s" }));
    expect(error).toMatchObject({ status: 422, githubMessage: "Validation Failed: summary is broken" });
  });

  it("no answer at all (nothing listening) is a CheckRunWriteError without a status", async () => {
    const url = server.url;
    await server.close();
    const error = await failure(client({ url }).create(created));
    expect(error.status).toBeUndefined();
    expect(error.message).toContain("no answer from the GitHub API");
    server = await startGitHubServer();
  });
});

describe("CheckRunClient: GitHub's output limits", () => {
  it(`a title over ${CHECK_RUN_TITLE_MAX_CHARS} characters is cut to ${CHECK_RUN_TITLE_MAX_CHARS}, ending in …`, () => {
    const title = "🙂".repeat(300);
    const clamped = clampCheckRunTitle(title);
    expect(Array.from(clamped)).toHaveLength(CHECK_RUN_TITLE_MAX_CHARS);
    expect(clamped.endsWith("🙂…")).toBe(true);
    expect(clampCheckRunTitle("x".repeat(255))).toBe("x".repeat(255));
  });

  it("a summary over 65535 bytes is cut here with a notice and a warning, and GitHub accepts the request", async () => {
    const summary = "é".repeat(40_000); // 80000 bytes
    const checks = client();
    await checks.create({ ...created, summary, title: "x".repeat(400) });
    server.assertNoViolations();
    const sent = server.calls[0]!.body as { output: { summary: string; title: string } };
    expect(Buffer.byteLength(sent.output.summary, "utf8")).toBeLessThanOrEqual(CHECK_RUN_TEXT_MAX_BYTES);
    expect(sent.output.summary).toContain("Cut by evidence-gate");
    expect(Array.from(sent.output.title)).toHaveLength(255);
    expect(warnings).toEqual([expect.stringContaining("output.summary was 80000 bytes")]);
  });

  it("a summary of exactly 65535 bytes is sent unchanged and without a warning", async () => {
    const summary = "y".repeat(CHECK_RUN_TEXT_MAX_BYTES);
    const checks = client();
    const { id } = await checks.create(created);
    await checks.update(id, { title: "t", summary, text: summary });
    server.assertNoViolations();
    expect(server.calls[1]?.body).toMatchObject({ output: { summary } });
    expect(warnings).toEqual([]);
  });

  it("redact is applied to title, summary and text before they leave the process", async () => {
    const checks = client({ redact: (text) => text.replaceAll("sk-secret", "***") });
    const { id } = await checks.create({ ...created, title: "t sk-secret", summary: "s sk-secret" });
    await checks.complete(id, {
      conclusion: "failure",
      title: "sk-secret",
      summary: "sk-secret",
      text: "sk-secret",
    });
    expect(JSON.stringify(server.calls.map((c) => c.body))).not.toContain("sk-secret");
    server.assertNoViolations();
  });
});
