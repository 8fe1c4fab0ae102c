/**
 * The engine's kept seed index (src/evidence/seed-index.ts): entries whose file changed in the second the
 * seed was read in, or later, are smudged (size 0) so that the next evidence tree reads those files again —
 * git compares times to the second, and an mtime can be put back by whoever wrote the file. Checked on
 * real git indexes, and read back by git itself.
 */
import { createHash } from "node:crypto";
import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evidenceTree } from "../../src/evidence/evidence-tree.js";
import { smudgedSince } from "../../src/evidence/seed-index.js";
import { git } from "../../src/proc/git.js";
import { hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  await Promise.all(repos.splice(0).map((r) => r.cleanup()));
});

async function repoWith(files: Record<string, string>, init: readonly string[] = []): Promise<TempRepo> {
  const r = await makeTempRepo({ files, noGit: true });
  repos.push(r);
  await r.git(["init", "--quiet", "--initial-branch=main", ...init]);
  await r.git(["add", "-A"]);
  return r;
}

/** `git ls-files --debug`'s size of each path, read with GIT_INDEX_FILE=`file`. */
async function sizes(r: TempRepo, file: string): Promise<Record<string, number>> {
  const out = await git(["ls-files", "--debug"], {
    cwd: r.dir,
    baseEnv: hermeticGitEnv,
    set: { GIT_INDEX_FILE: file },
  });
  const result: Record<string, number> = {};
  let path = "";
  for (const line of out.split("\n")) {
    if (!line.startsWith(" ")) path = line;
    const size = /^\s+size: (\d+)/.exec(line);
    if (size) result[path] = Number(size[1]);
  }
  return result;
}

/** Each file's ctime second as git recorded it: `ls-files --debug`'s `ctime:` line. */
async function ctimes(r: TempRepo): Promise<Record<string, number>> {
  const out = await git(["ls-files", "--debug"], { cwd: r.dir, baseEnv: hermeticGitEnv });
  const result: Record<string, number> = {};
  let path = "";
  for (const line of out.split("\n")) {
    if (!line.startsWith(" ")) path = line;
    const ctime = /^\s+ctime: (\d+):/.exec(line);
    if (ctime) result[path] = Number(ctime[1]);
  }
  return result;
}

describe("smudgedSince", () => {
  for (const format of ["sha1", "sha256"] as const) {
    it(`zeroes the size of exactly the entries changed in or after the second, and git reads the result (${format})`, async () => {
      const r = await repoWith({ "old.txt": "old\n", "new.txt": "new file\n", "sub/deep.txt": "deep\n" }, [
        `--object-format=${format}`,
      ]);
      const recorded = await ctimes(r);
      const since = Math.max(...Object.values(recorded));
      // Make the split visible: old.txt and sub/deep.txt recorded a second earlier than new.txt.
      const bytes = Buffer.from(await readFile(join(r.dir, ".git", "index")));
      const idLength = format === "sha1" ? 20 : 32;
      let at = 12;
      for (let i = 0; i < bytes.readUInt32BE(8); i++) {
        const end = bytes.indexOf(0, at + 40 + idLength + 2);
        const path = bytes.toString("utf8", at + 40 + idLength + 2, end);
        bytes.writeUInt32BE(path === "new.txt" ? since : since - 1, at);
        at = at + ((end - at + 8) & ~7);
      }
      createHash(format)
        .update(bytes.subarray(0, bytes.length - idLength))
        .digest()
        .copy(bytes, bytes.length - idLength);
      const smudged = smudgedSince(bytes, since);
      expect(smudged).not.toBeNull();
      const file = join(r.dir, "smudged-index");
      await writeFile(file, smudged as Buffer);
      expect(await sizes(r, file)).toEqual({ "new.txt": 0, "old.txt": 4, "sub/deep.txt": 5 });
    });
  }

  it("refuses what it does not read with certainty: a bad checksum, version 4, a split index", async () => {
    const r = await repoWith({ "a.txt": "a\n" });
    const bytes = Buffer.from(await readFile(join(r.dir, ".git", "index")));
    const flipped = Buffer.from(bytes);
    flipped[20] = (flipped[20] as number) ^ 1;
    expect(smudgedSince(flipped, 0)).toBeNull();
    await r.git(["update-index", "--index-version", "4"]);
    expect(smudgedSince(await readFile(join(r.dir, ".git", "index")), 0)).toBeNull();
    await r.git(["update-index", "--index-version", "2"]);
    expect(smudgedSince(await readFile(join(r.dir, ".git", "index")), 0)).not.toBeNull();
    await r.git(["update-index", "--split-index"]);
    expect(smudgedSince(await readFile(join(r.dir, ".git", "index")), 0)).toBeNull();
  });
});

describe("an edit in the same second as the file's last change, its mtime put back", () => {
  it("is in the next evidence tree of the same work tree", async () => {
    const r = await makeTempRepo({ files: { "t.sh": "exit 1\n" }, commit: true });
    repos.push(r);
    const context = { baseEnv: hermeticGitEnv };
    const old = Math.floor(Date.now() / 1000) - 60;
    // Start on a fresh second, so that the change, the tree and the edit below fall in one second.
    await new Promise((resolve) => setTimeout(resolve, 1010 - (Date.now() % 1000)));
    await utimes(join(r.dir, "t.sh"), old, old);
    const first = await evidenceTree(r.dir, context);
    await r.write("t.sh", "exit 0\n");
    await utimes(join(r.dir, "t.sh"), old, old);
    const second = await evidenceTree(r.dir, context);
    expect(second).not.toBe(first);
    expect(await r.git(["cat-file", "blob", `${second}:t.sh`])).toBe("exit 0");
  });
});
