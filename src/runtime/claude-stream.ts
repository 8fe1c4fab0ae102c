/**
 * Incremental parser for `claude -p … --output-format stream-json --verbose` stdout (SPEC §4).
 *
 * Lines read (claude 2.1.332, measured against the real CLI in test/runtime/claude-cli.test.ts):
 * - `{"type":"system","subtype":"init", session_id, model, tools, permissionMode, cwd, claude_code_version}`
 *   → `init` (available as soon as the line arrives, so the engine can publish the session id early).
 * - `{"type":"system","subtype":"permission_denied", tool_use_id, tool_name, …}`, one per denied call.
 * - `{"type":"user", message.content:[tool_result…], tool_result_meta:[{id, permission_decision:{decision}}]}`.
 * - the final `{"type":"result", …}`: `session_id`, `result`, `total_cost_usd`, `is_error`, `subtype`,
 *   `num_turns`, `usage`, `permission_denials`, `errors`, `terminal_reason`, `api_error_status`.
 *
 * Denied tool calls are counted as the number of distinct `tool_use_id`s named by ANY of the three
 * permission signals: `result.permission_denials`, `system/permission_denied` lines and
 * `tool_result_meta` entries whose decision is `reject`. Measured, the three always named the same calls
 * (dontAsk mode, default mode, scoped deny rules), but only the last two arrive while the process runs, so
 * a node killed before its result still reports the denials seen; the union is never smaller than any
 * one signal, and never counts a call twice.
 *
 * A call to a tool removed by `--tools` / a bare-name `--disallowedTools` is not a permission decision:
 * the CLI answers it with an `is_error` tool_result "<tool_use_error>Error: No such tool available: X …"
 * and names it nowhere else. Those are counted separately as `unavailableToolCalls`.
 *
 * File writes: every `tool_use` block of an `assistant` message that calls `Write`, `Edit`, `MultiEdit`
 * (`file_path`) or `NotebookEdit` (`notebook_path`) is recorded, in order, as `writtenPaths` (the paths as
 * the model gave them, deduplicated). A call is left out only when the stream shows it did not run: a
 * permission denial, an unavailable tool, or an `is_error` tool_result. A call with no result yet (a
 * process killed mid-call) counts — this is detection, and it fails safe.
 *
 * `is_error: true` is surfaced as `isError` and must fail the node even when the process exits 0 (SPEC §4).
 * Every error measured exited 1, but the contract is the field, not the exit code.
 */
import {
  isRecord,
  type Json,
  type JsonLineCounts,
  jsonLineParser,
  numberOrNull,
  parseWhole,
  SAMPLE_LIMIT,
  stringOrNull,
} from "./json-lines.js";

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

/** What the stream said about tool calls, also known when no result arrived. */
export interface ClaudeToolCallCounts {
  /** Distinct tool calls refused by a permission decision (see the module comment). */
  readonly deniedToolCalls: number;
  /** Calls to tools that were not available at all (removed by `--tools` / bare `--disallowedTools`). */
  readonly unavailableToolCalls: number;
  /**
   * The paths the model's file-writing tool calls named (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`),
   * as given (absolute or relative to the CLI's cwd), first-seen order, without the calls the stream shows
   * did not run (see the module comment).
   */
  readonly writtenPaths: readonly string[];
}

export type ClaudeOutcome = ClaudeCompleted | ClaudeNoResult;

/** The CLI printed a well-formed `result` event. `isError` is authoritative, whatever the exit code. */
export interface ClaudeCompleted extends ClaudeToolCallCounts {
  readonly kind: "completed";
  readonly isError: boolean;
  /** `success` (also for API errors, with `isError`), `error_max_turns`, `error_max_budget_usd`, `error_during_execution`, … */
  readonly subtype: string;
  readonly sessionId: string;
  /** The final text; null when the result carries none (e.g. `error_max_budget_usd`). */
  readonly result: string | null;
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
  /** Set when the result text or errors say "hit your session limit" (SPEC §4: pause, not failure). */
  readonly sessionLimit: ClaudeSessionLimit | null;
  /** When `isError`: `errors` joined by " / " (lines flattened), else `result`, else the subtype. */
  readonly failureDetail: string | null;
  readonly init: ClaudeInit | null;
  /** stdout lines that were not JSON objects with a `type` (kept out of the outcome; see `firstIgnoredLine`). */
  readonly ignoredLines: number;
  readonly firstIgnoredLine: string | null;
}

/** No usable `result` event: the engine maps this to cause `output_error`. */
export interface ClaudeNoResult extends ClaudeToolCallCounts {
  readonly kind: "no_result";
  /** `empty_output`: stdout had no lines; `no_result_event`: lines but no result; `malformed_result`: a result event without a string `session_id` / boolean `is_error`. */
  readonly reason: "empty_output" | "no_result_event" | "malformed_result";
  readonly detail: string;
  readonly init: ClaudeInit | null;
  /** From `init` when it arrived (the id a resume would use), else null. */
  readonly sessionId: string | null;
  readonly ignoredLines: number;
  readonly firstIgnoredLine: string | null;
}

export interface ClaudeStreamParser {
  /** Feeds one stdout line (without or with its trailing newline). */
  push(line: string): void;
  /** The init event, once seen. */
  readonly init: ClaudeInit | null;
  /** Ends the stream and returns the outcome. Idempotent; `push` after it is an internal error. */
  finish(): ClaudeOutcome;
}

const SESSION_LIMIT = /hit your session limit/i;
const RESETS = /\bresets\s+([^\n]+)/i;
const UNAVAILABLE_TOOL = /No such tool available/;
/** The CLI's file-writing tools and the input field that names the file. */
const FILE_WRITING_TOOLS: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

function readInit(event: Json): ClaudeInit | null {
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

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isRecord)
    .map((block) => (typeof block.text === "string" ? block.text : ""))
    .join("\n");
}

/** Best-effort session-limit detection over the texts a result carries (ADR 0009 of oh-my-graph). */
export function detectSessionLimit(texts: readonly string[]): ClaudeSessionLimit | null {
  const hit = texts.find((text) => SESSION_LIMIT.test(text));
  if (hit === undefined) return null;
  const resets = RESETS.exec(hit.slice(hit.search(SESSION_LIMIT)))?.[1]?.trim();
  return resets ? { resetsAt: resets } : {};
}

function failureDetailOf(errors: readonly string[], result: string | null, subtype: string): string {
  if (errors.length > 0) return errors.map((e) => e.replace(/\s*\n\s*/g, " / ")).join(" / ");
  if (result !== null && result.trim() !== "") return result;
  return `claude reported is_error with subtype "${subtype}" and no message`;
}

export function createClaudeStreamParser(): ClaudeStreamParser {
  let init: ClaudeInit | null = null;
  let resultEvent: Json | null = null;
  const deniedIds = new Set<string>();
  const unavailableIds = new Set<string>();
  /** File-writing calls in the order seen: tool_use id (or a synthetic one) → path. */
  const writeCalls = new Map<string, string>();
  const erroredIds = new Set<string>();

  const readUserEvent = (event: Json) => {
    const meta = event.tool_result_meta;
    if (Array.isArray(meta)) {
      for (const entry of meta.filter(isRecord)) {
        const decision = isRecord(entry.permission_decision) ? entry.permission_decision.decision : undefined;
        if (decision === "reject" && typeof entry.id === "string") deniedIds.add(entry.id);
      }
    }
    const content = isRecord(event.message) ? event.message.content : undefined;
    if (!Array.isArray(content)) return;
    for (const block of content.filter(isRecord)) {
      if (block.type !== "tool_result" || block.is_error !== true || typeof block.tool_use_id !== "string") {
        continue;
      }
      erroredIds.add(block.tool_use_id);
      if (UNAVAILABLE_TOOL.test(toolResultText(block.content))) unavailableIds.add(block.tool_use_id);
    }
  };

  const readAssistantEvent = (event: Json) => {
    const content = isRecord(event.message) ? event.message.content : undefined;
    if (!Array.isArray(content)) return;
    for (const block of content.filter(isRecord)) {
      if (block.type !== "tool_use" || typeof block.name !== "string") continue;
      const field = Object.hasOwn(FILE_WRITING_TOOLS, block.name)
        ? FILE_WRITING_TOOLS[block.name]
        : undefined;
      if (field === undefined || !isRecord(block.input)) continue;
      const path = block.input[field];
      if (typeof path !== "string" || path === "") continue;
      const id = typeof block.id === "string" ? block.id : `(no id ${writeCalls.size})`;
      if (!writeCalls.has(id)) writeCalls.set(id, path);
    }
  };

  const writtenPaths = (): string[] => {
    const paths = new Set<string>();
    for (const [id, path] of writeCalls) {
      if (deniedIds.has(id) || unavailableIds.has(id) || erroredIds.has(id)) continue;
      paths.add(path);
    }
    return [...paths];
  };

  const counts = (): ClaudeToolCallCounts => ({
    deniedToolCalls: deniedIds.size,
    unavailableToolCalls: [...unavailableIds].filter((id) => !deniedIds.has(id)).length,
    writtenPaths: writtenPaths(),
  });

  const outcome = ({ lines, ignoredLines, firstIgnoredLine }: JsonLineCounts): ClaudeOutcome => {
    const noResult = (reason: ClaudeNoResult["reason"], detail: string): ClaudeNoResult => ({
      kind: "no_result",
      reason,
      detail,
      init,
      sessionId: init?.sessionId ?? null,
      ignoredLines,
      firstIgnoredLine,
      ...counts(),
    });
    if (resultEvent === null) {
      if (lines === 0) return noResult("empty_output", "claude produced no output");
      const sample = firstIgnoredLine === null ? "" : `; first non-JSON line: ${firstIgnoredLine}`;
      return noResult("no_result_event", `claude printed ${lines} line(s) but no result event${sample}`);
    }
    const event = resultEvent;
    const sessionId = stringOrNull(event.session_id);
    if (sessionId === null || typeof event.is_error !== "boolean") {
      return noResult(
        "malformed_result",
        `claude's result event lacks a string session_id or a boolean is_error: ${JSON.stringify(event).slice(0, SAMPLE_LIMIT)}`,
      );
    }
    const permissionDenials = readDenials(event.permission_denials);
    for (const denial of permissionDenials) if (denial.toolUseId !== "") deniedIds.add(denial.toolUseId);
    const result = stringOrNull(event.result);
    const errors = Array.isArray(event.errors)
      ? event.errors.map((e) => (typeof e === "string" ? e : JSON.stringify(e)))
      : [];
    const subtype = stringOrNull(event.subtype) ?? "unknown";
    const isError = event.is_error;
    return {
      kind: "completed",
      isError,
      subtype,
      sessionId,
      result,
      totalCostUsd: numberOrNull(event.total_cost_usd),
      numTurns: numberOrNull(event.num_turns),
      usage: readUsage(event.usage),
      permissionDenials,
      errors,
      terminalReason: stringOrNull(event.terminal_reason),
      apiErrorStatus: numberOrNull(event.api_error_status),
      budgetExhausted: subtype === "error_max_budget_usd",
      sessionLimit: detectSessionLimit([...(result === null ? [] : [result]), ...errors]),
      failureDetail: isError ? failureDetailOf(errors, result, subtype) : null,
      init,
      ignoredLines,
      firstIgnoredLine,
      ...counts(),
    };
  };

  const parser = jsonLineParser(
    "claude",
    (event) => {
      switch (event.type) {
        case "system":
          if (event.subtype === "init" && init === null) init = readInit(event);
          else if (event.subtype === "permission_denied" && typeof event.tool_use_id === "string") {
            deniedIds.add(event.tool_use_id);
          }
          return;
        case "user":
          readUserEvent(event);
          return;
        case "assistant":
          readAssistantEvent(event);
          return;
        case "result":
          resultEvent = event; // the last one wins; `-p` prints exactly one
          return;
        default:
          return; // stream_event, rate_limit_event, …: nothing the engine needs
      }
    },
    outcome,
  );

  return {
    get init() {
      return init;
    },
    push: parser.push,
    finish: parser.finish,
  };
}

/** Parses a whole captured stdout at once. */
export function parseClaudeStream(stdout: string): ClaudeOutcome {
  return parseWhole(createClaudeStreamParser(), stdout);
}
