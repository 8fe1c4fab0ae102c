/**
 * The crash path of a run that built a check-run reporter (`completeAfterCrash`, issue 24 item 3: the reporter
 * is handed down and the mode that built it completes its check run on a crash, instead of handing it back up
 * to the action's last-resort handler). A crashed run never leaves the check run in progress or green:
 * an internal error completes it `failure` and is rethrown (the last-resort handler then sets `outcome:
 * failed`); a missing trusted `git` is the job's set-up to fix, a usage error on the check run. Against the
 * local GitHub double (GitHub's description) with the real reporter.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckRunClient } from "../../src/github/check-run.js";
import { CheckRunReporter } from "../../src/github/check-run-reporter.js";
import { createOctokit } from "../../src/github/octokit.js";
import { UntrustedToolError } from "../../src/proc/trusted-tools.js";
import { completeAfterCrash } from "../../src/pull-request/step-result.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";
import { recordingRunner } from "../support/recording-runner.js";

const HEAD_SHA = "9f3c1e2d4b5a69788766554433221100ffeeddcc";
const RUN_ID = "20250311-093000-a1b2c3";

let server: GitHubServer;
let dir: string;
let summaryPath: string;

beforeEach(async () => {
  server = await startGitHubServer({ token: "ghs_test" });
  dir = mkdtempSync(join(tmpdir(), "eg-crash-"));
  summaryPath = join(dir, "summary.md");
  writeFileSync(summaryPath, "");
});
afterEach(async () => {
  server.assertNoViolations();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function reporter(): CheckRunReporter {
  const octokit = createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING });
  return new CheckRunReporter({
    client: new CheckRunClient({ octokit, owner: "octo-org", repo: "widgets" }),
    name: "evidence-gate",
    headSha: HEAD_SHA,
  });
}

describe("completeAfterCrash: the mode that built the reporter completes its check run", () => {
  it("an internal error: the open check run completes failure quoting it, and the error is rethrown", async () => {
    const r = reporter();
    await r.open(RUN_ID, "starting");
    const runner = recordingRunner();
    const crash = new Error("disk on fire");
    await expect(completeAfterCrash(runner, r, crash, { GITHUB_STEP_SUMMARY: summaryPath })).rejects.toBe(
      crash,
    );
    expect(server.state.checkRuns).toEqual([
      expect.objectContaining({ status: "completed", conclusion: "failure" }),
    ]);
    expect(JSON.stringify(server.state.checkRuns[0])).toContain("disk on fire");
    // The step's outcome is the last-resort handler's to set, once.
    expect(runner.failed).toEqual([]);
  });

  it("a check run never opened (a read-only token, or the crash came first): no API call, the error rethrown", async () => {
    const r = reporter();
    const crash = new Error("before the check run");
    await expect(
      completeAfterCrash(recordingRunner(), r, crash, { GITHUB_STEP_SUMMARY: summaryPath }),
    ).rejects.toBe(crash);
    expect(server.state.checkRuns).toEqual([]);
  });

  it("no trusted git: a usage error on the check run (action_required), the step's outcome set, nothing rethrown", async () => {
    const r = reporter();
    await r.open(RUN_ID, "starting");
    const runner = recordingRunner();
    const crash = new UntrustedToolError("git", "no trusted git on PATH: put the runner's git first on PATH");
    await completeAfterCrash(runner, r, crash, { GITHUB_STEP_SUMMARY: summaryPath });
    expect(server.state.checkRuns).toEqual([
      expect.objectContaining({ status: "completed", conclusion: "action_required" }),
    ]);
    expect(runner.outputs.outcome).toBe("usage-error");
    expect(runner.failed.join("\n")).toContain("no trusted git on PATH");
    expect(readFileSync(summaryPath, "utf8")).toContain("no trusted git on PATH");
  });

  it("a completed check run is left alone: the error is rethrown without a second completion", async () => {
    const r = reporter();
    await r.open(RUN_ID, "starting");
    await r.end("success", "done", "summary");
    const crash = new Error("after the verdict");
    await expect(
      completeAfterCrash(recordingRunner(), r, crash, { GITHUB_STEP_SUMMARY: summaryPath }),
    ).rejects.toBe(crash);
    expect(server.state.checkRuns).toEqual([
      expect.objectContaining({ status: "completed", conclusion: "success" }),
    ]);
  });
});
