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
  test("require-evidence: true on a repository with no build signals turns the neutral run into failure: exit 1, the policy line printed, the ledger names the working tree", async () => {
    const h = await cliHarness({
      makeRepo: () =>
        makeTempRepo({
          commit: true,
          files: { "README.md": "notes only\n", [POLICY]: "require-evidence: true\n" },
        }),
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run([]);

    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stdout.split("\n")).toContain(`policy: ${POLICY} (working tree): require-evidence true`);
    const ledger = r.ledger!;
    expect(ledger.plan.buildEvidence.kind).toBe("none-detected");
    expect(ledger.plan.policy).toEqual({ source: `${POLICY} (working tree)`, requireEvidence: true });
    expect(ledger.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });
    expect(ledger.conclusion!.title).toContain("Failed (require-evidence)");
    expect(r.summary).toContain(`**Policy:** ${POLICY} (working tree) — require-evidence: true.`);
    expect(checkRunsOf(r.checkRunRequests!).map((run) => run.completions.map((c) => c.conclusion))).toEqual([
      ["failure"],
    ]);
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
