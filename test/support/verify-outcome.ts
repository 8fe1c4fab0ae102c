/** Runs a command in `dir` the way the engine runs a verify (hermetic git env, no secrets, no baseline). */

import type { VerifyEvidence } from "../../src/core/ledger-row.js";
import { type RunVerifyOptions, runVerify } from "../../src/evidence/verify.js";
import { hermeticGitEnv } from "./temp-repo.js";

/**
 * A verify of `true` in `cwd` as the tests run it — a minute's timeout, exit 0 expected, the hermetic git
 * environment, nothing passed through, no known secret — with `overrides` over it.
 */
export function verifyOptions(cwd: string, overrides: Partial<RunVerifyOptions> = {}): RunVerifyOptions {
  return {
    command: "true",
    cwd,
    timeoutMs: 60_000,
    expectExit: 0,
    env: hermeticGitEnv,
    passThrough: [],
    knownSecrets: [],
    ...overrides,
  };
}

/** The verify's outcome: `passed`, `failed`, `timed_out` or `spawn_failed`. Default command `npm test`. */
export async function verifyOutcome(dir: string, command = "npm test"): Promise<VerifyEvidence["outcome"]> {
  return (await runVerify(verifyOptions(dir, { command }))).outcome;
}
