/**
 * A streaming JSON decoder for one over-long JSONL line (longer than `WHOLE_LINE_BYTES`), in linear time
 * and bounded memory (`stream-bounds.ts`): the line is fed chunk by chunk and never held whole. It builds
 * the same value `JSON.parse` would, except that
 * - a string longer than its cap keeps its first and last halves joined by `\n` (`STRING_CAP_BYTES`, less
 *   once the line's `LINE_KEEP_BYTES` are spent), and the cut is reported by its path (`/result`,
 *   `/item/text`) with the bytes dropped;
 * - an array or object keeps its first `CONTAINER_MAX_ITEMS` items, and the line its first
 *   `LINE_MAX_VALUES` values; the rest is read and checked but not kept (`truncated`);
 * - a lone UTF-16 surrogate escape (`\ud800` without its pair) decodes as U+FFFD, and raw control
 *   characters inside strings are accepted (`json-string-reader.ts`);
 * - nesting deeper than `MAX_DEPTH`, or a number token longer than `MAX_NUMBER_CHARS`, is refused (the
 *   line counts as not JSON).
 * Everything else that `JSON.parse` refuses is refused here too.
 */
import { JsonStringReader } from "./json-string-reader.js";
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
