/**
 * Loading a graph (SPEC §3): text (YAML, or JSON — JSON is YAML) or an already-parsed object (the
 * planner's JSON) → shape check → every semantic rule → a runnable {@link Graph}, or every issue found.
 * Nothing here throws on bad input; a refusal is data.
 */
import { isMap, isScalar, parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import { buildGraph, type Graph } from "./graph.js";
import type { GraphIssue } from "./issue.js";
import { salvageSpec } from "./salvage.js";
import { GraphSpecSchema } from "./schema.js";
import { schemaIssues } from "./schema-issues.js";
import { type ValidateOptions, validateGraph } from "./validate.js";

/** Load options; see {@link ValidateOptions} (`verifyTimeoutCeilingMs`, default 10m). */
export type LoadOptions = ValidateOptions;

/**
 * A loaded graph, or every issue that stops it loading: YAML syntax errors, shape errors (unknown or
 * mistyped fields) and semantic errors together, in that order, without duplicates. Render each with
 * `formatIssue`.
 */
export type LoadResult =
  | { readonly ok: true; readonly graph: Graph }
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

/** A graph file's text as data, or its YAML syntax errors (nothing else can be judged then). */
export type GraphData =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly issues: readonly GraphIssue[] };

/**
 * Parses `text` as one YAML document (JSON included) into plain data, keeping a numeric `version` as it
 * was written. Refuses several documents, duplicate keys, and alias expansion past 100 ("billion laughs").
 */
export function readGraphText(text: string, source: string): GraphData {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => ({ nodeId: null, reason: yamlErrorReason(error, text, source) })),
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error: unknown) {
    // `yaml` refuses alias expansion past maxAliasCount (a "billion laughs" document).
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, issues: [{ nodeId: null, reason: `cannot parse ${source} as YAML: ${why}` }] };
  }
  // `version: 1.10` is the number 1.1 to YAML; the Go CLI keeps the text, so keep it too.
  const version = isMap(doc.contents) ? doc.contents.get("version", true) : undefined;
  if (
    isRecord(data) &&
    typeof data.version === "number" &&
    isScalar(version) &&
    version.source !== undefined
  ) {
    data.version = version.source;
  }
  return { ok: true, data };
}

/**
 * One YAML error as a reason: `cannot parse g.yaml as YAML: Map keys must be unique at line 4, column 5`.
 * The library's first line is kept with its position, without the colon that introduced its source
 * excerpt; several documents in one file get their own sentence (the library's message names its own API).
 */
function yamlErrorReason(error: YAMLError, text: string, source: string): string {
  const [position] = error.linePos ?? [];
  const at = position === undefined ? "" : ` at line ${position.line}, column ${position.col}`;
  if (error.code === "MULTIPLE_DOCS") {
    const count = parseAllDocuments(text);
    const documents =
      Array.isArray(count) && count.length > 1 ? `${count.length} YAML documents` : "several YAML documents";
    return (
      `${source} holds ${documents}; a graph file holds one (the second starts${at}): remove the --- line ` +
      "and what follows, or split the file"
    );
  }
  const first = (error.message.split("\n")[0] ?? "")
    .replace(/ at line \d+, column \d+:?$/, "")
    .replace(/:$/, "");
  return `cannot parse ${source} as YAML: ${first === "" ? error.code : first}${at}`;
}

/**
 * Loads an already-parsed graph object (e.g. the planner's JSON). `null` values in mappings are read as
 * absent fields, as YAML's empty values (`depends_on:`) are by the Go CLI.
 */
export function loadGraphObject(value: unknown, source: string, options: LoadOptions = {}): LoadResult {
  const judged = judgeGraphObject(value, source, options);
  return judged.graph !== null ? { ok: true, graph: judged.graph } : { ok: false, issues: judged.issues };
}

/** What the loader found in a graph object: every issue, and the graph when there is none. */
export interface GraphJudgement {
  /** Shape errors, then semantic errors (judged on what survives the shape check), without duplicates. */
  readonly issues: readonly GraphIssue[];
  /** The runnable graph; `null` exactly when `issues` is not empty. */
  readonly graph: Graph | null;
  /**
   * The object as judged (`null` values removed), for rules that read the file as written; `null` when it
   * is not a mapping.
   */
  readonly data: Record<string, unknown> | null;
}

/** Judges a parsed graph object with every shape and semantic rule (see {@link loadGraphObject}). */
export function judgeGraphObject(value: unknown, source: string, options: LoadOptions = {}): GraphJudgement {
  if (value === null || value === undefined) {
    return {
      issues: [{ nodeId: null, reason: `${source} is empty: a graph needs a nodes list` }],
      graph: null,
      data: null,
    };
  }
  const raw = withoutNulls(value);
  if (!isRecord(raw)) {
    const got = Array.isArray(raw) ? "a list" : raw instanceof Uint8Array ? "binary data" : typeof raw;
    return {
      issues: [{ nodeId: null, reason: `a graph must be a mapping with a nodes list (got ${got})` }],
      graph: null,
      data: null,
    };
  }

  const parsed = GraphSpecSchema.safeParse(raw, { reportInput: true });
  if (parsed.success) {
    const issues = validateGraph(parsed.data, options);
    return { issues, graph: issues.length === 0 ? buildGraph(parsed.data, source) : null, data: raw };
  }
  const salvaged = salvageSpec(raw, parsed.error.issues);
  const issues = [
    ...schemaIssues(parsed.error.issues, raw),
    ...(salvaged === null ? [] : validateGraph(salvaged, options)),
  ];
  return { issues: uniqueIssues(issues), graph: null, data: raw };
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

/**
 * A deep copy with every `null` mapping value removed (list items are kept, to be refused by type). Only
 * plain mappings are rebuilt: any other object (`!!binary` data, a date) is kept as it is, so the shape
 * check names what it is instead of seeing a mapping of its bytes.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainRecord(value)) return value;
  // fromEntries defines own properties, so a `__proto__` key stays a (refused) field, never a prototype.
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => child !== null)
      .map(([key, child]) => [key, withoutNulls(child)]),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export type { Graph, GraphNode } from "./graph.js";
