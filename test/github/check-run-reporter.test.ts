/**
 * The reporter's additions for resumed and paused runs (SPEC §6): an existing check run is taken over for a
 * new leg, and an appendix (how to resume) follows the ledger's summary whole, the ledger's part cut to make
 * room, within GitHub's 65535-byte limit. Against the local GitHub double (GitHub's description).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckRunClient } from "../../src/github/check-run.js";
import { CheckRunReporter } from "../../src/github/check-run-reporter.js";
import { createOctokit } from "../../src/github/octokit.js";
import { CHECK_RUN_TEXT_MAX_BYTES } from "../../src/ledger/byte-budget.js";
import { fail, fixtureLedger, NONE_DETECTED } from "../ledger/fixtures.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const RUN_ID = "20250311-093000-a1b2c3";

let server: GitHubServer;

beforeEach(async () => {
  server = await startGitHubServer({ token: "ghs_test" });
});
afterEach(async () => {
  server.assertNoViolations();
  await server.close();
});

function reporter(): CheckRunReporter {
  const octokit = createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING });
  return new CheckRunReporter({
    client: new CheckRunClient({ octokit, owner: "octo-org", repo: "widgets" }),
    name: "evidence-gate",
    headSha: HEAD_SHA,
  });
}

describe("CheckRunReporter.restart", () => {
  it("puts a completed check run back in progress for this leg, with this run id, and then completes it", async () => {
    const existing = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      conclusion: "action_required",
      externalId: RUN_ID,
    });
    const r = reporter();
    const ref = await r.restart(existing.id, { externalId: RUN_ID, summary: "Run resumes." });
    expect(ref.id).toBe(existing.id);
    expect(server.state.checkRuns[0]).toMatchObject({ status: "in_progress", externalId: RUN_ID });
    await r.end("failure", "done", "summary");
    expect(server.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(server.state.checkRuns).toHaveLength(1);
  });
});

/** A failed one-node run; `detail` makes its row as long as a test needs. */
function failedLedger(detail = "exited 1") {
  return fixtureLedger({
    runId: RUN_ID,
    runtime: "claude",
    goal: "g",
    buildEvidence: NONE_DETECTED,
    nodes: [{ id: "build", dependsOn: [], allowedTools: ["Read"], sink: true }],
    rows: [fail("build", { detail })],
    planningCalls: [],
    evidenceTree: null,
  });
}

describe("CheckRunReporter.finish with an appendix", () => {
  const ledger = failedLedger();

  it("the appendix follows the ledger's summary", async () => {
    const r = reporter();
    await r.start(RUN_ID, "starting");
    await r.finish(ledger, { appendix: "### Resume this run\n\nmode: resume" });
    const summary = server.state.checkRuns[0]!.output.summary!;
    expect(summary.endsWith("\n\n### Resume this run\n\nmode: resume")).toBe(true);
    expect(summary).toContain("`build`");
  });

  it("a summary that would pass the byte limit with the appendix is cut, the appendix kept whole", async () => {
    const r = reporter();
    await r.start(RUN_ID, "starting");
    const appendix = `### Resume this run\n\n${"é".repeat(32_000)}`;
    const long = failedLedger("x ".repeat(30_000));
    await r.finish(long, { appendix });
    const summary = server.state.checkRuns[0]!.output.summary!;
    expect(Buffer.byteLength(summary, "utf8")).toBeLessThanOrEqual(CHECK_RUN_TEXT_MAX_BYTES);
    expect(summary.endsWith(appendix)).toBe(true);
    expect(summary).toContain("trimmed");
  });
});
