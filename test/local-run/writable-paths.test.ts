/**
 * The last resort for a write that fails once a run is under way (issue 17 item 5): a filesystem error on
 * one of the operator's places, or git failing to write, is worded as the operator's problem (the path,
 * the reason, the fix); anything else stays an internal error.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  folderWriteProblem,
  outputFileProblem,
  writeFailureProblem,
} from "../../src/local-run/writable-paths.js";
import { GitError } from "../../src/proc/git.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("writeFailureProblem", () => {
  it("words a Node filesystem error with its path: the path, the code in words, the flags that move it", () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-write-failure-"));
    made.push(dir);
    writeFileSync(join(dir, "file"), "x\n");
    const error = caught(() => mkdirSync(join(dir, "file", "runs"), { recursive: true }));

    expect(writeFailureProblem(error)).toBe(
      `could not write ${join(dir, "file", "runs")} (ENOTDIR: a part of the path is a file, not a folder): make that place writable, or point --runs-dir, --summary-out or --check-run-out elsewhere, then run again`,
    );
  });

  it("words git failing to write the repository", () => {
    const error = new GitError(
      ["add", "-A"],
      "exit 128: error: insufficient permission… Read-only file system",
    );
    expect(writeFailureProblem(error)).toBe(
      "git could not write the repository (git add -A failed: exit 128: error: insufficient permission… Read-only file system): run on a writable clone with free space, then run again",
    );
  });

  it("leaves every other error an internal one: a missing file, a git error of another kind, a plain Error", () => {
    const missing = caught(() => writeFileSync(join(tmpdir(), "eg-no-such-folder", "x", "y"), ""));
    expect(writeFailureProblem(missing)).toBeNull();
    expect(writeFailureProblem(new GitError(["rev-parse"], "exit 128: fatal: bad revision"))).toBeNull();
    expect(writeFailureProblem(new Error("Internal error: something broke"))).toBeNull();
  });
});

describe("folderWriteProblem", () => {
  it("a folder that exists and is writable, or that can be created in one: no problem", () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-folder-"));
    made.push(dir);
    expect(folderWriteProblem("--runs-dir x", dir, "fix")).toBeNull();
    expect(folderWriteProblem("--runs-dir x", join(dir, "a", "b"), "fix")).toBeNull();
    // The check makes the first missing folder and removes it again: nothing is left behind.
    expect(existsSync(join(dir, "a"))).toBe(false);
  });

  it("a folder under /proc, where access(W_OK) says yes to root but mkdir refuses (ENOENT), is a problem, not a hang", () => {
    // As root (CI) mkdir answers ENOENT; as another user access(W_OK) already answers EACCES.
    expect(folderWriteProblem("--runs-dir /proc/x", "/proc/evidence-gate-x/runs", "fix")).toMatch(
      /^--runs-dir \/proc\/x cannot be created: \/proc is not writable \((ENOENT|EACCES): [^)]+\)\. fix$/,
    );
  });
});

describe("outputFileProblem: a file is really created (and removed) before the run, as a folder is", () => {
  it("a file under /proc, where access(W_OK) says yes to root but creating refuses, is a problem before the run", () => {
    expect(outputFileProblem("--summary-out /proc/x.md", "/proc/evidence-gate-x.md")).toMatch(
      /^--summary-out \/proc\/x\.md cannot be written \((ENOENT|EACCES|EPERM)[^)]*\): give a path in a writable folder, or leave --summary-out out$/,
    );
  });

  it("a new file in a writable folder is no problem, and the probe leaves nothing behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "eg-out-"));
    made.push(dir);
    expect(outputFileProblem("--summary-out s.md", join(dir, "s.md"))).toBeNull();
    expect(existsSync(join(dir, "s.md"))).toBe(false);
  });
});
