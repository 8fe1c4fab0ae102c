/**
 * One leg of a run: the engine that executes a loaded graph — hand-written (`run`, `resume`) or planned
 * (`auto`) — with every node field of SPEC §3 and the execution rules of SPEC §4. It puts three parts
 * together:
 *
 * - the {@link Scheduler} (`scheduler.ts`): the ready set up to `concurrency`, `on_fail` halt / continue,
 *   gate and session-limit pauses, and acting on each node's decision;
 * - the settlement of one execution (`node-settlement.ts`): interpolate → the agent lifecycle
 *   (`agent-node.ts`) → record → `passed` / `retry` / `feedback` / `failed` / `cancelled` / `paused`;
 * - {@link LegPort} below: what acting on a decision writes — node records in `state.json`, the gate
 *   record, feedback payloads, skipped and retried events — and the replies placeholders read.
 *
 * Every terminal execution is recorded in `state.json` and `events.jsonl` before dependents are released;
 * the state file is rewritten (atomically) within the store's coalescing window (`run-state-store.ts`) and
 * at once when the leg ends, so a crash leaves a state file naming every node that finished before that
 * window, and a leg that ended (paused, finished, cancelled, failed) leaves it whole.
 */

import { existsSync, readFileSync } from "node:fs";
import { type LedgerRow, NOTHING_SPENT, type SkippedRow } from "../core/ledger-row.js";
import type { Redactor } from "../core/redact.js";
import { stopWords } from "../core/run-timeout.js";
import { unreachable } from "../core/unreachable.js";
import { type IgnoredFiles, ignoredFilesToData } from "../evidence/ignored-files.js";
import type { VerifyQueue } from "../evidence/verify.js";
import type { Graph, GraphNode } from "../graph/graph.js";
import type { RunEnd } from "../ledger/conclusion.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ModelCalls } from "../runtime/model-calls.js";
import type { GraphRunHooks } from "./leg-hooks.js";
import { LegJournal, orderRows } from "./leg-journal.js";
import { LegMemory } from "./leg-memory.js";
import type {
  ExecutionInput,
  FailedSettlement,
  FeedbackSettlement,
  FinalSettlement,
  RetrySettlement,
  Settlement,
} from "./node-decision.js";
import {
  type AgentSettings,
  failRowWithoutCall,
  type SettlementContext,
  settleExecution,
} from "./node-settlement.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";
import { runEndOfAbort } from "./run-end.js";
import type { RunStateStore } from "./run-state-store.js";
import { RunWorktrees, type RunWorktreesOptions } from "./run-worktrees.js";
import { type NodeStart, Scheduler, type SchedulerPort, type ScheduleState } from "./scheduler.js";

/**
 * Everything one leg needs. Times in ms. The model-CLI settings (`runtime`, executables, `codexConfig`,
 * `model`, `modelEnv`, `echo`) are the run-wide ones every node shares (`NodeContext`), and so are the
 * model calls the run was handed (`modelCalls`, the node's `calls`; default the real CLIs).
 */
export interface GraphRunOptions extends Omit<AgentSettings, "calls"> {
  readonly modelCalls?: ModelCalls;
  readonly graph: Graph;
  readonly store: RunStateStore;
  readonly dir: RedactingRunDirectory;
  readonly redactor: Redactor;
  /** The repository root (git work tree) and the directory nodes run in by default (inside it). */
  readonly repoDir: string;
  readonly workDir: string;
  readonly inputs: Readonly<Record<string, string>>;
  /** Every agent node's tool policy (fixed at the first leg; SPEC §8). */
  readonly policies: Readonly<Record<string, ToolPolicy>>;
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  readonly verifyQueue: VerifyQueue;
  /** Aborts the leg (workflow cancelled, CLI interrupted): running nodes are cancelled. */
  readonly signal?: AbortSignal;
  readonly hooks?: GraphRunHooks;
  /**
   * What the managed worktrees of `worktree:` nodes are made from (`run-worktrees.ts`): the run id (their
   * branch prefix), the starting commit and the environment git starts from. Required when a node of the
   * graph declares `worktree` (an internal error otherwise); unused when none does.
   */
  readonly worktrees?: Pick<RunWorktreesOptions, "runId" | "startCommit" | "baseEnv" | "knownSecrets">;
}

/** How the leg ended and the ledger rows of the whole run so far (every leg), in ledger order. */
export interface GraphRunResult {
  readonly end: Extract<RunEnd, { kind: "completed" | "paused" | "cancelled" | "timed-out" }>;
  readonly rows: readonly LedgerRow[];
}

/** The run-directory file holding the git-ignored files baseline at the end of the latest leg. */
export const IGNORED_BASELINE_FILE = "ignored-baseline.json";

/**
 * Runs one leg of `graph`. Nodes whose record in the store is `passed` are settled (their outputs are read
 * back from the run directory); a `failed` or `cancelled` record (a rejected gate, an earlier failure)
 * prunes its descendants; every other node (no record, `skipped`, `waiting`, `limited`, `running` after a
 * crash) runs when its dependencies pass.
 *
 * @returns how the leg ended (`completed`, `paused` at a gate or a session limit, `cancelled`) and the
 *   rows. Never throws for a node's own failures; rejects only on internal errors (a failed state write).
 */
export async function executeGraph(o: GraphRunOptions): Promise<GraphRunResult> {
  const { graph, store, dir } = o;
  const memory = new LegMemory();
  const start = legStart(o, memory);
  // The ignored-files baseline as the verifies leave it: a resumed leg compares against this (ADR 0003).
  // Written when the leg starts and again after each recorded row that moved it, not only when the leg
  // ends, so a run that is killed (SIGKILL, a lost runner) leaves the baseline its `--retry-failed` needs.
  let savedBaseline: IgnoredFiles | null = null;
  const saveBaseline = (): void => {
    const baseline = o.verifyQueue.currentIgnoredBaseline;
    if (baseline === null || baseline === savedBaseline) return;
    dir.writeJson(IGNORED_BASELINE_FILE, ignoredFilesToData(baseline));
    savedBaseline = baseline;
  };
  saveBaseline();
  const journal = new LegJournal({
    graph,
    store,
    dir,
    redactor: o.redactor,
    afterRecord: saveBaseline,
    ...(o.hooks !== undefined ? { hooks: o.hooks } : {}),
  });
  const worktrees = worktreesOf(o);
  const settlement: SettlementContext = {
    graph,
    store,
    dir,
    journal,
    redactor: o.redactor,
    dirs: { repoDir: o.repoDir, workDir: o.workDir },
    inputs: o.inputs,
    policies: o.policies,
    agent: agentSettingsOf(o),
    verifier: o.verifyQueue,
    memory,
    haltedBy: () => scheduler.haltedBy,
    stopWords: () => stopWords(o.signal),
    ...(worktrees !== null ? { worktrees } : {}),
  };
  const scheduler = new Scheduler({
    graph,
    concurrency: o.concurrency,
    onFail: o.onFail,
    ...(o.signal !== undefined ? { signal: o.signal } : {}),
    start,
    rejectedGate: (id) => store.state.gates[id]?.status === "rejected",
    port: new LegPort(settlement),
  });
  let schedule: Awaited<ReturnType<Scheduler["run"]>>;
  try {
    schedule = await scheduler.run();
  } finally {
    // An internal error too leaves every recorded node on disk; on the normal path the save below reports a
    // failed write, and on an error's path that error is the one to report.
    try {
      store.flush();
    } catch {}
    // Passed, failed, cancelled or an internal error: the run directory keeps no checkout (branches stay).
    if (worktrees !== null)
      for (const closed of await worktrees.close()) dir.event({ type: "worktree_closed", ...closed });
  }
  store.state.paused = schedule.pause;
  store.save();
  saveBaseline();
  const end: GraphRunResult["end"] =
    o.signal?.aborted === true
      ? runEndOfAbort(o.signal)
      : schedule.pause !== null
        ? { kind: "paused", reason: schedule.pause.reason, nodeId: schedule.pause.node }
        : { kind: "completed" };
  return {
    end,
    rows: orderRows(graph, store.state.rows, skippedRows(graph, schedule.states, schedule.reasons)),
  };
}

/** The leg's managed worktrees, or `null` when no node declares one. */
function worktreesOf(o: GraphRunOptions): RunWorktrees | null {
  if (!o.graph.nodes.some((n) => n.worktree !== null && n.type !== "gate")) return null;
  if (o.worktrees === undefined)
    throw new Error("Internal error: a graph with worktree nodes was run without the worktrees' run facts");
  return new RunWorktrees({ ...o.worktrees, repoDir: o.repoDir, runDir: o.dir.path });
}

/**
 * Where each node starts this leg, from its record: `passed` (its saved output read back into `memory`
 * for placeholders), `failed` / `cancelled` (settled in an earlier leg — a rejected gate, a failure a gate
 * decision does not undo — so its descendants are pruned; `resume --retry-failed` clears these records
 * before the leg), else `pending`; with the feedback rounds its arc already fired.
 */
function legStart(o: GraphRunOptions, memory: LegMemory): Map<string, NodeStart> {
  const start = new Map<string, NodeStart>();
  for (const node of o.graph.nodes) {
    const record = o.store.node(node.id);
    const round = record?.feedback_rounds ?? 0;
    const output = o.dir.nodeOutputPath(node.id);
    if (record?.status === "passed") {
      start.set(node.id, { state: "passed", round });
      if (node.type !== "gate" && existsSync(output))
        memory.replies.set(node.id, readFileSync(output, "utf8"));
    } else if (record?.status === "failed" || record?.status === "cancelled") {
      start.set(node.id, { state: record.status, round });
    } else {
      start.set(node.id, { state: "pending", round });
    }
  }
  return start;
}

/** The model-CLI settings of the leg's options, the absent ones left out (exact optional types). */
function agentSettingsOf(o: GraphRunOptions): AgentSettings {
  return {
    ...(o.runtime !== undefined ? { runtime: o.runtime } : {}),
    claudeExecutable: o.claudeExecutable,
    ...(o.codexExecutable !== undefined ? { codexExecutable: o.codexExecutable } : {}),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    ...(o.model !== undefined ? { model: o.model } : {}),
    modelEnv: o.modelEnv,
    ...(o.echo ? { echo: o.echo } : {}),
    ...(o.modelCalls !== undefined ? { calls: o.modelCalls } : {}),
  };
}

/**
 * What acting on the scheduler's decisions writes: each settled node's record and a `state.json` save, the
 * replies of passed nodes (for `{{ artifacts.ID }}`), feedback payloads, and the events of skips, gates
 * and retries (through the {@link LegJournal}).
 */
class LegPort implements SchedulerPort {
  constructor(private readonly ctx: SettlementContext) {}

  execute(node: GraphNode, input: ExecutionInput, signal: AbortSignal): Promise<Settlement> {
    return settleExecution(this.ctx, node, input, signal);
  }

  async internalError(node: GraphNode, error: unknown): Promise<FailedSettlement> {
    const detail = `internal error: ${error instanceof Error ? error.message : String(error)}`;
    const row = this.ctx.redactor.deep(failRowWithoutCall(this.ctx.graph, node, "run_error", detail));
    await this.ctx.journal.record(row);
    return { kind: "failed", row, judged: false };
  }

  retrying(node: GraphNode, retry: RetrySettlement): void {
    this.ctx.journal.retried(node.id, retry.info, retry.detail);
  }

  retryNotStarted(node: GraphNode, retry: RetrySettlement, haltedBy: string | null): FailedSettlement {
    // The retry never started, so this attempt's FAIL is the node's last word — not a row "a later
    // execution replaced" when none exists.
    const { superseded: _replaced, ...failed } = retry.row;
    const why = haltedBy !== null ? `the run halted after "${haltedBy}" failed` : "the run was cancelled";
    const what = retry.info.kind === "completion" ? `completion attempt ${retry.info.attempt}` : "retry";
    const standing = { ...failed, detail: `${failed.detail}; ${what} not started: ${why}` };
    this.ctx.store.rewriteLatest(node.id, () => standing);
    this.ctx.store.saveSoon();
    this.ctx.journal.failed(node.id, standing.cause, standing.detail);
    return { kind: "failed", row: standing, judged: retry.info.kind === "retry" && retry.info.judged };
  }

  feedbackFired(node: GraphNode, feedback: FeedbackSettlement): void {
    const { store, memory, dir } = this.ctx;
    const { arc, round, row } = feedback;
    memory.feedbackPayloads.set(node.id, feedback.payload);
    dir.writeText(`feedback-${node.id.replaceAll("/", "~")}.out`, feedback.payload);
    store.supersedeLatest(node.id);
    store.patchNode(node.id, { status: "failed", feedback_rounds: round });
    this.ctx.journal.retried(
      node.id,
      { kind: "feedback", cause: row.cause, round, max: arc.max, rerun: arc.rerun },
      feedback.detail,
    );
    for (const member of arc.body) memory.replies.delete(member);
    store.saveSoon();
  }

  settled(node: GraphNode, settlement: FinalSettlement): void {
    const { store, memory } = this.ctx;
    const id = node.id;
    switch (settlement.kind) {
      case "passed":
        memory.replies.set(id, settlement.reply);
        store.patchNode(id, { status: "passed", judged: false });
        break;
      case "paused":
        store.patchNode(id, { status: "limited" });
        break;
      case "cancelled":
        store.patchNode(id, { status: "cancelled" });
        break;
      case "failed": {
        const arc = settlement.exhausted;
        // Exhausted: the last row says so (research §2.5).
        if (arc !== undefined)
          store.rewriteLatest(id, (r) =>
            r.verdict === "FAIL"
              ? {
                  ...r,
                  detail: `feedback exhausted after ${arc.max} ${arc.max === 1 ? "round" : "rounds"} of ${arc.rerun} → ${id}: ${r.cause}: ${r.detail}`,
                }
              : r,
          );
        store.patchNode(id, { status: "failed", judged: settlement.judged });
        break;
      }
      default:
        unreachable(settlement);
    }
    store.saveSoon();
  }

  skipped(node: GraphNode, reason: string): void {
    this.ctx.store.patchNode(node.id, { status: "skipped" });
    this.ctx.journal.skipped(node.id, reason);
  }

  gateReached(node: GraphNode): void {
    const { store } = this.ctx;
    store.patchNode(node.id, { status: "waiting" });
    store.setGate(node.id, { status: "waiting" });
    store.saveSoon();
    this.ctx.journal.gatePaused(node.id);
  }

  neverRan(node: GraphNode): void {
    this.ctx.store.patchNode(node.id, { status: "skipped" });
  }
}

/**
 * A SKIPPED row for every node that did not run this leg (skipped, pending, waiting). A node stopped at the
 * model's session limit (`limited`) has its PAUSED row, which says how to resume it: it is shown once.
 */
function skippedRows(
  graph: Graph,
  states: ReadonlyMap<string, ScheduleState>,
  reasons: ReadonlyMap<string, string>,
): SkippedRow[] {
  const rows: SkippedRow[] = [];
  for (const node of graph.nodes) {
    const s = states.get(node.id);
    if (s !== "skipped" && s !== "pending" && s !== "waiting") continue;
    rows.push({
      nodeId: node.id,
      verdict: "SKIPPED",
      reason: reasons.get(node.id) ?? "never ran",
      ...NOTHING_SPENT,
      sink: graph.sinks.includes(node.id),
      detail: "",
    });
  }
  return rows;
}
