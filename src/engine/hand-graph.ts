/**
 * What `run` checks of a hand-written graph before the repository is touched (SPEC §3, §4): the graph
 * loads (every issue, or nothing runs), it declares nothing this version would not keep, the runtime
 * options fit, every `{{ inputs.NAME }}` it uses was given, and a `--concurrency` override is in range.
 */
import type { Graph } from "../graph/graph.js";
import { formatIssue, type GraphIssue } from "../graph/issue.js";
import { loadGraphText } from "../graph/load.js";
import { placeholdersIn } from "../graph/placeholders.js";
import type { Runtime } from "../policy/disclosure.js";
import { concurrencyProblem } from "./run-setup.js";
import { runtimeOptionsProblem, runtimeWarnings } from "./runtime-setup.js";

/** What the checks read: the graph file's text and source, and the `run` options it is checked against. */
export interface HandGraphOptions {
  readonly graphText: string;
  /** A path, or `base ref main: .github/graph.yml`: named in every message. */
  readonly graphSource: string;
  readonly inputs: Readonly<Record<string, string>>;
  readonly verifyTimeoutCeilingMs?: number;
  readonly runtime: Runtime;
  readonly model?: string;
  readonly codexConfig?: readonly string[];
  readonly concurrency?: number;
}

/** A graph that passed every check, with what the runtime will not enforce of it (one sentence each). */
export type HandGraphResult =
  | { readonly kind: "loaded"; readonly graph: Graph; readonly warnings: readonly string[] }
  | { readonly kind: "usage_error"; readonly message: string }
  /** The graph did not load: every issue, each rendered `invalid graph: node "ID": REASON`. */
  | { readonly kind: "invalid_graph"; readonly issues: readonly GraphIssue[]; readonly message: string };

/** Loads the hand-written graph and makes every check that needs no repository. Spends and writes nothing. */
export function loadHandWrittenGraph(o: HandGraphOptions): HandGraphResult {
  const loaded = loadGraphText(o.graphText, o.graphSource, {
    ...(o.verifyTimeoutCeilingMs !== undefined ? { verifyTimeoutCeilingMs: o.verifyTimeoutCeilingMs } : {}),
  });
  if (!loaded.ok) {
    return {
      kind: "invalid_graph",
      issues: loaded.issues,
      message: `${o.graphSource} does not load (${loaded.issues.length} ${loaded.issues.length === 1 ? "issue" : "issues"}):\n${loaded.issues.map(formatIssue).join("\n")}`,
    };
  }
  const graph = loaded.graph;
  const unkept = completionRefusal(graph, o.graphSource);
  if (unkept !== null) return { kind: "usage_error", message: unkept };
  const runtimeProblem = runtimeOptionsProblem(o.runtime, o);
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const warnings = runtimeWarnings(o.runtime, graph);
  const missing = missingInputs(graph, o.inputs);
  if (missing.length > 0) {
    return {
      kind: "usage_error",
      message: `${o.graphSource} uses ${missing.map((n) => `{{ inputs.${n} }}`).join(", ")} but no value was given: pass ${missing.map((n) => `--input ${n}=VALUE`).join(" ")} (action: input \`inputs\`). Nothing was run.`,
    };
  }
  const concurrencyWrong = concurrencyProblem(o.concurrency);
  if (concurrencyWrong !== null) return { kind: "usage_error", message: concurrencyWrong };
  return { kind: "loaded", graph, warnings };
}

/**
 * The completion gate (SPEC §7) has its own issue and is not run yet: a node declaring one would pass
 * without it — a promise the engine would not keep. Refused before anything runs.
 *
 * @returns the usage-error message naming the nodes, or `null` when none declares `completion`.
 */
function completionRefusal(graph: Graph, graphSource: string): string | null {
  const withCompletion = graph.nodes.filter((n) => n.completion !== null).map((n) => `"${n.id}"`);
  if (withCompletion.length === 0) return null;
  return `${graphSource}: node${withCompletion.length === 1 ? "" : "s"} ${withCompletion.join(", ")} declare${withCompletion.length === 1 ? "s" : ""} completion (SPEC §7), which this version does not run yet; a node would pass without its completion gate. Remove completion (or put the check in success_check.verify). Nothing was run.`;
}

/** `{{ inputs.NAME }}` names used anywhere in the graph (prompt, cwd, verify command and cwd) and not given. */
export function missingInputs(graph: Graph, inputs: Readonly<Record<string, string>>): string[] {
  const missing = new Set<string>();
  for (const node of graph.nodes) {
    const templates = [
      node.prompt,
      node.cwd ?? "",
      node.success_check.verify?.command ?? "",
      node.success_check.verify?.cwd ?? "",
    ];
    for (const template of templates) {
      for (const ref of placeholdersIn(template)) {
        if (ref.namespace === "inputs" && ref.problem === null && !Object.hasOwn(inputs, ref.name))
          missing.add(ref.name);
      }
    }
  }
  return [...missing];
}
