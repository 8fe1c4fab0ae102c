import { StringDecoder } from "node:string_decoder";
import type { PieceKind } from "./line-framer.js";

/**
 * Turns one stream's pieces ({@link LineFramer}) into lines for a line callback: each line without its
 * newline, in order, decoded as UTF-8. A line longer than `maxLineBytes` is cut: the callback gets its
 * first `maxLineBytes` (cut at a character boundary) and then `[… N more bytes of this line not kept …]`,
 * so no line a callback gets is ever larger than `maxLineBytes` plus that note, and the dropped bytes are
 * never held.
 */
export class BoundedLines {
  /** The over-long line in progress: its kept front, the bytes taken for it, the bytes dropped. */
  private cut: { head: string; headBytes: number; dropped: number; decoder: StringDecoder } | null = null;

  constructor(
    private readonly emit: (line: string) => void,
    private readonly maxLineBytes: number,
  ) {}

  piece(kind: PieceKind, bytes: Buffer): void {
    if (kind === "fragment") {
      this.takeCut(bytes);
      return;
    }
    let from = 0;
    if (this.cut !== null) {
      // The over-long line ends at this piece's first newline (or with the stream).
      const newline = bytes.indexOf(0x0a);
      this.takeCut(bytes.subarray(0, newline < 0 ? bytes.length : newline));
      this.endCut();
      if (newline < 0) return;
      from = newline + 1;
    }
    const lines = bytes.toString("utf8", from).split("\n");
    // A `lines` piece ends in \n, so its split ends in "" (not a line); a `last` piece's final part is one.
    if (kind === "lines") lines.pop();
    for (const line of lines) this.line(line);
  }

  /** Ends an over-long line still in progress. */
  finish(): void {
    if (this.cut !== null) this.endCut();
  }

  private line(line: string): void {
    // Cheap test first: a string of n UTF-16 units is at most 3n UTF-8 bytes.
    if (line.length * 3 <= this.maxLineBytes || Buffer.byteLength(line, "utf8") <= this.maxLineBytes) {
      this.emit(line);
      return;
    }
    this.takeCut(Buffer.from(line, "utf8"));
    this.endCut();
  }

  /** Bytes of the over-long line in progress: kept while its front has room, counted after. */
  private takeCut(bytes: Buffer): void {
    this.cut ??= { head: "", headBytes: 0, dropped: 0, decoder: new StringDecoder("utf8") };
    const room = Math.max(0, this.maxLineBytes - this.cut.headBytes);
    const kept = bytes.subarray(0, room);
    if (kept.length > 0) {
      this.cut.head += this.cut.decoder.write(kept);
      this.cut.headBytes += kept.length;
    }
    this.cut.dropped += bytes.length - kept.length;
  }

  private endCut(): void {
    const cut = this.cut;
    if (cut === null) return;
    // A character cut by the front's end was taken but not decoded: it counts as not kept.
    const dropped = cut.dropped + cut.headBytes - Buffer.byteLength(cut.head, "utf8");
    this.emit(`${cut.head}[… ${dropped} more bytes of this line not kept …]`);
    this.cut = null;
  }
}
