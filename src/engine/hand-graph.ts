/**
 * What `run` checks of a hand-written graph before the repository is touched (SPEC §3, §4): the graph
 * loads (every issue, or nothing runs), it declares nothing this version would not keep, the runtime
 * options fit, the subagents it names are read from the trusted tree and widen no node's tools, every `{{ inputs.NAME }}` it uses was given, and a `--concurrency` override is in range.
 */
import { cwdIssues } from "../graph/cwd-rules.js";
import type { Graph } from "../graph/graph.js";
import { formatIssue, type GraphIssue } from "../graph/issue.js";
import { type FragmentSource, formatSplice, loadGraphFile, loadGraphText } from "../graph/load.js";
import { interpolate, placeholdersIn } from "../graph/placeholders.js";
import type { AgentSource } from "../policy/agent-definition.js";
import type { Runtime } from "../policy/disclosure.js";
import { type GraphAgents, resolveGraphAgents } from "./hand-agents.js";
import { concurrencyProblem } from "./run-setup.js";
import { runtimeGraphProblem, runtimeOptionsProblem, runtimeWarnings } from "./runtime-setup.js";

/** What the checks read: the graph file's text and source, and the `run` options it is checked against. */
export interface HandGraphOptions {
  readonly graphText: string;
  /** A path, or `base ref main: .github/graph.yml`: named in every message. */
  readonly graphSource: string;
  /**
   * Where the graph file's `use:` fragments are read (the CLI: `fragments/NAME.yaml` beside the file; the
   * action: the same path on the base ref). Absent: the text is loaded as already-spliced data, and a
   * `use:` is refused.
   */
  readonly fragments?: FragmentSource;
  /**
   * Where `agent: NAME` definitions (`.claude/agents/NAME.md`) are read: the CLI's committed HEAD, the
   * action's base ref (`hand-agents.ts`). Absent: a graph naming a subagent is refused.
   */
  readonly agents?: AgentSource;
  readonly inputs: Readonly<Record<string, string>>;
  readonly verifyTimeoutCeilingMs?: number;
  readonly runtime: Runtime;
  readonly model?: string;
  readonly codexConfig?: readonly string[];
  readonly concurrency?: number;
  /**
   * Present when the action swapped the pull request's agent configuration for the base branch's in the
   * checkout (`EngineRunBase.indexOverlay`): a managed worktree would check the pull request's copies out
   * again, so `worktree` is refused then ({@link worktreeRefusal}).
   */
  readonly indexOverlay?: unknown;
}

/** A graph that passed every check, with what the runtime will not enforce of it (one sentence each). */
export type HandGraphResult =
  | {
      readonly kind: "loaded";
      readonly graph: Graph;
      readonly warnings: readonly string[];
      /** The splice disclosure, one `fragment: …` line per resolved `use:` (empty: no fragment). */
      readonly fragments: readonly string[];
      /** The subagents its nodes name, read from the trusted tree (empty when none does). */
      readonly agents: GraphAgents;
    }
  | { readonly kind: "usage_error"; readonly message: string }
  /** The graph did not load: every issue, each rendered `invalid graph: node "ID": REASON`. */
  | { readonly kind: "invalid_graph"; readonly issues: readonly GraphIssue[]; readonly message: string };

/** Loads the hand-written graph and makes every check that needs no repository. Spends and writes nothing. */
export async function loadHandWrittenGraph(o: HandGraphOptions): Promise<HandGraphResult> {
  const ceiling =
    o.verifyTimeoutCeilingMs !== undefined ? { verifyTimeoutCeilingMs: o.verifyTimeoutCeilingMs } : {};
  const loaded =
    o.fragments !== undefined
      ? await loadGraphFile(o.graphText, o.graphSource, o.fragments, ceiling)
      : loadGraphText(o.graphText, o.graphSource, ceiling);
  if (!loaded.ok) {
    return {
      kind: "invalid_graph",
      issues: loaded.issues,
      message: `${o.graphSource} does not load (${loaded.issues.length} ${loaded.issues.length === 1 ? "issue" : "issues"}):\n${loaded.issues.map(formatIssue).join("\n")}`,
    };
  }
  const graph = loaded.graph;
  // What this version would not keep, then the runtime's own refusals (agent on codex) before reading agents.
  const unkept =
    worktreeRefusal(graph, o.graphSource, o.indexOverlay !== undefined) ??
    runtimeOptionsProblem(o.runtime, o) ??
    runtimeGraphProblem(o.runtime, graph);
  if (unkept !== null) return { kind: "usage_error", message: unkept };
  const agents = await resolveGraphAgents(graph, o.agents, o.graphSource);
  if (!agents.ok) return { kind: "usage_error", message: agents.message };
  const warnings = runtimeWarnings(o.runtime, graph);
  const missing = missingInputs(graph, o.inputs);
  if (missing.length > 0) {
    return {
      kind: "usage_error",
      message: `${o.graphSource} uses ${missing.map((n) => `{{ inputs.${n} }}`).join(", ")} but no value was given: pass ${missing.map((n) => `--input ${n}=VALUE`).join(" ")} (action: input \`inputs\`). Nothing was run.`,
    };
  }
  const placement = inputFilledCwdIssues(graph, o.inputs);
  if (placement.length > 0) {
    return {
      kind: "usage_error",
      message: `${o.graphSource}, with the inputs given:\n${placement.map(formatIssue).join("\n")}\nNothing was run.`,
    };
  }
  const concurrencyWrong = concurrencyProblem(o.concurrency);
  if (concurrencyWrong !== null) return { kind: "usage_error", message: concurrencyWrong };
  const fragments = "splices" in loaded ? loaded.splices.map(formatSplice) : [];
  return { kind: "loaded", graph, warnings, fragments, agents: agents.agents };
}

/**
 * The refusal of a graph declaring `worktree` where the run swapped the pull request's agent configuration
 * for the base branch's (SPEC §9; the action): a managed worktree is a fresh checkout of the starting
 * commit, so it would hold the pull request's `.claude/`, `CLAUDE.md`, `.mcp.json` … that the swap keeps
 * from the model in the main working tree. `null` when no node declares one, or the run swapped nothing
 * (the CLI: the configuration is the user's own).
 */
function worktreeRefusal(graph: Graph, source: string, configSwapped: boolean): string | null {
  if (!configSwapped) return null;
  const withWorktree = graph.nodes.filter((n) => n.worktree !== null).map((n) => `"${n.id}"`);
  if (withWorktree.length === 0) return null;
  const one = withWorktree.length === 1;
  return `${source}: node${one ? "" : "s"} ${withWorktree.join(", ")} declare${one ? "s" : ""} worktree, which this version does not run in a pull request's check: a managed worktree is a fresh checkout of the pull request's commit, holding the pull request's own agent configuration (.claude/, CLAUDE.md, .mcp.json, AGENTS.md), which the action keeps from the model by putting the base branch's in its place in the main checkout only. Remove worktree (or run the graph locally with the CLI). Nothing was run.`;
}

/**
 * `lint`'s `cwd` errors (`cwd-rules.ts`: absolute, or climbing out of the working directory) for the `cwd`
 * and `success_check.verify.cwd` fields that only `{{ inputs.NAME }}` placeholders fill, filled with the
 * inputs given: lint cannot judge them, and the run would otherwise fail such a node only once it is
 * reached, after the nodes before it were paid for. A field with an artifact or feedback placeholder is
 * still judged when the node runs.
 */
function inputFilledCwdIssues(graph: Graph, inputs: Readonly<Record<string, string>>): GraphIssue[] {
  const filled = (field: string | null | undefined): string | null => {
    if (field === null || field === undefined || field === "") return null;
    const refs = placeholdersIn(field);
    if (refs.length === 0 || refs.some((r) => r.namespace !== "inputs" || r.problem !== null)) return field;
    const result = interpolate(field, {
      inputs,
      artifactPath: () => undefined,
      readArtifact: () => undefined,
      feedback: () => undefined,
    });
    return result.ok ? result.text : field;
  };
  const templated = graph.nodes.filter(
    (n) =>
      placeholdersIn(n.cwd ?? "").length > 0 || placeholdersIn(n.success_check.verify?.cwd ?? "").length > 0,
  );
  if (templated.length === 0) return [];
  return cwdIssues(
    templated.map((node) => ({
      index: graph.nodes.indexOf(node),
      id: node.id,
      gate: node.type === "gate",
      cwd: filled(node.cwd),
      verifyCwd: filled(node.success_check.verify?.cwd),
    })),
  );
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
