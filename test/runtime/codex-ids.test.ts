/** What the engine checks before a codex call (`codex-argv.ts`): resumable thread ids and `-m` values. */
import { describe, expect, it } from "vitest";
import { codexModelProblem, isCodexThreadId } from "../../src/runtime/codex-argv.js";

describe("isCodexThreadId", () => {
  it("accepts the UUIDs thread.started prints, and nothing argv could misread", () => {
    expect(isCodexThreadId("01a229b5-40c4-7922-94ad-e4ea52cb9e9d")).toBe(true);
    expect(isCodexThreadId("--last")).toBe(false);
    expect(isCodexThreadId("")).toBe(false);
    expect(isCodexThreadId("01a229b5-40c4-7922-94ad-e4ea52cb9e9d x")).toBe(false);
  });
});

describe("codexModelProblem", () => {
  it("refuses an empty model and one clap would read as a flag; accepts any other slug", () => {
    expect(codexModelProblem("gpt-5.5")).toBeNull();
    expect(codexModelProblem("")).toMatch(/non-empty/);
    expect(codexModelProblem("-x")).toMatch(/not start with "-"/);
  });
});
