import { StringDecoder } from "node:string_decoder";
import { BoundedLines } from "./bounded-lines.js";
import { CommandFence } from "./command-fence.js";
import { DEFAULT_LOG_LIMIT_BYTES, EchoBudget } from "./echo-budget.js";
import { DEFAULT_MAX_LINE_BYTES, LineFramer, type OutputPiece, type PieceKind } from "./line-framer.js";
import { OutputTail } from "./output-tail.js";

/** Where a child's output goes (part of `RunProcessOptions`). Lengths are bytes. */
export interface ChildOutputOptions {
  /** How much of each stream's end to keep (default 64 KiB). */
  readonly tailBytes?: number;
  /**
   * The longest unfinished line held, in bytes (default 64 KiB): a longer line moves on to `onOutput` and
   * the echo in fragments, and reaches a line callback cut to this many bytes plus a note of what was not
   * kept (see `bounded-lines.ts`).
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
   * (`lines`, `fragment`, `last`) are described in `line-framer.ts`; `last` pieces come when the process
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
