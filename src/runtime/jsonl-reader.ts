/**
 * Splits a model CLI's raw stdout into JSONL lines and decodes each one, in linear time and bounded
 * memory: a line up to `WHOLE_LINE_BYTES` is held and parsed whole (`JSON.parse`); a longer one goes
 * through the {@link BoundedJsonDecoder} as its bytes arrive and is never held (`stream-bounds.ts`).
 * Newlines are found natively (`indexOf`), so a stream of many short lines costs one `toString` and one
 * `JSON.parse` per line, and a 200 MB line costs one pass.
 */
import { BoundedJsonDecoder, type BoundedJsonResult } from "./bounded-json.js";
import { WHOLE_LINE_BYTES } from "./stream-bounds.js";

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
