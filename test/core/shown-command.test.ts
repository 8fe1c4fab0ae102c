/**
 * A multi-line verify command on one-line surfaces: each line break is shown (` ⏎ `), so `npm ci` and
 * `npm test` never read as one command `npm ci npm test`; a one-line command is shown as given.
 */
import { describe, expect, it } from "vitest";
import { LINE_BREAK_MARK, shownCommand } from "../../src/core/shown-command.js";

describe("shownCommand", () => {
  it("marks each line break, dropping blank lines and the lines' surrounding spaces", () => {
    expect(shownCommand("npm ci\nnpm test\n")).toBe(`npm ci${LINE_BREAK_MARK}npm test`);
    expect(shownCommand("  set -e\r\n\r\n  make build  \r  make test")).toBe(
      "set -e ⏎ make build ⏎ make test",
    );
  });

  it("a one-line command is returned as given, spaces included", () => {
    expect(shownCommand("npm test -- --grep 'a  b'")).toBe("npm test -- --grep 'a  b'");
  });
});
