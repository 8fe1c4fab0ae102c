/**
 * The policy file in the CLI (SPEC §11), end to end: `evidence-gate auto` reads `.github/evidence-gate.yml`
 * from the working tree of `--repo`, prints one line saying so, and attaches its verify-cmd — one real run
 * with real git, the real pinned `claude` CLI and the scripted model server.
 *
 * The policy's refusals before anything runs (require-evidence with no verify command, with
 * --accept-no-build-evidence, an unknown key) run in-process through the model port:
 * test/cli/policy-file.test.ts (issue 24).
 */
import { describe, expect, test } from "vitest";
import { cliHarness } from "../support/cli-harness.js";
import { fixSumScript, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo } from "../support/temp-repo.js";

const POLICY = ".github/evidence-gate.yml";

describe("the working tree's policy file (SPEC §5, §11)", () => {
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
});
