/**
 * Incremental parser for `codex exec --json` stdout (SPEC §4 "Codex CLI"; research/oh-my-graph.md §5.4).
 *
 * Lines read (codex-cli 0.169.0, recorded from the real CLI in test/runtime/fixtures/codex-*.jsonl and
 * re-checked by test/runtime/codex-cli.test.ts):
 * - `{"type":"thread.started","thread_id":"<uuid>"}` → `threadId`, available as soon as the line arrives
 *   (the engine can publish it while the process runs). A resume prints the same id again.
 * - `{"type":"turn.started"}`.
 * - `item.started` / `item.updated` / `item.completed` with `item: {id, type, …}`; the latest state of
 *   each item id wins:
 *   - `agent_message {text}` → `reply` (the LAST completed one wins; `agentMessages` counts them);
 *   - `command_execution {command: "/bin/bash -lc '<cmd>'", aggregated_output, exit_code: number|null,
 *     status: "in_progress"|"completed"|"failed"}` → `commands`. A command the sandbox blocked USUALLY
 *     produces no item at all (fake-model.md §4.5), but not always: in about one loaded run in five,
 *     0.169.0 printed it as a `failed` item with exit code 1. Neither the presence nor the absence of an
 *     item proves what happened on disk; check the filesystem;
 *   - `file_change {changes: [{path (absolute), kind: "add"|"update"|"delete"}], status}` (apply_patch) →
 *     `fileChanges`, and their paths → `writtenPaths` (unless the item's last status is `failed`/`declined`);
 *   - `todo_list {items: [{text, completed}]}` (the model's `update_plan` tool, advertised when
 *     `-c tools.update_plan={enabled=true}`: started at the first call, updated at each later one,
 *     completed when the turn ends) → `todos`, the latest list;
 *   - `error {message}` → `warnings`: NOT a failure. 0.169.0 emits it for a model slug missing from its
 *     catalog ("Model metadata for `X` not found. Defaulting to fallback metadata…") and for a transport
 *     fallback ("Falling back from WebSockets to HTTPS transport…"), and the turn carries on.
 *   - `reasoning`, `mcp_tool_call`, `web_search`: ignored.
 * - `{"type":"turn.completed","usage":{input_tokens, cached_input_tokens, cache_write_input_tokens,
 *   output_tokens, reasoning_output_tokens}}` → terminal, success. `input_tokens` includes the cached
 *   ones (Responses API convention). The usage is CUMULATIVE FOR THE THREAD: measured, a resumed leg
 *   whose one request reported 50 input tokens printed 1050 after a first leg of 1000. Subtract the
 *   previous leg's usage to get one call's share.
 * - `{"type":"turn.failed","error":{"message"}}` → terminal, failure (`isError`), whatever the exit code.
 *   Every failure measured exited 1 (HTTP 400/401/403/404/429/500/503/529, in-stream `response.failed`),
 *   but the contract is the event, not the exit code (SPEC §4). A 429 whose body says
 *   `error.type: "usage_limit_reached"` (a ChatGPT plan's usage limit) is not retried and fails with
 *   "You’ve hit your usage limit. … Try again at 9:54 AM." (or "… Try again later." without `resets_at`)
 *   → `usageLimit` (SPEC §4: a pause, not a failure). A 429 without that type is a rate limit codex
 *   retries, then fails with "exceeded retry limit, last status: 429 Too Many Requests": no `usageLimit`.
 * - top-level `{"type":"error","message"}` → `errors`. Printed before a `turn.failed` (same message) AND
 *   for transient notices such as "Reconnecting... 2/5 (stream disconnected before completion: …)" that
 *   a later `turn.completed` may follow, so an `error` line alone decides nothing: only the terminal event
 *   does. A stream that ends with errors and no terminal event is `no_result` with the errors as detail.
 *
 * Codex reports no USD: `costUsd` is always null ("unknown"), never 0 (SPEC §4).
 *
 * Bounded (SPEC §9; `jsonl-reader.ts`): stdout is read once, chunk by chunk (`write`); a line over 1 MiB
 * is decoded as it arrives, never held, its strings capped (the reply keeps its first and last 4 MiB,
 * `replyDroppedBytes` says what was dropped); items are kept as small bounded records (`codex-items.ts`),
 * top-level errors as the most recent 10,000 (each at most 4096 characters).
 */
import { RecentList, recordText } from "./bounded-records.js";
import { type CodexItemActivity, CodexItems } from "./codex-items.js";
import {
  type EventCuts,
  isRecord,
  type Json,
  type JsonLineCounts,
  jsonLineParser,
  numberOrNull,
  parseWhole,
  stringOrNull,
} from "./json-lines.js";

export interface CodexUsage {
  /** Input tokens, cached ones included. */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningOutputTokens: number;
  readonly cacheWriteInputTokens?: number;
}

/** What the stream showed, also known when no terminal event arrived. */
export interface CodexActivity extends CodexItemActivity {
  /** Top-level `error` messages, in order (transient notices included; see the module comment). */
  readonly errors: readonly string[];
  /** stdout lines that were not JSON objects with a string `type` (kept out of the outcome). */
  readonly ignoredLines: number;
  readonly firstIgnoredLine: string | null;
  /** Codex reports no USD: always null (the ledger prints `unknown`), never 0. */
  readonly costUsd: null;
}

export type CodexOutcome = CodexCompleted | CodexNoResult;

/** A terminal event arrived: `turn.completed` (`isError: false`) or `turn.failed` (`isError: true`). */
export interface CodexCompleted extends CodexActivity {
  readonly kind: "completed";
  readonly isError: boolean;
  readonly threadId: string;
  /** From `turn.completed` (cumulative for the thread); null on `turn.failed` or when absent. */
  readonly usage: CodexUsage | null;
  /** When `isError`: `turn.failed.error.message`, else the last top-level error, else a generic line. */
  readonly failureDetail: string | null;
  /**
   * Set when the turn failed at the model's usage limit ({@link detectCodexUsageLimit} over the failure
   * message and the top-level errors); null otherwise, and always on `turn.completed`.
   */
  readonly usageLimit: CodexUsageLimit | null;
}

/**
 * Codex's usage limit: "You’ve hit your usage limit. Try again at 9:54 AM." → `{resetsAt: "9:54 AM"}`;
 * no `resetsAt` when codex gave no time ("Try again later.").
 */
export interface CodexUsageLimit {
  readonly resetsAt?: string;
}

/** No usable terminal event: the engine maps this to cause `output_error`. */
export interface CodexNoResult extends CodexActivity {
  readonly kind: "no_result";
  /**
   * `empty_output`: stdout had no lines (e.g. "Error finding codex home", a usage error: both go to
   * stderr); `no_thread_started`: a terminal event but no thread id; `no_terminal_event`: the stream
   * ended before `turn.completed` / `turn.failed` (killed, crashed).
   */
  readonly reason: "empty_output" | "no_thread_started" | "no_terminal_event";
  readonly detail: string;
  /** From `thread.started` when it arrived (the id a resume would use), else null. */
  readonly threadId: string | null;
}

export interface CodexStreamParser {
  /** Feeds one stdout line (without or with its trailing newline). */
  push(line: string): void;
  /** Feeds raw stdout bytes as the pipe delivers them (lines split and bounded here). */
  write(chunk: Buffer): void;
  /** The thread id, once `thread.started` was seen. */
  readonly threadId: string | null;
  /** Ends the stream and returns the outcome. Idempotent; `push` or `write` after it is an internal error. */
  finish(): CodexOutcome;
}

function count(value: unknown): number {
  return numberOrNull(value) ?? 0;
}

function readUsage(value: unknown): CodexUsage | null {
  if (!isRecord(value)) return null;
  if (typeof value.input_tokens !== "number" || typeof value.output_tokens !== "number") return null;
  return {
    inputTokens: count(value.input_tokens),
    cachedInputTokens: count(value.cached_input_tokens),
    outputTokens: count(value.output_tokens),
    reasoningOutputTokens: count(value.reasoning_output_tokens),
    ...(typeof value.cache_write_input_tokens === "number" && {
      cacheWriteInputTokens: value.cache_write_input_tokens,
    }),
  };
}

/** `turn.failed`'s `error`: `{message}`, a bare string, or anything else (kept as JSON). */
function failureMessage(error: unknown): string | null {
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  return error === undefined || error === null ? null : JSON.stringify(error);
}

export function createCodexStreamParser(): CodexStreamParser {
  let threadId: string | null = null;
  let terminal: { readonly failed: boolean; readonly event: Json } | null = null;
  const items = new CodexItems();
  const errors = new RecentList<string>();

  const activity = ({ ignoredLines, firstIgnoredLine }: JsonLineCounts): CodexActivity => ({
    ...items.activity(),
    errors: errors.toArray(),
    ignoredLines,
    firstIgnoredLine,
    costUsd: null,
  });

  const outcome = (counts: JsonLineCounts): CodexOutcome => {
    const { lines, firstIgnoredLine } = counts;
    const noResult = (reason: CodexNoResult["reason"], detail: string): CodexNoResult => ({
      kind: "no_result",
      reason,
      detail,
      threadId,
      ...activity(counts),
    });
    if (lines === 0) return noResult("empty_output", "codex produced no output");
    if (terminal === null) {
      const last = errors.last();
      const why =
        last !== undefined
          ? `; last error: ${last}`
          : firstIgnoredLine !== null
            ? `; first non-JSON line: ${firstIgnoredLine}`
            : "";
      return noResult(
        "no_terminal_event",
        `codex printed ${lines} line(s) but no turn.completed or turn.failed${why}`,
      );
    }
    if (threadId === null) {
      return noResult(
        "no_thread_started",
        "codex ended its turn without a thread.started event (no thread id)",
      );
    }
    const { failed, event } = terminal;
    const message = failed ? failureMessage(event.error) : null;
    const seen = activity(counts);
    return {
      kind: "completed",
      isError: failed,
      threadId,
      usage: failed ? null : readUsage(event.usage),
      failureDetail: failed
        ? (message ?? errors.last() ?? "codex reported turn.failed with no message")
        : null,
      usageLimit: failed
        ? detectCodexUsageLimit([...(message !== null ? [message] : []), ...seen.errors])
        : null,
      ...seen,
    };
  };

  const onEvent = (event: Json & { readonly type: string }, cuts: EventCuts): void => {
    switch (event.type) {
      case "thread.started":
        threadId ??= stringOrNull(event.thread_id);
        return;
      case "item.started":
      case "item.updated":
      case "item.completed":
        if (isRecord(event.item)) {
          items.read(event.item, event.type === "item.completed", cuts.cutStrings.get("/item/text") ?? 0);
        }
        return;
      case "turn.completed":
        terminal = { failed: false, event };
        return;
      case "turn.failed":
        terminal = { failed: true, event };
        return;
      case "error":
        errors.push(recordText(stringOrNull(event.message) ?? JSON.stringify(event)));
        return;
      default:
        return; // turn.started, and anything a later codex adds
    }
  };
  const parser = jsonLineParser("codex", onEvent, outcome);

  return {
    get threadId() {
      return threadId;
    },
    push: parser.push,
    write: parser.write,
    finish: parser.finish,
  };
}

const USAGE_LIMIT = /you(?:'|\u2019)ve hit your usage limit/i;
/** The reset as codex words it: "try again at 9:54 AM." / "Try again at Dec 5th, 2026 9:54 AM." */
const TRY_AGAIN_AT = /\btry again at\s+([^\n]+?)\s*(?:\.(?:\s|$)|\n|$)/i;

/**
 * Finds codex's usage-limit notice in the texts a failed turn carries (0.169.0 words it "You’ve hit your
 * usage limit." then an upgrade or credits hint, then "try again at TIME." or "Try again later."; the
 * apostrophe typographic or straight): the first text holding it, and the reset as codex wrote it, in
 * the CLI's local time (never parsed into a clock time). A rate limit ("exceeded retry limit, last status:
 * 429") and "To use Codex with your ChatGPT plan, upgrade to Plus" (`usage_not_included`: no reset will
 * help) are not one.
 *
 * @returns `{resetsAt?}`, or null when no text holds the notice.
 */
export function detectCodexUsageLimit(texts: readonly string[]): CodexUsageLimit | null {
  const hit = texts.find((text) => USAGE_LIMIT.test(text));
  if (hit === undefined) return null;
  const resets = TRY_AGAIN_AT.exec(hit.slice(hit.search(USAGE_LIMIT)))?.[1]?.trim();
  return resets ? { resetsAt: resets } : {};
}

/** Parses a whole captured stdout at once. */
export function parseCodexStream(stdout: string): CodexOutcome {
  return parseWhole(createCodexStreamParser(), stdout);
}
