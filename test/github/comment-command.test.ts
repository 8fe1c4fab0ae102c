/** `/evidence-gate run` parsing (SPEC §9, §11): what opens a command, the `@sha` argument and the text. */
import { describe, expect, it } from "vitest";
import { parseCommentCommand } from "../../src/github/comment-command.js";

describe("parseCommentCommand", () => {
  it("reads the verb, an optional @sha (7–40 hex, lower-cased) and the rest of the comment as text", () => {
    expect(parseCommentCommand("/evidence-gate run")).toEqual({ kind: "run", sha: null, text: "" });
    expect(parseCommentCommand("  \n/evidence-gate run @ABC1234 check the parser\nand the lexer\n")).toEqual({
      kind: "run",
      sha: "abc1234",
      text: "check the parser\nand the lexer",
    });
    expect(parseCommentCommand("/evidence-gate run\r\nsecond line")).toEqual({
      kind: "run",
      sha: null,
      text: "second line",
    });
  });

  it("an @ word that is not a 7–40 hex SHA is part of the text, not a SHA", () => {
    expect(parseCommentCommand("/evidence-gate run @abc12 x")).toEqual({
      kind: "run",
      sha: null,
      text: "@abc12 x",
    });
    expect(parseCommentCommand("/evidence-gate run @mona please")).toEqual({
      kind: "run",
      sha: null,
      text: "@mona please",
    });
  });

  it("is a command only when it opens the comment: quoted, mid-text or glued to another word it is not", () => {
    expect(parseCommentCommand("> /evidence-gate run")).toEqual({ kind: "none" });
    expect(parseCommentCommand("please /evidence-gate run")).toEqual({ kind: "none" });
    expect(parseCommentCommand("/evidence-gaterun")).toEqual({ kind: "none" });
    expect(parseCommentCommand("")).toEqual({ kind: "none" });
  });

  it("another verb is an unknown command, named", () => {
    expect(parseCommentCommand("/evidence-gate approve review")).toEqual({
      kind: "unknown",
      verb: "approve",
    });
    expect(parseCommentCommand("/evidence-gate")).toEqual({ kind: "unknown", verb: "" });
  });
});
