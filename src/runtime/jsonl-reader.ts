/**
 * Reading a model CLI's JSONL stdout within bounds (`claude --output-format stream-json`, `codex exec
 * --json`; SPEC §4, §9: output is bounded), as one module: the bounds themselves (sizes are bytes of UTF-8
 * unless a name says characters), the bounded string and string reader, the streaming decoder for an
 * over-long line ({@link BoundedJsonDecoder}) and the line splitter every parser reads through
 * ({@link JsonlReader}). A call's stdout is read once, chunk by chunk; what the parser keeps is bounded by
 * these numbers whatever the CLI prints — one 200 MB line, or millions of events.
 */
import { BoundedOutput } from "../core/byte-windows.js";

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

/**
 * The bytes of one JSON string as the bounded decoder reads them: kept whole up to `capBytes`, beyond it
 * as a {@link BoundedOutput} (first and last halves, joined by `\n`). Pieces are copied only once the
 * string outgrows its first chunk, so a short string costs one `toString`.
 */
export class BoundedString {
  private parts: Buffer[] = [];
  private size = 0;
  private bounded: BoundedOutput | null = null;

  constructor(private readonly capBytes: number) {}

  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.bounded !== null) {
      this.bounded.push(bytes);
      return;
    }
    if (this.size + bytes.length > this.capBytes) {
      this.bounded = new BoundedOutput(this.capBytes);
      for (const part of this.parts) this.bounded.push(part);
      this.parts = [];
      this.bounded.push(bytes);
      return;
    }
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  /** The kept bytes now (for the line's budget). */
  get keptBytes(): number {
    return this.bounded === null ? this.size : this.capBytes;
  }

  /** Bytes dropped between the kept halves (0: the string is whole). */
  get droppedBytes(): number {
    return this.bounded?.droppedBytes ?? 0;
  }

  text(): string {
    if (this.bounded !== null) return this.bounded.text();
    if (this.parts.length === 1) return this.parts[0]!.toString("utf8");
    return Buffer.concat(this.parts).toString("utf8");
  }
}

const REPLACEMENT = Buffer.from("\uFFFD", "utf8");
/** The byte each single-character escape stands for. */
const ESCAPES: Readonly<Record<number, Buffer>> = {
  34: Buffer.from('"'),
  92: Buffer.from("\\"),
  47: Buffer.from("/"),
  98: Buffer.from("\b"),
  102: Buffer.from("\f"),
  110: Buffer.from("\n"),
  114: Buffer.from("\r"),
  116: Buffer.from("\t"),
};

/**
 * Reads the body of one JSON string (after its opening quote) for the bounded decoder, chunk by chunk:
 * plain bytes are found natively (`indexOf` of the next `"` and `\`) and pushed as they are, escapes are
 * decoded to UTF-8, a surrogate pair becomes one character and a lone surrogate U+FFFD. The decoded bytes
 * go to a {@link BoundedString} (first and last halves beyond its cap), or nowhere for a string that is
 * read but not kept. Raw control characters are accepted (JSON.parse refuses them).
 */
export class JsonStringReader {
  private sink: BoundedString | null = null;
  private mode: "plain" | "escape" | "unicode" = "plain";
  private unicodeDigits = "";
  private highSurrogate: number | null = null;
  /** The next backslash of the chunk being read (-1: none after the last search). */
  private backslashChunk: Buffer | null = null;
  private backslashAt = -1;
  private state: "reading" | "done" | "failed" = "done";

  /** Starts a string; `capBytes` null: read it but keep nothing. */
  begin(capBytes: number | null): void {
    this.sink = capBytes !== null ? new BoundedString(capBytes) : null;
    this.mode = "plain";
    this.highSurrogate = null;
    this.state = "reading";
  }

  /** `reading` until the closing quote was read (`done`), or `failed` on a bad escape. */
  get status(): "reading" | "done" | "failed" {
    return this.state;
  }

  /** Reads from `chunk[from]` on; returns the index of the first byte not read (after the closing quote). */
  read(chunk: Buffer, from: number): number {
    let i = from;
    while (i < chunk.length && this.state === "reading") {
      if (this.mode !== "plain") {
        this.escaped(chunk[i]!);
        i++;
        continue;
      }
      const quote = chunk.indexOf(0x22, i);
      const backslash = this.nextBackslash(chunk, i);
      const stop = backslash >= 0 && (quote < 0 || backslash < quote) ? backslash : quote;
      if (stop < 0) {
        this.push(chunk.subarray(i));
        return chunk.length;
      }
      this.push(chunk.subarray(i, stop));
      if (stop === quote) {
        if (this.highSurrogate !== null) this.sink?.push(REPLACEMENT);
        this.highSurrogate = null;
        this.state = "done";
      } else {
        this.mode = "escape";
      }
      i = stop + 1;
    }
    return i;
  }

  /** The string read (call once `done`): its text, and the bytes it kept and dropped. */
  result(): { readonly text: string; readonly keptBytes: number; readonly droppedBytes: number } | null {
    const sink = this.sink;
    this.sink = null;
    if (sink === null) return null;
    return { text: sink.text(), keptBytes: sink.keptBytes, droppedBytes: sink.droppedBytes };
  }

  private nextBackslash(chunk: Buffer, from: number): number {
    if (this.backslashChunk !== chunk || (this.backslashAt >= 0 && this.backslashAt < from)) {
      this.backslashChunk = chunk;
      this.backslashAt = chunk.indexOf(0x5c, from);
    }
    return this.backslashAt;
  }

  private push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.highSurrogate !== null) {
      this.highSurrogate = null;
      this.sink?.push(REPLACEMENT);
    }
    this.sink?.push(bytes);
  }

  /** One byte after a backslash, or one of the four hex digits of `\uXXXX`. */
  private escaped(byte: number): void {
    if (this.mode === "escape") {
      if (byte === 0x75) {
        this.unicodeDigits = "";
        this.mode = "unicode";
        return;
      }
      const decoded = ESCAPES[byte];
      if (decoded === undefined) {
        this.state = "failed";
        return;
      }
      this.push(decoded);
      this.mode = "plain";
      return;
    }
    const isHex =
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
    if (!isHex) {
      this.state = "failed";
      return;
    }
    this.unicodeDigits += String.fromCharCode(byte);
    if (this.unicodeDigits.length === 4) {
      this.mode = "plain";
      this.codeUnit(Number.parseInt(this.unicodeDigits, 16));
    }
  }

  private codeUnit(unit: number): void {
    if (unit >= 0xdc00 && unit <= 0xdfff && this.highSurrogate !== null) {
      const codePoint = 0x10000 + ((this.highSurrogate - 0xd800) << 10) + (unit - 0xdc00);
      this.highSurrogate = null;
      this.sink?.push(Buffer.from(String.fromCodePoint(codePoint), "utf8"));
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      if (this.highSurrogate !== null) this.sink?.push(REPLACEMENT); // the earlier one had no pair
      this.highSurrogate = unit;
    } else {
      this.push(
        unit >= 0xdc00 && unit <= 0xdfff ? REPLACEMENT : Buffer.from(String.fromCharCode(unit), "utf8"),
      );
    }
  }
}

/**
 * A streaming JSON decoder for one over-long JSONL line (longer than `WHOLE_LINE_BYTES`), in linear time
 * and bounded memory (the bounds above): the line is fed chunk by chunk and never held whole. It builds
 * the same value `JSON.parse` would, except that
 * - a string longer than its cap keeps its first and last halves joined by `\n` (`STRING_CAP_BYTES`, less
 *   once the line's `LINE_KEEP_BYTES` are spent), and the cut is reported by its path (`/result`,
 *   `/item/text`) with the bytes dropped;
 * - an array or object keeps its first `CONTAINER_MAX_ITEMS` items, and the line its first
 *   `LINE_MAX_VALUES` values; the rest is read and checked but not kept (`truncated`);
 * - a lone UTF-16 surrogate escape (`\ud800` without its pair) decodes as U+FFFD, and raw control
 *   characters inside strings are accepted (the string reader above);
 * - nesting deeper than `MAX_DEPTH`, or a number token longer than `MAX_NUMBER_CHARS`, is refused (the
 *   line counts as not JSON).
 * Everything else that `JSON.parse` refuses is refused here too.
 */

/** What one line decoded to. */
export type BoundedJsonResult =
  | { readonly kind: "blank" }
  | {
      readonly kind: "value";
      readonly value: unknown;
      /** Cut strings by path (`/a/0/b`) → bytes dropped from their middle. At most 100 paths. */
      readonly cutStrings: ReadonlyMap<string, number>;
      /** True when items or values were left out (see the module comment). */
      readonly truncated: boolean;
    }
  | {
      readonly kind: "invalid";
      /** The line's first bytes (at most 1 KiB), decoded, leading whitespace removed. */
      readonly sample: string;
    };

interface Frame {
  readonly kind: "object" | "array";
  /** `null`: this container is read but not kept. */
  readonly container: Record<string, unknown> | unknown[] | null;
  /** Items begun so far (the index of the item being read is `items - 1`). */
  items: number;
  /** The key of the object member being read. */
  key: string;
}

/** The decoder's states (numbers, compared in the per-byte loop). */
const S = {
  Value: 0,
  ArrayStart: 1,
  ObjectStart: 2,
  Key: 3,
  Colon: 4,
  After: 5,
  InString: 6,
  InNumber: 7,
  Literal: 8,
  Failed: 9,
} as const;
type State = (typeof S)[keyof typeof S];

const SAMPLE_BYTES = 1024;
const MAX_CUT_PATHS = 100;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export class BoundedJsonDecoder {
  private state: State = S.Value;
  private readonly stack: Frame[] = [];
  private root: unknown;
  private hasRoot = false;
  private sawContent = false;
  private valuesLeft = LINE_MAX_VALUES;
  private bytesLeft = LINE_KEEP_BYTES;
  private truncated = false;
  private readonly cuts = new Map<string, number>();
  private readonly sample: Buffer[] = [];
  private sampleSize = 0;
  // The string being read, and whether it is an object key.
  private readonly string = new JsonStringReader();
  private stringIsKey = false;
  // The number or literal being read, and whether the value being read is kept.
  private token = "";
  private literalAt = 0;
  private keepValue = false;

  /** Feeds the line's next bytes (no newline inside). */
  write(chunk: Buffer): void {
    if (this.sampleSize < SAMPLE_BYTES) {
      const part = chunk.subarray(0, SAMPLE_BYTES - this.sampleSize);
      this.sample.push(Buffer.from(part));
      this.sampleSize += part.length;
    }
    let i = 0;
    while (i < chunk.length && this.state !== S.Failed) {
      i = this.state === S.InString ? this.readString(chunk, i) : this.step(chunk, i);
    }
  }

  /** Ends the line and returns what it decoded to. */
  end(): BoundedJsonResult {
    if (this.state === S.InNumber && this.stack.length === 0) this.endNumber();
    if (!this.sawContent) return { kind: "blank" };
    if (this.state === S.After && this.stack.length === 0 && this.hasRoot) {
      return { kind: "value", value: this.root, cutStrings: this.cuts, truncated: this.truncated };
    }
    return { kind: "invalid", sample: Buffer.concat(this.sample).toString("utf8").trimStart() };
  }

  /** One byte outside a string; returns the index of the next byte to read. */
  private step(chunk: Buffer, i: number): number {
    const byte = chunk[i]!;
    switch (this.state) {
      case S.InNumber:
        if (
          (byte >= 0x30 && byte <= 0x39) ||
          byte === 0x2e ||
          byte === 0x2b ||
          byte === 0x2d ||
          byte === 0x65 ||
          byte === 0x45
        ) {
          this.token += String.fromCharCode(byte);
          if (this.token.length > MAX_NUMBER_CHARS) this.state = S.Failed;
          return i + 1;
        }
        this.endNumber();
        return i; // the byte after the number is read again, in the state the number left
      case S.Literal:
        if (byte !== this.token.charCodeAt(this.literalAt)) {
          this.state = S.Failed;
        } else if (++this.literalAt === this.token.length) {
          this.endValue(this.token === "true" ? true : this.token === "false" ? false : null);
        }
        return i + 1;
      default:
        if (isWhitespace(byte)) return i + 1;
        this.sawContent = true;
        this.structural(byte);
        return i + 1;
    }
  }

  /** A non-whitespace byte where a value, a key, a colon, a comma or a closing bracket may stand. */
  private structural(byte: number): void {
    const frame = this.stack.at(-1);
    const state = this.state;
    if (state === S.Value || (state === S.ArrayStart && byte !== 0x5d)) {
      this.beginValue(byte);
    } else if (state === S.ArrayStart || (state === S.ObjectStart && byte === 0x7d)) {
      this.close();
    } else if (state === S.ObjectStart || state === S.Key) {
      if (byte === 0x22) this.beginString(true);
      else this.fail();
    } else if (state === S.Colon) {
      if (byte === 0x3a) this.state = S.Value;
      else this.fail();
    } else if (state === S.After && frame !== undefined) {
      // A comma or the container's closing bracket; after the line's own value only whitespace may follow.
      if (byte === 0x2c) this.state = frame.kind === "object" ? S.Key : S.Value;
      else if (byte === (frame.kind === "object" ? 0x7d : 0x5d)) this.close();
      else this.fail();
    } else {
      this.fail();
    }
  }

  private beginValue(byte: number): void {
    if (byte === 0x22) {
      this.beginString(false);
      return;
    }
    if (byte === 0x7b || byte === 0x5b) {
      this.open(byte === 0x7b ? "object" : "array");
      return;
    }
    this.keepValue = this.admit();
    if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
      this.token = String.fromCharCode(byte);
      this.state = S.InNumber;
      return;
    }
    const literal = byte === 0x74 ? "true" : byte === 0x66 ? "false" : byte === 0x6e ? "null" : null;
    if (literal === null) {
      this.fail();
      return;
    }
    this.token = literal;
    this.literalAt = 1;
    this.state = S.Literal;
  }

  /** Counts a value begun in the current container; true when it is kept. */
  private admit(): boolean {
    const frame = this.stack.at(-1);
    if (frame === undefined) return true;
    const index = frame.items++;
    if (frame.container === null) return false;
    if (index >= CONTAINER_MAX_ITEMS || this.valuesLeft <= 0) {
      this.truncated = true;
      return false;
    }
    this.valuesLeft--;
    return true;
  }

  private open(kind: Frame["kind"]): void {
    if (this.stack.length >= MAX_DEPTH) {
      this.fail();
      return;
    }
    const keep = this.admit();
    const container = keep ? (kind === "object" ? {} : []) : null;
    if (container !== null) this.attach(container);
    this.stack.push({ kind, container, items: 0, key: "" });
    this.state = kind === "object" ? S.ObjectStart : S.ArrayStart;
  }

  private close(): void {
    this.stack.pop();
    this.state = S.After;
  }

  /** Puts a kept value in its place: the current container, or the line's value. */
  private attach(value: unknown): void {
    const frame = this.stack.at(-1);
    if (frame === undefined) {
      this.root = value;
      this.hasRoot = true;
    } else if (Array.isArray(frame.container)) {
      frame.container.push(value);
    } else if (frame.container !== null) {
      // An own property even for "__proto__", as JSON.parse makes it.
      Object.defineProperty(frame.container, frame.key, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }

  private endValue(value: unknown): void {
    if (this.keepValue) this.attach(value);
    if (this.stack.length === 0) this.hasRoot = true;
    this.state = S.After;
  }

  private endNumber(): void {
    if (!NUMBER.test(this.token)) {
      this.fail();
      return;
    }
    this.endValue(Number(this.token));
  }

  private beginString(isKey: boolean): void {
    this.stringIsKey = isKey;
    const frame = this.stack.at(-1);
    const keep = isKey ? frame?.container != null && frame.items < CONTAINER_MAX_ITEMS : this.admit();
    if (!isKey) this.keepValue = keep;
    const cap = isKey
      ? SHORT_STRING_BYTES
      : Math.max(SHORT_STRING_BYTES, Math.min(STRING_CAP_BYTES, this.bytesLeft));
    this.string.begin(keep ? cap : null);
    this.state = S.InString;
  }

  /** Reads string bytes up to the closing quote; returns the next index to read. */
  private readString(chunk: Buffer, i: number): number {
    const next = this.string.read(chunk, i);
    if (this.string.status === "failed") this.fail();
    else if (this.string.status === "done") this.endString();
    return next;
  }

  private endString(): void {
    const read = this.string.result();
    if (read !== null) this.bytesLeft -= read.keptBytes;
    const text = read?.text ?? "";
    if (this.stringIsKey) {
      const frame = this.stack.at(-1);
      if (frame !== undefined) frame.key = text;
      this.state = S.Colon;
      return;
    }
    if (read !== null && read.droppedBytes > 0 && this.cuts.size < MAX_CUT_PATHS) {
      this.cuts.set(this.path(), read.droppedBytes);
    }
    this.endValue(text);
  }

  /** The path of the value being read: object keys and array indices from the line's value down. */
  private path(): string {
    return `/${this.stack.map((frame) => (frame.kind === "object" ? frame.key : String(frame.items - 1))).join("/")}`;
  }

  private fail(): void {
    this.state = S.Failed;
  }
}

/**
 * Splits a model CLI's raw stdout into JSONL lines and decodes each one, in linear time and bounded
 * memory: a line up to `WHOLE_LINE_BYTES` is held and parsed whole (`JSON.parse`); a longer one goes
 * through the {@link BoundedJsonDecoder} as its bytes arrive and is never held (the bounds above).
 * Newlines are found natively (`indexOf`), so a stream of many short lines costs one `toString` and one
 * `JSON.parse` per line, and a 200 MB line costs one pass.
 */

/** One line, as the reader hands it on. */
export type JsonlLine =
  /** A line within the bound, as text (newline removed). */
  | { readonly kind: "text"; readonly text: string }
  /** An over-long line, decoded by the bounded decoder. */
  | { readonly kind: "decoded"; readonly result: BoundedJsonResult };

export class JsonlReader {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  /** The decoder of the over-long line in progress, if any. */
  private decoder: BoundedJsonDecoder | null = null;

  /**
   * @param emit gets each line, in order.
   * @param wholeLineBytes the longest line parsed whole (a test may lower it).
   */
  constructor(
    private readonly emit: (line: JsonlLine) => void,
    private readonly wholeLineBytes: number = WHOLE_LINE_BYTES,
  ) {}

  /** Feeds the next stdout bytes. */
  write(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      const end = newline < 0 ? chunk.length : newline;
      this.take(chunk.subarray(from, end));
      if (newline < 0) return;
      this.endLine();
      from = newline + 1;
    }
  }

  /** Ends the stream: a last line without a newline is handed on. */
  end(): void {
    if (this.pendingSize > 0 || this.decoder !== null) this.endLine();
  }

  private take(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.decoder !== null) {
      this.decoder.write(bytes);
      return;
    }
    if (this.pendingSize + bytes.length <= this.wholeLineBytes) {
      this.pending.push(bytes);
      this.pendingSize += bytes.length;
      return;
    }
    // Over the bound: everything so far, and what follows up to the newline, goes to the decoder.
    this.decoder = new BoundedJsonDecoder();
    for (const part of this.pending) this.decoder.write(part);
    this.pending = [];
    this.pendingSize = 0;
    this.decoder.write(bytes);
  }

  private endLine(): void {
    if (this.decoder !== null) {
      const result = this.decoder.end();
      this.decoder = null;
      this.emit({ kind: "decoded", result });
      return;
    }
    const text =
      this.pending.length === 1
        ? this.pending[0]!.toString("utf8")
        : Buffer.concat(this.pending).toString("utf8");
    this.pending = [];
    this.pendingSize = 0;
    this.emit({ kind: "text", text });
  }
}
