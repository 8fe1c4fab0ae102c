/**
 * Codex token usage on the ledger (SPEC §6 "token usage"): codex's `turn.completed.usage` mapped onto the
 * ledger's {@link TokenUsage}, and one call's share of a thread's cumulative count.
 *
 * Two facts about codex's numbers (codex-cli 0.169.0; `codex-stream.ts`, docs/scripted-model-server.md):
 * - `input_tokens` INCLUDES the cached ones (Responses API convention), while the ledger's `inputTokens`
 *   follows the Anthropic convention of the claude rows: uncached input only, cache reads beside it. So
 *   `inputTokens = input_tokens − cached_input_tokens`, `cacheReadInputTokens = cached_input_tokens`,
 *   `cacheCreationInputTokens = cache_write_input_tokens` when codex printed it. `output_tokens` already
 *   holds the reasoning tokens (`reasoning_output_tokens` is a part of it, not an addition), so it is
 *   taken as it is.
 * - The usage is CUMULATIVE FOR THE THREAD: a resumed thread (`exec … resume ID`, session handoff) prints
 *   the earlier calls' tokens plus its own (measured: 1000 then 1050 for a second call of 50). A resumed
 *   call's row therefore carries its cumulative count minus the thread's count before it.
 */
import type { TokenUsage } from "../core/ledger-row.js";
import type { CodexUsage } from "./codex-stream.js";

/** Codex's `turn.completed.usage` in the ledger's convention (see the module comment). Token counts. */
export function codexTokenUsage(usage: CodexUsage): TokenUsage {
  return {
    inputTokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens),
    outputTokens: usage.outputTokens,
    cacheReadInputTokens: usage.cachedInputTokens,
    ...(usage.cacheWriteInputTokens !== undefined
      ? { cacheCreationInputTokens: usage.cacheWriteInputTokens }
      : {}),
  };
}

/**
 * One call's share of a thread's cumulative usage: `cumulative − before`, field by field, never below 0.
 * `before` is the thread's cumulative count when the call started (`null`: a fresh thread, nothing to
 * subtract). A field only `cumulative` has is kept as it is.
 */
export function usageSince(cumulative: TokenUsage, before: TokenUsage | null): TokenUsage {
  if (before === null) return cumulative;
  const minus = (a: number, b: number | undefined): number => Math.max(0, a - (b ?? 0));
  return {
    inputTokens: minus(cumulative.inputTokens, before.inputTokens),
    outputTokens: minus(cumulative.outputTokens, before.outputTokens),
    ...(cumulative.cacheReadInputTokens !== undefined
      ? { cacheReadInputTokens: minus(cumulative.cacheReadInputTokens, before.cacheReadInputTokens) }
      : {}),
    ...(cumulative.cacheCreationInputTokens !== undefined
      ? {
          cacheCreationInputTokens: minus(
            cumulative.cacheCreationInputTokens,
            before.cacheCreationInputTokens,
          ),
        }
      : {}),
  };
}
