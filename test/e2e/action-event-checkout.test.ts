/**
 * The checkout is the one the event names (SPEC §9; issue 21 item 6): `node dist/index.js` run as the runner
 * runs it, on a workspace holding GitHub's merge commit of a *newer* head than `pull_request.head.sha` — as
 * a re-run, or a job that started after another push, gets from `refs/pull/N/merge`. The run is refused
 * before any model call or verify command: the check run is `action_required` naming both SHAs, outcome
 * `refused`, the step fails, and nothing is ever posted `success`.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actionTestResources, checkRunWrites, completion, stepDebug } from "../support/action-harness.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { commitAll, makeMergeCheckout } from "../support/temp-repo.js";

const open = actionTestResources();

describe("action: a pull_request checkout that is not the event's head (SPEC §9)", () => {
  it("GitHub's merge of a newer head than pull_request.head.sha is refused before any model call or verify: action_required naming both SHAs, never success", async () => {
    const merge = open.keep(await makeMergeCheckout());
    // The pull request gets a newer push; the merge ref now merges that head into the base.
    await merge.git(["checkout", "--quiet", "feature"]);
    await merge.write("feature.txt", "a newer push to the PR\n");
    const newerHead = await commitAll(merge, "newer push");
    await merge.git(["checkout", "--quiet", "--detach", merge.baseSha]);
    await merge.git(["merge", "--quiet", "--no-ff", "--no-edit", "-m", "Merge newer head", newerHead]);
    const newerMerge = await merge.git(["rev-parse", "HEAD"]);
    expect(newerHead).not.toBe(merge.headSha);

    const { github, model } = await open.servers(
      fixSumScript({ repoDir: merge.dir, plannerReplies: [reviewOnlyPlan()] }),
    );
    const probe = mkdtempSync(join(tmpdir(), "eg-event-checkout-"));
    open.dirs.push(probe);
    const marker = join(probe, "verify-ran");
    const result = await open.run({
      workspace: merge.dir,
      inputs: { goal: `${MARKS.plannerGoal}.`, "verify-cmd": `touch '${marker}' && true` },
      github,
      model,
      // The event still names the older head.
      headSha: merge.headSha,
      baseSha: merge.baseSha,
      githubSha: newerMerge,
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "refused", conclusion: "action_required" });
    // Nothing ran: no model request, no verify command.
    expect(model.requests).toHaveLength(0);
    expect(existsSync(marker)).toBe(false);
    const done = completion(result)!;
    expect(done).toMatchObject({ conclusion: "action_required" });
    expect(done.output!.title).toBe("Refused: the checkout is not the commit the event names");
    expect(done.output!.summary).toContain(`pull_request.head.sha is ${merge.headSha}`);
    expect(done.output!.summary).toContain(`whose head parent is ${newerHead}`);
    // Not a single write, on any check run, says success.
    expect(checkRunWrites(result).map((w) => w.body.conclusion)).not.toContain("success");
    expect(github.state.checkRuns.map((c) => c.conclusion)).toEqual(["action_required"]);
    expect(github.state.checkRuns[0]!.headSha).toBe(merge.headSha);
    github.assertNoViolations();
  });
});
