import { createHash } from "node:crypto";
import { chmod, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  describeStartingCommit,
  evidenceTree,
  NoCommitError,
  NotAGitRepositoryError,
  startingCommit,
} from "../../src/evidence/evidence-tree.js";
import { git as runGit } from "../../src/proc/git.js";
import {
  hermeticGitEnv,
  makeMergeCheckout,
  makeTempRepo,
  type TempRepo,
  tempRepoAt,
} from "../support/temp-repo.js";

const context = { baseEnv: hermeticGitEnv };
const repos: TempRepo[] = [];
async function repo(options: Parameters<typeof makeTempRepo>[0]): Promise<TempRepo> {
  const r = await makeTempRepo(options);
  repos.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.cleanup()));
});

const files = {
  "README.md": "hello\n",
  "src/a.js": "export const a = 1;\n",
  ".gitignore": "build/\n*.log\n",
};

describe("evidenceTree", () => {
  it("on a clean checkout equals HEAD's tree", async () => {
    const r = await repo({ files, commit: true });
    expect(await evidenceTree(r.dir, context)).toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("changes after an edit to a tracked file, and equals the tree git would commit", async () => {
    const r = await repo({ files, commit: true });
    const before = await evidenceTree(r.dir, context);
    await r.write("src/a.js", "export const a = 2;\n");
    const after = await evidenceTree(r.dir, context);
    expect(after).not.toBe(before);
    await r.git(["add", "-A"]);
    expect(after).toBe(await r.git(["write-tree"]));
  });

  it("includes an untracked file", async () => {
    const r = await repo({ files, commit: true });
    await r.write("notes/new.txt", "untracked\n");
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["ls-tree", "-r", "--name-only", tree])).toContain("notes/new.txt");
  });

  it("ignores .gitignored files, so build outputs do not change it", async () => {
    const r = await repo({ files, commit: true });
    const clean = await evidenceTree(r.dir, context);
    await r.write("build/out.bin", "artifact\n");
    await r.write("debug.log", "noise\n");
    expect(await evidenceTree(r.dir, context)).toBe(clean);
  });

  it("includes an unstaged deletion of a tracked file", async () => {
    const r = await repo({ files, commit: true });
    await rm(join(r.dir, "README.md"));
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["ls-tree", "-r", "--name-only", tree])).not.toContain("README.md");
  });

  it("sees a same-size edit whose stat data matches the index entry (git's racy-clean rule still applies)", async () => {
    // Deterministic racy-git setup: whole-second mtimes, ctime ignored, and the index no newer than the
    // entry, so only git's racy-clean check (entry mtime >= index mtime) can reveal the edit.
    const r = await repo({ files });
    await r.git(["config", "core.trustctime", "false"]);
    const second = Math.floor(Date.now() / 1000) - 60;
    await utimes(join(r.dir, "src/a.js"), second, second);
    await r.git(["add", "-A"]);
    await r.git(["commit", "--quiet", "-m", "initial"]);
    await r.write("src/a.js", "export const a = 9;\n");
    await utimes(join(r.dir, "src/a.js"), second, second);
    await utimes(join(r.dir, ".git", "index"), second, second);
    expect(await r.git(["--no-optional-locks", "status", "--porcelain", "--", "src/a.js"])).toContain(
      "src/a.js",
    );

    expect(await evidenceTree(r.dir, context)).not.toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("leaves the user's .git/index byte-identical, staged and unstaged changes included", async () => {
    const r = await repo({ files, commit: true });
    await r.write("src/a.js", "export const a = 3;\n");
    await r.git(["add", "src/a.js"]);
    await r.write("README.md", "edited, not staged\n");
    await r.write("untracked.txt", "new\n");
    const indexPath = join(r.dir, ".git", "index");
    const before = await readFile(indexPath);
    const statusBefore = await r.git(["status", "--porcelain"]);

    const tree = await evidenceTree(r.dir, context);

    expect(Buffer.compare(await readFile(indexPath), before)).toBe(0);
    expect(await r.git(["status", "--porcelain"])).toBe(statusBefore);
    expect(await r.git(["ls-tree", "-r", "--name-only", tree])).toContain("untracked.txt");
  });

  it("is the same from a subdirectory as from the root (it covers the whole work tree)", async () => {
    const r = await repo({ files, commit: true });
    await r.write("top.txt", "new at the top\n");
    expect(await evidenceTree(join(r.dir, "src"), context)).toBe(await evidenceTree(r.dir, context));
  });

  it("works before the first commit, from the files alone", async () => {
    const r = await repo({ files });
    const tree = await evidenceTree(r.dir, context);
    expect((await r.git(["ls-tree", "-r", "--name-only", tree])).split("\n").sort()).toEqual(
      [".gitignore", "README.md", "src/a.js"].sort(),
    );
  });

  it("names the directory and says git is needed when the directory is not a git repository", async () => {
    const r = await repo({ files, noGit: true });
    const error = await evidenceTree(r.dir, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAGitRepositoryError);
    expect((error as Error).message).toContain(r.dir);
    expect((error as Error).message).toContain("not inside a git working tree");
  });

  it("a directory that does not exist is reported as such, not as a git crash", async () => {
    const r = await repo({ files, noGit: true });
    const error = await evidenceTree(join(r.dir, "missing"), context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAGitRepositoryError);
    expect((error as Error).message).toContain("does not exist");
  });
});

/**
 * The evidence tree never reads the repository's index: its entries start from `HEAD` (or the engine's own
 * index of the last tree of that work tree), and `git add -A` reads the files. What shows it: a tracked file
 * that matches `.gitignore` and was `git rm --cached` (a staged deletion) is still on disk, so it is in the
 * tree, as `HEAD` has it — from the top folder, a sub-folder, a link to one, a linked worktree (whose index
 * lies under the main repository's `.git/worktrees/`) and a folder whose name holds a newline.
 */
describe("evidenceTree takes the files on disk, whatever the repository's index says", () => {
  async function repoWithStagedIgnoredDeletion(): Promise<TempRepo> {
    const r = await repo({ files, commit: true });
    await r.write("build/kept.bin", "committed before it was ignored\n");
    await r.git(["add", "-f", "build/kept.bin"]);
    await r.git(["commit", "--quiet", "-m", "keep"]);
    await r.git(["rm", "--cached", "--quiet", "build/kept.bin"]);
    return r;
  }
  const names = async (r: TempRepo, tree: string) =>
    (await r.git(["ls-tree", "-r", "--name-only", tree])).split("\n");

  it("from the top folder and from a sub-folder alike", async () => {
    const r = await repoWithStagedIgnoredDeletion();
    const fromTop = await evidenceTree(r.dir, context);
    expect(await names(r, fromTop)).toContain("build/kept.bin");
    expect(fromTop).toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
    expect(await evidenceTree(join(r.dir, "src"), context)).toBe(fromTop);
  });

  it("from a symbolic link to a sub-folder (git answers relative to the real folder)", async () => {
    const r = await repoWithStagedIgnoredDeletion();
    const outside = await repo({ files, noGit: true });
    const link = join(outside.dir, "link-to-src");
    await symlink(join(r.dir, "src"), link);
    const tree = await evidenceTree(link, context);
    expect(tree).toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
    expect(tree).toBe(await evidenceTree(r.dir, context));
  });

  it("in a linked worktree, whose index is outside its work tree, from a sub-folder: its own HEAD", async () => {
    const r = await repo({ files, commit: true });
    const linked = join(r.dir, ".linked");
    await r.write(".git/info/exclude", ".linked/\n");
    await r.git(["worktree", "add", "--quiet", "-b", "side", linked]);
    const w = tempRepoAt(linked);
    await w.write("build/kept.bin", "committed before it was ignored\n");
    await w.git(["add", "-f", "build/kept.bin"]);
    await w.git(["commit", "--quiet", "-m", "keep"]);
    await w.git(["rm", "--cached", "--quiet", "build/kept.bin"]);
    await w.write("src/a.js", "export const a = 2;\n");
    expect(await w.git(["rev-parse", "--git-path", "index"])).toMatch(/^\/.*\/worktrees\/.*index$/);
    const tree = await evidenceTree(join(linked, "src"), context);
    expect(await names(w, tree)).toContain("build/kept.bin");
    expect(await w.git(["cat-file", "blob", `${tree}:src/a.js`])).toBe("export const a = 2;");
    expect(tree).toBe(await evidenceTree(linked, context));
  });

  it("before the first commit, from a sub-folder, with files staged", async () => {
    const r = await repo({ files });
    await r.git(["add", "-A"]);
    await r.write("src/b.js", "untracked\n");
    const tree = await evidenceTree(join(r.dir, "src"), context);
    expect((await names(r, tree)).sort()).toEqual([".gitignore", "README.md", "src/a.js", "src/b.js"]);
  });

  it("in a repository whose folder name holds a newline (git's answer is two lines and more)", async () => {
    const outer = await repo({ files, noGit: true });
    const dir = join(outer.dir, "two\nlines");
    const r = tempRepoAt(dir);
    await r.write("README.md", "hello\n");
    await r.write(".gitignore", "build/\n");
    await r.git(["init", "--quiet", "--initial-branch=main"]);
    await r.git(["add", "-A"]);
    await r.git(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "i"]);
    await r.write("build/kept.bin", "x\n");
    await r.git(["add", "-f", "build/kept.bin"]);
    await r.git(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "k"]);
    await r.git(["rm", "--cached", "--quiet", "build/kept.bin"]);
    await r.write("README.md", "edited\n");
    const tree = await evidenceTree(dir, context);
    expect((await names(r, tree)).sort()).toEqual([".gitignore", "README.md", "build/kept.bin"]);
    expect(await r.git(["cat-file", "blob", `${tree}:README.md`])).toBe("edited");
  });

  it("a repository's git directory is not a work tree: the same error, worded the same", async () => {
    const r = await repo({ files, commit: true });
    const dotGit = join(r.dir, ".git");
    const error = await evidenceTree(dotGit, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAGitRepositoryError);
    expect((error as Error).message).toBe(
      `${dotGit} is not inside a git working tree (git rev-parse --show-toplevel found none); evidence-gate records the evidence tree and the starting commit with git. Run it in a checkout (actions/checkout, or git clone / git init).`,
    );
  });
});

describe("evidenceTree reads the index of the repository its tree is written in (attack on this session's merge)", () => {
  // A `.git` planted in the verify's sub-folder: a repository whose `core.worktree` points back at the top
  // folder (so `--show-toplevel` still names it) and whose index marks the edited file assume-unchanged.
  // Asked from the sub-folder, `--git-path index` named that planted index, `git add -A` kept the committed
  // blob and the evidence tree said HEAD while the edited file ran. The index must be the top folder's.
  async function plantedSubRepository(): Promise<TempRepo> {
    const r = await repo({ files: { "pkg/t.sh": "exit 1\n" }, commit: true });
    const planted = join(r.dir, "pkg", ".git");
    await r.git(["init", "--quiet", "--bare", planted]);
    await r.git(["--git-dir", planted, "config", "core.bare", "false"]);
    await r.git(["--git-dir", planted, "config", "core.worktree", "../.."]);
    await writeFile(join(planted, "index"), await readFile(join(r.dir, ".git", "index")));
    await runGit(["update-index", "--assume-unchanged", "pkg/t.sh"], {
      cwd: r.dir,
      baseEnv: hermeticGitEnv,
      set: { GIT_INDEX_FILE: join(planted, "index") },
    });
    await r.write("pkg/t.sh", "exit 0\n");
    return r;
  }

  it("from the sub-folder holding the plant: the tree holds the edited file, not the committed one", async () => {
    const r = await plantedSubRepository();
    const head = await r.git(["rev-parse", "HEAD^{tree}"]);
    const tree = await evidenceTree(join(r.dir, "pkg"), context);
    expect(tree).not.toBe(head);
    expect(await r.git(["cat-file", "blob", `${tree}:pkg/t.sh`])).toBe("exit 0");
    expect(tree).toBe(await evidenceTree(r.dir, context));
  });
});

describe("evidenceTree looks at every file, whatever bits the user's index carries (attack on this session's merge)", () => {
  // `git add -A` trusts an entry marked "assume unchanged" or "skip-worktree" and does not read its file:
  // seeded from an index carrying either bit, the tree named the committed blob while the edit ran.
  for (const bit of ["--assume-unchanged", "--skip-worktree"] as const) {
    it(`an edited file marked ${bit} in the user's index is in the tree as it is on disk; the user's index keeps the bit`, async () => {
      const r = await repo({ files: { "t.sh": "exit 1\n", "other.txt": "x\n" }, commit: true });
      await r.git(["update-index", bit, "t.sh"]);
      await r.write("t.sh", "exit 0\n");
      const tree = await evidenceTree(r.dir, context);
      expect(await r.git(["cat-file", "blob", `${tree}:t.sh`])).toBe("exit 0");
      expect(tree).not.toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
      const tag = (await r.git(["ls-files", "-v", "t.sh"]))[0];
      expect(tag).toBe(bit === "--assume-unchanged" ? "h" : "S");
    });
  }
});

/**
 * `git add -A` trusts an index entry whose stat data matches its file, and reads nothing. The repository's
 * index and `.git/config` are written by whoever ran in the checkout, so neither may decide what the tree
 * holds (found 2026-12-06: an index entry with the edited file's stat data and the committed blob's id made
 * the CLI say "verified on this commit" while the edit ran).
 */
describe("evidenceTree trusts no stat data the pull request could have written", () => {
  /** Rewrites the object id of `path`'s entry in `.git/index` to `oid`, checksum redone; stat data kept. */
  async function forgeIndexEntry(r: TempRepo, path: string, oid: string): Promise<void> {
    await r.git(["add", path]);
    const staged = await r.git(["rev-parse", `:${path}`]);
    const file = join(r.dir, ".git", "index");
    const bytes = Buffer.from(await readFile(file));
    const at = bytes.indexOf(Buffer.from(staged, "hex"));
    expect(at).toBeGreaterThan(0);
    Buffer.from(oid, "hex").copy(bytes, at);
    createHash("sha1")
      .update(bytes.subarray(0, bytes.length - 20))
      .digest()
      .copy(bytes, bytes.length - 20);
    await writeFile(file, bytes);
  }

  it("an index entry with the edited file's stat data and HEAD's blob: the tree holds the edit", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    const committed = await r.git(["rev-parse", "HEAD:t.sh"]);
    await r.write("t.sh", "exit 0\n");
    // An old mtime, so that git's racy-clean rule does not happen to re-read the file.
    const second = Math.floor(Date.now() / 1000) - 60;
    await utimes(join(r.dir, "t.sh"), second, second);
    await forgeIndexEntry(r, "t.sh", committed);
    // git itself is fooled: the edit does not show.
    expect(await r.git(["status", "--porcelain"])).toBe("");
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["cat-file", "blob", `${tree}:t.sh`])).toBe("exit 0");
    expect(tree).not.toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("the same forgery between two trees of one work tree: the second tree holds the edit", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    const committed = await r.git(["rev-parse", "HEAD:t.sh"]);
    expect(await evidenceTree(r.dir, context)).toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
    await r.write("t.sh", "exit 0\n");
    await forgeIndexEntry(r, "t.sh", committed);
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["cat-file", "blob", `${tree}:t.sh`])).toBe("exit 0");
  });

  it("core.ignoreStat in .git/config (add -A would mark what it adds assume-unchanged): a later edit is in the next tree", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    await r.git(["config", "core.ignoreStat", "true"]);
    expect(await evidenceTree(r.dir, context)).toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
    await r.write("t.sh", "exit 0\n");
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["cat-file", "blob", `${tree}:t.sh`])).toBe("exit 0");
  });

  it("core.checkStat=minimal and core.trustctime=false, a same-size edit with its mtime put back: the next tree holds it", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    await r.git(["config", "core.checkStat", "minimal"]);
    await r.git(["config", "core.trustctime", "false"]);
    const second = Math.floor(Date.now() / 1000) - 60;
    await utimes(join(r.dir, "t.sh"), second, second);
    expect(await evidenceTree(r.dir, context)).toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
    await r.write("t.sh", "exit 0\n");
    await utimes(join(r.dir, "t.sh"), second, second);
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["cat-file", "blob", `${tree}:t.sh`])).toBe("exit 0");
  });

  it("a same-size edit in the same second as the last tree (git's racy-clean rule on the engine's own index)", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    for (let round = 0; round < 3; round++) {
      const before = await evidenceTree(r.dir, context);
      await r.write("t.sh", round % 2 === 0 ? "exit 0\n" : "exit 1\n");
      const after = await evidenceTree(r.dir, context);
      expect(after).not.toBe(before);
      expect(await r.git(["cat-file", "blob", `${after}:t.sh`])).toBe(round % 2 === 0 ? "exit 0" : "exit 1");
    }
  });
});

/**
 * Found by an attack on the kept-seed change: each of these let `git add -A` record something other than
 * the files on disk, or take the tree somewhere else, and the run said "verified on this commit". (It also
 * set "assume unchanged" in a seed kept in a folder of the engine's user; seeds are now kept in memory.)
 */
describe("evidenceTree records the files on disk whatever the repository's configuration and the kept seed say", () => {
  it("core.sparseCheckout with patterns that leave a tracked file out: its edit is in the tree", async () => {
    const r = await repo({ files: { "in/a.txt": "a\n", "out/lib.txt": "bad\n" }, commit: true });
    await r.git(["config", "core.sparseCheckout", "true"]);
    await r.write(".git/info/sparse-checkout", "/in/\n");
    await r.write("out/lib.txt", "good\n");
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["cat-file", "blob", `${tree}:out/lib.txt`])).toBe("good");
  });

  it("core.fileMode=false: a chmod +x is in the tree", async () => {
    const r = await repo({ files: { "t.sh": "exit 0\n" }, commit: true });
    await r.git(["config", "core.fileMode", "false"]);
    await chmod(join(r.dir, "t.sh"), 0o755);
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["ls-tree", tree, "t.sh"])).toMatch(/^100755 /);
  });

  it("core.symlinks=false: a link replaced by a file holding its target's name is a file in the tree", async () => {
    const r = await repo({ files: { "target.txt": "x\n" }, commit: false });
    await symlink("target.txt", join(r.dir, "link"));
    await r.git(["add", "-A"]);
    await r.git(["commit", "--quiet", "-m", "link"]);
    await r.git(["config", "core.symlinks", "false"]);
    await rm(join(r.dir, "link"));
    await writeFile(join(r.dir, "link"), "target.txt");
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["ls-tree", tree, "link"])).toMatch(/^100644 /);
  });

  it("core.ignoreCase=true: an untracked file whose name differs from a tracked one only in case is in the tree", async () => {
    const r = await repo({ files: { "lib.txt": "a\n" }, commit: true });
    await r.git(["config", "core.ignoreCase", "true"]);
    await r.write("LIB.txt", "b\n");
    const tree = await evidenceTree(r.dir, context);
    expect(await r.git(["cat-file", "blob", `${tree}:LIB.txt`])).toBe("b");
  });

  it("core.autocrlf without an attribute: CRLF bytes on disk are CRLF in the tree", async () => {
    const r = await repo({ files: { "t.txt": "a\nb\n" }, commit: true });
    await r.git(["config", "core.autocrlf", "input"]);
    await r.write("t.txt", "a\r\nb\r\n");
    const tree = await evidenceTree(r.dir, context);
    expect(tree).not.toBe(await r.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("core.worktree pointing at another folder (a pristine copy of HEAD): no tree, the error says why", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    const copy = await repo({ files: { "t.sh": "exit 1\n" }, noGit: true });
    await r.git(["config", "core.worktree", copy.dir]);
    await r.write("t.sh", "exit 0\n");
    const error = await evidenceTree(r.dir, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotAGitRepositoryError);
    expect((error as Error).message).toContain("core.worktree points elsewhere");
  });
});

describe("startingCommit", () => {
  it("reads HEAD's sha, tree and single parent on a plain checkout", async () => {
    const r = await repo({ files, commit: true });
    await r.write("x.txt", "x\n");
    await r.git(["add", "x.txt"]);
    await r.git(["commit", "--quiet", "-m", "second"]);
    const commit = await startingCommit(r.dir, context);
    expect(commit).toEqual({
      sha: await r.git(["rev-parse", "HEAD"]),
      tree: await r.git(["rev-parse", "HEAD^{tree}"]),
      parents: [await r.git(["rev-parse", "HEAD~1"])],
      isMergeOfHead: false,
    });
  });

  it("reads HEAD's own tree, whatever refs/replace says (a node could replace HEAD with a commit of its edit)", async () => {
    const r = await repo({ files: { "t.sh": "exit 1\n" }, commit: true });
    const head = await r.git(["rev-parse", "HEAD"]);
    const realTree = await r.git(["rev-parse", "HEAD^{tree}"]);
    await r.write("t.sh", "exit 0\n");
    await r.git(["add", "t.sh"]);
    const editedTree = await r.git(["write-tree"]);
    const fake = await r.git(["commit-tree", editedTree, "-m", "fake"]);
    await r.git(["replace", head, fake]);
    expect(await r.git(["replace", "-l"])).toBe(head);
    const commit = await startingCommit(r.dir, context);
    expect(commit.sha).toBe(head);
    expect(commit.tree).toBe(realTree);
  });

  it("recognises GitHub's test merge commit: two parents, the second the PR head", async () => {
    const m = await makeMergeCheckout();
    repos.push(m);
    const commit = await startingCommit(m.dir, { ...context, prHead: m.headSha });
    expect(commit).toMatchObject({ sha: m.mergeSha, parents: [m.baseSha, m.headSha], isMergeOfHead: true });
    expect(commit.tree).toBe(await m.git(["rev-parse", "HEAD^{tree}"]));
  });

  it("a two-parent HEAD whose second parent is not the PR head is not the test merge", async () => {
    const m = await makeMergeCheckout();
    repos.push(m);
    expect((await startingCommit(m.dir, { ...context, prHead: m.baseSha })).isMergeOfHead).toBe(false);
    expect((await startingCommit(m.dir, context)).isMergeOfHead).toBe(false);
  });

  it("refuses a repository with no commit yet, naming it", async () => {
    const r = await repo({ files });
    const error = await startingCommit(r.dir, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoCommitError);
    expect((error as Error).message).toContain(r.dir);
  });

  it("refuses a directory that is not a git repository", async () => {
    const r = await repo({ files, noGit: true });
    await expect(startingCommit(r.dir, context)).rejects.toBeInstanceOf(NotAGitRepositoryError);
  });
});

describe("describeStartingCommit", () => {
  const head = "abc1234def5678abc1234def5678abc1234def56";
  const base = "0123456789abcdef0123456789abcdef01234567";
  const merge = "fedcba9876543210fedcba9876543210fedcba98";

  it('names GitHub\'s test merge commit "the merge of <head> into <base branch>"', () => {
    expect(describeStartingCommit({ sha: merge, parents: [base, head], prHead: head, baseRef: "main" })).toBe(
      "the merge of abc1234 into main",
    );
  });

  it("names the base by its short SHA when the base branch is not known", () => {
    expect(describeStartingCommit({ sha: merge, parents: [base, head], prHead: head })).toBe(
      "the merge of abc1234 into 0123456",
    );
  });

  it("names any other commit by its short SHA", () => {
    expect(describeStartingCommit({ sha: head, parents: [base], prHead: head, baseRef: "main" })).toBe(
      "abc1234",
    );
    expect(describeStartingCommit({ sha: merge, parents: [base, head], baseRef: "main" })).toBe("fedcba9");
    expect(describeStartingCommit({ sha: merge, parents: [head, base], prHead: head, baseRef: "main" })).toBe(
      "fedcba9",
    );
  });

  it("describes a real merge checkout made like refs/pull/N/merge", async () => {
    const m = await makeMergeCheckout();
    repos.push(m);
    const commit = await startingCommit(m.dir, { ...context, prHead: m.headSha });
    expect(describeStartingCommit({ ...commit, prHead: m.headSha, baseRef: "main" })).toBe(
      `the merge of ${m.headSha.slice(0, 7)} into main`,
    );
  });
});
