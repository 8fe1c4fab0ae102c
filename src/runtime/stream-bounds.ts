/**
 * The bounds of reading a model CLI's JSONL stdout (`claude --output-format stream-json`, `codex exec
 * --json`; SPEC §4, §9: output is bounded). A call's stdout is read once, chunk by chunk; what the parser
 * keeps is bounded by these numbers whatever the CLI prints — one 200 MB line, or millions of events.
 * Sizes are bytes of UTF-8 unless a name says characters.
 */

/** A line up to this long is parsed whole (`JSON.parse`); a longer one by the bounded decoder (1 MiB). */
export const WHOLE_LINE_BYTES = 1024 * 1024;

/**
 * The most kept of any one string of an over-long line (8 MiB), the reply text included (claude's
 * `result`, codex's `agent_message` text): a longer string keeps its first and last 4 MiB joined by one
 * `\n`, and the parser's outcome says how many bytes were dropped (`replyDroppedBytes`). A string of a
 * line within {@link WHOLE_LINE_BYTES} is always whole.
 */
export const STRING_CAP_BYTES = 8 * 1024 * 1024;

/**
 * The most string bytes kept over one over-long line, all strings together (16 MiB). Once spent, each
 * further string of that line keeps at most {@link SHORT_STRING_BYTES} (its first and last halves), so
 * event types, ids, paths and numbers still arrive.
 */
export const LINE_KEEP_BYTES = 16 * 1024 * 1024;

/** What a string keeps once its line's {@link LINE_KEEP_BYTES} are spent; also the cap of an object key. */
export const SHORT_STRING_BYTES = 1024;

/**
 * The most values (strings, numbers, literals, containers) kept of one over-long line (100,000), and of
 * one array or object (10,000 items). Later values are read and checked, but not kept.
 */
export const LINE_MAX_VALUES = 100_000;
export const CONTAINER_MAX_ITEMS = 10_000;

/** Nesting deeper than this (512) makes an over-long line "not JSON" (it is counted as ignored). */
export const MAX_DEPTH = 512;

/** A number token longer than this (1 KiB) makes an over-long line "not JSON". */
export const MAX_NUMBER_CHARS = 1024;

/**
 * The most records a parser keeps of one kind across a call (10,000): tool calls tracked for denials and
 * writes, codex commands, file-change items and todo items. Calls beyond it are not tracked (a real call
 * makes a few hundred at most); messages (codex `errors`, `warnings`) keep the most recent ones.
 */
export const MAX_TRACKED = 10_000;

/** The most characters of a record's own text kept (a command line, a message, a todo): 4096. */
export const RECORD_TEXT_CHARS = 4096;
