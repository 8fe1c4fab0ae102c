/**
 * OpenAPI 3.0 schema objects (as GitHub's description writes them) → JSON Schema that Ajv validates.
 *
 * - `nullable: true` (OpenAPI 3.0) becomes `type: [T, "null"]` (and `null` joins an `enum`), or an
 *   `anyOf` with `{type: "null"}` when the node has no single `type` or composes other schemas.
 * - `$ref: #/components/schemas/NAME` becomes an absolute reference into a registry namespace
 *   (`schemaId(mode, NAME)`); siblings of `$ref` are dropped, as OpenAPI 3.0 ignores them.
 * - OpenAPI-only keywords (`discriminator`, `example`, `xml`, `externalDocs`, `x-*`) are dropped.
 * - In `request` mode, a plain object schema that lists `properties` and says nothing about
 *   `additionalProperties` is closed (`additionalProperties: false`). GitHub ignores unknown fields,
 *   which would hide a misspelt field (`detail_url`) from every test; the double is stricter on purpose.
 */
import type { JsonObject } from "./description.js";

export type SchemaMode = "request" | "response";

const SCHEMA_REF_PREFIX = "#/components/schemas/";
const REGISTRY_BASE = "https://github-server.invalid/schemas/";
const DROPPED_KEYWORDS = new Set(["nullable", "discriminator", "example", "xml", "externalDocs"]);
const SCHEMA_LIST_KEYWORDS = new Set(["allOf", "anyOf", "oneOf"]);
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties"]);
const SCHEMA_VALUE_KEYWORDS = new Set(["items", "additionalProperties", "not"]);

export function schemaId(mode: SchemaMode, componentName: string): string {
  return `${REGISTRY_BASE}${mode}/${encodeURIComponent(componentName)}`;
}

export interface ConvertedSchema {
  readonly schema: JsonObject;
  /** Component schema names referenced directly by this schema. */
  readonly refs: ReadonlySet<string>;
}

export function convertSchema(node: JsonObject, mode: SchemaMode): ConvertedSchema {
  const refs = new Set<string>();
  const schema = convertNode(node, { mode, refs, allOfBranch: false });
  return { schema, refs };
}

interface ConvertContext {
  readonly mode: SchemaMode;
  readonly refs: Set<string>;
  readonly allOfBranch: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function convertNode(node: JsonObject, ctx: ConvertContext): JsonObject {
  if (typeof node.$ref === "string") {
    if (!node.$ref.startsWith(SCHEMA_REF_PREFIX)) {
      throw new Error(`github-server: unsupported schema $ref ${node.$ref}`);
    }
    const name = node.$ref.slice(SCHEMA_REF_PREFIX.length);
    ctx.refs.add(name);
    return { $ref: schemaId(ctx.mode, name) };
  }

  const out: JsonObject = {};
  const child: ConvertContext = { ...ctx, allOfBranch: false };
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("x-") || DROPPED_KEYWORDS.has(key)) continue;
    if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      const branch: ConvertContext = { ...ctx, allOfBranch: key === "allOf" };
      out[key] = value.map((item) => (isObject(item) ? convertNode(item, branch) : item));
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isObject(sub) ? convertNode(sub, child) : sub]),
      );
    } else if (SCHEMA_VALUE_KEYWORDS.has(key) && isObject(value)) {
      out[key] = convertNode(value, child);
    } else {
      out[key] = value;
    }
  }

  if (ctx.mode === "request" && shouldClose(node, ctx)) out.additionalProperties = false;

  if (node.nullable === true) {
    const composes = "$ref" in out || "allOf" in out || "anyOf" in out || "oneOf" in out;
    if (typeof out.type === "string" && !composes) {
      out.type = [out.type, "null"];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

/**
 * Closing an object is safe when no sibling composition can contribute properties of its own:
 * never for an `allOf` branch or an `allOf` parent; for `anyOf`/`oneOf` only when every branch is
 * inline and names no property the parent does not already list.
 */
function shouldClose(node: JsonObject, ctx: ConvertContext): boolean {
  if (!isObject(node.properties) || "additionalProperties" in node) return false;
  if (ctx.allOfBranch || "allOf" in node) return false;
  const known = new Set(Object.keys(node.properties));
  for (const key of ["anyOf", "oneOf"]) {
    const branches = node[key];
    if (branches === undefined) continue;
    if (!Array.isArray(branches)) return false;
    for (const branch of branches) {
      if (!isObject(branch) || "$ref" in branch) return false;
      const props = isObject(branch.properties) ? Object.keys(branch.properties) : [];
      if (props.some((name) => !known.has(name))) return false;
    }
  }
  return true;
}
