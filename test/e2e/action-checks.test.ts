/**
 * The check run holds up (SPEC §6, §10): `node dist/index.js` run as the runner runs it against the local
 * GitHub server that holds every request to GitHub's OpenAPI description. One real run: a re-run on the
 * same head SHA updates the one check run the first run created, and the bundled post step
 * (`dist/post.js`) is handed that check run.
 *
 * Moved to the port tier, in-process (test/action-run/checks.test.ts; issue 24): taking over a check run
 * with an earlier run's annotations, the retries of a 502 on creating it (no duplicate) and no retry of a
 * 422, failures annotated where the verify output names them, and a refused final write (the post step,
 * run there in-process, completes the check run `failure`).
 */
import { describe, expect, it } from "vitest";
import {
  actionTestResources,
  checkRunApiCalls,
  checkRunWrites,
  runPostStep,
  stepDebug,
} from "../support/action-harness.js";
import { fixSumScript, MARKS } from "../support/scenarios/fix-sum.js";
import { makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const CREATE = "/repos/{owner}/{repo}/check-runs";

const open = actionTestResources();
const { run, servers } = open;

async function sampleRepo(): Promise<TempRepo> {
  return open.keep(await makeSampleNodeRepo());
}

describe("action: one check run per name and head SHA (SPEC §6)", () => {
  it("re-running the action on the same head SHA updates the check run the first run created: one create, then updates; the post step is given that check run", async () => {
    const repo = await sampleRepo();
    const { github, model } = await servers(fixSumScript({ repoDir: repo.dir }));
    // The refusal path (package.json, no verify-cmd) creates and completes the check run without a model call.
    const first = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL },
      github,
      model,
    });
    expect(first.exitCode, stepDebug(first)).toBe(1);
    expect(checkRunApiCalls(first)).toEqual(["GET list 200", "POST create 201", "PATCH update 200"]);
    const [checkRun] = github.state.checkRuns;
    const firstRunId = first.outputs["run-id"];

    // "Re-run jobs": same workflow run id, next attempt; a new evidence-gate run id.
    const second = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL },
      github,
      model,
      env: { GITHUB_RUN_ATTEMPT: "2" },
    });
    expect(second.exitCode, stepDebug(second)).toBe(1);
    expect(checkRunApiCalls(second)).toEqual(["GET list 200", "PATCH update 200", "PATCH update 200"]);
    const writes = checkRunWrites(second);
    expect(writes[0]!.body).toMatchObject({ status: "in_progress", external_id: second.outputs["run-id"] });
    expect(second.outputs["run-id"]).not.toBe(firstRunId);

    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({
      id: checkRun!.id,
      status: "completed",
      conclusion: "action_required",
      externalId: second.outputs["run-id"],
    });
    expect(github.callsTo("POST", CREATE)).toHaveLength(1);
    // The post step gets the check run this run took over, under this run's id.
    expect(second.state).toMatchObject({
      "check-run-id": String(checkRun!.id),
      "run-id": second.outputs["run-id"],
      "check-run-completed": "true",
    });
    expect(second.outputs["check-run-id"]).toBe(String(checkRun!.id));
    expect(second.stdout).toContain(
      `check run ${checkRun!.id} (left by run ${firstRunId}, action_required) is this run's now`,
    );
    const post = await runPostStep({ github, state: second.state });
    expect(post.exitCode, stepDebug(post)).toBe(0);
    expect(post.calls).toEqual([]);
    github.assertNoViolations();
  });
});
