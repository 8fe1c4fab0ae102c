/** A ledger paused at a gate, as the engine writes a pause (shared by the bot's button tests). */
import type { Ledger } from "../../src/ledger/ledger.js";
import { fixtureLedger, pass, skipped } from "../ledger/fixtures.js";

/** review → gate sign-off → finish, paused at sign-off (review passed). */
export function pausedLedger(headSha: string): Ledger {
  return {
    ...fixtureLedger({
      runId: "20260501-150000-abcdef",
      runtime: "claude",
      goal: "Review and sign off",
      buildEvidence: { kind: "attached", command: "npm test", declaredBy: "input" },
      nodes: [
        { id: "review", dependsOn: [], allowedTools: ["Read"], sink: false },
        { id: "sign-off", type: "gate", dependsOn: ["review"], allowedTools: [], sink: false },
        { id: "finish", dependsOn: ["sign-off"], allowedTools: ["Read"], sink: true },
      ],
      // As the engine writes a pause: the gate and what follows it SKIPPED.
      rows: [
        pass("review"),
        skipped("sign-off", { reason: "waiting for a person to approve or reject this gate" }),
        skipped("finish", { sink: true, reason: 'not run yet: the run is paused at gate "sign-off"' }),
      ],
      planningCalls: [],
      evidenceTree: null,
      end: { kind: "paused", reason: "gate", nodeId: "sign-off" },
    }),
    headSha,
  };
}
