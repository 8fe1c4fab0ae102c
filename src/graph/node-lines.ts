/**
 * Where each node of a graph file is declared (1-based line of its `id`), for annotations on the file.
 * Best effort: a file that does not parse as YAML (JSON is YAML), or a node without a scalar `id`, has no
 * line, and the annotation then names the file alone.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";

/** Node id → line of its `id:` value. The first declaration wins for a duplicated id. */
export function nodeIdLines(text: string): ReadonlyMap<string, number> {
  const lines = new Map<string, number>();
  try {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, prettyErrors: false });
    const nodes = doc.get("nodes", true);
    if (!isSeq(nodes)) return lines;
    for (const item of nodes.items) {
      if (!isMap(item)) continue;
      const id = item.get("id", true);
      if (!isScalar(id) || id.range === undefined || id.range === null) continue;
      const value = String(id.value);
      if (!lines.has(value)) lines.set(value, lineCounter.linePos(id.range[0]).line);
    }
  } catch {
    // An unparseable file: no lines; the lint errors say what is wrong with it.
  }
  return lines;
}
