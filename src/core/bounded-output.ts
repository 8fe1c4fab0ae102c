import { fromWholeCharacter, TailWindow } from "./tail-window.js";

/**
 * A byte stream kept whole up to `capBytes`; beyond it, the first `floor(capBytes / 2)` bytes and the
 * most recent `capBytes - floor(capBytes / 2)` bytes, with the count of bytes dropped between them.
 * Linear time and at most `capBytes` of memory, however much is pushed (the head is copied into one
 * buffer, the tail is a {@link TailWindow}).
 *
 * Unlike the output tail's text, the text carries no marker of its own: a pattern searches it (a verify's
 * `output_matches`, a reply's `result_matches`), and a marker's words could match. Callers say what was
 * dropped from `droppedBytes`.
 */
export class BoundedOutput {
  private readonly headCap: number;
  private head: Buffer = Buffer.alloc(0);
  private headSize = 0;
  private readonly tail: TailWindow;

  /** @param capBytes the most bytes kept, head and tail together (at least 2). */
  constructor(capBytes: number) {
    this.headCap = Math.floor(capBytes / 2);
    this.tail = new TailWindow(Math.max(1, capBytes - this.headCap));
  }

  push(chunk: Uint8Array): void {
    let rest = chunk;
    if (this.headSize < this.headCap) {
      const take = Math.min(rest.length, this.headCap - this.headSize);
      if (this.headSize + take > this.head.length) {
        const size = Math.min(this.headCap, Math.max(this.headSize + take, this.head.length * 2, 64));
        const next = Buffer.allocUnsafe(size);
        this.head.copy(next, 0, 0, this.headSize);
        this.head = next;
      }
      this.head.set(rest.subarray(0, take), this.headSize);
      this.headSize += take;
      rest = rest.subarray(take);
    }
    this.tail.push(rest);
  }

  /** Removes the last byte kept when it is a `\n` (one a collector added after a line that had none). */
  dropFinalNewline(): void {
    if (this.tail.keptBytes > 0) {
      if (this.tail.lastByte() === 0x0a) this.tail.dropLastByte();
    } else if (this.headSize > 0 && this.head[this.headSize - 1] === 0x0a) {
      this.headSize--;
    }
  }

  /** Bytes dropped between the kept head and tail (0: the text is the whole output). */
  get droppedBytes(): number {
    return this.tail.droppedBytes;
  }

  /** Every byte pushed, kept or not. */
  get totalBytes(): number {
    return this.headSize + this.tail.droppedBytes + this.tail.keptBytes;
  }

  /**
   * The kept head and tail as UTF-8 text, apart (the tail starting on a whole character); when nothing
   * was dropped the whole output is the head and the tail is empty.
   */
  pieces(): { readonly head: string; readonly tail: string } {
    const head = this.head.subarray(0, this.headSize);
    if (this.tail.droppedBytes === 0) {
      return { head: Buffer.concat([head, this.tail.bytes()]).toString("utf8"), tail: "" };
    }
    return { head: head.toString("utf8"), tail: fromWholeCharacter(this.tail.bytes()).toString("utf8") };
  }

  /**
   * The kept output as UTF-8 text. When bytes were dropped: the head, `\n`, and the tail starting on a
   * whole character (a character cut at the head's end decodes as U+FFFD).
   */
  text(): string {
    const head = this.head.subarray(0, this.headSize);
    if (this.tail.droppedBytes === 0) return Buffer.concat([head, this.tail.bytes()]).toString("utf8");
    return `${head.toString("utf8")}\n${fromWholeCharacter(this.tail.bytes()).toString("utf8")}`;
  }
}
