import type { Ledger } from "../ledger/ledger.js";

/** CLI exit codes (SPEC §2, §10). */
export const EXIT = {
  passed: 0,
  failed: 1,
  paused: 2,
  refused: 3,
  usage: 64,
  timedOut: 124,
  interrupted: 130,
} as const;

/** The exit code for a finished run: by its outcome, whatever the conclusion (SPEC §10). */
export function exitCodeFor(ledger: Ledger): number {
  switch (ledger.conclusion?.outcome) {
    case "passed":
      return EXIT.passed;
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
