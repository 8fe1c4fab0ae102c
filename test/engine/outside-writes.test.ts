/** Placing the model's written paths inside or outside the repository (real folders and symlinks). */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { outsideWrites } from "../../src/engine/outside-writes.js";

let base: string;
let repo: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "eg-outside-writes-")));
  repo = join(base, "repo");
  outside = join(base, "elsewhere");
  mkdirSync(join(repo, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(repo, "src", "a.js"), "");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("outsideWrites", () => {
  it("paths inside the repository, absolute or relative to the cwd, existing or not: none", () => {
    const where = { cwd: join(repo, "src"), repoRoot: repo };
    expect(outsideWrites([join(repo, "src", "a.js"), "a.js", "new/deep/b.js", "../README.md"], where)).toBe(
      undefined,
    );
    expect(outsideWrites([], where)).toBe(undefined);
  });

  it("a path outside (also a relative one climbing out of the repository, and one not existing yet) is recorded", () => {
    const written = outsideWrites(
      [join(base, "node_modules", "sumlib", "index.js"), "../../elsewhere/x.js"],
      {
        cwd: join(repo, "src"),
        repoRoot: repo,
      },
    );
    expect(written).toEqual({
      total: 2,
      paths: [join(base, "node_modules", "sumlib", "index.js"), join(outside, "x.js")],
    });
  });

  it("a symlink in the repository that points out of it counts as outside, by its real path", () => {
    symlinkSync(outside, join(repo, "linked"));
    expect(outsideWrites(["linked/new.js"], { cwd: repo, repoRoot: repo })).toEqual({
      total: 1,
      paths: [join(outside, "new.js")],
    });
  });

  it("a repository root reached through a symlink is still the repository", () => {
    symlinkSync(repo, join(base, "repo-link"));
    expect(outsideWrites([join(repo, "src", "a.js")], { cwd: repo, repoRoot: join(base, "repo-link") })).toBe(
      undefined,
    );
  });

  it("paths that cannot be placed (~, a dangling symlink) count as outside, as given (fail safe)", () => {
    symlinkSync(join(base, "gone"), join(repo, "dangling"));
    const written = outsideWrites(["~/.bashrc", "dangling/x.js"], { cwd: repo, repoRoot: repo });
    expect(written).toEqual({ total: 2, paths: ["~/.bashrc", "dangling/x.js"] });
  });

  it("keeps up to 10 paths and the total", () => {
    const paths = Array.from({ length: 12 }, (_, i) => join(outside, `f${i}.js`));
    const written = outsideWrites(paths, { cwd: repo, repoRoot: repo });
    expect(written?.total).toBe(12);
    expect(written?.paths).toEqual(paths.slice(0, 10));
  });
});
