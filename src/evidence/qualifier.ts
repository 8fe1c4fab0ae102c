import type { Qualifier } from "../core/ledger-row.js";

/**
 * What the engine observed on the way to one PASS — the facts `qualifierFor` turns into a qualifier.
 *
 * - `gateApproved`: the node is a gate and a person released it.
 * - `verifyRan`: the engine ran a verify command for this execution (`null` when none was attached).
 * - `resultMatchesChecked`: a `result_matches` pattern was checked against the node's own reply.
 * - `exitZeroChecked`: the process exit status was checked (the weakest observation).
 */
export interface QualifierInput {
  readonly gateApproved: boolean;
  readonly verifyRan: { readonly passed: boolean } | null;
  readonly resultMatchesChecked: boolean;
  readonly exitZeroChecked: boolean;
}

/**
 * The one qualifier of a PASS, strongest first: `approved` > `verified` > `self-reported` > `exit-only`
 * (SPEC §6). Computed once per PASS and stored on the ledger row, in `state.json` and on the
 * `node_passed` event, so the three can never disagree.
 *
 * Why it exists (seed 003, "A verify node said PASS in 17 seconds. The build was broken."): a verify node
 * whose only tool was `Bash(git *)` replied PASS on a branch that did not compile, and every ledger row
 * printed PASS the same way. A PASS now says how it was reached, and only the engine running a declared
 * command earns `verified` — a matching sentence from the model is `self-reported`, however confident.
 *
 * Throws (an internal error, never a user error) when asked to qualify a PASS whose verify command failed:
 * such an execution is a FAIL with cause `verify_failed`, and qualifying it would print a false PASS.
 */
export function qualifierFor(input: QualifierInput): Qualifier {
  if (input.gateApproved) return "approved";
  if (input.verifyRan !== null) {
    if (!input.verifyRan.passed) {
      throw new Error("Internal error: a PASS was qualified although its verify command failed");
    }
    return "verified";
  }
  if (input.resultMatchesChecked) return "self-reported";
  // Whether or not `exit_zero` was declared, the weakest thing known about a PASS is that the process
  // ended without an error; nothing weaker exists to print (seed 003: "the process exited 0").
  return "exit-only";
}
