/**
 * The action's build-evidence gate and verdicts, in-process (test/support/action-in-process.ts): the
 * action's `runAction` with the model calls played by the scripted stand-in, against the GitHub API double.
 * The bundled action with the real claude CLI keeps one run of each surface (test/e2e/action-gate.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { actionInProcessResources } from "../support/action-in-process.js";
import { checkRunWrites, completion, stepDebug } from "../support/action-step.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { MARKS } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import {
  commitAll,
  FIXED_SUM,
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
    expect(output.text).toContain("+  return a + b;");

    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "action_required" });
    expect(result.outputs["check-run-id"]).toBe(String(stored.id));
    expect(result.state["check-run-id"]).toBe(String(stored.id));
    expect(stored.externalId).toBe(result.outputs["run-id"]);
    const ledgerPath = result.outputs["ledger-path"]!;
    expect(existsSync(ledgerPath)).toBe(true);
    const ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as { runId: string; evidenceTree: string };
    expect(ledger).toMatchObject({ runId: result.outputs["run-id"], evidenceTree: tree });
    await commitAll(repo, "the nodes' change");
    expect(await repo.git(["rev-parse", "HEAD^{tree}"])).toBe(tree);

    expect(result.commands.filter((c) => c.startsWith("::warning::"))).toEqual([
      expect.stringContaining("action_required"),
    ]);
    expect(result.commands.some((c) => c.startsWith("::error::"))).toBe(false);
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
});
