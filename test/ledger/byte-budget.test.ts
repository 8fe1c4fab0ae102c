import { describe, expect, it } from "vitest";
import { closersFor, truncateUtf8, utf8Bytes } from "../../src/ledger/byte-budget.js";

const NOTICE = "**… trimmed; full ledger in the job summary / artifact**";
const strict = new TextDecoder("utf-8", { fatal: true });

/** Decoding the bytes strictly proves no multi-byte character was split. */
function roundTrips(text: string): boolean {
  return strict.decode(new TextEncoder().encode(text)) === text;
}

describe("truncateUtf8", () => {
  it("leaves text of exactly the limit untouched", () => {
    const text = `${"a".repeat(97)}😀`; // 97 + 4 = 101 bytes
    expect(utf8Bytes(text)).toBe(101);
    expect(truncateUtf8(text, 101, NOTICE)).toBe(text);
  });

  it("one byte over the limit is cut, within the limit, with the notice visible", () => {
    const text = "x".repeat(65_536);
    const cut = truncateUtf8(text, 65_535, NOTICE);
    expect(utf8Bytes(cut)).toBeLessThanOrEqual(65_535);
    expect(cut.endsWith(`\n\n${NOTICE}`)).toBe(true);
  });

  it("never splits an emoji that straddles the byte limit, at every possible offset", () => {
    for (let pad = 0; pad < 8; pad += 1) {
      const text = `${"a".repeat(pad)}${"😀".repeat(200)}`;
      for (let limit = utf8Bytes(NOTICE) + 2; limit < utf8Bytes(NOTICE) + 40; limit += 1) {
        const cut = truncateUtf8(text, limit, NOTICE);
        expect(utf8Bytes(cut)).toBeLessThanOrEqual(limit);
        expect(roundTrips(cut)).toBe(true);
        expect(cut).not.toContain("\uFFFD");
        expect(cut).toContain(NOTICE);
      }
    }
  });

  it("never splits a CJK character, and fills the budget to within one character", () => {
    const text = "検証済み".repeat(30_000); // 3 bytes each, far over the limit
    const cut = truncateUtf8(text, 65_535, NOTICE);
    const bytes = utf8Bytes(cut);
    expect(bytes).toBeLessThanOrEqual(65_535);
    expect(bytes).toBeGreaterThan(65_535 - 3);
    expect(roundTrips(cut)).toBe(true);
    expect(cut.endsWith(NOTICE)).toBe(true);
  });

  it("prefers cutting at a line break near the limit, so no table row is cut in half", () => {
    const row = "| `node` | PASS (verified) | 日本語 |";
    const text = Array.from({ length: 5000 }, () => row).join("\n");
    const cut = truncateUtf8(text, 10_000, NOTICE);
    const kept = cut.slice(0, cut.indexOf(`\n\n${NOTICE}`));
    expect(kept.split("\n").every((line) => line === row)).toBe(true);
  });

  it("closes a code fence left open by the cut, with a fence as long as the opener", () => {
    const text = `## Output\n\n\`\`\`\`\n${"error ``` line\n".repeat(10_000)}\`\`\`\`\n`;
    const cut = truncateUtf8(text, 4000, NOTICE);
    expect(utf8Bytes(cut)).toBeLessThanOrEqual(4000);
    expect(cut).toMatch(/\n````\n\n\*\*… trimmed/);
    expect(closersFor(cut)).toBe("");
  });

  it("closes an open <details> block so the notice is not hidden inside it", () => {
    const text = `<details><summary>Patch</summary>\n\n${"+ added line\n".repeat(5000)}\n</details>\n`;
    const cut = truncateUtf8(text, 2000, NOTICE);
    expect(cut).toMatch(/\n<\/details>\n\n\*\*… trimmed/);
    expect(utf8Bytes(cut)).toBeLessThanOrEqual(2000);
  });

  it("cuts the notice itself when not even the notice fits", () => {
    const cut = truncateUtf8("😀".repeat(100), 10, "é".repeat(20));
    expect(cut).toBe("é".repeat(5));
  });
});

describe("closersFor", () => {
  it("treats a backtick line with backticks in its info string as text, not a fence (CommonMark)", () => {
    expect(closersFor("``` a ` b\ncode")).toBe("");
  });

  it("does not close a fence with a shorter run of the same character", () => {
    expect(closersFor("`````\ncode\n```\nmore")).toBe("\n`````");
  });

  it("ignores <details> inside a fenced block", () => {
    expect(closersFor("```\n<details>\n```\n")).toBe("");
  });
});
