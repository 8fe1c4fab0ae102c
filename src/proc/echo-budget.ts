import { fromWholeCharacter, TailWindow } from "../core/byte-windows.js";

/**
 * How much of one child's output reaches the step log by default (input `output-log-limit`): 2 MiB, the
 * first and the last MiB (issue 21 item 5: a verify command printing `yes` sent 0.25–0.75 GB into the log).
 */
export const DEFAULT_LOG_LIMIT_BYTES = 2 * 1024 * 1024;

/** The smallest and largest `output-log-limit` (bytes): 1 KiB and 1 GiB. */
export const LOG_LIMIT_RANGE = { min: 1024, max: 1024 * 1024 * 1024 } as const;

const LF = 0x0a;
/** How far into the kept end a line start is looked for (64 KiB, the seam's longest held line). */
const LINE_START_SEARCH_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

/** What {@link EchoBudget.finish} hands back: the marker line (or `null`) and the kept end of the output. */
export interface EchoRest {
  /** `[evidence-gate: N bytes … left out …]`, or `null` when nothing was left out. */
  readonly marker: string | null;
  /** The end of the output held back while the head was shown, decoded; `""` when nothing was held. */
  readonly tail: string;
}

/**
 * The bound on one child's output in the step log (issue 21 item 5). At most its first `ceil(limit / 2)`
 * bytes are shown as they arrive: cut at the last newline that fits, else at a character boundary — or
 * not at all when what was shown already ends a line. Everything after is only counted, and its last
 * `floor(limit / 2)` bytes are kept in a {@link TailWindow}. When the child ends, {@link finish} gives a
 * marker naming how many bytes were left out, and that kept end (from the first line start in its first
 * 64 KiB or half, else from a whole character). So the log gets at most `limit` bytes of a child's output
 * plus one marker line, and the budget holds at most `floor(limit / 2)` bytes whatever the child prints.
 */
export class EchoBudget {
  #headLeft: number;
  readonly #tail: TailWindow;
  /** Bytes that went to the tail window (shown at the end, or left out). */
  #held = 0;
  #finished = false;
  /** The last byte shown, or -1 before any. */
  #lastShown = -1;

  /** @param limitBytes the most bytes of output shown (an integer ≥ 2). */
  constructor(readonly limitBytes: number) {
    if (!Number.isInteger(limitBytes) || limitBytes < 2)
      throw new Error(`Internal error: an echo budget needs at least 2 bytes, got ${limitBytes}`);
    this.#headLeft = Math.ceil(limitBytes / 2);
    this.#tail = new TailWindow(Math.floor(limitBytes / 2));
  }

  /**
   * Takes the next bytes of output and returns the part to show now (a prefix of `bytes`, possibly empty);
   * the rest is held for the end or left out.
   */
  take(bytes: Buffer): Buffer {
    if (this.#headLeft === 0 || this.#finished) {
      this.#hold(bytes);
      return EMPTY;
    }
    if (bytes.length <= this.#headLeft) {
      this.#headLeft -= bytes.length;
      if (bytes.length > 0) this.#lastShown = bytes[bytes.length - 1]!;
      return bytes;
    }
    let cut = bytes.lastIndexOf(LF, this.#headLeft - 1) + 1;
    // No line ends in the room: the head ends where it is when it ends a line, else mid-character never.
    if (cut === 0 && !this.#atLineEnd) cut = characterStart(bytes, this.#headLeft);
    this.#headLeft = 0;
    this.#hold(bytes.subarray(cut));
    return bytes.subarray(0, cut);
  }

  /** Whether what was shown so far is whole lines (and something was shown). */
  get #atLineEnd(): boolean {
    return this.#lastShown === LF;
  }

  /** The bytes of output left out of the log so far (final once {@link finish} was called). */
  get leftOutBytes(): number {
    return this.#tail.droppedBytes;
  }

  /**
   * The marker and the held end of the output (see {@link EchoRest}), when the child ended; nothing on a
   * second call, and bytes taken after the first are only counted.
   */
  finish(): EchoRest {
    if (this.#finished || this.#held === 0) {
      this.#finished = true;
      return { marker: null, tail: "" };
    }
    this.#finished = true;
    const kept = this.#tail.bytes();
    if (this.#tail.droppedBytes === 0) return { marker: null, tail: kept.toString("utf8") };
    // Start the shown end at a whole line when one starts near its front; else at a whole character.
    const newline = kept.indexOf(LF);
    const near = Math.min(LINE_START_SEARCH_BYTES, kept.length / 2);
    const from = newline >= 0 && newline < near ? newline + 1 : 0;
    const shown = fromWholeCharacter(kept.subarray(from));
    const leftOut = this.#tail.droppedBytes + kept.length - shown.length;
    const half = formatBytes(Math.floor(this.limitBytes / 2));
    return {
      marker: `[evidence-gate: ${leftOut} bytes of this command's output left out of the log here (output-log-limit ${formatBytes(this.limitBytes)}: about the first and the last ${half} are shown)]`,
      tail: shown.toString("utf8"),
    };
  }

  #hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#held += bytes.length;
    this.#tail.push(bytes);
  }
}

/** The largest index ≤ `at` in `bytes` where a UTF-8 character starts (0 when none does). */
function characterStart(bytes: Buffer, at: number): number {
  let i = at;
  while (i > 0 && (bytes[i]! & 0xc0) === 0x80) i--;
  return i;
}

/** `bytes` as the input is written: `2 MiB`, `512 KiB`, `1000 bytes`. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
