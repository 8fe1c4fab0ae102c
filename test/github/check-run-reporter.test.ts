/**
 * The reporter's additions for resumed and paused runs (SPEC §6): an existing check run is taken over for a
 * new leg, and an appendix (how to resume) follows the ledger's summary whole, the ledger's part cut to make
 * room, within GitHub's 65535-byte limit. Against the local GitHub double (GitHub's description).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failureAnnotations, MAX_ANNOTATIONS } from "../../src/github/check-annotations.js";
import { CHECK_RUN_ANNOTATIONS_PER_REQUEST, CheckRunClient } from "../../src/github/check-run.js";
import { CheckRunReporter } from "../../src/github/check-run-reporter.js";
import { createOctokit } from "../../src/github/octokit.js";
import { CHECK_RUN_TEXT_MAX_BYTES } from "../../src/ledger/byte-budget.js";
import { renderLedgerMarkdown, TRIMMED_NOTICE } from "../../src/ledger/render-markdown.js";
import { fail, fixtureLedger, NONE_DETECTED, verifyEvidence } from "../ledger/fixtures.js";
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

function reporter(options: { detailsUrl?: string } = {}): CheckRunReporter {
  const octokit = createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING });
  return new CheckRunReporter({
    client: new CheckRunClient({ octokit, owner: "octo-org", repo: "widgets" }),
    name: "evidence-gate",
    headSha: HEAD_SHA,
    ...options,
  });
}

const CREATE = "/repos/{owner}/{repo}/check-runs";
const UPDATE = "/repos/{owner}/{repo}/check-runs/{check_run_id}";

/** True when `text` has no lone surrogate (a UTF-8 round trip would replace one with U+FFFD). */
function wellFormed(text: string): boolean {
  return Buffer.from(text, "utf8").toString("utf8") === text;
}

describe("CheckRunReporter.open: one check run per name and head SHA (SPEC §6)", () => {
  it("nothing there yet: creates it", async () => {
    const { ref, tookOver } = await reporter().open(RUN_ID, "starting");
    expect(tookOver).toBeNull();
    expect(server.callsTo("POST", CREATE)).toHaveLength(1);
    expect(server.state.checkRuns).toEqual([expect.objectContaining({ id: ref.id, externalId: RUN_ID })]);
  });

  it("an earlier run's check run on the head SHA: taken over (in_progress, this run id), never a second one", async () => {
    const earlier = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      conclusion: "failure",
      externalId: "20250311-080000-0a0b0c",
    });
    const r = reporter();
    const { ref, tookOver } = await r.open(RUN_ID, "starting");
    expect(ref.id).toBe(earlier.id);
    expect(tookOver).toMatchObject({
      id: earlier.id,
      externalId: "20250311-080000-0a0b0c",
      conclusion: "failure",
    });
    expect(server.callsTo("POST", CREATE)).toHaveLength(0);
    expect(server.state.checkRuns).toEqual([
      expect.objectContaining({ id: earlier.id, status: "in_progress", externalId: RUN_ID }),
    ]);
    await r.end("success", "done", "summary");
    expect(server.state.checkRuns).toEqual([
      expect.objectContaining({ id: earlier.id, status: "completed", conclusion: "success" }),
    ]);
  });

  it("a same-named check run evidence-gate did not create (no run id in external_id) is left alone", async () => {
    const jobs = server.state.seedCheckRun({
      name: "evidence-gate",
      headSha: HEAD_SHA,
      conclusion: "success",
    });
    const { ref, tookOver } = await reporter().open(RUN_ID, "starting");
    expect(tookOver).toBeNull();
    expect(ref.id).not.toBe(jobs.id);
    expect(server.state.checkRuns).toHaveLength(2);
    expect(server.callsTo("PATCH", UPDATE)).toHaveLength(0);
  });
});

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

describe("CheckRunReporter.finish: a 70 KB ledger with multi-byte text", () => {
  it("is posted cut to 65535 bytes, with the notice linking the job summary and the ledger artifact", async () => {
    const detail = "Prüfung fehlgeschlagen: ü€😀 ".repeat(6);
    const rows = Array.from({ length: 400 }, (_, i) => fail(`node-${i}`, { detail }));
    const ledger = fixtureLedger({
      runId: RUN_ID,
      runtime: "claude",
      goal: "g",
      buildEvidence: NONE_DETECTED,
      nodes: rows.map((row) => ({ id: row.nodeId, dependsOn: [], allowedTools: ["Read"], sink: true })),
      rows,
      planningCalls: [],
      evidenceTree: null,
    });
    expect(Buffer.byteLength(renderLedgerMarkdown(ledger), "utf8")).toBeGreaterThan(70_000);
    const runUrl = "https://github.com/octo-org/widgets/actions/runs/7654321";
    const r = reporter({ detailsUrl: runUrl });
    await r.start(RUN_ID, "starting");
    await r.finish(ledger, {
      appendix: "<!-- digest -->",
      ledgerArtifact: { name: "evidence-gate-ledger", url: `${runUrl}/artifacts/99` },
    });

    const summary = server.state.checkRuns[0]!.output.summary!;
    expect(Buffer.byteLength(summary, "utf8")).toBeLessThanOrEqual(CHECK_RUN_TEXT_MAX_BYTES);
    expect(Buffer.byteLength(summary, "utf8")).toBeGreaterThan(CHECK_RUN_TEXT_MAX_BYTES - 4096);
    expect(wellFormed(summary)).toBe(true);
    expect(summary).toContain(TRIMMED_NOTICE);
    expect(summary).toContain(`[open the full ledger](${runUrl})`);
    expect(summary).toContain(`artifact [\`evidence-gate-ledger\`](${runUrl}/artifacts/99)`);
    expect(summary.endsWith("<!-- digest -->")).toBe(true);
    expect(server.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "failure" });
  });
});

describe("CheckRunReporter.finish: 120 failing nodes → annotations in 3 requests (SPEC §6)", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "eg-reporter-annotations-"));
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "sum.ts"), "x\n");
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("a ledger's 120 failed executions, one annotation each (half on a named file, half on the workflow file), go out as the completion and two appends carrying 50, 50 and 20", async () => {
    const workflowFile = ".github/workflows/gate.yml";
    const rows = Array.from({ length: 120 }, (_, i) =>
      fail(`node-${i}`, {
        cause: "verify_failed",
        verify: verifyEvidence({
          cwd: root,
          exitCode: 1,
          outcome: "failed",
          // Even rows name one line of a file of the repository; odd rows name none.
          outputTail: i % 2 === 0 ? `src/sum.ts:${i + 1}:3 - error TS2322` : "npm ERR! Test failed.",
        }),
      }),
    );
    const ledger = fixtureLedger({
      runId: RUN_ID,
      runtime: "claude",
      goal: "g",
      buildEvidence: NONE_DETECTED,
      nodes: rows.map((row) => ({ id: row.nodeId, dependsOn: [], allowedTools: ["Read"], sink: true })),
      rows,
      planningCalls: [],
      evidenceTree: null,
    });
    const annotations = failureAnnotations(ledger, { repoRoot: root, workflowFile });
    // Below both caps: every row gives exactly one.
    expect(annotations.length).toBeLessThan(MAX_ANNOTATIONS);
    expect(annotations.map((a) => a.title)).toEqual(
      rows.map((r) => `evidence-gate: ${r.nodeId} failed: verify command \`npm test\` exited 1 (expected 0)`),
    );
    expect(annotations.map((a) => [a.path, a.startLine])).toEqual(
      rows.map((_, i) => (i % 2 === 0 ? ["src/sum.ts", i + 1] : [workflowFile, 1])),
    );

    const r = reporter();
    await r.start(RUN_ID, "starting");
    const before = server.calls.length;
    await r.finish(ledger, { annotations });

    const sent = server.calls.slice(before);
    expect(sent.map((c) => [c.method, c.route, c.status])).toEqual([
      ["PATCH", UPDATE, 200],
      ["PATCH", UPDATE, 200],
      ["PATCH", UPDATE, 200],
    ]);
    const bodies = sent.map(
      (c) =>
        c.body as {
          status?: string;
          conclusion?: string;
          output: { annotations?: { path: string; start_line: number; title?: string }[] };
        },
    );
    expect(bodies.map((b) => b.output.annotations?.length)).toEqual([
      CHECK_RUN_ANNOTATIONS_PER_REQUEST,
      CHECK_RUN_ANNOTATIONS_PER_REQUEST,
      20,
    ]);
    expect(bodies[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(bodies.slice(1).map((b) => b.status ?? b.conclusion)).toEqual([undefined, undefined]);
    // Every annotation arrived once, in the ledger's order.
    expect(bodies.flatMap((b) => (b.output.annotations ?? []).map((a) => [a.path, a.start_line]))).toEqual(
      annotations.map((a) => [a.path, a.startLine]),
    );
    expect(server.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(server.state.checkRuns[0]!.output.annotationsCount).toBe(120);
  });
});
