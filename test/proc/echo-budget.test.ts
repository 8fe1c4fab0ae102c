/**
 * The bound on one child's output in the step log (issue 21 item 5; `src/proc/echo-budget.ts`), on bytes
 * given directly: what is shown now, what is held for the end, and the marker's count. The seam's real
 * children are in `run-process-large-output.test.ts`, the fence's lines in `command-fence.test.ts`.
 */
import { describe, expect, it } from "vitest";
import { EchoBudget, formatBytes } from "../../src/proc/echo-budget.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("EchoBudget", () => {
  it("output within the head is shown as it comes, and the end adds nothing", () => {
    const budget = new EchoBudget(100);
    expect(budget.take(bytes("one\ntwo\n")).toString()).toBe("one\ntwo\n");
    expect(budget.finish()).toEqual({ marker: null, tail: "" });
  });

  it("output over the head but within the limit is shown whole: the head now, the rest at the end, no marker", () => {
    const budget = new EchoBudget(20);
    const shown = budget.take(bytes("aaaa\nbbbb\ncccc\ndddd\n"));
    expect(shown.toString()).toBe("aaaa\nbbbb\n");
    expect(budget.finish()).toEqual({ marker: null, tail: "cccc\ndddd\n" });
    expect(budget.leftOutBytes).toBe(0);
  });

  it("a character is never cut: the head ends before a multi-byte character that does not fit", () => {
    const budget = new EchoBudget(8);
    // 3 ASCII bytes, then "é" (2 bytes) straddling the 4-byte head.
    expect(budget.take(bytes("abcé and more, no newline at all")).toString()).toBe("abc");
  });

  it("the marker counts every byte neither shown nor in the tail, and the tail starts at a line", () => {
    const budget = new EchoBudget(64);
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join("");
    let shown = "";
    for (let at = 0; at < lines.length; at += 7) shown += budget.take(bytes(lines.slice(at, at + 7)));
    const rest = budget.finish();
    expect(rest.marker).toMatch(
      /^\[evidence-gate: \d+ bytes of this command's output left out of the log here \(output-log-limit 64 bytes: about the first and the last 32 bytes are shown\)\]$/,
    );
    expect(rest.tail.endsWith("line 99\n")).toBe(true);
    expect(rest.tail.startsWith("line ")).toBe(true);
    const leftOut = Number(/(\d+) bytes/.exec(rest.marker!)![1]);
    expect(shown.length + leftOut + rest.tail.length).toBe(lines.length);
    expect(shown.length).toBeLessThanOrEqual(32);
    expect(rest.tail.length).toBeLessThanOrEqual(32);
  });

  it("after finish, more output is neither shown nor finished again", () => {
    const budget = new EchoBudget(4);
    budget.take(bytes("0123456789"));
    expect(budget.finish().marker).not.toBeNull();
    expect(budget.take(bytes("late")).length).toBe(0);
    expect(budget.finish()).toEqual({ marker: null, tail: "" });
  });

  it("sizes read as the input writes them", () => {
    expect(formatBytes(2 * 1024 * 1024)).toBe("2 MiB");
    expect(formatBytes(512 * 1024)).toBe("512 KiB");
    expect(formatBytes(1000)).toBe("1000 bytes");
  });
});
