/**
 * One leg of a run: the engine that executes a loaded graph — hand-written (`run`, `resume`) or planned
 * (`auto`) — with every node field of SPEC §3 and the execution rules of SPEC §4:
 *
 * - ready-set scheduling up to `concurrency`; `on_fail: halt` cancels running siblings (their rows say by
 *   whose failure) and launches nothing new; `continue` prunes only the failed node's descendants;
 * - per node: interpolate (prompt, cwd, verify command and cwd) → the agent lifecycle (`agent-node.ts`) →
 *   retries for the causes in `retry.on` (a judged retry quotes the previous reply once, fenced, in a fresh
 *   session; research/oh-my-graph.md §6.4) → a feedback arc when one remains (re-runs its body with
 *   `{{ feedback.ID }}`; research §2.5) → FAIL;
 * - `handoff: session` resumes the parent's session (`--resume`); a retry starts fresh;
 * - `type: gate` spawns nothing: without a recorded decision the leg pauses there (drains running
 *   siblings, launches nothing new); an approval was recorded as a `PASS (approved)` row before the leg;
 * - a "hit your session limit" reply pauses the leg (not a failure); `--retry-failed` re-runs the node.
 *
 * Every terminal execution is recorded in `state.json` (atomic write) and `events.jsonl` before dependents
 * are released, so a crash leaves a state file naming every node that finished.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  type FailCause,
  type FailRow,
  type LedgerRow,
  NOTHING_SPENT,
  type SkippedRow,
} from "../core/ledger-row.js";
import type { Redactor } from "../core/redact.js";
import { ignoredFilesToData } from "../evidence/ignored-files.js";
import type { VerifyQueue } from "../evidence/verify.js";
import type { Graph, GraphNode } from "../graph/graph.js";
import { interpolate } from "../graph/placeholders.js";
import type { RunEnd } from "../ledger/conclusion.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { type AgentNodeResult, type AgentNodeSpec, type Runtime, runAgentNode } from "./agent-node.js";
import { liesInRepository } from "./outside-writes.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";
import { buildFeedbackPayload, buildJudgedRetryPrompt } from "./retry-prompt.js";
import type { GateRecord, NodeRecord, NodeStatus, PauseRecord, RunState } from "./run-state.js";
import type { ModelEnvBuilder } from "./runtime-setup.js";

/** Progress callbacks of one leg; each may be async (the action posts check-run updates from them). */
export interface GraphRunHooks {
  /**
   * An execution started: its session (minted, or the parent's for a session handoff; `null` for a fresh
   * codex thread, whose id codex mints and prints once it runs), attempt and round.
   */
  readonly onNodeStarted?: (
    nodeId: string,
    info: { readonly sessionId: string | null; readonly attempt: number; readonly round: number },
  ) => void;
  /** Codex: a fresh thread's id, once codex printed it (the execution's `onNodeStarted` had `null`). */
  readonly onNodeSession?: (nodeId: string, sessionId: string) => void;
  readonly onNodeVerifying?: (nodeId: string, command: string) => void;
  /** A failed execution will be re-run: a retry of the node, or a feedback round re-running its body. */
  readonly onNodeRetried?: (nodeId: string, info: RetryInfo) => void;
  /** Every recorded execution (superseded ones included), already redacted. */
  readonly onNodeFinished?: (row: LedgerRow) => void | Promise<void>;
  readonly onGatePaused?: (gate: string) => void;
  readonly onSessionLimit?: (nodeId: string, resetsAt: string | null) => void;
  /** The executions so far, in ledger order, after each recorded execution. */
  readonly onRows?: (rows: readonly LedgerRow[]) => void | Promise<void>;
}

/** Why a failed execution runs again. */
export type RetryInfo =
  | {
      readonly kind: "retry";
      readonly cause: FailCause;
      /** The attempt about to run (2-based) and the node's attempts in all (1 + `retry.max`). */
      readonly attempt: number;
      readonly maxAttempts: number;
      readonly judged: boolean;
    }
  | {
      readonly kind: "feedback";
      readonly cause: FailCause;
      readonly round: number;
      readonly max: number;
      readonly rerun: string;
    };

/**
 * The mutable `state.json` of the run, saved by {@link RunStateStore.save}. The engine owns it for the
 * leg; the caller seeds it (fresh run or resume) and reads it afterwards.
 */
export class RunStateStore {
  state: Mutable<RunState>;

  constructor(
    private readonly dir: RedactingRunDirectory,
    initial: RunState,
  ) {
    this.state = structuredClone(initial) as Mutable<RunState>;
  }

  /** Writes `state.json` atomically (redacted). */
  save(): void {
    this.dir.writeJson("state.json", this.state);
  }

  node(id: string): NodeRecord | undefined {
    return this.state.nodes[id];
  }

  setNode(id: string, record: NodeRecord): void {
    this.state.nodes = { ...this.state.nodes, [id]: record };
  }

  setGate(id: string, record: GateRecord): void {
    this.state.gates = { ...this.state.gates, [id]: record };
  }

  addRow(row: LedgerRow): void {
    this.state.rows = [...this.state.rows, row];
  }

  /**
   * Marks the latest FAIL row of `nodeId` superseded (a later execution replaces it: a retry, a feedback
   * round, a resumed leg). A PASS or SKIPPED row needs no mark: a later row replaces it anyway.
   */
  supersedeLatest(nodeId: string): void {
    const rows = [...this.state.rows];
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i]!;
      if (row.nodeId !== nodeId) continue;
      if (row.verdict === "FAIL" && row.superseded !== true) rows[i] = { ...row, superseded: true };
      break;
    }
    this.state.rows = rows;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Everything one leg needs. Times in ms. */
export interface GraphRunOptions {
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
  /** Which CLI every agent node runs (run-wide; default `claude`). */
  readonly runtime?: Runtime;
  readonly claudeExecutable: string;
  /** The `codex` executable (default `codex`), when `runtime` is `codex`. */
  readonly codexExecutable?: string;
  /** The operator's `codex-config` pairs, `-c KEY=VALUE` on every codex node (SPEC §10). */
  readonly codexConfig?: readonly string[];
  readonly model?: string;
  readonly modelEnv: ModelEnvBuilder;
  readonly verifyQueue: VerifyQueue;
  readonly echo?: { readonly write: (text: string) => void; readonly fenceWorkflowCommands: boolean };
  /** Aborts the leg (workflow cancelled, CLI interrupted): running nodes are cancelled. */
  readonly signal?: AbortSignal;
  readonly hooks?: GraphRunHooks;
}

/** How the leg ended and the ledger rows of the whole run so far (every leg), in ledger order. */
export interface GraphRunResult {
  readonly end: Extract<RunEnd, { kind: "completed" | "paused" | "cancelled" }>;
  readonly rows: readonly LedgerRow[];
}

/** The run-directory file holding the git-ignored files baseline at the end of the latest leg. */
export const IGNORED_BASELINE_FILE = "ignored-baseline.json";

/** Causes a feedback arc answers: a judgment about the work, never an infrastructure fault (research §2.5). */
const JUDGMENT_CAUSES: ReadonlySet<FailCause> = new Set(["verify_failed", "result_mismatch", "nonzero_exit"]);

interface Execution {
  readonly verdict: "passed" | "failed" | "cancelled" | "limited";
  /** The last recorded row (absent for a node that failed before any execution, e.g. interpolation). */
  readonly row: LedgerRow | null;
  readonly reply: string;
  readonly judged: boolean;
  /** `limited` only: the reset time as the CLI wrote it (`null` when it gave none). */
  readonly resetsAt?: string | null;
}

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
  const byId = graph.nodes_by_id;
  const status = new Map<string, NodeStatus | "pending" | "running">();
  const replies = new Map<string, string>();
  const skipReasons = new Map<string, string>();
  const rounds = new Map<string, number>();
  const feedbackPayloads = new Map<string, string>();
  // Codex: the CODEX_HOME each thread of this leg lives in (a resumed thread must run there). In memory
  // only: a path on this machine, never written to state.json (a later leg may run elsewhere).
  const codexHomes = new Map<string, string>();
  for (const node of graph.nodes) {
    const record = store.node(node.id);
    if (record?.status === "passed") {
      status.set(node.id, "passed");
      if (node.type !== "gate" && existsSync(dir.nodeOutputPath(node.id)))
        replies.set(node.id, readFileSync(dir.nodeOutputPath(node.id), "utf8"));
    } else if (record?.status === "failed" || record?.status === "cancelled") {
      // Settled in an earlier leg (a rejected gate, a failure a gate decision does not undo): its
      // descendants are pruned. `resume --retry-failed` clears these records before the leg.
      status.set(node.id, record.status);
    } else {
      status.set(node.id, "pending");
    }
    if (record?.feedback_rounds !== undefined) rounds.set(node.id, record.feedback_rounds);
  }

  const running = new Map<string, AbortController>();
  // A failed state write inside a node's settlement: the leg stops and the error is rethrown.
  const internalErrors: unknown[] = [];
  let haltedBy: string | null = null;
  let pause: PauseRecord | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => wake?.();
  const abortAll = (): void => {
    for (const controller of running.values()) controller.abort();
  };
  o.signal?.addEventListener("abort", abortAll, { once: true });

  const rowsSoFar = (): LedgerRow[] => orderRows(graph, store.state.rows, []);
  const record = async (row: LedgerRow): Promise<void> => {
    store.addRow(row);
    store.save();
    if (row.verdict === "PASS")
      dir.event({ type: "node_passed", node: row.nodeId, qualifier: row.qualifier });
    else if (row.verdict === "FAIL" && row.superseded !== true)
      dir.event({ type: "node_failed", node: row.nodeId, cause: row.cause, detail: row.detail });
    await o.hooks?.onNodeFinished?.(row);
    await o.hooks?.onRows?.(rowsSoFar());
  };
  const setRecord = (id: string, patch: Partial<NodeRecord> & Pick<NodeRecord, "status">): void => {
    const prev = store.node(id);
    store.setNode(id, {
      session_id: prev?.session_id ?? null,
      executions: prev?.executions ?? 0,
      ...(prev?.feedback_rounds !== undefined ? { feedback_rounds: prev.feedback_rounds } : {}),
      ...(prev?.thread_usage !== undefined ? { thread_usage: prev.thread_usage } : {}),
      ...patch,
    });
  };

  /** The root failure a skipped node goes back to, so a grandchild's reason names the node that failed. */
  const skippedBecauseOf = new Map<string, string>();
  const blockedReason = (node: GraphNode): string | null => {
    for (const dep of node.depends_on) {
      const s = status.get(dep);
      if (s === "failed" || s === "cancelled" || s === "skipped") {
        const root = s === "skipped" ? (skippedBecauseOf.get(dep) ?? dep) : dep;
        skippedBecauseOf.set(node.id, root);
        const rootStatus = status.get(root);
        const what =
          rootStatus === "cancelled"
            ? "was cancelled"
            : store.state.gates[root]?.status === "rejected"
              ? "was rejected"
              : "failed";
        return root === dep
          ? `dependency "${dep}" ${what}`
          : `dependency "${dep}" was skipped because "${root}" ${what}`;
      }
    }
    return null;
  };
  const isReady = (node: GraphNode): boolean => node.depends_on.every((d) => status.get(d) === "passed");

  while (true) {
    const stopping = haltedBy !== null || o.signal?.aborted === true;
    // Prune what can no longer run.
    let pruned = true;
    while (pruned) {
      pruned = false;
      for (const node of graph.nodes) {
        if (status.get(node.id) !== "pending") continue;
        const reason = stopping
          ? haltedBy !== null
            ? `run halted after "${haltedBy}" failed`
            : "run cancelled"
          : blockedReason(node);
        if (reason !== null) {
          status.set(node.id, "skipped");
          skipReasons.set(node.id, reason);
          setRecord(node.id, { status: "skipped" });
          dir.event({ type: "node_skipped", node: node.id, reason });
          pruned = true;
        }
      }
    }
    // Launch what is ready, unless a pause stops new launches.
    if (!stopping && pause === null) {
      for (const node of graph.nodes) {
        if (running.size >= o.concurrency || pause !== null) break;
        if (status.get(node.id) !== "pending" || !isReady(node)) continue;
        if (node.type === "gate") {
          // A fresh leg cannot carry an approval: an undecided gate pauses the run (research §7.7).
          status.set(node.id, "waiting");
          pause = { reason: "gate", node: node.id };
          setRecord(node.id, { status: "waiting" });
          store.setGate(node.id, { status: "waiting" });
          store.save();
          dir.event({ type: "gate_paused", node: node.id });
          o.hooks?.onGatePaused?.(node.id);
          continue;
        }
        status.set(node.id, "running");
        const controller = new AbortController();
        running.set(node.id, controller);
        void Promise.resolve()
          .then(() => runNode(node, controller.signal))
          .catch(async (error: unknown): Promise<Execution> => {
            // An internal error in one node's lifecycle fails that node, with the error as its detail.
            const row = failRow(node, graph, "run_error", `internal error: ${errorText(error)}`);
            await record(o.redactor.deep(row));
            return { verdict: "failed", row, reply: "", judged: false };
          })
          .then(async (execution) => {
            running.delete(node.id);
            await settle(node, execution, controller.signal.aborted);
            notify();
          })
          .catch((error: unknown) => {
            // settle() writes state; a failed write must not hang the leg.
            running.delete(node.id);
            status.set(node.id, "failed");
            internalErrors.push(error);
            notify();
          });
      }
    }
    if (running.size === 0) {
      const launchable = graph.nodes.some(
        (n) => status.get(n.id) === "pending" && isReady(n) && pause === null && !stopping,
      );
      if (!launchable) break;
      continue;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = null;
  }
  o.signal?.removeEventListener("abort", abortAll);
  if (internalErrors.length > 0) throw internalErrors[0];

  // Nodes that never ran this leg: pending behind a pause, or waiting at a gate.
  for (const node of graph.nodes) {
    const s = status.get(node.id);
    if (s === "pending") {
      const why =
        pause?.reason === "gate"
          ? `not run yet: the run is paused at gate "${pause.node}"`
          : pause?.reason === "session-limit"
            ? "not run yet: the run paused at the model's session limit"
            : "dependencies never passed";
      skipReasons.set(node.id, why);
      setRecord(node.id, { status: "skipped" });
    } else if (s === "waiting") {
      skipReasons.set(node.id, "waiting for a person to approve or reject this gate");
    } else if (s === "limited") {
      skipReasons.set(node.id, "paused at the model's session limit; resume with --retry-failed");
    }
  }
  // A run halted by a failure is not waiting for anyone: the failure decides it, and `--retry-failed` (not an
  // approval) is what continues it — the gate pauses again then if it is reached.
  if (haltedBy !== null) pause = null;
  store.state.paused = pause;
  store.save();
  // The ignored-files baseline as the verifies left it: a resumed leg compares against this (ADR 0003).
  const baseline = o.verifyQueue.currentIgnoredBaseline;
  if (baseline !== null) dir.writeJson(IGNORED_BASELINE_FILE, ignoredFilesToData(baseline));
  const end: GraphRunResult["end"] =
    o.signal?.aborted === true
      ? { kind: "cancelled" }
      : pause !== null
        ? { kind: "paused", reason: pause.reason, nodeId: pause.node }
        : { kind: "completed" };
  return { end, rows: orderRows(graph, store.state.rows, skippedRows(graph, status, skipReasons)) };

  // ---- one node -------------------------------------------------------------------------------------

  async function settle(node: GraphNode, execution: Execution, aborted: boolean): Promise<void> {
    const id = node.id;
    switch (execution.verdict) {
      case "passed":
        status.set(id, "passed");
        replies.set(id, execution.reply);
        setRecord(id, { status: "passed", judged: false });
        store.save();
        return;
      case "limited": {
        status.set(id, "limited");
        setRecord(id, { status: "limited" });
        // A gate pause outranks a session limit (research §5.6).
        if (pause === null)
          pause = { reason: "session-limit", node: id, resets_at: execution.resetsAt ?? null };
        store.save();
        return;
      }
      case "cancelled":
        status.set(id, "cancelled");
        setRecord(id, { status: "cancelled" });
        store.save();
        return;
      case "failed": {
        const row = execution.row;
        const arc = node.feedback;
        const cause = row?.verdict === "FAIL" ? row.cause : null;
        const judgment =
          cause !== null &&
          JUDGMENT_CAUSES.has(cause) &&
          // A verify that timed out or could not start is an infrastructure fault, not a judgment.
          (cause !== "verify_failed" || row?.verify?.outcome === "failed");
        if (arc !== null && judgment && row !== null && !aborted && haltedBy === null) {
          const used = rounds.get(id) ?? 0;
          if (used < arc.max) {
            fireFeedback(node, arc, used + 1, row as FailRow, execution.reply);
            return;
          }
          // Exhausted: the last row says so (research §2.5).
          rewriteLatest(id, (r) =>
            r.verdict === "FAIL"
              ? {
                  ...r,
                  detail: `feedback exhausted after ${arc.max} ${arc.max === 1 ? "round" : "rounds"} of ${arc.rerun} → ${id}: ${r.cause}: ${r.detail}`,
                }
              : r,
          );
        }
        status.set(id, "failed");
        setRecord(id, { status: "failed", judged: execution.judged });
        store.save();
        if (o.onFail === "halt" && haltedBy === null && !aborted) {
          haltedBy = id;
          abortAll();
        }
        return;
      }
    }
  }

  function fireFeedback(
    declarer: GraphNode,
    arc: NonNullable<GraphNode["feedback"]>,
    round: number,
    row: FailRow,
    reply: string,
  ): void {
    const payload = buildFeedbackPayload({
      declarer: declarer.id,
      round,
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
    feedbackPayloads.set(declarer.id, payload);
    dir.writeText(`feedback-${declarer.id.replaceAll("/", "~")}.out`, payload);
    rounds.set(declarer.id, round);
    store.supersedeLatest(declarer.id);
    setRecord(declarer.id, { status: "failed", feedback_rounds: round });
    const detail = `feedback round ${round}/${arc.max}: re-running ${arc.rerun} → ${declarer.id} (${row.cause})`;
    dir.event({
      type: "node_retried",
      node: declarer.id,
      cause: row.cause,
      round,
      rerun: arc.rerun,
      detail,
    });
    o.hooks?.onNodeRetried?.(declarer.id, {
      kind: "feedback",
      cause: row.cause,
      round,
      max: arc.max,
      rerun: arc.rerun,
    });
    // Re-arm the body: its nodes run again, in dependency order, with the payload available.
    for (const id of arc.body) {
      status.set(id, "pending");
      rounds.set(id, round);
      replies.delete(id);
    }
    store.save();
  }

  function rewriteLatest(nodeId: string, change: (row: LedgerRow) => LedgerRow): void {
    const rows = [...store.state.rows];
    for (let i = rows.length - 1; i >= 0; i--) {
      if (rows[i]!.nodeId !== nodeId) continue;
      rows[i] = change(rows[i]!);
      break;
    }
    store.state.rows = rows;
  }

  async function runNode(node: GraphNode, signal: AbortSignal): Promise<Execution> {
    const id = node.id;
    const sink = graph.sinks.includes(id);
    const round = rounds.get(id) ?? 0;
    const arcOfBody = graph.nodes.find((n) => n.feedback?.body.includes(id))?.feedback ?? null;
    const roundWords = round > 0 && arcOfBody !== null ? `feedback round ${round}/${arcOfBody.max}` : null;
    const context = {
      inputs: o.inputs,
      artifactPath: (ref: string) => (replies.has(ref) ? dir.nodeOutputPath(ref) : undefined),
      readArtifact: (ref: string) => replies.get(ref),
      feedback: (ref: string) => (byId.get(ref)?.feedback ? (feedbackPayloads.get(ref) ?? "") : undefined),
    };
    // In a verify command every substituted value is one shell word, single-quoted: an input value or a
    // model's reply (`| inline`, `{{ feedback.ID }}`) cannot add shell syntax to the command the engine runs
    // as its evidence (`a; touch /tmp/x` stays the argument `'a; touch /tmp/x'`).
    const shellContext = {
      inputs: Object.fromEntries(Object.entries(o.inputs).map(([k, v]) => [k, shellQuote(v)])),
      artifactPath: (ref: string) => mapDefined(context.artifactPath(ref), shellQuote),
      readArtifact: (ref: string) => mapDefined(context.readArtifact(ref), shellQuote),
      feedback: (ref: string) => mapDefined(context.feedback(ref), shellQuote),
    };
    const interpolated = (
      what: string,
      template: string,
      ctx: typeof context = context,
    ): string | { error: string } => {
      const result = interpolate(template, ctx);
      return result.ok ? result.text : { error: `${what}: ${result.message}` };
    };
    const fields = {
      prompt: interpolated("prompt", node.prompt),
      cwd: node.cwd === null ? null : interpolated("cwd", node.cwd),
      verifyCommand: node.success_check.verify
        ? interpolated("success_check.verify.command", node.success_check.verify.command, shellContext)
        : null,
      verifyCwd:
        node.success_check.verify?.cwd != null
          ? interpolated("success_check.verify.cwd", node.success_check.verify.cwd)
          : null,
    };
    for (const value of Object.values(fields)) {
      if (value !== null && typeof value === "object") {
        // Interpolation errors fail the node without a retry (research §2.4).
        const row = o.redactor.deep(failRow(node, graph, "run_error", value.error));
        await record(row);
        return { verdict: "failed", row, reply: "", judged: false };
      }
    }
    const prompt = fields.prompt as string;
    const cwd = fields.cwd === null ? o.workDir : resolve(o.workDir, fields.cwd as string);
    const cwdProblem = directoryProblem(cwd, o.repoDir, "cwd");
    const verify = node.success_check.verify;
    const verifyCwd = fields.verifyCwd === null ? cwd : resolve(cwd, fields.verifyCwd as string);
    const verifyCwdProblem = verify
      ? directoryProblem(verifyCwd, o.repoDir, "success_check.verify.cwd")
      : null;
    if (cwdProblem !== null || verifyCwdProblem !== null) {
      const row = o.redactor.deep(failRow(node, graph, "run_error", (cwdProblem ?? verifyCwdProblem)!));
      await record(row);
      return { verdict: "failed", row, reply: "", judged: false };
    }

    const maxAttempts = 1 + node.retry.max;
    // A `--retry-failed` leg quotes the reply of a judged failure from the earlier leg (research §6.4).
    const earlier = store.node(id);
    let quoted: string | null =
      earlier?.judged === true && existsSync(dir.failedOutputPath(id))
        ? readFileSync(dir.failedOutputPath(id), "utf8")
        : null;
    let last: Execution | null = null;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (signal.aborted) break;
      const session = sessionFor(node, attempt, quoted !== null);
      if (typeof session === "string") {
        const row = o.redactor.deep(failRow(node, graph, "run_error", session));
        await record(row);
        return { verdict: "failed", row, reply: "", judged: false };
      }
      const spec: AgentNodeSpec = {
        id,
        prompt:
          quoted !== null
            ? buildJudgedRetryPrompt({
                basePrompt: prompt,
                previousReply: quoted,
                attempt: Math.max(2, attempt),
                maxAttempts: Math.max(2, maxAttempts, attempt),
              })
            : prompt,
        permissionMode: node.permission_mode,
        policy: o.policies[id] ?? { allowedTools: [], strictMcpConfig: false, disallowedTools: [] },
        timeoutMs: node.timeout_ms,
        cwd,
        repoRoot: o.repoDir,
        sink,
        exitZero: node.success_check.exit_zero,
        resultMatches: node.success_check.result_matches,
        verify: verify
          ? {
              command: fields.verifyCommand as string,
              cwd: verifyCwd,
              timeoutMs: verify.timeout_ms,
              expectExit: verify.expect_exit,
              outputMatches: verify.output_matches,
            }
          : null,
        session,
        budgetUsd: node.budget_usd,
      };
      const workDone = o.verifyQueue.nodeWorking();
      let produced: AgentNodeResult;
      try {
        produced = await runAgentNode(
          spec,
          {
            ...(o.runtime !== undefined ? { runtime: o.runtime } : {}),
            claudeExecutable: o.claudeExecutable,
            ...(o.codexExecutable !== undefined ? { codexExecutable: o.codexExecutable } : {}),
            ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
            ...(o.model !== undefined ? { model: o.model } : {}),
            modelEnv: o.modelEnv,
            runDir: dir,
            verifyQueue: o.verifyQueue,
            ...(o.echo ? { echo: o.echo } : {}),
            onStarted: (nodeId, sessionId) => {
              dir.event({ type: "node_started", node: nodeId, sessionId, attempt, round });
              o.hooks?.onNodeStarted?.(nodeId, { sessionId, attempt, round });
            },
            onSession: (nodeId, sessionId) => {
              dir.event({ type: "node_session", node: nodeId, sessionId });
              o.hooks?.onNodeSession?.(nodeId, sessionId);
            },
            onVerifying: (nodeId, command) => {
              workDone();
              dir.event({ type: "node_verifying", node: nodeId, command });
              o.hooks?.onNodeVerifying?.(nodeId, o.redactor.text(command));
            },
          },
          signal,
        );
      } finally {
        workDone();
      }
      dir.redactSavedOutputs(id);
      const reply = o.redactor.text(produced.reply);
      let row = o.redactor.deep(produced.row);
      const words = [
        maxAttempts > 1 ? `attempt ${attempt}/${maxAttempts}` : null,
        attempt > 1 && node.handoff === "session" ? "retry started fresh — parent session not resumed" : null,
        roundWords,
      ].filter((w): w is string => w !== null);
      if (words.length > 0) row = { ...row, detail: `${row.detail}; ${words.join("; ")}` };
      if (row.verdict === "FAIL" && row.cause === "cancelled") {
        row = {
          ...row,
          detail:
            haltedBy !== null
              ? `cancelled: "${haltedBy}" failed and on_fail is halt`
              : "cancelled: the run was cancelled",
        };
      }
      const retrying =
        row.verdict === "FAIL" &&
        !signal.aborted &&
        produced.sessionLimit === null &&
        row.cause !== "cancelled" &&
        attempt < maxAttempts &&
        node.retry.on.includes(row.cause as never);
      if (retrying && row.verdict === "FAIL") row = { ...row, superseded: true };
      const executions = (store.node(id)?.executions ?? 0) + 1;
      const thread = produced.codexThread;
      if (thread?.home != null && row.sessionId !== null) codexHomes.set(row.sessionId, thread.home);
      // A PASS is settled in the same state write as its row, so a crash between the two cannot leave a
      // passed row on a node the next leg would run again.
      setRecord(id, {
        status: row.verdict === "PASS" ? "passed" : "running",
        session_id: row.sessionId,
        executions,
        // Codex: the thread's cumulative usage, so a child resuming it records only its own share.
        ...((o.runtime ?? "claude") === "codex" ? { thread_usage: thread?.usage ?? undefined } : {}),
        // Claude: the session's cumulative cost, for the same reason.
        ...(produced.sessionCostUsd !== undefined ? { session_cost_usd: produced.sessionCostUsd } : {}),
      });
      await record(row);
      if (produced.sessionLimit !== null) {
        dir.event({ type: "session_limit", node: id, resetsAt: produced.sessionLimit.resetsAt });
        o.hooks?.onSessionLimit?.(id, produced.sessionLimit.resetsAt);
        return {
          verdict: "limited",
          row,
          reply,
          judged: false,
          resetsAt: produced.sessionLimit.resetsAt,
        };
      }
      if (row.verdict === "PASS") return { verdict: "passed", row, reply, judged: false };
      if (row.verdict === "FAIL" && row.cause === "cancelled")
        return { verdict: "cancelled", row, reply, judged: false };
      last = { verdict: "failed", row, reply, judged: produced.judged };
      if (!retrying || row.verdict !== "FAIL") break;
      // A judged failure's reply is quoted once in the next attempt; any other failure quotes nothing.
      quoted = produced.judged ? reply : null;
      const info: RetryInfo = {
        kind: "retry",
        cause: row.cause,
        attempt: attempt + 1,
        maxAttempts,
        judged: produced.judged,
      };
      dir.event({
        type: "node_retried",
        node: id,
        cause: row.cause,
        attempt: attempt + 1,
        detail: `retry ${attempt}/${node.retry.max} after ${row.cause}${produced.judged ? " (previous reply quoted)" : ""}`,
      });
      o.hooks?.onNodeRetried?.(id, info);
    }
    if (last?.row?.verdict === "FAIL" && last.row.superseded === true && signal.aborted) {
      // The run stopped between attempts: the retry never started, so this attempt's FAIL is the node's
      // last word — not a row "a later execution replaced" when none exists.
      const { superseded: _replaced, ...failed } = last.row;
      const why = haltedBy !== null ? `the run halted after "${haltedBy}" failed` : "the run was cancelled";
      const standing: FailRow = { ...failed, detail: `${failed.detail}; retry not started: ${why}` };
      rewriteLatest(id, () => standing);
      store.save();
      dir.event({ type: "node_failed", node: id, cause: standing.cause, detail: standing.detail });
      return { ...last, row: standing };
    }
    return (
      last ?? {
        verdict: "cancelled",
        row: null,
        reply: "",
        judged: false,
      }
    );
  }

  /**
   * The session of one attempt: `handoff: session` resumes the parent's session on the first attempt; a
   * retry (or a re-run quoting a judged reply) starts fresh. A string is why it cannot run.
   */
  function sessionFor(node: GraphNode, attempt: number, quoting: boolean): AgentNodeSpec["session"] | string {
    if (node.handoff !== "session" || attempt > 1 || quoting) return { kind: "fresh" };
    const parent = node.depends_on.find((d) => byId.get(d)?.type !== "gate");
    const record = parent !== undefined ? store.node(parent) : undefined;
    const sessionId = record?.session_id;
    if (parent === undefined || sessionId === null || sessionId === undefined) {
      return `handoff: session needs the session of its parent${parent !== undefined ? ` "${parent}"` : ""}, which is not known (the parent reported no session id)`;
    }
    if ((o.runtime ?? "claude") !== "codex")
      return { kind: "resume", sessionId, sessionCostUsd: record?.session_cost_usd ?? null };
    const codexHome = codexHomes.get(sessionId);
    return {
      kind: "resume",
      sessionId,
      threadUsage: record?.thread_usage ?? null,
      ...(codexHome !== undefined ? { codexHome } : {}),
    };
  }
}

/** A FAIL row for a node that failed before (or without) spawning anything. */
function failRow(node: GraphNode, graph: Graph, cause: FailCause, detail: string): FailRow {
  return {
    nodeId: node.id,
    verdict: "FAIL",
    cause,
    detail,
    ...NOTHING_SPENT,
    sink: graph.sinks.includes(node.id),
  };
}

/** Why `dir` cannot be a node's directory (missing, not a folder, outside the repository); `null` if fine. */
function directoryProblem(dir: string, repoDir: string, field: string): string | null {
  if (!liesInRepository(dir, { cwd: repoDir, repoRoot: repoDir })) {
    return `${field} ${dir} is outside the repository ${repoDir}: a node runs inside the repository whose tree is the evidence`;
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `${field} ${dir} is not a folder`;
  return null;
}

function skippedRows(
  graph: Graph,
  status: ReadonlyMap<string, string>,
  reasons: ReadonlyMap<string, string>,
): SkippedRow[] {
  const rows: SkippedRow[] = [];
  for (const node of graph.nodes) {
    const s = status.get(node.id);
    if (s !== "skipped" && s !== "pending" && s !== "waiting" && s !== "limited") continue;
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

/**
 * The ledger's row order: by the node's position in the graph, each node's executions in the order they
 * ran (retries and feedback rounds together), a SKIPPED row after them.
 */
export function orderRows(
  graph: Graph,
  executions: readonly LedgerRow[],
  skipped: readonly LedgerRow[],
): LedgerRow[] {
  const position = new Map(graph.nodes.map((n, i) => [n.id, i]));
  const all = [...executions, ...skipped];
  return all
    .map((row, i) => ({ row, i }))
    .sort((a, b) => (position.get(a.row.nodeId) ?? 0) - (position.get(b.row.nodeId) ?? 0) || a.i - b.i)
    .map((x) => x.row);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `value` as one POSIX shell word: single-quoted, each `'` written `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

function mapDefined<T, U>(value: T | undefined, f: (v: T) => U): U | undefined {
  return value === undefined ? undefined : f(value);
}
