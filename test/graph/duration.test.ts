import { describe, expect, test } from "vitest";
import { formatDuration, parseDuration } from "../../src/graph/duration.js";

describe("parseDuration reads Go duration syntax into milliseconds", () => {
  test.each([
    ["90s", 90_000],
    ["45m", 2_700_000],
    ["1h30m", 5_400_000],
    ["30m1h", 5_400_000],
    ["1.5h", 5_400_000],
    ["500ms", 500],
    ["0", 0],
    ["0s", 0],
    ["1h0m0s", 3_600_000],
    [".5s", 500],
    ["1.s", 1_000],
    ["2h45m30.5s", 9_930_500],
    ["1.1s", 1_100],
    ["1500us", 1.5],
    ["1µs", 0.001],
    ["1μs", 0.001],
    ["1000000ns", 1],
    ["-5m", -300_000],
    ["+1s", 1_000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  test.each([
    ["", "empty"],
    ["5", 'missing unit after "5"'],
    ["1.5", 'missing unit after "1.5"'],
    ["5 minutes", 'unknown unit " minutes"'],
    ["1d", 'unknown unit "d"'],
    ["1hh", 'unknown unit "hh"'],
    ["1h 30m", 'unknown unit "h "'],
    ["h", '"h" has no number'],
    [".s", "has no number"],
    ["1..5s", 'cannot read "1..5s"'],
    ["-", "empty"],
    ["9999999999h", "too large"],
  ])("%j is refused: %s", (text, why) => {
    const parsed = parseDuration(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toContain(`invalid duration ${JSON.stringify(text)}`);
    expect(parsed.message).toContain(why);
    expect(parsed.message).toContain("want a Go duration like 90s, 45m, 1h30m");
  });
});

describe("formatDuration writes milliseconds as a Go duration that reads back the same", () => {
  test.each([
    [600_000, "10m"],
    [5_400_000, "1h30m"],
    [1_500, "1s500ms"],
    [90_000, "1m30s"],
    [0, "0"],
    [-120_000, "-2m"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });
});
