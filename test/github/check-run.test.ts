/**
 * The check-run lifecycle against the local GitHub double: every request the client sends must pass
 * GitHub's description, and every refusal must reach the caller as a CheckRunWriteError.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CHECK_RUN_ANNOTATIONS_PER_REQUEST,
  CHECK_RUN_TEXT_MAX_BYTES,
  CHECK_RUN_TITLE_MAX_CHARS,
  type CheckRunAnnotation,
  CheckRunClient,
  CheckRunWriteError,
  clampCheckRunTitle,
  ourCheckRun,
} from "../../src/github/check-run.js";
import { createOctokit, SERVER_ERROR_RETRIES } from "../../src/github/octokit.js";
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

/** True when `text` has no lone surrogate (a UTF-8 round trip would replace one with U+FFFD). */
function wellFormed(text: string): boolean {
  return Buffer.from(text, "utf8").toString("utf8") === text;
}

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
    expect(error.tokenRefused).toBe(true);
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
    expect(error).toMatchObject({
      status: 404,
      tokenRefused: true,
      request: { operation: "complete", method: "PATCH" },
    });
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
    expect(error.tokenRefused).toBe(false);
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
    expect(error).toMatchObject({
      status: 422,
      githubMessage: "Validation Failed: summary is broken",
      tokenRefused: false,
    });
  });

  it("no answer at all (nothing listening) is a CheckRunWriteError without a status", async () => {
    const url = server.url;
    await server.close();
    const error = await failure(client({ url }).create(created));
    expect(error.status).toBeUndefined();
    expect(error.tokenRefused).toBe(false);
    expect(error.message).toContain(`no answer from the GitHub API at ${new URL(url).origin}`);
    expect(error.message).toContain("GITHUB_API_URL");
    server = await startGitHubServer();
  });

  it("an HTML answer (a web server at a wrong GITHUB_API_URL) is named as such: no page pasted, no checks: write advice", async () => {
    const page = "<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>";
    const web = createServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html; charset=utf-8" });
      res.end(page);
    });
    await new Promise<void>((done) => web.listen(0, "127.0.0.1", done));
    const { port } = web.address() as AddressInfo;
    try {
      const error = await failure(client({ url: `http://127.0.0.1:${port}` }).create(created));
      expect(error.status).toBe(404);
      expect(error.message).toContain(
        `http://127.0.0.1:${port} answered 404 with an HTML page (text/html), not the GitHub API's JSON`,
      );
      expect(error.message).toContain("GITHUB_API_URL");
      expect(error.message).not.toContain("<html>");
      expect(error.message).not.toContain("checks: write");
    } finally {
      await new Promise((done) => web.close(done));
    }
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

const LIST = "/repos/{owner}/{repo}/commits/{ref}/check-runs";

describe("CheckRunClient.create: retried without ever making a second check run", () => {
  it("502 twice, then 201: one check run; before each retry the client looked for it by external_id", async () => {
    server.failNext({ method: "POST", pathPattern: CREATE, status: 502, times: 2 });
    const ref = await client().create(created);

    server.assertNoViolations();
    expect(server.calls.map((c) => [c.method, c.route, c.status])).toEqual([
      ["POST", CREATE, 502],
      ["GET", LIST, 200],
      ["POST", CREATE, 502],
      ["GET", LIST, 200],
      ["POST", CREATE, 201],
    ]);
    expect(server.callsTo("GET", LIST)[0]?.query).toMatchObject({
      check_name: "evidence-gate",
      filter: "all",
    });
    expect(server.state.checkRuns).toHaveLength(1);
    expect(server.state.checkRuns[0]).toMatchObject({ id: ref.id, externalId: created.externalId });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/GitHub answered 502.*retry 1 of 3/);
  });

  it("a 502 sent after GitHub created it (a gateway timeout): found by external_id, not created again", async () => {
    server.failNext({ method: "POST", pathPattern: CREATE, status: 502, afterHandling: true });
    const ref = await client().create(created);

    server.assertNoViolations();
    expect(server.calls.map((c) => [c.method, c.status])).toEqual([
      ["POST", 502],
      ["GET", 200],
    ]);
    expect(server.state.checkRuns).toHaveLength(1);
    expect(ref.id).toBe(server.state.checkRuns[0]!.id);
  });

  it("another leg's check run of the same name is not mistaken for this one's", async () => {
    server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      externalId: "20250311-080000-000000",
    });
    server.failNext({ method: "POST", pathPattern: CREATE, status: 503 });
    const ref = await client().create(created);
    expect(server.state.checkRuns).toHaveLength(2);
    expect(server.state.checkRuns[1]).toMatchObject({ id: ref.id, externalId: created.externalId });
  });

  it(`5xx on every attempt: ${1 + SERVER_ERROR_RETRIES} creates, then the error surfaces`, async () => {
    server.failNext({ method: "POST", pathPattern: CREATE, status: 502, times: 10 });
    const error = await failure(client().create(created));
    expect(error.status).toBe(502);
    expect(server.callsTo("POST", CREATE)).toHaveLength(1 + SERVER_ERROR_RETRIES);
    expect(server.state.checkRuns).toEqual([]);
  });

  it("a 422 is never retried (nor looked up)", async () => {
    server.failNext({ method: "POST", pathPattern: CREATE, status: 422 });
    const error = await failure(client().create(created));
    expect(error.status).toBe(422);
    expect(server.calls.map((c) => [c.method, c.status])).toEqual([["POST", 422]]);
  });

  it("a 403 names `checks: write` and the two-stage mode for forks", async () => {
    server.failNext({ method: "POST", pathPattern: CREATE, status: 403 });
    const error = await failure(client().create(created));
    expect(error.message).toContain("`checks: write`");
    expect(error.message).toContain("`mode: report`");
    expect(error.message).toContain("`workflow_run`");
  });
});

describe("CheckRunClient.findReusable: the check run a re-run takes over", () => {
  it("the same-named check run with a run id in external_id and the lowest id (ADR 0007: the first created), whatever its status", async () => {
    // GitHub's own check run of a job named like the check, created first: no run id in external_id.
    server.state.seedCheckRun({ name: "evidence-gate", headSha: HEAD_SHA, externalId: "5a1e0c1d-job" });
    const first = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      externalId: "20250311-090000-000000",
      conclusion: "failure",
    });
    // A duplicate a race left (two workflows on one commit), created later: never ours.
    const later = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      externalId: "20250311-080000-000000",
      conclusion: "success",
    });
    expect((await client().findReusable({ name: "evidence-gate", headSha: HEAD_SHA }))?.id).toBe(first.id);
    expect(first.id).toBeLessThan(later.id);
    expect(server.calls[0]?.query).toEqual({ check_name: "evidence-gate", filter: "all", per_page: "100" });
    server.assertNoViolations();
  });

  it("none when the only same-named check runs are not evidence-gate's, or on another commit", async () => {
    server.state.seedCheckRun({ name: "evidence-gate", headSha: HEAD_SHA });
    server.state.seedCheckRun({ name: "evidence-gate", headSha: HEAD_SHA, externalId: "not-a-run-id" });
    server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: "0".repeat(40),
      externalId: "20250311-080000-000000",
    });
    expect(await client().findReusable({ name: "evidence-gate", headSha: HEAD_SHA })).toBeUndefined();
  });

  it("taken over even when it carries annotations (SPEC §6: one per name and head SHA), with their count", async () => {
    const marked = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      externalId: "20250311-080000-000000",
      conclusion: "failure",
    });
    marked.output.annotationsCount = 3;
    expect(await client().findReusable({ name: "evidence-gate", headSha: HEAD_SHA })).toMatchObject({
      id: marked.id,
      annotationsCount: 3,
    });
  });
});

/** An annotation as the client sent it (GitHub's field names). */
interface SentAnnotation {
  readonly path: string;
  readonly start_line: number;
  readonly start_column?: number;
  readonly end_column?: number;
  readonly title?: string;
  readonly message: string;
  readonly raw_details?: string;
}

/** A PATCH body as the client sent it. */
interface SentPatch {
  readonly status?: string;
  readonly conclusion?: string;
  readonly output: {
    readonly title: string;
    readonly summary: string;
    readonly annotations?: SentAnnotation[];
  };
}

function annotations(n: number): CheckRunAnnotation[] {
  return Array.from({ length: n }, (_, i) => ({
    path: "src/sum.js",
    startLine: i + 1,
    endLine: i + 1,
    level: "failure" as const,
    message: `problem ${i + 1}`,
  }));
}

describe(`CheckRunClient.complete: annotations, ${CHECK_RUN_ANNOTATIONS_PER_REQUEST} per request`, () => {
  it.each([
    [0, [0]],
    [1, [1]],
    [49, [49]],
    [50, [50]],
    [51, [50, 1]],
    [100, [50, 50]],
    [120, [50, 50, 20]],
  ])("%i annotations: the completion and then further updates carry %j", async (n, sizes) => {
    const checks = client();
    const { id } = await checks.create(created);
    await checks.complete(id, {
      conclusion: "failure",
      title: "Failed",
      summary: "## Ledger",
      annotations: annotations(n),
    });

    server.assertNoViolations();
    const patches = server.callsTo("PATCH", UPDATE).map((c) => c.body as SentPatch);
    expect(patches.map((b) => b.output.annotations?.length ?? 0)).toEqual(sizes);
    // The first request completes; the rest only append (title and summary are required with output).
    expect(patches[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    for (const later of patches.slice(1)) {
      expect(Object.keys(later)).toEqual(["output"]);
      expect(later.output).toMatchObject({ title: "Failed", summary: "## Ledger" });
    }
    // Every annotation arrived once, in order.
    const lines = patches.flatMap((b) =>
      (b.output.annotations ?? []).map((a: { start_line: number }) => a.start_line),
    );
    expect(lines).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(server.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(server.state.checkRuns[0]!.output.annotationsCount).toBe(n);
  });

  it("the server refuses 51 in one request (the limit the batching keeps to is really checked)", async () => {
    const octokit = createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING });
    const checks = client();
    const { id } = await checks.create(created);
    const status = await octokit.rest.checks
      .update({
        owner: "octo-org",
        repo: "widgets",
        check_run_id: id,
        output: {
          title: "t",
          summary: "s",
          annotations: annotations(51).map((a) => ({
            path: a.path,
            start_line: a.startLine,
            end_line: a.endLine,
            annotation_level: a.level,
            message: a.message,
          })),
        },
      })
      .then(
        (r) => r.status,
        (e: { status: number }) => e.status,
      );
    expect(status).toBe(422);
    expect(server.violations.map((v) => v.errors.join(" "))).toEqual([expect.stringMatching(/annotations/)]);
  });

  it("annotation fields are redacted and kept within GitHub's limits; columns only on one line", async () => {
    const checks = client({ redact: (text) => text.replaceAll("sk-secret", "***") });
    const { id } = await checks.create(created);
    await checks.complete(id, {
      conclusion: "failure",
      title: "t",
      summary: "s",
      annotations: [
        {
          path: "a.js",
          startLine: 3,
          endLine: 3,
          startColumn: 5,
          endColumn: 5,
          level: "failure",
          title: `sk-secret ${"t".repeat(300)}`,
          message: `sk-secret ${"é".repeat(40_000)}`,
          rawDetails: "😀".repeat(20_000),
        },
        {
          path: "b.js",
          startLine: 1,
          endLine: 4,
          startColumn: 2,
          endColumn: 9,
          level: "warning",
          message: "m",
        },
      ],
    });
    server.assertNoViolations();
    const sent = (server.callsTo("PATCH", UPDATE)[0]!.body as SentPatch).output.annotations ?? [];
    expect(JSON.stringify(sent)).not.toContain("sk-secret");
    expect(Array.from(sent[0]!.title as string)).toHaveLength(255);
    expect(Buffer.byteLength(sent[0]!.message, "utf8")).toBeLessThanOrEqual(64_000);
    expect(Buffer.byteLength(sent[0]!.raw_details ?? "", "utf8")).toBeLessThanOrEqual(64_000);
    expect(wellFormed(sent[0]!.raw_details ?? "")).toBe(true);
    expect(sent[0]).toMatchObject({ start_column: 5, end_column: 5 });
    expect(sent[1]).not.toHaveProperty("start_column");
    expect(sent[1]).not.toHaveProperty("end_column");
  });
});

describe("CheckRunClient: summary and text cut by UTF-8 bytes at 65535", () => {
  async function sendSummary(summary: string): Promise<string> {
    const checks = client();
    const { id } = await checks.create(created);
    await checks.update(id, { title: "t", summary, text: summary });
    server.assertNoViolations();
    const body = server.calls.at(-1)!.body as { output: { summary: string; text: string } };
    expect(body.output.text).toBe(body.output.summary);
    return body.output.summary;
  }

  it("65535 bytes of multi-byte text (32767 × é + a) is sent unchanged, without a warning", async () => {
    const summary = `${"é".repeat(32_767)}a`;
    expect(Buffer.byteLength(summary, "utf8")).toBe(65_535);
    expect(await sendSummary(summary)).toBe(summary);
    expect(warnings).toEqual([]);
  });

  it("65536 bytes (32768 × é) is cut to at most 65535 with the notice, whole characters only", async () => {
    const summary = "é".repeat(32_768);
    const sent = await sendSummary(summary);
    expect(Buffer.byteLength(sent, "utf8")).toBeLessThanOrEqual(65_535);
    expect(sent).toContain("Cut by evidence-gate");
    expect(wellFormed(sent)).toBe(true);
    expect(sent).not.toContain("\uFFFD");
    expect(sent.startsWith("é".repeat(30_000))).toBe(true);
    expect(warnings).toEqual([
      expect.stringContaining("output.summary was 65536 bytes"),
      expect.stringContaining("output.text was 65536 bytes"),
    ]);
  });

  it("a 4-byte character straddling byte 65535 is dropped whole, never split", async () => {
    // Bytes 65534..65537 are 😀: the limit falls inside it.
    const summary = `${"a".repeat(65_533)}😀`;
    expect(Buffer.byteLength(summary, "utf8")).toBe(65_537);
    const sent = await sendSummary(summary);
    expect(Buffer.byteLength(sent, "utf8")).toBeLessThanOrEqual(65_535);
    expect(wellFormed(sent)).toBe(true);
    expect(sent).not.toContain("😀");
    expect(sent).not.toContain("\uFFFD");
    expect(sent).toContain("Cut by evidence-gate");
  });
});

describe("ourCheckRun: the check-run identity rule (ADR 0007), shared by the action and the App", () => {
  it("the lowest id, whatever order GitHub lists them in; none of none", () => {
    expect(ourCheckRun([{ id: 30 }, { id: 12 }, { id: 21 }])).toEqual({ id: 12 });
    expect(ourCheckRun([{ id: 7 }])).toEqual({ id: 7 });
    expect(ourCheckRun([])).toBeUndefined();
  });

  it("stable as later runs are created: adding a higher id never changes the answer", () => {
    const runs = [{ id: 40 }, { id: 41 }];
    const before = ourCheckRun(runs);
    expect(ourCheckRun([...runs, { id: 99 }, { id: 42 }])).toBe(before);
  });
});
