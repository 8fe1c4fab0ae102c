/**
 * The managed worktrees of a leg (`src/engine/run-worktrees.ts`; docs/graph-format.md "agent and
 * worktree"), against real git repositories in temp directories: each name is one checkout of the starting
 * commit on `evidence-gate/<run id>/NAME`, made once however many nodes ask at once; the repository's hooks
 * do not run; closing commits each worktree's changes on its branch, removes the checkouts and prunes, the
 * branches staying; a later leg adds a worktree back from its branch, and reuses a checkout an interrupted
 * leg could not remove.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { RunWorktrees } from "../../src/engine/run-worktrees.js";
import { hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const RUN_ID = "20260101-000000-abcdef";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A committed repository with `src/sum.js`, a post-checkout hook that leaves a mark, and a run directory. */
async function setUp(): Promise<{
  repo: TempRepo;
  runDir: string;
  start: string;
  worktrees: () => RunWorktrees;
}> {
  const repo = await makeTempRepo({ files: { "src/sum.js": "main\n" }, commit: true });
  cleanups.push(() => repo.cleanup());
  const hook = join(repo.dir, ".git", "hooks", "post-checkout");
  mkdirSync(join(repo.dir, ".git", "hooks"), { recursive: true });
  writeFileSync(hook, `#!/bin/sh\ntouch "${join(repo.dir, "hook-ran")}"\n`);
  chmodSync(hook, 0o755);
  const runDir = join(repo.dir, ".evidence-gate", "runs", RUN_ID);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(repo.dir, ".evidence-gate", "runs", ".gitignore"), "*\n");
  const start = await repo.git(["rev-parse", "HEAD"]);
  const worktrees = () =>
    new RunWorktrees({
      repoDir: repo.dir,
      runDir,
      runId: RUN_ID,
      startCommit: start,
      baseEnv: hermeticGitEnv,
    });
  return { repo, runDir, start, worktrees };
}

/** The paths of `git worktree list`, the main working tree first. */
async function listed(repo: TempRepo): Promise<string[]> {
  const out = await repo.git(["worktree", "list", "--porcelain"]);
  return out
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

test("two names are two checkouts of the starting commit, one each however many ask at once; close commits, removes, prunes; the branches stay", async () => {
  const { repo, runDir, start, worktrees } = await setUp();
  const trees = worktrees();
  const [a, again, b, idle] = await Promise.all([
    trees.acquire("lane-a"),
    trees.acquire("lane-a"),
    trees.acquire("lane-b"),
    trees.acquire("idle"),
  ]);
  expect(a).toEqual({
    name: "lane-a",
    path: join(runDir, "worktrees", "lane-a"),
    branch: `evidence-gate/${RUN_ID}/lane-a`,
    origin: "created",
  });
  expect(again).toBe(a);
  expect(idle.origin).toBe("created");
  expect(b.path).toBe(join(runDir, "worktrees", "lane-b"));
  expect(await listed(repo)).toHaveLength(4);
  expect(existsSync(join(repo.dir, "hook-ran")), "the repository's post-checkout hook ran").toBe(false);
  // The same file, edited in both at once: each checkout holds its own.
  writeFileSync(join(a.path, "src", "sum.js"), "lane a\n");
  writeFileSync(join(b.path, "src", "sum.js"), "lane b\n");
  writeFileSync(join(b.path, "new.txt"), "untracked\n");
  expect(readFileSync(join(repo.dir, "src", "sum.js"), "utf8")).toBe("main\n");
  // The main working tree does not see the checkouts (the runs folder is ignored).
  expect(await repo.git(["status", "--porcelain"])).toBe("");

  const closed = await trees.close();

  expect(
    closed.map(({ name, commit, removed }) => [name, commit === null ? null : "commit", removed]),
  ).toEqual([
    ["idle", null, true],
    ["lane-a", "commit", true],
    ["lane-b", "commit", true],
  ]);
  expect(await listed(repo)).toEqual([await repo.git(["rev-parse", "--show-toplevel"])]);
  expect(existsSync(join(runDir, "worktrees")), "the run directory keeps no checkout").toBe(false);
  expect(await repo.git(["show", `evidence-gate/${RUN_ID}/lane-a:src/sum.js`])).toBe("lane a");
  expect(await repo.git(["show", `evidence-gate/${RUN_ID}/lane-b:src/sum.js`])).toBe("lane b");
  expect(await repo.git(["show", `evidence-gate/${RUN_ID}/lane-b:new.txt`])).toBe("untracked");
  expect(await repo.git(["rev-parse", `evidence-gate/${RUN_ID}/idle`])).toBe(start);
  expect(await repo.git(["rev-parse", `evidence-gate/${RUN_ID}/lane-a~1`])).toBe(start);
  expect(readFileSync(join(repo.dir, "src", "sum.js"), "utf8")).toBe("main\n");
  expect(() => trees.acquire("lane-a")).toThrow("asked for after close");
});

test("a later leg adds the worktree back from its branch; a checkout an interrupted leg left is reused as it is, a stale registration pruned", async () => {
  const { repo, runDir, worktrees } = await setUp();
  const first = worktrees();
  writeFileSync(join((await first.acquire("lane")).path, "src", "sum.js"), "leg 1\n");
  await first.close();

  // Resumed: back from the branch, with leg 1's change.
  const second = worktrees();
  const back = await second.acquire("lane");
  expect(back.origin).toBe("branch");
  expect(readFileSync(join(back.path, "src", "sum.js"), "utf8")).toBe("leg 1\n");
  writeFileSync(join(back.path, "src", "sum.js"), "leg 2, interrupted\n");
  // The process dies here: close never runs. The next leg finds the checkout and reuses it.
  const third = worktrees();
  const left = await third.acquire("lane");
  expect(left.origin).toBe("reused");
  expect(readFileSync(join(left.path, "src", "sum.js"), "utf8")).toBe("leg 2, interrupted\n");
  expect((await third.close())[0]?.commit).not.toBeNull();
  expect(await repo.git(["show", `evidence-gate/${RUN_ID}/lane:src/sum.js`])).toBe("leg 2, interrupted");

  // A checkout deleted by hand (no close) leaves a registration behind: it is pruned, and the worktree
  // added back from its branch; a folder git does not know (a half-made checkout) is replaced.
  const fourth = worktrees();
  rmSync((await fourth.acquire("lane")).path, { recursive: true, force: true });
  mkdirSync(join(runDir, "worktrees", "half-made"));
  const fifth = worktrees();
  expect((await fifth.acquire("lane")).origin).toBe("branch");
  expect((await fifth.acquire("half-made")).origin).toBe("created");
  expect(await fifth.close()).toEqual([
    { name: "half-made", branch: `evidence-gate/${RUN_ID}/half-made`, commit: null, removed: true },
    { name: "lane", branch: `evidence-gate/${RUN_ID}/lane`, commit: null, removed: true },
  ]);
  expect(await listed(repo)).toHaveLength(1);
  expect(existsSync(join(runDir, "worktrees"))).toBe(false);
});

test("a worktree git cannot make fails with a message naming it, its path and branch, and git's reason", async () => {
  const scratch = mkdtempSync(join(tmpdir(), "eg-wt-bad-"));
  cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
  const trees = new RunWorktrees({
    repoDir: scratch, // not a git repository
    runDir: scratch,
    runId: RUN_ID,
    startCommit: "0".repeat(40),
    baseEnv: hermeticGitEnv,
  });
  await expect(trees.acquire("lane")).rejects.toThrow(
    `worktree "lane" could not be created at ${join(scratch, "worktrees", "lane")} on branch evidence-gate/${RUN_ID}/lane: git worktree prune failed`,
  );
  expect(await trees.close()).toEqual([]);
});
