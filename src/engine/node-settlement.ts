/**
 * One execution of an agent node, settled (SPEC §4 "Node lifecycle"): interpolate (the first attempt) →
 * spawn the CLI → parse its output → cheap predicates → verify (`agent-node.ts`) → record the row in
 * `state.json` and `events.jsonl` → the decision the scheduler acts on ({@link Settlement}):
 *
 * - `passed`: release the node's dependents;
 * - `retry`: the cause is in `retry.on` and attempts remain — run the next attempt (a judged failure's
 *   reply is quoted once, fenced, in a fresh session; research/oh-my-graph.md §6.4);
 * - `feedback`: a judgment failure with a feedback arc and rounds left — re-run the arc's body with the
 *   payload as `{{ feedback.ID }}` (research §2.5);
 * - `failed`: the node's FAIL stands (`on_fail` decides the rest);
 * - `cancelled`: the run was halted or cancelled while it ran;
 * - `paused`: "hit your session limit" — the run pauses, it is not a failure.
 *
 * The settlement changes nothing the scheduler owns (states, rounds, the ready set): it records what
 * happened and returns what should happen next.
 *
 * One module: which session an execution runs in, where a `worktree:` node runs, then the settlement.
 */

import { existsSync, readFileSync } from "node:fs";
import { type FailCause, type FailRow, type LedgerRow, NOTHING_SPENT } from "../core/ledger-row.js";
import type { Redactor } from "../core/redact.js";
import type { VerifyQueue } from "../evidence/verify.js";
import { attemptsInAll, type Graph, type GraphNode } from "../graph/graph.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import {
  type AgentNodeResult,
  type AgentNodeSpec,
  type NodeContext,
  type NodeDirectories,
  nodeFields,
  runAgentNode,
} from "./agent-node.js";
import { continuationOf, judgeAttempt } from "./completion-judge.js";
import { type CompletionProgress, progressRecord } from "./completion-progress.js";
import { type CompletionStart, completionSpec, completionStart, type GatedNode } from "./completion-start.js";
import { withExecutionWords } from "./execution-words.js";
import type { LegJournal } from "./leg-journal.js";
import type { LegMemory } from "./leg-memory.js";
import type { ExecutionInput, RetrySettlement, Settlement } from "./node-decision.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";
import { buildFeedbackPayload, buildJudgedRetryPrompt } from "./retry-prompt.js";
import type { RunStateStore } from "./run-state-store.js";
import type { AcquiredWorktree, RunWorktrees } from "./run-worktrees.js";

/* ──
 * Which session one execution of a node runs in (SPEC §4; research/oh-my-graph.md §2.6): `handoff:
 * session` resumes its parent's session on the first attempt; a retry, or a re-run quoting a judged reply,
 * starts fresh (the quote is the whole context it needs, research §6.4). Every other node starts fresh.
 */

/** The session of one execution, or why it cannot run (its FAIL row's `run_error` detail). */
export type SessionChoice =
  | { readonly ok: true; readonly session: NonNullable<AgentNodeSpec["session"]> }
  | { readonly ok: false; readonly detail: string };

/** Where a resumed session is looked up: the parent's record, and (codex) the home its thread lives in. */
export interface SessionSources {
  readonly graph: Graph;
  readonly store: RunStateStore;
  readonly memory: LegMemory;
  /** The run's runtime (default `claude`). */
  readonly runtime: Runtime;
}

/**
 * The session of `node`'s `attempt` (1-based). A resumed session is the first non-gate parent's latest:
 * claude with that session's cumulative cost so far (the row carries this call's share), codex with the
 * thread's cumulative usage and, when this leg started it, its `CODEX_HOME`.
 *
 * @returns `ok: false` when the parent reported no session id (nothing to resume).
 */
export function sessionFor(
  node: GraphNode,
  attempt: number,
  quoting: boolean,
  sources: SessionSources,
): SessionChoice {
  if (node.handoff !== "session" || attempt > 1 || quoting) return { ok: true, session: { kind: "fresh" } };
  const parent = node.depends_on.find((d) => sources.graph.nodes_by_id.get(d)?.type !== "gate");
  const record = parent !== undefined ? sources.store.node(parent) : undefined;
  const sessionId = record?.session_id;
  if (parent === undefined || sessionId === null || sessionId === undefined) {
    return {
      ok: false,
      detail: `handoff: session needs the session of its parent${parent !== undefined ? ` "${parent}"` : ""}, which is not known (the parent reported no session id)`,
    };
  }
  const codexHome = sources.memory.codexHomes.get(sessionId);
  return {
    ok: true,
    session: runtimeFor(sources.runtime).resumedSession({
      sessionId,
      sessionCostUsd: record?.session_cost_usd,
      threadUsage: record?.thread_usage,
      ...(codexHome !== undefined ? { codexHome } : {}),
    }),
  };
}

/* ──
 * Where a `worktree:` node runs, and what its row says about it (docs/graph-format.md "agent and
 * worktree"): the settlement asks {@link directoriesOf} before interpolating the node's directories, and
 * adds {@link withWorktree}'s field to every row of the node.
 */

/** What these read of the settlement's context. */
export type NodeWorktreeContext = Pick<SettlementContext, "graph" | "store" | "dirs" | "worktrees">;

/**
 * Where `node` runs: the run's directories, or — for a `worktree` node — its managed checkout, which is
 * then both its repository (what "outside the repository" means for it) and its directory. Made the first
 * time a node of the leg names it. A worktree added anew from the starting commit while another node of the
 * same worktree passed in an earlier leg means that leg's branch is gone (a fresh checkout of the
 * repository): the node would not see those changes, so it fails saying so instead.
 */
export async function directoriesOf(
  ctx: NodeWorktreeContext,
  node: GraphNode,
): Promise<
  { readonly ok: true; readonly dirs: NodeDirectories } | { readonly ok: false; readonly detail: string }
> {
  if (node.worktree === null) return { ok: true, dirs: ctx.dirs };
  if (ctx.worktrees === undefined)
    throw new Error(`Internal error: node "${node.id}" has a worktree but the leg has none`);
  let tree: AcquiredWorktree;
  try {
    tree = await ctx.worktrees.acquire(node.worktree);
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
  if (tree.origin === "created") {
    const passed = ctx.graph.nodes
      .filter(
        (n) => n.worktree === node.worktree && n.id !== node.id && ctx.store.node(n.id)?.status === "passed",
      )
      .map((n) => `"${n.id}"`);
    if (passed.length > 0)
      return {
        ok: false,
        detail: `worktree ${JSON.stringify(node.worktree)}: its branch ${tree.branch} is gone (this checkout of the repository is not the one the earlier leg ran in), so the changes of ${passed.join(", ")}, passed in that leg, are not in the new worktree; run the graph again, or resume where the branch exists`,
      };
  }
  return { ok: true, dirs: { repoDir: tree.path, workDir: tree.path } };
}

/** The row with the worktree its node ran in, when it has one (`LedgerRow.worktree`). */
export function withWorktree(ctx: NodeWorktreeContext, node: GraphNode, row: LedgerRow): LedgerRow {
  if (node.worktree === null || ctx.worktrees === undefined) return row;
  return { ...row, worktree: { name: node.worktree, branch: ctx.worktrees.branchOf(node.worktree) } };
}

/** The model-CLI settings every execution shares (`NodeContext` without the per-execution callbacks). */
export type AgentSettings = Pick<
  NodeContext,
  "runtime" | "claudeExecutable" | "codexExecutable" | "codexConfig" | "model" | "modelEnv" | "echo" | "calls"
>;

/** Everything an execution reads and writes. */
export interface SettlementContext {
  readonly graph: Graph;
  readonly store: RunStateStore;
  readonly dir: RedactingRunDirectory;
  readonly journal: LegJournal;
  readonly redactor: Redactor;
  readonly dirs: NodeDirectories;
  readonly inputs: Readonly<Record<string, string>>;
  /** Every agent node's tool policy (fixed at the first leg; SPEC §8). */
  readonly policies: Readonly<Record<string, ToolPolicy>>;
  readonly agent: AgentSettings;
  /** The run-wide verify queue (or a scripted one): verifies, and which node work overlaps them. */
  readonly verifier: Pick<VerifyQueue, "run" | "nodeWorking">;
  readonly memory: LegMemory;
  /** The node whose failure halted the run (`on_fail: halt`), as of now; `null` while none has. */
  readonly haltedBy: () => string | null;
  /** Why an aborted run stopped, for a cancelled row (`stopWords`: its time bound, or a cancel). */
  readonly stopWords: () => string;
  /** The leg's managed worktrees (`run-worktrees.ts`); absent when no node declares `worktree`. */
  readonly worktrees?: Pick<RunWorktrees, "acquire" | "branchOf">;
}

/** Causes a feedback arc answers: a judgment about the work, never an infrastructure fault (research §2.5). */
const JUDGMENT_CAUSES: ReadonlySet<FailCause> = new Set(["verify_failed", "result_mismatch", "nonzero_exit"]);

/**
 * Runs and records one execution of `node` (an agent node) and decides what comes next.
 *
 * @returns the decision; never rejects for the node's own failures (an interpolation error, a missing
 *   parent session, a CLI failure are `failed` rows). Rejects only when a state or event write fails.
 */
export async function settleExecution(
  ctx: SettlementContext,
  node: GraphNode,
  input: ExecutionInput,
  signal: AbortSignal,
): Promise<Settlement> {
  // A completion gate (SPEC §7) starts at attempt 1, or continues its session (completion-start.ts).
  const gated =
    node.completion !== null ? completionStart(node as GatedNode, input, ctx.store.node(node.id)) : null;
  if (gated?.kind === "spent") return failBeforeSpawn(ctx, node, gated.detail, gated);
  let carried = input.carried;
  if (carried === undefined) {
    const values = ctx.memory.placeholderValues(ctx.graph, ctx.inputs, ctx.dir);
    const dirs = await directoriesOf(ctx, node);
    if (!dirs.ok) return failBeforeSpawn(ctx, node, dirs.detail);
    const prepared = nodeFields(node, values, dirs.dirs);
    if (!prepared.ok) return failBeforeSpawn(ctx, node, prepared.detail);
    carried = {
      fields: prepared.fields,
      quoted: gated?.kind === "continue" ? null : earlierJudgedReply(ctx, node.id),
    };
    if (signal.aborted) return { kind: "cancelled", row: null };
  }
  const runtime = ctx.agent.runtime ?? "claude";
  // A continuing attempt resumes the node's own session (completionSpec), never its parent's.
  const session =
    gated?.kind === "continue"
      ? ({ ok: true, session: { kind: "fresh" } } as const)
      : sessionFor(node, input.attempt, carried.quoted !== null, { ...ctx, runtime });
  if (!session.ok) return failBeforeSpawn(ctx, node, session.detail);
  const base = agentSpec(ctx, node, input, carried, session.session);
  const spec =
    gated !== null
      ? completionSpec(base, node as GatedNode, gated, {
          runtime,
          codexHomeOf: (id) => ctx.memory.codexHomes.get(id),
        })
      : base;
  const completionAttempt = gated === null ? undefined : gated.kind === "first" ? 1 : gated.progress.attempt;
  let produced = await spawnAgent(ctx, spec, { ...input, completionAttempt }, signal);
  ctx.dir.redactSavedOutputs(node.id);
  const reply = ctx.redactor.text(produced.reply);
  let row = withWorktree(ctx, node, withExecutionWords(ctx, node, input, ctx.redactor.deep(produced.row)));
  const judged =
    gated !== null
      ? await judgeAttempt(
          {
            node: node as GatedNode,
            start: gated,
            cwd: carried.fields.cwd,
            ...(carried.fields.completionCommand !== undefined
              ? { command: carried.fields.completionCommand }
              : {}),
            runtime,
            verifier: ctx.verifier,
            onVerifying: (id, command) => ctx.journal.verifying(id, command),
            dir: ctx.dir,
            redactor: ctx.redactor,
          },
          { ...produced, row },
          signal,
        )
      : null;
  if (judged !== null) {
    produced = judged.produced;
    row = judged.produced.row;
  }
  // Retries belong to the gate's first attempt, before its check ran: later attempts continue its session.
  const retrying =
    row.verdict === "FAIL" &&
    !signal.aborted &&
    produced.sessionLimit === null &&
    row.cause !== "cancelled" &&
    input.attempt < attemptsInAll(node) &&
    node.retry.on.includes(row.cause as never) &&
    (gated === null || (gated.kind === "first" && row.completion?.check === "not_run"));
  const recorded: LedgerRow = retrying && row.verdict === "FAIL" ? { ...row, superseded: true } : row;
  await recordExecution(
    ctx,
    node.id,
    recorded,
    produced,
    judged?.progress === undefined ? undefined : { progress: judged.progress, round: input.round },
  );
  if (judged?.next != null && recorded.verdict === "FAIL")
    return continuationOf(node as GatedNode, { ...input, carried }, recorded, judged.next);
  if (produced.sessionLimit !== null) {
    ctx.journal.sessionLimit(node.id, produced.sessionLimit.resetsAt);
    return { kind: "paused", row: recorded, resetsAt: produced.sessionLimit.resetsAt };
  }
  if (recorded.verdict === "PASS") return { kind: "passed", row: recorded, reply };
  if (recorded.verdict !== "FAIL" || recorded.cause === "cancelled")
    return { kind: "cancelled", row: recorded };
  // A judged failure's reply is quoted once in the next attempt; any other failure quotes nothing.
  if (retrying) return retryOf(node, input, recorded, { ...carried, quoted: produced.judged ? reply : null });
  return afterFailure(ctx, node, input.round, { row: recorded, reply, judged: produced.judged }, signal);
}

/**
 * A `--retry-failed` leg quotes the reply of a judged failure from the earlier leg (research §6.4): the
 * saved `failed/ID.out`, when the node's record says its latest failure was judged; else `null`.
 */
function earlierJudgedReply(ctx: SettlementContext, nodeId: string): string | null {
  const path = ctx.dir.failedOutputPath(nodeId);
  return ctx.store.node(nodeId)?.judged === true ? readTextIfAny(path) : null;
}

function readTextIfAny(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/**
 * A node that fails before (or without) spawning anything: a `run_error` row, no retry (research §2.4);
 * or a gated node with no attempt left (`spent`: an earlier leg used them, or the budget or time).
 */
async function failBeforeSpawn(
  ctx: SettlementContext,
  node: GraphNode,
  detail: string,
  spent?: Extract<CompletionStart, { kind: "spent" }>,
): Promise<Settlement> {
  const max = node.completion?.max_attempts ?? 1;
  const row = ctx.redactor.deep({
    ...failRowWithoutCall(ctx.graph, node, spent?.cause ?? "run_error", detail),
    ...(spent !== undefined
      ? {
          stoppedBy: spent.stoppedBy,
          completion: { attempt: max, maxAttempts: max, check: "not_run" as const },
        }
      : {}),
  });
  await ctx.journal.record(row);
  return { kind: "failed", row, judged: false };
}

/** A FAIL row no model call stands behind (nothing spent). */
export function failRowWithoutCall(graph: Graph, node: GraphNode, cause: FailCause, detail: string): FailRow {
  return {
    nodeId: node.id,
    verdict: "FAIL",
    cause,
    detail,
    ...NOTHING_SPENT,
    sink: graph.sinks.includes(node.id),
  };
}

/** The lifecycle's spec of this execution: the interpolated fields, the session, the quoted reply if any. */
function agentSpec(
  ctx: SettlementContext,
  node: GraphNode,
  input: ExecutionInput,
  carried: NonNullable<ExecutionInput["carried"]>,
  session: NonNullable<AgentNodeSpec["session"]>,
): AgentNodeSpec {
  const { fields, quoted } = carried;
  const maxAttempts = attemptsInAll(node);
  return {
    id: node.id,
    prompt:
      quoted !== null
        ? buildJudgedRetryPrompt({
            basePrompt: fields.prompt,
            previousReply: quoted,
            attempt: Math.max(2, input.attempt),
            maxAttempts: Math.max(2, maxAttempts, input.attempt),
          })
        : fields.prompt,
    permissionMode: node.permission_mode,
    policy: ctx.policies[node.id] ?? { allowedTools: [], strictMcpConfig: false, disallowedTools: [] },
    timeoutMs: node.timeout_ms,
    cwd: fields.cwd,
    // A worktree node's repository is its checkout, which is also its directory (`cwd` is exclusive with it).
    repoRoot: node.worktree !== null ? fields.cwd : ctx.dirs.repoDir,
    sink: ctx.graph.sinks.includes(node.id),
    exitZero: node.success_check.exit_zero,
    resultMatches: node.success_check.result_matches,
    verify: fields.verify,
    session,
    budgetUsd: node.budget_usd,
  };
}

/**
 * Runs the agent lifecycle, reporting its start, codex session and verify to the journal. The node's model
 * work counts as running (`nodeWorking`) until its verify starts or it ends, whichever is first.
 */
async function spawnAgent(
  ctx: SettlementContext,
  spec: AgentNodeSpec,
  input: ExecutionInput & { readonly completionAttempt: number | undefined },
  signal: AbortSignal,
): Promise<AgentNodeResult> {
  const workDone = ctx.verifier.nodeWorking();
  try {
    return await runAgentNode(
      spec,
      {
        ...ctx.agent,
        runDir: ctx.dir,
        verifyQueue: ctx.verifier,
        onStarted: (nodeId, sessionId) =>
          ctx.journal.started(nodeId, sessionId, input.attempt, input.round, input.completionAttempt),
        onSession: (nodeId, sessionId) => ctx.journal.session(nodeId, sessionId),
        onVerifying: (nodeId, command) => {
          workDone();
          ctx.journal.verifying(nodeId, command);
        },
      },
      signal,
    );
  } finally {
    workDone();
  }
}

/**
 * Records the execution: the node's record (a PASS settled in the same state write as its row, so a crash
 * between the two cannot leave a passed row on a node the next leg would run again; the session's
 * cumulative cost or the thread's usage, so a child resuming it records only its own share), then the row.
 */
async function recordExecution(
  ctx: SettlementContext,
  nodeId: string,
  row: LedgerRow,
  produced: AgentNodeResult,
  gate?: { readonly progress: CompletionProgress | null; readonly round: number },
): Promise<void> {
  const executions = (ctx.store.node(nodeId)?.executions ?? 0) + 1;
  const thread = produced.codexThread;
  if (thread?.home != null && row.sessionId !== null) ctx.memory.codexHomes.set(row.sessionId, thread.home);
  ctx.store.patchNode(nodeId, {
    status: row.verdict === "PASS" ? "passed" : "running",
    session_id: row.sessionId,
    executions,
    ...runtimeFor(ctx.agent.runtime).threadRecord(thread),
    ...(produced.sessionCostUsd !== undefined ? { session_cost_usd: produced.sessionCostUsd } : {}),
    // The gate's progress, saved with the row, before the next attempt spawns (a resumed leg continues it).
    ...(gate !== undefined
      ? { completion: gate.progress === null ? undefined : progressRecord(gate.progress, gate.round) }
      : {}),
  });
  await ctx.journal.record(row);
}

/** The retry of a failed attempt: the next attempt quotes `carried.quoted` (set only for a judged failure). */
function retryOf(
  node: GraphNode,
  input: ExecutionInput,
  row: FailRow,
  carried: NonNullable<ExecutionInput["carried"]>,
): RetrySettlement {
  const judged = carried.quoted !== null;
  return {
    kind: "retry",
    row,
    info: {
      kind: "retry",
      cause: row.cause,
      attempt: input.attempt + 1,
      maxAttempts: attemptsInAll(node),
      judged,
    },
    detail: `retry ${input.attempt}/${node.retry.max} after ${row.cause}${judged ? " (previous reply quoted)" : ""}`,
    next: { attempt: input.attempt + 1, round: input.round, carried },
  };
}

/**
 * A FAIL with no retry left: the node's feedback arc fires when the failure is a judgment (a verify that
 * timed out or could not start is an infrastructure fault, not one), rounds remain and the run is neither
 * halted nor cancelled; else the FAIL stands (saying the arc is exhausted when it ran out).
 */
function afterFailure(
  ctx: SettlementContext,
  node: GraphNode,
  round: number,
  failed: { readonly row: FailRow; readonly reply: string; readonly judged: boolean },
  signal: AbortSignal,
): Settlement {
  const { row, reply, judged } = failed;
  const arc = node.feedback;
  const judgment =
    JUDGMENT_CAUSES.has(row.cause) && (row.cause !== "verify_failed" || row.verify?.outcome === "failed");
  if (arc === null || !judgment || signal.aborted || ctx.haltedBy() !== null)
    return { kind: "failed", row, judged };
  if (round >= arc.max) return { kind: "failed", row, judged, exhausted: arc };
  const next = round + 1;
  const payload = buildFeedbackPayload({
    declarer: node.id,
    round: next,
    max: arc.max,
    cause: row.cause,
    ...(row.verify
      ? {
          verify: {
            command: row.verify.command,
            exitCode: row.verify.exitCode,
            expectExit: row.verify.expectExit,
            outputTail: row.verify.outputTail,
          },
        }
      : {}),
    reply,
    detail: row.detail,
  });
  const detail = `feedback round ${next}/${arc.max}: re-running ${arc.rerun} → ${node.id} (${row.cause})`;
  return { kind: "feedback", row, judged, arc, round: next, payload, detail };
}
