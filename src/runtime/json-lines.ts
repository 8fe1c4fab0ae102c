/**
 * What the model CLIs' JSONL stdout parsers (`claude-stream.ts`, `codex-stream.ts`) share: typed readers
 * for loosely shaped JSON, and the line loop itself — each stdout line trimmed, counted, parsed, and
 * handed on as an event when it is a JSON object with a string `type`, else counted as ignored with a
 * sample of the first such line kept for the outcome's detail. Raw stdout is split and bounded by a
 * {@link JsonlReader} (`jsonl-reader.ts`), so neither one huge line nor many lines are ever held whole.
 */

import { JsonlReader } from "./jsonl-reader.js";

export type Json = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** A finite number, else null. */
export function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** How many characters of the first ignored line are kept. */
export const SAMPLE_LIMIT = 200;

/** What the line loop counted, for the outcome. */
export interface JsonLineCounts {
  /** Non-blank lines. */
  readonly lines: number;
  /** Lines that were not JSON objects with a string `type`. */
  readonly ignoredLines: number;
  /** The first of them, cut at 200 characters. */
  readonly firstIgnoredLine: string | null;
}

/** What an event's line lost to the bounds (`jsonl-reader.ts`); empty for a line parsed whole. */
export interface EventCuts {
  /** Strings kept as their first and last halves, by path (`/result`, `/item/text`) → bytes dropped. */
  readonly cutStrings: ReadonlyMap<string, number>;
}

/**
 * An incremental JSONL parser: feed stdout with `write` (raw bytes, as the pipe delivers them) or
 * `push` (one line of text), then `finish` once.
 */
export interface JsonLineParser<T> {
  /** Feeds one stdout line (without or with its trailing newline). */
  push(line: string): void;
  /** Feeds raw stdout bytes; lines are split and bounded by a {@link JsonlReader}. */
  write(chunk: Buffer): void;
  finish(): T;
}

const NO_CUTS: EventCuts = { cutStrings: new Map() };

/**
 * The line loop of a `cli` stream parser: `onEvent` gets every event, `outcome` is computed once, on the
 * first `finish()` (later calls return it again; a `push` or `write` after it is an internal error).
 */
export function jsonLineParser<T>(
  cli: string,
  onEvent: (event: Json & { readonly type: string }, cuts: EventCuts) => void,
  outcome: (counts: JsonLineCounts) => T,
): JsonLineParser<T> {
  let lines = 0;
  let ignoredLines = 0;
  let firstIgnoredLine: string | null = null;
  let finished: { readonly outcome: T } | null = null;
  const ignore = (sample: string, longer: boolean) => {
    ignoredLines++;
    firstIgnoredLine ??=
      longer || sample.length > SAMPLE_LIMIT ? `${sample.slice(0, SAMPLE_LIMIT)}…` : sample;
  };
  const event = (value: unknown, sample: () => string, cuts: EventCuts, longer: boolean) => {
    if (!isRecord(value) || typeof value.type !== "string") {
      ignore(sample(), longer);
      return;
    }
    onEvent(value as Json & { readonly type: string }, cuts);
  };
  const text = (raw: string) => {
    const line = raw.replace(/\r?\n$/, "").trim();
    if (line === "") return;
    lines++;
    // Only an object can be an event, and every other line is ignored the same way whether or not it is
    // JSON: so a line that does not open an object is ignored without `JSON.parse`, whose thrown error
    // cost ~10 µs a line (bench B6: a node printing 40 MB of short non-JSON lines spent 19 s here).
    if (line.charCodeAt(0) !== 0x7b) {
      ignore(line, false);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      ignore(line, false);
      return;
    }
    event(value, () => line, NO_CUTS, false);
  };
  const reader = new JsonlReader((line) => {
    if (line.kind === "text") return text(line.text);
    const { result } = line;
    if (result.kind === "blank") return;
    lines++;
    if (result.kind === "invalid") return ignore(result.sample, true);
    const sample = () => JSON.stringify(result.value).slice(0, SAMPLE_LIMIT);
    event(result.value, sample, { cutStrings: result.cutStrings }, true);
  });
  const open = () => {
    if (finished !== null) throw new Error(`Internal error: push() after finish() on a ${cli} stream parser`);
  };
  return {
    push(raw: string) {
      open();
      text(raw);
    },
    write(chunk: Buffer) {
      open();
      reader.write(chunk);
    },
    finish() {
      if (finished === null) reader.end();
      finished ??= { outcome: outcome({ lines, ignoredLines, firstIgnoredLine }) };
      return finished.outcome;
    },
  };
}

/** Parses a whole captured stdout at once. */
export function parseWhole<T>(parser: JsonLineParser<T>, stdout: string): T {
  for (const line of stdout.split("\n")) parser.push(line);
  return parser.finish();
}
