/**
 * Feedback-arc rules (SPEC §3; Go ADR 0010). A `feedback: {rerun, max}` arc re-runs the path from `rerun`
 * up to its declarer when the declarer fails on judgment; each rule below stops a loop that could not
 * converge, race, or replay a person's decision:
 * 1. `rerun` names a proper `depends_on` ancestor (no self-loops, forward or cross-branch arcs);
 * 2. `max` is declared and ≥ 1 (an unbounded paid loop must be unrepresentable);
 * 3. no side exits: only the declarer's own dependents may sit outside the body and depend on it;
 * 4. no gate in a body (a later round would silently re-approve work nobody saw);
 * 5. a body node with `handoff: session` has its parent in the body;
 * 6. bodies are disjoint.
 */
import { type GraphIssue, nodeIssue } from "./issue.js";
import type { NodeSpec } from "./schema.js";
import { ancestorsOf, dependentsOf, feedbackBodyOf } from "./topology.js";

/** Every feedback-arc issue, attributed to the declaring node. */
export function feedbackIssues(nodes: readonly NodeSpec[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const byId = new Map(nodes.map((node) => [node.id, node] as const));
  const bodyOwner = new Map<string, string>();

  nodes.forEach((node, index) => {
    const arc = node.feedback;
    if (arc === undefined || node.type === "gate") return; // a gate's feedback is refused as a gate field
    const report = (reason: string): void => {
      issues.push(nodeIssue(node, index, reason));
    };

    if (arc.max === undefined || arc.max < 1) {
      report(
        `feedback.max must be declared and >= 1 (got ${arc.max ?? "nothing"}) — a feedback loop has no default bound`,
      );
    }
    const target = arc.rerun;
    if (target === undefined || target.trim() === "") {
      report("feedback needs rerun: the depends_on ancestor the re-run starts from");
      return;
    }
    if (!byId.has(target)) {
      report(`feedback.rerun names unknown node ${JSON.stringify(target)}`);
      return;
    }
    if (target === node.id || !ancestorsOf(nodes, node.id).has(target)) {
      report(
        `feedback.rerun ${JSON.stringify(target)} is not a proper depends_on ancestor of this node — ` +
          "a feedback arc points strictly backward along an existing depends_on path",
      );
      return;
    }

    const body = feedbackBodyOf(nodes, node.id);
    const inBody = new Set(body);
    for (const member of body) {
      const owner = bodyOwner.get(member);
      if (owner !== undefined) {
        report(
          `feedback bodies must be disjoint: ${JSON.stringify(member)} is already in the body of ${JSON.stringify(owner)}'s arc`,
        );
        continue;
      }
      bodyOwner.set(member, node.id);
    }
    for (const member of body) {
      const spec = byId.get(member);
      if (spec?.type === "gate") {
        report(
          `feedback body contains gate ${JSON.stringify(member)} — a later round would replay an approval nobody gave for it`,
        );
      }
      const parents = spec?.depends_on ?? [];
      const [parent] = parents;
      if (
        spec?.handoff === "session" &&
        parents.length === 1 &&
        parent !== undefined &&
        !inBody.has(parent)
      ) {
        report(
          `feedback body node ${JSON.stringify(member)} has handoff: session with parent ${JSON.stringify(parent)} ` +
            "outside the body — a later round would continue a session an earlier round already continued",
        );
      }
      // The declarer's own dependents legitimately sit outside: they consume its settled result.
      if (member === node.id) continue;
      for (const dependent of dependentsOf(nodes, member)) {
        if (!inBody.has(dependent)) {
          report(
            `feedback body has a side exit: ${JSON.stringify(dependent)} depends on body node ${JSON.stringify(member)} ` +
              `but is outside the loop, so it would see whichever round wrote last; make it depend on ${JSON.stringify(node.id)} instead`,
          );
        }
      }
    }
  });
  return issues;
}
