/**
 * Rules about ids and `depends_on` (SPEC §3 validation list): empty, duplicate and unsafe ids, unknown
 * and self dependencies, cycles (each named), and session handoff's single non-gate parent. Each check
 * tolerates the others' violations: an unknown parent simply contributes no edge.
 */
import { type GraphIssue, nodeIssue } from "./issue.js";
import type { NodeSpec } from "./schema.js";
import { cyclesOf } from "./topology.js";

/**
 * SPEC §3: an id a person (or a planner) writes is one safe path element — it becomes a file name and a
 * URL parameter, so a separator or a leading dot (`../x`) must never get through.
 */
export const NODE_ID_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Every id a loaded graph may hold: segments joined by `/`, the form fragment splicing mints
 * (`USING/INNER`, nested `TOP/MID/INNER`; Go ADR 0027, 0029). Where an id becomes a file name, `/` is
 * written `~` (`file-name.ts`). Validation accepts the joined form as a backstop — it cannot tell a spliced
 * graph from a run's `graph.json` — while the splicer refuses a `/` written in a graph file and the
 * planned-node rules refuse one from a planner.
 */
export const NODE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Empty, duplicate and unsafe ids. */
export function idIssues(nodes: readonly NodeSpec[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const firstIndex = new Map<string, number>();
  nodes.forEach((node, index) => {
    if (node.id.trim() === "") {
      issues.push({ nodeId: null, reason: `nodes[${index}] has an empty id` });
      return;
    }
    const first = firstIndex.get(node.id);
    if (first !== undefined) {
      issues.push({ nodeId: node.id, reason: `duplicate node id (nodes[${first}] and nodes[${index}])` });
    } else {
      firstIndex.set(node.id, index);
    }
    if (!NODE_ID_PATTERN.test(node.id)) {
      issues.push({
        nodeId: node.id,
        reason:
          `node id ${JSON.stringify(node.id)} must be one path element: letters, digits, ".", "_" or "-", ` +
          "starting with a letter or digit",
      });
    }
  });
  return issues;
}

/** Unknown, repeated and self dependencies, then every dependency cycle. */
export function dependencyIssues(nodes: readonly NodeSpec[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const ids = new Set(nodes.map((node) => node.id));
  nodes.forEach((node, index) => {
    const seen = new Set<string>();
    for (const parent of node.depends_on ?? []) {
      if (seen.has(parent)) {
        issues.push(nodeIssue(node, index, `depends_on lists ${JSON.stringify(parent)} more than once`));
        continue;
      }
      seen.add(parent);
      if (parent === node.id) issues.push(nodeIssue(node, index, "node depends on itself"));
      else if (!ids.has(parent))
        issues.push(nodeIssue(node, index, `depends_on unknown node ${JSON.stringify(parent)}`));
    }
  });
  for (const cycle of cyclesOf(nodes)) {
    issues.push({ nodeId: cycle[0] ?? null, reason: `dependency cycle: ${cycle.join(" -> ")}` });
  }
  return issues;
}

/**
 * SPEC §3: `handoff: session` resumes its parent's session, so it needs exactly one parent, and that
 * parent must not be a gate (a gate records no session).
 */
export function sessionHandoffIssues(nodes: readonly NodeSpec[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const types = new Map(nodes.map((node) => [node.id, node.type ?? "agent"] as const));
  nodes.forEach((node, index) => {
    if (node.handoff !== "session" || node.type === "gate") return;
    const parents = node.depends_on ?? [];
    const [parent] = parents;
    if (parents.length !== 1 || parent === undefined) {
      issues.push(
        nodeIssue(
          node,
          index,
          `handoff: session needs exactly one parent whose session it continues (has ${parents.length}); ` +
            "use handoff: artifact for a root node or a fan-in",
        ),
      );
    } else if (types.get(parent) === "gate") {
      issues.push(
        nodeIssue(
          node,
          index,
          `handoff: session with gate parent ${JSON.stringify(parent)} — a gate records no session to continue; ` +
            "use handoff: artifact",
        ),
      );
    }
  });
  return issues;
}
