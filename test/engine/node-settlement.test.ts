/**
 * One execution of a node, settled (SPEC §4 "Node lifecycle", "Failure"): interpolate → spawn → parse →
 * cheap predicates → verify → record → the decision the scheduler acts on. No CLI process: the model
 * calls play scripted streams through the real parsers (./scripted-calls.ts) and the verifier is
 * scripted, except where the real VerifyQueue runs a real `sh` command in a real git repository. The run
 * directory, `state.json`, `events.jsonl`, the graph loader, interpolation and redaction are the real ones.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { LedgerRow, VerifyEvidence } from "../../src/core/ledger-row.js";
import { createRedactor } from "../../src/core/redact.js";
import { mintRunId } from "../../src/core/run-id.js";
import { LegJournal } from "../../src/engine/leg-journal.js";
import { LegMemory } from "../../src/engine/leg-memory.js";
import type { ExecutionInput, Settlement } from "../../src/engine/node-decision.js";
import { type SettlementContext, settleExecution } from "../../src/engine/node-settlement.js";
import { RedactingRunDirectory } from "../../src/engine/redacting-run-dir.js";
import { type NodeRecord, RUN_STATE_SCHEMA_VERSION, type RunState } from "../../src/engine/run-state.js";
import { RunStateStore } from "../../src/engine/run-state-store.js";
import { RunWorktrees } from "../../src/engine/run-worktrees.js";
import { type SinkVerifyRequest, VerifyQueue } from "../../src/evidence/verify.js";
import type { Graph, GraphNode } from "../../src/graph/graph.js";
import { loadGraphText } from "../../src/graph/load.js";
import { rowDetail } from "../../src/ledger/cells.js";
import {
  agentMessageEvent,
  initEvent,
  resultEvent,
  turnCompletedEvent,
} from "../support/fake-claude/index.js";
import { hermeticGitEnv, makeHelloRepo, makeTempRepo } from "../support/temp-repo.js";
import { type ScriptedCalls, type ScriptedPlay, scriptedCalls } from "./scripted-calls.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = "sk-test-0123456789abcdef";

const scratches: string[] = [];
afterEach(() => {
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A claude call that answers `reply` (cost $0.0123, 2 turns) and exits `exitCode`. */
function answered(reply: string, exitCode = 0, result: Record<string, unknown> = {}): ScriptedPlay {
  return { lines: [initEvent(), resultEvent({ result: reply, ...result })], exitCode };
}

/** A verify's evidence as the queue reports it. */
function evidence(request: SinkVerifyRequest, outcome: VerifyEvidence["outcome"], exitCode: number | null) {
  return {
    command: request.command,
    cwd: request.cwd,
    exitCode,
    expectExit: request.expectExit,
    outcome,
    durationMs: 10,
    outputTail: `build said ${exitCode}\n`,
    evidenceTree: "4b825dc642cb6eb9a060e54bf8d69288fbe4904",
  } satisfies VerifyEvidence;
}

interface LegOptions {
  readonly plays?: readonly ScriptedPlay[];
  /** The scripted verify's answer per request (default: passes with exit 0). */
  readonly verify?: (request: SinkVerifyRequest) => VerifyEvidence;
  /** A real VerifyQueue instead (verify commands really run). */
  readonly realVerify?: boolean;
  readonly repoDir?: string;
  readonly inputs?: Record<string, string>;
  readonly nodes?: Record<string, NodeRecord>;
  readonly runtime?: "claude" | "codex";
  readonly haltedBy?: string;
  /** The leg's managed worktrees (for `worktree:` nodes). */
  readonly worktrees?: RunWorktrees;
}

interface Leg {
  readonly graph: Graph;
  readonly ctx: SettlementContext;
  readonly scripted: ScriptedCalls;
  readonly verifies: SinkVerifyRequest[];
  readonly started: { nodeId: string; attempt: number; round: number; sessionId: string | null }[];
  readonly dir: RedactingRunDirectory;
  node(id: string): GraphNode;
  state(): RunState;
  /** `type node` per line of events.jsonl, in order. */
  events(): string[];
  settle(id: string, input?: ExecutionInput, signal?: AbortSignal): Promise<Settlement>;
}

function leg(yaml: string, o: LegOptions = {}): Leg {
  const loaded = loadGraphText(yaml, "graph.yml");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const graph = loaded.graph;
  const scratch = mkdtempSync(join(tmpdir(), "eg-settlement-"));
  scratches.push(scratch);
  const repoDir = o.repoDir ?? join(scratch, "repo");
  mkdirSync(repoDir, { recursive: true });
  const redactor = createRedactor([SECRET]);
  const dir = new RedactingRunDirectory(join(scratch, "runs"), mintRunId(), redactor);
  const store = new RunStateStore(dir, initialState(dir.runId, repoDir, o.nodes ?? {}));
  const scripted = scriptedCalls(o.plays ?? []);
  const verifies: SinkVerifyRequest[] = [];
  const started: Leg["started"] = [];
  const verifier = o.realVerify
    ? new VerifyQueue({ baseEnv: process.env, passThrough: [], knownSecrets: [] })
    : {
        nodeWorking: () => () => {},
        run: async (request: SinkVerifyRequest) => {
          verifies.push(request);
          return (o.verify ?? ((r) => evidence(r, "passed", 0)))(request);
        },
      };
  const hooks = {
    onNodeStarted: (nodeId: string, info: { sessionId: string | null; attempt: number; round: number }) =>
      started.push({ nodeId, ...info }),
  };
  const ctx: SettlementContext = {
    graph,
    store,
    dir,
    journal: new LegJournal({ graph, store, dir, redactor, hooks }),
    stopWords: () => "the run was cancelled",
    redactor,
    dirs: { repoDir, workDir: repoDir },
    inputs: o.inputs ?? {},
    policies: {},
    agent: {
      runtime: o.runtime ?? "claude",
      claudeExecutable: "claude",
      modelEnv: () => ({ HOME: join(scratch, "home") }),
      calls: scripted.calls,
    },
    verifier,
    memory: new LegMemory(),
    haltedBy: () => o.haltedBy ?? null,
    ...(o.worktrees !== undefined ? { worktrees: o.worktrees } : {}),
  };
  return {
    graph,
    ctx,
    scripted,
    verifies,
    started,
    dir,
    node: (id) => graph.nodes_by_id.get(id) ?? fail(`no node ${id}`),
    // The engine saves state.json within the store's coalescing window; the leg's end flushes it.
    state: () => {
      store.flush();
      return JSON.parse(readFileSync(join(dir.path, "state.json"), "utf8")) as RunState;
    },
    events: () =>
      readFileSync(join(dir.path, "events.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { type: string; node?: string })
        .map((e) => `${e.type} ${e.node ?? ""}`),
    settle: (id, input = { attempt: 1, round: 0 }, signal = new AbortController().signal) =>
      settleExecution(ctx, graph.nodes_by_id.get(id) ?? fail(`no node ${id}`), input, signal),
  };
}

function fail(message: string): never {
  throw new Error(message);
}

function initialState(runId: string, repoDir: string, nodes: Record<string, NodeRecord>): RunState {
  return {
    schema_version: RUN_STATE_SCHEMA_VERSION,
    run_id: runId,
    mode: "run",
    runtime: "claude",
    inputs: {},
    build_evidence: { kind: "none-detected" },
    starting_commit: { sha: "0".repeat(40), tree: "1".repeat(40), description: "test" },
    repo_dir: repoDir,
    work_dir: repoDir,
    concurrency: 1,
    on_fail: "halt",
    verify: { timeout_ms: 120_000, env: [] },
    tool_policies: {},
    planning_calls: [],
    plan: null,
    rows: [],
    nodes,
    gates: {},
    paused: null,
    legs: [{ started_at: "2026-01-01T00:00:00.000Z", kind: "fresh" }],
  };
}

function rowText(row: LedgerRow | null | undefined): string {
  if (row == null) return "none";
  return row.verdict === "PASS"
    ? `PASS (${row.qualifier}) ${row.detail}`
    : row.verdict === "FAIL"
      ? `FAIL ${row.cause}${row.superseded === true ? " superseded" : ""}: ${row.detail}`
      : row.verdict === "PAUSED"
        ? `PAUSED ${row.resetsAt ?? "-"}: ${row.detail}`
        : `SKIPPED ${row.reason}`;
}

const HANDOFF = `
nodes:
  - id: plan
    prompt: plan it
  - id: fix
    depends_on: [plan]
    prompt: fix it
    handoff: session
`;

const ONE = `
nodes:
  - id: fix
    prompt: fix it
`;

describe("a passing execution", () => {
  test("is recorded before it is released: the row and a passed record in state.json, node_started then node_passed, the reply in nodes/", async () => {
    const l = leg(ONE, { plays: [answered("all fixed")] });
    const settled = await l.settle("fix");
    expect(settled.kind).toBe("passed");
    if (settled.kind !== "passed") return;
    expect(settled.reply).toBe("all fixed");
    expect(rowText(settled.row)).toBe("PASS (exit-only) exited 0");
    const state = l.state();
    expect(state.rows).toHaveLength(1);
    expect(state.rows[0]).toMatchObject({ nodeId: "fix", verdict: "PASS", costUsd: 0.0123, numTurns: 2 });
    const sessionId = l.scripted.claude[0]?.session.sessionId;
    expect(sessionId).toMatch(UUID);
    expect(state.nodes.fix).toMatchObject({ status: "passed", session_id: sessionId, executions: 1 });
    expect(l.events()).toEqual(["node_started fix", "node_passed fix"]);
    expect(l.started).toEqual([{ nodeId: "fix", sessionId, attempt: 1, round: 0 }]);
    expect(readFileSync(l.dir.nodeOutputPath("fix"), "utf8")).toBe("all fixed");
  });

  test("a secret in the reply is redacted in the decision, the row's file and the saved output", async () => {
    const l = leg(ONE, { plays: [answered(`token ${SECRET} leaked`)] });
    const settled = await l.settle("fix");
    expect(settled.kind === "passed" && settled.reply).toBe("token *** leaked");
    expect(readFileSync(l.dir.nodeOutputPath("fix"), "utf8")).toBe("token *** leaked");
    expect(JSON.stringify(l.state())).not.toContain(SECRET);
  });
});

describe("a failure is a decision: retry, feedback, or failed (SPEC §4 Failure)", () => {
  const RETRIED = `
nodes:
  - id: fix
    prompt: fix it
    success_check: { result_matches: "^DONE$" }
    retry: { max: 1, on: [result_mismatch] }
`;

  test("a cause in retry.on with attempts left is a retry: the FAIL is superseded, the next attempt quotes the judged reply in a fresh session", async () => {
    const l = leg(RETRIED, { plays: [answered("not yet"), answered("DONE")] });
    const first = await l.settle("fix");
    expect(first.kind).toBe("retry");
    if (first.kind !== "retry") return;
    expect(rowText(first.row)).toBe(
      "FAIL result_mismatch superseded: reply does not match /^DONE$/: not yet; attempt 1/2",
    );
    expect(first.info).toEqual({
      kind: "retry",
      cause: "result_mismatch",
      attempt: 2,
      maxAttempts: 2,
      judged: true,
    });
    expect(first.detail).toBe("retry 1/1 after result_mismatch (previous reply quoted)");
    expect(first.next).toMatchObject({ attempt: 2, round: 0, carried: { quoted: "not yet" } });
    // A superseded FAIL has no node_failed event: the retry replaces it.
    expect(l.events()).toEqual(["node_started fix"]);
    expect(l.state().nodes.fix).toMatchObject({ status: "running", executions: 1 });

    const second = await l.settle("fix", first.next);
    expect(second.kind === "passed" && rowText(second.row)).toBe(
      "PASS (self-reported) reply matched /^DONE$/; attempt 2/2",
    );
    const [call1, call2] = l.scripted.claude;
    expect(call1?.prompt).toBe("fix it");
    expect(call2?.prompt).toContain("fix it");
    expect(call2?.prompt).toContain("not yet");
    expect(call2?.session.sessionId).not.toBe(call1?.session.sessionId);
    expect(l.state().nodes.fix).toMatchObject({ status: "passed", executions: 2 });
    expect(l.started.map((s) => s.attempt)).toEqual([1, 2]);
  });

  test("the last attempt's FAIL is failed, judged, with node_failed recorded", async () => {
    const l = leg(RETRIED, { plays: [answered("nope")] });
    const settled = await l.settle("fix", {
      attempt: 2,
      round: 0,
      carried: { fields: { prompt: "fix it", cwd: l.ctx.dirs.workDir, verify: null }, quoted: "before" },
    });
    expect(settled).toMatchObject({ kind: "failed", judged: true });
    expect(rowText(settled.kind === "failed" ? settled.row : null)).toBe(
      "FAIL result_mismatch: reply does not match /^DONE$/: nope; attempt 2/2",
    );
    expect(l.events()).toEqual(["node_started fix", "node_failed fix"]);
    expect(readFileSync(l.dir.failedOutputPath("fix"), "utf8")).toBe("nope");
  });

  test("a cause not in retry.on is failed at once (a nonzero exit is not retried by a result_mismatch policy)", async () => {
    const l = leg(RETRIED, { plays: [answered("DONE", 3)] });
    const settled = await l.settle("fix");
    expect(settled).toMatchObject({ kind: "failed", judged: false });
    expect(rowText(settled.kind === "failed" ? settled.row : null)).toBe(
      "FAIL nonzero_exit: claude exited 3; attempt 1/2; not retried: retry.on lists result_mismatch, not nonzero_exit",
    );
  });

  test("retry.max with no cause in retry.on never retries, and its row names no attempts (not 'attempt 1/4')", async () => {
    const l = leg(
      `
nodes:
  - id: fix
    prompt: fix it
    success_check: { result_matches: "^DONE$" }
    retry: { max: 3 }
`,
      { plays: [answered("nope")] },
    );
    const settled = await l.settle("fix");
    expect(settled).toMatchObject({ kind: "failed", judged: true });
    expect(rowText(settled.kind === "failed" ? settled.row : null)).toBe(
      "FAIL result_mismatch: reply does not match /^DONE$/: nope",
    );
  });

  const LOOP = `
nodes:
  - id: write
    prompt: "write it {{ feedback.review }}"
  - id: review
    depends_on: [write]
    prompt: review it
    success_check:
      verify: { command: "npm test" }
    feedback: { rerun: write, max: 2 }
`;

  test("a verify that ran and said no, with rounds left, fires the arc: the decision carries the round and the verification's evidence as the payload", async () => {
    const l = leg(LOOP, { plays: [answered("looks fine")], verify: (r) => evidence(r, "failed", 1) });
    const settled = await l.settle("review");
    expect(settled.kind).toBe("feedback");
    if (settled.kind !== "feedback") return;
    expect(settled.round).toBe(1);
    expect(settled.arc.body).toEqual(["write", "review"]);
    expect(settled.detail).toBe("feedback round 1/2: re-running write → review (verify_failed)");
    expect(settled.payload).toContain("feedback round 1/2 from node review (cause verify_failed)");
    expect(settled.payload).toContain("npm test");
    expect(settled.payload).toContain("build said 1");
    expect(l.verifies.map((v) => v.command)).toEqual(["npm test"]);
    // The FAIL is recorded as it happened; firing the arc (superseding it) is the scheduler's act.
    expect(rowText(l.state().rows[0])).toBe("FAIL verify_failed: verify `npm test` exited 1 (expected 0)");
  });

  test("with no round left the FAIL stands and says the arc is exhausted", async () => {
    const l = leg(LOOP, { plays: [answered("looks fine")], verify: (r) => evidence(r, "failed", 1) });
    const settled = await l.settle("review", { attempt: 1, round: 2 });
    expect(settled).toMatchObject({ kind: "failed", judged: true, exhausted: { rerun: "write", max: 2 } });
  });

  test("a verify that timed out is an infrastructure fault: no feedback, not judged", async () => {
    const l = leg(LOOP, { plays: [answered("looks fine")], verify: (r) => evidence(r, "timed_out", null) });
    const settled = await l.settle("review");
    expect(settled).toMatchObject({ kind: "failed", judged: false });
    expect(settled.kind === "failed" && settled.exhausted).toBeUndefined();
  });

  test("a halted run fires no arc: the FAIL stands", async () => {
    const l = leg(LOOP, {
      plays: [answered("looks fine")],
      verify: (r) => evidence(r, "failed", 1),
      haltedBy: "other",
    });
    expect((await l.settle("review")).kind).toBe("failed");
  });

  test("a body node in a feedback round says the round on its row and in node_started", async () => {
    const l = leg(LOOP, { plays: [answered("v2")] });
    l.ctx.memory.feedbackPayloads.set("review", "PAYLOAD-1");
    const settled = await l.settle("write", { attempt: 1, round: 1 });
    expect(settled.kind === "passed" && rowText(settled.row)).toBe(
      "PASS (exit-only) exited 0; feedback round 1/2",
    );
    expect(l.scripted.claude[0]?.prompt).toBe("write it PAYLOAD-1");
    expect(l.started[0]).toMatchObject({ attempt: 1, round: 1 });
  });
});

describe("failures before the spawn are run_error rows and spawn nothing", () => {
  test("an unresolvable placeholder names the field and says how to keep braces", async () => {
    const l = leg(`
inputs: [name]
nodes:
  - id: fix
    prompt: "fix {{ inputs.name }}"
`);
    const settled = await l.settle("fix");
    expect(settled).toMatchObject({ kind: "failed", judged: false });
    const detail = settled.kind === "failed" ? (settled.row?.detail ?? "") : "";
    expect(detail).toMatch(/^prompt: cannot resolve \{\{ inputs\.name \}\}/);
    expect(detail).toContain("{ { inputs.NAME } }");
    expect(l.scripted.claude).toHaveLength(0);
    expect(l.events()).toEqual(["node_failed fix"]);
  });

  test("a cwd outside the repository", async () => {
    const l = leg(`
nodes:
  - id: fix
    prompt: fix it
    cwd: ../..
`);
    const settled = await l.settle("fix");
    expect(settled.kind === "failed" && settled.row?.detail).toMatch(/^cwd \/.* is outside the repository /);
    expect(l.scripted.claude).toHaveLength(0);
  });

  test("handoff: session whose parent reported no session", async () => {
    const l = leg(HANDOFF);
    const settled = await l.settle("fix");
    expect(settled.kind === "failed" && settled.row?.detail).toBe(
      'handoff: session needs the session of its parent "plan", which is not known (the parent reported no session id)',
    );
    expect(l.scripted.claude).toHaveLength(0);
  });

  test("a run stopped before the first spawn is cancelled with no row", async () => {
    const l = leg(ONE);
    const stop = new AbortController();
    stop.abort();
    expect(await l.settle("fix", undefined, stop.signal)).toEqual({ kind: "cancelled", row: null });
    // Nothing ran, so nothing was recorded: no state write, no event, no call.
    expect(existsSync(join(l.dir.path, "state.json"))).toBe(false);
    expect(existsSync(join(l.dir.path, "events.jsonl"))).toBe(false);
    expect(l.scripted.claude).toHaveLength(0);
  });
});

describe("sessions, limits, cancels", () => {
  test("handoff: session resumes the parent's session and records only this call's share of its cost", async () => {
    const parent = "11111111-2222-4333-8444-555555555555";
    const l = leg(HANDOFF, {
      plays: [answered("fixed", 0, { total_cost_usd: 0.05 })],
      nodes: { plan: { status: "passed", session_id: parent, executions: 1, session_cost_usd: 0.03 } },
    });
    const settled = await l.settle("fix");
    expect(l.scripted.claude[0]?.session).toEqual({ kind: "resume", sessionId: parent });
    expect(settled.kind === "passed" && settled.row.costUsd).toBeCloseTo(0.02, 10);
    expect(l.state().nodes.fix).toMatchObject({ session_id: parent, session_cost_usd: 0.05 });
  });

  test("'hit your session limit' pauses: the row is PAUSED (not a FAIL), session_limit is recorded, no retry", async () => {
    const l = leg(
      `
nodes:
  - id: fix
    prompt: fix it
    retry: { max: 2, on: [run_error] }
`,
      {
        plays: [
          answered("", 0, {
            is_error: true,
            result: "You've hit your session limit · resets 3pm (UTC)",
          }),
        ],
      },
    );
    const settled = await l.settle("fix");
    expect(settled).toMatchObject({ kind: "paused", resetsAt: "3pm (UTC)" });
    expect(rowText(settled.kind === "paused" ? settled.row : null)).toMatch(
      /^PAUSED 3pm \(UTC\): the model's session limit was reached: the run pauses; resume with --retry-failed/,
    );
    expect(l.events()).toEqual(["node_started fix", "session_limit fix"]);
  });

  test("a cancelled call says by whose failure the run halted", async () => {
    const l = leg(ONE, { plays: [{ lines: [initEvent()], untilAborted: true }], haltedBy: "lint" });
    const stop = new AbortController();
    const pending = l.settle("fix", undefined, stop.signal);
    await vi.waitFor(() => expect(l.scripted.claude).toHaveLength(1));
    stop.abort();
    const settled = await pending;
    expect(settled.kind).toBe("cancelled");
    expect(rowText(settled.kind === "cancelled" ? settled.row : null)).toBe(
      'FAIL cancelled: cancelled: "lint" failed and on_fail is halt',
    );
  });

  test("on codex, the thread codex printed is the row's session and its CODEX_HOME is remembered for a resume", async () => {
    const l = leg(ONE, {
      runtime: "codex",
      plays: [
        {
          lines: [
            { type: "thread.started", thread_id: "$SESSION_ID" },
            agentMessageEvent("ok"),
            turnCompletedEvent(),
          ],
        },
      ],
    });
    const settled = await l.settle("fix");
    const thread = settled.kind === "passed" ? settled.row.sessionId : null;
    expect(thread).toMatch(UUID);
    expect(settled.kind === "passed" && settled.row.costUsd).toBeNull();
    expect(l.ctx.memory.codexHomes.get(thread ?? "")).toMatch(/home\/\.codex$/);
    expect(l.events()).toEqual(["node_started fix", "node_session fix", "node_passed fix"]);
    expect(l.state().nodes.fix?.thread_usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cacheReadInputTokens: 0,
    });
  });
});

describe("the verify command", () => {
  test("gets every substituted value as one shell word", async () => {
    const l = leg(
      `
inputs: [target]
nodes:
  - id: fix
    prompt: fix {{ inputs.target }}
    success_check:
      verify: { command: "test -n {{ inputs.target }}" }
`,
      { plays: [answered("ok")], inputs: { target: "a; touch pwned" } },
    );
    await l.settle("fix");
    expect(l.scripted.claude[0]?.prompt).toBe("fix a; touch pwned");
    expect(l.verifies[0]?.command).toBe("test -n 'a; touch pwned'");
  });

  test("runs for real through the VerifyQueue: a command exiting 3 in a git repository is FAIL verify_failed with its evidence tree", async () => {
    const repo = await makeHelloRepo();
    try {
      const l = leg(
        `
nodes:
  - id: fix
    prompt: fix it
    success_check:
      verify: { command: "echo building; exit 3" }
`,
        { plays: [answered("ok")], realVerify: true, repoDir: repo.dir },
      );
      const settled = await l.settle("fix");
      expect(settled).toMatchObject({ kind: "failed", judged: true });
      const row = settled.kind === "failed" ? settled.row : null;
      expect(row?.verify).toMatchObject({ exitCode: 3, outcome: "failed", expectExit: 0 });
      expect(row?.verify?.outputTail).toContain("building");
      expect(row?.verify?.evidenceTree).toMatch(/^[0-9a-f]{40}$/);
      expect(l.events()).toEqual(["node_started fix", "node_verifying fix", "node_failed fix"]);
    } finally {
      await repo.cleanup();
    }
  });
});

describe("a worktree node", () => {
  const LANE = `
nodes:
  - id: first
    prompt: first pass
    worktree: lane
  - id: again
    depends_on: [first]
    prompt: second pass
    worktree: lane
`;

  test("runs in its managed worktree, which is its repository; the row names the worktree and its branch", async () => {
    const repo = await makeTempRepo({ files: { "a.txt": "a\n" }, commit: true });
    scratches.push(repo.dir);
    const runDir = mkdtempSync(join(tmpdir(), "eg-settlement-wt-"));
    scratches.push(runDir);
    const start = await repo.git(["rev-parse", "HEAD"]);
    const worktrees = new RunWorktrees({
      repoDir: repo.dir,
      runDir,
      runId: "20260101-000000-abcdef",
      startCommit: start,
      baseEnv: hermeticGitEnv,
    });
    const l = leg(LANE, { plays: [answered("done")], repoDir: repo.dir, worktrees });
    const settled = await l.settle("first");
    expect(rowText(settled.row)).toBe("PASS (exit-only) exited 0");
    // The ledger's detail column says it (every renderer's `rowDetail`).
    expect(rowDetail(settled.row as LedgerRow)).toBe(
      "exited 0; ran in worktree lane: its changes are on branch evidence-gate/20260101-000000-abcdef/lane, not in the main working tree",
    );
    expect(settled.row).toMatchObject({
      worktree: { name: "lane", branch: "evidence-gate/20260101-000000-abcdef/lane" },
    });
    expect(l.scripted.claude[0]?.cwd).toBe(join(runDir, "worktrees", "lane"));
    await worktrees.close();
  });

  test("a worktree made anew while a node of it passed in an earlier leg fails the node: that leg's branch is gone", async () => {
    const repo = await makeTempRepo({ files: { "a.txt": "a\n" }, commit: true });
    scratches.push(repo.dir);
    const runDir = mkdtempSync(join(tmpdir(), "eg-settlement-wt-"));
    scratches.push(runDir);
    const worktrees = new RunWorktrees({
      repoDir: repo.dir,
      runDir,
      runId: "20260101-000000-abcdef",
      startCommit: await repo.git(["rev-parse", "HEAD"]),
      baseEnv: hermeticGitEnv,
    });
    const l = leg(LANE, {
      repoDir: repo.dir,
      worktrees,
      nodes: { first: { status: "passed", session_id: null, executions: 1 } },
    });
    const settled = await l.settle("again");
    expect(rowText(settled.row)).toBe(
      'FAIL run_error: worktree "lane": its branch evidence-gate/20260101-000000-abcdef/lane is gone (this checkout of the repository is not the one the earlier leg ran in), so the changes of "first", passed in that leg, are not in the new worktree; run the graph again, or resume where the branch exists',
    );
    expect(l.scripted.claude).toHaveLength(0);
    await worktrees.close();
  });
});
