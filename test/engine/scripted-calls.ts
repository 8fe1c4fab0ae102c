/**
 * Model calls that spawn nothing, for unit tests of the engine above the exec seam (`ModelCalls`,
 * call-report.ts): each call plays the next scripted stream through the REAL stream parser of its
 * runtime (claude `stream-json`, codex `exec --json`) and the REAL fold (`foldCliCall`), with a process
 * result made up in place of the spawn. So a test sees what the engine makes of a CLI's output, never a
 * hand-built outcome. `$SESSION_ID` in a line is the call's session (claude: the minted or resumed id;
 * codex: the resumed thread, or a fresh one minted here).
 */
import { randomUUID } from "node:crypto";
import type { ModelCalls } from "../../src/engine/call-report.js";
import type { ProcessResult } from "../../src/proc/run-process.js";
import { createClaudeStreamParser } from "../../src/runtime/claude-stream.js";
import { foldCliCall } from "../../src/runtime/cli-call.js";
import { createCodexStreamParser } from "../../src/runtime/codex-stream.js";
import type { ClaudeCall } from "../../src/runtime/invoke-claude.js";
import type { CodexCall } from "../../src/runtime/invoke-codex.js";

/** One call's stream and how its process ends. */
export type ScriptedPlay =
  /** The lines, then the process exits (default 0). */
  | { readonly lines: readonly Record<string, unknown>[]; readonly exitCode?: number }
  /** The executable cannot be started. */
  | { readonly spawnFailed: string }
  /** The lines, then the process runs until the call's signal aborts (then it is cancelled). */
  | { readonly lines: readonly Record<string, unknown>[]; readonly untilAborted: true };

/** The scripted calls and what the engine asked of them, in order. */
export interface ScriptedCalls {
  readonly calls: ModelCalls;
  readonly claude: ClaudeCall[];
  readonly codex: CodexCall[];
}

/**
 * Calls that play `plays` in order, one per call of either runtime.
 * @throws (from a call) when more calls are made than plays were scripted.
 */
export function scriptedCalls(plays: readonly ScriptedPlay[]): ScriptedCalls {
  const queue = [...plays];
  const claude: ClaudeCall[] = [];
  const codex: CodexCall[] = [];
  const next = (): ScriptedPlay => {
    const play = queue.shift();
    if (play === undefined) throw new Error("scripted-calls: a model call nobody scripted");
    return play;
  };
  return {
    claude,
    codex,
    calls: {
      claude: async (call) => {
        claude.push(call);
        const parser = createClaudeStreamParser();
        const result = await play(next(), call.session.sessionId, (line) => parser.push(line), call.signal);
        return foldCliCall("claude", result, parser.finish, (parsed) => ({
          deniedToolCalls: parsed.deniedToolCalls,
          writtenPaths: parsed.writtenPaths,
        }));
      },
      codex: async (call) => {
        codex.push(call);
        const parser = createCodexStreamParser();
        const threadId = call.session.kind === "resume" ? call.session.threadId : randomUUID();
        let published = false;
        const result = await play(
          next(),
          threadId,
          (line) => {
            parser.push(line);
            if (!published && parser.threadId !== null) {
              published = true;
              call.onThreadStarted?.(parser.threadId);
            }
          },
          call.signal,
        );
        return foldCliCall("codex", result, parser.finish, (parsed) => ({
          threadId: parsed.threadId,
          writtenPaths: parsed.writtenPaths,
        }));
      },
    },
  };
}

async function play(
  scripted: ScriptedPlay,
  sessionId: string,
  push: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<ProcessResult> {
  if ("spawnFailed" in scripted)
    return { kind: "spawn_failed", message: scripted.spawnFailed, durationMs: 1 };
  for (const line of scripted.lines) push(JSON.stringify(line).replaceAll("$SESSION_ID", sessionId));
  const streams = { stdoutTail: "", stderrTail: "", durationMs: 42, pid: null };
  if ("untilAborted" in scripted) {
    await new Promise<void>((resolve) => {
      if (signal?.aborted === true) resolve();
      else signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    return { ...streams, kind: "cancelled" };
  }
  return { ...streams, kind: "exited", exitCode: scripted.exitCode ?? 0 };
}
