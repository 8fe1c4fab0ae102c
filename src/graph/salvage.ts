/**
 * A best-effort typed view of a graph whose shape is wrong, so semantic validation can still run and
 * `lint` reports schema and semantic issues together (SPEC §3: "prints all of them, not just the first").
 *
 * The view is made by deleting what the schema refused — unknown fields, mistyped values — and, where a
 * required value is missing, the object holding it (a node with no usable id is dropped). It is used
 * only to find more issues, never to run.
 */
import { type GraphSpec, GraphSpecSchema } from "./schema.js";
import type { SchemaIssue } from "./schema-issues.js";

const MAX_ROUNDS = 8;
const REMOVED = Symbol("removed");

/**
 * Deletes what `issues` point at from a copy of `raw` and re-parses, repeating while new issues appear.
 * Returns the parsed spec, or `null` when nothing parseable is left (e.g. the root is not a mapping).
 */
export function salvageSpec(raw: Record<string, unknown>, issues: readonly SchemaIssue[]): GraphSpec | null {
  const data: Record<string, unknown> = structuredClone(raw);
  let pending = issues;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    for (const issue of pending) {
      if (!prune(data, issue)) return null;
    }
    sweep(data);
    const parsed = GraphSpecSchema.safeParse(data);
    if (parsed.success) return parsed.data;
    pending = parsed.error.issues;
  }
  return null;
}

/** Removes what one issue points at. False when the issue concerns the root itself. */
function prune(data: Record<string, unknown>, issue: SchemaIssue): boolean {
  const path = issue.path.filter((key): key is string | number => typeof key !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const target = valueAt(data, path);
    if (isContainer(target)) for (const key of issue.keys) Reflect.deleteProperty(target, key);
    return true;
  }
  // Climb while the value is already absent: deleting a missing required field changes nothing, so its
  // holder goes instead.
  let at = path;
  while (at.length > 0) {
    const parent = valueAt(data, at.slice(0, -1));
    const key = at[at.length - 1];
    if (isContainer(parent) && key !== undefined && key in parent) {
      if (Array.isArray(parent) && typeof key === "number") parent[key] = REMOVED;
      else Reflect.deleteProperty(parent, key);
      return true;
    }
    at = at.slice(0, -1);
  }
  return false;
}

/** Drops array slots marked {@link REMOVED}, everywhere, so indices shift only between rounds. */
function sweep(value: unknown): void {
  if (!isContainer(value)) return;
  if (Array.isArray(value)) {
    const kept = value.filter((item) => item !== REMOVED);
    value.splice(0, value.length, ...kept);
  }
  for (const child of Object.values(value)) sweep(child);
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let current = root;
  for (const key of path) {
    if (!isContainer(current)) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function isContainer(value: unknown): value is Record<string | number, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}
