/**
 * The two events of a `claude` stream the outcome is read from (SPEC §4): `system/init` (the session as
 * it started) and the final `result` — `session_id`, `result`, `total_cost_usd`, `is_error`, `subtype`,
 * `num_turns`, `usage`, `permission_denials`, `errors`, `terminal_reason`, `api_error_status`.
 * `is_error: true` is a failure even when the process exits 0.
 */
import { isRecord, type Json, numberOrNull, SAMPLE_LIMIT, stringOrNull } from "./json-lines.js";

export interface ClaudeInit {
  readonly sessionId: string;
  readonly model: string | null;
  readonly tools: readonly string[];
  readonly permissionMode: string | null;
  readonly cwd: string | null;
  readonly claudeCodeVersion: string | null;
}

/** Token usage summed over the call, as the result reports it. */
export interface ClaudeUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheCreationInputTokens?: number;
}

/** One entry of `result.permission_denials`. */
export interface ClaudePermissionDenial {
  readonly toolName: string;
  readonly toolUseId: string;
  readonly toolInput: unknown;
}

/** "You've hit your session limit · resets 5:30pm (Europe/Paris)" → `{resetsAt: "5:30pm (Europe/Paris)"}`. */
export interface ClaudeSessionLimit {
  readonly resetsAt?: string;
}

/** What a well-formed `result` event says. */
export interface ClaudeResultFields {
  readonly isError: boolean;
  /** `success` (also for API errors, with `isError`), `error_max_turns`, `error_max_budget_usd`, `error_during_execution`, … */
  readonly subtype: string;
  readonly sessionId: string;
  /**
   * The final text; null when the result carries none (e.g. `error_max_budget_usd`). Bounded: a text
   * longer than `STRING_CAP_BYTES` (8 MiB) keeps its first and last halves joined by `\n`, and
   * `replyDroppedBytes` says how many bytes between them were dropped.
   */
  readonly result: string | null;
  /** Present only when `result` was cut (see there): the bytes dropped from its middle. */
  readonly replyDroppedBytes?: number;
  /** USD at list price; null when the CLI did not report it. */
  readonly totalCostUsd: number | null;
  readonly numTurns: number | null;
  readonly usage: ClaudeUsage | null;
  readonly permissionDenials: readonly ClaudePermissionDenial[];
  readonly errors: readonly string[];
  /** `completed`, `api_error`, `max_turns`, `budget_exhausted`, … ; null when absent. */
  readonly terminalReason: string | null;
  readonly apiErrorStatus: number | null;
  /** `subtype === "error_max_budget_usd"`: the CLI stopped at `--max-budget-usd` (cause `budget_exceeded`). */
  readonly budgetExhausted: boolean;
  /**
   * Set when the CLI reports the model's session limit (SPEC §4: pause, not failure), in any of its
   * forms: an error result (`is_error`, e.g. a 429 the CLI surfaced as "API Error: 429 … hit your session
   * limit") whose result text or errors say "hit your session limit" or "usage limit reached", or a plain
   * result whose whole text is the CLI's notice (starts with "You've hit your session limit" or "Claude AI
   * usage limit reached"). A model's ordinary reply that merely mentions the words is not one.
   */
  readonly sessionLimit: ClaudeSessionLimit | null;
  /** When `isError`: `errors` joined by " / " (lines flattened), else `result`, else the subtype. */
  readonly failureDetail: string | null;
}

const SESSION_LIMIT = /hit your session limit|usage limit reached/i;
/** The CLI's notice as a whole reply: what a non-error result must start with to be a session limit. */
const NOTICE_START =
  /^\s*(?:you(?:'|\u2019)ve hit your session limit|you have hit your session limit|claude ai usage limit reached)/i;
const RESETS = /\bresets\s+([^\n]+)/i;
/** The older notice's reset: `Claude AI usage limit reached|1750000000` (Unix seconds). */
const EPOCH_RESET = /usage limit reached\|(\d{9,11})\b/i;

export function readInit(event: Json): ClaudeInit | null {
  const sessionId = stringOrNull(event.session_id);
  if (sessionId === null) return null;
  return {
    sessionId,
    model: stringOrNull(event.model),
    tools: Array.isArray(event.tools) ? event.tools.filter((t): t is string => typeof t === "string") : [],
    permissionMode: stringOrNull(event.permissionMode),
    cwd: stringOrNull(event.cwd),
    claudeCodeVersion: stringOrNull(event.claude_code_version),
  };
}

/**
 * Reads a `result` event: its fields, or — when it lacks a string `session_id` or a boolean `is_error` —
 * the detail of a `malformed_result`. `replyDroppedBytes` is the bytes the line's bounds cut from
 * `result` (the decoder's cut at path `/result`), 0 when none.
 */
export function readResultEvent(
  event: Json,
  replyDroppedBytes: number,
):
  | { readonly ok: true; readonly fields: ClaudeResultFields }
  | { readonly ok: false; readonly detail: string } {
  const sessionId = stringOrNull(event.session_id);
  if (sessionId === null || typeof event.is_error !== "boolean") {
    return {
      ok: false,
      detail: `claude's result event lacks a string session_id or a boolean is_error: ${JSON.stringify(event).slice(0, SAMPLE_LIMIT)}`,
    };
  }
  const result = stringOrNull(event.result);
  const errors = Array.isArray(event.errors)
    ? event.errors.map((e) => (typeof e === "string" ? e : JSON.stringify(e)))
    : [];
  const subtype = stringOrNull(event.subtype) ?? "unknown";
  const isError = event.is_error;
  const fields: ClaudeResultFields = {
    isError,
    subtype,
    sessionId,
    result,
    ...(result !== null && replyDroppedBytes > 0 ? { replyDroppedBytes } : {}),
    totalCostUsd: numberOrNull(event.total_cost_usd),
    numTurns: numberOrNull(event.num_turns),
    usage: readUsage(event.usage),
    permissionDenials: readDenials(event.permission_denials),
    errors,
    terminalReason: stringOrNull(event.terminal_reason),
    apiErrorStatus: numberOrNull(event.api_error_status),
    budgetExhausted: subtype === "error_max_budget_usd",
    sessionLimit: isError
      ? detectSessionLimit([...(result === null ? [] : [result]), ...errors])
      : result !== null && NOTICE_START.test(result)
        ? detectSessionLimit([result])
        : null,
    failureDetail: isError ? failureDetailOf(errors, result, subtype) : null,
  };
  return { ok: true, fields };
}

/**
 * Best-effort session-limit detection over the texts a result carries (ADR 0009 of oh-my-graph): the first
 * text saying "hit your session limit" or "usage limit reached", and its reset as written after "resets"
 * (`resets 5:30pm (Europe/Paris)`), or as an ISO time from the older `usage limit reached|UNIX_SECONDS`.
 */
export function detectSessionLimit(texts: readonly string[]): ClaudeSessionLimit | null {
  const hit = texts.find((text) => SESSION_LIMIT.test(text));
  if (hit === undefined) return null;
  const tail = hit.slice(hit.search(SESSION_LIMIT));
  const resets = RESETS.exec(tail)?.[1]?.trim();
  if (resets) return { resetsAt: resets };
  const epoch = EPOCH_RESET.exec(tail)?.[1];
  return epoch !== undefined ? { resetsAt: new Date(Number(epoch) * 1000).toISOString() } : {};
}

function readUsage(value: unknown): ClaudeUsage | null {
  if (!isRecord(value)) return null;
  const inputTokens = numberOrNull(value.input_tokens);
  const outputTokens = numberOrNull(value.output_tokens);
  if (inputTokens === null || outputTokens === null) return null;
  const cacheRead = numberOrNull(value.cache_read_input_tokens);
  const cacheCreation = numberOrNull(value.cache_creation_input_tokens);
  return {
    inputTokens,
    outputTokens,
    ...(cacheRead !== null && { cacheReadInputTokens: cacheRead }),
    ...(cacheCreation !== null && { cacheCreationInputTokens: cacheCreation }),
  };
}

function readDenials(value: unknown): ClaudePermissionDenial[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((denial) => ({
    toolName: stringOrNull(denial.tool_name) ?? "(unknown tool)",
    toolUseId: stringOrNull(denial.tool_use_id) ?? "",
    toolInput: denial.tool_input,
  }));
}

function failureDetailOf(errors: readonly string[], result: string | null, subtype: string): string {
  if (errors.length > 0) return errors.map((e) => e.replace(/\s*\n\s*/g, " / ")).join(" / ");
  if (result !== null && result.trim() !== "") return result;
  return `claude reported is_error with subtype "${subtype}" and no message`;
}
