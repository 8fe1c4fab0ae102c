import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { commitWorkingTree, FALLBACK_IDENTITY, workingTreePatch } from "../../src/evidence/patch.js";
import { hermeticGitEnv, makeTempRepo, TEST_IDENTITY, type TempRepo } from "../support/temp-repo.js";

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

const files = { "README.md": "hello\n", "src/a.js": "export const a = 1;\n", ".gitignore": "build/\n" };

describe("workingTreePatch", () => {
  it("holds every change since the starting commit, untracked files included and ignored files not", async () => {
    const r = await repo({ files, commit: true });
    const start = await r.git(["rev-parse", "HEAD"]);
    await r.write("src/a.js", "export const a = 2;\n");
    await r.write("src/new.js", "export const b = 1;\n");
    await rm(join(r.dir, "README.md"));
    await r.write("build/out.txt", "ignored\n");

    const patch = await workingTreePatch(r.dir, start, context);

    expect(patch.files).toEqual(["README.md", "src/a.js", "src/new.js"]);
    expect(patch.diff).toContain("+export const a = 2;");
    expect(patch.diff).toContain("new file mode");
    expect(patch.diff).toContain("deleted file mode");
    expect(patch.diff).not.toContain("build/out.txt");
    expect(patch.tree).toBe(await evidenceTree(r.dir, context));
  });

  it("applies to a clean copy of the starting commit and reproduces the evidence tree, binary files too", async () => {
    const r = await repo({ files, commit: true });
    const start = await r.git(["rev-parse", "HEAD"]);
    await r.write("src/a.js", "export const a = 'é';\n");
    await writeFile(join(r.dir, "logo.bin"), Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]));
    const patch = await workingTreePatch(r.dir, start, context);
    expect(patch.diff).toContain("GIT binary patch");

    const clone = await repo({ files: {}, commit: false });
    await clone.git(["fetch", "--quiet", r.dir, start]);
    await clone.git(["checkout", "--quiet", "--detach", start]);
    // Inside .git, so the patch file is not part of the clone's working tree.
    const patchFile = join(clone.dir, ".git", "nodes.diff");
    await writeFile(patchFile, patch.diffBytes);
    await clone.git(["apply", "--index", patchFile]);
    expect(await clone.git(["write-tree"])).toBe(patch.tree);
  });

  it("is empty when nothing changed", async () => {
    const r = await repo({ files, commit: true });
    const patch = await workingTreePatch(r.dir, await r.git(["rev-parse", "HEAD"]), context);
    expect(patch).toMatchObject({ diff: "", files: [] });
  });

  it("leaves the user's index byte-identical", async () => {
    const r = await repo({ files, commit: true });
    await r.write("src/new.js", "x\n");
    const before = await readFile(join(r.dir, ".git", "index"));
    await workingTreePatch(r.dir, await r.git(["rev-parse", "HEAD"]), context);
    expect(Buffer.compare(await readFile(join(r.dir, ".git", "index")), before)).toBe(0);
  });
});

describe("commitWorkingTree", () => {
  it("commits every change not ignored on the current branch, with the trailer, and returns the SHA", async () => {
    const r = await repo({ files, commit: true });
    const parent = await r.git(["rev-parse", "HEAD"]);
    await r.write("src/a.js", "export const a = 2;\n");
    await r.write("src/new.js", "new\n");
    await r.write("build/out.txt", "ignored\n");
    const expectedTree = await evidenceTree(r.dir, context);

    const sha = await commitWorkingTree(r.dir, {
      ...context,
      message: "evidence-gate: apply the nodes' changes",
      trailer: "Evidence-Gate-Run: 20260101-000000-abcdef",
    });

    expect(sha).toBe(await r.git(["rev-parse", "refs/heads/main"]));
    expect(await r.git(["rev-parse", "HEAD^{tree}"])).toBe(expectedTree);
    expect(await r.git(["rev-parse", "HEAD~1"])).toBe(parent);
    expect(await r.git(["log", "-1", "--format=%B"])).toBe(
      "evidence-gate: apply the nodes' changes\n\nEvidence-Gate-Run: 20260101-000000-abcdef\n",
    );
    expect(await r.git(["log", "-1", "--format=%(trailers:key=Evidence-Gate-Run,valueonly)"])).toBe(
      "20260101-000000-abcdef\n",
    );
    expect(await r.git(["status", "--porcelain"])).toBe("");
    expect(await r.git(["ls-tree", "-r", "--name-only", "HEAD"])).not.toContain("build/out.txt");
  });

  it("uses the repository's configured identity", async () => {
    const r = await repo({ files, commit: true });
    await r.write("x.txt", "x\n");
    await commitWorkingTree(r.dir, { ...context, message: "change" });
    expect(await r.git(["log", "-1", "--format=%an <%ae>|%cn <%ce>"])).toBe(
      `${TEST_IDENTITY.name} <${TEST_IDENTITY.email}>|${TEST_IDENTITY.name} <${TEST_IDENTITY.email}>`,
    );
  });

  it("falls back to evidence-gate <evidence-gate@users.noreply.github.com> when no identity is configured", async () => {
    const r = await repo({ files, identity: false });
    await r.git(["-c", "user.name=Seeder", "-c", "user.email=seed@example.invalid", "add", "-A"]);
    await r.git([
      "-c",
      "user.name=Seeder",
      "-c",
      "user.email=seed@example.invalid",
      "commit",
      "--quiet",
      "-m",
      "i",
    ]);
    await r.write("x.txt", "x\n");
    await commitWorkingTree(r.dir, { ...context, message: "change" });
    expect(await r.git(["log", "-1", "--format=%an <%ae>"])).toBe(
      `${FALLBACK_IDENTITY.name} <${FALLBACK_IDENTITY.email}>`,
    );
  });

  it("with parent: commits nothing and returns head_moved when HEAD is no longer that commit (issue 17 item 4)", async () => {
    const r = await repo({ files, commit: true });
    const start = await r.git(["rev-parse", "HEAD"]);
    await r.write("src/a.js", "export const a = 2;\n");
    // Another run's --commit (or a commit by hand) lands while this run's changes sit in the working tree.
    await r.git(["commit", "--quiet", "--allow-empty", "-m", "meanwhile"]);
    const moved = await r.git(["rev-parse", "HEAD"]);

    const result = await commitWorkingTree(r.dir, { ...context, message: "change", parent: start });

    expect(result).toEqual({ kind: "head_moved", head: moved });
    expect(await r.git(["rev-parse", "HEAD"])).toBe(moved);
    expect(await r.git(["status", "--porcelain"])).toBe(" M src/a.js");
  });

  it("with parent: commits onto it when HEAD is still that commit", async () => {
    const r = await repo({ files, commit: true });
    const start = await r.git(["rev-parse", "HEAD"]);
    await r.write("src/a.js", "export const a = 2;\n");

    const sha = await commitWorkingTree(r.dir, { ...context, message: "change", parent: start });

    expect(sha).toBe(await r.git(["rev-parse", "HEAD"]));
    expect(await r.git(["rev-parse", "HEAD~1"])).toBe(start);
  });

  it("returns null and makes no commit when nothing changed", async () => {
    const r = await repo({ files, commit: true });
    const head = await r.git(["rev-parse", "HEAD"]);
    await r.write("build/out.txt", "ignored only\n");
    expect(await commitWorkingTree(r.dir, { ...context, message: "nothing" })).toBeNull();
    expect(await r.git(["rev-parse", "HEAD"])).toBe(head);
  });

  it("runs no repository hook (a PR could plant one through core.hooksPath)", async () => {
    const r = await repo({ files, commit: true });
    await r.write(".hooks/pre-commit", "#!/bin/sh\necho hooked > hook-ran.txt\nexit 1\n");
    await r.write(".hooks/post-commit", "#!/bin/sh\necho hooked > hook-ran.txt\n");
    await chmod(join(r.dir, ".hooks/pre-commit"), 0o755);
    await chmod(join(r.dir, ".hooks/post-commit"), 0o755);
    await r.git(["config", "core.hooksPath", ".hooks"]);

    const sha = await commitWorkingTree(r.dir, { ...context, message: "with hooks around" });

    expect(sha).not.toBeNull();
    expect(await r.git(["ls-files", "--others", "--exclude-standard"])).toBe("");
    expect(await r.git(["ls-tree", "-r", "--name-only", "HEAD"])).not.toContain("hook-ran.txt");
  });

  it("makes the root commit of a repository with no commit yet", async () => {
    const r = await repo({ files });
    const sha = await commitWorkingTree(r.dir, { ...context, message: "first" });
    expect(sha).toBe(await r.git(["rev-parse", "HEAD"]));
    expect(await r.git(["rev-list", "--count", "HEAD"])).toBe("1");
  });
});
