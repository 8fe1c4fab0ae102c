/**
 * What of the graph engine's acceptance tests (SPEC §3, §4; research/oh-my-graph.md §2.4, §5.5–§5.8) only
 * a real process shows; the rest is ./graph-run.test.ts, through the model port. Here: a halt, a cancelled
 * run and a node timeout kill the CLI's whole process group (the fake CLI with a `sleep` grandchild, in the
 * runtime's own stream — graph-harness.ts — and the real pids checked gone); the CLI really runs in the
 * node's `cwd` (each real CLI tells its model so); the real `claude` stops at `--max-budget-usd`; and a
 * `handoff: session` child's cost is its share of the session the real `claude` resumed and reported
 * cumulatively (issue 26). The real pinned `claude` or `codex` talks to the scripted model server;
 * repositories, git and verify commands are real.
 *
 * Order is proven with the run's own `events.jsonl` (file order is the order), never with wall-clock
 * thresholds; timeouts only bound a broken test.
 */
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { Runtime } from "../../src/policy/disclosure.js";
import { eventually, killLeftovers, processIsGone } from "../proc/process-probe.js";
import { answeredScenario, type FakeScenario, hangScenario } from "../support/fake-claude/index.js";
import { makeTempRepo } from "../support/temp-repo.js";
import {
  asFail,
  asPass,
  eventIndex,
  type GraphHarness,
  graphHarnessPerTest,
  readEvents,
  readState,
  requestsOf,
  rowWords,
} from "./graph-harness.js";
import { describeEachBehaviourOnce } from "./runtime-harness.js";

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

describeEachBehaviourOnce("on %s", (runtime) => {
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

  describe("verify output_matches, cwd and verify.cwd (SPEC §3)", () => {
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
  });
});

describe("on claude, on_fail (SPEC §4)", () => {
  const runtime: Runtime = "claude";
  test("halt: a failure cancels a running sibling — its process group is killed and its row names the failed node — and launches nothing new", async () => {
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
  });
});

describe("budget_usd on claude (SPEC §3; research §5.8)", () => {
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
