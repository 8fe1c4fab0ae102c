/**
 * `evidence-gate verify` (SPEC §10, §11), in-process on real repositories: the engine runs the verify
 * command once (the sample project's real `npm test`), the ledger has one `verify (engine)` row, and the
 * exit code follows the outcome: 0 passed, 1 failed, 64 when there is no command. The README's documented
 * `--verify-cmd "npm test"` runs through npm in the first test; where npm is not what a test is about, the
 * command is the sample's test runner itself, `node --test` (what its `npm test` script runs: the same
 * runner and output, without npm's start).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { runCliResume } from "../../src/cli/resume-command.js";
import { cliVerify } from "../support/cli-verify.js";
import { startGitHubServer } from "../support/github-server/index.js";
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

const verify = cliVerify;

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
    const r = await verify(repo, ["--verify-cmd", "node --test", "--summary-out", summaryPath]);
    expect(r.code, r.stderr + r.stdout).toBe(4);
    expect(r.ledger?.changedFiles).toBeUndefined();
    expect(r.ledger?.conclusion).toMatchObject({
      conclusion: "action_required",
      rule: "verified-off-commit",
    });
    // verify has no --commit: its advice is to commit or stash and verify again.
    expect(r.ledger?.conclusion?.reason).toContain("run `evidence-gate verify` again");
    expect(r.ledger?.conclusion?.reason).not.toContain("--commit");
    // No node ran, so nothing says a node changed files (issue 26): the working tree differs from the commit.
    const summary = readFileSync(summaryPath, "utf8");
    rmSync(summaryPath, { force: true });
    expect(`${summary}\n${r.stdout}`).not.toMatch(/the nodes changed/i);
    expect(summary).toContain(
      "The working tree the verify command ran on holds changes that are not on the posted commit",
    );
  });

  it("a command that rewrites a tracked file of the tree it verifies (the tests' expected data) is not success: the row names the file", async () => {
    // The sample's broken sum, with a test whose expected value the command rewrites before running it.
    const repo = await makeSampleNodeRepo();
    repos.push(repo);
    const test = await repo.read("test/sum.test.js");
    const rewrite = "sed -i 's/, 5)/, -1)/' test/sum.test.js";
    const before = await verify(repo, ["--verify-cmd", "node --test"]);
    expect(before.code, "the build fails as committed").toBe(1);
    const r = await verify(repo, ["--verify-cmd", `${rewrite} && node --test`]);
    expect(await repo.read("test/sum.test.js"), "the command did rewrite the test").not.toBe(test);
    expect(r.code, r.stderr + r.stdout).toBe(4);
    expect(r.ledger?.rows[0]?.verify?.changedWhileRunning).toEqual({
      total: 1,
      examples: ["test/sum.test.js"],
    });
    expect(r.ledger?.conclusion).toMatchObject({
      conclusion: "action_required",
      rule: "verified-bytes-not-in-tree",
    });
    expect(r.stdout).toContain(
      "files of the tree the command itself changed or removed while it ran: test/sum.test.js",
    );
  });

  it("--verify-base --base with a ref the repository does not have is a usage error before anything runs: exit 64, no ledger", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const r = await verify(repo, ["--verify-cmd", "npm test", "--verify-base", "--base", "nosuchref"]);
    expect(r.code, r.stderr + r.stdout).toBe(64);
    expect(r.stderr).toContain("--base nosuchref names no commit in");
    expect(r.ledger).toBeNull();
  });

  // A new user's trial (closing note of the sixth session): a refused create exited 1, a failed run's code.
  it.each([401, 403, 404])(
    "--repository, GitHub answers %i to creating the check run: a setup error before anything runs — exit 64, checks: write and the fix named, the command never run, no ledger",
    async (status) => {
      const repo = await makeFixedSampleRepo();
      repos.push(repo);
      const github = await startGitHubServer({ repository: "octo-org/widgets" });
      onTestFinished(() => github.close());
      github.failNext({ method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs", status });

      const r = await verify(
        repo,
        ["--verify-cmd", "touch verify-ran && node --test", "--repository", "octo-org/widgets"],
        { GITHUB_TOKEN: "ghs_clitoken1234", GITHUB_API_URL: github.url },
      );

      expect(r.code, r.stderr + r.stdout).toBe(64);
      expect(r.stderr).toContain(`GitHub answered ${status}`);
      expect(r.stderr).toContain("`checks: write`");
      expect(r.stderr).toContain("GITHUB_TOKEN, else GH_TOKEN");
      expect(r.stderr).toContain("Nothing was run.");
      expect(r.stderr).not.toContain("ghs_clitoken1234");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(repo.dir, "verify-ran"))).toBe(false);
      expect(r.ledger).toBeNull();
      expect(github.state.checkRuns).toEqual([]);
      github.assertNoViolations();
    },
  );

  it("a command that only adds files (build outputs no .gitignore names) leaves the tree it verified as it was: success", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const r = await verify(repo, [
      "--verify-cmd",
      "mkdir -p out && echo built > out/bundle.js && node --test",
    ]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.ledger?.rows[0]?.verify?.changedWhileRunning).toBeUndefined();
    expect(r.ledger?.conclusion).toMatchObject({ conclusion: "success" });
  });

  it("fails with the one row FAIL (verify_failed), the exit code and output tail kept: exit 1, failure", async () => {
    const repo = await makeSampleNodeRepo();
    repos.push(repo);
    const r = await verify(repo, ["--verify-cmd", "node --test"]);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.ledger?.rows).toHaveLength(1);
    expect(r.ledger?.rows[0]).toMatchObject({ nodeId: "verify", verdict: "FAIL", cause: "verify_failed" });
    expect(r.ledger?.rows[0]?.verify?.exitCode).not.toBe(0);
    expect(r.ledger?.rows[0]?.verify?.outputTail).toContain("sum adds two numbers");
    expect(r.ledger?.conclusion).toMatchObject({ conclusion: "failure", outcome: "failed" });

    // A multi-line command (a workflow's `verify-cmd: |`) runs line by line, recorded as given, and every
    // one-line surface marks its line breaks: never `echo first node --test`, which reads as one command.
    const lines = await verify(repo, ["--verify-cmd", "echo first-line\nnode --test\n"]);
    expect(lines.code).toBe(1);
    expect(lines.ledger?.rows[0]?.verify?.command).toBe("echo first-line\nnode --test\n");
    expect(lines.ledger?.rows[0]?.verify?.outputTail).toMatch(/^first-line\n/);
    expect(lines.stdout).toContain("`echo first-line ⏎ node --test`");
    expect(lines.stdout).not.toContain("echo first-line node --test");
  });

  it("takes the command from the working tree's policy file when --verify-cmd is not given; with neither, exit 64 and nothing runs", async () => {
    const withPolicy = await makeFixedSampleRepo("fix", {
      ".github/evidence-gate.yml": "verify-cmd: node --test\n",
    });
    repos.push(withPolicy);
    const fromPolicy = await verify(withPolicy, []);
    expect(fromPolicy.code, fromPolicy.stderr + fromPolicy.stdout).toBe(0);
    expect(fromPolicy.ledger?.plan.buildEvidence).toEqual({
      kind: "attached",
      command: "node --test",
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

  it("--verify-repeat 3 on a command that passes, fails, passes: flaky, never green — exit 1, failure, the counts on the row", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const counter = join(mkdtempSync(join(tmpdir(), "eg-repeat-")), "n");
    // Odd runs pass, even runs fail: the same tree, a different result.
    const command = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; echo run $n; [ $((n % 2)) -eq 1 ]`;
    const r = await verify(repo, ["--verify-cmd", command, "--verify-repeat", "3"]);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(readFileSync(counter, "utf8").trim()).toBe("3");
    const row = r.ledger?.rows[0];
    expect(row).toMatchObject({ verdict: "FAIL", cause: "verify_failed" });
    expect(row?.verify).toMatchObject({ outcome: "failed", exitCode: 1, repeat: { runs: 3, passed: 2 } });
    // The failing run's output is the one kept.
    expect(row?.verify?.outputTail).toContain("run 2");
    expect(r.ledger?.conclusion?.conclusion).toBe("failure");
    expect(r.ledger?.conclusion?.reason).toContain('for sink "verify" and it was flaky: passed 2 of 3 runs');
    expect(r.stdout).toContain("flaky: passed 2 of 3 runs on the same tree (a flaky result is not a pass)");
  });

  it("--verify-repeat 2 on a passing build: success, 'in each of 2 runs'; the policy file's verify-repeat is a floor the flag cannot lower", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const r = await verify(repo, ["--verify-cmd", "node --test", "--verify-repeat", "2"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.ledger?.rows[0]?.verify?.repeat).toEqual({ runs: 2, passed: 2 });
    expect(r.stdout).toContain("in each of 2 runs on the same tree");

    const floored = await makeFixedSampleRepo("fix", { ".github/evidence-gate.yml": "verify-repeat: 3\n" });
    repos.push(floored);
    const f = await verify(floored, ["--verify-cmd", "node --test", "--verify-repeat", "1"]);
    expect(f.code, f.stderr + f.stdout).toBe(0);
    expect(f.ledger?.rows[0]?.verify?.repeat).toEqual({ runs: 3, passed: 3 });
    // The ledger says the file set it (the Policy line named only require-evidence before).
    expect(f.ledger?.plan.policy).toMatchObject({ requireEvidence: false, verifyRepeat: 3 });
    expect(f.stdout).toMatch(/^Policy: .*evidence-gate\.yml.* — require-evidence: false, verify-repeat: 3$/m);
  });

  it("a --verify-repeat that is not 1-10, or a policy verify-repeat of 11, is a usage error naming the fix: exit 64, nothing ran", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    for (const bad of ["0", "11", "two", "1.5"]) {
      const r = await verify(repo, ["--verify-cmd", "npm test", "--verify-repeat", bad]);
      expect(r.code, bad).toBe(64);
      expect(r.stderr).toContain(`--verify-repeat ${JSON.stringify(bad)}: give a whole number from 1 to 10`);
      expect(r.ledger).toBeNull();
    }
    const policy = await makeFixedSampleRepo("fix", { ".github/evidence-gate.yml": "verify-repeat: 11\n" });
    repos.push(policy);
    const p = await verify(policy, ["--verify-cmd", "npm test"]);
    expect(p.code, p.stdout).toBe(64);
    expect(p.stderr).toContain("verify-repeat may be at most 10 (each run is a full build)");
  });
});

describe("verify --verify-repeat with an empty value", () => {
  it("is the usage error --verify-repeat 0 is (exit 64, naming the flag and the range), not a silent once", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const r = await verify(repo, ["--verify-cmd", "true", "--verify-repeat", ""]);
    expect(r.code, r.stderr + r.stdout).toBe(64);
    expect(r.stderr).toContain('--verify-repeat "": give a whole number from 1 to 10');
    expect(r.ledger).toBeNull();
  });
});

describe("resume of a verify run", () => {
  it("is refused as a verify run (exit 64, run verify again), not as a run directory without state", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const ran = await verify(repo, ["--verify-cmd", "true"]);
    expect(ran.code, ran.stderr + ran.stdout).toBe(0);
    const runId = ran.ledger?.runId;
    expect(runId).toBeTypeOf("string");
    let stderr = "";
    const code = await runCliResume([String(runId), "--retry-failed", "--repo", repo.dir], {
      cwd: repo.dir,
      env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined },
      out: { write: () => {} },
      err: { write: (t: string) => (stderr += t) },
    });
    expect(code, stderr).toBe(64);
    expect(stderr).toContain("is a `verify` run");
    expect(stderr).toContain("run `evidence-gate verify` again");
    expect(stderr).not.toContain("state.json does not exist");
  });
});
