/** Runs a command in `dir` the way the engine runs a verify (hermetic git env, no secrets, no baseline). */
import { runVerify } from "../../src/evidence/verify.js";
import type { VerifyEvidence } from "../../src/ledger/model.js";
import { hermeticGitEnv } from "./temp-repo.js";

/** The verify's outcome: `passed`, `failed`, `timed_out` or `spawn_failed`. Default command `npm test`. */
export async function verifyOutcome(dir: string, command = "npm test"): Promise<VerifyEvidence["outcome"]> {
  const evidence = await runVerify({
    command,
    cwd: dir,
    timeoutMs: 60_000,
    expectExit: 0,
    env: hermeticGitEnv,
    passThrough: [],
    knownSecrets: [],
  });
  return evidence.outcome;
}
