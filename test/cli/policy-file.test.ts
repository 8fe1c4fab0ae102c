/**
 * The policy file's refusals in the CLI (SPEC §5, §11), in-process (issue 24: the CLI's decisions in the
 * fast tier; test/support/cli-in-process.ts): `evidence-gate auto` reads `.github/evidence-gate.yml` from the
 * working tree of `--repo` and refuses, before any model call, what it rules out. Moved from
 * test/e2e/cli-policy.test.ts, which keeps one real run (the policy's verify-cmd attached).
 */
import { describe, expect, test } from "vitest";
import { cliInProcess } from "../support/cli-in-process.js";
import { checkRunsOf } from "../support/cli-run-result.js";
import { reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { makeTempRepo } from "../support/temp-repo.js";

const POLICY = ".github/evidence-gate.yml";

/** A committed repository with no build signals (a README) and `policy` as its policy file. */
const notesRepo = (policy: string) =>
  makeTempRepo({ commit: true, files: { "README.md": "notes only\n", [POLICY]: policy } });

describe("the working tree's policy file (SPEC §5, §11)", () => {
  test("require-evidence: true on a repository with no build signals and no verify command is refused before anything runs (it could only fail): exit 3, 0 model requests, never success", async () => {
    const h = await cliInProcess({
      makeRepo: () => notesRepo("require-evidence: true\n"),
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run([]);

    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      `The maintainers' policy file ${POLICY} (working tree) sets require-evidence: true, and no verify command was given, so this run could only fail: give --verify-cmd. Nothing was run and nothing was spent.`,
    );
    expect(h.calls()).toHaveLength(0);
    const completions = checkRunsOf(r.checkRunRequests!).flatMap((run) =>
      run.completions.map((c) => c.conclusion),
    );
    expect(completions.length).toBeGreaterThan(0);
    expect(completions).not.toContain("success");
    expect(completions).not.toContain("neutral");
  });

  test("require-evidence: true makes --accept-no-build-evidence a usage error naming the policy file in the working tree: exit 64, 0 model requests", async () => {
    const h = await cliInProcess({
      makeRepo: () => notesRepo("require-evidence: true\n"),
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run(["--accept-no-build-evidence"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      `The maintainers' policy file ${POLICY} (working tree) sets require-evidence: true, so --accept-no-build-evidence is not allowed here`,
    );
    expect(h.calls()).toHaveLength(0);
  });

  test("an unknown key is a usage error naming it: exit 64, nothing runs, no run directory", async () => {
    const h = await cliInProcess({
      makeRepo: () => notesRepo("require-evidence: true\nrequire_evidence: false\n"),
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run(["--accept-no-build-evidence"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      `evidence-gate auto: ${POLICY} (working tree): unknown key "require_evidence"`,
    );
    expect(r.stderr).toContain("the known keys are require-evidence, verify-cmd, planned-tools");
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
  });
});
