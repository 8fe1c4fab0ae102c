/**
 * Small builders for graph tests: an agent node with a prompt, a graph around nodes, and the formatted
 * issues a graph loads with (empty when it loads).
 */
import { type LoadOptions, loadGraphObject } from "../../src/graph/load.js";
import { formatIssue } from "../../src/graph/validate.js";

/** A JSON-ish node as a graph file would hold it. */
export type RawNode = Record<string, unknown>;

/** An agent node with a non-empty prompt, plus `extra` fields. */
export function agent(id: string, extra: RawNode = {}): RawNode {
  return { id, prompt: `do ${id}`, ...extra };
}

/** A gate node, plus `extra` fields. */
export function gate(id: string, extra: RawNode = {}): RawNode {
  return { id, type: "gate", ...extra };
}

/** A graph file holding `nodes`. */
export function graphOf(...nodes: RawNode[]): Record<string, unknown> {
  return { name: "test", nodes };
}

/** Every issue `graph` loads with, formatted (`invalid graph: …`); `[]` when it loads. */
export function issuesOf(graph: unknown, options: LoadOptions = {}): string[] {
  const loaded = loadGraphObject(graph, "test.yaml", options);
  return loaded.ok ? [] : loaded.issues.map(formatIssue);
}
