/**
 * One `claude` CLI call through the exec seam: argv from the runtime's builder, the stream-json output
 * parsed line by line, and the process outcome folded into one {@link ClaudeCallOutcome}.
 * `is_error: true` in the result event is a failure even when the process exits 0 (SPEC §4).
 */

import { unreachable } from "../ledger/unreachable.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { CommandFence } from "../proc/command-fence.js";
import { runProcess } from "../proc/run-process.js";
import { buildClaudeArgv, type ClaudePermissionMode, type ClaudeSession } from "../runtime/claude-argv.js";
import { type ClaudeOutcome, createClaudeStreamParser } from "../runtime/claude-stream.js";

export interface ClaudeCall {
  /** Path or name of the `claude` executable. */
  readonly executable: string;
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
  readonly cwd: string;
  /** Complete child environment (built with `buildChildEnv` for a model child). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Echo stderr lines to the log (fenced from workflow commands in the action). */
  readonly echo?: { readonly write: (text: string) => void; readonly fenceWorkflowCommands: boolean };
}

/** Everything the engine needs from a finished call. Durations in ms. */
export type ClaudeCallOutcome =
  | {
      readonly kind: "completed";
      readonly exitCode: number;
      readonly result: Extract<ClaudeOutcome, { kind: "completed" }>;
      readonly durationMs: number;
      readonly stderrTail: string;
    }
  | {
      readonly kind: "no_result";
      readonly exitCode: number | null;
      readonly reason: string;
      readonly durationMs: number;
      readonly stderrTail: string;
      /** Denials the stream showed before it ended without a result (they arrive while the process runs). */
      readonly deniedToolCalls: number;
      /** Files the model's write tool calls named before the stream ended (see `ClaudeToolCallCounts`). */
      readonly writtenPaths: readonly string[];
    }
  | { readonly kind: "spawn_failed"; readonly message: string; readonly durationMs: number }
  | {
      readonly kind: "timed_out";
      readonly timeoutMs: number;
      readonly durationMs: number;
      readonly partial: ClaudeOutcome;
    }
  | {
      readonly kind: "cancelled";
      readonly durationMs: number;
      /** Denials the stream showed before the call was stopped. */
      readonly deniedToolCalls: number;
      /** Files the model's write tool calls named before the call was stopped. */
      readonly writtenPaths: readonly string[];
    };

/** Runs one `claude -p` call to completion. Never rejects for the CLI's own failures. */
export async function invokeClaude(call: ClaudeCall): Promise<ClaudeCallOutcome> {
  const parser = createClaudeStreamParser();
  // stderr is echoed inside a workflow-command fence, so the CLI (or a tool it ran) cannot issue commands.
  const fence = call.echo ? new CommandFence(call.echo.write, call.echo.fenceWorkflowCommands) : null;
  const args = buildClaudeArgv({
    prompt: call.prompt,
    permissionMode: call.permissionMode,
    policy: call.policy,
    session: call.session,
    ...(call.model !== undefined ? { model: call.model } : {}),
    ...(call.budgetUsd !== undefined ? { budgetUsd: call.budgetUsd } : {}),
  });
  const result = await runProcess({
    command: call.executable,
    args,
    cwd: call.cwd,
    env: call.env,
    timeoutMs: call.timeoutMs,
    ...(call.signal ? { signal: call.signal } : {}),
    tailBytes: 64 * 1024,
    onStdoutLine: (line) => parser.push(line),
    ...(fence ? { onStderrLine: (line: string) => fence.line(line) } : {}),
  });
  fence?.close();
  switch (result.kind) {
    case "spawn_failed":
      return { kind: "spawn_failed", message: result.message, durationMs: result.durationMs };
    case "cancelled": {
      const partial = parser.finish();
      return {
        kind: "cancelled",
        durationMs: result.durationMs,
        deniedToolCalls: partial.deniedToolCalls,
        writtenPaths: partial.writtenPaths,
      };
    }
    case "timed_out":
      return {
        kind: "timed_out",
        timeoutMs: result.timeoutMs,
        durationMs: result.durationMs,
        partial: parser.finish(),
      };
    case "signalled":
    case "exited": {
      const parsed = parser.finish();
      const exitCode = result.kind === "exited" ? result.exitCode : null;
      if (parsed.kind === "completed" && exitCode !== null) {
        return {
          kind: "completed",
          exitCode,
          result: parsed,
          durationMs: result.durationMs,
          stderrTail: result.stderrTail,
        };
      }
      const reason =
        parsed.kind === "completed"
          ? `claude was killed by ${result.kind === "signalled" ? result.signal : "a signal"}`
          : `claude produced no usable result (${parsed.reason}): ${parsed.detail}`;
      return {
        kind: "no_result",
        exitCode,
        reason,
        durationMs: result.durationMs,
        stderrTail: result.stderrTail,
        deniedToolCalls: parsed.deniedToolCalls,
        writtenPaths: parsed.writtenPaths,
      };
    }
    default:
      return unreachable(result);
  }
}
