/**
 * The App's check runs send no token shape (issue 12, item 5): every write `AppCheckRuns` makes — the
 * create, a move to `in_progress`, a replaced output, the completion with its annotations — against the
 * local OpenAPI-validating GitHub server, read back from its record and from the check run it stores.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppCheckRuns } from "../../src/bot/app-check-runs.js";
import { REDACTED } from "../../src/core/redact.js";
import { createOctokit } from "../../src/github/octokit.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

/** Assembled from pieces, so this file holds no token as written. */
const PAT = `${"gh"}p_${"Zq8Xw7Vu6Ts5Rp4On3Ml2Kj1Ih0Gf9Ed8Cb7Aa"}`;
const KEY = `${"sk-"}ant-api03-${"Qm4Lx9Tr2Wv7Yp1Ks6Jd3Hf8Gb5Nc0Ze".repeat(3)}-${"AbCdEfGhIjKlMnOpQrSt"}AA`;
const TAILS = [PAT.slice(-12), KEY.slice(-12)];
const HEAD = "0123456789abcdef0123456789abcdef01234567";
/** The server's default app (GitHub Actions), whose token the client holds. */
const APP_ID = 15368;

describe("AppCheckRuns: no write carries a token shape", () => {
  let server: GitHubServer;
  beforeEach(async () => {
    server = await startGitHubServer({ token: "ghs_test" });
  });
  afterEach(async () => {
    server.assertNoViolations();
    await server.close();
  });

  it("create, move, annotateOutput and complete", async () => {
    const checks = new AppCheckRuns({
      octokit: createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING }),
      owner: "octo-org",
      repo: "widgets",
      appId: APP_ID,
      name: "evidence-gate",
    });
    const key = { pullRequest: 42, run: null };
    const { run, created } = await checks.create({
      headSha: HEAD,
      key,
      status: "queued",
      output: { title: `queued ${PAT}`, summary: `summary ${KEY}`, text: `text ${PAT}` },
    });
    expect(created).toBe(true);
    await checks.move(run.id, {
      status: "in_progress",
      output: { title: "running", summary: `log: ${KEY}` },
    });
    await checks.annotateOutput(run.id, { title: "still running", summary: `GH_TOKEN=${PAT}` });
    await checks.complete(run.id, {
      conclusion: "failure",
      key: { pullRequest: 42, run: { id: 7, attempt: 1 } },
      title: `failed near ${KEY}`,
      summary: `the verify printed ${PAT}`,
      annotations: [
        {
          path: "src/a.ts",
          startLine: 1,
          endLine: 1,
          level: "failure",
          message: `token ${PAT} rejected`,
          title: "build",
          rawDetails: `ANTHROPIC_API_KEY=${KEY}`,
        },
      ],
    });

    const writes = server.calls.filter((c) => c.method === "POST" || c.method === "PATCH");
    expect(writes.length).toBeGreaterThanOrEqual(4);
    for (const call of writes) {
      const body = JSON.stringify(call.body);
      for (const tail of TAILS)
        expect(body.includes(tail), `${call.method} ${call.path} holds …${tail}`).toBe(false);
    }
    const stored = JSON.stringify(server.state.checkRuns);
    for (const tail of TAILS)
      expect(stored.includes(tail), `the stored check run holds …${tail}`).toBe(false);
    expect(stored).toContain(REDACTED);
  });
});
