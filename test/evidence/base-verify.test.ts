/**
 * `verify-base` in a real git repository (issue 25 item 3; ADR 0017): which commit is the base (the given
 * commit, the merge-base with `--base`, the start commit's first parent), the base's own worktree (made
 * once, its own evidence tree, removed at close), one base run per command and folder, and a base that
 * cannot be run said as `not_compared`, never thrown.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { VerifyEvidence } from "../../src/core/ledger-row.js";
import { BaseVerifier, resolveBaseCommit, type VerifyBaseSetting } from "../../src/evidence/base-verify.js";
import { type RunVerifyOptions, runVerify, VerifyQueue } from "../../src/evidence/verify.js";
import { commitAll, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

/** main: `check.sh` fails; branch `fix` (two commits on): it passes. */
async function twoBranchRepo(): Promise<{ repo: TempRepo; main: string; fixed: string; head: string }> {
  const repo = await makeTempRepo({ files: { "check.sh": "exit 1\n", "sub/.keep": "" }, commit: true });
  repos.push(repo);
  const main = await repo.git(["rev-parse", "HEAD"]);
  await repo.git(["checkout", "--quiet", "-b", "fix"]);
  await repo.write("check.sh", "exit 0\n");
  const fixed = await commitAll(repo, "fix");
  await repo.write("notes.txt", "more\n");
  const head = await commitAll(repo, "notes");
  return { repo, main, fixed, head };
}

const gitIn = (repo: TempRepo) => (args: readonly string[]) => repo.git(args);

describe("the base commit", () => {
  test("the given commit, the merge-base with a ref, the start commit's first parent", async () => {
    const { repo, main, fixed, head } = await twoBranchRepo();
    expect(await resolveBaseCommit({ commit: main }, head, gitIn(repo))).toBe(main);
    expect(await resolveBaseCommit({ ref: "main" }, head, gitIn(repo))).toBe(main);
    expect(await resolveBaseCommit({}, head, gitIn(repo))).toBe(fixed);
  });

  test("a commit not in the repository, a ref that names nothing, a root commit: errors that say what to do", async () => {
    const { repo, main, head } = await twoBranchRepo();
    await expect(resolveBaseCommit({ commit: "f".repeat(40) }, head, gitIn(repo))).rejects.toThrow(
      /is not in the repository: fetch more history \(actions\/checkout fetch-depth: 0/,
    );
    await expect(resolveBaseCommit({ commit: "main" }, head, gitIn(repo))).rejects.toThrow(
      /is not a commit SHA/,
    );
    await expect(resolveBaseCommit({ ref: "no-such-branch" }, head, gitIn(repo))).rejects.toThrow(
      "--base no-such-branch names no commit in the repository",
    );
    // `main` is the repository's first commit (not a shallow clone's edge): the advice is --base, not a fetch.
    await expect(resolveBaseCommit({}, main, gitIn(repo))).rejects.toThrow(
      /is the repository's first commit.*--base REF/,
    );
  });
});

describe("the base run", () => {
  const verifier = (repo: TempRepo, head: string, setting: VerifyBaseSetting, runs?: RunVerifyOptions[]) =>
    new BaseVerifier({
      repoDir: repo.dir,
      startCommit: head,
      setting,
      baseEnv: process.env,
      knownSecrets: [],
      runVerify: (options) => {
        runs?.push(options);
        return runVerify(options);
      },
    });
  const options = (cwd: string, command = "sh check.sh"): RunVerifyOptions => ({
    command,
    cwd,
    timeoutMs: 30_000,
    expectExit: 0,
    env: process.env,
    passThrough: [],
    knownSecrets: [],
  });

  test("runs in a worktree of the base with its own evidence tree, once per command and folder; close removes it", async () => {
    const { repo, main, head } = await twoBranchRepo();
    const runs: RunVerifyOptions[] = [];
    const base = verifier(repo, head, { ref: "main" }, runs);
    const headRun = await runVerify(options(repo.dir));
    expect(headRun.outcome).toBe("passed");

    const compared = await base.compare(options(repo.dir), headRun);
    expect(compared).toMatchObject({
      commit: main,
      chosenAs: "the merge-base with main",
      verdict: "fixed",
      verify: { outcome: "failed", exitCode: 1, evidenceTree: await repo.git(["rev-parse", "main^{tree}"]) },
    });
    const worktree = runs[0]!.cwd;
    expect(worktree).not.toBe(repo.dir);
    expect(existsSync(join(worktree, "check.sh"))).toBe(true);
    // A second sink with the same command and folder reuses the base's result; another folder runs again.
    await base.compare(options(repo.dir), headRun);
    expect(runs).toHaveLength(1);
    const inSub = await base.compare(options(join(repo.dir, "sub"), "sh ../check.sh"), headRun);
    expect(inSub.verdict).toBe("fixed");
    expect(runs.map((run) => run.cwd)).toEqual([worktree, join(worktree, "sub")]);

    expect(await base.close()).toBeNull();
    expect(existsSync(worktree)).toBe(false);
    expect(await repo.git(["worktree", "list", "--porcelain"])).not.toContain("evidence-gate-base-");
  });

  test("no base commit, a folder outside the main working tree, a folder the base lacks: not compared, with why", async () => {
    const { repo, head } = await twoBranchRepo();
    const headRun: VerifyEvidence = await runVerify(options(repo.dir));
    const missing = await verifier(repo, head, { commit: "e".repeat(40) }).compare(
      options(repo.dir),
      headRun,
    );
    expect(missing).toMatchObject({
      verdict: "not_compared",
      commit: null,
      chosenAs: "the pull request's base",
    });
    expect(missing.reason).toContain("is not in the repository");

    const base = verifier(repo, head, {});
    const outside = await base.compare(options("/tmp"), headRun);
    expect(outside.verdict).toBe("not_compared");
    expect(outside.reason).toContain("only the main working tree is compared with the base");
    await repo.write("new-folder/.keep", "");
    const lacking = await base.compare(options(join(repo.dir, "new-folder")), headRun);
    expect(lacking).toMatchObject({ verdict: "not_compared", reason: "the base has no folder new-folder" });
    await base.close();
  });
});

describe("the verify queue", () => {
  test("with a base, each sink's evidence carries the comparison; a run already stopped does not start the base", async () => {
    const { repo, head } = await twoBranchRepo();
    const base = new BaseVerifier({
      repoDir: repo.dir,
      startCommit: head,
      setting: { ref: "main" },
      baseEnv: process.env,
      knownSecrets: [],
      runVerify,
    });
    const queue = new VerifyQueue({ baseEnv: process.env, passThrough: [], knownSecrets: [], base });
    const sink = { nodeId: "check", command: "sh check.sh", cwd: repo.dir, timeoutMs: 30_000, expectExit: 0 };
    expect((await queue.run(sink)).base?.verdict).toBe("fixed");
    const stopped = new AbortController();
    stopped.abort();
    expect(await queue.run({ ...sink, nodeId: "other", signal: stopped.signal })).not.toHaveProperty("base");
    await base.close();
  });
});
