/**
 * How one model-CLI call's process result and parsed stream fold into the engine's call outcome — the
 * same for `claude` (invoke-claude.ts) and `codex` (invoke-codex.ts): a
 * spawn failure, a cancel or a timeout (with what the stream showed so far), a completed call when the
 * stream reached its result, else "no usable result" with the reason.
 */
import { unreachable } from "../core/unreachable.js";
import type { ProcessResult } from "../proc/run-process.js";

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
