/**
 * A child's output, bounded (SPEC §9: output is kept as a bounded tail; issue 21 item 5: bounded in the step
 * log), as one module read top to bottom:
 * - {@link LineFramer} splits each stream into pieces of whole lines, never holding an over-long line;
 * - {@link BoundedLines} turns pieces into lines for a line callback, cutting a line over its cap;
 * - {@link OutputTail} keeps the most recent bytes for the outcome's tail;
 * - {@link ChildOutput} wires them for one child: the tail, the line callbacks, and the echo to the step log
 *   through the workflow-command fence and its {@link EchoBudget} (`echo-budget.ts`, shared with the fence).
 */
import { StringDecoder } from "node:string_decoder";
import { fromWholeCharacter, TailWindow } from "../core/byte-windows.js";
import { CommandFence } from "./command-fence.js";
import { DEFAULT_LOG_LIMIT_BYTES, EchoBudget } from "./echo-budget.js";

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

/**
 * A bounded tail of a byte stream: keeps at most `maxBytes` of the most recent output (SPEC §9: output
 * is kept as a bounded tail), in linear time and constant memory ({@link TailWindow}). Decoding happens
 * once, at `text()`, so a multi-byte character split across chunks is not mangled; a character cut at
 * the front of the window is dropped.
 */
export class OutputTail {
  private readonly window: TailWindow;

  constructor(maxBytes: number) {
    this.window = new TailWindow(maxBytes);
  }

  push(chunk: Uint8Array): void {
    this.window.push(chunk);
  }

  /** Bytes discarded from the front so far. */
  get droppedBytes(): number {
    return this.window.droppedBytes;
  }

  /** The kept tail as UTF-8 text, prefixed with a marker when bytes were dropped. */
  text(): string {
    const bytes = this.window.bytes();
    if (this.window.droppedBytes === 0) return bytes.toString("utf8");
    return `[… ${this.window.droppedBytes} earlier bytes not kept …]\n${fromWholeCharacter(bytes).toString("utf8")}`;
  }
}

/** Where a child's output goes (part of `RunProcessOptions`). Lengths are bytes. */
export interface ChildOutputOptions {
  /** How much of each stream's end to keep (default 64 KiB). */
  readonly tailBytes?: number;
  /**
   * The longest unfinished line held, in bytes (default 64 KiB): a longer line moves on to `onOutput` and
   * the echo in fragments, and reaches a line callback cut to this many bytes plus a note of what was not
   * kept (see {@link BoundedLines}).
   */
  readonly maxLineBytes?: number;
  /**
   * Called with each complete stdout line (without the newline; `\r\n` counts as the newline). A line
   * longer than `maxLineBytes` arrives cut (see there).
   */
  readonly onStdoutLine?: (line: string) => void;
  /**
   * Called with each raw stdout chunk, undecoded (for NUL-separated or binary output, e.g. `git … -z`).
   * Without `onStdoutLine` and `echo`, stdout is then not split into lines at all.
   */
  readonly onStdoutData?: (chunk: Buffer) => void;
  /** Called with each complete stderr line, as `onStdoutLine` is with stdout's. */
  readonly onStderrLine?: (line: string) => void;
  /**
   * Called with both streams' output as runs of whole lines, in arrival order, undecoded: one call per
   * pipe read rather than per line, so a consumer of a huge stream does no per-line work. The piece kinds
   * (`lines`, `fragment`, `last`) are described at {@link LineFramer}; `last` pieces come when the process
   * ended, stdout's before stderr's.
   */
  readonly onOutput?: (piece: OutputPiece) => void;
  /**
   * Echo both streams as they arrive (runs of whole lines; an over-long line in fragments, continued on
   * the same log line), fenced from workflow commands when `fenceWorkflowCommands`, bounded to `limitBytes`
   * of the child's output (default {@link DEFAULT_LOG_LIMIT_BYTES}; `echo-budget.ts`).
   */
  readonly echo?: ChildEcho;
}

/**
 * Where a child's output is echoed (the step log, a terminal): `write` gets text, fenced from workflow
 * commands when `fenceWorkflowCommands`; at most `limitBytes` of one child's output reach it, the first and
 * the last half, with a marker naming what was left out between them (input `output-log-limit`; default
 * {@link DEFAULT_LOG_LIMIT_BYTES}).
 */
export interface ChildEcho {
  readonly write: (text: string) => void;
  readonly fenceWorkflowCommands: boolean;
  readonly limitBytes?: number;
}

/** The fence one child's echo goes through, bounded by the echo's limit (see {@link ChildEcho}). */
export function childEchoFence(echo: ChildEcho): CommandFence {
  return new CommandFence(
    echo.write,
    echo.fenceWorkflowCommands,
    new EchoBudget(echo.limitBytes ?? DEFAULT_LOG_LIMIT_BYTES),
  );
}

const DEFAULT_TAIL = 64 * 1024;
const NEWLINE = Buffer.from("\n");

/**
 * Where one child's stdout and stderr go, read once, chunk by chunk, in linear time and bounded memory:
 * each stream's raw bytes into its {@link OutputTail}; raw stdout chunks to `onStdoutData`; and, only
 * when a consumer wants lines, through a {@link LineFramer} per stream to `onOutput` (runs of whole
 * lines, both streams in arrival order), to the echo (fenced) and to the line callbacks (each line cut at
 * `maxLineBytes`, see {@link BoundedLines}). Nothing here ever holds more than the tails, one unfinished
 * line per stream and the echo's held end ({@link EchoBudget}), and the echo writes at most its limit.
 */
export class ChildOutput {
  private readonly stdoutTail: OutputTail;
  private readonly stderrTail: OutputTail;
  private readonly fence: CommandFence | null;
  private readonly stdoutFramer: LineFramer | null;
  private readonly stderrFramer: LineFramer | null;
  /** The line callbacks' cutters, ended with the streams. */
  private readonly lineCutters: BoundedLines[] = [];
  private ended = false;

  constructor(private readonly options: ChildOutputOptions) {
    const tailBytes = options.tailBytes ?? DEFAULT_TAIL;
    this.stdoutTail = new OutputTail(tailBytes);
    this.stderrTail = new OutputTail(tailBytes);
    this.fence = options.echo ? childEchoFence(options.echo) : null;
    const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    const framed = this.fence !== null || options.onOutput !== undefined;
    this.stdoutFramer =
      framed || options.onStdoutLine !== undefined
        ? this.framer("stdout", options.onStdoutLine, maxLine)
        : null;
    this.stderrFramer =
      framed || options.onStderrLine !== undefined
        ? this.framer("stderr", options.onStderrLine, maxLine)
        : null;
  }

  stdout(chunk: Buffer): void {
    if (this.ended) return;
    this.stdoutTail.push(chunk);
    this.options.onStdoutData?.(chunk);
    this.stdoutFramer?.push(chunk);
  }

  stderr(chunk: Buffer): void {
    if (this.ended) return;
    this.stderrTail.push(chunk);
    this.stderrFramer?.push(chunk);
  }

  /** The kept tails as text (see {@link OutputTail.text}). */
  tails(): { readonly stdoutTail: string; readonly stderrTail: string } {
    return { stdoutTail: this.stdoutTail.text(), stderrTail: this.stderrTail.text() };
  }

  /**
   * Flushes each stream's unfinished last line (stdout's, then stderr's) and closes the fence; later
   * chunks reach nobody. Idempotent.
   */
  end(): void {
    if (this.ended) return;
    this.stdoutFramer?.flush();
    this.stderrFramer?.flush();
    for (const cutter of this.lineCutters) cutter.finish();
    this.ended = true;
    this.fence?.close();
  }

  private framer(
    stream: OutputPiece["stream"],
    onLine: ((line: string) => void) | undefined,
    maxLineBytes: number,
  ): LineFramer {
    const lines = onLine !== undefined ? new BoundedLines(onLine, maxLineBytes) : null;
    if (lines !== null) this.lineCutters.push(lines);
    // Decodes across fragments: a multi-byte character split between two pieces is echoed whole.
    const decoder = this.fence !== null ? new StringDecoder("utf8") : null;
    return new LineFramer((kind: PieceKind, bytes: Buffer) => {
      this.options.onOutput?.({ stream, kind, bytes });
      if (decoder !== null)
        this.fence?.bytes(kind === "last" ? Buffer.concat([bytes, NEWLINE]) : bytes, decoder);
      lines?.piece(kind, bytes);
    }, maxLineBytes);
  }
}
