/**
 * What one model-CLI call does alike for `claude` (invoke-claude.ts) and `codex` (invoke-codex.ts): the
 * process is started as PR code with its stdout fed to the stream parser and its stderr echoed fenced
 * ({@link runModelCli}), and the process result and parsed stream fold into the engine's call outcome
 * ({@link foldCliCall}): a spawn failure, a cancel or a timeout (with what the stream showed so far), a
 * completed call when the stream reached its result, else "no usable result" with the reason.
 */
import { unreachable } from "../core/unreachable.js";
import { type ChildEcho, childEchoFence } from "../proc/child-output.js";
import { type ProcessResult, runProcess } from "../proc/run-process.js";

/** The process fields a `ClaudeCall` and a `CodexCall` share. Times in ms. */
export interface CliProcessCall {
  /**
   * Who the call is for: the node's id, `planner` or `assessor`. Never reaches the CLI; a scripted
   * stand-in plays its calls per label.
   */
  readonly label?: string;
  /** Path or name of the executable. */
  readonly executable: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Echo stderr lines to the log (fenced from workflow commands in the action). */
  readonly echo?: ChildEcho;
}

/**
 * Runs one model CLI to its end: `args` and the complete child `env`, as PR code (its tools run the PR's
 * files: the separate user when the run has one; nothing outlives it), raw stdout chunks to `onStdout`
 * (the parser splits and bounds the lines itself, `jsonl-reader.ts`), stderr echoed inside a
 * workflow-command fence so the CLI, or a tool it ran, cannot issue commands. Never rejects for the
 * process's own failures (they are the {@link ProcessResult}).
 */
export async function runModelCli(
  call: CliProcessCall,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  onStdout: (chunk: Buffer) => void,
): Promise<ProcessResult> {
  const fence = call.echo ? childEchoFence(call.echo) : null;
  const result = await runProcess({
    command: call.executable,
    args: [...args],
    cwd: call.cwd,
    env,
    prCode: true,
    timeoutMs: call.timeoutMs,
    ...(call.signal ? { signal: call.signal } : {}),
    tailBytes: 64 * 1024,
    onStdoutData: onStdout,
    ...(fence ? { onStderrLine: (line: string) => fence.line(line) } : {}),
  });
  fence?.close();
  return result;
}

/** One call's outcome. `Done` is the parser's completed outcome, `Parsed` any outcome, `SoFar` what a
 * stream that ended early still tells (denials, written paths, a thread id). Durations in ms. */
export type CliCallOutcome<Done, Parsed, SoFar> =
  | {
      readonly kind: "completed";
      readonly exitCode: number;
      readonly result: Done;
      readonly durationMs: number;
      readonly stderrTail: string;
    }
  | ({
      readonly kind: "no_result";
      readonly exitCode: number | null;
      readonly reason: string;
      readonly durationMs: number;
      readonly stderrTail: string;
    } & SoFar)
  | { readonly kind: "spawn_failed"; readonly message: string; readonly durationMs: number }
  | {
      readonly kind: "timed_out";
      readonly timeoutMs: number;
      readonly durationMs: number;
      readonly partial: Parsed;
    }
  | ({ readonly kind: "cancelled"; readonly durationMs: number } & SoFar);

/**
 * Folds a settled process and its parser into the call outcome.
 *
 * @param cli the executable's name for messages (`claude`, `codex`).
 * @param finish ends the parser and returns its outcome (called once, after the process settled); a
 *   `no_result` outcome carries `reason` and `detail`.
 * @param soFar what an unfinished stream still tells, for `cancelled` and `no_result`.
 */
export function foldCliCall<Parsed extends { readonly kind: string }, SoFar>(
  cli: string,
  result: ProcessResult,
  finish: () => Parsed,
  soFar: (parsed: Parsed) => SoFar,
): CliCallOutcome<Extract<Parsed, { readonly kind: "completed" }>, Parsed, SoFar> {
  switch (result.kind) {
    case "spawn_failed":
      return { kind: "spawn_failed", message: result.message, durationMs: result.durationMs };
    case "cancelled":
      return { kind: "cancelled", durationMs: result.durationMs, ...soFar(finish()) };
    case "timed_out":
      return {
        kind: "timed_out",
        timeoutMs: result.timeoutMs,
        durationMs: result.durationMs,
        partial: finish(),
      };
    case "signalled":
    case "exited": {
      const parsed = finish();
      const exitCode = result.kind === "exited" ? result.exitCode : null;
      if (parsed.kind === "completed" && exitCode !== null) {
        return {
          kind: "completed",
          exitCode,
          result: parsed as Extract<Parsed, { readonly kind: "completed" }>,
          durationMs: result.durationMs,
          stderrTail: result.stderrTail,
        };
      }
      const reason =
        parsed.kind === "completed"
          ? `${cli} was killed by ${result.kind === "signalled" ? result.signal : "a signal"}`
          : `${cli} produced no usable result (${noResult(parsed).reason}): ${noResult(parsed).detail}`;
      return {
        kind: "no_result",
        exitCode,
        reason,
        durationMs: result.durationMs,
        stderrTail: result.stderrTail,
        ...soFar(parsed),
      };
    }
    default:
      return unreachable(result);
  }
}

function noResult(parsed: { readonly kind: string }): { readonly reason: string; readonly detail: string } {
  return parsed as unknown as { readonly reason: string; readonly detail: string };
}
