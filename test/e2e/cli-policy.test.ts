/**
 * The policy file in the CLI (SPEC §11): `evidence-gate auto` reads `.github/evidence-gate.yml` from the
 * working tree of `--repo`, prints one line saying so, and applies it like the action applies the base
 * ref's copy. Real git, the real pinned `claude` CLI, the scripted model server.
 */
import { describe, expect, test } from "vitest";
import { checkRunsOf, cliHarness } from "../support/cli-harness.js";
import { fixSumScript, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo, makeTempRepo } from "../support/temp-repo.js";

const POLICY = ".github/evidence-gate.yml";

describe("the working tree's policy file (SPEC §5, §11)", () => {
  test("require-evidence: true on a repository with no build signals and no verify command is refused before anything runs (it could only fail): exit 3, 0 model requests, never success", async () => {
    const h = await cliHarness({
      makeRepo: () =>
        makeTempRepo({
          commit: true,
          files: { "README.md": "notes only\n", [POLICY]: "require-evidence: true\n" },
        }),
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run([]);

    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      `The maintainers' policy file ${POLICY} (working tree) sets require-evidence: true, and no verify command was given, so this run could only fail: give --verify-cmd. Nothing was run and nothing was spent.`,
    );
    expect(h.server.requests).toHaveLength(0);
    const completions = checkRunsOf(r.checkRunRequests!).flatMap((run) =>
      run.completions.map((c) => c.conclusion),
    );
    expect(completions.length).toBeGreaterThan(0);
    expect(completions).not.toContain("success");
    expect(completions).not.toContain("neutral");
  });

  test("require-evidence: true makes --accept-no-build-evidence a usage error naming the policy file in the working tree: exit 64, 0 model requests", async () => {
    const h = await cliHarness({
      makeRepo: () =>
        makeTempRepo({
          commit: true,
          files: { "README.md": "notes only\n", [POLICY]: "require-evidence: true\n" },
        }),
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run(["--accept-no-build-evidence"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      `The maintainers' policy file ${POLICY} (working tree) sets require-evidence: true, so --accept-no-build-evidence is not allowed here`,
    );
    expect(h.server.requests).toHaveLength(0);
  });

  test("verify-cmd from the policy file is attached when no --verify-cmd is given: the sink is verified, declared by policy", async () => {
    const h = await cliHarness({
      makeRepo: () =>
        makeFixedSampleRepo("fix sum; add the policy file", { [POLICY]: "verify-cmd: npm test\n" }),
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run([]);

    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split("\n")).toContain(
      `policy: ${POLICY} (working tree): require-evidence false, verify-cmd "npm test"`,
    );
    const ledger = r.ledger!;
    expect(ledger.plan.buildEvidence).toEqual({
      kind: "attached",
      command: "npm test",
      declaredBy: "policy",
    });
    expect(ledger.rows.map((row) => (row.verdict === "PASS" ? row.qualifier : row.verdict))).toEqual([
      "verified",
    ]);
    expect(ledger.conclusion?.conclusion).toBe("success");
  });

  test("an unknown key is a usage error naming it: exit 64, nothing runs, no run directory", async () => {
    const h = await cliHarness({
      makeRepo: () =>
        makeTempRepo({
          commit: true,
          files: {
            "README.md": "notes only\n",
            [POLICY]: "require-evidence: true\nrequire_evidence: false\n",
          },
        }),
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run(["--accept-no-build-evidence"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(
      `evidence-gate auto: ${POLICY} (working tree): unknown key "require_evidence"`,
    );
    expect(r.stderr).toContain("the known keys are require-evidence, verify-cmd, planned-tools");
    expect(h.server.requests).toHaveLength(0);
    expect(h.runDirs()).toEqual([]);
  });
});
