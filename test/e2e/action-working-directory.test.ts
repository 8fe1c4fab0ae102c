/**
 * The action's `working-directory` input (issue 17 item 1): the build-signal scan covers the checkout's
 * root and every folder from it down to the working directory, so a `package.json` two folders up from
 * the working directory still refuses an `auto` run with no `verify-cmd` — `node dist/index.js` run as the
 * runner runs it.
 */
import { describe, expect, it } from "vitest";
import { actionTestResources, stepDebug } from "../support/action-harness.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { makeTempRepo } from "../support/temp-repo.js";

const open = actionTestResources();
const { run, servers } = open;

describe("action: working-directory and the build-evidence refusal", () => {
  it("a working-directory below the folder holding package.json is refused naming it: nothing runs, nothing is billed", async () => {
    const repo = open.keep(
      await makeTempRepo({
        commit: true,
        files: { "tools/web/package.json": "{}\n", "tools/web/src/app.js": "export {};\n" },
      }),
    );
    const { github, model } = await servers(fixSumScript({ repoDir: repo.dir }));

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: `${MARKS.plannerGoal}.`, "working-directory": "tools/web/src" },
      github,
      model,
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    expect(result.modelRequests).toEqual([]);
    const [checkRun] = github.state.checkRuns;
    expect(checkRun).toMatchObject({ status: "completed", conclusion: "action_required" });
    expect(JSON.stringify(checkRun)).toContain("tools/web/package.json (Node.js (npm))");
    // Phrased from the working directory, where the verify command would run.
    expect(JSON.stringify(checkRun)).toContain("verify-cmd: '(cd .. && npm test)'");
    github.assertNoViolations();
  });
});
