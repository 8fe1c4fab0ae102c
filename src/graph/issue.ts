/**
 * One reason a graph is invalid, and its one-line rendering (SPEC §3: "Validation errors read
 * `invalid graph: node "ID": REASON` and `lint` prints all of them, not just the first").
 */

/**
 * A validation finding. `nodeId` is the offending node's id, or `null` for a graph-level finding (and for
 * a node whose id is empty, in which case `reason` locates it as `nodes[INDEX]`).
 */
export interface GraphIssue {
  readonly nodeId: string | null;
  readonly reason: string;
}

/**
 * Renders an issue: `invalid graph: node "build": depends_on unknown node "tset"`, or
 * `invalid graph: REASON` when `nodeId` is null. The id is JSON-quoted, so odd characters stay visible.
 */
export function formatIssue(issue: GraphIssue): string {
  return issue.nodeId === null
    ? `invalid graph: ${issue.reason}`
    : `invalid graph: node ${JSON.stringify(issue.nodeId)}: ${issue.reason}`;
}

/**
 * An issue about the node at `index` of `nodes`: attributed to its id, or — when the id is empty, so
 * naming it would say nothing — to the graph with the reason prefixed `nodes[INDEX]: `.
 */
export function nodeIssue(node: { readonly id: string }, index: number, reason: string): GraphIssue {
  return node.id.trim() === ""
    ? { nodeId: null, reason: `nodes[${index}]: ${reason}` }
    : { nodeId: node.id, reason };
}
