/**
 * What a hand-written graph is run under (SPEC §5, §8): its build-evidence answer `graph` — `run` trusts
 * the graph's own verify commands (`success_check.verify`, or a `completion.verify` command: the engine
 * runs both; `node-checks.ts`) and names which sinks verify, and with which command — each agent node's
 * tool policy, which is its own `allowed_tools` and nothing more (no ceiling), and the ledger's plan
 * section.
 */
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { Graph } from "../graph/graph.js";
import { engineRunCommandOf } from "../graph/node-checks.js";
import type { PlanSection } from "../ledger/ledger.js";
import { type DisclosureSurface, handWrittenDisclosure, type Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { planPolicy, type RecordedPolicy } from "./fresh-run.js";
import type { GraphAgents } from "./hand-agents.js";

/** What the plan section names besides the graph: the surface and runtime of the disclosure, the policy file. */
export interface HandPlanOptions {
  readonly surface: DisclosureSurface;
  readonly runtime: Runtime;
  readonly policy?: RecordedPolicy;
  /** What the runtime will not enforce of the graph (`runtimeWarnings`); listed in the plan when any. */
  readonly warnings: readonly string[];
  /** The splice disclosure lines (`formatSplice`); listed in the plan when any. */
  readonly fragments?: readonly string[];
  /** The subagents the graph's nodes name (`hand-agents.ts`); a node's goes on its policy. */
  readonly agents?: GraphAgents;
}

/** A hand-written graph's answer, its agent nodes' policies (by node id) and its plan section. */
export interface HandPlan {
  readonly answer: Extract<BuildEvidenceAnswer, { kind: "graph" }>;
  readonly policies: Record<string, ToolPolicy>;
  readonly plan: PlanSection;
}

/** The answer, policies and plan section of `graph`. Pure. */
export function handWrittenPlan(graph: Graph, o: HandPlanOptions): HandPlan {
  const checkedSinks = graph.sinks.filter((id) => graph.nodes_by_id.get(id)?.type !== "gate");
  const commandOf = (id: string): string | null => {
    const node = graph.nodes_by_id.get(id);
    return node === undefined ? null : engineRunCommandOf(node);
  };
  const answer = {
    kind: "graph" as const,
    verifiedSinks: checkedSinks.filter((id) => commandOf(id) !== null),
    unverifiedSinks: checkedSinks.filter((id) => commandOf(id) === null),
  };
  const policies: Record<string, ToolPolicy> = {};
  for (const node of graph.nodes) {
    // A hand-written node's only layer is its own declaration (SPEC §8; `handWrittenPolicy`), plus the
    // subagent it names, whose tools were checked to stay within that declaration.
    if (node.type === "gate") continue;
    const definition = node.agent !== null ? o.agents?.get(node.agent) : undefined;
    if (node.agent !== null && definition === undefined) {
      throw new Error(`Internal error: node "${node.id}" names agent "${node.agent}", which was not read`);
    }
    policies[node.id] = {
      allowedTools: [...node.allowed_tools],
      strictMcpConfig: false,
      disallowedTools: [],
      ...(node.agent !== null && definition !== undefined ? { agent: { name: node.agent, definition } } : {}),
    };
  }
  const plan: PlanSection = {
    buildEvidence: answer,
    sinkCommands: graph.sinks.flatMap((id) => {
      const command = commandOf(id);
      return command !== null ? [{ nodeId: id, command }] : [];
    }),
    disclosure: handWrittenDisclosure(o.surface, o.runtime),
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      ...(n.type === "gate" ? { type: "gate" as const } : {}),
      dependsOn: [...n.depends_on],
      allowedTools: [...n.allowed_tools],
      sink: graph.sinks.includes(n.id),
    })),
    planningCostUsd: 0,
    ...planPolicy(o.policy),
    ...(o.warnings.length > 0 ? { warnings: o.warnings } : {}),
    ...(o.fragments !== undefined && o.fragments.length > 0 ? { fragments: o.fragments } : {}),
  };
  return { answer, policies, plan };
}
