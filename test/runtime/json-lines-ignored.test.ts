/**
 * The line loop ignores every line that is not a JSON object with a string `type` the same way, JSON or
 * not (src/runtime/json-lines.ts). Lines that do not open an object are now ignored without `JSON.parse`
 * (bench B6: its thrown error per line made a node printing 40 MB of short lines take minutes): the counts
 * and the sample must read exactly as before, and an object event among them must still be seen.
 */
import { describe, expect, it } from "vitest";
import { type JsonLineCounts, jsonLineParser } from "../../src/runtime/json-lines.js";

function parse(stdout: string): { readonly counts: JsonLineCounts; readonly types: string[] } {
  const types: string[] = [];
  const parser = jsonLineParser(
    "test",
    (event) => void types.push(event.type),
    (counts) => counts,
  );
  parser.write(Buffer.from(stdout, "utf8"));
  return { counts: parser.finish(), types };
}

describe("jsonLineParser on lines that are not events", () => {
  it("counts text, JSON scalars, arrays and broken objects as ignored, keeping the first as the sample", () => {
    const { counts, types } = parse(
      [
        "y",
        '"a string"',
        "42",
        "[1,2]",
        "{not json",
        '  {"type":"result"}  ',
        "null",
        '\uFEFF{"type":"x"}',
        "",
      ].join("\n"),
    );
    expect(types).toEqual(["result", "x"]);
    expect(counts).toEqual({ lines: 8, ignoredLines: 6, firstIgnoredLine: "y" });
  });

  it("keeps the sample of a long text line cut at 200 characters", () => {
    const long = "z".repeat(300);
    const { counts } = parse(`${long}\n${"y\n".repeat(1000)}`);
    expect(counts).toEqual({ lines: 1001, ignoredLines: 1001, firstIgnoredLine: `${"z".repeat(200)}…` });
  });
});
