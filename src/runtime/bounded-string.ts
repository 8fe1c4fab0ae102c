import { BoundedOutput } from "../core/bounded-output.js";

/**
 * The bytes of one JSON string as the bounded decoder reads them: kept whole up to `capBytes`, beyond it
 * as a {@link BoundedOutput} (first and last halves, joined by `\n`). Pieces are copied only once the
 * string outgrows its first chunk, so a short string costs one `toString`.
 */
export class BoundedString {
  private parts: Buffer[] = [];
  private size = 0;
  private bounded: BoundedOutput | null = null;

  constructor(private readonly capBytes: number) {}

  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.bounded !== null) {
      this.bounded.push(bytes);
      return;
    }
    if (this.size + bytes.length > this.capBytes) {
      this.bounded = new BoundedOutput(this.capBytes);
      for (const part of this.parts) this.bounded.push(part);
      this.parts = [];
      this.bounded.push(bytes);
      return;
    }
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  /** The kept bytes now (for the line's budget). */
  get keptBytes(): number {
    return this.bounded === null ? this.size : this.capBytes;
  }

  /** Bytes dropped between the kept halves (0: the string is whole). */
  get droppedBytes(): number {
    return this.bounded?.droppedBytes ?? 0;
  }

  text(): string {
    if (this.bounded !== null) return this.bounded.text();
    if (this.parts.length === 1) return this.parts[0]!.toString("utf8");
    return Buffer.concat(this.parts).toString("utf8");
  }
}
