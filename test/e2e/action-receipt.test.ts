/**
 * Issue 25 items 1 and 2 end to end: `node dist/index.js` in `mode: verify` as the runner starts it,
 * against the local GitHub server that validates every request against GitHub's OpenAPI description.
 * `node --test` on a repository with no test file ends `action_required` (ADR 0016) and the check run's
 * ledger row says "ran no test"; with one passing test the same command ends `success` and the row reads
 * "ran 1 test". The one dist/ run of this behaviour; the variants are in-process (test/cli/verify-receipt).
 */
import { describe, expect, it } from "vitest";
import { actionTestResources, checkRunWrites, stepDebug } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { commitAll, makeTempRepo } from "../support/temp-repo.js";

const open = actionTestResources();

describe("action: the verify row's test receipt (issue 25)", () => {
  it("ran no test: action_required and the check run says so; one passing test: success, ran 1 test", async () => {
    const repo = open.keep(await makeTempRepo({ commit: true, files: { "README.md": "docs\n" } }));
    const github = await startGitHubServer();
    try {
      const empty = await open.run({
        workspace: repo.dir,
        inputs: { mode: "verify", "verify-cmd": "node --test" },
        github,
      });
      expect(empty.exitCode, stepDebug(empty)).toBe(0);
      expect(empty.outputs).toMatchObject({ outcome: "passed", conclusion: "action_required" });
      const emptyDone = checkRunWrites(empty).find((w) => w.body.conclusion !== undefined)!;
      expect(emptyDone.body.conclusion).toBe("action_required");
      const emptyOutput = emptyDone.body.output as { title: string; summary: string };
      expect(emptyOutput.title).toContain("ran no test");
      expect(emptyOutput.summary).toContain("ran no test, per node:test");

      await repo.write("one.test.cjs", 'require("node:test").test("adds", () => {});\n');
      await commitAll(repo, "add a test");
      const one = await open.run({
        workspace: repo.dir,
        inputs: { mode: "verify", "verify-cmd": "node --test" },
        github,
      });
      expect(one.exitCode, stepDebug(one)).toBe(0);
      expect(one.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
      const oneDone = checkRunWrites(one).find((w) => w.body.conclusion !== undefined)!;
      expect((oneDone.body.output as { summary: string }).summary).toContain(
        "ran 1 test: 1 passed, per node:test",
      );
      expect(one.summary).toContain("ran 1 test: 1 passed, per node:test");
      github.assertNoViolations();
    } finally {
      await github.close();
    }
  });
});
