/**
 * Semantic validation of a parsed graph (SPEC §3 "Validation errors"): every rule runs, every issue is
 * returned (`lint` prints them all; `run` refuses on any). Rules live in the `validate-*.ts` files by
 * subject; this file orders them and owns the graph-level rules.
 */
import type { GraphIssue } from "./issue.js";
import { GRAPH_DEFAULTS, type GraphSpec } from "./schema.js";
import { dependencyIssues, idIssues, sessionHandoffIssues } from "./validate-edges.js";
import { feedbackIssues } from "./validate-feedback.js";
import { nodeFieldIssues } from "./validate-node.js";
import { placeholderIssues } from "./validate-placeholders.js";

export { formatIssue, type GraphIssue } from "./issue.js";

/**
 * Knobs of validation. `verifyTimeoutCeilingMs`: the largest `success_check.verify.timeout` allowed, in
 * milliseconds (SPEC §3: "ceiling configurable, default 10m"; must be positive).
 */
export interface ValidateOptions {
  readonly verifyTimeoutCeilingMs?: number;
}

// What `{{ inputs.NAME }}` can reference (placeholders.ts REF), so a declared input it cannot name is caught.
const INPUT_NAME = /^[A-Za-z0-9._/-]+$/;

/**
 * Every issue with `spec`, graph-level first, then by rule family in declaration order of nodes.
 * An empty array means the graph is valid. Never throws.
 */
export function validateGraph(spec: GraphSpec, options: ValidateOptions = {}): GraphIssue[] {
  const nodes = spec.nodes ?? [];
  const limits = {
    verifyTimeoutCeilingMs: options.verifyTimeoutCeilingMs ?? GRAPH_DEFAULTS.verifyTimeoutCeilingMs,
  };
  return [
    ...graphLevelIssues(spec),
    ...idIssues(nodes),
    ...dependencyIssues(nodes),
    ...sessionHandoffIssues(nodes),
    ...nodes.flatMap((node, index) => nodeFieldIssues(node, index, limits)),
    ...feedbackIssues(nodes),
    ...placeholderIssues(nodes),
  ];
}

function graphLevelIssues(spec: GraphSpec): GraphIssue[] {
  const reasons: string[] = [];
  const cap = GRAPH_DEFAULTS.concurrencyCap;
  if (spec.concurrency !== undefined && (spec.concurrency < 1 || spec.concurrency > cap)) {
    reasons.push(`concurrency must be from 1 to ${cap} (got ${spec.concurrency})`);
  }
  if ((spec.nodes ?? []).length === 0) reasons.push("graph has no nodes");
  const seen = new Set<string>();
  for (const input of spec.inputs ?? []) {
    if (!INPUT_NAME.test(input)) {
      reasons.push(
        `input name ${JSON.stringify(input)} cannot be referenced as {{ inputs.NAME }}: ` +
          'use letters, digits, ".", "_", "-" or "/"',
      );
    } else if (seen.has(input)) {
      reasons.push(`input ${JSON.stringify(input)} is listed more than once`);
    }
    seen.add(input);
  }
  return reasons.map((reason) => ({ nodeId: null, reason }));
}
