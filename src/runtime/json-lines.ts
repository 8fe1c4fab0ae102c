/**
 * What the model CLIs' JSONL stdout parsers (`claude-stream.ts`, `codex-stream.ts`) share: typed readers
 * for loosely shaped JSON, and the line loop itself — each stdout line trimmed, counted, parsed, and
 * handed on as an event when it is a JSON object with a string `type`, else counted as ignored with a
 * sample of the first such line kept for the outcome's detail.
 */

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

/** An incremental JSONL parser: `push` each stdout line, then `finish` once. */
export interface JsonLineParser<T> {
  push(line: string): void;
  finish(): T;
}

/**
 * The line loop of a `cli` stream parser: `onEvent` gets every event, `outcome` is computed once, on the
 * first `finish()` (later calls return it again; a `push` after it is an internal error).
 */
export function jsonLineParser<T>(
  cli: string,
  onEvent: (event: Json & { readonly type: string }) => void,
  outcome: (counts: JsonLineCounts) => T,
): JsonLineParser<T> {
  let lines = 0;
  let ignoredLines = 0;
  let firstIgnoredLine: string | null = null;
  let finished: { readonly outcome: T } | null = null;
  const ignore = (line: string) => {
    ignoredLines++;
    firstIgnoredLine ??= line.length > SAMPLE_LIMIT ? `${line.slice(0, SAMPLE_LIMIT)}…` : line;
  };
  return {
    push(raw: string) {
      if (finished !== null)
        throw new Error(`Internal error: push() after finish() on a ${cli} stream parser`);
      const line = raw.replace(/\r?\n$/, "").trim();
      if (line === "") return;
      lines++;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        ignore(line);
        return;
      }
      if (!isRecord(event) || typeof event.type !== "string") {
        ignore(line);
        return;
      }
      onEvent(event as Json & { readonly type: string });
    },
    finish() {
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
