/**
 * Plain data as YAML and JSON give it (mappings, lists, scalars), and the one normalisation every graph
 * and fragment file gets before it is judged: `null` mapping values are read as absent fields, as the Go
 * CLI reads YAML's empty values (`depends_on:`).
 */

/** A mapping (not a list, not `!!binary` bytes, not `null`). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

/** A mapping built by YAML or JSON (`Object` or `null` prototype), not a date or another class instance. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A deep copy with every `null` mapping value removed (list items are kept, to be refused by type). Only
 * plain mappings are rebuilt: any other object (`!!binary` data, a date) is kept as it is, so the shape
 * check names what it is instead of seeing a mapping of its bytes.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainRecord(value)) return value;
  // fromEntries defines own properties, so a `__proto__` key stays a (refused) field, never a prototype.
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => child !== null)
      .map(([key, child]) => [key, withoutNulls(child)]),
  );
}
