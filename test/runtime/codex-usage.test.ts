/**
 * Codex token usage on the ledger (`codex-usage.ts`): codex's cumulative, cached-inclusive counts mapped
 * onto the ledger's claude-shaped usage, and one call's share of a thread.
 */
import { describe, expect, it } from "vitest";
import { codexTokenUsage, usageSince } from "../../src/runtime/codex-usage.js";

describe("codexTokenUsage", () => {
  it("splits cached input out of input_tokens (codex counts it inside; the ledger beside it) and keeps output as printed", () => {
    expect(
      codexTokenUsage({
        inputTokens: 1200,
        cachedInputTokens: 1000,
        outputTokens: 80,
        reasoningOutputTokens: 30,
      }),
    ).toEqual({ inputTokens: 200, outputTokens: 80, cacheReadInputTokens: 1000 });
  });

  it("carries cache_write_input_tokens when codex printed it", () => {
    expect(
      codexTokenUsage({
        inputTokens: 100,
        cachedInputTokens: 0,
        outputTokens: 20,
        reasoningOutputTokens: 0,
        cacheWriteInputTokens: 0,
      }),
    ).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 });
  });

  it("never goes below zero when codex reports more cached than input", () => {
    expect(
      codexTokenUsage({ inputTokens: 5, cachedInputTokens: 9, outputTokens: 1, reasoningOutputTokens: 0 })
        .inputTokens,
    ).toBe(0);
  });
});

describe("usageSince", () => {
  it("is the cumulative count minus the thread's count before the call, field by field", () => {
    expect(
      usageSince(
        { inputTokens: 1050, outputTokens: 105, cacheReadInputTokens: 40, cacheCreationInputTokens: 3 },
        { inputTokens: 1000, outputTokens: 100, cacheReadInputTokens: 10, cacheCreationInputTokens: 3 },
      ),
    ).toEqual({ inputTokens: 50, outputTokens: 5, cacheReadInputTokens: 30, cacheCreationInputTokens: 0 });
  });

  it("with nothing before (a fresh thread, or an unknown count) is the cumulative count itself", () => {
    const cumulative = { inputTokens: 10, outputTokens: 2 };
    expect(usageSince(cumulative, null)).toBe(cumulative);
  });

  it("clamps at zero rather than reporting negative tokens", () => {
    expect(usageSince({ inputTokens: 5, outputTokens: 1 }, { inputTokens: 9, outputTokens: 0 })).toEqual({
      inputTokens: 0,
      outputTokens: 1,
    });
  });
});
