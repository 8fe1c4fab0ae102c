/**
 * Every surface a value leaves evidence-gate by (SPEC §9; issue 12 item 5) sends no token-shaped value,
 * even one nobody declared as a secret and that was planted straight into a ledger row (so the engine's
 * own redaction of rows never saw it): the check run (create, progress update, completion, early end), its
 * annotations, the sticky PR comment, the job summary and both uploaded artifacts. The GitHub calls go to
 * the local OpenAPI-validating server and are read back from its record; the artifact upload goes to a
 * stand-in client that reads each file it is handed.
 *
 * Each surface is exercised twice where its caller supplies a redactor: with the one the action wires
 * (`createRedactor(secrets).text`), which must also remove a known secret value planted beside the shapes
 * (one with no token shape, so only the known-value net can catch it), and with none at all — the
 * `src/github` module's own net, which knows no value and still removes every shape.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRedactor, REDACTED } from "../../src/core/redact.js";
import { uploadRunArtifacts } from "../../src/github/artifact.js";
import { failureAnnotations } from "../../src/github/check-annotations.js";
import { CheckRunClient } from "../../src/github/check-run.js";
import { CheckRunReporter } from "../../src/github/check-run-reporter.js";
import { writeJobSummary } from "../../src/github/job-summary.js";
import { createOctokit } from "../../src/github/octokit.js";
import { upsertStickyComment } from "../../src/github/sticky-comment.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { commentMarker, renderCommentBody } from "../../src/ledger/render-comment.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { ATTACHED, fail, fixtureLedger, pass, verifyEvidence } from "../ledger/fixtures.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const FILLER = "Zq8Xw7Vu6Ts5Rp4On3Ml2Kj1Ih0Gf9Ed8Cb7Aa6Yx5Wv4Ut3Sr2";
const shaped = (prefix: string, n: number) => prefix + FILLER.slice(0, n);

/** Token-shaped values that are no known secret: assembled here, so this file holds none as written. */
const PLANTED = {
  pat: shaped("gh" + "p_", 36),
  app: shaped("gh" + "s_", 36),
  fineGrained: `${shaped("github" + "_pat_", 22)}_${FILLER}${FILLER.slice(0, 8)}`,
  anthropic: `${shaped("sk-" + "ant-api03-", 50)}-${FILLER.slice(0, 30)}`,
  openai: shaped("sk" + "-proj-", 48),
} as const;
const VALUES = Object.values(PLANTED);
/** A value that distinguishes itself from the filler, to find in what was sent. */
const MARKS = VALUES.map((v) => v.slice(-12));
/** A known secret (the action's model key or token, say) with no token shape: only its value finds it. */
const KNOWN = ["correct", "horse", "battery", "staple", "9431"].join("-");

const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const RUN_ID = "20250311-093000-a1b2c3";
const PR = 7;

/** A failed run whose rows, goal and verify output carry every planted value. */
function plantedLedger(): Ledger {
  return fixtureLedger({
    runId: RUN_ID,
    runtime: "claude",
    goal: `Fix the build (the old token was ${PLANTED.openai})`,
    buildEvidence: ATTACHED,
    nodes: [
      { id: "implement", dependsOn: [], allowedTools: ["Read", "Edit"], sink: false },
      { id: "build", dependsOn: ["implement"], allowedTools: ["Read"], sink: true },
    ],
    rows: [
      pass("implement", { detail: `wrote .npmrc with ${PLANTED.app}; the password is ${KNOWN}` }),
      fail("build", {
        cause: "verify_failed",
        sink: true,
        detail: `verify \`npm test\` exited 1 (expected 0); GH_TOKEN=${PLANTED.pat} DB_PASSWORD=${KNOWN}`,
        verify: verifyEvidence({
          cwd: "/repo",
          exitCode: 1,
          outcome: "failed",
          outputTail: [
            `src/date.ts:3:7 - error: token ${PLANTED.fineGrained} rejected`,
            `ANTHROPIC_API_KEY=${PLANTED.anthropic}`,
            `DB_PASSWORD=${KNOWN}`,
            "Tests: 1 failed",
          ].join("\n"),
        }),
      }),
    ],
    planningCalls: [{ costUsd: 0.01, usage: null }],
    evidenceTree: null,
  });
}

/**
 * Asserts `sent` (anything JSON can hold) carries no planted token shape and at least one mask; with
 * `known`, no trace of {@link KNOWN} either (the redactor was told it).
 */
function expectRedacted(sent: unknown, what: string, known: boolean): void {
  const text = typeof sent === "string" ? sent : JSON.stringify(sent);
  for (const mark of MARKS) expect(text.includes(mark), `${what} holds …${mark}`).toBe(false);
  if (known) expect(text.includes(KNOWN.slice(-14)), `${what} holds the known secret`).toBe(false);
  expect(text, what).toContain(REDACTED);
}

/** [label, the caller's redactor, whether it knows {@link KNOWN}]. */
const REDACTORS = [
  ["the action's redactor (createRedactor(secrets).text)", createRedactor([KNOWN]).text, true],
  ["no redactor from the caller", undefined, false],
] as const;

describe("GitHub API surfaces", () => {
  let server: GitHubServer;
  beforeEach(async () => {
    server = await startGitHubServer({ token: "ghs_test" });
    server.state.addPullRequest({ number: PR, headSha: HEAD_SHA, baseSha: "b".repeat(40) });
  });
  afterEach(async () => {
    server.assertNoViolations();
    await server.close();
  });

  const octokit = () => createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING });
  const reporter = (redact: ((text: string) => string) | undefined) =>
    new CheckRunReporter({
      client: new CheckRunClient({
        octokit: octokit(),
        owner: "octo-org",
        repo: "widgets",
        ...(redact === undefined ? {} : { redact }),
      }),
      name: "evidence-gate",
      headSha: HEAD_SHA,
    });
  const checkRunCalls = () =>
    server.calls.filter(
      (c) => (c.route ?? "").startsWith("/repos/{owner}/{repo}/check-runs") && c.method !== "GET",
    );

  describe.each(REDACTORS)("check run, with %s", (_label, redact, known) => {
    it("create, progress update and completion carry no planted value (title, summary, text)", async () => {
      const r = reporter(redact);
      await r.open(RUN_ID, `starting: ${PLANTED.pat}`, `evidence-gate: ${PLANTED.app}`);
      const ledger = plantedLedger();
      // The ledger really holds the values: the renderer puts them in the Markdown sent.
      expect(renderLedgerMarkdown(ledger)).toContain(MARKS[2]);
      await r.progress({ ...ledger, conclusion: null }, true);
      await r.finish(ledger, { appendix: `> note: ${PLANTED.openai}\n` });
      const calls = checkRunCalls();
      expect(calls.map((c) => c.method)).toEqual(["POST", "PATCH", "PATCH"]);
      // The known value was really sent to the renderer, so its absence is the redactor's doing.
      expect(renderLedgerMarkdown(ledger)).toContain(KNOWN);
      for (const call of calls) expectRedacted(call.body, `${call.method} ${call.route}`, known);
    });

    it("an early end (refusal, crash) carries no planted value", async () => {
      const r = reporter(redact);
      await r.start(RUN_ID, "starting");
      await r.end(
        "failure",
        `evidence-gate: crashed near ${PLANTED.anthropic}`,
        `stack: ${PLANTED.fineGrained} ${KNOWN}`,
      );
      const completing = checkRunCalls().at(-1)!;
      expect((completing.body as { conclusion?: string }).conclusion).toBe("failure");
      expectRedacted(completing.body, "the completing PATCH", known);
    });

    it("annotations (message, title, raw details) carry no planted value", async () => {
      const ledger = plantedLedger();
      const annotations = failureAnnotations(ledger, {
        repoRoot: "/repo",
        workflowFile: ".github/workflows/gate.yml",
        isFile: (path) => path === "/repo/src/date.ts",
      });
      expect(annotations.map((a) => a.path)).toEqual(["src/date.ts"]);
      expect(JSON.stringify(annotations)).toContain(MARKS[2]);
      expect(JSON.stringify(annotations)).toContain(KNOWN);
      const r = reporter(redact);
      await r.start(RUN_ID, "starting");
      await r.finish(ledger, { annotations });
      const sent = (checkRunCalls().at(-1)!.body as { output: { annotations: unknown[] } }).output
        .annotations;
      expect(sent).toHaveLength(1);
      expectRedacted(sent, "the annotations", known);
    });
  });

  describe.each(REDACTORS)("sticky PR comment, with %s", (_label, redact, known) => {
    it("the comment body carries no planted value", async () => {
      const marker = commentMarker("evidence-gate");
      const body = renderCommentBody(plantedLedger(), { checkName: "evidence-gate", checkRunUrl: null });
      expect(body).toContain(MARKS[0]!.replace(/_/g, "\\_"));
      expect(body).toContain(KNOWN);
      await upsertStickyComment({
        octokit: octokit(),
        owner: "octo-org",
        repo: "widgets",
        issueNumber: PR,
        marker,
        body,
        redact: redact ?? ((text) => text),
      });
      const [created] = server.callsTo("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments");
      expectRedacted(created!.body, "the comment", known);
      expectRedacted(server.state.comments[0]!.body, "the stored comment", known);
    });
  });
});

describe("job summary and artifacts", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "eg-redaction-surfaces-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(REDACTORS)(
    "the job summary file carries no planted value, with %s",
    async (_label, redact, known) => {
      const path = join(dir, "step_summary");
      writeFileSync(path, "");
      const markdown = `${renderLedgerMarkdown(plantedLedger())}\n> ${PLANTED.pat}\n`;
      expect(markdown).toContain(MARKS[3]);
      expect(markdown).toContain(KNOWN);
      const result = await writeJobSummary(markdown, {
        env: { GITHUB_STEP_SUMMARY: path },
        ...(redact === undefined ? {} : { redact }),
      });
      expect(result.kind).toBe("written");
      expectRedacted(readFileSync(path, "utf8"), "the job summary", known);
    },
  );

  it("both artifacts carry no planted value in any file, and a file without one is uploaded byte for byte", async () => {
    const runDir = join(dir, "runs", RUN_ID);
    mkdirSync(join(runDir, "nodes", "build"), { recursive: true });
    const ledgerPath = join(runDir, "ledger.json");
    writeFileSync(ledgerPath, `${JSON.stringify(plantedLedger(), null, 2)}\n`);
    writeFileSync(
      join(runDir, "events.jsonl"),
      `${JSON.stringify({ type: "node_output", text: `${PLANTED.app} ${Buffer.from(KNOWN).toString("base64")}` })}\n`,
    );
    writeFileSync(
      join(runDir, "nodes", "build", "output.md"),
      `The key is ${PLANTED.anthropic}, the password ${KNOWN}.\n`,
    );
    const clean = Buffer.concat([
      Buffer.from("diff --git a/x b/x\n+caf\u00e9 \u200b\n", "utf8"),
      Buffer.from([0, 255]),
    ]);
    writeFileSync(join(runDir, "patch.diff"), clean);
    const uploaded = new Map<string, Map<string, Buffer>>();
    const artifacts = await uploadRunArtifacts({
      runId: RUN_ID,
      runDir,
      ledgerPath,
      checkName: "evidence-gate",
      stagingDir: dir,
      env: { ACTIONS_RUNTIME_TOKEN: "t", ACTIONS_RESULTS_URL: "http://127.0.0.1:9/" },
      secrets: [KNOWN],
      notice: () => undefined,
      warn: (m) => {
        throw new Error(m);
      },
      client: {
        uploadArtifact: async (name, files, root) => {
          uploaded.set(name, new Map(files.map((f) => [f.slice(root.length + 1), readFileSync(f)])));
          return { id: uploaded.size, size: 1 };
        },
      },
    });
    expect([artifacts.runDirectory.kind, artifacts.ledger.kind]).toEqual(["uploaded", "uploaded"]);
    const runFiles = uploaded.get(`evidence-gate-run-${RUN_ID}`)!;
    expect([...runFiles.keys()].sort()).toEqual([
      "events.jsonl",
      "ledger.json",
      "nodes/build/output.md",
      "patch.diff",
    ]);
    for (const name of ["events.jsonl", "ledger.json", "nodes/build/output.md"])
      expectRedacted(runFiles.get(name)!.toString("utf8"), `run artifact ${name}`, true);
    // The base64 form is the known value's too.
    expect(runFiles.get("events.jsonl")!.toString("utf8")).not.toContain(
      Buffer.from(KNOWN).toString("base64"),
    );
    expect(runFiles.get("patch.diff")!.equals(clean)).toBe(true);
    const ledgerFile = uploaded.get("evidence-gate-ledger")!.get("ledger.json")!.toString("utf8");
    expectRedacted(ledgerFile, "the ledger artifact", true);
    // Still valid JSON, with the rows in place: the mask replaced the value, not the structure.
    expect((JSON.parse(ledgerFile) as Ledger).rows).toHaveLength(2);
    // The run directory on the runner is not rewritten (the artifacts are redacted copies).
    expect(readFileSync(join(runDir, "nodes", "build", "output.md"), "utf8")).toContain(MARKS[3]);
    expect(readFileSync(join(runDir, "nodes", "build", "output.md"), "utf8")).toContain(KNOWN);
  });
});
