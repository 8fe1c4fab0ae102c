/**
 * Guards the CLI applies before anything runs or is spent (findings of a new-user trial): a check run is
 * posted only on the commit the run verifies, --commit never sweeps the user's own edits, paths are
 * checked up front, and --json keeps stdout to the JSON alone.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { type CliHarnessOptions, cliHarness } from "../support/cli-harness.js";
import { fixSumScript, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { commitAll } from "../support/temp-repo.js";

const script: CliHarnessOptions["script"] = (repo) => fixSumScript({ repoDir: repo.dir });

describe("the CLI refuses, before any model call, what would make its verdict lie", () => {
  test("--sha naming a commit the run does not verify is a usage error: exit 64, no model request", async () => {
    const h = await cliHarness({ script });
    const first = await h.repo.git(["rev-parse", "HEAD"]);
    await h.repo.write("README.md", "second commit\n");
    await commitAll(h.repo, "second");

    const r = await h.run(["--verify-cmd", "npm test", "--sha", first]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(`--sha ${first} is not the commit this run verifies`);
    expect(h.server.requests).toHaveLength(0);
  });

  test("--commit on a working tree with the user's own uncommitted edits is a usage error: nothing is committed", async () => {
    const h = await cliHarness({ script });
    const head = await h.repo.git(["rev-parse", "HEAD"]);
    await h.repo.write("my-private-notes.txt", "AWS_SECRET=hunter2\n");

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--commit needs a clean working tree");
    expect(h.server.requests).toHaveLength(0);
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(head);
    // The usage error comes first, with nothing before it: the key proxy's line is for a run that starts
    // (the harness gives an ANTHROPIC_API_KEY, so the proxy is set up; issue 26).
    expect(`${r.stdout}${r.stderr}`).not.toContain("key proxy");
    expect(r.stderr.trimStart().startsWith("evidence-gate auto: --commit needs a clean working tree")).toBe(
      true,
    );
  });

  test("--working-directory outside the repository is a usage error naming both", async () => {
    const h = await cliHarness({ script });

    const r = await h.run(["--verify-cmd", "npm test", "--working-directory", ".."]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--working-directory .. is outside the repository");
    expect(h.server.requests).toHaveLength(0);
  });

  test("a --summary-out in a folder that does not exist is refused before the run, not after it", async () => {
    const h = await cliHarness({ script });

    const r = await h.run(["--verify-cmd", "npm test", "--summary-out", join(h.scratch, "missing", "s.md")], {
      summaryOut: false,
    });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("does not exist");
    expect(h.server.requests).toHaveLength(0);
    expect(h.runDirs()).toHaveLength(0);
  });

  test("--summary-out /proc/x.md (access says yes to root, creating fails) is refused before the run, with no stack trace", async () => {
    const h = await cliHarness({ script });

    const r = await h.run(["--verify-cmd", "npm test", "--summary-out", "/proc/x.md"], { summaryOut: false });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--summary-out /proc/x.md cannot be written");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(h.server.requests).toHaveLength(0);
    expect(h.runDirs()).toHaveLength(0);
  });

  test("a refused run leaves nothing in the repository: no .evidence-gate folder", async () => {
    const h = await cliHarness({ script });

    const r = await h.run([]);

    expect(r.exitCode).toBe(3);
    expect(existsSync(join(h.repo.dir, ".evidence-gate"))).toBe(false);
  });
});

describe("an interrupted CLI run stops its nodes and finishes its ledger", () => {
  test("SIGINT during a verify: the build's process group is killed, the ledger is written cancelled, exit 130", async () => {
    const { spawn } = await import("node:child_process");
    const { readFileSync, writeFileSync } = await import("node:fs");
    const { DIST_CLI, CLAUDE_BIN, DEFAULT_GOAL } = await import("../support/cli-harness.js");
    const { processIsGone, eventually } = await import("../proc/process-probe.js");
    const h = await cliHarness({
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });
    const pidFile = join(h.scratch, "verify.pid");
    const verify = `echo $$ > ${pidFile}; sleep 60`;
    const child = spawn(
      process.execPath,
      [
        DIST_CLI,
        "auto",
        "--goal",
        DEFAULT_GOAL,
        "--repo",
        h.repo.dir,
        "--claude-path",
        CLAUDE_BIN,
        "--verify-cmd",
        verify,
      ],
      { env: h.baseEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const started = await eventually(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "",
      30_000,
    );
    expect(started, "the verify command never started").toBe(true);
    const verifyPid = Number(readFileSync(pidFile, "utf8").trim());
    child.kill("SIGINT");
    const code = await exited;

    expect(code, stdout).toBe(130);
    expect(await eventually(() => processIsGone(verifyPid), 10_000)).toBe(true);
    const ledgerLine = /^ledger: (.+)$/m.exec(stdout);
    expect(ledgerLine, stdout).not.toBeNull();
    const ledger = JSON.parse(readFileSync(ledgerLine![1]!, "utf8")) as {
      conclusion: { conclusion: string };
    };
    expect(ledger.conclusion.conclusion).toBe("cancelled");
    // auto keeps its state: the interrupted run says how to continue it.
    expect(stdout).toContain("--retry-failed");
    writeFileSync(pidFile, "");
  });
});

describe("an interrupted `verify` suggests no resume: a verify run keeps no state.json to resume", () => {
  test("SIGINT during verify: exit 130, cancelled, and no `resume … --retry-failed` line", async () => {
    const { spawn } = await import("node:child_process");
    const { readFileSync } = await import("node:fs");
    const { DIST_CLI } = await import("../support/cli-harness.js");
    const { eventually } = await import("../proc/process-probe.js");
    const h = await cliHarness({ script });
    const pidFile = join(h.scratch, "verify-only.pid");
    const child = spawn(
      process.execPath,
      [DIST_CLI, "verify", "--repo", h.repo.dir, "--verify-cmd", `echo $$ > ${pidFile}; sleep 60`],
      { env: h.baseEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const started = await eventually(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "",
      30_000,
    );
    expect(started, "the verify command never started").toBe(true);
    child.kill("SIGINT");
    expect(await exited, stdout).toBe(130);
    expect(stdout).toMatch(/cancelled/);
    expect(stdout).not.toContain("--retry-failed");
  });
});

describe("--repository posts the check run through the API, and a refused write is reported, not swallowed", () => {
  test("a 403 on creating the check run: exit 64 (setup), a message naming checks: write, no model request, no stack trace", async () => {
    const { startGitHubServer } = await import("../support/github-server/index.js");
    const github = await startGitHubServer({ repository: "octo-org/widgets" });
    onTestFinished(() => github.close());
    github.failNext({ method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs", status: 403 });
    const h = await cliHarness({ script });

    const r = await h.run(["--verify-cmd", "npm test", "--repository", "octo-org/widgets"], {
      env: { GITHUB_TOKEN: "ghs_clitoken1234", GITHUB_API_URL: github.url },
      checkRunOut: false,
    });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("checks: write");
    expect(r.stderr).toContain("Nothing was run.");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(h.server.requests).toHaveLength(0);
    github.assertNoViolations();
  });

  test("a posted review run: the check run is created in progress and completed on HEAD, every request valid; --json prints the ledger alone on stdout, the progress lines on stderr", async () => {
    const { startGitHubServer } = await import("../support/github-server/index.js");
    const github = await startGitHubServer({ repository: "octo-org/widgets" });
    onTestFinished(() => github.close());
    const h = await cliHarness({
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });
    const head = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.run(["--accept-no-build-evidence", "--repository", "octo-org/widgets", "--json"], {
      env: { GITHUB_TOKEN: "ghs_clitoken1234", GITHUB_API_URL: github.url },
      checkRunOut: false,
    });

    expect(r.exitCode, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout) as { runId: string; conclusion: { conclusion: string } };
    expect(parsed.conclusion.conclusion).toBe("neutral");
    expect(r.stderr).toContain("plan: 1 node");
    const writes = github.calls.filter(
      (c) => c.path.endsWith("/check-runs") || /\/check-runs\/\d+$/.test(c.path),
    );
    const create = writes[0]!;
    expect(create.method).toBe("POST");
    expect((create.body as { head_sha: string; status: string }).head_sha).toBe(head);
    const last = writes[writes.length - 1]!;
    expect((last.body as { status: string; conclusion: string }).conclusion).toBe("neutral");
    github.assertNoViolations();
  });
});

describe("paths and secrets that must not lead a verified run astray", () => {
  test("a --working-directory that is a symlink out of the repository is refused like ../", async () => {
    const { mkdtempSync, symlinkSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const h = await cliHarness({ script });
    const outside = mkdtempSync(join(tmpdir(), "eg-outside-"));
    symlinkSync(outside, join(h.repo.dir, "w"));

    const r = await h.run(["--verify-cmd", "npm test", "--working-directory", "w"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--working-directory w is outside the repository");
    expect(h.server.requests).toHaveLength(0);
  });

  test("--commit never commits a known secret: the token a node wrote stays out of git history, and the CLI says why", async () => {
    const token = "ghs_committedsecret0123456789";
    const h = await cliHarness({
      script: (repo) => fixSumScript({ repoDir: repo.dir, newBody: `return a + b; // ${token}` }),
    });
    const head = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.run(["--verify-cmd", "npm test", "--commit"], { env: { GITHUB_TOKEN: token } });

    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(head);
    expect(r.stdout).toContain("hold a known secret");
    expect(r.ledger?.patch?.holdsSecret).toBe(true);
    expect(r.stdout).not.toContain(token);
    expect(r.ledger?.conclusion?.conclusion).not.toBe("success");
  });
});

describe("--sha on a merge checkout names what was verified", () => {
  test("posting on the merged head says the evidence is the merge of that head, not the head itself", async () => {
    const { makeMergeCheckout } = await import("../support/temp-repo.js");
    let headSha = "";
    const h = await cliHarness({
      makeRepo: async () => {
        const repo = await makeMergeCheckout();
        headSha = repo.headSha;
        return repo;
      },
      script: (repo) => fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }),
    });

    const r = await h.run(["--accept-no-build-evidence", "--sha", headSha]);

    expect(r.exitCode, r.stderr).toBe(0);
    // Locally the base branch's name is not known: the base parent's short SHA stands in for it.
    expect(r.ledger?.startingCommit?.description).toMatch(
      new RegExp(`^the merge of ${headSha.slice(0, 7)} into [0-9a-f]{7}$`),
    );
    const create = r.checkRunRequests!.find((q) => q.method === "POST")!;
    expect((create.body as { head_sha: string }).head_sha).toBe(headSha);
  });
});

describe("--commit commits only evidence that would stand on the commit", () => {
  test("a passed run whose build used a git-ignored file a node wrote is not committed: HEAD stays, the CLI says why", async () => {
    const { MARKS, PASS_PATTERN } = await import("../support/scenarios/fix-sum.js");
    const plan = JSON.stringify({
      name: "fix-sum",
      version: "1",
      nodes: [
        {
          id: "implement",
          prompt: `${MARKS.implement} so sum works.`,
          allowed_tools: ["Read", "Edit", "Write"],
        },
        {
          id: "check",
          depends_on: ["implement"],
          prompt: `${MARKS.check} and reply PASS.`,
          allowed_tools: ["Read"],
          success_check: { result_matches: PASS_PATTERN },
        },
      ],
    });
    const h = await cliHarness({
      script: (repo) => {
        const base = fixSumScript({ repoDir: repo.dir, plannerReplies: [plan] });
        const implement = base.conversations.find((c) => c.name === "implement")!;
        const extra = {
          tool_calls: [
            {
              name: "Write",
              input: { file_path: join(repo.dir, "node_modules", "planted.js"), content: "export {};\n" },
            },
          ],
        };
        return {
          conversations: base.conversations.map((c) =>
            c === implement ? { ...c, turns: [extra, ...c.turns] } : c,
          ),
        };
      },
    });
    const head = await h.repo.git(["rev-parse", "HEAD"]);

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.ledger?.conclusion?.conclusion).toBe("action_required");
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(head);
    expect(r.stdout).toContain(
      "--commit: nothing was committed because its evidence would end action_required",
    );
  });
});
