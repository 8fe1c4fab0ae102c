/**
 * Loading graph files with fragments in memory: a {@link FragmentSource} over a map of fragment texts, and
 * helpers that load or lint a graph text through it and render what came back.
 */
import type { FragmentRead, FragmentSource } from "../../src/graph/fragment-source.js";
import { formatIssue } from "../../src/graph/issue.js";
import { formatAdvisory, lintGraphFile } from "../../src/graph/lint.js";
import { type LoadResult, loadGraphFile } from "../../src/graph/load.js";

/** A source reading `fragments/NAME.yaml` from `files` (name → text); `reads` records each name read. */
export function memorySource(files: Readonly<Record<string, string>>): FragmentSource & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async read(name: string): Promise<FragmentRead> {
      reads.push(name);
      const location = `fragments/${name}.yaml`;
      return Object.hasOwn(files, name)
        ? { kind: "found", location, text: files[name]! }
        : { kind: "missing", location };
    },
  };
}

/** Loads graph text with `files` as its fragments. */
export function loadWith(graph: string, files: Readonly<Record<string, string>> = {}): Promise<LoadResult> {
  return loadGraphFile(graph, "g.yaml", memorySource(files));
}

/** The rendered load issues (`[]` when the graph loads). */
export async function issuesWith(
  graph: string,
  files: Readonly<Record<string, string>> = {},
): Promise<string[]> {
  const loaded = await loadWith(graph, files);
  return loaded.ok ? [] : loaded.issues.map(formatIssue);
}

/** The spliced spec's nodes (throws, with every issue, when the graph does not load). */
export async function splicedNodes(
  graph: string,
  files: Readonly<Record<string, string>> = {},
): Promise<Record<string, unknown>[]> {
  const loaded = await loadWith(graph, files);
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join("\n"));
  return (loaded.graph.spec.nodes ?? []) as Record<string, unknown>[];
}

/** `lint` of graph text with `files` as its fragments: rendered errors and advisories. */
export async function lintWith(
  graph: string,
  files: Readonly<Record<string, string>> = {},
): Promise<{ errors: string[]; advisories: string[] }> {
  const linted = await lintGraphFile(graph, "g.yaml", memorySource(files));
  return { errors: linted.errors.map(formatIssue), advisories: linted.advisories.map(formatAdvisory) };
}

/** A single-node fragment file named `name` whose node body is `body` (YAML lines, indented 2). */
export function nodeFragment(name: string, substitutions: readonly string[], body: string): string {
  return `fragment: ${name}\ndescription: the ${name} fragment\nsubstitutions: [${substitutions.join(", ")}]\nnode:\n${body}`;
}
