/**
 * The engine's scenarios whose point is the real CLI, each run on BOTH runtimes (SPEC §4): the pinned real
 * `claude` (2.1.332) and the pinned real `codex` (0.169.0), each against the scripted model server
 * (Anthropic side or OpenAI side), in real git repositories with real verify commands, offline. What
 * differs by runtime is asserted per runtime: the fix made with the CLI's own tools, cost (claude reports
 * USD; codex never does, so every codex row and total says `unknown`, never `$0`), the token counts as each
 * CLI reports them, a session handoff the real CLI resumes (the model sees the parent's turn; codex finds
 * the thread in the parent's `CODEX_HOME`), and how each CLI words an error turn.
 *
 * A failing verify and a judged retry's fenced quote in a fresh session are engine behaviour:
 * ./two-runtimes.test.ts, through the model port. Scripts with tool calls are written per runtime
 * (`editCall`, `readCall`); text and error turns are shared. Order is proven with the run's own records,
 * never with wall-clock thresholds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import type { ModelScript } from "../support/model-server/index.js";
import { FIXED_SUM, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";
import {
  asFail,
  asPass,
  graphHarnessPerTest,
  readEvents,
  readState,
  requestsOf,
  rowWords,
} from "./graph-harness.js";
import { editCall, historyText, RUNTIMES, readCall } from "./runtime-harness.js";

const harness = graphHarnessPerTest();

const FIX_PROMPT = "FIX-MARK: fix sum() in src/sum.js so that the unit test passes.";

/** The model fixes src/sum.js with the runtime's own tools: read it, edit the one line, say so. */
function fixTurns(runtime: Runtime, repo: TempRepo, reply = "Fixed sum().") {
  const file = join(repo.dir, "src", "sum.js");
  return [
    { tool_calls: [readCall(runtime, file)] },
    { tool_calls: [editCall(runtime, file, "  return a - b;", "  return a + b;")] },
    { text: reply },
  ];
}

describe.each(RUNTIMES)("on %s", (runtime) => {
  test("a hand-written two-node graph with a verify passes: PASS (verified), the fix is on disk, cost and tokens on every row", async () => {
    const h = await harness({
      runtime,
      makeRepo: makeSampleNodeRepo,
      script: (repo): ModelScript => ({
        conversations: [
          { name: "fix", match: "FIX-MARK", turns: fixTurns(runtime, repo) },
          { name: "review", match: "REVIEW-MARK", turns: [{ text: "The fix looks right." }] },
        ],
      }),
    });
    const { ledger, runDir, warnings } = await h.run(`
name: fix-and-review
nodes:
  - id: fix
    prompt: ${JSON.stringify(FIX_PROMPT)}
    allowed_tools: [Read, Edit]
  - id: review
    depends_on: [fix]
    prompt: "REVIEW-MARK: review the change to src/sum.js."
    allowed_tools: [Read]
    success_check: { verify: { command: "node --test" } }
`);
    expect(rowWords(ledger.rows)).toEqual(["fix PASS (exit-only)", "review PASS (verified)"]);
    expect(readFileSync(join(h.repo.dir, "src", "sum.js"), "utf8")).toBe(FIXED_SUM);
    expect(asPass(ledger.rows[1]).verify).toMatchObject({ command: "node --test", exitCode: 0 });
    expect(ledger.conclusion).toMatchObject({ outcome: "passed" });
    expect(warnings).toEqual([]);
    expect(ledger.runtime).toBe(runtime);
    expect(readState(runDir).runtime).toBe(runtime);
    expect(requestsOf(h.server.requests, "fix")).toHaveLength(3);
    expect(requestsOf(h.server.requests, "review")).toHaveLength(1);
    // Every row names its session: the id the CLI reported (claude: minted by the engine; codex: the thread).
    for (const row of ledger.rows) expect(row.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ledger.rows[0]!.sessionId).not.toBe(ledger.rows[1]!.sessionId);

    const text = renderLedgerText(ledger);
    const markdown = renderLedgerMarkdown(ledger);
    if (runtime === "codex") {
      // Codex reports no USD: every row's cost and every total is unknown — never $0 (SPEC §4, §6).
      for (const row of ledger.rows) expect(row.costUsd, row.nodeId).toBeNull();
      expect(ledger.totals.nodes).toEqual({ kind: "unknown", knownUsd: 0, unknownCalls: 2 });
      expect(ledger.totals.total).toEqual({ kind: "unknown", knownUsd: 0, unknownCalls: 2 });
      expect(text).toMatch(/^fix +PASS \(exit-only\) +[0-9a-f]{8} +unknown /m);
      expect(text).toMatch(/^review +PASS \(verified\) +[0-9a-f]{8} +unknown /m);
      expect(text).toMatch(/^NODE COST: +unknown \(known subtotal \$0\.0000; 2 calls without USD\)$/m);
      expect(text).toMatch(/^TOTAL COST: +unknown \(known subtotal \$0\.0000; 2 calls without USD\)$/m);
      expect(markdown).toMatch(/unknown/);
      // Token usage is on the row (the scripted server answers 100 in / 20 out per request; codex sums a
      // turn's requests): fix made 3 requests, review 1. Cached input is split out (0 here).
      expect(ledger.rows.map((r) => r.usage)).toEqual([
        { inputTokens: 300, outputTokens: 60, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
        { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      ]);
      expect(ledger.totals.tokens).toMatchObject({
        inputTokens: 400,
        outputTokens: 80,
        callsWithoutUsage: 0,
      });
      expect(text).toContain("input 400, output 80, cache read 0, cache write 0");
      // A fresh thread's id is published in events.jsonl as soon as codex prints it.
      const sessions = readEvents(runDir).filter((e) => e.type === "node_session");
      expect(sessions.map((e) => [e.node, e.sessionId])).toEqual([
        ["fix", ledger.rows[0]!.sessionId],
        ["review", ledger.rows[1]!.sessionId],
      ]);
      expect(readEvents(runDir).find((e) => e.type === "node_started")?.sessionId).toBeNull();
    } else {
      for (const row of ledger.rows) expect(row.costUsd, row.nodeId).toEqual(expect.any(Number));
      expect(ledger.totals.nodes.kind).toBe("known");
      for (const row of ledger.rows) expect(row.usage?.outputTokens, row.nodeId).toBeGreaterThan(0);
    }
  });

  test("handoff: session resumes the parent's session: the model sees the parent's turn, the row names the parent's session, and carries only its own tokens", async () => {
    const planReply = "Plan: change the operator in src/sum.js from - to +.";
    const h = await harness({
      runtime,
      script: () => ({
        conversations: [
          { name: "plan", match: "PLAN-MARK", turns: [{ text: planReply }] },
          { name: "implement", match: "IMPLEMENT-MARK", turns: [{ text: "DONE: sum now adds" }] },
        ],
      }),
    });
    const { ledger, runDir } = await h.run(`
name: handoff
nodes:
  - id: plan
    prompt: "PLAN-MARK: read src/sum.js and write a one-line plan to fix sum()."
    allowed_tools: [Read]
  - id: implement
    depends_on: [plan]
    handoff: session
    prompt: "IMPLEMENT-MARK: carry out the plan. Start your reply with DONE: and a summary."
    allowed_tools: [Read, Edit]
    success_check: { result_matches: "^DONE:" }
`);
    expect(rowWords(ledger.rows)).toEqual(["plan PASS (exit-only)", "implement PASS (self-reported)"]);
    const [plan, implement] = ledger.rows;
    expect(implement!.sessionId).toBe(plan!.sessionId);
    const [resumed] = requestsOf(h.server.requests, "implement");
    expect(historyText(resumed!)).toContain("PLAN-MARK");
    expect(historyText(resumed!)).toContain(planReply);
    expect(resumed!.sessionId).toBe(plan!.sessionId);
    // One request each (100 in / 20 out): the resumed call's row carries its own share, not the thread's.
    for (const row of [plan!, implement!]) {
      const usage = row.usage!;
      expect(usage.inputTokens + (usage.cacheReadInputTokens ?? 0), row.nodeId).toBe(100);
      expect(usage.outputTokens, row.nodeId).toBe(20);
    }
    const starts = readEvents(runDir).filter((e) => e.type === "node_started" && e.node === "implement");
    expect(starts.map((e) => e.sessionId)).toEqual([plan!.sessionId]);
    if (runtime === "codex") {
      // Each call was handed a fresh CODEX_HOME; the thread was found because the engine resumed it in
      // the parent's (the child's own home holds no sessions).
      expect(h.homesOf("plan")).toHaveLength(1);
      expect(h.homesOf("implement")).toHaveLength(1);
      expect(h.homesOf("implement")[0]).not.toBe(h.homesOf("plan")[0]);
      // codex printed the thread's cumulative count (200 / 40); state.json keeps it for a further child.
      expect(readState(runDir).nodes.implement?.thread_usage).toEqual({
        inputTokens: 200,
        outputTokens: 40,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
      });
    }
  });

  test("an error turn (the model API answers 500) is FAIL run_error with the CLI's reason, not retried without retry.on", async () => {
    const h = await harness({
      runtime,
      script: () => ({
        conversations: [
          { name: "broken", match: "", turns: [{ error: { status: 500, message: "scripted outage" } }] },
        ],
      }),
    });
    const { ledger } = await h.run(`
name: outage
nodes:
  - id: fix
    prompt: ${JSON.stringify(FIX_PROMPT)}
    allowed_tools: [Read]
`);
    expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error"]);
    const row = asFail(ledger.rows[0]);
    // Measured: claude reports is_error and exits 1; codex prints turn.failed and exits 1.
    expect(row.detail).toMatch(
      runtime === "codex"
        ? /^codex reported turn\.failed \(exit 1\): /
        : /^claude reported is_error \(exit 1\): /,
    );
    expect(requestsOf(h.server.requests, "broken")).toHaveLength(1);
    expect(ledger.conclusion).toMatchObject({ conclusion: "failure" });
  });
});
