/**
 * The "fix sum" scenario (./fix-sum.ts) as the scripted stand-in's plays, for the port tier (the model
 * calls handed down as the run's port: test/engine/scripted-calls.ts): one clean claude turn per call.
 */
import { type Plays, replied } from "../../engine/port-harness.js";
import { BUGGY_SUM } from "../temp-repo.js";
import { twoNodePlan } from "./fix-sum.js";

/** What {@link fixSumPlays} plays instead of the defaults. */
export interface FixSumPlaysOptions {
  /** The planner's replies, one per planner call. Default: the two-node plan. */
  readonly plannerReplies?: readonly string[];
  /** The body the implement node writes into `sum()` (default the fix, `return a + b;`). */
  readonly newBody?: string;
  /** The check node's reply (default `PASS`). */
  readonly checkReply?: string;
}

/**
 * Per label: the planner replies with the plan; `implement` writes `src/sum.js` (the fix, or `newBody`) and
 * says so; `check` replies `PASS`; `review` changes nothing. A label no run reaches is simply not played.
 */
export function fixSumPlays(options: FixSumPlaysOptions = {}): Plays {
  const planner = options.plannerReplies ?? [twoNodePlan()];
  return {
    planner: planner.map((reply) => replied("claude", reply)),
    implement: [
      replied("claude", "Fixed sum() in src/sum.js.", {
        writes: { "src/sum.js": BUGGY_SUM.replace("return a - b;", options.newBody ?? "return a + b;") },
      }),
    ],
    check: [replied("claude", options.checkReply ?? "PASS")],
    review: [replied("claude", "The file reads fine. Nothing to change.")],
  };
}
