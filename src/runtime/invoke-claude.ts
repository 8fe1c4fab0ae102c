/**
 * One `claude` CLI call through the exec seam: argv from the runtime's builder, the stream-json output
 * parsed line by line, and the process outcome folded into one {@link ClaudeCallOutcome}.
 * `is_error: true` in the result event is a failure even when the process exits 0 (SPEC §4).
 */

import type { ToolPolicy } from "../policy/tool-policy.js";
import { buildClaudeArgv, type ClaudePermissionMode, type ClaudeSession } from "./claude-argv.js";
import { type ClaudeOutcome, createClaudeStreamParser } from "./claude-stream.js";
import { type CliCallOutcome, type CliProcessCall, foldCliCall, runModelCli } from "./cli-call.js";
import { namingModelApi } from "./model-api-words.js";

/** One `claude -p` call: the process fields ({@link CliProcessCall}, `executable` = `claude`) and what argv says. */
export interface ClaudeCall extends CliProcessCall {
  readonly prompt: string;
  readonly permissionMode: ClaudePermissionMode;
  readonly policy: ToolPolicy;
  /**
   * A fresh session whose id (UUID) the caller minted and published before the spawn, or an existing
   * session continued with `--resume` (session handoff).
   */
  readonly session: ClaudeSession;
  /** Positive USD budget → `--max-budget-usd` (the node's `budget_usd`). */
  readonly budgetUsd?: number;
  readonly model?: string;
  /** Complete child environment (built with `buildChildEnv` for a model child). */
  readonly env: Readonly<Record<string, string>>;
}

/** Everything the engine needs from a finished call (see `cli-call.ts`). Durations in ms. */
export type ClaudeCallOutcome = CliCallOutcome<
  Extract<ClaudeOutcome, { kind: "completed" }>,
  ClaudeOutcome,
  {
    /** Denials the stream showed before it ended without a result (they arrive while the process runs). */
    readonly deniedToolCalls: number;
    /** Files the model's write tool calls named before the stream ended (see `ClaudeToolCallCounts`). */
    readonly writtenPaths: readonly string[];
  }
>;

/**
 * Set on every `claude` call, over whatever the caller's environment says. `CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS`
 * keeps the CLI from writing a git snapshot into its system prompt: on 2.1.332 that snapshot holds the
 * branch name and the last five commit subjects — text the pull request's author wrote, which would
 * reach the model unfenced (the brief: PR text never reaches a prompt unfenced) — and it costs about ten
 * `git` processes per call. The engine owns commits, so a node needs no git instructions either.
 */
export const CLAUDE_ENGINE_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS: "1",
};

/** Runs one `claude -p` call to completion. Never rejects for the CLI's own failures. */
export async function invokeClaude(call: ClaudeCall): Promise<ClaudeCallOutcome> {
  const parser = createClaudeStreamParser();
  const args = buildClaudeArgv({
    prompt: call.prompt,
    permissionMode: call.permissionMode,
    policy: call.policy,
    session: call.session,
    ...(call.model !== undefined ? { model: call.model } : {}),
    ...(call.budgetUsd !== undefined ? { budgetUsd: call.budgetUsd } : {}),
  });
  const result = await runModelCli(call, args, { ...call.env, ...CLAUDE_ENGINE_ENV }, (chunk) =>
    parser.write(chunk),
  );
  const folded = foldCliCall("claude", result, parser.finish, (parsed) => ({
    deniedToolCalls: parsed.deniedToolCalls,
    writtenPaths: parsed.writtenPaths,
  }));
  // An API error's hint names the model API, not the loopback proxy claude was pointed at (issue 26).
  const detail = folded.kind === "completed" ? folded.result.failureDetail : null;
  return folded.kind === "completed" && detail !== null
    ? { ...folded, result: { ...folded.result, failureDetail: namingModelApi(detail) } }
    : folded;
}
