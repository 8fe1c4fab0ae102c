/**
 * Loading a graph (SPEC §3): text (YAML, or JSON — JSON is YAML) or an already-parsed object (the
 * planner's JSON, a run's `graph.json`) → fragment splicing (graph files only) → shape check → every
 * semantic rule → a runnable {@link Graph}, or every issue found. Nothing here throws on bad input; a
 * refusal is data.
 *
 * Two ways in, by what the data is:
 * - a graph FILE someone wrote (`lint`, `run`, `resolve`): {@link loadGraphFile}, which reads the
 *   fragments its `use:` nodes cite through a {@link FragmentSource} and loads the spliced graph. Ids
 *   written in the file may not contain `/` (only the splicer mints one);
 * - graph DATA (`loadGraphText` / `loadGraphObject` without `fragments`): a planner's reply or a run's
 *   `graph.json`, which is already spliced — `use:` is refused there, and a spliced id (`lane/dev`) loads.
 */

import { type FragmentLibrary, type FragmentSource, gatherFragments } from "./fragment-source.js";
import { buildGraph, type Graph } from "./graph.js";
import { readGraphText } from "./graph-text.js";
import type { GraphIssue } from "./issue.js";
import { isRecord, withoutNulls } from "./plain-data.js";
import { type FragmentNote, type FragmentSplice, resolveFragments } from "./resolve-fragments.js";
import { salvageSpec } from "./salvage.js";
import { GraphSpecSchema } from "./schema.js";
import { schemaIssues } from "./schema-issues.js";
import { type ValidateOptions, validateGraph } from "./validate.js";

export { type GraphData, readGraphText } from "./graph-text.js";

/**
 * Load options: {@link ValidateOptions} (`verifyTimeoutCeilingMs`, default 10m), and `fragments`, the
 * fragment files a graph file's `use:` nodes may cite, already read ({@link gatherFragments}). With
 * `fragments` the data is judged as a graph file (spliced first, authored `/` refused); without, as
 * already-spliced data.
 */
export interface LoadOptions extends ValidateOptions {
  readonly fragments?: FragmentLibrary;
}

/**
 * A loaded graph, or every issue that stops it loading: YAML syntax errors, fragment errors, shape errors
 * (unknown or mistyped fields) and semantic errors together, in that order, without duplicates. Render
 * each with `formatIssue`.
 */
export type LoadResult =
  | {
      readonly ok: true;
      readonly graph: Graph;
      /** Every `use:` resolved, for the splice disclosure ({@link formatSplice}); `[]` without fragments. */
      readonly splices: readonly FragmentSplice[];
    }
  | { readonly ok: false; readonly issues: readonly GraphIssue[] };

/**
 * Parses `text` as one YAML document (JSON included) and loads it.
 *
 * @param source where the text came from (a path, `"planner"`), used in syntax-error messages and kept
 *   on the graph.
 */
export function loadGraphText(text: string, source: string, options: LoadOptions = {}): LoadResult {
  const read = readGraphText(text, source);
  return read.ok ? loadGraphObject(read.data, source, options) : read;
}

/**
 * Loads a graph file's text with the fragments its `use:` nodes cite, read from `fragments` (the CLI:
 * `fragments/NAME.yaml` beside the file; the action: the same path on the base ref). The graph returned
 * is the spliced one: its `spec` is what `resolve` prints and `graph.json` snapshots. Rejects only if the
 * source itself rejects (a source reports a missing or unreadable file as data, not by throwing).
 */
export async function loadGraphFile(
  text: string,
  source: string,
  fragments: FragmentSource,
  options: ValidateOptions = {},
): Promise<LoadResult> {
  const read = readGraphText(text, source);
  if (!read.ok) return read;
  const library = await gatherFragments(read.data, fragments);
  return loadGraphObject(read.data, source, { ...options, fragments: library });
}

/**
 * Loads an already-parsed graph object (e.g. the planner's JSON). `null` values in mappings are read as
 * absent fields, as YAML's empty values (`depends_on:`) are by the Go CLI.
 */
export function loadGraphObject(value: unknown, source: string, options: LoadOptions = {}): LoadResult {
  const judged = judgeGraphObject(value, source, options);
  return judged.graph !== null
    ? { ok: true, graph: judged.graph, splices: judged.splices }
    : { ok: false, issues: judged.issues };
}

/** What the loader found in a graph object: every issue, and the graph when there is none. */
export interface GraphJudgement {
  /**
   * Fragment errors, shape errors, then semantic errors (judged on what survives the shape check),
   * without duplicates.
   */
  readonly issues: readonly GraphIssue[];
  /** The runnable graph; `null` exactly when `issues` is not empty. */
  readonly graph: Graph | null;
  /**
   * The object as judged (`null` values removed, fragments spliced), for rules that read the file as
   * written; `null` when it is not a mapping.
   */
  readonly data: Record<string, unknown> | null;
  /** Every `use:` resolved (whether or not the graph then loads). */
  readonly splices: readonly FragmentSplice[];
  /** Advice about the fragment files spliced (e.g. an unreferenced substitution point). */
  readonly notes: readonly FragmentNote[];
}

/** Judges a parsed graph object with every shape and semantic rule (see {@link loadGraphObject}). */
export function judgeGraphObject(value: unknown, source: string, options: LoadOptions = {}): GraphJudgement {
  if (value === null || value === undefined) {
    return {
      issues: [{ nodeId: null, reason: `${source} is empty: a graph needs a nodes list` }],
      graph: null,
      data: null,
      splices: [],
      notes: [],
    };
  }
  const cleaned = withoutNulls(value);
  if (!isRecord(cleaned)) {
    const got = Array.isArray(cleaned)
      ? "a list"
      : cleaned instanceof Uint8Array
        ? "binary data"
        : typeof cleaned;
    return {
      issues: [{ nodeId: null, reason: `a graph must be a mapping with a nodes list (got ${got})` }],
      graph: null,
      data: null,
      splices: [],
      notes: [],
    };
  }
  const { fragments, ...validateOptions } = options;
  const spliced =
    fragments === undefined
      ? { data: cleaned, issues: [], splices: [], notes: [] }
      : resolveFragments(cleaned, fragments);
  const raw = spliced.data;
  const { splices, notes } = spliced;

  const parsed = GraphSpecSchema.safeParse(raw, { reportInput: true });
  if (parsed.success && spliced.issues.length === 0) {
    const issues = validateGraph(parsed.data, validateOptions);
    const graph = issues.length === 0 ? buildGraph(parsed.data, source) : null;
    return { issues, graph, data: raw, splices, notes };
  }
  if (parsed.success) {
    const issues = [...spliced.issues, ...validateGraph(parsed.data, validateOptions)];
    return { issues: uniqueIssues(issues), graph: null, data: raw, splices, notes };
  }
  const salvaged = salvageSpec(raw, parsed.error.issues);
  const issues = [
    ...spliced.issues,
    ...schemaIssues(parsed.error.issues, raw),
    ...(salvaged === null ? [] : validateGraph(salvaged, validateOptions)),
  ];
  return { issues: uniqueIssues(issues), graph: null, data: raw, splices, notes };
}

/** `issues` without repeats (same node, same reason), first occurrence kept. */
export function uniqueIssues(issues: readonly GraphIssue[]): GraphIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.nodeId}\u0000${issue.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type { FragmentLibrary, FragmentRead, FragmentSource } from "./fragment-source.js";
export type { Graph, GraphNode } from "./graph.js";
export { type FragmentSplice, formatSplice } from "./resolve-fragments.js";
