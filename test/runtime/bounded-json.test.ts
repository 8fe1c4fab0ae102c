/**
 * The streaming decoder of over-long JSONL lines (src/runtime/jsonl-reader.ts): the same value as
 * `JSON.parse` however the line is chunked, the same refusals, and bounds that hold on lines far larger
 * than what it keeps.
 */
import { describe, expect, it } from "vitest";
import {
  BoundedJsonDecoder,
  type BoundedJsonResult,
  CONTAINER_MAX_ITEMS,
  MAX_DEPTH,
  STRING_CAP_BYTES,
} from "../../src/runtime/jsonl-reader.js";

function decode(text: string | Buffer, chunkBytes = 65_536): BoundedJsonResult {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  const decoder = new BoundedJsonDecoder();
  for (let i = 0; i < bytes.length; i += chunkBytes) decoder.write(bytes.subarray(i, i + chunkBytes));
  return decoder.end();
}

function value(result: BoundedJsonResult): unknown {
  if (result.kind !== "value") throw new Error(`expected a value, got ${JSON.stringify(result)}`);
  return result.value;
}

/** A small deterministic generator (no Math.random: a failure must be reproducible). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const STRING_PIECES = ["a", "é", "€", "🦀", '"', "\\", "/", "\n", "\t", "\u0001", "\u2028", "plain text "];

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 4 ? 5 : 7));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -1, 3.25, 1e21, -2.5e-7, 123456789][Math.floor(next() * 6)];
    case 3:
    case 4:
      return Array.from(
        { length: Math.floor(next() * 8) },
        () => STRING_PIECES[Math.floor(next() * 12)],
      ).join("");
    case 5:
      return Array.from({ length: Math.floor(next() * 5) }, () => randomValue(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 5); i > 0; i--)
        object[`k${Math.floor(next() * 4)}é`] = randomValue(next, depth + 1);
      return object;
    }
  }
}

describe("BoundedJsonDecoder decodes what JSON.parse decodes", () => {
  it("200 random documents, each in chunks of 1, 3 and 64 KiB bytes, equal JSON.parse's value", () => {
    const next = generator(17);
    for (let n = 0; n < 200; n++) {
      const text = JSON.stringify({ type: "x", n, body: randomValue(next, 0) }, null, n % 3 === 0 ? 1 : 0);
      for (const chunk of [1, 3, 65_536]) {
        expect(value(decode(text, chunk)), `document ${n}, chunk ${chunk}: ${text}`).toEqual(
          JSON.parse(text),
        );
      }
    }
  });

  it("escapes: \\u with surrogate pairs, \\/ and the single-character ones", () => {
    const text = String.raw`{"s":"\ud83e\udd80 \u00e9\u20ac \/ \b\f\n\r\t \" \\"}`;
    expect(value(decode(text, 1))).toEqual(JSON.parse(text));
  });

  it("a __proto__ key is an own property, as JSON.parse makes it, not the object's prototype", () => {
    const decoded = value(decode('{"__proto__":{"polluted":true},"type":"t"}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.hasOwn(decoded, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a line of whitespace is blank", () => {
    expect(decode("  \t \r ")).toEqual({ kind: "blank" });
  });

  it.each([
    '{"a" 1}',
    "[1,]",
    '{"a":1,}',
    "01",
    "1.",
    "-",
    '"\\x"',
    '"\\u12G4"',
    "tru",
    "nul",
    "{} {}",
    "[",
    '"abc',
    '{"a":1}x',
    "{,}",
    "]",
    '{"a":}',
  ])("refuses %s as JSON.parse does, with a sample of the line", (text) => {
    expect(() => JSON.parse(text)).toThrow();
    const result = decode(text, 1);
    expect(result).toEqual({ kind: "invalid", sample: text.trimStart() });
  });
});

describe("BoundedJsonDecoder keeps bounded parts of a huge line", () => {
  it("a 20 MB string keeps its first and last halves of the cap, joined by \\n, and names the cut", () => {
    const size = 20_000_000;
    const big = `HEAD${"x".repeat(size - 8)}TAIL`;
    const result = decode(`{"type":"result","session_id":"s","result":"${big}","after":1}`);
    expect(result.kind).toBe("value");
    if (result.kind !== "value") return;
    const kept = (result.value as { result: string }).result;
    expect(kept.length).toBe(STRING_CAP_BYTES + 1);
    expect(kept.startsWith("HEADxxx")).toBe(true);
    expect(kept.endsWith("xxxTAIL")).toBe(true);
    expect(kept[STRING_CAP_BYTES / 2]).toBe("\n");
    expect(result.cutStrings).toEqual(new Map([["/result", size - STRING_CAP_BYTES]]));
    expect(result.value).toMatchObject({ type: "result", session_id: "s", after: 1 });
  });

  it(`an array of more than ${CONTAINER_MAX_ITEMS} items keeps the first ${CONTAINER_MAX_ITEMS} and says it was truncated`, () => {
    const items = Array.from({ length: CONTAINER_MAX_ITEMS + 500 }, (_, i) => ({ id: i }));
    const result = decode(JSON.stringify({ type: "t", items, last: "kept" }));
    expect(result.kind).toBe("value");
    if (result.kind !== "value") return;
    const decoded = result.value as { items: { id: number }[]; last: string };
    expect(decoded.items).toHaveLength(CONTAINER_MAX_ITEMS);
    expect(decoded.items.at(-1)).toEqual({ id: CONTAINER_MAX_ITEMS - 1 });
    expect(decoded.last).toBe("kept");
    expect(result.truncated).toBe(true);
  });

  it(`nesting deeper than ${MAX_DEPTH} is refused, not followed`, () => {
    const deep = `${"[".repeat(MAX_DEPTH + 1)}${"]".repeat(MAX_DEPTH + 1)}`;
    expect(decode(deep).kind).toBe("invalid");
    const fits = `${"[".repeat(MAX_DEPTH)}${"]".repeat(MAX_DEPTH)}`;
    expect(decode(fits).kind).toBe("value");
  });
});
