/**
 * `verify-base` in the action (issue 25 item 3; ADR 0017): `node dist/index.js` in `mode: verify` as the
 * runner starts it, against the local GitHub server that validates every request against GitHub's OpenAPI
 * description. The base is `pull_request.base.sha`, checked out by the engine's trusted git into a worktree
 * of its own and run as the head's twin (the separate user where the runner can make one); the check run
 * names the test failing on the base and passing on the head. Host tier: `isolate-user: auto` makes the
 * separate user when the test runs as root. The one dist/ run of this behaviour in the
 * action; the CLI's acceptance scenario is test/e2e/cli-verify-base.test.ts.
 */
import { describe, expect, it } from "vitest";
import { actionTestResources, checkRunWrites, stepDebug } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { commitAll, makeTempRepo } from "../support/temp-repo.js";

const open = actionTestResources();

const TEST =
  'const { test } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("./add.cjs");\ntest("adds two numbers", () => assert.equal(add(1, 2), 3));\n';

describe("action: verify-base (issue 25 item 3)", () => {
  it("fails on the PR's base, passes on the head: the check run says fixed, naming the test; the conclusion is the head's", async () => {
    const repo = open.keep(
      await makeTempRepo({
        commit: true,
        files: { "add.cjs": "exports.add = (a, b) => a - b;\n", "add.test.cjs": TEST },
      }),
    );
    const base = await repo.git(["rev-parse", "HEAD"]);
    await repo.write("add.cjs", "exports.add = (a, b) => a + b;\n");
    await commitAll(repo, "fix add");
    const github = await startGitHubServer();
    try {
      const run = await open.run({
        workspace: repo.dir,
        inputs: {
          mode: "verify",
          "verify-cmd": 'echo "as $(id -un) in $PWD"\nnode --test',
          "verify-base": "true",
          "isolate-user": "auto",
        },
        baseSha: base,
        github,
      });
      expect(run.exitCode, stepDebug(run)).toBe(0);
      expect(run.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
      const done = checkRunWrites(run).find((w) => w.body.conclusion !== undefined)!;
      const summary = (done.body.output as { summary: string }).summary;
      expect(summary).toContain("### The base beside the head");
      expect(summary).toContain(
        `fails on base ${base.slice(0, 7)} (the pull request's base), passes on head: fixed (now passing: adds two numbers)`,
      );
      expect(summary).toContain("base run: ran 1 test: 0 passed, 1 failed (adds two numbers), per node:test");
      // Each run's evidence tree is recorded: the base's is the base commit's tree.
      const baseTree = await repo.git(["rev-parse", `${base}^{tree}`]);
      expect(summary).toContain(`base tree \`${baseTree}\``);
      // Both runs are PR code: as the separate user when the runner makes one (root here), the base's in
      // a folder of its own outside the workspace.
      const ran = [...run.stdout.matchAll(/^as (\S+) in (\S+)$/gm)].map((m) => [m[1], m[2]]);
      expect(ran).toHaveLength(2);
      expect(ran[0]![1]).toBe(repo.dir);
      expect(ran[1]![1]).toMatch(/evidence-gate-base-[^/]+\/tree$/);
      expect(ran.map(([user]) => user)).toEqual(
        process.getuid?.() === 0 ? ["evidence-gate-pr", "evidence-gate-pr"] : [ran[0]![0], ran[0]![0]],
      );
      github.assertNoViolations();
    } finally {
      await github.close();
    }
  });
});
