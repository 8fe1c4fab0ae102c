/**
 * `evidence-gate report RUN_ID --repository OWNER/NAME [--sha SHA]` (SPEC §11, issue 14): a saved run's
 * ledger posted as a completed check run through the local GitHub server, which validates every request
 * and response against GitHub's OpenAPI description. The runs are real `verify` runs over the sample
 * project's tests (`node --test`, what its `npm test` runs, without npm's start: npm is not what is tested
 * here). Posting twice on one head SHA leaves one check run; a SHA the ledger is not about,
 * a missing token and a refused write are errors the user sees (an API that does not answer, through the
 * bundle: test/e2e/cli-report.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { runCliReport } from "../../src/cli/report-command.js";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerJson } from "../../src/ledger/render-json.js";
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

const TOKEN = "ghs_reportcommandtoken1234";

async function capture(
  command: typeof runCliVerify,
  argv: readonly string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await command(argv, {
    cwd,
    env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined, EVIDENCE_GATE_BACKOFF_SECOND_MS: "1", ...env },
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

/** A finished verify run in `repo` (no check run posted): its ledger. */
async function verifyRun(repo: TempRepo): Promise<Ledger> {
  const r = await capture(runCliVerify, ["--repo", repo.dir, "--verify-cmd", "node --test"], repo.dir);
  const path = /^ledger: (.+)$/m.exec(r.stdout)?.[1];
  if (path === undefined) throw new Error(`no ledger line:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(readFileSync(path, "utf8")) as Ledger;
}

async function github() {
  const server = await startGitHubServer({ repository: "octo-org/widgets" });
  onTestFinished(() => server.close());
  return server;
}

describe("evidence-gate report RUN_ID", () => {
  it("posts a passed run's ledger on its commit; a second report on that SHA updates the same check run", async () => {
    const gh = await github();
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const ledger = await verifyRun(repo);
    const head = await repo.git(["rev-parse", "HEAD"]);
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.url };
    const argv = [ledger.runId, "--repo", repo.dir, "--repository", "octo-org/widgets", "--sha", head];

    const first = await capture(runCliReport, argv, repo.dir, env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^created check run \d+ .*: success\n$/);
    const second = await capture(runCliReport, argv, repo.dir, env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^updated check run \d+ .*: success\n$/);

    expect(gh.state.checkRuns).toHaveLength(1);
    const run = gh.state.checkRuns[0]!;
    expect(run).toMatchObject({
      name: "evidence-gate",
      headSha: head,
      externalId: ledger.runId,
      status: "completed",
      conclusion: "success",
    });
    expect(run.output.summary).toContain("verify (engine)");
    // The token from GITHUB_TOKEN authenticated every call, and no request body carries it.
    expect(gh.calls.every((c) => c.authorization === `token ${TOKEN}`)).toBe(true);
    expect(JSON.stringify(gh.calls.map((c) => c.body))).not.toContain(TOKEN);
    gh.assertNoViolations();
  });

  it("posts a failed run as failure on the ledger's own commit when --sha is left out, under --check-name", async () => {
    const gh = await github();
    const repo = await makeSampleNodeRepo();
    repos.push(repo);
    const ledger = await verifyRun(repo);
    const r = await capture(
      runCliReport,
      [ledger.runId, "--repository", "octo-org/widgets", "--check-name", "gate"],
      repo.dir,
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.url },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(gh.state.checkRuns).toHaveLength(1);
    expect(gh.state.checkRuns[0]).toMatchObject({
      name: "gate",
      headSha: await repo.git(["rev-parse", "HEAD"]),
      conclusion: "failure",
    });
    gh.assertNoViolations();
  });

  it("refuses a SHA the ledger is not about, and a missing token, before any request: exit 64", async () => {
    const gh = await github();
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const ledger = await verifyRun(repo);
    const head = await repo.git(["rev-parse", "HEAD"]);
    const other = "b".repeat(40);

    const wrong = await capture(
      runCliReport,
      [ledger.runId, "--repository", "octo-org/widgets", "--sha", other],
      repo.dir,
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.url },
    );
    expect(wrong.code).toBe(64);
    expect(wrong.stderr).toContain(`is about ${head}, not ${other}`);

    const noToken = await capture(
      runCliReport,
      [ledger.runId, "--repository", "octo-org/widgets"],
      repo.dir,
      {
        GITHUB_API_URL: gh.url,
      },
    );
    expect(noToken.code).toBe(64);
    expect(noToken.stderr).toContain("GITHUB_TOKEN");

    const noRepository = await capture(runCliReport, [ledger.runId], repo.dir, { GITHUB_TOKEN: TOKEN });
    expect(noRepository.code).toBe(64);
    expect(noRepository.stderr).toContain("report needs --repository OWNER/NAME");
    expect(gh.calls).toHaveLength(0);
  });

  it("a saved ledger whose gate approver is free text (not a login, a bot or NAME (local user)) is not posted: exit 64, no request", async () => {
    const gh = await github();
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const ledger = await verifyRun(repo);
    const head = await repo.git(["rev-parse", "HEAD"]);
    const path = join(repo.dir, ".evidence-gate", "runs", ledger.runId, "ledger.json");
    const forged: Ledger = {
      ...ledger,
      rows: [
        {
          ...ledger.rows[0]!,
          nodeId: "sign-off",
          verdict: "PASS",
          qualifier: "approved",
          approvedBy: { login: "@octocat (GitHub-verified maintainer)", headSha: head },
          detail: "gate approved",
        },
        ...ledger.rows,
      ],
    };
    writeFileSync(path, renderLedgerJson(forged));

    const r = await capture(
      runCliReport,
      [ledger.runId, "--repository", "octo-org/widgets", "--sha", head],
      repo.dir,
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: gh.url },
    );
    expect(r.code).toBe(64);
    expect(r.stderr).toContain(
      "rows.0.approvedBy.login: not an approver the product records: a GitHub login, a bot's name[bot], or NAME (local user)",
    );
    expect(r.stdout).not.toContain("octocat");
    expect(gh.calls).toHaveLength(0);
  });

  /** `report` of a fresh verify run while the API double answers `failed` with 403 once. */
  async function reportRefused(failed: { method: string; pathPattern: string }) {
    const gh = await github();
    gh.failNext({ ...failed, status: 403 });
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const ledger = await verifyRun(repo);
    const r = await capture(runCliReport, [ledger.runId, "--repository", "octo-org/widgets"], repo.dir, {
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: gh.url,
    });
    gh.assertNoViolations();
    return r;
  }

  it("a refused write (403) is reported with exit 1, the token never printed", async () => {
    const r = await reportRefused({ method: "POST", pathPattern: "/repos/{owner}/{repo}/check-runs" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the check run could not be posted");
    expect(r.stderr).toContain("checks: write");
    // A CLI user is told which token needs the permission, not to edit a job's permissions (a new user's trial).
    expect(r.stderr).toContain('Could not create check run "evidence-gate"');
    expect(r.stderr).toContain(
      "Writing check runs there needs the token the CLI uses (GITHUB_TOKEN, else GH_TOKEN) to have `checks: write` on the repository",
    );
    expect(r.stderr).not.toContain("to the job");
    expect(r.stderr + r.stdout).not.toContain(TOKEN);
  });

  it("a refused listing of check runs (403) names the listing, as the API answered it, and the CLI's token", async () => {
    const r = await reportRefused({
      method: "GET",
      pathPattern: "/repos/{owner}/{repo}/commits/{ref}/check-runs",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Could not list check runs named "evidence-gate"');
    expect(r.stderr).toContain("GitHub answered 403");
    expect(r.stderr).toContain("Listing or reading check runs there needs the token the CLI uses");
    expect(r.stderr).not.toContain("to the job");
  });
});
