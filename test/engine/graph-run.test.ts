/**
 * Acceptance tests of the graph engine at engine level (`runHandWritten`): ready-set scheduling and
 * `concurrency`, `on_fail` halt and continue, node timeouts, `handoff: session`, `budget_usd`, verify
 * `output_matches` and `cwd` / `verify.cwd` (SPEC §3, §4; research/oh-my-graph.md §1.6, §2.4–§2.6,
 * §5.5–§5.8). Every runtime-neutral test runs on BOTH runtimes: the real pinned `claude` or `codex` CLI
 * talks to the scripted model server; repositories, git and verify commands are real. The fake CLI plays
 * only what the real one cannot do on demand (a hang with a grandchild in its process group, a reported
 * cost over budget), in the runtime's own stream — see graph-harness.ts. `budget_usd` is claude's alone
 * (codex's documented answer, a warning naming the timeout, is in codex-runtime.test.ts).
 *
 * Order is proven with the run's own `events.jsonl` (file order is the order), never with wall-clock
 * thresholds; timeouts only bound a broken test.
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { Runtime } from "../../src/policy/disclosure.js";
import { eventually, killLeftovers, processIsGone } from "../proc/process-probe.js";
import {
  answeredScenario,
  type FakeScenario,
  hangScenario,
  initEvent,
  resultEvent,
} from "../support/fake-claude/index.js";
import { makeFixedSampleRepo, makeTempRepo } from "../support/temp-repo.js";
import {
  asFail,
  asPass,
  eventIndex,
  type GraphHarness,
  graphHarnessPerTest,
  readEvents,
  readState,
  requestsOf,
  rowsOf,
  rowWords,
} from "./graph-harness.js";
import { describeEachBehaviourOnce, historyText } from "./runtime-harness.js";

/** Bounds a wait in a broken test; never asserted as a duration. */
const BOUND_MS = 20_000;

const harness = graphHarnessPerTest();
let leftoverPids: number[] = [];
// Registered after the harnesses' hook, so it runs first: the leftovers die before their folders go.
afterEach(() => {
  killLeftovers(leftoverPids);
  leftoverPids = [];
});

/** A fake execution that starts a `sleep` in its process group and never exits on its own. */
const hangWithSleeper = (runtime: Runtime): FakeScenario => hangScenario(runtime, { sleeper: true });

/** The fake's `{pid, sleeperPid}` for one execution, recorded for cleanup. */
function pidsOf(h: GraphHarness, node: string, call: number): { fake: number; sleeper: number } {
  const report = h.fakeReport(node, call);
  expect(report?.sleeperPid, `the fake of ${node} never reported its sleeper`).toEqual(expect.any(Number));
  leftoverPids.push(report!.pid, report!.sleeperPid!);
  return { fake: report!.pid, sleeper: report!.sleeperPid! };
}

describeEachBehaviourOnce("on %s", (runtime, once) => {
  describe("on_fail (SPEC §4)", () => {
    once(
      "halt: a failure cancels a running sibling — its process group is killed and its row names the failed node — and launches nothing new",
      async () => {
        const h = await harness({ runtime, script: () => ({ conversations: [] }) });
        const { ledger, runDir } = await h.run(
          `
name: halt
nodes:
  - id: lint
    prompt: "Lint the whole repository and list every warning."
    allowed_tools: [Read, Grep]
  - id: lint-report
    depends_on: [lint]
    prompt: "Summarise the warnings in {{ artifacts.lint }}."
    allowed_tools: [Read]
  - id: build
    prompt: "Build the project. Reply BUILT when it compiles."
    allowed_tools: [Read]
    success_check: { exit_zero: true, result_matches: "^BUILT" }
`,
          {
            executions: {
              lint: [hangWithSleeper(runtime)],
              // `build` answers only once lint's grandchild runs, so the halt has a running sibling to stop.
              build: [
                {
                  waitFor: h.sleeperStarted("lint", 1),
                  ...answeredScenario(runtime, "error TS2345: bad argument"),
                },
              ],
            },
          },
        );

        const pids = pidsOf(h, "lint", 1);
        expect(await eventually(() => processIsGone(pids.fake), BOUND_MS)).toBe(true);
        expect(await eventually(() => processIsGone(pids.sleeper), BOUND_MS)).toBe(true);

        expect(rowWords(ledger.rows)).toEqual([
          "lint FAIL cancelled",
          "lint-report SKIPPED",
          "build FAIL result_mismatch",
        ]);
        const lint = asFail(ledger.rows[0]);
        expect(lint.detail).toBe('cancelled: "build" failed and on_fail is halt');
        expect(lint.costUsd, "killed before it reported a cost: unknown, not 0").toBeNull();
        expect(ledger.rows[1]).toMatchObject({ reason: 'run halted after "build" failed' });
        expect(h.spawnsOf("lint-report")).toBe(0);
        expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });

        const events = readEvents(runDir);
        expect(eventIndex(events, "node_failed", "build")).toBeLessThan(
          eventIndex(events, "node_failed", "lint"),
        );
        const state = readState(runDir);
        expect(state.nodes).toMatchObject({
          lint: { status: "cancelled" },
          "lint-report": { status: "skipped" },
          build: { status: "failed" },
        });
        expect(state.paused).toBeNull();
        expect(state.legs).toEqual([expect.objectContaining({ kind: "fresh", outcome: "failed" })]);
      },
    );

    once(
      "continue: a failure prunes only its own subtree; an independent branch still runs to the end",
      async () => {
        const h = await harness({
          runtime,
          script: () => ({
            conversations: [
              { name: "docs", match: "DOCS-MARK", turns: [{ text: "I could not find the docs folder." }] },
              { name: "api", match: "API-MARK", turns: [{ text: "api schema written", delay_ms: 300 }] },
              { name: "client", match: "CLIENT-MARK", turns: [{ text: "client generated" }] },
            ],
          }),
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
        expect(requestsOf(h.server.requests, "client")).toHaveLength(1);
        expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
        expect(readState(runDir).nodes).toMatchObject({
          docs: { status: "failed" },
          "docs-publish": { status: "skipped" },
          api: { status: "passed" },
          "api-client": { status: "passed" },
        });
      },
    );
  });

  describe("a cancelled run (workflow cancelled, CLI interrupted)", () => {
    test("aborting the run's signal kills running nodes' process groups, launches nothing more and ends cancelled; the node's worktree is removed, its branch kept", async () => {
      const h = await harness({ runtime, script: () => ({ conversations: [] }) });
      const controller = new AbortController();
      const running = h.run(
        `
name: cancelled
nodes:
  - id: e2e
    prompt: "Run the end-to-end suite."
    allowed_tools: [Read]
    worktree: suite
  - id: report
    depends_on: [e2e]
    prompt: "Report on {{ artifacts.e2e }}."
    allowed_tools: [Read]
`,
        { signal: controller.signal, executions: { e2e: [hangWithSleeper(runtime)] } },
      );
      expect(await eventually(() => (h.fakeReport("e2e", 1)?.sleeperPid ?? null) !== null, BOUND_MS)).toBe(
        true,
      );
      const pids = pidsOf(h, "e2e", 1);
      controller.abort();
      const { ledger, runDir } = await running;

      expect(await eventually(() => processIsGone(pids.fake), BOUND_MS)).toBe(true);
      expect(await eventually(() => processIsGone(pids.sleeper), BOUND_MS)).toBe(true);
      expect(rowWords(ledger.rows)).toEqual(["e2e FAIL cancelled", "report SKIPPED"]);
      expect(asFail(ledger.rows[0]).detail).toBe("cancelled: the run was cancelled");
      expect(ledger.rows[1]).toMatchObject({ reason: "run cancelled" });
      expect(h.spawnsOf("report")).toBe(0);
      expect(ledger.conclusion).toMatchObject({ conclusion: "cancelled", outcome: "cancelled" });
      const state = readState(runDir);
      expect(state.nodes).toMatchObject({ e2e: { status: "cancelled" }, report: { status: "skipped" } });
      expect(state.legs).toEqual([expect.objectContaining({ kind: "fresh", outcome: "cancelled" })]);
      // Interrupted, the run directory keeps no checkout; the branch stays (at the starting commit: no edit).
      expect(existsSync(join(runDir, "worktrees"))).toBe(false);
      expect(await h.repo.git(["worktree", "list", "--porcelain"])).not.toContain(runDir);
      expect(await h.repo.git(["rev-parse", `evidence-gate/${ledger.runId}/suite`])).toBe(
        await h.repo.git(["rev-parse", "HEAD"]),
      );
    });
  });

  describe("node timeout (SPEC §4; research §5.7)", () => {
    test("a node killed by its timeout fails with cause timeout, and its whole process tree is gone", async () => {
      const h = await harness({ runtime, script: () => ({ conversations: [] }) });
      const { ledger, runDir } = await h.run(
        `
name: timeout
nodes:
  - id: migrate
    prompt: "Run the database migration."
    allowed_tools: [Read]
    timeout: 2s
`,
        { executions: { migrate: [hangWithSleeper(runtime)] } },
      );
      const pids = pidsOf(h, "migrate", 1);
      expect(await eventually(() => processIsGone(pids.fake), BOUND_MS)).toBe(true);
      expect(await eventually(() => processIsGone(pids.sleeper), BOUND_MS)).toBe(true);
      const row = asFail(ledger.rows[0]);
      expect(row.cause).toBe("timeout");
      expect(row.detail).toContain("timeout of 2s");
      expect(row.costUsd).toBeNull();
      expect(ledger.rows).toHaveLength(1);
      expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
      expect(readState(runDir).nodes.migrate).toMatchObject({ status: "failed", executions: 1 });
    });
  });

  describe("handoff: session (SPEC §4; research §2.6)", () => {
    test("the child resumes the parent's session (the model sees the parent's conversation); its retry starts fresh", async () => {
      const planReply = "Plan: change the operator in src/sum.js from - to +.";
      const h = await harness({
        runtime,
        script: () => ({
          conversations: [
            { name: "plan", match: "PLAN-MARK", turns: [{ text: planReply }] },
            {
              name: "implement-retry",
              match: ["IMPLEMENT-MARK", "previous-attempt-reply"],
              turns: [{ text: "DONE: sum now adds" }],
            },
            { name: "implement", match: "IMPLEMENT-MARK", turns: [{ text: "Working on it." }] },
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
    success_check: { exit_zero: true, result_matches: "^DONE:" }
    retry: { max: 1, on: [result_mismatch] }
`);
      expect(rowWords(ledger.rows)).toEqual([
        "plan PASS (exit-only)",
        "implement FAIL result_mismatch superseded",
        "implement PASS (self-reported)",
      ]);
      const planSession = ledger.rows[0]!.sessionId!;
      const [resumed] = requestsOf(h.server.requests, "implement");
      const [fresh] = requestsOf(h.server.requests, "implement-retry");
      // The first attempt ran in the parent's session: its request carries the parent's turn.
      expect(historyText(resumed!)).toContain("PLAN-MARK");
      expect(historyText(resumed!)).toContain(planReply);
      // The retry is a fresh session: none of the parent's conversation.
      expect(historyText(fresh!)).not.toContain("PLAN-MARK");
      expect(historyText(fresh!)).not.toContain(planReply);

      const starts = readEvents(runDir).filter((e) => e.type === "node_started" && e.node === "implement");
      expect(starts.map((e) => [e.attempt, e.sessionId === planSession])).toEqual([
        [1, true],
        [2, false],
      ]);
      expect(asPass(ledger.rows[2]).detail).toContain("retry started fresh — parent session not resumed");
    });
  });

  describe("verify output_matches, cwd and verify.cwd (SPEC §3)", () => {
    once(
      "output_matches searches the verify's whole output: a match is PASS (verified), an exit 0 without a match is FAIL verify_failed",
      async () => {
        const h = await harness({
          runtime,
          makeRepo: makeFixedSampleRepo,
          script: () => ({
            conversations: [{ name: "check", match: "CHECK-MARK", turns: [{ text: "tests look fine" }] }],
          }),
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
      },
    );

    test("a node runs in its cwd and its verify in verify.cwd (relative to the node's), both inside the repository", async () => {
      const h = await harness({
        runtime,
        makeRepo: () =>
          makeTempRepo({
            commit: true,
            files: {
              "README.md": "root\n",
              "packages/api/package.json": "{}\n",
              "packages/api/README.md": "api\n",
            },
          }),
        script: () => ({
          conversations: [{ name: "api", match: "API-DOCS-MARK", turns: [{ text: "api docs checked" }] }],
        }),
      });
      const { ledger } = await h.run(`
name: cwd
nodes:
  - id: api-docs
    cwd: packages/api
    prompt: "API-DOCS-MARK: check the API package's README."
    allowed_tools: [Read]
    success_check:
      verify: { command: "test -f packages/api/README.md && test -f README.md", cwd: ../.. }
`);
      expect(rowWords(ledger.rows)).toEqual(["api-docs PASS (verified)"]);
      const row = asPass(ledger.rows[0]);
      expect(realpathSync(row.verify!.cwd)).toBe(realpathSync(h.repo.dir));
      const [request] = requestsOf(h.server.requests, "api");
      // The CLI ran in the node's cwd: each tells its model so (claude's system prompt, codex's environment context).
      const cwd = join(h.repo.dir, "packages", "api");
      expect(JSON.stringify(request!.body)).toContain(
        runtime === "claude" ? `Primary working directory: ${cwd}` : `<cwd>${cwd}</cwd>`,
      );
    });

    once(
      "a cwd or verify.cwd outside the repository fails the node with a clear run_error, and nothing is spawned",
      async () => {
        const h = await harness({ runtime, script: () => ({ conversations: [] }) });
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
        expect(h.server.requests).toHaveLength(0);
      },
    );
  });

  describe("the ledger's rows and state.json", () => {
    test("rows are ordered by node position, each node's executions together, whatever order they ran in", async () => {
      const h = await harness({
        runtime,
        script: () => ({
          conversations: [
            { name: "report", match: "REPORT-MARK", turns: [{ text: "report written" }] },
            {
              name: "fast-retry",
              match: ["FAST-MARK", "previous-attempt-reply"],
              turns: [{ text: "OK fast" }],
            },
            { name: "fast", match: "FAST-MARK", turns: [{ text: "not yet" }] },
          ],
        }),
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
});

describe("budget_usd on claude (SPEC §3; research §5.8)", () => {
  test("--max-budget-usd is passed, a reported cost over it fails the node naming both amounts (output kept), and a cost exactly at it passes", async () => {
    const h = await harness({ runtime: "claude", script: () => ({ conversations: [] }) });
    const costing = (usd: number): FakeScenario => ({
      steps: [{ json: initEvent() }, { json: resultEvent({ result: "translated", total_cost_usd: usd }) }],
    });
    const { ledger, runDir } = await h.run(
      `
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
`,
      { executions: { "translate-fr": [costing(0.2)], "translate-de": [costing(0.05)] } },
    );
    for (const node of ["translate-fr", "translate-de"]) {
      const argv = h.fakeReport(node, 1)!.argv;
      expect(argv[argv.indexOf("--max-budget-usd") + 1], node).toBe("0.05");
    }
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

  test("the real CLI stops at --max-budget-usd: budget_exceeded naming both amounts, not retried by a nonzero_exit / run_error policy", async () => {
    const h = await harness({
      runtime: "claude",
      script: () => ({
        conversations: [
          {
            name: "summarise",
            match: "SUMMARISE-MARK",
            turns: [{ text: "A long summary.", usage: { input_tokens: 900_000, output_tokens: 100_000 } }],
          },
        ],
      }),
    });
    const { ledger } = await h.run(`
name: budget-real
nodes:
  - id: summarise
    prompt: "SUMMARISE-MARK: summarise the repository history."
    allowed_tools: [Read]
    budget_usd: 0.01
    retry: { max: 1, on: [nonzero_exit, run_error] }
`);
    expect(rowWords(ledger.rows)).toEqual(["summarise FAIL budget_exceeded"]);
    const row = asFail(ledger.rows[0]);
    expect(row.detail).toContain("$0.0100");
    expect(row.detail).toMatch(/\$\d+\.\d{4} vs \$0\.0100/);
    expect(requestsOf(h.server.requests, "summarise")).toHaveLength(1);
  });
});

describe("handoff: session cost on claude (issue 26)", () => {
  test("a session child's cost is its share of the resumed session, so TOTAL COST is known", async () => {
    const h = await harness({
      script: () => ({
        conversations: [
          { name: "plan", match: "PLAN-MARK", turns: [{ text: "Plan: make sum() add." }] },
          { name: "implement", match: "IMPLEMENT-MARK", turns: [{ text: "DONE: sum now adds" }] },
        ],
      }),
    });
    const { ledger, runDir } = await h.run(`
name: session-cost
nodes:
  - id: plan
    prompt: "PLAN-MARK: write a one-line plan."
    allowed_tools: [Read]
  - id: implement
    depends_on: [plan]
    handoff: session
    prompt: "IMPLEMENT-MARK: carry out the plan."
    allowed_tools: [Read]
`);
    expect(rowWords(ledger.rows)).toEqual(["plan PASS (exit-only)", "implement PASS (exit-only)"]);
    const [plan, implement] = ledger.rows.map(asPass);
    expect(implement!.sessionId).toBe(plan!.sessionId);
    expect(plan!.costUsd).toBeGreaterThan(0);
    expect(implement!.costUsd).toBeGreaterThan(0);
    // The parent's record keeps its session's cumulative cost after its PASS is settled.
    expect(readState(runDir).nodes.plan).toMatchObject({ status: "passed", session_cost_usd: plan!.costUsd });
    expect(ledger.totals.nodes.kind).toBe("known");
    expect(ledger.totals.total.kind).toBe("known");
  });
});
