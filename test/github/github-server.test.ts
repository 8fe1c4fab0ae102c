/**
 * The GitHub double holds the product to GitHub's own description. These tests show it refuses what
 * GitHub would refuse, and that its own answers are checked too.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type GitHubServer, startGitHubServer } from "../support/github-server/index.js";

const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const CHECK_RUNS = "/repos/octo-org/widgets/check-runs";

let server: GitHubServer;

beforeEach(async () => {
  server = await startGitHubServer();
});
afterEach(async () => {
  await server.close();
});

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { accept: "application/vnd.github+json", "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  return {
    status: response.status,
    headers: response.headers,
    data: type.includes("json") ? JSON.parse(text) : text,
  };
}

function validCreate(overrides: Record<string, unknown> = {}) {
  return {
    name: "evidence-gate",
    head_sha: HEAD_SHA,
    status: "in_progress",
    started_at: "2025-03-11T09:30:00Z",
    external_id: "20250311-093000-a1b2c3",
    output: { title: "Planning", summary: "Planning the graph." },
    ...overrides,
  };
}

describe("GitHub double: requests are held to GitHub's description", () => {
  it("a valid create check run is answered 201 with a check run GitHub's schema accepts, and recorded", async () => {
    const { status, data } = await send("POST", CHECK_RUNS, validCreate());
    expect(status).toBe(201);
    expect(data).toMatchObject({
      name: "evidence-gate",
      head_sha: HEAD_SHA,
      status: "in_progress",
      conclusion: null,
    });
    expect(server.calls).toEqual([
      expect.objectContaining({
        method: "POST",
        path: CHECK_RUNS,
        route: "/repos/{owner}/{repo}/check-runs",
        operationId: "checks/create",
        status: 201,
        injected: false,
        body: validCreate(),
      }),
    ]);
    server.assertNoViolations();
  });

  it('a create with conclusion "bogus" is refused with 422 and recorded as a violation', async () => {
    const { status, data } = await send("POST", CHECK_RUNS, validCreate({ conclusion: "bogus" }));
    expect(status).toBe(422);
    expect(data.message).toBe("Validation Failed");
    expect(JSON.stringify(data.errors)).toContain("body/conclusion");
    expect(server.violations).toEqual([
      expect.objectContaining({
        kind: "request",
        operationId: "checks/create",
        errors: [expect.stringContaining("body/conclusion")],
      }),
    ]);
    expect(server.state.checkRuns).toEqual([]);
  });

  it("a create without head_sha is refused with 422 and recorded as a violation", async () => {
    const { head_sha: _omitted, ...body } = validCreate();
    const { status } = await send("POST", CHECK_RUNS, body);
    expect(status).toBe(422);
    expect(server.violations[0]?.errors).toContain("body: must have required property 'head_sha'");
  });

  it("an output.summary over 65535 characters is refused, as the description's maxLength says", async () => {
    const summary = "x".repeat(65_536);
    const { status } = await send("POST", CHECK_RUNS, validCreate({ output: { title: "t", summary } }));
    expect(status).toBe(422);
    expect(server.violations[0]?.errors.join("\n")).toContain(
      "body/output/summary: must NOT have more than 65535 characters",
    );
  });

  it("an output.summary of 65535 characters but more UTF-8 bytes is refused, because GitHub counts bytes", async () => {
    const summary = "é".repeat(65_535); // 65535 characters, 131070 bytes
    const { status, data } = await send("POST", CHECK_RUNS, validCreate({ output: { title: "t", summary } }));
    expect(status).toBe(422);
    expect(JSON.stringify(data)).toContain("summary exceeds a maximum bytesize of 65535");
    expect(server.violations).toHaveLength(1);
  });

  it("an output.summary of exactly 65535 bytes is accepted", async () => {
    const { status } = await send(
      "POST",
      CHECK_RUNS,
      validCreate({ output: { title: "t", summary: "y".repeat(65_535) } }),
    );
    expect(status).toBe(201);
    server.assertNoViolations();
  });

  it("a status of completed without a conclusion is refused (the description's rule for conclusion)", async () => {
    const { status } = await send("POST", CHECK_RUNS, validCreate({ status: "completed" }));
    expect(status).toBe(422);
    expect(server.violations[0]?.errors.join("\n")).toContain("body/conclusion: required");
  });

  it("a misspelt body field is a violation, although GitHub itself would silently ignore it", async () => {
    const { status } = await send("POST", CHECK_RUNS, validCreate({ detail_url: "https://example.com" }));
    expect(status).toBe(422);
    expect(server.violations[0]?.errors).toContain(
      'body: unknown property "detail_url" (not in the description)',
    );
  });

  it("a head_sha that is not a full commit SHA is refused like GitHub's 'No commit found for SHA'", async () => {
    const { status, data } = await send("POST", CHECK_RUNS, validCreate({ head_sha: "main" }));
    expect(status).toBe(422);
    expect(data.message).toBe("No commit found for SHA: main");
    expect(server.violations).toHaveLength(1);
  });

  it("a path parameter of the wrong type and an unknown query parameter are violations", async () => {
    const patch = await send("PATCH", `${CHECK_RUNS}/not-a-number`, { output: { title: "t", summary: "s" } });
    expect(patch.status).toBe(422);
    const list = await send("GET", `/repos/octo-org/widgets/commits/${HEAD_SHA}/check-runs?checkname=x`);
    expect(list.status).toBe(422);
    expect(server.violations.flatMap((v) => v.errors)).toEqual([
      "path/check_run_id: must be integer",
      'query: unknown property "checkname" (not in the description)',
    ]);
  });

  it("an unknown route is a 404 and a violation that says whether GitHub has such an operation", async () => {
    const known = await send("POST", "/repos/octo-org/widgets/issues/1/labels", { labels: ["bug"] });
    const unknown = await send("GET", "/repos/octo-org/widgets/no-such-thing");
    expect([known.status, unknown.status]).toEqual([404, 404]);
    expect(server.violations.map((v) => [v.kind, v.errors[0]])).toEqual([
      [
        "route",
        expect.stringContaining(
          "issues/add-labels (POST /repos/{owner}/{repo}/issues/{issue_number}/labels) exists",
        ),
      ],
      ["route", "GET /repos/octo-org/widgets/no-such-thing is not in GitHub's REST API description"],
    ]);
  });

  it("a request without the expected token is a 401 violation when the server is given a token", async () => {
    await server.close();
    server = await startGitHubServer({ token: "ghs_expected" });
    expect(
      (await send("GET", "/repos/octo-org/widgets", undefined, { authorization: "token ghs_wrong" })).status,
    ).toBe(401);
    expect(
      (await send("GET", "/repos/octo-org/widgets", undefined, { authorization: "token ghs_expected" }))
        .status,
    ).toBe(200);
    expect(server.violations.map((v) => [v.kind, v.errors])).toEqual([["auth", ["wrong token"]]]);
  });

  it("assertNoViolations fails the test and lists every violation", async () => {
    await send("POST", CHECK_RUNS, validCreate({ conclusion: "bogus" }));
    expect(() => server.assertNoViolations()).toThrow(
      /contract violations \(1\):\n- request POST .*checks\/create.*\n.*body\/conclusion/,
    );
  });
});

describe("GitHub double: responses are held to GitHub's description too", () => {
  it("a fixture that breaks the response schema fails loudly: HTTP 500 and a response violation", async () => {
    // A seeded run with a conclusion GitHub never sends: the double must not serve it.
    server.state.seedCheckRun({ name: "evidence-gate", headSha: HEAD_SHA, conclusion: "bogus" });
    const { status } = await send("GET", `/repos/octo-org/widgets/commits/${HEAD_SHA}/check-runs`);
    expect(status).toBe(500);
    expect(server.violations).toEqual([
      expect.objectContaining({
        kind: "response",
        errors: [expect.stringContaining("/check_runs/0/conclusion")],
      }),
    ]);
  });

  it("the repository and a registered pull request are served in shapes GitHub's schemas accept", async () => {
    server.state.addPullRequest({
      number: 7,
      headSha: HEAD_SHA,
      baseSha: "1".repeat(40),
      headRepository: "fork-owner/widgets",
    });
    const repo = await send("GET", "/repos/octo-org/widgets");
    const pull = await send("GET", "/repos/octo-org/widgets/pulls/7");
    const missing = await send("GET", "/repos/octo-org/widgets/pulls/8");
    expect(repo.status).toBe(200);
    expect(repo.data.full_name).toBe("octo-org/widgets");
    expect(pull.status).toBe(200);
    expect(pull.data.head).toMatchObject({
      sha: HEAD_SHA,
      repo: { full_name: "fork-owner/widgets", fork: true },
    });
    expect(missing.status).toBe(404);
    server.assertNoViolations();
  });

  it("a file registered at a ref is served from that ref only, as JSON or raw", async () => {
    server.state.addFile({
      ref: "main",
      path: ".github/evidence-gate.yml",
      content: "require-evidence: true\n",
    });
    const json = await send("GET", "/repos/octo-org/widgets/contents/.github%2Fevidence-gate.yml?ref=main");
    expect(json.status).toBe(200);
    expect(Buffer.from(json.data.content, "base64").toString("utf8")).toBe("require-evidence: true\n");
    const raw = await send("GET", "/repos/octo-org/widgets/contents/.github/evidence-gate.yml", undefined, {
      accept: "application/vnd.github.raw",
    });
    expect(raw).toMatchObject({ status: 200, data: "require-evidence: true\n" });
    const otherRef = await send(
      "GET",
      "/repos/octo-org/widgets/contents/.github/evidence-gate.yml?ref=feature",
    );
    expect(otherRef.status).toBe(404);
    server.assertNoViolations();
  });
});

describe("GitHub double: check-run state", () => {
  it("PATCH updates the stored run and the list by ref reflects it, filtered by check_name", async () => {
    const created = await send("POST", CHECK_RUNS, validCreate());
    await send("POST", CHECK_RUNS, validCreate({ name: "other-check" }));
    const patched = await send("PATCH", `${CHECK_RUNS}/${created.data.id}`, {
      status: "completed",
      conclusion: "neutral",
      output: { title: "No engine-run evidence", summary: "done" },
    });
    expect(patched.data).toMatchObject({ status: "completed", conclusion: "neutral" });
    const list = await send(
      "GET",
      `/repos/octo-org/widgets/commits/${HEAD_SHA}/check-runs?check_name=evidence-gate`,
    );
    expect(list.data.total_count).toBe(1);
    expect(list.data.check_runs[0]).toMatchObject({
      id: created.data.id,
      conclusion: "neutral",
      output: { title: "No engine-run evidence", summary: "done" },
      app: { slug: "github-actions", id: 15368 },
    });
    server.assertNoViolations();
  });

  it("failNext answers the next matching requests with the fault, then serves normally", async () => {
    server.failNext({
      method: "POST",
      pathPattern: "/repos/{owner}/{repo}/check-runs",
      status: 500,
      times: 2,
    });
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await send("POST", CHECK_RUNS, validCreate())).status);
    expect(statuses).toEqual([500, 500, 201]);
    expect(server.calls.map((c) => c.injected)).toEqual([true, true, false]);
    expect(server.state.checkRuns).toHaveLength(1);
    server.assertNoViolations();
  });
});
