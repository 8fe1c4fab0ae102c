/**
 * The bounded tail behind every process result (SPEC §9 "output is kept as a bounded tail"), fed chunk by
 * chunk the way pipe reads arrive.
 */
import { describe, expect, it } from "vitest";
import { OutputTail } from "../../src/proc/child-output.js";

const MARKER = /^\[… (\d+) earlier bytes not kept …\]\n/;

function feed(tail: OutputTail, text: string, chunkBytes: number): void {
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += chunkBytes) tail.push(bytes.subarray(i, i + chunkBytes));
}

describe("OutputTail", () => {
  it("output up to the limit is kept whole, with no marker", () => {
    const tail = new OutputTail(10);
    feed(tail, "0123456789", 3);
    expect(tail.text()).toBe("0123456789");
    expect(tail.droppedBytes).toBe(0);
  });

  it("one byte over the limit drops exactly that byte and says so", () => {
    const tail = new OutputTail(10);
    feed(tail, "0123456789A", 4);
    expect(tail.text()).toBe("[… 1 earlier bytes not kept …]\n123456789A");
    expect(tail.droppedBytes).toBe(1);
  });

  it("kept plus dropped always equals what was pushed, whatever the chunking", () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join("");
    for (const chunk of [1, 7, 4096, 1_000_000]) {
      const tail = new OutputTail(777);
      feed(tail, text, chunk);
      const kept = tail.text().replace(MARKER, "");
      expect(Buffer.byteLength(kept), `chunk ${chunk}`).toBe(777);
      expect(tail.droppedBytes + 777).toBe(Buffer.byteLength(text));
      expect(text.endsWith(kept)).toBe(true);
    }
  });

  it("a multi-byte character split across two chunks inside the window decodes whole", () => {
    const tail = new OutputTail(100);
    const bytes = Buffer.from("a🦀b", "utf8");
    tail.push(bytes.subarray(0, 3));
    tail.push(bytes.subarray(3));
    expect(tail.text()).toBe("a🦀b");
  });

  it("a character cut by the window's front edge is dropped whole, never shown as U+FFFD", () => {
    for (const char of ["é", "€", "🦀"]) {
      for (let limit = 5; limit < 13; limit++) {
        const tail = new OutputTail(limit);
        feed(tail, char.repeat(20), 3);
        const kept = tail.text().replace(MARKER, "");
        expect(kept, `${char} limit ${limit}`).not.toContain("\uFFFD");
        expect([...kept].every((c) => c === char)).toBe(true);
      }
    }
  });
});
