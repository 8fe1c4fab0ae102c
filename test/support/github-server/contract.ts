/**
 * The contract of one REST operation, taken from GitHub's description: path and query parameters,
 * request body, and the response schema for each status. Validators are compiled lazily with Ajv
 * (+ ajv-formats) and cached per worker.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import {
  type JsonObject,
  loadDescription,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
  resolveLocalRef,
} from "./description.js";
import { githubRequestRules } from "./github-rules.js";
import { convertSchema, type SchemaMode, schemaId } from "./schema-convert.js";

/** One reason a request or response breaks the contract, e.g. `body/output/summary: must …`. */
export type ContractError = string;

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** A registry of component schemas inside one Ajv instance, converted on first use. */
class SchemaRegistry {
  readonly #doc: OpenApiDocument;
  readonly #ajv: Ajv;
  readonly #added = new Set<string>();

  constructor(doc: OpenApiDocument, options: { coerceTypes: boolean }) {
    this.#doc = doc;
    // `strict: false`: GitHub's description carries annotation keywords Ajv does not know and
    // `required` names declared only in sibling branches; both are legal JSON Schema.
    this.#ajv = new Ajv({
      allErrors: true,
      strict: false,
      allowUnionTypes: true,
      unicodeRegExp: false,
      coerceTypes: options.coerceTypes,
    });
    addFormats.default(this.#ajv);
  }

  compile(schema: JsonObject, mode: SchemaMode): ValidateFunction {
    const { schema: converted, refs } = convertSchema(schema, mode);
    this.#register(refs, mode);
    return this.#ajv.compile(converted);
  }

  compileComponent(name: string, mode: SchemaMode): ValidateFunction {
    this.#register(new Set([name]), mode);
    const validate = this.#ajv.getSchema(schemaId(mode, name));
    if (validate === undefined) throw new Error(`github-server: no component schema ${name}`);
    return validate;
  }

  #register(names: ReadonlySet<string>, mode: SchemaMode): void {
    const queue = [...names];
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      const id = schemaId(mode, name);
      if (this.#added.has(id)) continue;
      this.#added.add(id);
      const component = this.#doc.components.schemas[name];
      if (component === undefined) throw new Error(`github-server: dangling schema reference ${name}`);
      const { schema, refs } = convertSchema(component, mode);
      this.#ajv.addSchema({ $id: id, allOf: [schema] });
      queue.push(...refs);
    }
  }
}

let registries: { readonly strict: SchemaRegistry; readonly coercing: SchemaRegistry } | undefined;

function getRegistries() {
  const doc = loadDescription();
  registries ??= {
    strict: new SchemaRegistry(doc, { coerceTypes: false }),
    coercing: new SchemaRegistry(doc, { coerceTypes: true }),
  };
  return registries;
}

export function formatAjvErrors(where: string, errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const at = `${where}${error.instancePath}`;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === "additionalProperties") {
      return `${at}: unknown property "${String(params.additionalProperty)}" (not in the description)`;
    }
    if (error.keyword === "enum") {
      return `${at}: ${error.message} (${(params.allowedValues as unknown[]).map(String).join(", ")})`;
    }
    return `${at}: ${error.message}`;
  });
}

export interface RequestInput {
  readonly pathParams: Record<string, string>;
  readonly query: Record<string, string>;
  readonly body: unknown;
}

export interface RequestCheck {
  readonly errors: readonly ContractError[];
  /** Path parameters coerced to the description's types (e.g. `check_run_id` → number). */
  readonly params: Record<string, unknown>;
  readonly query: Record<string, unknown>;
}

export interface ResponseCheck {
  readonly errors: readonly ContractError[];
  /** False when the description lists no response for this status (e.g. 403 on `checks/create`). */
  readonly documented: boolean;
}

/** Everything the server needs to know about one operation of the description. */
export class OperationContract {
  readonly method: HttpMethod;
  readonly pathTemplate: string;
  readonly operationId: string;
  readonly documentationUrl: string;
  readonly parameters: readonly ParameterObject[];
  readonly #operation: OperationObject;
  readonly #doc: OpenApiDocument;
  #paramsValidator: ValidateFunction | undefined;
  #queryValidator: ValidateFunction | undefined;
  #bodyValidator: ValidateFunction | undefined;
  readonly #responseValidators = new Map<string, ValidateFunction | null>();

  constructor(method: HttpMethod, pathTemplate: string) {
    const doc = loadDescription();
    const operation = doc.paths[pathTemplate]?.[method.toLowerCase()];
    if (operation === undefined) {
      throw new Error(`github-server: the description has no operation ${method} ${pathTemplate}`);
    }
    this.#doc = doc;
    this.#operation = operation;
    this.method = method;
    this.pathTemplate = pathTemplate;
    this.operationId = operation.operationId;
    const docs = (operation as { externalDocs?: { url?: string } }).externalDocs?.url;
    this.documentationUrl = docs ?? "https://docs.github.com/rest";
    this.parameters = (operation.parameters ?? []).map((p) => resolveLocalRef<ParameterObject>(doc, p));
  }

  /** Path parameters that may span several `/`-separated segments (`x-multi-segment`). */
  isMultiSegment(name: string): boolean {
    return this.parameters.some((p) => p.in === "path" && p.name === name && p["x-multi-segment"] === true);
  }

  validateRequest(input: RequestInput): RequestCheck {
    const { coercing, strict } = getRegistries();
    this.#paramsValidator ??= coercing.compile(this.#parameterSchema("path"), "request");
    this.#queryValidator ??= coercing.compile(this.#parameterSchema("query"), "request");
    const params: Record<string, unknown> = { ...input.pathParams };
    const query: Record<string, unknown> = { ...input.query };
    const errors: ContractError[] = [];
    if (!this.#paramsValidator(params)) errors.push(...formatAjvErrors("path", this.#paramsValidator.errors));
    if (!this.#queryValidator(query)) errors.push(...formatAjvErrors("query", this.#queryValidator.errors));

    const requestBody = this.#operation.requestBody;
    const bodySchema = requestBody?.content["application/json"]?.schema;
    if (bodySchema === undefined) {
      if (input.body !== undefined) errors.push("body: this operation takes no request body");
    } else if (input.body === undefined) {
      if (requestBody?.required === true) errors.push("body: a JSON request body is required");
    } else {
      this.#bodyValidator ??= strict.compile(bodySchema, "request");
      if (!this.#bodyValidator(input.body))
        errors.push(...formatAjvErrors("body", this.#bodyValidator.errors));
      else errors.push(...githubRequestRules(this.operationId, input.body));
    }
    return { errors, params, query };
  }

  validateResponse(status: number, body: unknown): ResponseCheck {
    const key = this.#responseKey(status);
    if (key === undefined) return { errors: validateUndocumentedError(status, body), documented: false };
    let validate = this.#responseValidators.get(key);
    if (validate === undefined) {
      const response = resolveLocalRef<ResponseObject>(this.#doc, this.#operation.responses[key]!);
      const schema = response.content?.["application/json"]?.schema;
      validate = schema === undefined ? null : getRegistries().strict.compile(schema, "response");
      this.#responseValidators.set(key, validate);
    }
    if (validate === null) {
      return {
        errors: body === undefined ? [] : [`response ${status}: the description defines no body`],
        documented: true,
      };
    }
    const ok = validate(body);
    return { errors: ok ? [] : formatAjvErrors(`response ${status}`, validate.errors), documented: true };
  }

  #responseKey(status: number): string | undefined {
    const responses = this.#operation.responses;
    const candidates = [String(status), `${Math.floor(status / 100)}XX`, "default"];
    return candidates.find((key) => key in responses);
  }

  #parameterSchema(location: "path" | "query"): JsonObject {
    const params = this.parameters.filter((p) => p.in === location);
    return {
      type: "object",
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
      required: params.filter((p) => p.required === true).map((p) => p.name),
      additionalProperties: false,
    };
  }
}

/**
 * A status the description does not list for this operation (the real API still sends it: 403 on a
 * read-only token, 404 for an unknown repository, 5xx) must at least carry GitHub's error shape:
 * `validation-error` for 422, `basic-error` otherwise.
 */
function validateUndocumentedError(status: number, body: unknown): ContractError[] {
  if (status < 400) return [`response ${status}: status not in the description for this operation`];
  const name = status === 422 ? "validation-error" : "basic-error";
  const validate = getRegistries().strict.compileComponent(name, "response");
  return validate(body) ? [] : formatAjvErrors(`response ${status} (${name})`, validate.errors);
}

/** Validates any value against a named component schema (e.g. a webhook payload fixture). */
export function validateComponent(name: string, value: unknown): ContractError[] {
  const validate = getRegistries().strict.compileComponent(name, "response");
  return validate(value) ? [] : formatAjvErrors(name, validate.errors);
}
