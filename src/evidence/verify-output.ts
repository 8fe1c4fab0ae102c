/**
 * What a verify keeps of its command's output (SPEC §6, §9: bounded), read once as it arrives: the
 * combined stdout+stderr tail that goes on the evidence (at most {@link VERIFY_TAIL_BYTES}), and — only
 * with `output_matches` (SPEC §3 "Patterns") — the bounded full output the pattern searches once, when the
 * command ends ({@link OUTPUT_MATCHES_CAP_BYTES}). Both are fed the seam's pieces (runs of whole lines,
 * `run-process.ts` `onOutput`), so the cost is linear in the output and the memory is constant.
 */
import { BoundedOutput } from "../core/byte-windows.js";
import type { VerifyEvidence } from "../core/ledger-row.js";
import { type Pattern, searchPattern } from "../graph/pattern.js";
import { OutputTail } from "../proc/child-output.js";
import type { OutputPiece } from "../proc/run-process.js";
import type { KeptOutput } from "./test-receipt.js";

/** The output tail kept on a verify's evidence, in bytes (SPEC §6: bounded; ledger model: ≤ 4 KiB). */
export const VERIFY_TAIL_BYTES = 4096;
/** Room left for the tail's "earlier bytes not kept" marker and evidence-gate's own notes. */
const NOTE_ROOM = 256;
/**
 * The most combined stdout+stderr kept for `output_matches`, in bytes (16 MiB). Up to this much the
 * pattern searches the whole output. Beyond it the first and the last half (8 MiB each) are kept and
 * searched, joined by one `\n`; the bytes between are not, and the evidence says so
 * (`outputMatches.truncated`, and a note in the tail). Searching 16 MiB with an RE2 pattern takes
 * milliseconds to a few hundred (measured with `re2js`), and the buffer is released when the verify ends.
 */
export const OUTPUT_MATCHES_CAP_BYTES = 16 * 1024 * 1024;
/**
 * The most combined output kept for reading a test receipt, in bytes (1 MiB): its first and last 512 KiB
 * when longer (`test-receipt.ts` reads a cut output strictly). With `output_matches` the pattern's
 * larger buffer ({@link OUTPUT_MATCHES_CAP_BYTES}) is read instead. A runner's summary is at the end, and a
 * test run's whole output is usually far below this.
 */
export const RECEIPT_OUTPUT_BYTES = 1024 * 1024;
/** How much of a pattern the tail's note and the ledger's words quote (characters). */
const PATTERN_QUOTE_CHARS = 120;

const NEWLINE = Buffer.from("\n");

/**
 * The collector of one verify's output. The text it keeps is the output as printed, with two rules from
 * the line-by-line reading it replaces: a `\r\n` line ending counts as `\n`, and a stream's unterminated
 * last line (flushed when the command ends, stdout's before stderr's) is followed by a `\n` when more
 * output comes after it. Streams interleave at line boundaries in arrival order; a line longer than the
 * seam's `maxLineBytes` (64 KiB) arrives in pieces, and the other stream's lines may land between them.
 */
export class VerifyOutput {
  private readonly tail = new OutputTail(VERIFY_TAIL_BYTES - NOTE_ROOM);
  /** The full output, buffered only when a pattern will search it. */
  private readonly full: BoundedOutput | null;
  /**
   * The output a test receipt is read from: its own bounded buffer, or — with `output_matches` — the
   * pattern's (one copy of the output, not two: a large output's cost is in the copying).
   */
  private readonly receiptOutput: BoundedOutput;
  private lastWasUnterminated = false;

  constructor(private readonly pattern: Pattern | undefined) {
    this.full = pattern !== undefined ? new BoundedOutput(OUTPUT_MATCHES_CAP_BYTES) : null;
    this.receiptOutput = this.full ?? new BoundedOutput(RECEIPT_OUTPUT_BYTES);
  }

  /** Takes one piece of the command's output (the seam's `onOutput`). */
  piece(piece: OutputPiece): void {
    this.push(piece.bytes);
    this.lastWasUnterminated = piece.kind === "last";
    if (this.lastWasUnterminated) this.push(NEWLINE);
  }

  /**
   * Searches the collected output once: `{pattern, matched}`, plus `truncated: true` when bytes were
   * dropped; `undefined` without a pattern. Call once, after the command ended.
   */
  judge(): VerifyEvidence["outputMatches"] {
    if (this.pattern === undefined || this.full === null) return undefined;
    // The newline stored after an unterminated very last line is the collector's own: take it back, so
    // `$` sees the end of the output as printed (`printf ok` is "ok", not "ok\n").
    if (this.lastWasUnterminated) this.full.dropFinalNewline();
    const matched = searchPattern(this.pattern, this.full.text());
    return {
      pattern: this.pattern.source,
      matched,
      ...(this.full.droppedBytes > 0 ? { truncated: true as const } : {}),
    };
  }

  /**
   * The evidence's output tail: `treeNote`, the kept tail of the output, the notes about `judged`, and
   * `note`, at most {@link VERIFY_TAIL_BYTES} bytes in all (the end is kept).
   */
  evidenceTail(
    treeNote: string | null,
    judged: VerifyEvidence["outputMatches"],
    note: string | null,
  ): string {
    return boundedTail([treeNote, this.tail.text(), ...this.matchNotes(judged), note]);
  }

  /** The output kept for the test receipt: all of it, or its head and tail with the count dropped between. */
  keptForReceipt(): KeptOutput {
    return { ...this.receiptOutput.pieces(), droppedBytes: this.receiptOutput.droppedBytes };
  }

  private push(bytes: Buffer): void {
    this.tail.push(bytes);
    this.receiptOutput.push(bytes);
  }

  /** The tail's notes about `output_matches`: what was not searched, and that the output did not match. */
  private matchNotes(judged: VerifyEvidence["outputMatches"]): string[] {
    if (judged === undefined || this.full === null) return [];
    const notes: string[] = [];
    if (judged.truncated === true) {
      const half = OUTPUT_MATCHES_CAP_BYTES / 2 / (1024 * 1024);
      notes.push(
        `[evidence-gate] output_matches searched a truncated output: the first and last ${half} MiB of ${this.full.totalBytes} bytes (${this.full.droppedBytes} bytes between them not searched)`,
      );
    }
    if (!judged.matched) {
      notes.push(`[evidence-gate] output did not match /${quotePattern(judged.pattern)}/`);
    }
    return notes;
  }
}

/** A pattern as quoted in a note: at most {@link PATTERN_QUOTE_CHARS} characters, on one line. */
function quotePattern(source: string): string {
  const flat = source.replace(/\r?\n/g, "\\n");
  return flat.length > PATTERN_QUOTE_CHARS ? `${flat.slice(0, PATTERN_QUOTE_CHARS - 1)}…` : flat;
}

/** Joins the parts and keeps at most {@link VERIFY_TAIL_BYTES} bytes, cut at a character boundary. */
function boundedTail(parts: readonly (string | null)[]): string {
  const text = parts.filter((p): p is string => p !== null && p.length > 0).join("\n");
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= VERIFY_TAIL_BYTES) return text;
  let start = bytes.length - VERIFY_TAIL_BYTES;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString("utf8");
}
