/**
 * The action's build-evidence gate and verdicts, in-process (test/support/action-in-process.ts): the
 * action's `runAction` with the model calls played by the scripted stand-in, against the GitHub API double
 * that holds every request and response to GitHub's OpenAPI description. The refusals and usage errors of
 * the gate, the verdicts (never green on a head the engine did not verify, neutral without build evidence,
 * success on the test merge commit), the fence around a child's workflow commands and a refused check-run
 * create all moved here from test/e2e/action-gate.test.ts, which keeps the one real run (the bundled
 * action with the real claude CLI) of the verified-but-not-pushed fix.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { actionInProcessResources } from "../support/action-in-process.js";
import { checkRunWrites, completion, stepDebug } from "../support/action-step.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import {
  commitAll,
  FIXED_SUM,
  makeFixedSampleRepo,
  makeMergeCheckout,
  makeSampleNodeRepo,
  SAMPLE_TEST_NAME,
  type TempRepo,
} from "../support/temp-repo.js";

const GOAL = `${MARKS.plannerGoal}.`;
const CHECK_RUNS = "/repos/{owner}/{repo}/check-runs";

const open = actionInProcessResources();
const { run } = open;

async function setup(): Promise<{ repo: TempRepo; github: GitHubServer; head: string }> {
  const repo = open.keep(await makeSampleNodeRepo());
  const github = await open.github();
  return { repo, github, head: await repo.git(["rev-parse", "HEAD"]) };
}

/** The one check run the GitHub server holds, as GitHub would show it now. */
function onlyCheckRun(github: GitHubServer) {
  expect(github.state.checkRuns).toHaveLength(1);
  return github.state.checkRuns[0]!;
}

describe("action (in-process): build evidence is decided before any model call (SPEC §5)", () => {
  it("a repository with package.json and neither verify-cmd nor accept-no-build-evidence is refused: no model call, check run action_required naming package.json, npm test and both inputs, step failed, outcome refused", async () => {
    const { repo, github, head } = await setup();

    const result = await run({ workspace: repo.dir, inputs: { goal: GOAL }, github, plays: fixSumPlays() });

    expect(result.madeFor("planner")).toHaveLength(0);
    const writes = checkRunWrites(result);
    expect(writes.map((w) => [w.method, w.body.status, w.body.conclusion])).toEqual([
      ["POST", "in_progress", undefined],
      ["PATCH", "completed", "action_required"],
    ]);
    expect(writes[0]!.body.head_sha).toBe(head);
    const stored = onlyCheckRun(github);
    expect(stored).toMatchObject({ headSha: head, status: "completed", conclusion: "action_required" });
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("package.json");
    expect(summary).toContain("verify-cmd: 'npm test'");
    expect(summary).toContain("accept-no-build-evidence: true");
    expect(summary).toMatch(/nothing was spent/i);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("refused");
    expect(result.outputs.conclusion).toBe("action_required");
    expect(result.outputs["check-run-id"]).toBe(String(stored.id));
    expect(result.summary).toBe(summary);
    expect(result.summary.split("Detected: package.json").length - 1).toBe(1);
    github.assertNoViolations();
  });

  it("verify-cmd together with accept-no-build-evidence is a usage error naming both inputs: nothing runs, step failed, outcome usage-error, check run action_required", async () => {
    const { repo, github } = await setup();

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test", "accept-no-build-evidence": "true" },
      github,
      plays: fixSumPlays(),
    });

    expect(result.modelCallsMade).toHaveLength(0);
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs.outcome).toBe("usage-error");
    expect(result.outputs.conclusion).toBe("action_required");
    expect(onlyCheckRun(github)).toMatchObject({ status: "completed", conclusion: "action_required" });
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("`verify-cmd`");
    expect(summary).toContain("`accept-no-build-evidence`");
    expect(summary).toContain("pass one or the other");
    expect(result.summary).toBe(summary);
    // Nothing ran: no verify command either (npm test would have printed its banner).
    expect(result.stdout).not.toContain("> sample@1.0.0 test");
    github.assertNoViolations();
  });
});

describe("action (in-process): the check run is never green on a head the engine did not verify (SPEC §6)", () => {
  it("a verified fix that is not pushed completes action_required naming the verified tree and the patch; outputs passed/action_required; step passes with a warning; the check run is created in_progress before the planner call", async () => {
    const { repo, github, head } = await setup();
    let callsAtPlanner = -1;
    const plays = fixSumPlays();
    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: {
        ...plays,
        planner: plays.planner!.map((p) => ({
          ...p,
          // Awaited when the planner's call is made (a thenable: read at that moment, not now): which
          // GitHub calls had been made by then.
          until: {
            // biome-ignore lint/suspicious/noThenProperty: a thenable is the point (the call's moment)
            then: (resolve: () => void) => {
              callsAtPlanner = github.calls.length;
              resolve();
            },
          } as unknown as Promise<void>,
        })),
      },
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);

    // Order: the check run exists, in progress, before the planner is asked anything (the only call
    // before it looks for a check run an earlier run left on this head SHA).
    const created = github.calls.findIndex((c) => c.method === "POST" && c.route === CHECK_RUNS);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(callsAtPlanner).toBeGreaterThan(created);
    expect(github.calls.slice(0, created).map((c) => `${c.method} ${c.route}`)).toEqual([
      "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    ]);
    expect(github.calls[created]).toMatchObject({ status: 201 });
    expect((github.calls[created]!.body as { status?: string }).status).toBe("in_progress");
    expect(result.madeFor("planner")).toHaveLength(1);

    const writes = checkRunWrites(result);
    expect(writes.every((w) => w.body.head_sha === undefined || w.body.head_sha === head)).toBe(true);
    expect(writes.map((w) => w.body.conclusion).filter((c) => c !== undefined)).toEqual(["action_required"]);
    const stored = onlyCheckRun(github);
    expect(stored).toMatchObject({ headSha: head, status: "completed", conclusion: "action_required" });

    const tree = result.outputs["evidence-tree"]!;
    expect(tree).toMatch(/^[0-9a-f]{40}$/);
    expect(tree).not.toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(await repo.read("src/sum.js")).toBe(FIXED_SUM);
    expect(await repo.git(["status", "--porcelain"])).toBe(" M src/sum.js");

    const output = completion(result)!.output!;
    expect(output.title).toBe("Verified, but not on this commit");
    expect(output.summary).toContain(`\`${tree.slice(0, 12)}\``);
    expect(output.summary).toContain(`**not** the tree of ${head.slice(0, 7)}`);
    expect(output.summary).toContain("patch.diff");
    expect(output.text).toContain("### Patch");
    expect(output.text).toContain("```diff");
    expect(output.text).toContain("+  return a + b;");

    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "action_required" });
    expect(result.outputs["check-run-id"]).toBe(String(stored.id));
    expect(result.state["check-run-id"]).toBe(String(stored.id));
    expect(result.outputs["run-id"]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(stored.externalId).toBe(result.outputs["run-id"]);
    const ledgerPath = result.outputs["ledger-path"]!;
    expect(existsSync(ledgerPath)).toBe(true);
    const ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as {
      runId: string;
      evidenceTree: string;
      conclusion: { conclusion: string };
    };
    expect(ledger).toMatchObject({ runId: result.outputs["run-id"], evidenceTree: tree });
    expect(ledger.conclusion.conclusion).toBe("action_required");
    await commitAll(repo, "the nodes' change");
    expect(await repo.git(["rev-parse", "HEAD^{tree}"])).toBe(tree);

    expect(result.commands.filter((c) => c.startsWith("::warning::"))).toEqual([
      expect.stringContaining("action_required"),
    ]);
    expect(result.commands.some((c) => c.startsWith("::error::"))).toBe(false);
    expect(result.summary).toContain("Verified, but not on this commit");
    expect(result.summary).toContain("+  return a + b;");
    github.assertNoViolations();
  });

  it("a sink whose verify fails makes the check run failure even though its node replied PASS; the summary names npm test, its exit code and the failing test; step failed", async () => {
    const { repo, github } = await setup();

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "verify-cmd": "npm test" },
      github,
      plays: fixSumPlays({ newBody: "return a * b;" }),
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    expect(onlyCheckRun(github)).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(result.madeFor("check")).toHaveLength(1);
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("Failed: sink check failed its verify command");
    expect(summary).toContain("`npm test`");
    expect(summary).toContain("exited 1 (expected 0)");
    expect(summary).toContain(SAMPLE_TEST_NAME);
    expect(result.commands.some((c) => c.startsWith("::error::"))).toBe(true);
    github.assertNoViolations();
  });

  it("accept-no-build-evidence: true runs on the record and is at best neutral; the summary says build evidence is NONE", async () => {
    const { repo, github } = await setup();

    const result = await run({
      workspace: repo.dir,
      inputs: { goal: GOAL, "accept-no-build-evidence": "true" },
      github,
      plays: fixSumPlays(),
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.modelCallsMade.length).toBeGreaterThan(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "neutral" });
    expect(result.outputs["evidence-tree"]).toBeUndefined();
    expect(onlyCheckRun(github)).toMatchObject({ status: "completed", conclusion: "neutral" });
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("**Build evidence: NONE** (`declared`)");
    // npm test never ran: the engine runs no command it was not given.
    expect(result.stdout).not.toContain("> sample@1.0.0 test");
    expect(result.commands.filter((c) => c.startsWith("::warning::"))).toEqual([
      expect.stringContaining("neutral"),
    ]);
    github.assertNoViolations();
  });

  it("on GitHub's test merge commit the check run is posted on the PR head, the summary names the merge of the head into main, and a review-only plan whose verify passes on the checked-out commit is success: exit 0, no warning", async () => {
    const merge = open.keep(await makeMergeCheckout());
    const github = await open.github();

    const result = await run({
      workspace: merge.dir,
      // Both sides of the merge are in the verified tree.
      inputs: { goal: GOAL, "verify-cmd": "test -f feature.txt && test -f base.txt" },
      github,
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
      headSha: merge.headSha,
      baseSha: merge.baseSha,
      githubSha: merge.mergeSha,
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(checkRunWrites(result)[0]!.body.head_sha).toBe(merge.headSha);
    expect(onlyCheckRun(github)).toMatchObject({
      headSha: merge.headSha,
      status: "completed",
      conclusion: "success",
    });
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(result.outputs["evidence-tree"]).toBe(await merge.git(["rev-parse", `${merge.mergeSha}^{tree}`]));
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain(`the merge of ${merge.headSha.slice(0, 7)} into main`);
    expect(summary).toContain("PASS (verified)");
    expect(result.commands.filter((c) => c.startsWith("::warning::") || c.startsWith("::error::"))).toEqual(
      [],
    );
    github.assertNoViolations();
  });
});

describe("action (in-process): children cannot speak to the runner (SPEC §9)", () => {
  // mode: verify — the verify command is the child here, and no model call is needed to reach it. Its
  // output reaches the step's stdout through the action's own writes (src/proc/command-fence.ts).
  it("a build that prints ::set-output and ::add-mask:: changes nothing: the lines sit inside a stop-commands window and outcome is the engine's", async () => {
    const { repo, github } = await setup();
    const echo = [
      "::set-output name=outcome::passed",
      "::set-output name=conclusion::success",
      "::add-mask::x",
    ];
    const script = echo.map((line) => `console.log(${JSON.stringify(line)})`).join(";");

    const result = await run({
      workspace: repo.dir,
      // npm test fails on the unfixed repository: the engine's outcome is failed.
      inputs: { mode: "verify", "verify-cmd": `node -e '${script}' && npm test` },
      github,
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "failed", conclusion: "failure" });
    for (const line of echo) {
      expect(result.stdout.split("\n")).toContain(line);
      expect(result.commands).not.toContain(line);
    }
    // Each echoed line sits between a stop-commands marker and its closing token.
    const lines = result.stdout.split("\n");
    const at = lines.indexOf(echo[0]!);
    const opened = lines.slice(0, at).findLast((l) => l.startsWith("::stop-commands::"));
    expect(opened).toBeDefined();
    const token = opened!.slice("::stop-commands::".length);
    expect(token.length).toBeGreaterThanOrEqual(16);
    const closedAt = lines.indexOf(`::${token}::`, at);
    expect(closedAt).toBeGreaterThan(lines.indexOf(echo[2]!));
    expect(lines.slice(lines.lastIndexOf(opened!, at) + 1, at).includes(`::${token}::`)).toBe(false);
    github.assertNoViolations();
  });
});

describe("action (in-process): a refused check-run write is an error the user sees (SPEC §6, §10)", () => {
  // GitHub answers 404 as well as 403 when the token may not write check runs (e.g. a token without the
  // checks scope on a private repository): both must behave alike. The 403 goes through a whole auto run;
  // the 404 through mode: verify, which reaches the same check-run writer without a model call.
  it.each([403])(
    "a %i on creating the check run: the run goes on without one, the job summary holds the full ledger, and the step fails naming checks: write",
    async (status) => {
      const { repo, github } = await setup();
      github.failNext({ method: "POST", pathPattern: CHECK_RUNS, status });

      const result = await run({
        workspace: repo.dir,
        inputs: { goal: GOAL, "verify-cmd": "npm test" },
        github,
        plays: fixSumPlays(),
      });

      expect(result.exitCode, stepDebug(result)).toBe(1);
      // One refused create, then no check-run call at all (and no retry of a 403 or a 404).
      expect(
        result.calls
          .filter((c) => c.path.includes("check-runs"))
          .map((c) => [c.method, c.status, c.injected]),
      ).toEqual([
        ["GET", 200, false],
        ["POST", status, true],
      ]);
      expect(github.state.checkRuns).toEqual([]);
      // The run went on: the model was called and the ledger is in the job summary.
      expect(result.modelCallsMade.length).toBeGreaterThan(0);
      expect(result.summary).toContain("could not be created");
      expect(result.summary).toContain("checks: write");
      expect(result.summary).toContain("PASS (verified)");
      expect(result.outputs["ledger-path"]).toBeTruthy();
      const errors = result.commands.filter((c) => c.startsWith("::error::"));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.at(-1)).toContain("checks: write");
      expect(errors.at(-1)).toContain(String(status));
      // The outputs are the ledger's (a verified fix that is not pushed), not a refusal's.
      expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "action_required" });
      github.assertNoViolations();
    },
  );

  it("a 404 on creating the check run behaves as a 403: the verify runs, the job summary holds the ledger, and the step fails naming checks: write and 404", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const github = await open.github();
    github.failNext({ method: "POST", pathPattern: CHECK_RUNS, status: 404 });

    const result = await run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test" },
      github,
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(
      result.calls.filter((c) => c.path.includes("check-runs")).map((c) => [c.method, c.status, c.injected]),
    ).toEqual([
      ["GET", 200, false],
      ["POST", 404, true],
    ]);
    expect(github.state.checkRuns).toEqual([]);
    expect(result.summary).toContain("could not be created");
    expect(result.summary).toContain("checks: write");
    expect(result.summary).toContain("PASS (verified)");
    const errors = result.commands.filter((c) => c.startsWith("::error::"));
    expect(errors.at(-1)).toContain("checks: write");
    expect(errors.at(-1)).toContain("404");
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    github.assertNoViolations();
  });
});
