/**
 * `src/proc/checkout-git.ts` on real git repositories in temp folders: what is written into, or put in place
 * of, a recorded `.git` is put back by {@link restoreCheckoutGit}. The privileged `chmod` runs as the test's
 * own user (`via: "root"` runs it as is), which owns the folders. The separate user itself, the lock and the
 * runner's git after the action are measured by `test/e2e/action-checkout-git.root.test.ts`.
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import {
  type CheckoutGitGuard,
  guardCheckoutGit,
  movedCheckoutGits,
  readCheckoutGitGuard,
  restoreCheckoutGit,
} from "../../src/proc/checkout-git.js";
import { git } from "../../src/proc/git.js";
import { withTrustedGit } from "../../src/proc/trusted-git.js";
import { makeTrustedGitDir, removeTrustedGitDir } from "../../src/proc/trusted-git-dir.js";
import { hermeticGitEnv } from "../support/temp-repo.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const IDENTITY = {
  user: "nobody",
  uid: 65534,
  gid: 65534,
  via: "root",
  setpriv: "/usr/bin/setpriv",
} as const;

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A repository with one commit, a submodule-like git directory under `.git/modules/lib`, and its gitfile. */
function checkout(): { workspace: string; guard: CheckoutGitGuard } {
  const workspace = temp("eg-checkout-git-");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, env: hermeticGitEnv });
  git("init", "--quiet", "-b", "main");
  writeFileSync(join(workspace, "a.txt"), "a\n");
  git("add", "a.txt");
  // `-c maintenance.auto=false` for this commit only: no `git maintenance run --auto` child, and nothing
  // written to the configuration the guard reads.
  git("-c", "maintenance.auto=false", "commit", "--quiet", "-m", "one");
  const module = join(workspace, ".git", "modules", "lib");
  mkdirSync(join(workspace, ".git", "modules"), { recursive: true });
  execFileSync("git", ["init", "--quiet", "--bare", module], { env: hermeticGitEnv });
  mkdirSync(join(workspace, "lib"));
  writeFileSync(join(workspace, "lib", ".git"), "gitdir: ../.git/modules/lib\n");
  const guard = guardCheckoutGit(IDENTITY, workspace, join(temp("eg-checkout-snap-"), "s"));
  if (typeof guard === "string") throw new Error(guard);
  return { workspace, guard };
}

describe("the checkout's git directories, put back", () => {
  it("records every .git (the checkout's folder, a submodule's gitfile) and takes group write off them", () => {
    const { workspace, guard } = checkout();
    expect(guard.entries.map((e) => [e.path, e.kind]).sort()).toEqual([
      [join(workspace, ".git"), "dir"],
      [join(workspace, "lib", ".git"), "file"],
    ]);
    expect(statSync(join(workspace, ".git", "config")).mode & 0o020).toBe(0);
    expect(statSync(join(workspace, ".git", "hooks")).mode & 0o020).toBe(0);
    expect(readCheckoutGitGuard(guard.snapshot)).toEqual(guard);
  });

  it("config, config.worktree, a hook, info/attributes and a submodule's config written in place are put back", () => {
    const { workspace, guard } = checkout();
    const gitDir = join(workspace, ".git");
    const config = readFileSync(join(gitDir, "config"), "utf8");
    const moduleConfig = readFileSync(join(gitDir, "modules", "lib", "config"), "utf8");
    writeFileSync(join(gitDir, "config"), `${config}[core]\n\tfsmonitor = /tmp/evil\n`);
    writeFileSync(join(gitDir, "config.worktree"), "[core]\n\thooksPath = /tmp/evil\n");
    writeFileSync(join(gitDir, "hooks", "post-checkout"), "#!/bin/sh\n", { mode: 0o755 });
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeFileSync(join(gitDir, "info", "attributes"), "* filter=x\n");
    writeFileSync(join(gitDir, "modules", "lib", "config"), "[core]\n\tfsmonitor = /tmp/evil\n");
    const put = restoreCheckoutGit(guard);
    expect(put.problems).toEqual([]);
    expect(put.restored).toEqual([".git (changed)"]);
    expect(readFileSync(join(gitDir, "config"), "utf8")).toBe(config);
    expect(existsSync(join(gitDir, "config.worktree"))).toBe(false);
    expect(existsSync(join(gitDir, "hooks", "post-checkout"))).toBe(false);
    expect(existsSync(join(gitDir, "info", "attributes"))).toBe(false);
    expect(readFileSync(join(gitDir, "modules", "lib", "config"), "utf8")).toBe(moduleConfig);
    // A second pass finds nothing to do.
    expect(restoreCheckoutGit(guard)).toEqual({ restored: [], problems: [] });
  });

  it("a .git the pull request's code made where there was none (a folder its commit declares a submodule) is removed (fourth attack)", () => {
    const { workspace, guard } = checkout();
    mkdirSync(join(workspace, "sub"));
    execFileSync("git", ["init", "--quiet", join(workspace, "sub")], { env: hermeticGitEnv });
    writeFileSync(join(workspace, "sub", ".git", "config"), "[core]\n\tfsmonitor = /tmp/evil\n");
    const put = restoreCheckoutGit(guard);
    expect(put.problems).toEqual([]);
    expect(put.restored).toEqual(["sub/.git (made by the pull request's code: removed)"]);
    expect(existsSync(join(workspace, "sub", ".git"))).toBe(false);
    expect(existsSync(join(workspace, ".git", "config"))).toBe(true);
    expect(readFileSync(join(workspace, "lib", ".git"), "utf8")).toBe("gitdir: ../.git/modules/lib\n");
  });

  it("a recorded .git's folder replaced by a link: the link goes (never what it names), and the .git comes back in a real folder (fourth attack)", () => {
    const { workspace, guard } = checkout();
    const victim = temp("eg-checkout-victim-");
    mkdirSync(join(victim, ".git"));
    writeFileSync(join(victim, ".git", "ROOTS-FILE"), "keep\n");
    renameSync(join(workspace, "lib"), join(workspace, "lib2"));
    symlinkSync(victim, join(workspace, "lib"));
    const put = restoreCheckoutGit(guard);
    expect(put.problems).toEqual([]);
    expect(readFileSync(join(victim, ".git", "ROOTS-FILE"), "utf8")).toBe("keep\n");
    expect(lstatSync(join(workspace, "lib")).isDirectory()).toBe(true);
    expect(readFileSync(join(workspace, "lib", ".git"), "utf8")).toBe("gitdir: ../.git/modules/lib\n");
  });

  it("a .git renamed aside is left out of the engine's trees while the run lasts (committed, it would publish the checkout's config)", async () => {
    const { workspace, guard } = checkout();
    const context = { baseEnv: hermeticGitEnv, knownSecrets: [] as string[] };
    const trusted = await makeTrustedGitDir({ workspace, parent: temp("eg-checkout-runs-"), ...context });
    try {
      const gitDir = join(workspace, ".git");
      cpSync(gitDir, join(workspace, "copy"), { recursive: true });
      renameSync(gitDir, join(workspace, ".git.orig"));
      renameSync(join(workspace, "copy"), gitDir);
      renameSync(join(workspace, "lib", ".git"), join(workspace, "lib", "gitfile"));
      writeFileSync(join(workspace, "b.txt"), "the node's work\n");
      expect(movedCheckoutGits(guard).sort()).toEqual(
        [join(workspace, ".git.orig"), join(workspace, "lib", "gitfile")].sort(),
      );
      const files = async (hidden: () => readonly string[]) =>
        withTrustedGit(
          trusted,
          async () => {
            const tree = await evidenceTree(workspace, context);
            return (
              await git(["ls-tree", "-r", "--name-only", tree], { cwd: workspace, baseEnv: hermeticGitEnv })
            )
              .split("\n")
              .filter((line) => line !== "");
          },
          hidden,
        );
      // Without the guard's list the moved directory would be the nodes' work (the bug this test pins).
      expect(await files(() => [])).toEqual(expect.arrayContaining([".git.orig/HEAD", "lib/gitfile"]));
      expect(await files(() => movedCheckoutGits(guard))).toEqual(["a.txt", "b.txt"]);
    } finally {
      await removeTrustedGitDir(trusted);
    }
  });

  it(".git renamed aside and a copy with plants in its place: the original comes back, the copy is gone", () => {
    const { workspace, guard } = checkout();
    const gitDir = join(workspace, ".git");
    const ino = lstatSync(gitDir).ino;
    cpSync(gitDir, join(workspace, "copy"), { recursive: true });
    renameSync(gitDir, join(workspace, ".git.orig"));
    renameSync(join(workspace, "copy"), gitDir);
    writeFileSync(join(gitDir, "config"), "[core]\n\tfsmonitor = /tmp/evil\n");
    const put = restoreCheckoutGit(guard);
    expect(put.problems).toEqual([]);
    expect(put.restored).toContain(".git (replaced)");
    expect(lstatSync(gitDir).ino).toBe(ino);
    expect(existsSync(join(workspace, ".git.orig"))).toBe(false);
    expect(readFileSync(join(gitDir, "config"), "utf8")).not.toContain("fsmonitor");
  });

  it(".git replaced by a symbolic link, and a submodule's gitfile rewritten or removed: each is put back", () => {
    const { workspace, guard } = checkout();
    const gitDir = join(workspace, ".git");
    const ino = lstatSync(gitDir).ino;
    renameSync(gitDir, join(workspace, "elsewhere"));
    symlinkSync(temp("eg-evil-git-"), gitDir);
    writeFileSync(join(workspace, "lib", ".git"), "gitdir: /tmp/evil\n");
    expect(restoreCheckoutGit(guard).problems).toEqual([]);
    expect(lstatSync(gitDir).ino).toBe(ino);
    expect(readFileSync(join(workspace, "lib", ".git"), "utf8")).toBe("gitdir: ../.git/modules/lib\n");
    rmSync(join(workspace, "lib", ".git"));
    expect(restoreCheckoutGit(guard).problems).toEqual([]);
    expect(readFileSync(join(workspace, "lib", ".git"), "utf8")).toBe("gitdir: ../.git/modules/lib\n");
  });
});
