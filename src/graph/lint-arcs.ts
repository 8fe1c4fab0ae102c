/**
 * Advisories about where a re-run or a resumed session reaches (Go `graph.LintFeedbackReach` and
 * `handoff.LintSessions`; research/oh-my-graph.md §2.10). Each is advice: the graph loads and runs.
 *
 * - `feedback-reach`: a feedback declarer fanning in from a producer outside its arc's body and not
 *   upstream of the rerun target (Go issue #118): a defect it finds in that producer's output can never be
 *   repaired — each round re-judges an unchanged artifact. Gate parents are skipped (a gate may not sit in
 *   a body); so is a parent upstream of the target (its output already flows into the body). When another
 *   rerun target's body covers every such producer and the graph still validates with it, the advice
 *   names it (the smallest body, then the first declared); the planner's version of this rule refuses a
 *   plan exactly then (`feedbackReachRefusals`).
 * - `session-across-cwd`: `handoff: session` whose parent runs in another `cwd` (same worktree): claude keeps
 *   a conversation under the folder it ran in, so the resume finds nothing there.
 * - `session-retry-cold`: `handoff: session` with retries: a retried attempt starts a fresh session, not the
 *   parent's (the row says "retry started fresh — parent session not resumed").
 */
import type { Graph, GraphNode } from "./graph.js";
import type { GraphSpec } from "./schema.js";
import { ancestorsOf, feedbackBodyOf, type TopologyNode } from "./topology.js";
import { validateGraph } from "./validate.js";

/** One `feedback-reach` finding: who judges, what it re-runs, whose output it cannot repair, the fix. */
export interface FeedbackReach {
  readonly declarer: string;
  readonly rerun: string;
  readonly producer: string;
  /** A rerun target whose body covers every such producer and still validates; `null`: none does. */
  readonly suggestion: string | null;
  readonly reason: string;
}

/** Every `feedback-reach` finding of `graph`, by declarer in declaration order, then by parent. */
export function feedbackReach(graph: Graph): FeedbackReach[] {
  const topology = topologyOf(graph);
  const found: FeedbackReach[] = [];
  for (const node of graph.nodes) {
    const arc = node.feedback;
    if (arc === null || arc.body.length === 0) continue;
    const upstream = ancestorsOf(topology, arc.rerun);
    const outside = node.depends_on.filter(
      (parent) =>
        !arc.body.includes(parent) &&
        !upstream.has(parent) &&
        graph.nodes_by_id.get(parent) !== undefined &&
        graph.nodes_by_id.get(parent)?.type !== "gate",
    );
    if (outside.length === 0) continue;
    const suggestion = coveringTarget(graph, topology, node, outside);
    const fix =
      suggestion === null
        ? "no single rerun target covers every producer and still validates, so the fix is structural: put " +
          "the producers on one path below a shared ancestor, or give each its own reviewer"
        : `consider rerun: ${suggestion} — its body covers every producer this node depends on and still validates`;
    for (const producer of outside) {
      found.push({
        declarer: node.id,
        rerun: arc.rerun,
        producer,
        suggestion,
        reason:
          `feedback re-runs ${JSON.stringify(arc.rerun)}, whose body {${arc.body.join(", ")}} leaves out producer ` +
          `${JSON.stringify(producer)}, which is not upstream of the arc either: a defect this node finds in ` +
          `${JSON.stringify(producer)}'s output cannot be repaired — each round re-judges the same artifact ` +
          `until the rounds are spent (this reads depends_on, not what the prompt judges: ignore it if ` +
          `${JSON.stringify(producer)} is only stable context); ${fix}`,
      });
    }
  }
  return found;
}

/** Kinds of {@link sessionAdvice}. */
export type SessionAdviceKind = "session-across-cwd" | "session-retry-cold";

/** `handoff: session` advice for `node` (worktree mismatches are `worktreeAdvice`'s). */
export function sessionAdvice(
  graph: Graph,
  node: GraphNode,
): { readonly kind: SessionAdviceKind; readonly reason: string }[] {
  if (node.type === "gate" || node.handoff !== "session") return [];
  const found: { kind: SessionAdviceKind; reason: string }[] = [];
  const parent = graph.nodes_by_id.get(node.depends_on[0] ?? "");
  const cwd = (n: GraphNode): string => (n.cwd ?? "").trim();
  if (parent !== undefined && parent.worktree === node.worktree && cwd(parent) !== cwd(node)) {
    const place = (n: GraphNode): string =>
      cwd(n) === "" ? "the run's working directory" : `cwd ${JSON.stringify(cwd(n))}`;
    found.push({
      kind: "session-across-cwd",
      reason:
        `has handoff: session, but runs in ${place(node)} while its parent ${JSON.stringify(parent.id)} ran in ` +
        `${place(parent)}: claude finds a conversation to resume only under the folder it ran in, so the resume ` +
        "fails or starts cold; give both the same cwd, or use handoff: artifact",
    });
  }
  if (node.retry.max > 0 && node.retry.on.length > 0) {
    found.push({
      kind: "session-retry-cold",
      reason:
        "has handoff: session and retry: a retried attempt starts a fresh session, not its parent's, so it " +
        "sees only its own prompt (and the failed reply it quotes); make the prompt work cold, or drop retry",
    });
  }
  return found;
}

function topologyOf(graph: Graph): TopologyNode[] {
  return graph.nodes.map(({ id, depends_on, feedback }) => ({
    id,
    depends_on,
    ...(feedback !== null ? { feedback: { rerun: feedback.rerun } } : {}),
  }));
}

/** The rerun target whose body covers the current one and `producers`, and which still validates. */
function coveringTarget(
  graph: Graph,
  topology: readonly TopologyNode[],
  declarer: GraphNode,
  producers: readonly string[],
): string | null {
  const current = declarer.feedback?.rerun ?? "";
  const order = graph.nodes.map((n) => n.id);
  let best: { id: string; size: number } | null = null;
  for (const candidate of order.filter((id) => ancestorsOf(topology, declarer.id).has(id))) {
    const aimed = topology.map((n) => (n.id === declarer.id ? { ...n, feedback: { rerun: candidate } } : n));
    const body = feedbackBodyOf(aimed, declarer.id);
    if (!body.includes(current) || !producers.every((p) => body.includes(p))) continue;
    if (best !== null && body.length >= best.size) continue;
    if (validateGraph(withRerun(graph.spec, declarer.id, candidate)).length > 0) continue;
    best = { id: candidate, size: body.length };
  }
  return best?.id ?? null;
}

function withRerun(spec: GraphSpec, declarer: string, rerun: string): GraphSpec {
  return {
    ...spec,
    nodes: (spec.nodes ?? []).map((n) =>
      n.id === declarer && n.feedback !== undefined ? { ...n, feedback: { ...n.feedback, rerun } } : n,
    ),
  };
}
