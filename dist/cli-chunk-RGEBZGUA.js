#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);

// src/local-run/exit-codes.ts
var EXIT = {
  passed: 0,
  failed: 1,
  paused: 2,
  refused: 3,
  /** Passed, but the check run's conclusion is `action_required` (SPEC §10). */
  passedActionRequired: 4,
  usage: 64,
  timedOut: 124,
  interrupted: 130
};
function exitCodeFor(ledger) {
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

export {
  EXIT,
  exitCodeFor
};
