/**
 * The model calls: the one port through which the engine, the planner and the assessor reach a model CLI
 * (issue 24 items 1–2). Each call is one process of `claude -p` or `codex exec` with its stream parsed
 * and folded (`invoke-claude.ts`, `invoke-codex.ts`). The run hands one {@link ModelCalls} down from its
 * options (`ModelCliOptions.modelCalls` in `engine/run-options.ts`) to every node, the planner and the
 * assessor; absent, the real CLIs run ({@link MODEL_CALLS}). The engine's tests hand down a scripted pair
 * that plays CLI streams through the same parsers and spawns nothing (test/engine/scripted-calls.ts).
 */
import { type ClaudeCall, type ClaudeCallOutcome, invokeClaude } from "./invoke-claude.js";
import { type CodexCall, type CodexCallOutcome, invokeCodex } from "./invoke-codex.js";

/**
 * The two model-CLI calls a run can make. Each resolves to the call's folded outcome and never rejects
 * for the CLI's own failures (a spawn failure, timeout or cancel is an outcome).
 */
export interface ModelCalls {
  readonly claude: (call: ClaudeCall) => Promise<ClaudeCallOutcome>;
  readonly codex: (call: CodexCall) => Promise<CodexCallOutcome>;
}

/** The real calls: `claude -p` and `codex exec` through `src/proc/` (SPEC §9, one exec seam). */
export const MODEL_CALLS: ModelCalls = { claude: invokeClaude, codex: invokeCodex };
