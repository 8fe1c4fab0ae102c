/**
 * The script a scripted model server plays (docs/scripted-model-server.md).
 *
 * Dependency-free on purpose: the product demo starts this server too, so the validator is hand-written
 * rather than zod. It collects every problem and reports each with its JSON path.
 */

/** Token usage reported for one model turn. Fixed defaults keep cost assertions stable. */
export interface ScriptedUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
}

/**
 * One tool call the scripted model makes. `name` is the CLI's tool name, case-sensitive: claude's
 * built-ins (`Bash`, `Read`, …) on `/v1/messages`; on `/v1/responses` a tool the codex request advertises
 * (`exec_command` with `{cmd}`, or the custom `apply_patch` with `{input: "<patch>"}`; openai-wire.ts).
 */
export interface ScriptedToolCall {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/**
 * An HTTP error the server answers instead of a message. `type` replaces the error body's `error.type`
 * the status would give (e.g. `usage_limit_reached`, codex's usage limit on a 429); `resets_at` (Unix
 * seconds) is added to the error object of an OpenAI body, as the Responses API sends it with that type.
 */
export interface ScriptedError {
  readonly status: number;
  readonly message: string;
  readonly type?: string;
  readonly resets_at?: number;
}

/**
 * One model turn = one answer to one `POST /v1/messages`.
 *
 * - `text` and/or `tool_calls`: a message. With `tool_calls` the message ends `stop_reason: "tool_use"`
 *   (the text, if any, comes first); without, it ends `end_turn`.
 * - `error`: an HTTP error response instead (nothing else allowed in that turn but `delay_ms`).
 * - `delay_ms`: on any turn kind, wait this many milliseconds (integer 0..`MAX_DELAY_MS`) after the
 *   request arrived before answering anything (for SSE: before the first byte). Other requests are
 *   served meanwhile.
 */
export interface ScriptedTurn {
  readonly text?: string;
  readonly tool_calls?: readonly ScriptedToolCall[];
  readonly usage?: ScriptedUsage;
  readonly error?: ScriptedError;
  readonly delay_ms?: number;
}

/** One conversation: chosen when every `match` substring occurs in the opening user prompt. */
export interface ScriptedConversation {
  readonly name?: string;
  readonly match: string | readonly string[];
  readonly turns: readonly ScriptedTurn[];
}

export interface ModelScript {
  readonly conversations: readonly ScriptedConversation[];
}

/** Usage reported when a turn names none: 100 input tokens, 20 output tokens. */
export const DEFAULT_USAGE: ScriptedUsage = Object.freeze({ input_tokens: 100, output_tokens: 20 });

export type ScriptValidation =
  | { readonly ok: true; readonly script: ModelScript }
  | { readonly ok: false; readonly issues: readonly string[] };

/** The largest `delay_ms` a turn may ask for: 600000 ms (10 minutes). */
export const MAX_DELAY_MS = 600_000;

const TURN_KEYS = new Set(["text", "tool_calls", "usage", "error", "delay_ms"]);
const CONVERSATION_KEYS = new Set(["name", "match", "turns"]);
const TOOL_CALL_KEYS = new Set(["name", "input"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function unknownKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>, at: string): string[] {
  return Object.keys(value)
    .filter((key) => !allowed.has(key))
    .map((key) => `${at}: unknown key "${key}" (allowed: ${[...allowed].join(", ")})`);
}

function validateTurn(turn: unknown, at: string, isLast: boolean): string[] {
  if (!isRecord(turn)) return [`${at}: must be an object`];
  const issues = unknownKeys(turn, TURN_KEYS, at);
  const { text, tool_calls: toolCalls, usage, error, delay_ms: delayMs } = turn;
  if (text !== undefined && typeof text !== "string") issues.push(`${at}.text: must be a string`);
  if (delayMs !== undefined && !(isNonNegativeInteger(delayMs) && delayMs <= MAX_DELAY_MS)) {
    issues.push(
      `${at}.delay_ms: must be an integer number of milliseconds 0-${MAX_DELAY_MS}, got ${typeof delayMs === "number" ? String(delayMs) : JSON.stringify(delayMs)}`,
    );
  }
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls) || toolCalls.length === 0) {
      issues.push(`${at}.tool_calls: must be a non-empty array`);
    } else {
      toolCalls.forEach((call, i) => {
        const callAt = `${at}.tool_calls[${i}]`;
        if (!isRecord(call)) {
          issues.push(`${callAt}: must be an object`);
          return;
        }
        issues.push(...unknownKeys(call, TOOL_CALL_KEYS, callAt));
        if (typeof call.name !== "string" || call.name === "") {
          issues.push(`${callAt}.name: must be a non-empty string (a tool name such as "Bash" or "Read")`);
        }
        if (!isRecord(call.input)) issues.push(`${callAt}.input: must be an object`);
      });
    }
  }
  if (usage !== undefined) {
    if (!isRecord(usage)) {
      issues.push(`${at}.usage: must be an object {input_tokens, output_tokens}`);
    } else {
      issues.push(...unknownKeys(usage, new Set(["input_tokens", "output_tokens"]), `${at}.usage`));
      for (const key of ["input_tokens", "output_tokens"] as const) {
        if (!isNonNegativeInteger(usage[key])) issues.push(`${at}.usage.${key}: must be an integer >= 0`);
      }
    }
  }
  if (error !== undefined) {
    if (!isRecord(error)) {
      issues.push(`${at}.error: must be an object {status, message}`);
    } else {
      issues.push(...unknownKeys(error, new Set(["status", "message", "type", "resets_at"]), `${at}.error`));
      const status = error.status;
      if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599) {
        issues.push(
          `${at}.error.status: must be an HTTP error status 400-599, got ${JSON.stringify(status)}`,
        );
      }
      if (typeof error.message !== "string") issues.push(`${at}.error.message: must be a string`);
      if (error.type !== undefined && (typeof error.type !== "string" || error.type === "")) {
        issues.push(`${at}.error.type: must be a non-empty string (the error body's error.type)`);
      }
      if (error.resets_at !== undefined && !isNonNegativeInteger(error.resets_at)) {
        issues.push(`${at}.error.resets_at: must be an integer number of Unix seconds`);
      }
    }
    if (text !== undefined || toolCalls !== undefined || usage !== undefined) {
      issues.push(`${at}: an error turn takes no text, tool_calls or usage`);
    }
  } else if (text === undefined && toolCalls === undefined) {
    issues.push(`${at}: needs text, tool_calls or error`);
  }
  // Only a tool-call turn makes the CLI come back to the same prompt; text-only and error turns end the
  // exchange (retries replay the same step), so anything scripted after them could never be played.
  if (!isLast && toolCalls === undefined) {
    issues.push(
      `${at}: only the last turn may end without tool_calls (a text-only or error turn ends the exchange, so later turns would never be played)`,
    );
  }
  return issues;
}

/** Checks an untrusted value (e.g. parsed JSON) against the script format; collects every issue. */
export function validateModelScript(value: unknown): ScriptValidation {
  if (!isRecord(value)) return { ok: false, issues: ["script: must be an object {conversations: [...]}"] };
  const issues = unknownKeys(value, new Set(["conversations"]), "script");
  const conversations = value.conversations;
  if (!Array.isArray(conversations) || conversations.length === 0) {
    issues.push("script.conversations: must be a non-empty array");
    return { ok: false, issues };
  }
  conversations.forEach((conversation, c) => {
    const at = `conversations[${c}]`;
    if (!isRecord(conversation)) {
      issues.push(`${at}: must be an object`);
      return;
    }
    issues.push(...unknownKeys(conversation, CONVERSATION_KEYS, at));
    if (conversation.name !== undefined && typeof conversation.name !== "string") {
      issues.push(`${at}.name: must be a string`);
    }
    const match = conversation.match;
    const matchOk =
      typeof match === "string" || (Array.isArray(match) && match.every((m) => typeof m === "string"));
    if (!matchOk) issues.push(`${at}.match: must be a string or an array of strings`);
    const turns = conversation.turns;
    if (!Array.isArray(turns) || turns.length === 0) {
      issues.push(`${at}.turns: must be a non-empty array`);
      return;
    }
    turns.forEach((turn, t) => {
      issues.push(...validateTurn(turn, `${at}.turns[${t}]`, t === turns.length - 1));
    });
  });
  return issues.length === 0 ? { ok: true, script: value as unknown as ModelScript } : { ok: false, issues };
}

/** Thrown by `startModelServer` when its script is invalid; `issues` lists every problem. */
export class ModelScriptError extends Error {
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super(`invalid model script:\n${issues.map((issue) => `  - ${issue}`).join("\n")}`);
    this.name = "ModelScriptError";
    this.issues = issues;
  }
}

/** The validated script, or a `ModelScriptError` naming every issue. */
export function parseModelScript(value: unknown): ModelScript {
  const validation = validateModelScript(value);
  if (!validation.ok) throw new ModelScriptError(validation.issues);
  return validation.script;
}
