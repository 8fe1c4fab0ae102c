/**
 * How the exec seam splits a stream into pieces (src/proc/child-output.ts: LineFramer) and lines for a callback
 * (BoundedLines, same module): the same bytes whatever the chunking, CR LF folded, and an over-long line
 * moved on in fragments or cut, never held whole.
 */
import { describe, expect, it } from "vitest";
import { BoundedLines, LineFramer, type PieceKind } from "../../src/proc/child-output.js";

function frame(text: string, chunkBytes: number, maxLineBytes: number): { kind: PieceKind; text: string }[] {
  const pieces: { kind: PieceKind; text: string }[] = [];
  const framer = new LineFramer(
    (kind, bytes) => pieces.push({ kind, text: bytes.toString("latin1") }),
    maxLineBytes,
  );
  const bytes = Buffer.from(text, "latin1");
  for (let i = 0; i < bytes.length; i += chunkBytes) framer.push(bytes.subarray(i, i + chunkBytes));
  framer.flush();
  return pieces;
}

function lines(text: string, chunkBytes: number, maxLineBytes: number): string[] {
  const out: string[] = [];
  const cutter = new BoundedLines((line) => out.push(line), maxLineBytes);
  const framer = new LineFramer((kind, bytes) => cutter.piece(kind, bytes), maxLineBytes);
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += chunkBytes) framer.push(bytes.subarray(i, i + chunkBytes));
  framer.flush();
  cutter.finish();
  return out;
}

describe("LineFramer", () => {
  it("pieces joined are the stream with CR LF folded, whatever the chunking", () => {
    const text = "one\r\ntwo\nthree\r\r\nfour".concat("x".repeat(50), "\r\nend\r");
    for (const chunk of [1, 2, 3, 7, 64, 1000]) {
      const joined = frame(text, chunk, 16)
        .map((p) => p.text)
        .join("");
      expect(joined, `chunk ${chunk}`).toBe(text.replaceAll("\r\n", "\n"));
    }
  });

  it("a `lines` piece ends in a newline, a fragment is at most the bound plus one chunk, `last` is the unterminated end", () => {
    const pieces = frame(`ab\ncd\n${"y".repeat(40)}\ntail`, 8, 16);
    for (const piece of pieces.filter((p) => p.kind === "lines"))
      expect(piece.text.endsWith("\n")).toBe(true);
    for (const piece of pieces.filter((p) => p.kind === "fragment")) {
      expect(piece.text).not.toContain("\n");
      expect(piece.text.length).toBeLessThanOrEqual(16 + 8);
    }
    expect(pieces.at(-1)).toEqual({ kind: "last", text: "tail" });
    expect(pieces.some((p) => p.kind === "fragment")).toBe(true);
  });

  it("a line longer than the bound that ends the stream still ends in a `last` piece", () => {
    const pieces = frame("z".repeat(100), 10, 16);
    expect(pieces.at(-1)?.kind).toBe("last");
    expect(pieces.map((p) => p.text).join("")).toBe("z".repeat(100));
  });
});

describe("BoundedLines", () => {
  it("short lines arrive whole, without newlines, a last unterminated one included", () => {
    for (const chunk of [1, 5, 100]) expect(lines("a\nbé\r\n\nc", chunk, 64)).toEqual(["a", "bé", "", "c"]);
  });

  it("a line over the bound arrives cut, with the count of bytes not kept, and the next lines are intact", () => {
    const long = `${"é".repeat(20)}${"x".repeat(100)}`; // 140 bytes
    for (const chunk of [1, 7, 1000]) {
      const got = lines(`before\n${long}\nafter\n`, chunk, 31);
      expect(got[0]).toBe("before");
      // 31 bytes of 2-byte characters keep 15 of them; the other 110 bytes are counted.
      expect(got[1], `chunk ${chunk}`).toBe(`${"é".repeat(15)}[… 110 more bytes of this line not kept …]`);
      expect(got.slice(2)).toEqual(["after"]);
    }
  });

  it("an over-long last line without a newline is cut too", () => {
    expect(lines(`${"q".repeat(50)}`, 8, 20)).toEqual([
      `${"q".repeat(20)}[… 30 more bytes of this line not kept …]`,
    ]);
  });
});
