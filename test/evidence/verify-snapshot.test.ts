/**
 * The snapshot a verify takes before its command, and the comparison after it (`verify-snapshot.ts`), on
 * real git repositories, when the verify's folder is not the work tree's top: the gap check and the
 * ignored files describe the whole work tree the evidence tree was made from, and a `.git` the command
 * plants in its folder is seen by the after-comparison (which resolves the work tree again, after the
 * command) as a working tree that no longer holds the tree.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { ignoredFilesFingerprint } from "../../src/evidence/ignored-files.js";
import { changedWhileRunning, snapshotBeforeVerify } from "../../src/evidence/verify-snapshot.js";
import { commitAll, hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const context = { baseEnv: hermeticGitEnv };
const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

async function repoWith(files: Record<string, string>): Promise<TempRepo> {
  const repo = await makeTempRepo({ commit: true, files });
  repos.push(repo);
  return repo;
}

const files = {
  "README.md": "top\n",
  "src/a.js": "export const a = 1;\n",
  ".gitignore": "build/\n",
};

describe("snapshotBeforeVerify from a sub-folder", () => {
  it("checks the whole work tree: a dirty submodule at the top and an ignored file at the top count", async () => {
    const sub = await repoWith({ "sum.js": "export const sum = (a, b) => a - b;\n" });
    const top = await repoWith(files);
    await top.git(["-c", "protocol.file.allow=always", "submodule", "add", "--quiet", sub.dir, "lib"]);
    await commitAll(top, "add lib");
    const baseline = await ignoredFilesFingerprint(top.dir, context);
    await top.write("lib/sum.js", "export const sum = (a, b) => a + b;\n");
    await top.write("build/out.js", "built\n");

    const snapshot = await snapshotBeforeVerify(join(top.dir, "src"), context, { baseline });

    expect(snapshot.tree).toBe(await evidenceTree(top.dir, context));
    expect(snapshot.treeNote).toBeNull();
    expect(snapshot.gaps.dirtySubmodules).toEqual(["lib"]);
    expect(snapshot.ignored.ignoredFiles).toBe("changed");
    expect(snapshot.ignored.ignoredFilesChanges?.examples.map((e) => e.path)).toEqual(["build/out.js"]);
  });

  it("a clean work tree has no gap and unchanged ignored files", async () => {
    const top = await repoWith(files);
    await top.write("build/out.js", "built before the run\n");
    const baseline = await ignoredFilesFingerprint(top.dir, context);
    const snapshot = await snapshotBeforeVerify(join(top.dir, "src"), context, { baseline });
    expect(snapshot.gaps).toEqual({});
    expect(snapshot.ignored).toEqual({ ignoredFiles: "unchanged" });
  });

  it("a folder in no work tree has no tree, says why, and its ignored files are unknown", async () => {
    const plain = await makeTempRepo({ files, noGit: true });
    repos.push(plain);
    const top = await repoWith(files);
    const baseline = await ignoredFilesFingerprint(top.dir, context);
    const snapshot = await snapshotBeforeVerify(plain.dir, context, { baseline });
    expect(snapshot.tree).toBeNull();
    expect(snapshot.treeNote).toContain("is not inside a git working tree");
    expect(snapshot.gaps).toEqual({});
    expect(snapshot.ignored.ignoredFiles).toBe("unknown");
  });
});

describe("changedWhileRunning from a sub-folder", () => {
  it("names a tracked file the command changed elsewhere in the work tree", async () => {
    const top = await repoWith(files);
    const cwd = join(top.dir, "src");
    const { tree } = await snapshotBeforeVerify(cwd, context, undefined);
    await top.write("README.md", "rewritten by the command\n");
    expect(await changedWhileRunning(cwd, tree!, context)).toEqual({ total: 1, examples: ["README.md"] });
  });

  it("a `.git` the command planted in its folder is not clean: the work tree is resolved after the command", async () => {
    const top = await repoWith(files);
    const cwd = join(top.dir, "src");
    const { tree } = await snapshotBeforeVerify(cwd, context, undefined);
    // What a command could do to make the engine's git look at a repository of its own.
    await top.git(["init", "--quiet", cwd]);
    const changed = await changedWhileRunning(cwd, tree!, context);
    expect(changed).not.toBeNull();
    expect(changed?.total).toBeNull();
    expect(changed?.note).toContain("could not be compared");
  });

  it("an untouched work tree is clean", async () => {
    const top = await repoWith(files);
    const cwd = join(top.dir, "src");
    const { tree } = await snapshotBeforeVerify(cwd, context, undefined);
    expect(await changedWhileRunning(cwd, tree!, context)).toBeNull();
  });
});
