/**
 * Acceptance tests of the graph engine at engine level (`runHandWritten`): `on_fail: continue`,
 * `handoff: session` and its fresh retry, `budget_usd`, verify `output_matches`, a `cwd` / `verify.cwd`
 * outside the repository, and the ledger's row order (SPEC §3, §4; research/oh-my-graph.md §1.6,
 * §2.4–§2.6, §5.8). Through the model port (./port-harness.ts), on claude (the engine never branches on
 * the runtime): each call's stream goes through the real parser of its runtime, in real repositories with
 * real git and real verify commands; a call nobody scripted fails the test.
 *
 * What only a real process shows — a halt, a cancelled run and a timeout killing the CLI's process group,
 * the CLI really running in the node's `cwd`, the real `claude` stopping at `--max-budget-usd`, a session
 * child's share of the session cost the real `claude` reported — is ./graph-run.real-cli.test.ts; the model
 * seeing the parent's conversation after `handoff: session` is two-runtimes.real-cli.test.ts (both real CLIs), and
 * `--max-budget-usd` in argv is test/runtime/claude-argv.test.ts.
 *
 * Order is proven with the run's own `events.jsonl` (file order is the order), never with wall-clock
 * thresholds.
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { ClaudeCall } from "../../src/runtime/invoke-claude.js";
import { initEvent, resultEvent } from "../support/fake-claude/index.js";
import { makeFixedSampleRepo } from "../support/temp-repo.js";
import { portHarnessPerTest, replied } from "./port-harness.js";
import { asFail, asPass, readEvents, readState, rowsOf, rowWords } from "./run-readers.js";

const harness = portHarnessPerTest();
const reply = (text: string, more: Parameters<typeof replied>[2] = {}) => replied("claude", text, more);

describe("graph-run", () => {
  describe("on_fail (SPEC §4)", () => {
    test("continue: a failure prunes only its own subtree; an independent branch still runs to the end", async () => {
      const h = await harness({
        plays: {
          docs: [reply("I could not find the docs folder.")],
          api: [reply("api schema written", { delayMs: 300 })],
          "api-client": [reply("client generated")],
        },
      });
      const { ledger, runDir } = await h.run(`
name: continue
on_fail: continue
nodes:
  - id: docs
    prompt: "DOCS-MARK: regenerate the docs. Reply DONE when they build."
    allowed_tools: [Read]
    success_check: { exit_zero: true, result_matches: "^DONE" }
  - id: docs-publish
    depends_on: [docs]
    prompt: "Publish {{ artifacts.docs }}."
    allowed_tools: [Read]
  - id: api
    prompt: "API-MARK: write the API schema."
    allowed_tools: [Read]
  - id: api-client
    depends_on: [api]
    prompt: "CLIENT-MARK: generate the client from {{ artifacts.api }}."
    allowed_tools: [Read]
`);
      expect(rowWords(ledger.rows)).toEqual([
        "docs FAIL result_mismatch",
        "docs-publish SKIPPED",
        "api PASS (exit-only)",
        "api-client PASS (exit-only)",
      ]);
      expect(ledger.rows[1]).toMatchObject({ reason: 'dependency "docs" failed' });
      expect(h.spawnsOf("docs-publish")).toBe(0);
      expect(h.spawnsOf("api-client")).toBe(1);
      expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
      expect(readState(runDir).nodes).toMatchObject({
        docs: { status: "failed" },
        "docs-publish": { status: "skipped" },
        api: { status: "passed" },
        "api-client": { status: "passed" },
      });
    });
  });

  describe("handoff: session (SPEC §4; research §2.6)", () => {
    test("the child resumes the parent's session (the model sees the parent's conversation); its retry starts fresh", async () => {
      const planReply = "Plan: change the operator in src/sum.js from - to +.";
      const h = await harness({
        plays: {
          plan: [reply(planReply)],
          implement: [reply("Working on it."), reply("DONE: sum now adds")],
        },
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
    success_check: { exit_zero: true, result_matches: "^DONE:" }
    retry: { max: 1, on: [result_mismatch] }
`);
      expect(rowWords(ledger.rows)).toEqual([
        "plan PASS (exit-only)",
        "implement FAIL result_mismatch superseded",
        "implement PASS (self-reported)",
      ]);
      const planSession = ledger.rows[0]!.sessionId!;
      const [resumed, fresh] = h.callsOf("implement") as ClaudeCall[];
      // The first attempt resumes the parent's session (what the model then sees of the parent's turn is
      // two-runtimes.real-cli.test.ts, through both real CLIs).
      expect(h.callsOf("plan")[0]!.session).toEqual({ kind: "fresh", sessionId: planSession });
      expect(resumed!.session).toEqual({ kind: "resume", sessionId: planSession });
      // The retry is a fresh session: none of the parent's conversation, its reply quoted instead.
      expect(fresh!.session.kind).toBe("fresh");
      expect(fresh!.session.sessionId).not.toBe(planSession);
      expect(fresh!.prompt).toContain("previous-attempt-reply");

      const starts = readEvents(runDir).filter((e) => e.type === "node_started" && e.node === "implement");
      expect(starts.map((e) => [e.attempt, e.sessionId === planSession])).toEqual([
        [1, true],
        [2, false],
      ]);
      expect(asPass(ledger.rows[2]).detail).toContain("retry started fresh — parent session not resumed");
    });
  });

  describe("verify output_matches and cwd outside the repository (SPEC §3)", () => {
    test("output_matches searches the verify's whole output: a match is PASS (verified), an exit 0 without a match is FAIL verify_failed", async () => {
      const h = await harness({
        makeRepo: makeFixedSampleRepo,
        plays: { unit: [reply("tests look fine")], "no-failures": [reply("tests look fine")] },
      });
      const { ledger } = await h.run(`
name: output-matches
on_fail: continue
nodes:
  - id: unit
    prompt: "CHECK-MARK: look over the unit tests."
    allowed_tools: [Read]
    success_check:
      verify: { command: "node --test", output_matches: "(?m)^# pass 1$" }
  - id: no-failures
    prompt: "CHECK-MARK: look over the unit tests again."
    allowed_tools: [Read]
    success_check:
      verify: { command: "node --test", output_matches: "(?m)^# fail [1-9]" }
`);
      expect(rowWords(ledger.rows)).toEqual(["unit PASS (verified)", "no-failures FAIL verify_failed"]);
      expect(asPass(ledger.rows[0]).verify).toMatchObject({
        outcome: "passed",
        exitCode: 0,
        outputMatches: { pattern: "(?m)^# pass 1$", matched: true },
      });
      const failed = asFail(ledger.rows[1]);
      expect(failed.verify).toMatchObject({
        outcome: "failed",
        exitCode: 0,
        outputMatches: { pattern: "(?m)^# fail [1-9]", matched: false },
      });
      expect(failed.detail).toContain("did not match /(?m)^# fail [1-9]/");
      expect(ledger.conclusion).toMatchObject({ conclusion: "failure", rule: "sink-verify-failed" });
    });

    test("a cwd or verify.cwd outside the repository fails the node with a clear run_error, and nothing is spawned", async () => {
      // No plays: any model call fails the test.
      const h = await harness({ plays: {} });
      const outside = realpathSync(h.scratch);
      const { ledger } = await h.run(`
name: cwd-outside
on_fail: continue
nodes:
  - id: escape
    cwd: ..
    prompt: "Tidy the parent folder."
    allowed_tools: [Read]
  - id: verify-escape
    prompt: "Check the build."
    allowed_tools: [Read]
    success_check:
      verify: { command: "true", cwd: ${JSON.stringify(outside)} }
  - id: missing
    cwd: no-such-folder
    prompt: "Work in a folder that does not exist."
    allowed_tools: [Read]
`);
      expect(rowWords(ledger.rows)).toEqual([
        "escape FAIL run_error",
        "verify-escape FAIL run_error",
        "missing FAIL run_error",
      ]);
      expect(asFail(ledger.rows[0]).detail).toMatch(/^cwd \S+ is outside the repository /);
      expect(asFail(ledger.rows[1]).detail).toContain(
        `success_check.verify.cwd ${outside} is outside the repository`,
      );
      expect(asFail(ledger.rows[2]).detail).toMatch(/^cwd \S+no-such-folder is not a folder$/);
      for (const node of ["escape", "verify-escape", "missing"]) expect(h.spawnsOf(node), node).toBe(0);
    });
  });

  describe("the ledger's rows and state.json", () => {
    test("rows are ordered by node position, each node's executions together, whatever order they ran in", async () => {
      const h = await harness({
        plays: {
          report: [reply("report written")],
          fast: [reply("not yet"), reply("OK fast")],
        },
      });
      const { ledger, runDir } = await h.run(`
name: order
nodes:
  - id: report
    depends_on: [fast]
    prompt: "REPORT-MARK: report on {{ artifacts.fast }}."
    allowed_tools: [Read]
  - id: fast
    prompt: "FAST-MARK: reply OK and a word."
    allowed_tools: [Read]
    success_check: { exit_zero: true, result_matches: "^OK" }
    retry: { max: 1, on: [result_mismatch] }
`);
      // `fast` ran twice before `report` ran; the ledger still lists `report` first (its position).
      expect(rowWords(ledger.rows)).toEqual([
        "report PASS (exit-only)",
        "fast FAIL result_mismatch superseded",
        "fast PASS (self-reported)",
      ]);
      // The retry quoted the judged reply, as the real test's conversation matched on.
      expect(h.callsOf("fast")[1]!.prompt).toContain("previous-attempt-reply");
      // A superseded FAIL does not decide the run.
      expect(ledger.conclusion).toMatchObject({ conclusion: "neutral", outcome: "passed" });
      const state = readState(runDir);
      // state.json keeps the executions in the order they were recorded.
      expect(rowWords(state.rows)).toEqual([
        "fast FAIL result_mismatch superseded",
        "fast PASS (self-reported)",
        "report PASS (exit-only)",
      ]);
      expect(state.nodes).toMatchObject({
        report: { status: "passed", executions: 1 },
        fast: { status: "passed", executions: 2 },
      });
      expect(state.gates).toEqual({});
      expect(state.paused).toBeNull();
      expect(state.legs).toEqual([expect.objectContaining({ kind: "fresh", outcome: "passed" })]);
      expect(rowsOf(ledger.rows, "fast").map((r) => r.detail)).toEqual([
        expect.stringContaining("attempt 1/2"),
        expect.stringContaining("attempt 2/2"),
      ]);
    });
  });

  describe("budget_usd on claude (SPEC §3; research §5.8)", () => {
    test("--max-budget-usd is passed, a reported cost over it fails the node naming both amounts (output kept), and a cost exactly at it passes", async () => {
      const costing = (usd: number) => ({
        lines: [initEvent(), resultEvent({ result: "translated", total_cost_usd: usd })],
      });
      const h = await harness({ plays: { "translate-fr": [costing(0.2)], "translate-de": [costing(0.05)] } });
      const { ledger, runDir } = await h.run(`
name: budget
on_fail: continue
nodes:
  - id: translate-fr
    prompt: "Translate the README into French."
    allowed_tools: [Read, Write]
    budget_usd: 0.05
  - id: translate-de
    prompt: "Translate the README into German."
    allowed_tools: [Read, Write]
    budget_usd: 0.05
`);
      // The engine hands the budget to the call (its argv, `--max-budget-usd 0.05`, is claude-argv.test.ts).
      for (const node of ["translate-fr", "translate-de"])
        expect((h.callsOf(node)[0] as ClaudeCall).budgetUsd, node).toBe(0.05);
      expect(rowWords(ledger.rows)).toEqual([
        "translate-fr FAIL budget_exceeded",
        "translate-de PASS (exit-only)",
      ]);
      const over = asFail(ledger.rows[0]);
      expect(over.detail).toContain("$0.2000");
      expect(over.detail).toContain("$0.0500");
      expect(over.costUsd).toBe(0.2);
      // Post-hoc: the work was done and paid for, so its output is kept (research §5.8).
      expect(existsSync(join(runDir, "nodes", "translate-fr.out"))).toBe(true);
      expect(ledger.conclusion).toMatchObject({ conclusion: "failure" });
    });
  });
});
