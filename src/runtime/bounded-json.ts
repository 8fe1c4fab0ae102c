/**
 * A streaming JSON decoder for one over-long JSONL line (longer than `WHOLE_LINE_BYTES`), in linear time
 * and bounded memory (`stream-bounds.ts`): the line is fed chunk by chunk and never held whole. It builds
 * the same value `JSON.parse` would, except that
 * - a string longer than its cap keeps its first and last halves joined by `\n` (`STRING_CAP_BYTES`, less
 *   once the line's `LINE_KEEP_BYTES` are spent), and the cut is reported by its path (`/result`,
 *   `/item/text`) with the bytes dropped;
 * - an array or object keeps its first `CONTAINER_MAX_ITEMS` items, and the line its first
 *   `LINE_MAX_VALUES` values; the rest is read and checked but not kept (`truncated`);
 * - a lone UTF-16 surrogate escape (`\ud800` without its pair) decodes as U+FFFD;
 * - nesting deeper than `MAX_DEPTH`, or a number token longer than `MAX_NUMBER_CHARS`, is refused (the
 *   line counts as not JSON); raw control characters inside strings are accepted.
 * Everything else that `JSON.parse` refuses is refused here too.
 */
import { BoundedString } from "./bounded-string.js";
import {
  CONTAINER_MAX_ITEMS,
  LINE_KEEP_BYTES,
  LINE_MAX_VALUES,
  MAX_DEPTH,
  MAX_NUMBER_CHARS,
  SHORT_STRING_BYTES,
  STRING_CAP_BYTES,
} from "./stream-bounds.js";

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
  Escape: 7,
  Unicode: 8,
  InNumber: 9,
  Literal: 10,
  Failed: 11,
} as const;
type State = (typeof S)[keyof typeof S];

const SAMPLE_BYTES = 1024;
const MAX_CUT_PATHS = 100;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
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
  // The string being read: its sink (`null`: not kept), whether it is a key, a pending high surrogate.
  private sink: BoundedString | null = null;
  private stringIsKey = false;
  private highSurrogate: number | null = null;
  private unicodeDigits = "";
  // The number or literal being read, and whether the value being read is kept.
  private token = "";
  private literalAt = 0;
  private keepValue = false;
  // The next backslash of the chunk being read (-1: none after the last search).
  private backslashChunk: Buffer | null = null;
  private backslashAt = -1;

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
      case S.Escape:
        this.escape(byte);
        return i + 1;
      case S.Unicode:
        this.unicode(byte);
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
    this.sink = keep ? new BoundedString(cap) : null;
    this.highSurrogate = null;
    this.state = S.InString;
  }

  /** Reads string bytes up to the closing quote or the next escape; returns the next index to read. */
  private readString(chunk: Buffer, i: number): number {
    const quote = chunk.indexOf(0x22, i);
    const backslash = this.nextBackslash(chunk, i);
    const stop = backslash >= 0 && (quote < 0 || backslash < quote) ? backslash : quote;
    if (stop < 0) {
      this.pushString(chunk.subarray(i));
      return chunk.length;
    }
    this.pushString(chunk.subarray(i, stop));
    if (stop === quote) this.endString();
    else this.state = S.Escape;
    return stop + 1;
  }

  private nextBackslash(chunk: Buffer, from: number): number {
    if (this.backslashChunk !== chunk || (this.backslashAt >= 0 && this.backslashAt < from)) {
      this.backslashChunk = chunk;
      this.backslashAt = chunk.indexOf(0x5c, from);
    }
    return this.backslashAt;
  }

  private pushString(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.highSurrogate !== null) {
      this.highSurrogate = null;
      this.sink?.push(REPLACEMENT);
    }
    this.sink?.push(bytes);
  }

  private escape(byte: number): void {
    if (byte === 0x75) {
      this.unicodeDigits = "";
      this.state = S.Unicode;
      return;
    }
    const decoded = ESCAPES[byte];
    if (decoded === undefined) {
      this.fail();
      return;
    }
    this.pushString(decoded);
    this.state = S.InString;
  }

  private unicode(byte: number): void {
    const isHex =
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
    if (!isHex) {
      this.fail();
      return;
    }
    this.unicodeDigits += String.fromCharCode(byte);
    if (this.unicodeDigits.length < 4) return;
    this.state = S.InString;
    const unit = Number.parseInt(this.unicodeDigits, 16);
    if (unit >= 0xdc00 && unit <= 0xdfff && this.highSurrogate !== null) {
      const codePoint = 0x10000 + ((this.highSurrogate - 0xd800) << 10) + (unit - 0xdc00);
      this.highSurrogate = null;
      this.sink?.push(Buffer.from(String.fromCodePoint(codePoint), "utf8"));
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      if (this.highSurrogate !== null) this.sink?.push(REPLACEMENT); // the earlier one had no pair
      this.highSurrogate = unit;
    } else {
      this.pushString(
        unit >= 0xdc00 && unit <= 0xdfff ? REPLACEMENT : Buffer.from(String.fromCharCode(unit), "utf8"),
      );
    }
  }

  private endString(): void {
    if (this.highSurrogate !== null) this.sink?.push(REPLACEMENT);
    this.highSurrogate = null;
    const sink = this.sink;
    this.sink = null;
    const text = sink?.text() ?? "";
    if (sink !== null) this.bytesLeft -= sink.keptBytes;
    if (this.stringIsKey) {
      const frame = this.stack.at(-1);
      if (frame !== undefined) frame.key = text;
      this.state = S.Colon;
      return;
    }
    if (sink !== null && sink.droppedBytes > 0 && this.cuts.size < MAX_CUT_PATHS) {
      this.cuts.set(this.path(), sink.droppedBytes);
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
