/**
 * A graph or fragment file's text as plain data (SPEC §3: YAML, or JSON — JSON is YAML): one document,
 * unique keys, bounded alias expansion, YAML 1.1 merge keys (`<<: *base`, as the Go CLI's `yaml.v3` reads
 * them: the node's own keys win, then the merged mappings in order), and a numeric `version` kept as it was
 * written. Syntax errors are
 * returned as {@link GraphIssue}s that name the file and the position.
 */
import { isMap, isScalar, parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import type { GraphIssue } from "./issue.js";
import { isRecord } from "./plain-data.js";

/** A graph file's text as data, or its YAML syntax errors (nothing else can be judged then). */
export type GraphData =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly issues: readonly GraphIssue[] };

/**
 * Parses `text` as one YAML document (JSON included) into plain data, keeping a numeric `version` as it
 * was written; `<<:` merges (`yaml`'s `merge: true`). Refuses several documents, duplicate keys, and alias
 * expansion past 100 ("billion laughs").
 */
export function readGraphText(text: string, source: string): GraphData {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, merge: true });
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
