/**
 * `--timeout DURATION` (SPEC §6 `timed_out`, §10 exit 124; issue 14): the engine stops the whole run at
 * the bound. `run` over a node whose CLI (the fake `claude`, a real child of the exec seam) hangs with a
 * `sleep` grandchild in its process group: at the bound the run ends `timed_out` with exit 124, the node's
 * row says the bound stopped it, the run directory holds the ledger, the process group is gone, and the
 * check run posted to the OpenAPI-validating GitHub server is completed `timed_out`. `verify` over a
 * command that sleeps ends the same way.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { runCliRun } from "../../src/cli/run-command.js";
import { runCliVerify } from "../../src/cli/verify-command.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { eventually, killLeftovers } from "../proc/process-probe.js";
import {
  fakeClaudeEnv,
  fakeClaudeExecutable,
  hangScenario,
  readFakeReport,
} from "../support/fake-claude/index.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { hermeticGitEnv, makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const repos: TempRepo[] = [];
const leftovers: number[] = [];
afterEach(async () => {
  killLeftovers(leftovers.splice(0));
  for (const repo of repos.splice(0)) await repo.cleanup();
});

/** True when no process of group `pgid` is left. */
function groupIsGone(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
    throw error;
  }
}

async function capture(
  command: typeof runCliRun,
  argv: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
) {
  let stdout = "";
  let stderr = "";
  const code = await command(argv, {
    cwd,
    env,
    out: { write: (t: string) => (stdout += t) },
    err: { write: (t: string) => (stderr += t) },
  });
  const ledgerPath = /^ledger: (.+)$/m.exec(stdout)?.[1];
  const ledger = ledgerPath ? (JSON.parse(readFileSync(ledgerPath, "utf8")) as Ledger) : null;
  return { code, stdout, stderr, ledger };
}

describe("--timeout stops the whole run", () => {
  it("run: a hanging node's process group is killed at the bound; exit 124, timed_out, the check run completed timed_out", async () => {
    const gh = await startGitHubServer({ repository: "octo-org/widgets" });
    onTestFinished(() => gh.close());
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const reportFile = join(repo.dir, "..", `fake-report-${process.pid}.json`);
    const scenario = { ...hangScenario("claude", { sleeper: true }), reportFile };
    const fakeEnv = fakeClaudeEnv(join(repo.dir, ".."), `hang-${process.pid}`, scenario);
    const graph = join(repo.dir, "..", `hang-${process.pid}.yaml`);
    writeFileSync(
      graph,
      'name: hang\nversion: "1"\nnodes:\n  - id: stuck\n    prompt: wait\n    timeout: 10m\n    success_check:\n      verify:\n        command: npm test\n',
    );

    const r = await capture(
      runCliRun,
      [
        graph,
        "--repo",
        repo.dir,
        "--claude-path",
        fakeClaudeExecutable(),
        // Long enough for the node to start on a loaded machine (the bound covers the run's setup too).
        "--timeout",
        "10s",
        "--repository",
        "octo-org/widgets",
      ],
      repo.dir,
      {
        ...hermeticGitEnv,
        ...fakeEnv,
        ANTHROPIC_API_KEY: "sk-ant-timeouttest1234",
        GITHUB_TOKEN: "ghs_timeouttest1234",
        GITHUB_API_URL: gh.url,
      },
    );
    const report = readFakeReport(reportFile);
    if (report !== null)
      leftovers.push(report.pid, ...(report.sleeperPid !== null ? [report.sleeperPid] : []));

    expect(r.code, r.stderr + r.stdout).toBe(124);
    expect(r.ledger?.conclusion).toMatchObject({ conclusion: "timed_out", outcome: "timed-out" });
    expect(r.ledger?.conclusion?.title).toBe("Timed out after 10s");
    expect(r.ledger?.rows).toEqual([
      expect.objectContaining({
        nodeId: "stuck",
        verdict: "FAIL",
        cause: "cancelled",
        detail: expect.stringContaining("the run reached its time bound (--timeout 10s)"),
      }),
    ]);
    expect(r.stdout).toContain("timed_out");
    // The node's CLI and its grandchild were in one process group, and the group is gone.
    expect(report?.sleeperPid).toBeTypeOf("number");
    expect(await eventually(() => groupIsGone(report!.pid), 5000)).toBe(true);
    expect(gh.state.checkRuns).toHaveLength(1);
    expect(gh.state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "timed_out" });
    gh.assertNoViolations();
  });

  it("verify: a command that sleeps is stopped at 1s; exit 124, its row says the bound stopped it", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    const r = await capture(
      runCliVerify,
      ["--repo", repo.dir, "--verify-cmd", "sleep 30", "--timeout", "1s"],
      repo.dir,
      { ...hermeticGitEnv },
    );
    expect(r.code, r.stderr + r.stdout).toBe(124);
    expect(r.ledger?.conclusion).toMatchObject({ conclusion: "timed_out", outcome: "timed-out" });
    expect(r.ledger?.rows[0]).toMatchObject({
      verdict: "FAIL",
      cause: "cancelled",
      detail: "verify `sleep 30` stopped: the run reached its time bound (--timeout 1s)",
    });
  });

  it("refuses a --timeout that is not a duration from 1s to 168h: exit 64, nothing runs", async () => {
    const repo = await makeFixedSampleRepo();
    repos.push(repo);
    for (const [given, words] of [
      ["soon", "--timeout:"],
      ["500ms", '--timeout "500ms": give a duration from 1s to 168h'],
    ] as const) {
      const r = await capture(
        runCliVerify,
        ["--repo", repo.dir, "--verify-cmd", "true", "--timeout", given],
        repo.dir,
        { ...hermeticGitEnv },
      );
      expect(r.code).toBe(64);
      expect(r.stderr).toContain(words);
      expect(r.ledger).toBeNull();
    }
  });
});
