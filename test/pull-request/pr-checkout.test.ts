/**
 * Which checkouts a `pull_request` run accepts (SPEC §9; issue 21 item 6; `eventCheckoutProblem`): real git
 * repositories in temp folders. The event's head itself and GitHub's merge of exactly that head pass; the
 * merge of a newer head, or another commit, is a problem naming both SHAs; a folder without a repository is
 * left to the run's own check.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventCheckoutProblem } from "../../src/pull-request/pr-checkout.js";
import { commitAll, type MergeCheckout, makeMergeCheckout } from "../support/temp-repo.js";

const made: MergeCheckout[] = [];
afterAll(async () => {
  for (const repo of made) await repo.cleanup();
});

const problem = (workspace: string, headSha: string) =>
  eventCheckoutProblem({ workspace, headSha, baseEnv: process.env, knownSecrets: [] });

describe("eventCheckoutProblem", () => {
  it("accepts the event's head and GitHub's merge of exactly it; refuses the merge of a newer head and another commit, naming both SHAs", async () => {
    const merge = await makeMergeCheckout();
    made.push(merge);
    expect(await problem(merge.dir, merge.headSha)).toBeNull();
    // Upper-case hex is the same SHA.
    expect(await problem(merge.dir, merge.headSha.toUpperCase())).toBeNull();

    await merge.git(["checkout", "--quiet", "feature"]);
    await merge.write("feature.txt", "newer\n");
    const newer = await commitAll(merge, "newer push");
    expect(await problem(merge.dir, newer)).toBeNull();
    expect(await problem(merge.dir, merge.headSha)).toBe(
      `the checkout is not the commit the event names: pull_request.head.sha is ${merge.headSha}, and the workspace holds commit ${newer}. The pull request's head moved after this run was triggered (GitHub's merge ref follows the newest push), so its code is not what the event named; nothing ran. The run triggered by the newer push checks that head.`,
    );

    await merge.git(["checkout", "--quiet", "--detach", merge.baseSha]);
    await merge.git(["merge", "--quiet", "--no-ff", "--no-edit", "-m", "merge newer", newer]);
    const newerMerge = await merge.git(["rev-parse", "HEAD"]);
    expect(await problem(merge.dir, merge.headSha)).toContain(
      `the workspace holds the merge commit ${newerMerge}, whose head parent is ${newer} (merged into ${merge.baseSha})`,
    );
    expect(await problem(merge.dir, newer)).toBeNull();
  });

  it("a folder that is no git repository is left to the run's own check", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-no-repo-"));
    try {
      expect(await problem(dir, "a".repeat(40))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
