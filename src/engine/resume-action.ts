/**
 * The action of a resumed leg (SPEC §4; research/oh-my-graph.md §7.6–§7.7): whether it fits where the run
 * stopped, and what it records in `state.json` and `events.jsonl` when the leg starts, before any node runs.
 *
 * - `--approve GATE` (the run is paused at GATE): who approved and the head SHA, the gate's
 *   `PASS (approved)` row; its dependents then run.
 * - `--reject GATE`: the rejection and a FAIL row; the gate's subtree is pruned and the run fails.
 * - `--retry-failed`: every PASS is kept (and its output), the failed executions are marked superseded, and
 *   exactly the nodes that never passed run again (after a session-limit pause, the ones it stopped).
 */
import { type FailRow, NOTHING_SPENT } from "../core/ledger-row.js";
import type { RunId } from "../core/run-id.js";
import type { Graph } from "../graph/graph.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { UsageError } from "./resume-checks.js";
import type { ResumableRun } from "./resume-source.js";
import { approvedGateRow } from "./run-state.js";
import type { RunStateStore } from "./run-state-store.js";

/**
 * What the leg does. `by` is who decided (the recorded approver); `dispatchedBy`, when given, is who started
 * the leg for them — the evidence-gate App's dispatch for a writer's click (issue 11) — and the row says so.
 */
export type ResumeAction =
  | { readonly kind: "approve"; readonly gate: string; readonly by: string; readonly dispatchedBy?: string }
  | { readonly kind: "reject"; readonly gate: string; readonly by: string; readonly dispatchedBy?: string }
  | { readonly kind: "retry-failed" };

/**
 * `--retry-failed` on a run with nothing left to run: every node passed (`failed: false`), or what did not
 * pass hangs on a gate a person rejected (`failed: true` — the run stays failed; the CLI exits 1).
 */
export interface NothingToRetry {
  readonly kind: "nothing_to_retry";
  readonly message: string;
  readonly failed: boolean;
}

/**
 * Whether `action` fits where the run stopped: `--approve` / `--reject` only the gate the run waits at;
 * `--retry-failed` not at a gate (a person decides it) and only with an unpassed node left outside a
 * rejected gate's subtree (a rejection is final for the run).
 *
 * @returns the refusal, {@link NothingToRetry}, or `null` when the leg can run.
 */
export function resumeActionProblem(
  run: Pick<ResumableRun, "runId" | "graph" | "state">,
  action: ResumeAction,
): UsageError | NothingToRetry | null {
  const { runId, graph, state } = run;
  const paused = state.paused;
  switch (action.kind) {
    case "approve":
    case "reject": {
      if (paused?.reason !== "gate") {
        return {
          kind: "usage_error",
          message: `run ${runId} is not paused at a gate${paused?.reason === "session-limit" ? " (it paused at the model's session limit: resume it with --retry-failed)" : ""}; --${action.kind} applies only to the gate a run is waiting at`,
        };
      }
      if (paused.node !== action.gate) {
        return {
          kind: "usage_error",
          message: `run ${runId} is waiting at gate "${paused.node}", not "${action.gate}": resume it with --approve ${paused.node} or --reject ${paused.node}`,
        };
      }
      return null;
    }
    case "retry-failed": {
      if (paused?.reason === "gate") {
        return {
          kind: "usage_error",
          message: `run ${runId} is paused at gate "${paused.node}": a person decides it — resume with --approve ${paused.node} or --reject ${paused.node}`,
        };
      }
      // A rejected gate stays rejected, and its subtree stays pruned: only the other unpassed nodes can run.
      const rejected = graph.nodes.filter((n) => state.gates[n.id]?.status === "rejected").map((n) => n.id);
      const behindRejected = descendantsOf(graph, rejected);
      const unpassed = graph.nodes.filter(
        (n) =>
          state.nodes[n.id]?.status !== "passed" && !rejected.includes(n.id) && !behindRejected.has(n.id),
      );
      if (unpassed.length > 0) return null;
      return {
        kind: "nothing_to_retry",
        failed: rejected.length > 0,
        message:
          rejected.length === 0
            ? `run ${runId} has no failed nodes to retry: every node passed`
            : `run ${runId} has no failed nodes to retry: every node passed except ${rejected.map((id) => `gate "${id}"`).join(", ")}, which a person rejected, and what depends on it. A rejection is final for this run: start a new run to try again`,
      };
    }
  }
}

/** Every node that depends, directly or not, on one of `roots` (the roots themselves excluded). */
function descendantsOf(graph: Graph, roots: readonly string[]): Set<string> {
  const found = new Set<string>();
  let grew = roots.length > 0;
  while (grew) {
    grew = false;
    for (const node of graph.nodes) {
      if (found.has(node.id)) continue;
      if (node.depends_on.some((d) => roots.includes(d) || found.has(d))) {
        found.add(node.id);
        grew = true;
      }
    }
  }
  return found;
}

/** Where a leg's start is recorded: the run's store and directory; its id and graph. */
export interface LegStartPlace {
  readonly store: RunStateStore;
  readonly dir: RedactingRunDirectory;
  readonly runId: RunId;
  readonly graph: Graph;
}

/**
 * Starts the leg: appends its record (`approve GATE`, `reject GATE` or `retry-failed`) to `legs`, clears
 * the pause, appends `run_started`, records the action (the decision is bound to `headSha`), and saves
 * `state.json` — all before anything runs.
 *
 * @returns when the leg started (ISO-8601).
 */
/** ` (dispatched by <login>)` when someone other than the decider started the leg, else nothing. */
function dispatchedWords(action: { readonly by: string; readonly dispatchedBy?: string }): string {
  return action.dispatchedBy === undefined || action.dispatchedBy === action.by
    ? ""
    : ` (dispatched by ${action.dispatchedBy})`;
}

export function startResumedLeg(place: LegStartPlace, action: ResumeAction, headSha: string): string {
  const { store, dir } = place;
  const legKind = action.kind === "retry-failed" ? "retry-failed" : `${action.kind} ${action.gate}`;
  const startedAt = new Date().toISOString();
  store.state.legs = [...store.state.legs, { started_at: startedAt, kind: legKind }];
  store.state.paused = null;
  dir.event({ type: "run_started", runId: place.runId, mode: store.state.mode, leg: legKind });
  const at = new Date().toISOString();
  if (action.kind === "approve") {
    store.setGate(action.gate, { status: "approved", by: action.by, head_sha: headSha, at });
    const approved = approvedGateRow(
      action.gate,
      action.by,
      headSha,
      place.graph.sinks.includes(action.gate),
    );
    store.addRow({ ...approved, detail: `${approved.detail}${dispatchedWords(action)}` });
    store.setNode(action.gate, { status: "passed", session_id: null, executions: 1 });
    dir.event({ type: "gate_approved", node: action.gate, by: action.by, headSha });
    dir.event({ type: "node_passed", node: action.gate, qualifier: "approved" });
  } else if (action.kind === "reject") {
    store.setGate(action.gate, { status: "rejected", by: action.by, head_sha: headSha, at });
    const row: FailRow = {
      nodeId: action.gate,
      verdict: "FAIL",
      cause: "rejected",
      detail: `gate rejected by ${action.by} at ${headSha.slice(0, 12)}${dispatchedWords(action)}`,
      ...NOTHING_SPENT,
      sink: place.graph.sinks.includes(action.gate),
    };
    store.addRow(row);
    store.setNode(action.gate, { status: "failed", session_id: null, executions: 1 });
    dir.event({ type: "gate_rejected", node: action.gate, by: action.by });
    dir.event({ type: "node_failed", node: action.gate, cause: "rejected", detail: row.detail });
  } else {
    supersedeFailures(store, place.graph);
  }
  store.save();
  return startedAt;
}

/**
 * `--retry-failed`: every failed execution is replaced by this leg's — its FAIL row marked superseded and
 * its record set back to `skipped` — except a rejected gate's; a cleared feedback declarer re-arms its
 * body (its members back to `skipped`, its round count to 0).
 */
function supersedeFailures(store: RunStateStore, graph: Graph): void {
  for (const node of graph.nodes) {
    const record = store.node(node.id);
    if (record === undefined || record.status === "passed") continue;
    if (store.state.gates[node.id]?.status === "rejected") continue;
    store.supersedeLatest(node.id);
    store.setNode(node.id, { ...record, status: "skipped" });
    if (node.feedback !== null && record.status === "failed") {
      for (const id of node.feedback.body) {
        const bodyRecord = store.node(id);
        if (bodyRecord !== undefined) store.setNode(id, { ...bodyRecord, status: "skipped" });
      }
      store.setNode(node.id, { ...record, status: "skipped", feedback_rounds: 0 });
    }
  }
}
