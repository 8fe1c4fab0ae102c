/**
 * The check run holds up (SPEC §6, §10), in-process (test/support/action-in-process.ts): the action's
 * `runAction` with the model calls played by the scripted stand-in, against the GitHub API double that holds
 * every request to GitHub's OpenAPI description. A check run an earlier run left, with its annotations, is
 * taken over; a 502 on creating it is retried without making a second one, a 422 is not; failures are
 * annotated where the verify output names them; a refused final write fails the step naming
 * `checks: write`, the job summary carries the full ledger under a heading that says the verdict was not
 * posted, output `conclusion` says so too, and the post step (its `runPost`, in-process) completes the check
 * run `failure` — never green, never stuck in progress. Moved from test/e2e/action-checks.test.ts (issue 24),
 * which keeps the one real run: a re-run on the same head SHA updating the first run's check run, with the
 * bundled post step.
 */
import { describe, expect, it } from "vitest";
import { actionInProcessResources } from "../support/action-in-process.js";
import { checkRunApiCalls, checkRunWrites, stepDebug } from "../support/action-step.js";
import { MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { makeFixedSampleRepo, makeSampleNodeRepo, type TempRepo } from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const CREATE = "/repos/{owner}/{repo}/check-runs";
const UPDATE = "/repos/{owner}/{repo}/check-runs/{check_run_id}";

const open = actionInProcessResources();
const { run } = open;

async function sampleRepo(options: { fixed?: boolean } = {}): Promise<TempRepo> {
  return open.keep(options.fixed ? await makeFixedSampleRepo() : await makeSampleNodeRepo());
}

describe("action (in-process): a check run with an earlier run's annotations is still the one updated (SPEC §6)", () => {
  it("takes it over (no second check run) and says in the summary that its annotations are the earlier run's", async () => {
    const repo = await sampleRepo();
    const github = await open.github();
    const head = await repo.git(["rev-parse", "HEAD"]);
    const earlier = github.state.seedCheckRun({
      name: "evidence-gate",
      headSha: head,
      externalId: "20250311-080000-0a0b0c",
      conclusion: "failure",
    });
    earlier.output.annotationsCount = 2;

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(github.callsTo("POST", CREATE)).toHaveLength(0);
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ id: earlier.id, externalId: result.outputs["run-id"] });
    const summary = String(github.state.checkRuns[0]!.output.summary);
    expect(summary).toContain("20250311-080000-0a0b0c");
    expect(summary).toContain("its 2 annotations stay on it (GitHub cannot remove annotations)");
    expect(result.summary).toContain("its 2 annotations stay on it");
    github.assertNoViolations();
  });
});

describe("action (in-process): retries with backoff, never a duplicate (SPEC §6)", () => {
  it("502 twice, then 201 on creating the check run: one check run, looked up by external_id before each retry; the run goes on", async () => {
    const repo = await sampleRepo();
    const github = await open.github();
    github.failNext({ method: "POST", pathPattern: CREATE, status: 502, times: 2 });

    const result = await run({ workspace: repo.dir, inputs: { goal: GOAL }, github, plays: fixSumPlays() });

    expect(checkRunApiCalls(result)).toEqual([
      "GET list 200",
      "POST create 502",
      "GET list 200",
      "POST create 502",
      "GET list 200",
      "POST create 201",
      "PATCH update 200",
    ]);
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "action_required" });
    // The refusal is the run's own verdict, reported as usual.
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    expect(result.commands.filter((c) => c.startsWith("::warning::") && c.includes("502"))).toHaveLength(2);
    github.assertNoViolations();
  });

  it("a 422 on creating the check run is not retried: the step fails with GitHub's answer, nothing runs", async () => {
    const repo = await sampleRepo();
    const github = await open.github();
    github.failNext({ method: "POST", pathPattern: CREATE, status: 422 });

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays(),
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(checkRunApiCalls(result)).toEqual(["GET list 200", "POST create 422"]);
    expect(result.modelCallsMade).toEqual([]);
    expect(result.commands.filter((c) => c.startsWith("::error::"))).toEqual([
      expect.stringContaining("GitHub answered 422"),
    ]);
  });
});

describe("action (in-process): failures are annotated where the output names them (SPEC §6)", () => {
  it("a verify that fails in test/sum.test.js annotates that file and line on the completing write", async () => {
    const repo = await sampleRepo();
    const github = await open.github();

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays({ newBody: "return a * b;" }),
      env: {
        GITHUB_WORKFLOW_REF: "octo-org/widgets/.github/workflows/gate.yml@refs/pull/42/merge",
      },
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    const done = checkRunWrites(result).find((w) => w.body.conclusion !== undefined)!;
    const annotations = (done.body.output as { annotations?: Record<string, unknown>[] }).annotations ?? [];
    expect(annotations.length).toBeGreaterThan(0);
    expect(annotations.every((a) => a.annotation_level === "failure")).toBe(true);
    expect(annotations.map((a) => a.path)).toContain("test/sum.test.js");
    const inTest = annotations.find((a) => a.path === "test/sum.test.js")!;
    expect(inTest.title).toBe("evidence-gate: check failed: verify command `npm test` exited 1 (expected 0)");
    expect(inTest.start_line).toBeGreaterThan(0);
    // No annotation on files outside the repository or on the workflow file: the output named a real one.
    expect(annotations.every((a) => typeof a.path === "string" && !a.path.startsWith("/"))).toBe(true);
    expect(annotations.map((a) => a.path)).not.toContain(".github/workflows/gate.yml");
    expect(github.state.checkRuns[0]!.output.annotationsCount).toBe(annotations.length);
    github.assertNoViolations();
  });
});

describe("action (in-process): a refused final write is loud (SPEC §6, §10)", () => {
  it("403 on completing the check run: the job summary holds the full ledger, the step fails naming checks: write, and the post step completes the check run failure", async () => {
    const repo = await sampleRepo({ fixed: true });
    const github = await open.github();
    const completing = (body: unknown) => (body as { status?: string } | undefined)?.status === "completed";
    // Every completing write is refused (a token without `checks: write` would refuse them all); progress
    // updates go through, so the check run exists and shows the run in progress.
    github.failNext({ method: "PATCH", pathPattern: UPDATE, status: 403, times: 2, bodyMatches: completing });
    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    const refused = result.calls.filter((c) => c.route === UPDATE && c.status === 403);
    // The completion, then the crash handler's attempt to complete it failure: both refused.
    expect(refused).toHaveLength(2);
    expect(refused.every((c) => completing(c.body))).toBe(true);
    const errors = result.commands.filter((c) => c.startsWith("::error::"));
    expect(errors.join("\n")).toContain("checks: write");
    expect(errors.join("\n")).toContain("403");
    // The full ledger is in the job summary all the same ...
    expect(result.summary).toContain("PASS (verified)");
    expect(result.summary).toContain("`review`");
    // ... under a heading, and with a `conclusion`, that say the verdict was reached and not posted
    // (issue 21 item 7: the outputs never claim more than the check run).
    // (The summary's writer drops the emoji's variation selector.)
    expect(result.summary.split("\n")[0]).toMatch(
      /^## ⚠\uFE0F? evidence-gate: success — not posted: the check run could not be completed$/,
    );
    expect(result.summary).not.toContain("✅");
    expect(result.outputs.conclusion).toBe("success (not posted)");
    expect(result.outputs.outcome).toBe("failed");
    expect(result.state["check-run-completed"]).toBeUndefined();
    expect(github.state.checkRuns[0]!.status).not.toBe("completed");

    const post = await open.post({ github, state: result.state });
    expect(post.exitCode, stepDebug(post)).toBe(0);
    expect(github.state.checkRuns).toHaveLength(1);
    expect(github.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    github.assertNoViolations();
  });
});
