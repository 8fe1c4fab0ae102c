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
 * Plans: the `input.todos[{content, status}]` of the latest `TodoWrite` call that was not voided the same
 * way is the completed outcome's `todos` (the completion gate's `todos: all_done` reads it). On 2.1.332
 * the CLI offers `TodoWrite` only with `CLAUDE_CODE_ENABLE_TASKS=false` and
 * `CLAUDE_CODE_ENABLE_TODO_TOOLS=true` in its environment (measured: otherwise a call is answered "No such
 * tool available: TodoWrite"), which the engine sets for a node whose gate reads todos.
 *
 * `is_error: true` is surfaced as `isError` and must fail the node even when the process exits 0 (SPEC §4).
 * Every error measured exited 1, but the contract is the field, not the exit code.
 *
 * Bounded (SPEC §9; `jsonl-reader.ts`): stdout is read once, chunk by chunk (`write`); a line over 1 MiB
 * is decoded as it arrives, never held, its strings capped (the reply keeps its first and last 4 MiB,
 * `replyDroppedBytes` says what was dropped); only the last result event and small per-call records
 * (`claude-tool-calls.ts`) are kept across events. The result event is read in `claude-result.ts`.
 */
import type { ClaudeInit, ClaudeResultFields } from "./claude-result.js";
import { readInit, readResultEvent } from "./claude-result.js";
import { type ClaudeTodo, type ClaudeToolCallCounts, ClaudeToolCalls } from "./claude-tool-calls.js";
import { type EventCuts, type Json, type JsonLineCounts, jsonLineParser, parseWhole } from "./json-lines.js";

export type ClaudeOutcome = ClaudeCompleted | ClaudeNoResult;

/** The CLI printed a well-formed `result` event. `isError` is authoritative, whatever the exit code. */
export interface ClaudeCompleted extends ClaudeToolCallCounts, ClaudeResultFields {
  readonly kind: "completed";
  /** The plan of the latest `TodoWrite` call that was not voided; `null` when none was declared. */
  readonly todos: readonly ClaudeTodo[] | null;
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
  /** Feeds raw stdout bytes as the pipe delivers them (lines split and bounded here). */
  write(chunk: Buffer): void;
  /** The init event, once seen. */
  readonly init: ClaudeInit | null;
  /** Ends the stream and returns the outcome. Idempotent; `push` or `write` after it is an internal error. */
  finish(): ClaudeOutcome;
}

export function createClaudeStreamParser(): ClaudeStreamParser {
  let init: ClaudeInit | null = null;
  let resultEvent: { readonly event: Json; readonly replyDroppedBytes: number } | null = null;
  const tools = new ClaudeToolCalls();

  const outcome = ({ lines, ignoredLines, firstIgnoredLine }: JsonLineCounts): ClaudeOutcome => {
    const noResult = (reason: ClaudeNoResult["reason"], detail: string): ClaudeNoResult => ({
      kind: "no_result",
      reason,
      detail,
      init,
      sessionId: init?.sessionId ?? null,
      ignoredLines,
      firstIgnoredLine,
      ...tools.counts(),
    });
    if (resultEvent === null) {
      if (lines === 0) return noResult("empty_output", "claude produced no output");
      const sample = firstIgnoredLine === null ? "" : `; first non-JSON line: ${firstIgnoredLine}`;
      return noResult("no_result_event", `claude printed ${lines} line(s) but no result event${sample}`);
    }
    const read = readResultEvent(resultEvent.event, resultEvent.replyDroppedBytes);
    if (!read.ok) return noResult("malformed_result", read.detail);
    for (const denial of read.fields.permissionDenials) {
      if (denial.toolUseId !== "") tools.denied(denial.toolUseId);
    }
    return {
      kind: "completed",
      ...read.fields,
      init,
      ignoredLines,
      firstIgnoredLine,
      ...tools.counts(),
      todos: tools.latestTodos(),
    };
  };

  const onEvent = (event: Json & { readonly type: string }, cuts: EventCuts): void => {
    switch (event.type) {
      case "system":
        if (event.subtype === "init" && init === null) init = readInit(event);
        else if (event.subtype === "permission_denied" && typeof event.tool_use_id === "string") {
          tools.denied(event.tool_use_id);
        }
        return;
      case "user":
        tools.readUserEvent(event);
        return;
      case "assistant":
        tools.readAssistantEvent(event);
        return;
      case "result":
        // The last one wins; `-p` prints exactly one.
        resultEvent = { event, replyDroppedBytes: cuts.cutStrings.get("/result") ?? 0 };
        return;
      default:
        return; // stream_event, rate_limit_event, …: nothing the engine needs
    }
  };
  const parser = jsonLineParser("claude", onEvent, outcome);

  return {
    get init() {
      return init;
    },
    push: parser.push,
    write: parser.write,
    finish: parser.finish,
  };
}

/** Parses a whole captured stdout at once. */
export function parseClaudeStream(stdout: string): ClaudeOutcome {
  return parseWhole(createClaudeStreamParser(), stdout);
}
