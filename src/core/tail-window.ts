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
