/**
 * Which session one execution of a node runs in (SPEC §4; research/oh-my-graph.md §2.6): `handoff:
 * session` resumes its parent's session on the first attempt; a retry, or a re-run quoting a judged reply,
 * starts fresh (the quote is the whole context it needs, research §6.4). Every other node starts fresh.
 */
import type { Graph, GraphNode } from "../graph/graph.js";
import type { Runtime } from "../policy/disclosure.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import type { AgentNodeSpec } from "./agent-node-spec.js";
import type { LegMemory } from "./leg-memory.js";
import type { RunStateStore } from "./run-state-store.js";

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
