/**
 * A {@link Runner} (the action's runner port) that records what the step was told — outputs, saved state,
 * annotations, the step's failure, the log — for the in-process tests of the modes, which call a mode's
 * entry with it instead of `@actions/core`.
 */
import type { Runner } from "../../src/pull-request/runner.js";

export interface RecordingRunner extends Runner {
  readonly outputs: Record<string, string>;
  readonly state: Record<string, string>;
  /** Every `setFailed` message, in order. */
  readonly failed: string[];
  /** Every `error` annotation, in order. */
  readonly errors: string[];
  /** Every `warning` annotation, in order. */
  readonly warnings: string[];
  /** `info` lines and raw writes, in order. */
  readonly log: string[];
}

export function recordingRunner(): RecordingRunner {
  const outputs: Record<string, string> = {};
  const state: Record<string, string> = {};
  const failed: string[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const log: string[] = [];
  return {
    outputs,
    state,
    failed,
    errors,
    warnings,
    log,
    info: (m) => log.push(m),
    notice: (m) => log.push(m),
    warning: (m) => warnings.push(m),
    error: (m) => errors.push(m),
    setOutput: (name, value) => {
      outputs[name] = value;
    },
    saveState: (name, value) => {
      state[name] = value;
    },
    setFailed: (m) => failed.push(m),
    write: (text) => log.push(text),
  };
}
