/**
 * GitHub's official REST API description (api.github.com), as shipped by `@octokit/openapi`
 * (generated from https://github.com/github/rest-api-description). Loaded once per test worker
 * (~13 MB of JSON, ~200 ms); only the non-dereferenced file is read — the package's `index.js`
 * would load every variant (hundreds of MB).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export type JsonObject = { [key: string]: unknown };

export interface ParameterObject {
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required?: boolean;
  readonly schema?: JsonObject;
  readonly "x-multi-segment"?: boolean;
}

export interface MediaTypeObject {
  readonly schema?: JsonObject;
}

export interface ResponseObject {
  readonly description?: string;
  readonly content?: Record<string, MediaTypeObject>;
}

export interface OperationObject {
  readonly operationId: string;
  readonly parameters?: readonly (ParameterObject | { readonly $ref: string })[];
  readonly requestBody?: {
    readonly required?: boolean;
    readonly content: Record<string, MediaTypeObject>;
  };
  readonly responses: Record<string, ResponseObject | { readonly $ref: string }>;
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { readonly version: string };
  readonly paths: Record<string, Record<string, OperationObject>>;
  readonly components: {
    readonly schemas: Record<string, JsonObject>;
    readonly parameters: Record<string, ParameterObject>;
    readonly responses: Record<string, ResponseObject>;
  };
}

const require = createRequire(import.meta.url);
/** Absolute path of the description file; tests cite it in violation messages. */
export const DESCRIPTION_FILE = require.resolve("@octokit/openapi/generated/api.github.com.json");

let cached: OpenApiDocument | undefined;

export function loadDescription(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(DESCRIPTION_FILE, "utf8")) as OpenApiDocument;
  return cached;
}

/** Resolves a local `#/components/...` reference to a parameter or response object. */
export function resolveLocalRef<T>(doc: OpenApiDocument, value: T | { readonly $ref: string }): T {
  if (typeof value !== "object" || value === null || !("$ref" in value)) return value as T;
  const ref = (value as { $ref: string }).$ref;
  if (!ref.startsWith("#/")) throw new Error(`github-server: unsupported $ref ${ref}`);
  let node: unknown = doc;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`github-server: dangling $ref ${ref} in ${DESCRIPTION_FILE}`);
  return resolveLocalRef(doc, node as T | { $ref: string });
}
