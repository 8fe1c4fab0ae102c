/**
 * Splits one output stream of a child into runs of whole lines, in linear time and bounded memory: each
 * pipe chunk is searched once for its last newline (natively, `lastIndexOf`), everything up to it leaves
 * as one piece, and only the unfinished line after it is held — at most `maxLineBytes` of it. A line
 * longer than that leaves in fragments, so a 200 MB line with no newline is never held whole.
 *
 * Pieces (bytes, never decoded here):
 * - `lines`: one or more whole lines, each ending in `\n`, with every `\r\n` folded to `\n` (a line's CR
 *   LF ending is the newline, as a workflow log shows it);
 * - `fragment`: a part of a line longer than `maxLineBytes`, at most one pipe read long (a trailing `\r`
 *   is held back, so a CR LF split here still folds); the line goes on in the stream's next piece;
 * - `last`: the stream's final bytes, which did not end in a newline (emitted by `flush`, as they were
 *   printed; empty when the stream ended right after a fragment).
 */

/** What kind of bytes an {@link OutputPiece} carries (see the module comment). */
export type PieceKind = "lines" | "fragment" | "last";

/** A run of one stream's output, as the seam hands it on. */
export interface OutputPiece {
  readonly stream: "stdout" | "stderr";
  readonly kind: PieceKind;
  readonly bytes: Buffer;
}

/** The longest unfinished line held before it leaves as a fragment (64 KiB), in bytes. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024;

const LF = 0x0a;
const CR = 0x0d;
/** Held bytes shorter than this are copied out of their pipe chunk (4 KiB). */
const SMALL_COPY_BYTES = 4096;

export class LineFramer {
  private pending: Buffer[] = [];
  private pendingSize = 0;
  /** True after a fragment, until the line's newline. */
  private midLine = false;

  /**
   * @param emit gets each piece, in stream order.
   * @param maxLineBytes the most bytes of an unfinished line held (a positive integer).
   */
  constructor(
    private readonly emit: (kind: PieceKind, bytes: Buffer) => void,
    private readonly maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const newline = chunk.lastIndexOf(LF);
    if (newline < 0) {
      this.hold(chunk);
      return;
    }
    let from = 0;
    if (this.pendingSize > 0) {
      // The held line ends at the chunk's first newline: only that line is copied, not the whole chunk.
      const first = chunk.indexOf(LF);
      this.emit("lines", foldCrLf(Buffer.concat([...this.pending, chunk.subarray(0, first + 1)])));
      this.pending = [];
      this.pendingSize = 0;
      from = first + 1;
    }
    this.midLine = false;
    if (newline + 1 > from) this.emit("lines", foldCrLf(chunk.subarray(from, newline + 1)));
    this.hold(chunk.subarray(newline + 1));
  }

  /**
   * Emits the stream's `last` piece (call once, when the stream ended): what is held, or an empty piece
   * when the stream ended right after a fragment, so an unfinished line always ends in a `last` piece.
   */
  flush(): void {
    if (this.pendingSize === 0 && !this.midLine) return;
    const rest = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingSize = 0;
    this.midLine = false;
    this.emit("last", rest);
  }

  private hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.pendingSize + bytes.length <= this.maxLineBytes) {
      // A small remainder is copied, so it does not keep its whole pipe chunk alive.
      this.pending.push(bytes.length < SMALL_COPY_BYTES ? Buffer.from(bytes) : bytes);
      this.pendingSize += bytes.length;
      return;
    }
    // Over the bound: what is held and these bytes move on as fragments, as they are (no copy), except a
    // final \r, held back in case the next byte is the \n of a CR LF.
    for (const part of this.pending) this.emit("fragment", part);
    const carry = bytes[bytes.length - 1] === CR ? 1 : 0;
    if (bytes.length > carry) this.emit("fragment", bytes.subarray(0, bytes.length - carry));
    this.pending = carry === 1 ? [Buffer.from("\r")] : [];
    this.pendingSize = carry;
    this.midLine = true;
  }
}

/** `bytes` with every `\r\n` replaced by `\n`; the same buffer when there is none. */
export function foldCrLf(bytes: Buffer): Buffer {
  let at = bytes.indexOf("\r\n");
  if (at < 0) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  while (at >= 0) {
    parts.push(bytes.subarray(from, at));
    from = at + 1; // keep the \n
    at = bytes.indexOf("\r\n", from);
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}
