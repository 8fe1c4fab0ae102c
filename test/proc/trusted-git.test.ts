/**
 * The trusted git directory (issue 21 item 1, ADR 0012): inside its scope, the engine's git reads nothing a
 * pull request could write into the checkout's `.git/` — no planted fsmonitor, filter, hook, external diff
 * or include runs, and a lying fsmonitor cannot make the evidence tree the start tree. Real repositories,
 * real git, real planted programs (shell scripts that write a marker).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { appendFile, chmod, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findDirtySubmodules } from "../../src/evidence/evidence-gaps.js";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { commitWorkingTree, workingTreePatch } from "../../src/evidence/patch.js";
import { git } from "../../src/proc/git.js";
import {
  checkoutProgramPins,
  engineGitCall,
  guardCheckoutConfiguration,
  PINNED_EVERYWHERE,
  type TrustedGitDir,
  withTrustedGit,
} from "../../src/proc/trusted-git.js";
import { makeTrustedGitDir, removeTrustedGitDir } from "../../src/proc/trusted-git-dir.js";
import { commitAll, hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

let repo: TempRepo;
let scratch: string;
let markers: string;

beforeEach(async () => {
  repo = await makeTempRepo({ commit: false, files: { "a.txt": "one\n", "b.txt": "two\n" } });
  await commitAll(repo, "initial");
  scratch = await mkdtemp(join(tmpdir(), "evidence-gate-trusted-test-"));
  markers = join(scratch, "markers");
  await mkdir(markers);
});

afterEach(async () => {
  await repo.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

const context = () => ({ baseEnv: hermeticGitEnv, knownSecrets: [] as string[] });

/** A shell script that records it ran (`<markers>/<name>`), then behaves as `body` says. */
async function program(name: string, body = ""): Promise<string> {
  const path = join(scratch, `${name}.sh`);
  await writeFile(path, `#!/bin/sh\necho "$(id -u)" > '${join(markers, name)}'\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/**
 * What a verify command can do to the checkout's `.git/` (`gitDir`): an fsmonitor that says nothing
 * changed (a lying one), a clean filter for every file, a hooks path with every hook, an external diff and
 * a textconv, all through an included file too.
 */
async function plant(gitDir: string, workTree: string): Promise<void> {
  // Protocol 2 of the fsmonitor hook: print a token and a NUL, then no path: "nothing changed".
  const fsmonitor = await program("fsmonitor", "printf 'token\\0'");
  const clean = await program("filter", "cat");
  const diff = await program("diff");
  const textconv = await program("textconv", 'cat "$1"');
  const hooks = join(scratch, "hooks");
  await mkdir(hooks);
  for (const hook of [
    "pre-commit",
    "post-index-change",
    "reference-transaction",
    "post-checkout",
    "pre-push",
  ]) {
    await writeFile(join(hooks, hook), `#!/bin/sh\necho "$(id -u)" > '${join(markers, `hook-${hook}`)}'\n`);
    await chmod(join(hooks, hook), 0o755);
  }
  const included = join(scratch, "included.config");
  await writeFile(included, `[core]\n\tfsmonitor = ${fsmonitor}\n\thooksPath = ${hooks}\n`);
  const config = [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tbare = false",
    `\tfsmonitor = ${fsmonitor}`,
    `\thooksPath = ${hooks}`,
    '[filter "x"]',
    `\tclean = ${clean}`,
    `\tsmudge = ${clean}`,
    "\trequired = true",
    '[diff "t"]',
    `\ttextconv = ${textconv}`,
    "[diff]",
    `\texternal = ${diff}`,
    "[include]",
    `\tpath = ${included}`,
  ].join("\n");
  await writeFile(join(gitDir, "config"), `${config}\n`);
  await writeFile(join(workTree, ".gitattributes"), "* filter=x diff=t\n");
}

/**
 * git run the way the pull request's own code runs it in the checkout (no engine pins), as the test itself;
 * `scratchIndex`: `git add -A` into a copy of the checkout's index first, then the command.
 */
function rawGit(args: readonly string[], scratchIndex = false): string {
  const env: NodeJS.ProcessEnv = { ...hermeticGitEnv } as NodeJS.ProcessEnv;
  if (scratchIndex) {
    const index = join(scratch, "scratch-index");
    copyFileSync(join(repo.dir, ".git", "index"), index);
    env.GIT_INDEX_FILE = index;
    execFileSync("git", ["add", "-A"], { cwd: repo.dir, env });
  }
  return execFileSync("git", args, { cwd: repo.dir, env, encoding: "utf8" }).trim();
}

const ran = async (): Promise<string[]> => (await readdir(markers)).sort();

/** The tree git makes of `files` in a fresh repository with no configuration at all. */
async function expectedTree(files: Record<string, string>): Promise<string> {
  const fresh = await makeTempRepo({ files });
  try {
    await fresh.git(["add", "-A"]);
    return await fresh.git(["write-tree"]);
  } finally {
    await fresh.cleanup();
  }
}

describe("the trusted git directory", () => {
  it("is made 0700 outside the work tree, holds the start commit, and is removed", async () => {
    const head = await repo.git(["rev-parse", "HEAD"]);
    const dir = await makeTrustedGitDir({ workspace: repo.dir, parent: join(scratch, "runs"), ...context() });
    expect(dir.startCommit).toBe(head);
    expect((await stat(dir.home)).mode & 0o777).toBe(0o700);
    expect(dir.gitDir.startsWith(repo.dir)).toBe(false);
    await withTrustedGit(dir, async () => {
      expect(await git(["rev-parse", "HEAD"], { cwd: repo.dir, ...context() })).toBe(head);
      expect(await git(["rev-parse", "--absolute-git-dir"], { cwd: repo.dir, ...context() })).toBe(
        dir.gitDir,
      );
    });
    await removeTrustedGitDir(dir);
    await expect(stat(dir.home)).rejects.toThrow(/ENOENT/);
  });

  it("runs no planted fsmonitor, filter, hook, external diff or textconv, and a lying fsmonitor forges nothing", async () => {
    const dir = await makeTrustedGitDir({ workspace: repo.dir, parent: join(scratch, "runs"), ...context() });
    try {
      // The pull request's code: plant, then change a file.
      await plant(join(repo.dir, ".git"), repo.dir);
      // The liar's token is stored in the checkout's index (as the pull request's own `git status` would).
      rawGit(["status"]);
      await new Promise((r) => setTimeout(r, 1100));
      await repo.write("a.txt", "changed\n");
      // The lie is live: git in the checkout does not see the change to a.txt (a forged tree).
      expect(rawGit(["write-tree"], true)).toBe(
        await expectedTree({ "a.txt": "one\n", "b.txt": "two\n", ".gitattributes": "* filter=x diff=t\n" }),
      );
      await rm(markers, { recursive: true });
      await mkdir(markers);
      const files = { "a.txt": "changed\n", "b.txt": "two\n", ".gitattributes": "* filter=x diff=t\n" };
      const start = await repo.git(["rev-parse", "HEAD"]).catch(() => null);
      await withTrustedGit(dir, async () => {
        const tree = await evidenceTree(repo.dir, context());
        expect(tree).toBe(await expectedTree(files));
        const patch = await workingTreePatch(repo.dir, dir.startCommit as string, context());
        expect(patch.files).toEqual([".gitattributes", "a.txt"]);
        const sha = await commitWorkingTree(repo.dir, { ...context(), message: "nodes", tree });
        expect(typeof sha).toBe("string");
        expect(await git(["rev-parse", "HEAD^{tree}"], { cwd: repo.dir, ...context() })).toBe(tree);
      });
      expect(await ran()).toEqual([]);
      // The checkout's own HEAD did not move: the commit is the trusted directory's.
      expect(start).not.toBeNull();
    } finally {
      await removeTrustedGitDir(dir);
    }
  });

  it("outside its scope the same plant does run (the planted programs are real)", async () => {
    await plant(join(repo.dir, ".git"), repo.dir);
    await repo.write("a.txt", "changed\n");
    await evidenceTree(repo.dir, context());
    // fsmonitor and hooks are pinned off everywhere; a filter is the user's own configuration outside it.
    expect(await ran()).toContain("filter");
    expect(await ran()).not.toContain("fsmonitor");
  });

  it("in the action before its scope (the checkout read as it is), the same plant runs nothing: the checkout's filter drivers are pinned empty, and the tree is the true one", async () => {
    await plant(join(repo.dir, ".git"), repo.dir);
    await repo.write("a.txt", "changed\n");
    guardCheckoutConfiguration();
    try {
      const tree = await evidenceTree(repo.dir, context());
      expect(await ran()).toEqual([]);
      expect(tree).toBe(
        await expectedTree({
          "a.txt": "changed\n",
          "b.txt": "two\n",
          ".gitattributes": "* filter=x diff=t\n",
        }),
      );
    } finally {
      guardCheckoutConfiguration(false);
    }
    // The plant is live: unguarded, the same call runs the checkout's filter.
    await evidenceTree(repo.dir, context());
    expect(await ran()).toContain("filter");
  });

  it("holds when the pull request renames .git and puts its own", async () => {
    const dir = await makeTrustedGitDir({ workspace: repo.dir, parent: join(scratch, "runs"), ...context() });
    try {
      await rename(join(repo.dir, ".git"), join(scratch, "moved-git"));
      await mkdir(join(repo.dir, ".git"));
      await git(["init", "--quiet", join(repo.dir, "elsewhere")], { cwd: scratch, baseEnv: hermeticGitEnv });
      await rename(join(repo.dir, "elsewhere", ".git"), join(repo.dir, ".git-new"));
      await rm(join(repo.dir, ".git"), { recursive: true });
      await rename(join(repo.dir, ".git-new"), join(repo.dir, ".git"));
      await rm(join(repo.dir, "elsewhere"), { recursive: true });
      await plant(join(repo.dir, ".git"), repo.dir);
      await withTrustedGit(dir, async () => {
        const tree = await evidenceTree(repo.dir, context());
        expect(tree).toBe(
          await expectedTree({ "a.txt": "one\n", "b.txt": "two\n", ".gitattributes": "* filter=x diff=t\n" }),
        );
      });
      expect(await ran()).toEqual([]);
    } finally {
      await removeTrustedGitDir(dir);
    }
  });

  it("keeps the checkout's uncommitted state at its making in the evidence tree", async () => {
    await repo.write("new.txt", "untracked\n");
    const dir = await makeTrustedGitDir({ workspace: repo.dir, parent: join(scratch, "runs"), ...context() });
    try {
      const tree = await withTrustedGit(dir, () => evidenceTree(repo.dir, context()));
      expect(tree).toBe(await expectedTree({ "a.txt": "one\n", "b.txt": "two\n", "new.txt": "untracked\n" }));
    } finally {
      await removeTrustedGitDir(dir);
    }
  });
});

describe("a submodule's git directory (the pull request can write it too)", () => {
  /** A superproject whose `lib/` submodule's git directory has a planted clean filter on every file. */
  async function plantedSubmodule(): Promise<TempRepo> {
    const sub = await makeTempRepo({ commit: true, files: { "sum.js": "a - b\n" } });
    const top = repo;
    await top.git(["-c", "protocol.file.allow=always", "submodule", "add", "--quiet", sub.dir, "lib"]);
    await commitAll(top, "add lib");
    await sub.cleanup();
    const clean = await program("submodule-filter", "cat");
    await appendFile(join(top.dir, ".git", "modules", "lib", "config"), `[filter "x"]\n\tclean = ${clean}\n`);
    await top.write("lib/.gitattributes", "* filter=x\n");
    await top.write("lib/sum.js", "a + b\n");
    return top;
  }

  it("in the trusted scope, checking submodules runs nothing of the submodule's configuration", async () => {
    const top = await plantedSubmodule();
    const dir = await makeTrustedGitDir({ workspace: top.dir, parent: join(scratch, "runs"), ...context() });
    try {
      const dirty = await withTrustedGit(dir, () => findDirtySubmodules(top.dir, context()));
      // Its uncommitted content is not seen there (ADR 0012: what does not hold).
      expect(dirty).toEqual([]);
      expect(await ran()).toEqual([]);
    } finally {
      await removeTrustedGitDir(dir);
    }
  });

  it("outside it, git status runs the submodule's filter (the plant is live) and reports the submodule", async () => {
    const top = await plantedSubmodule();
    expect(await findDirtySubmodules(top.dir, context())).toEqual(["lib"]);
    expect(await ran()).toContain("submodule-filter");
  });
});

describe("engineGitCall", () => {
  const dir: TrustedGitDir = { gitDir: "/trusted/git", workTree: "/ws", home: "/trusted", startCommit: null };
  const pins = PINNED_EVERYWHERE.flatMap(([k, v]) => ["-c", `${k}=${v}`]);

  it("pins the program-running keys outside a trusted scope and leaves the environment", () => {
    const call = engineGitCall(["status"], { cwd: "/ws", baseEnv: { GIT_DIR: "/x" }, set: {} });
    expect(call.args).toEqual([...pins, "status"]);
    expect(call.trusted).toBe(false);
    expect(call.baseEnv).toEqual({ GIT_DIR: "/x" });
  });

  it("routes a call in the work tree to the trusted directory, without the job's GIT_* variables", async () => {
    await withTrustedGit(dir, async () => {
      const call = engineGitCall(["add", "-A"], {
        cwd: "/ws/sub",
        baseEnv: { GIT_DIR: "/x", GIT_CONFIG_PARAMETERS: "'core.fsmonitor=/evil'", PATH: "/bin" },
        set: { GIT_INDEX_FILE: "/tmp/i" },
      });
      expect(call.trusted).toBe(true);
      expect(call.args.slice(0, 2)).toEqual(["--git-dir=/trusted/git", "--work-tree=/ws"]);
      expect(call.args).toContain("core.attributesFile=/dev/null");
      expect(call.args.slice(-2)).toEqual(["add", "-A"]);
      expect(call.baseEnv).toEqual({ PATH: "/bin" });
      expect(call.set).toMatchObject({
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_INDEX_FILE: "/tmp/i",
        HOME: "/trusted",
      });
    });
  });

  it("pins each filter driver and remote program the checkout's own configuration names, and nothing of the operator's", () => {
    const listed = [
      "local\tfilter.x.clean",
      "worktree\tfilter.My.Driver.smudge",
      "system\tfilter.lfs.process",
      "global\tremote.origin.uploadpack",
      "local\tremote.origin.uploadpack",
      "local\tremote.up.stream.receivepack",
      "local\tremote.origin.url",
    ].join("\n");
    expect(checkoutProgramPins(listed)).toEqual(
      [
        "filter.x.clean=",
        "filter.x.smudge=",
        "filter.x.process=",
        "filter.x.required=false",
        "filter.My.Driver.clean=",
        "filter.My.Driver.smudge=",
        "filter.My.Driver.process=",
        "filter.My.Driver.required=false",
        "remote.origin.uploadpack=git-upload-pack",
        "remote.up.stream.receivepack=git-receive-pack",
      ].flatMap((pin) => ["-c", pin]),
    );
  });

  it("does not route a call outside the work tree (the push repository)", async () => {
    await withTrustedGit(dir, async () => {
      const call = engineGitCall(["push"], { cwd: "/elsewhere", baseEnv: {}, set: {} });
      expect(call.trusted).toBe(false);
      expect(call.args).toEqual([...pins, "push"]);
    });
  });
});
