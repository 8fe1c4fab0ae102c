import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runVerify } from "../../src/evidence/verify.js";
import { makeTempRepo, type TempRepo } from "../support/temp-repo.js";
import { verifyOptions } from "../support/verify-outcome.js";

let repo: TempRepo;
beforeEach(async () => {
  repo = await makeTempRepo({ commit: true, files: { "README.md": "x\n" } });
});
afterEach(() => repo.cleanup());

const verify = (command: string) => runVerify(verifyOptions(repo.dir, { command }));

describe("a verify command stops at its first failing command, like a workflow's run: step", () => {
  it("a multi-line command whose first line fails is failed, with that line's exit code", async () => {
    const evidence = await verify("node -e 'process.exit(3)'\necho lint ok");
    expect(evidence.outcome).toBe("failed");
    expect(evidence.exitCode).toBe(3);
    expect(evidence.outputTail).not.toContain("lint ok");
  });

  it("a ;-joined command whose first part fails is failed", async () => {
    const evidence = await verify("false; true");
    expect(evidence.outcome).toBe("failed");
    expect(evidence.exitCode).toBe(1);
  });

  it("an explicit `|| true` still means what it says", async () => {
    const evidence = await verify("false || true");
    expect(evidence.outcome).toBe("passed");
  });
});
