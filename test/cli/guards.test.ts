/**
 * Guards the CLI applies before anything runs or is spent (findings of a new-user trial), in-process
 * (issue 24: the CLI's decisions in the fast tier; test/support/cli-in-process.ts, the model calls played by
 * the scripted stand-in): a check run is posted only on the commit the run verifies, --commit never sweeps
 * the user's own edits nor commits a secret or evidence that would not stand, paths are checked up front,
 * and --json keeps stdout to the JSON alone. Moved from test/e2e/cli-guards.test.ts, which keeps the
 * interrupted runs (SIGINT to `node dist/cli.js`).
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { replied } from "../engine/port-harness.js";
import { cliInProcess } from "../support/cli-in-process.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { MARKS, PASS_PATTERN, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { fixSumPlays } from "../support/scenarios/fix-sum-plays.js";
import { commitAll, FIXED_SUM, makeMergeCheckout } from "../support/temp-repo.js";

describe("the CLI refuses, before any model call, what would make its verdict lie", () => {
  test("--sha naming a commit the run does not verify is a usage error: exit 64, no model request", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const first = await h.repo.git(["rev-parse", "HEAD"]);
    await h.repo.write("README.md", "second commit\n");
    await commitAll(h.repo, "second");

    const r = await h.run(["--verify-cmd", "npm test", "--sha", first]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain(`--sha ${first} is not the commit this run verifies`);
    expect(h.calls()).toHaveLength(0);
  });

  test("--commit on a working tree with the user's own uncommitted edits is a usage error: nothing is committed", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });
    const head = await h.repo.git(["rev-parse", "HEAD"]);
    await h.repo.write("my-private-notes.txt", "AWS_SECRET=hunter2\n");

    const r = await h.run(["--verify-cmd", "npm test", "--commit"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--commit needs a clean working tree");
    expect(h.calls()).toHaveLength(0);
    expect(await h.repo.git(["rev-parse", "HEAD"])).toBe(head);
    // The usage error comes first, with nothing before it: the key proxy's line is for a run that starts
    // (the harness gives an ANTHROPIC_API_KEY, so the proxy is set up; issue 26).
    expect(`${r.stdout}${r.stderr}`).not.toContain("key proxy");
    expect(r.stderr.trimStart().startsWith("evidence-gate auto: --commit needs a clean working tree")).toBe(
      true,
    );
  });

  test("--working-directory outside the repository is a usage error naming both", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.run(["--verify-cmd", "npm test", "--working-directory", ".."]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--working-directory .. is outside the repository");
    expect(h.calls()).toHaveLength(0);
  });

  test("a --summary-out in a folder that does not exist is refused before the run, not after it", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.run(["--verify-cmd", "npm test", "--summary-out", join(h.scratch, "missing", "s.md")], {
      summaryOut: false,
    });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("does not exist");
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toHaveLength(0);
  });

  test("--summary-out /proc/x.md (access says yes to root, creating fails) is refused before the run, with no stack trace", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.run(["--verify-cmd", "npm test", "--summary-out", "/proc/x.md"], { summaryOut: false });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--summary-out /proc/x.md cannot be written");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(h.calls()).toHaveLength(0);
    expect(h.runDirs()).toHaveLength(0);
  });

  test("a refused run leaves nothing in the repository: no .evidence-gate folder", async () => {
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.run([]);

    expect(r.exitCode).toBe(3);
    expect(existsSync(join(h.repo.dir, ".evidence-gate"))).toBe(false);
  });
});

describe("--repository posts the check run through the API, and a refused write is reported, not swallowed", () => {
  test("a 403 on creating the check run: exit 64 (setup), a message naming checks: write, no model request, no stack trace", async () => {
    const github = await startGitHubServer({ repository: "octo-org/widgets" });
    onTestFinished(() => github.close());
    github.failNext({ method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs", status: 403 });
    const h = await cliInProcess({ plays: fixSumPlays() });

    const r = await h.run(["--verify-cmd", "npm test", "--repository", "octo-org/widgets"], {
      env: { GITHUB_TOKEN: "ghs_clitoken1234", GITHUB_API_URL: github.url },
      checkRunOut: false,
    });

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("checks: write");
    expect(r.stderr).toContain("Nothing was run.");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(h.calls()).toHaveLength(0);
    github.assertNoViolations();
  });

  test("a posted review run: the check run is created in progress and completed on HEAD, every request valid; --json prints the ledger alone on stdout, the progress lines on stderr", async () => {
    const github = await startGitHubServer({ repository: "octo-org/widgets" });
    onTestFinished(() => github.close());
    const h = await cliInProcess({
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
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
    const h = await cliInProcess({ plays: fixSumPlays() });
    const outside = mkdtempSync(join(tmpdir(), "eg-outside-"));
    onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
    symlinkSync(outside, join(h.repo.dir, "w"));

    const r = await h.run(["--verify-cmd", "npm test", "--working-directory", "w"]);

    expect(r.exitCode).toBe(64);
    expect(r.stderr).toContain("--working-directory w is outside the repository");
    expect(h.calls()).toHaveLength(0);
  });

  test("--commit never commits a known secret: the token a node wrote stays out of git history, and the CLI says why", async () => {
    const token = "ghs_committedsecret0123456789";
    const h = await cliInProcess({
      plays: fixSumPlays({ newBody: `return a + b; // ${token}` }),
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
    let headSha = "";
    const h = await cliInProcess({
      makeRepo: async () => {
        const repo = await makeMergeCheckout();
        headSha = repo.headSha;
        return repo;
      },
      plays: fixSumPlays({ plannerReplies: [reviewOnlyPlan()] }),
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
    // The implement node also writes a git-ignored file (the real CLI's Write tool call, as a play's write).
    const h = await cliInProcess({
      plays: {
        ...fixSumPlays({ plannerReplies: [plan] }),
        implement: [
          replied("claude", "Fixed sum() in src/sum.js.", {
            writes: { "node_modules/planted.js": "export {};\n", "src/sum.js": FIXED_SUM },
          }),
        ],
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
