/**
 * Model calls that spawn nothing, for unit tests of the engine above the exec seam (`ModelCalls`,
 * runtime/model-calls.ts): each call plays the next scripted stream through the REAL stream parser of its
 * runtime (claude `stream-json`, codex `exec --json`) and the REAL fold (`foldCliCall`), with a process
 * result made up in place of the spawn. So a test sees what the engine makes of a CLI's output, never a
 * hand-built outcome. `$SESSION_ID` in a line is the call's session (claude: the minted or resumed id;
 * codex: the resumed thread, or a fresh one minted here).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ProcessResult } from "../../src/proc/run-process.js";
import { createClaudeStreamParser } from "../../src/runtime/claude-stream.js";
import { foldCliCall } from "../../src/runtime/cli-call.js";
import { createCodexStreamParser } from "../../src/runtime/codex-stream.js";
import type { ClaudeCall } from "../../src/runtime/invoke-claude.js";
import type { CodexCall } from "../../src/runtime/invoke-codex.js";
import type { ModelCalls } from "../../src/runtime/model-calls.js";

/**
 * What the model does to the files before its stream plays (the stand-in for its edit tools): each path,
 * relative to the call's working directory, written with its text.
 */
type Writes = { readonly writes?: Readonly<Record<string, string>> };

/** One stdout line: an object (written as JSON) or raw text. */
type Line = Readonly<Record<string, unknown>> | string;

/** One call's stream and how its process ends. */
export type ScriptedPlay = Writes &
  /**
   * The lines (an object as one JSON line, a string as it is), then the process exits (default 0),
   * `delayMs` later when given (the call stays in flight that long; aborted meanwhile, it is cancelled),
   * and not before `until` settles when given (a test's moment: a hook of the run resolves it);
   * `stderr` is what the process wrote on stderr (its tail, as the spawn would keep it).
   */
  (
    | {
        readonly lines: readonly Line[];
        readonly exitCode?: number;
        readonly delayMs?: number;
        readonly until?: Promise<unknown>;
        readonly stderr?: string;
      }
    /** The executable cannot be started. */
    | { readonly spawnFailed: string }
    /**
     * The lines, then the process runs until the call's signal aborts (then it is cancelled) or the call's
     * timeout passes (then it timed out), whichever comes first.
     */
    | { readonly lines: readonly Line[]; readonly untilAborted: true }
  );

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
  return scriptedCallsFrom(() => {
    const play = queue.shift();
    if (play === undefined) throw new Error("scripted-calls: a model call nobody scripted");
    return play;
  });
}

/** {@link ScriptedCalls} per label, and every call the engine made that nobody scripted. */
export interface LabelledCalls extends ScriptedCalls {
  /** Each unscripted call's error, in order (the call itself rejected with it). */
  readonly unscripted: readonly Error[];
  /** The calls made for `label` (node id, `planner`, `assessor`), in order, of either runtime. */
  madeFor(label: string): readonly (ClaudeCall | CodexCall)[];
}

/**
 * Calls that play, for each label (a node's id, `planner`, `assessor`: `ClaudeCall.label`), that label's
 * plays in order. A call past the end of its label's list — or of a label nobody scripted — rejects with
 * an error naming the label and the call number, and is kept in `unscripted` so a harness can fail the
 * test even when the engine turned the rejection into a row.
 */
export function scriptedCallsByLabel(
  plays: Readonly<Record<string, readonly ScriptedPlay[]>>,
): LabelledCalls {
  const made = new Map<string, (ClaudeCall | CodexCall)[]>();
  const unscripted: Error[] = [];
  const scripted = scriptedCallsFrom((call) => {
    const label = call.label ?? "(no label)";
    const list = made.get(label) ?? [];
    made.set(label, list);
    list.push(call);
    const play = plays[label]?.[list.length - 1];
    if (play !== undefined) return play;
    const error = new Error(
      `scripted-calls: call ${list.length} of "${label}" was not scripted (${plays[label]?.length ?? 0} scripted for it)`,
    );
    unscripted.push(error);
    throw error;
  });
  return { ...scripted, unscripted, madeFor: (label) => made.get(label) ?? [] };
}

function scriptedCallsFrom(next: (call: ClaudeCall | CodexCall) => ScriptedPlay): ScriptedCalls {
  const claude: ClaudeCall[] = [];
  const codex: CodexCall[] = [];
  return {
    claude,
    codex,
    calls: {
      claude: async (call) => {
        claude.push(call);
        const parser = createClaudeStreamParser();
        const result = await play(next(call), call, call.session.sessionId, (line) => parser.push(line));
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
        const result = await play(next(call), call, threadId, (line) => {
          parser.push(line);
          if (!published && parser.threadId !== null) {
            published = true;
            call.onThreadStarted?.(parser.threadId);
          }
        });
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
  call: ClaudeCall | CodexCall,
  sessionId: string,
  push: (line: string) => void,
): Promise<ProcessResult> {
  const signal = call.signal;
  if ("spawnFailed" in scripted)
    return { kind: "spawn_failed", message: scripted.spawnFailed, durationMs: 1 };
  for (const [path, text] of Object.entries(scripted.writes ?? {})) {
    const file = resolve(call.cwd, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  for (const line of scripted.lines)
    push((typeof line === "string" ? line : JSON.stringify(line)).replaceAll("$SESSION_ID", sessionId));
  const stderrTail = "stderr" in scripted ? (scripted.stderr ?? "") : "";
  const streams = { stdoutTail: "", stderrTail, durationMs: 42, pid: null };
  if ("untilAborted" in scripted) {
    return (await aborted(signal, call.timeoutMs))
      ? { ...streams, kind: "cancelled" }
      : { ...streams, kind: "timed_out", timeoutMs: call.timeoutMs };
  }
  if (scripted.delayMs !== undefined && (await aborted(signal, scripted.delayMs)))
    return { ...streams, kind: "cancelled" };
  if (scripted.until !== undefined) await scripted.until;
  return { ...streams, kind: "exited", exitCode: scripted.exitCode ?? 0 };
}

/** Waits `ms`; true when `signal` aborted first (or already had). */
function aborted(signal: AbortSignal | undefined, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      { once: true },
    );
  });
}
