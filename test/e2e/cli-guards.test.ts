/**
 * An interrupted CLI run stops what it started and finishes its ledger: SIGINT to `node dist/cli.js auto`
 * during the verify command (one real run: the real pinned `claude` plans and reviews against the scripted
 * model server) and to `node dist/cli.js verify` — signals only the real process shows.
 *
 * The guards the CLI applies before anything runs or is spent (--sha, --commit on the user's edits, a
 * secret or an ignored file, --working-directory, --summary-out, a refused write to GitHub, --json and a
 * posted check run, a merge checkout) run in-process through the model port: test/cli/guards.test.ts
 * (issue 24).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type CliHarnessOptions, cliHarness } from "../support/cli-harness.js";
import { fixSumScript, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";

const script: CliHarnessOptions["script"] = (repo) => fixSumScript({ repoDir: repo.dir });

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
