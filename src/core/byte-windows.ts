/**
 * Bounded byte windows over a stream of any length, in linear time and constant memory (SPEC §9): a tail
 * ({@link TailWindow}: the most recent bytes) and a head and tail ({@link BoundedOutput}: the first half and
 * the most recent half, with the count dropped between). The child-output tail, the log echo budget, the
 * verify command's searched output and the model CLIs' over-long JSON strings all keep their bytes here.
 */
/**
 * The most recent `maxBytes` bytes of a byte stream, in linear time and constant memory (SPEC §9: output
 * is kept as a bounded tail). Bytes are copied into one ring buffer of at most `maxBytes` bytes, grown by
 * doubling until it reaches that size, so pushing N bytes costs O(N) whatever the chunking, and nothing a
 * caller pushed is retained (a small slice of a large pipe chunk does not keep the chunk alive).
 */
export class TailWindow {
  private ring: Buffer = Buffer.alloc(0);
  /** Index in `ring` of the oldest kept byte. */
  private start = 0;
  private kept = 0;
  private dropped = 0;

  /** @param maxBytes the most bytes kept (a positive integer). */
  constructor(private readonly maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
      throw new Error(`Internal error: a tail window needs a positive size, got ${maxBytes}`);
    }
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (chunk.length >= this.maxBytes) {
      // The chunk alone fills the window: everything kept so far and the chunk's front are dropped.
      this.grow(this.maxBytes);
      this.dropped += this.kept + chunk.length - this.maxBytes;
      this.ring.set(chunk.subarray(chunk.length - this.maxBytes), 0);
      this.start = 0;
      this.kept = this.maxBytes;
      return;
    }
    const total = this.kept + chunk.length;
    this.grow(Math.min(this.maxBytes, total));
    const size = this.ring.length;
    // Write at the end of the kept bytes, wrapping around the ring.
    const at = (this.start + this.kept) % size;
    const first = Math.min(chunk.length, size - at);
    this.ring.set(chunk.subarray(0, first), at);
    if (first < chunk.length) this.ring.set(chunk.subarray(first), 0);
    if (total > size) {
      const excess = total - size;
      this.start = (this.start + excess) % size;
      this.dropped += excess;
      this.kept = size;
    } else {
      this.kept = total;
    }
  }

  /** Bytes dropped from the front so far. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** Bytes kept now (at most `maxBytes`). */
  get keptBytes(): number {
    return this.kept;
  }

  /** The kept bytes in order, as a fresh buffer. */
  bytes(): Buffer {
    const size = this.ring.length;
    const end = this.start + this.kept;
    if (end <= size) return Buffer.from(this.ring.subarray(this.start, end));
    return Buffer.concat([this.ring.subarray(this.start), this.ring.subarray(0, end - size)]);
  }

  /** The last kept byte, or `undefined` when nothing is kept. */
  lastByte(): number | undefined {
    if (this.kept === 0) return undefined;
    return this.ring[(this.start + this.kept - 1) % this.ring.length];
  }

  /** Forgets the last kept byte (it was never dropped: `droppedBytes` does not change). */
  dropLastByte(): void {
    if (this.kept > 0) this.kept--;
  }

  /** Grows the ring to at least `needed` bytes (at most `maxBytes`), keeping the kept bytes in order. */
  private grow(needed: number): void {
    if (this.ring.length >= needed) return;
    const size = Math.min(this.maxBytes, Math.max(needed, this.ring.length * 2, 64));
    const next = Buffer.allocUnsafe(size);
    this.bytesInto(next);
    this.ring = next;
    this.start = 0;
  }

  private bytesInto(target: Buffer): void {
    const size = this.ring.length;
    if (size === 0) return;
    const end = this.start + this.kept;
    if (end <= size) {
      this.ring.copy(target, 0, this.start, end);
    } else {
      this.ring.copy(target, 0, this.start, size);
      this.ring.copy(target, size - this.start, 0, end - size);
    }
  }
}

/** Skips UTF-8 continuation bytes at the front of `bytes`, so decoding starts on a whole character. */
export function fromWholeCharacter(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
}

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
