/**
 * `evidence-gate report` through the bundle as a user runs it (`node dist/cli.js report …`; build first):
 * an API that does not answer. Octokit's default log is bound to the process's console when its module
 * loads, so only a real process's stderr shows whether its request log leaks. The in-process cases are
 * test/cli/report-command.test.ts.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, it, onTestFinished } from "vitest";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { DIST_CLI } from "../support/cli-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { hermeticGitEnv, makeFixedSampleRepo } from "../support/temp-repo.js";

const TOKEN = "ghs_reportcommandtoken1234";

it("no answer from the API: the message names the API root and GITHUB_API_URL, exit 1, no Octokit request log, no token", async () => {
  const repo = await makeFixedSampleRepo();
  onTestFinished(() => repo.cleanup());
  let stdout = "";
  const code = await runCliVerify(["--repo", repo.dir, "--verify-cmd", "npm test"], {
    cwd: repo.dir,
    env: { ...hermeticGitEnv, ANTHROPIC_API_KEY: undefined },
    out: { write: (t: string) => (stdout += t) },
    err: { write: () => true },
  });
  expect(code, stdout).toBe(0);
  const ledgerPath = /^ledger: (.+)$/m.exec(stdout)?.[1];
  if (ledgerPath === undefined) throw new Error(`no ledger line:\n${stdout}`);
  const ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as Ledger;

  const closed = await startGitHubServer();
  const closedUrl = closed.url;
  await closed.close();
  const unreachable = spawnSync(
    process.execPath,
    [DIST_CLI, "report", ledger.runId, "--repository", "octo-org/widgets"],
    {
      cwd: repo.dir,
      encoding: "utf8",
      env: {
        ...hermeticGitEnv,
        GITHUB_TOKEN: TOKEN,
        GITHUB_API_URL: closedUrl,
        EVIDENCE_GATE_BACKOFF_SECOND_MS: "1",
      },
    },
  );
  expect(unreachable.status, unreachable.stderr).toBe(1);
  expect(unreachable.stderr).toContain(`no answer from the GitHub API at ${new URL(closedUrl).origin}`);
  expect(unreachable.stderr).toContain("GITHUB_API_URL");
  expect(unreachable.stderr).not.toMatch(/with id/);
  expect(unreachable.stderr + unreachable.stdout).not.toContain(TOKEN);
});
