/**
 * Turns zod's findings about a graph file's shape into {@link GraphIssue}s that name the node and the
 * field (SPEC §3: "Unknown fields are a load error naming the field"), e.g.
 * `invalid graph: node "build": unknown field "success_check.verify.comand" (known fields: command, …)`.
 */
import type { z } from "zod";
import type { GraphIssue } from "./issue.js";
import { GRAPH_FIELDS, NODE_OBJECT_FIELDS } from "./schema.js";

/** One zod issue. */
export type SchemaIssue = z.core.$ZodIssue;

// Fragment citations: node fields only in a graph FILE loaded with its fragments (`resolve-fragments.ts`),
// which splices them away before this schema sees the graph. Anywhere else they are refused with a pointer.
const CITATION_FIELDS = new Set(["use", "with"]);
const CITATION_HINT =
  "; use:/with: cite a fragment file, which is spliced only when a graph file is loaded with the " +
  "fragments/ folder beside it (evidence-gate lint, run and resolve do); this graph was loaded as " +
  "already-spliced data";

/**
 * Renders zod issues for the raw graph `raw` (the object that was parsed), one {@link GraphIssue} per
 * finding and one per unknown field. Node issues carry the node's id when `raw` shows one.
 */
export function schemaIssues(issues: readonly SchemaIssue[], raw: unknown): GraphIssue[] {
  return issues.flatMap((issue) => describeIssue(issue, raw));
}

function describeIssue(issue: SchemaIssue, raw: unknown): GraphIssue[] {
  const path = issue.path.filter((key): key is string | number => typeof key !== "symbol");
  const { nodeId, prefix, relative } = locate(path, raw);
  const at = (field: readonly (string | number)[]): string => JSON.stringify(prefix + renderPath(field));
  const make = (reason: string): GraphIssue => ({ nodeId, reason });

  switch (issue.code) {
    case "unrecognized_keys": {
      const inNode = path[0] === "nodes" && typeof path[1] === "number";
      const shapeKey = relative.filter((key) => typeof key === "string").join(".");
      const known = inNode ? NODE_OBJECT_FIELDS[shapeKey] : shapeKey === "" ? GRAPH_FIELDS : undefined;
      return issue.keys.map((key) => {
        const goHint =
          inNode && shapeKey === "" && CITATION_FIELDS.has(key)
            ? CITATION_HINT
            : !inNode && shapeKey === "" && isRecord(raw) && isRecord(raw[key])
              ? anchorHolderHint(key)
              : "";
        const knownList = known === undefined ? "" : ` (known fields: ${known.join(", ")})`;
        return make(`unknown field ${at([...relative, key])}${goHint}${knownList}`);
      });
    }
    case "invalid_type": {
      if (issue.input === undefined) return [make(`missing required field ${at(relative)}`)];
      const subject =
        relative.length === 0 && prefix !== "" ? prefix.replace(/\.$/, "") : `field ${at(relative)}`;
      return [
        make(
          `${subject} must be ${EXPECTED[issue.expected] ?? issue.expected} (got ${describe(issue.input)})`,
        ),
      ];
    }
    case "invalid_value":
      return [
        make(
          `field ${at(relative)} must be one of: ${issue.values.map(String).join(", ")} (got ${describe(issue.input)})`,
        ),
      ];
    case "invalid_union": {
      const expected = issue.errors.flatMap((branch) => {
        const first = branch[0];
        return first?.code === "invalid_type" ? [EXPECTED[first.expected] ?? first.expected] : [];
      });
      return [make(`field ${at(relative)} must be ${expected.join(" or ")} (got ${describe(issue.input)})`)];
    }
    default:
      return [make(`field ${at(relative)}: ${issue.message}`)];
  }
}

/**
 * The hint for an unknown top-level key holding a mapping: the Go CLI ignores unknown keys (its YAML
 * decoder sets no `KnownFields`), so a Go graph may keep shared node settings under one, anchored, and
 * merge them with `<<:` (issue 26). Here the key is refused like any unknown field; the anchor can sit on
 * the first merge instead.
 */
function anchorHolderHint(key: string): string {
  return (
    "; the Go CLI ignores a top-level key it does not know, so a file may keep a YAML anchor there, but " +
    "here every key must be a field: anchor the mapping where it is first merged instead " +
    `(\`- <<: &${key} {…}\` in the first node, \`<<: *${key}\` in the others)`
  );
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
};

/**
 * Splits a zod path into the node it concerns (if any) and the field path inside it. When the node has
 * no usable id, the prefix `nodes[INDEX].` locates it instead.
 */
function locate(
  path: readonly (string | number)[],
  raw: unknown,
): { nodeId: string | null; prefix: string; relative: (string | number)[] } {
  const [head, index] = path;
  if (head !== "nodes" || typeof index !== "number") return { nodeId: null, prefix: "", relative: [...path] };
  const rawNode = isRecord(raw) && Array.isArray(raw.nodes) ? raw.nodes[index] : undefined;
  const id =
    isRecord(rawNode) && typeof rawNode.id === "string" && rawNode.id.trim() !== "" ? rawNode.id : null;
  return { nodeId: id, prefix: id === null ? `nodes[${index}].` : "", relative: path.slice(2) };
}

function renderPath(path: readonly (string | number)[]): string {
  return path.map((key, at) => (typeof key === "number" ? `[${key}]` : at === 0 ? key : `.${key}`)).join("");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Uint8Array) return "binary data (a !!binary value)";
  if (value instanceof Date) return "a date";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
