/**
 * The four sample graphs in test/fixtures/graphs/, written the way a team would write them: each loads,
 * lints with no error and no advisory, and runs to its expected conclusion through the engine
 * (`runHandWritten`, `resumeRun` for the gate) with the real pinned `claude` CLI against the scripted
 * model server, in the sample Node project, with the graphs' own `node --test` verify commands.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { formatIssue } from "../../src/graph/issue.js";
import { formatAdvisory, lintGraph } from "../../src/graph/lint.js";
import { loadGraphText } from "../../src/graph/load.js";
import {
  eventIndex,
  graphHarnessPerTest,
  messagesText,
  readEvents,
  readState,
  requestsOf,
  rowWords,
} from "../engine/graph-harness.js";
import type { ModelScript } from "../support/model-server/index.js";
import { FIXED_SUM, makeFixedSampleRepo, makeSampleNodeRepo } from "../support/temp-repo.js";

const SAMPLES = ["review-loop", "fan-out-audit", "session-chain", "gated-release"] as const;
/** The inputs the samples are run (and linted) with. */
const INPUTS = { version: "1.4.0" };

function sample(name: (typeof SAMPLES)[number]): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/graphs/${name}.yaml`, import.meta.url)), "utf8");
}

const harness = graphHarnessPerTest();

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
    const debugged = "console.log(a, b);\n  return a + b;";
    const h = await harness({
      makeRepo: makeSampleNodeRepo,
      script: (repo): ModelScript => {
        const file = `${repo.dir}/src/sum.js`;
        const edit = (old_string: string, new_string: string) => ({
          tool_calls: [{ name: "Edit", input: { file_path: file, old_string, new_string } }],
        });
        const read = { tool_calls: [{ name: "Read", input: { file_path: file } }] };
        return {
          conversations: [
            {
              name: "implement-1",
              match: ["Fix the bug in src/sum.js", "feedback round 1/2"],
              turns: [
                read,
                edit(debugged, "return a + b;"),
                { text: "Removed the debug log; sum() only adds now." },
              ],
            },
            {
              name: "implement-0",
              match: "Fix the bug in src/sum.js",
              turns: [
                read,
                edit("return a - b;", debugged),
                { text: "Fixed sum() to add; left a debug log in." },
              ],
            },
            {
              name: "test",
              match: "Run the unit tests with `node --test`",
              turns: [{ text: "1 test, 1 pass." }],
            },
            {
              name: "review-approved",
              match: ["Review the change to src/sum.js", "Removed the debug log"],
              turns: [{ text: "APPROVED: minimal and correct." }],
            },
            {
              name: "review",
              match: "Review the change to src/sum.js",
              turns: [{ text: "CHANGES_REQUESTED: remove the console.log line." }],
            },
          ],
        };
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
    expect(requestsOf(h.server.requests, "implement-1")[0]!.promptText).toContain(
      "CHANGES_REQUESTED: remove the console.log line.",
    );
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
      script: () => ({
        conversations: [
          {
            name: "scope",
            match: "List the source files this branch touches",
            turns: [{ text: "src/sum.js" }],
          },
          {
            name: "security",
            match: "Audit these files for security",
            turns: [{ text: "No findings.", delay_ms: 200 }],
          },
          { name: "tests", match: "covered by a unit test", turns: [{ text: "No gaps.", delay_ms: 200 }] },
          {
            name: "docs",
            match: "README and the code comments",
            turns: [{ text: "Up to date.", delay_ms: 200 }],
          },
          {
            name: "performance",
            match: "accidental quadratic",
            turns: [{ text: "No findings.", delay_ms: 200 }],
          },
          {
            name: "report",
            match: "Write the audit report",
            turns: [{ text: "No findings in four reviews." }],
          },
        ],
      }),
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
    expect(requestsOf(h.server.requests, "report")[0]!.promptText).toContain("Security: No findings.");
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
      script: (repo): ModelScript => {
        const file = `${repo.dir}/src/sum.js`;
        return {
          conversations: [
            {
              name: "investigate",
              match: 'The unit test "sum adds two numbers" fails',
              turns: [{ tool_calls: [{ name: "Read", input: { file_path: file } }] }, { text: cause }],
            },
            {
              name: "fix",
              match: "Now fix the cause you found",
              turns: [
                {
                  tool_calls: [
                    {
                      name: "Edit",
                      input: { file_path: file, old_string: "return a - b;", new_string: "return a + b;" },
                    },
                  ],
                },
                { text: "Changed - to + in sum()." },
              ],
            },
            {
              name: "explain",
              match: "Write the pull-request description",
              turns: [{ text: "sum() subtracted instead of adding; it now adds." }],
            },
          ],
        };
      },
    });
    const { ledger } = await h.run(sample("session-chain"));

    expect(rowWords(ledger.rows)).toEqual([
      "investigate PASS (exit-only)",
      "fix PASS (exit-only)",
      "explain PASS (verified)",
    ]);
    const [fix] = requestsOf(h.server.requests, "fix");
    expect(messagesText(fix!)).toContain(cause);
    const [explain] = requestsOf(h.server.requests, "explain");
    expect(messagesText(explain!)).toContain(cause);
    expect(messagesText(explain!)).toContain("Now fix the cause you found");
    expect(ledger.rows[1]!.sessionId).toBe(ledger.rows[0]!.sessionId);
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
      script: () => ({
        conversations: [
          {
            name: "draft",
            match: "Draft the release notes for version 1.4.0",
            turns: [{ text: "### Fixed\n- sum() adds instead of subtracting" }],
          },
          {
            name: "publish",
            match: "Publish the approved release notes for 1.4.0",
            turns: [{ text: "Release v1.4.0 published." }],
          },
        ],
      }),
    });
    const paused = await h.run(sample("gated-release"), { inputs: INPUTS });
    expect(paused.ledger.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
    expect(rowWords(paused.ledger.rows)).toEqual([
      "draft PASS (exit-only)",
      "sign-off SKIPPED",
      "publish SKIPPED",
    ]);
    expect(requestsOf(h.server.requests, "publish")).toHaveLength(0);

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
    expect(requestsOf(h.server.requests, "publish")[0]!.promptText).toContain(
      "- sum() adds instead of subtracting",
    );
    expect(ledger.conclusion).toMatchObject({ conclusion: "success", outcome: "passed" });
  });
});
