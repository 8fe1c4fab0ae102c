/**
 * The four sample graphs in test/fixtures/graphs/, written the way a team would write them: each loads,
 * lints with no error and no advisory, and runs to its expected conclusion through the engine
 * (`runHandWritten`, `resumeRun` for the gate) with the model calls played by the scripted stand-in (the
 * port tier: ./port-harness.ts; a node's edits are the play's `writes`), in the sample Node project, with
 * the graphs' own `node --test` verify commands. A chained step is shown to resume the previous step's
 * session; the real `claude` CLI resuming a session is ./graph-run.real-cli.test.ts's ("a session child's
 * cost is its share of the resumed session"). These ran with the real CLI in test/e2e/ before (issue 24).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { formatIssue } from "../../src/graph/issue.js";
import { formatAdvisory, lintGraph } from "../../src/graph/lint.js";
import { loadGraphText } from "../../src/graph/load.js";
import { BUGGY_SUM, FIXED_SUM, makeFixedSampleRepo, makeSampleNodeRepo } from "../support/temp-repo.js";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { eventIndex, readEvents, readState, rowWords } from "./run-readers.js";

const SAMPLES = ["review-loop", "fan-out-audit", "session-chain", "gated-release"] as const;
/** The inputs the samples are run (and linted) with. */
const INPUTS = { version: "1.4.0" };

function sample(name: (typeof SAMPLES)[number]): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/graphs/${name}.yaml`, import.meta.url)), "utf8");
}

const reply = (text: string, more: Parameters<typeof replied>[2] = {}) => replied("claude", text, more);
const harness = portHarnessPerTest();

describe("each sample loads and lints clean", () => {
  test.each(SAMPLES)("%s: no load error, no advisory", (name) => {
    const text = sample(name);
    expect(loadGraphText(text, name).ok).toBe(true);
    const linted = lintGraph(text, name, { inputs: Object.keys(INPUTS) });
    expect(linted.errors.map(formatIssue)).toEqual([]);
    expect(linted.advisories.map(formatAdvisory)).toEqual([]);
  });
});

describe("each sample runs to its expected conclusion", () => {
  test("review-loop: the reviewer sends the work back once, the second round is approved and verified", async () => {
    const debugged = BUGGY_SUM.replace("return a - b;", "console.log(a, b);\n  return a + b;");
    const h = await harness({
      makeRepo: makeSampleNodeRepo,
      plays: {
        implement: [
          reply("Fixed sum() to add; left a debug log in.", { writes: { "src/sum.js": debugged } }),
          reply("Removed the debug log; sum() only adds now.", { writes: { "src/sum.js": FIXED_SUM } }),
        ],
        test: [reply("1 test, 1 pass."), reply("1 test, 1 pass.")],
        review: [
          reply("CHANGES_REQUESTED: remove the console.log line."),
          reply("APPROVED: minimal and correct."),
        ],
      },
    });
    const { ledger, runDir } = await h.run(sample("review-loop"));

    expect(rowWords(ledger.rows)).toEqual([
      "implement PASS (exit-only)",
      "implement PASS (exit-only)",
      "test PASS (verified)",
      "test PASS (verified)",
      "review FAIL result_mismatch superseded",
      "review PASS (verified)",
    ]);
    // The second implement round is told what the reviewer asked for.
    expect(h.callsOf("implement")[1]!.prompt).toContain("CHANGES_REQUESTED: remove the console.log line.");
    expect(h.callsOf("implement")[1]!.prompt).toContain("feedback round 1/2");
    expect(h.callsOf("review")[1]!.prompt).toContain("Removed the debug log");
    expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
    // Verified on the fixed working tree, which the run did not commit.
    expect(ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-off-commit",
    });
    expect(readState(runDir).nodes.review).toMatchObject({ status: "passed", feedback_rounds: 1 });
  });

  test("fan-out-audit: four workers run at once, the report waits for all four, and the suite passes on this commit", async () => {
    const workers = ["security", "tests", "docs", "performance"] as const;
    const h = await harness({
      makeRepo: makeFixedSampleRepo,
      plays: {
        scope: [reply("src/sum.js")],
        security: [reply("No findings.", { delayMs: 200 })],
        tests: [reply("No gaps.", { delayMs: 200 })],
        docs: [reply("Up to date.", { delayMs: 200 })],
        performance: [reply("No findings.", { delayMs: 200 })],
        report: [reply("No findings in four reviews.")],
      },
    });
    const { ledger, runDir } = await h.run(sample("fan-out-audit"));

    expect(rowWords(ledger.rows)).toEqual([
      "scope PASS (exit-only)",
      ...workers.map((w) => `${w} PASS (exit-only)`),
      "report PASS (verified)",
    ]);
    const events = readEvents(runDir);
    const firstWorkerDone = Math.min(...workers.map((w) => eventIndex(events, "node_passed", w)));
    for (const w of workers) expect(eventIndex(events, "node_started", w), w).toBeLessThan(firstWorkerDone);
    const lastWorkerDone = Math.max(...workers.map((w) => eventIndex(events, "node_passed", w)));
    expect(eventIndex(events, "node_started", "report")).toBeGreaterThan(lastWorkerDone);
    expect(h.callsOf("report")[0]!.prompt).toContain("Security: No findings.");
    expect(ledger.conclusion).toMatchObject({
      conclusion: "success",
      outcome: "passed",
      rule: "verified-on-commit",
    });
  });

  test("session-chain: each step continues the previous step's conversation; the fix verifies", async () => {
    const cause = "The test expects 5, but sum() subtracts: it returns a - b.";
    const h = await harness({
      makeRepo: makeSampleNodeRepo,
      plays: {
        investigate: [reply(cause)],
        fix: [reply("Changed - to + in sum().", { writes: { "src/sum.js": FIXED_SUM } })],
        explain: [reply("sum() subtracted instead of adding; it now adds.")],
      },
    });
    const { ledger } = await h.run(sample("session-chain"));

    expect(rowWords(ledger.rows)).toEqual([
      "investigate PASS (exit-only)",
      "fix PASS (exit-only)",
      "explain PASS (verified)",
    ]);
    // One conversation: investigate starts it, fix and explain resume it (the CLI then carries the
    // earlier turns, the cause among them, to the model).
    const [investigate] = h.callsOf("investigate");
    const [fix] = h.callsOf("fix");
    const [explain] = h.callsOf("explain");
    expect(investigate!.session.kind).toBe("fresh");
    const session = (investigate!.session as { sessionId: string }).sessionId;
    expect(fix!.session).toEqual({ kind: "resume", sessionId: session });
    expect(explain!.session).toEqual({ kind: "resume", sessionId: session });
    expect(fix!.prompt).toContain("Now fix the cause you found");
    expect(ledger.rows[1]!.sessionId).toBe(ledger.rows[0]!.sessionId);
    expect(ledger.rows[2]!.sessionId).toBe(ledger.rows[0]!.sessionId);
    expect(await h.repo.read("src/sum.js")).toBe(FIXED_SUM);
    expect(ledger.conclusion).toMatchObject({
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-off-commit",
    });
  });

  test("gated-release: pauses at sign-off without publishing; approved, it publishes and the run succeeds", async () => {
    const h = await harness({
      makeRepo: makeFixedSampleRepo,
      plays: {
        draft: [reply("### Fixed\n- sum() adds instead of subtracting")],
        publish: [reply("Release v1.4.0 published.")],
      },
    });
    const paused = await h.run(sample("gated-release"), { inputs: INPUTS });
    expect(paused.ledger.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
    expect(rowWords(paused.ledger.rows)).toEqual([
      "draft PASS (exit-only)",
      "sign-off SKIPPED",
      "publish SKIPPED",
    ]);
    expect(h.spawnsOf("publish")).toBe(0);
    expect(h.callsOf("draft")[0]!.prompt).toContain("Draft the release notes for version 1.4.0");

    const { ledger } = await h.resume(paused.runId, {
      kind: "approve",
      gate: "sign-off",
      by: "release-manager",
    });
    expect(rowWords(ledger.rows)).toEqual([
      "draft PASS (exit-only)",
      "sign-off PASS (approved)",
      "publish PASS (verified)",
    ]);
    expect(h.callsOf("publish")[0]!.prompt).toContain("- sum() adds instead of subtracting");
    expect(ledger.conclusion).toMatchObject({ conclusion: "success", outcome: "passed" });
  });
});
