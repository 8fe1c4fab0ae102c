/**
 * The places a CLI run writes are the operator's input (issue 17 item 5): a read-only checkout, a
 * `--runs-dir` that is a file or cannot be created, a `--summary-out` or `--check-run-out` in a folder that
 * cannot be written — each is a usage error naming the place and the fix (exit 64), found before anything
 * runs: never `internal error: GitError …`, never a stack trace, never after the run was spent.
 * `node dist/cli.js` (`npm run build` first), with the places made unwritable by the kernel
 * (test/support/read-only.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DIST_CLI } from "../support/cli-harness.js";
import { READ_ONLY_CODE, runCliReadOnly } from "../support/read-only.js";
import { hermeticGitEnv, makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const made: string[] = [];
const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const env = (): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(hermeticGitEnv)) {
    if (value !== undefined && name !== "ANTHROPIC_API_KEY") out[name] = value;
  }
  return out;
};

async function sample(): Promise<TempRepo> {
  expect(existsSync(DIST_CLI), `${DIST_CLI} is missing: run \`npm run build\` first`).toBe(true);
  const repo = await makeFixedSampleRepo();
  repos.push(repo);
  return repo;
}

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-write-places-"));
  made.push(dir);
  return dir;
}

/** No stack frame and no "internal error" in what the CLI printed. */
function expectNoCrash(stderr: string): void {
  expect(stderr).not.toContain("internal error");
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe("places a CLI run writes, checked before it runs", () => {
  it("a read-only checkout: exit 64 naming the git object store and the runs folder, and the fix", async () => {
    const repo = await sample();

    const r = await runCliReadOnly({
      argv: ["verify", "--verify-cmd", "npm test"],
      cwd: repo.dir,
      env: env(),
      readOnly: [repo.dir, join(repo.dir, ".git", "objects")],
    });

    expect(r.code, r.stderr).toBe(64);
    expectNoCrash(r.stderr);
    expect(r.stderr).toContain(
      `evidence-gate verify: the repository ${repo.dir} cannot be written: git's object store ${join(repo.dir, ".git", "objects")} is not writable (${READ_ONLY_CODE}`,
    );
    expect(r.stderr).toContain("Run on a writable clone of the repository");
    expect(r.stderr).toContain(
      `evidence-gate verify: the runs folder ${join(repo.dir, ".evidence-gate", "runs")} cannot be created: ${repo.dir} is not writable (${READ_ONLY_CODE}`,
    );
    expect(r.stderr).toContain("give --runs-dir DIR on a writable disk");
    expect(r.stdout).toBe("");
  });

  it("--runs-dir naming a file: exit 64 naming it, no stack trace", async () => {
    const repo = await sample();
    const out = scratch();
    const file = join(out, "runs");
    writeFileSync(file, "not a folder\n");

    const r = await runCliReadOnly({
      argv: ["verify", "--verify-cmd", "npm test", "--runs-dir", file],
      cwd: repo.dir,
      env: env(),
      readOnly: [],
    });

    expect(r.code, r.stderr).toBe(64);
    expectNoCrash(r.stderr);
    expect(r.stderr).toContain(
      `evidence-gate verify: --runs-dir ${file} is a file, not a folder: give a folder`,
    );
  });

  it("--runs-dir below a file, or in a folder that cannot be written: exit 64, 'cannot be created', naming the part in the way", async () => {
    const repo = await sample();
    const out = scratch();
    writeFileSync(join(out, "file"), "x\n");
    const locked = join(out, "locked");
    mkdirSync(locked);

    const belowFile = await runCliReadOnly({
      argv: ["verify", "--verify-cmd", "npm test", "--runs-dir", join(out, "file", "runs")],
      cwd: repo.dir,
      env: env(),
      readOnly: [],
    });
    const unwritable = await runCliReadOnly({
      argv: ["verify", "--verify-cmd", "npm test", "--runs-dir", join(locked, "a", "runs")],
      cwd: repo.dir,
      env: env(),
      readOnly: [locked],
    });

    expect(belowFile.code, belowFile.stderr).toBe(64);
    expect(belowFile.stderr).toContain(
      `--runs-dir ${join(out, "file", "runs")} cannot be created: ${join(out, "file")} is a file, not a folder:`,
    );
    expect(unwritable.code, unwritable.stderr).toBe(64);
    expectNoCrash(unwritable.stderr);
    expect(unwritable.stderr).toContain(
      `--runs-dir ${join(locked, "a", "runs")} cannot be created: ${locked} is not writable (${READ_ONLY_CODE}`,
    );
    expect(existsSync(join(locked, "a"))).toBe(false);
  });

  it("--summary-out and --check-run-out in a folder that cannot be written: exit 64 before the run, both named", async () => {
    const repo = await sample();
    const out = scratch();

    const r = await runCliReadOnly({
      argv: [
        "verify",
        "--verify-cmd",
        "npm test",
        "--summary-out",
        join(out, "summary.md"),
        "--check-run-out",
        join(out, "check-run.json"),
      ],
      cwd: repo.dir,
      env: env(),
      readOnly: [out],
    });

    expect(r.code, r.stderr).toBe(64);
    expectNoCrash(r.stderr);
    expect(r.stderr).toContain(
      `evidence-gate verify: --summary-out ${join(out, "summary.md")} cannot be written (${READ_ONLY_CODE}`,
    );
    expect(r.stderr).toContain(
      `--check-run-out ${join(out, "check-run.json")} cannot be written (${READ_ONLY_CODE}`,
    );
    // Nothing ran: no run directory was made.
    expect(existsSync(join(repo.dir, ".evidence-gate"))).toBe(false);
  });
});
