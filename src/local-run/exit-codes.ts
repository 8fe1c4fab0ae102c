import type { Ledger } from "../ledger/ledger.js";

/** CLI exit codes (SPEC §2, §10). */
export const EXIT = {
  passed: 0,
  failed: 1,
  paused: 2,
  refused: 3,
  /** Passed, but the check run's conclusion is `action_required` (SPEC §10). */
  passedActionRequired: 4,
  usage: 64,
  timedOut: 124,
  interrupted: 130,
} as const;

/**
 * The exit code for a finished run: by its outcome, except that a passed run whose conclusion is
 * `action_required` (evidence not on this commit, the verify definition changed, a run the PR rewrote, no
 * test ran) exits 4, so a script gating on the exit code does not go green on it (SPEC §10).
 */
export function exitCodeFor(ledger: Ledger): number {
  switch (ledger.conclusion?.outcome) {
    case "passed":
      return ledger.conclusion.conclusion === "action_required" ? EXIT.passedActionRequired : EXIT.passed;
    case "paused":
      return EXIT.paused;
    case "refused":
      return EXIT.refused;
    case "usage-error":
      return EXIT.usage;
    case "timed-out":
      return EXIT.timedOut;
    case "cancelled":
      return EXIT.interrupted;
    default:
      return EXIT.failed;
  }
}
