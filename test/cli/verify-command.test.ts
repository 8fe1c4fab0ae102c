/**
 * `evidence-gate verify` (SPEC §10, §11), in-process on real repositories: the engine runs the verify
 * command once (the sample project's real `npm test`), the ledger has one `verify (engine)` row, and the
 * exit code follows the outcome: 0 passed, 1 failed, 64 when there is no command.
 */
import { readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import {
  hermeticGitEnv,
  makeFixedSampleRepo,
  makeSampleNodeRepo,
  type TempRepo,
} from "../support/temp-repo.js";

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const repo of repos.splice(0)) await repo.cleanup();
});

async function verify(repo: TempRepo, flags: readonly string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCliVerify(["--repo", repo.dir, ...flags], {
    cwd: repo.dir,
    env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined },
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  const ledgerPath = /^ledger: (.+)$/m.exec(stdout)?.[1];
  const ledger = ledgerPath ? (JSON.parse(readFileSync(ledgerPath, "utf8")) as Ledger) : null;
  return { code, stdout, stderr, ledger };
}

describe("evidence-gate verify", () => {
  it("passes with one `verify (engine)` PASS (verified) row on a tree where the command exits 0: exit 0, success", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const r = await verify(repo, ["--verify-cmd", "npm test"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.ledger?.mode).toBe("verify");
    expect(r.ledger?.rows).toEqual([
      expect.objectContaining({
        nodeId: "verify",
        label: "verify (engine)",
        verdict: "PASS",
        qualifier: "verified",
      }),
    ]);
    expect(r.ledger?.plan.buildEvidence).toEqual({
      kind: "attached",
      command: "npm test",
      declaredBy: "input",
    });
    expect(r.ledger?.conclusion).toMatchObject({ conclusion: "success", outcome: "passed" });
    expect(r.ledger?.evidenceTree).toBe(await repo.git(["rev-parse", "HEAD^{tree}"]));
    expect(r.stdout).toContain("verify (engine)");
  });

  it("no node ran, so a change to package.json's scripts uncommitted before the run is no node's: no changed-files record, the off-commit rule decides", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const manifest = JSON.parse(await repo.read("package.json"));
    await repo.write(
      "package.json",
      JSON.stringify({ ...manifest, scripts: { test: "node --test && true" } }, null, 2),
    );
    const summaryPath = join(repo.dir, "..", `${basename(repo.dir)}-summary.md`);
    const r = await verify(repo, ["--verify-cmd", "npm test", "--summary-out", summaryPath]);
    expect(r.code, r.stderr + r.stdout).toBe(4);
    expect(r.ledger?.changedFiles).toBeUndefined();
    expect(r.ledger?.conclusion).toMatchObject({
      conclusion: "action_required",
      rule: "verified-off-commit",
    });
    // No node ran, so nothing says a node changed files (issue 26): the working tree differs from the commit.
    const summary = readFileSync(summaryPath, "utf8");
    rmSync(summaryPath, { force: true });
    expect(`${summary}\n${r.stdout}`).not.toMatch(/the nodes changed/i);
    expect(summary).toContain(
      "The working tree the verify command ran on holds changes that are not on the posted commit",
    );
  });

  it("fails with the one row FAIL (verify_failed), the exit code and output tail kept: exit 1, failure", async () => {
    const repo = await makeSampleNodeRepo();
    repos.push(repo);
    const r = await verify(repo, ["--verify-cmd", "npm test"]);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.ledger?.rows).toHaveLength(1);
    expect(r.ledger?.rows[0]).toMatchObject({ nodeId: "verify", verdict: "FAIL", cause: "verify_failed" });
    expect(r.ledger?.rows[0]?.verify?.exitCode).not.toBe(0);
    expect(r.ledger?.rows[0]?.verify?.outputTail).toContain("sum adds two numbers");
    expect(r.ledger?.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });

    // A multi-line command (a workflow's `verify-cmd: |`) runs line by line, recorded as given, and every
    // one-line surface marks its line breaks: never `echo first npm test`, which reads as one command.
    const lines = await verify(repo, ["--verify-cmd", "echo first-line\nnpm test\n"]);
    expect(lines.code).toBe(1);
    expect(lines.ledger?.rows[0]?.verify?.command).toBe("echo first-line\nnpm test\n");
    expect(lines.ledger?.rows[0]?.verify?.outputTail).toMatch(/^first-line\n/);
    expect(lines.stdout).toContain("`echo first-line ⏎ npm test`");
    expect(lines.stdout).not.toContain("echo first-line npm test");
  });

  it("takes the command from the working tree's policy file when --verify-cmd is not given; with neither, exit 64 and nothing runs", async () => {
    const withPolicy = await makeFixedSampleRepo("fix", {
      ".github/evidence-gate.yml": "verify-cmd: npm test\n",
    });
    repos.push(withPolicy);
    const fromPolicy = await verify(withPolicy, []);
    expect(fromPolicy.code, fromPolicy.stderr + fromPolicy.stdout).toBe(0);
    expect(fromPolicy.ledger?.plan.buildEvidence).toEqual({
      kind: "attached",
      command: "npm test",
      declaredBy: "policy",
    });

    const bare = await makeFixedSampleRepo();
    repos.push(bare);
    const none = await verify(bare, []);
    expect(none.code).toBe(64);
    expect(none.stderr).toContain("no verify command: give --verify-cmd CMD");
    expect(none.ledger).toBeNull();
  });

  it("a command that runs nothing (blank, or only # comments) is refused as auto refuses it: exit 64, no ledger — from the flag and from the policy file", async () => {
    const repo = await makeSampleNodeRepo();
    repos.push(repo);
    for (const command of ["# nothing", "  \n# npm test\n\n", "   "]) {
      const r = await verify(repo, ["--verify-cmd", command]);
      expect(r.code, JSON.stringify(command) + r.stdout).toBe(64);
      expect(r.stderr).toContain(
        "--verify-cmd is empty (blank, or only # comments): it exits 0 and would pass every time",
      );
      expect(r.stdout).not.toContain("PASS");
      expect(r.ledger).toBeNull();
    }

    const withPolicy = await makeFixedSampleRepo("fix", {
      ".github/evidence-gate.yml": 'verify-cmd: "# just a comment"\n',
    });
    repos.push(withPolicy);
    const fromPolicy = await verify(withPolicy, []);
    expect(fromPolicy.code, fromPolicy.stdout).toBe(64);
    expect(fromPolicy.stderr).toMatch(
      /The policy file \.github\/evidence-gate\.yml.* sets an empty verify-cmd \(blank, or only # comments\), which would pass every time/,
    );
    expect(fromPolicy.ledger).toBeNull();
  });
});
