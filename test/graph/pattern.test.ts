import { describe, expect, test } from "vitest";
import { compilePattern, type Pattern, searchPattern } from "../../src/graph/pattern.js";

function compiled(source: string): Pattern {
  const result = compilePattern(source);
  if (!result.ok) throw new Error(`test pattern did not compile: ${result.message}`);
  return result.pattern;
}

describe("patterns search the raw reply like Go's MatchString", () => {
  test("^PASS$ does not match a reply with a trailing newline: $ anchors the end of the text", () => {
    expect(searchPattern(compiled("^PASS$"), "PASS\n")).toBe(false);
    expect(searchPattern(compiled("^PASS$"), "PASS")).toBe(true);
  });

  test("an unanchored pattern matches anywhere in the text", () => {
    expect(searchPattern(compiled("PASS"), "all checks: PASS, done")).toBe(true);
    expect(searchPattern(compiled("PASS"), "all checks: FAIL")).toBe(false);
  });

  test("^ anchors the start of the whole text, not of a line (not multiline)", () => {
    expect(searchPattern(compiled("^PASS"), "note\nPASS")).toBe(false);
    expect(searchPattern(compiled("(?m)^PASS"), "note\nPASS")).toBe(true);
  });

  test("the text is not trimmed before matching", () => {
    expect(searchPattern(compiled("^ok$"), " ok")).toBe(false);
  });

  test(". does not match a newline unless the pattern says (?s)", () => {
    expect(searchPattern(compiled("a.b"), "a\nb")).toBe(false);
    expect(searchPattern(compiled("(?s)a.b"), "a\nb")).toBe(true);
  });

  test("compiling keeps the pattern's source text", () => {
    expect(compiled("^DONE\\b").source).toBe("^DONE\\b");
  });
});

describe("RE2 refuses what it cannot run in linear time, at compile", () => {
  test.each([
    ["(a)\\1", "invalid escape sequence"],
    ["(?=x)", "invalid or unsupported Perl syntax"],
    ["(abc", "missing closing )"],
  ])("%s is refused: %s", (source, why) => {
    const result = compilePattern(source);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain(`invalid regex ${JSON.stringify(source)}`);
    expect(result.message).toContain(why);
  });
});
