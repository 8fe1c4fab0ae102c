import { BoundedString } from "./bounded-string.js";

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
