/**
 * Placeholder rules knowable from the file alone (SPEC §3 "Placeholders"; Go `validateFeedbackPlaceholders`):
 * - a malformed token or a bad filter can never resolve;
 * - `{{ artifacts.ID }}` must name a proper ancestor that is not a gate — any other node's output does not
 *   exist yet when this node starts (or ever, for a gate), so the node would fail at run time after
 *   earlier nodes were paid for;
 * - `{{ feedback.ID }}` must name a node that declares an arc, and sit inside that arc's body — elsewhere it
 *   would silently be `""` forever.
 * Inputs are not checked here: their values arrive with the run (`lint` checks them against given inputs).
 */
import { type GraphIssue, nodeIssue } from "./issue.js";
import { placeholdersIn } from "./placeholders.js";
import type { NodeSpec } from "./schema.js";
import { feedbackBodyOf, hasAncestor, indexById } from "./topology.js";

/** The interpolated fields of a node, as `[field path, template]` pairs, skipping absent ones. */
export function templatedFields(node: NodeSpec): [string, string][] {
  const fields: [string, string | undefined][] = [
    ["prompt", node.prompt],
    ["cwd", node.cwd],
    ["success_check.verify.command", node.success_check?.verify?.command],
    ["success_check.verify.cwd", node.success_check?.verify?.cwd],
    ["completion.verify.command", node.completion?.verify?.command],
    ["description", node.description],
  ];
  return fields.filter((field): field is [string, string] => field[1] !== undefined);
}

/** Every placeholder issue in every node's interpolated fields. */
export function placeholderIssues(nodes: readonly NodeSpec[]): GraphIssue[] {
  const issues: GraphIssue[] = [];
  const byId = new Map(nodes.map((node) => [node.id, node] as const));
  const firstById = indexById(nodes);
  const bodies = new Map<string, Set<string>>();
  for (const node of nodes) {
    if (node.feedback !== undefined) bodies.set(node.id, new Set(feedbackBodyOf(nodes, node.id)));
  }

  nodes.forEach((node, index) => {
    const fields = templatedFields(node);
    if (fields.length === 0) return;
    for (const [field, template] of fields) {
      for (const ref of placeholdersIn(template)) {
        const at = `${field}: ${ref.token}`;
        const report = (why: string): void => {
          issues.push(nodeIssue(node, index, `${at} ${why}`));
        };
        if (ref.problem !== null) {
          report(`cannot resolve: ${ref.problem}`);
          continue;
        }
        if (ref.namespace === "artifacts") {
          const producer = byId.get(ref.name);
          if (producer === undefined) report(`names unknown node ${JSON.stringify(ref.name)}`);
          else if (producer.type === "gate")
            report(`names gate ${JSON.stringify(ref.name)}, which saves no output`);
          else if (ref.name === node.id || !hasAncestor(firstById, node.id, ref.name)) {
            report(
              `names ${JSON.stringify(ref.name)}, which is not an ancestor of this node — its output may not exist ` +
                "when this node starts; add it to depends_on (directly or through a parent)",
            );
          }
        } else if (ref.namespace === "feedback") {
          const body = bodies.get(ref.name);
          if (body === undefined) {
            report(
              `names ${JSON.stringify(ref.name)}, which declares no feedback arc — it could never resolve`,
            );
          } else if (!body.has(node.id)) {
            report(
              `is only meaningful inside the body of ${JSON.stringify(ref.name)}'s feedback arc — here it would ` +
                "always be empty",
            );
          }
        }
      }
    }
  });
  return issues;
}
