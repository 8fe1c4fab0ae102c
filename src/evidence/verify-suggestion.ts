/**
 * The one verify command a refusal suggests (SPEC §5: "suggests `verify-cmd: '<suggestion>'`"), picked from
 * the detected build signals: the one nearest to where the command would run, then by table priority.
 */
import { basename, dirname } from "node:path";
import type { BuildSignal } from "../core/build-evidence-answer.js";
import { readCommandInFolder } from "./folder-command.js";
import { signalRank } from "./signal-rules.js";

/** The command suggested for a set of signals, and whether it is a guess among several. */
export interface VerifySuggestion {
  readonly command: string;
  /** The signal the command was taken from. */
  readonly signal: BuildSignal;
  /** True when the signals suggest more than one distinct command. */
  readonly guess: boolean;
  /**
   * For a signal found one level below a scanned directory: the folder holding it, relative to the root
   * (what `working-directory` would be), and the command to run there. `null` for a top-level signal.
   */
  readonly nested: { readonly folder: string; readonly command: string } | null;
}

const segments = (path: string): number => (path === "." || path === "" ? 0 : path.split("/").length);

/**
 * Picks one verify command to suggest: from the deepest scanned directory (the `working-directory`,
 * where the command would run, before the root), its own top-level signals before those found elsewhere,
 * then — among those, for a suggestion phrased from the working directory (`scanBuildSignalsAlongPath`) —
 * the enclosing folders nearest first (`(cd .. && …)` before `(cd ../.. && …)` and before a folder below),
 * then by table priority.
 *
 * @returns `null` when there are no signals.
 */
export function suggestVerifyCommand(signals: readonly BuildSignal[]): VerifySuggestion | null {
  const placed = signals.map((signal) => {
    const inner = readCommandInFolder(signal.suggestion);
    const steps = (inner?.folder ?? ".").split("/").filter((step) => step !== "." && step !== "");
    const up = steps.filter((step) => step === "..").length;
    return {
      signal,
      inner,
      /** Depth of the directory the suggestion is phrased from (the one scanned to find this signal). */
      scanned: segments(dirname(signal.file)) - (steps.length - up) + up,
      /** For a folder that only climbs (`..`, `../..`): how far; after every climb otherwise. */
      climb: steps.length > 0 && up === steps.length ? up : Number.POSITIVE_INFINITY,
      rank: signalRank(basename(signal.file)),
    };
  });
  const ordered = placed.sort(
    (a, b) =>
      b.scanned - a.scanned ||
      Number(a.inner !== null) - Number(b.inner !== null) ||
      (a.climb === b.climb ? 0 : a.climb < b.climb ? -1 : 1) ||
      a.rank - b.rank,
  );
  const first = ordered[0];
  if (first === undefined) return null;
  const distinct = new Set(signals.map((s) => s.suggestion));
  return {
    command: first.signal.suggestion,
    signal: first.signal,
    guess: distinct.size > 1,
    nested:
      first.inner === null ? null : { folder: dirname(first.signal.file), command: first.inner.command },
  };
}
