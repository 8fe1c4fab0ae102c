/**
 * Where a node's completion gate stands before an execution, and what its model call is then (SPEC §7;
 * seed 002): attempt 1 runs as the node would without the gate (but for the plan tool a `todos: all_done`
 * gate turns on); from attempt 2 it continues the node's own session with the fixed feedback message,
 * and what the earlier attempts spent of `budget_usd` and `timeout` is no longer there (both bind across
 * attempts). `completion-judge.ts` judges an attempt once it ran.
 */

import type { FailCause } from "../core/ledger-row.js";
import { formatDuration } from "../graph/duration.js";
import type { CompletionGate, GraphNode } from "../graph/graph.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import type { AgentNodeSpec } from "./agent-node.js";
import { type CompletionProgress, progressFromRecord } from "./completion-progress.js";
import { buildCompletionFeedback } from "./completion-prompt.js";
import type { NodeRecord } from "./run-state.js";
import type { Runtime } from "./runtime-setup.js";

/** A node that declares a completion gate. */
export type GatedNode = GraphNode & { readonly completion: CompletionGate };
/** How an execution of a gated node starts. */
export type CompletionStart =
  | { readonly kind: "first" }
  /** Attempt ≥ 2, continuing the node's own session (this leg's continuation, or an earlier leg's record). */
  | { readonly kind: "continue"; readonly progress: CompletionProgress }
  /** No attempt may run (an earlier leg used them up, or spent the budget or the time): FAIL, nothing spawned. */
  | {
      readonly kind: "spent";
      readonly cause: FailCause;
      readonly detail: string;
      readonly stoppedBy: string;
    };

/**
 * Where `node`'s gate stands before this execution: the scheduler's continuation (`carried`), else the
 * node record's progress from an earlier leg when it belongs to this feedback round and this is the
 * node's first execution in the leg, else attempt 1.
 */
export function completionStart(
  node: GatedNode,
  input: { readonly round: number; readonly completion?: CompletionProgress; readonly carried?: unknown },
  record: NodeRecord | undefined,
): CompletionStart {
  if (input.completion !== undefined) return { kind: "continue", progress: input.completion };
  const saved = record?.completion;
  if (input.carried !== undefined || saved === undefined || saved.round !== input.round)
    return { kind: "first" };
  const progress = progressFromRecord(saved);
  const max = node.completion.max_attempts;
  const last = progress.reasons.at(-1) ?? "";
  if (progress.attempt > max) {
    return {
      kind: "spent",
      cause: "incomplete",
      stoppedBy: `completion.verify failed ${max}×: ${last}`,
      detail: `completion.verify failed ${max}×: ${last}; no completion attempt is left (max_attempts ${max}) — start a new run to try again`,
    };
  }
  const limit = limitSpent(node, progress);
  return limit === null ? { kind: "continue", progress } : { kind: "spent", ...limit };
}

/**
 * Why no further attempt may start: the node's `budget_usd` spent (claude; codex reports no USD) or its
 * `timeout` used up across the attempts so far; `null` when neither.
 */
export function limitSpent(
  node: GraphNode,
  progress: Pick<CompletionProgress, "spentUsd" | "elapsedMs" | "reasons">,
): { readonly cause: FailCause; readonly detail: string; readonly stoppedBy: string } | null {
  const done = progress.reasons.length;
  const last = progress.reasons.at(-1) ?? "";
  const budget = node.budget_usd;
  if (budget !== null && progress.spentUsd !== null && progress.spentUsd >= budget) {
    const stoppedBy = `budget_usd $${budget.toFixed(4)} spent after attempt ${done}/${maxOf(node)} ($${progress.spentUsd.toFixed(4)})`;
    return {
      cause: "budget_exceeded",
      stoppedBy,
      detail: `${stoppedBy}: no further completion attempt; completion.verify failed: ${last}`,
    };
  }
  if (progress.elapsedMs >= node.timeout_ms) {
    const stoppedBy = `timeout: the node's ${formatDuration(node.timeout_ms)} spent after attempt ${done}/${maxOf(node)}`;
    return {
      cause: "timeout",
      stoppedBy,
      detail: `${stoppedBy}: no further completion attempt; completion.verify failed: ${last}`,
    };
  }
  return null;
}

function maxOf(node: GraphNode): number {
  return node.completion?.max_attempts ?? 1;
}

/**
 * `spec` as attempt `start` of a gated node runs it: the plan tool when the gate reads the plan; from
 * attempt 2 the fixed feedback message as the prompt, the node's own session resumed (claude with the
 * session's cost so far, codex with its thread usage and home), and the node's timeout minus the time
 * the earlier attempts took.
 */
export function completionSpec(
  spec: AgentNodeSpec,
  node: GatedNode,
  start: Exclude<CompletionStart, { kind: "spent" }>,
  o: { readonly runtime: Runtime; readonly codexHomeOf: (sessionId: string) => string | undefined },
): AgentNodeSpec {
  const planTool = node.completion.verify.kind === "todos_all_done";
  if (start.kind === "first") return { ...spec, completion: { planTool, continuing: false, spentUsd: 0 } };
  const p = start.progress;
  const codexHome = o.codexHomeOf(p.sessionId) ?? p.codexHome;
  return {
    ...spec,
    prompt: buildCompletionFeedback({
      attempt: p.attempt,
      maxAttempts: node.completion.max_attempts,
      report: p.feedback,
    }),
    session: runtimeFor(o.runtime).resumedSession({
      sessionId: p.sessionId,
      sessionCostUsd: p.sessionCostUsd,
      threadUsage: p.threadUsage,
      ...(codexHome !== undefined ? { codexHome } : {}),
    }),
    timeoutMs: Math.max(1, node.timeout_ms - p.elapsedMs),
    completion: { planTool, continuing: true, spentUsd: p.spentUsd },
  };
}
