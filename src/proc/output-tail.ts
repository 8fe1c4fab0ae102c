/**
 * A bounded tail of a byte stream: keeps at most `maxBytes` of the most recent output (SPEC §9: output
 * is kept as a bounded tail). Decoding happens once, at `text()`, so a multi-byte character split
 * across chunks is not mangled; a character cut at the front of the window is dropped.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.maxBytes && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.maxBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Bytes discarded from the front so far. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** The kept tail as UTF-8 text, prefixed with a marker when bytes were dropped. */
  text(): string {
    let buf = Buffer.concat(this.chunks);
    if (this.dropped > 0) {
      // Skip UTF-8 continuation bytes left over from a character cut at the window's front.
      let start = 0;
      while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
      buf = buf.subarray(start);
      return `[… ${this.dropped} earlier bytes not kept …]\n${buf.toString("utf8")}`;
    }
    return buf.toString("utf8");
  }
}
