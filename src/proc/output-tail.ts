import { fromWholeCharacter, TailWindow } from "../core/tail-window.js";

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
