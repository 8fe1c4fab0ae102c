/**
 * `isolate-user` on the bundle as the runner runs it (`node dist/index.js`; build first). NEEDS ROOT: the
 * action, started as root with the default `isolate-user: auto`, creates the user `evidence-gate-pr` on
 * this machine (idempotently) and runs the verify command as it (issue 12 item 3, acceptance: the verify
 * command cannot read the engine's `/proc/<pid>/environ` nor the run directory's `state.json`, and still
 * builds and tests the workspace). `RUNNER_TEMP` is made as the runner makes it (mode 0755).
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actionTestResources, stepDebug } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { makeFixedSampleRepo } from "../support/temp-repo.js";

const open = actionTestResources();

describe("as root: isolate-user auto runs the verify command as the separate user", () => {
  it("as root: mode verify: the command is not root, cannot read the engine's environ or state.json, and builds and tests the workspace", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const github = await startGitHubServer();
    open.github = github;
    const temp = mkdtempSync(join(tmpdir(), "eg-isolate-temp-"));
    open.dirs.push(temp);
    chmodSync(temp, 0o755);
    const runs = join(temp, "evidence-gate", "runs");
    const command = [
      `test "$(id -u)" != 0`,
      `if cat /proc/$PPID/environ >/dev/null 2>&1; then echo "LEAK: read the engine's environ"; exit 3; fi`,
      // The run directory (state.json, events.jsonl, the ledger) is the engine's: not even listable.
      `if ls ${runs} >/dev/null 2>&1; then echo "LEAK: listed the run directories"; exit 4; fi`,
      `if cat ${runs}/*/* >/dev/null 2>&1; then echo "LEAK: read a run directory's file"; exit 5; fi`,
      "mkdir -p build && echo built > build/out.txt",
      "npm test",
    ].join("\n");
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": command, "isolate-user": "auto" },
      github,
      env: { RUNNER_TEMP: temp },
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs, stepDebug(result)).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(result.stdout).toContain(
      "isolate-user: the verify command and the model CLIs run as evidence-gate-pr",
    );
    // The probe was meaningful: the run directory held files while the command ran (its events, at least).
    const [runDir] = readdirSync(runs).filter((name) => name !== ".gitignore");
    console.log(`run directory: ${readdirSync(join(runs, runDir!)).join(", ")}`);
    expect(existsSync(join(runs, runDir!, "events.jsonl"))).toBe(true);
    expect(readFileSync(join(repo.dir, "build", "out.txt"), "utf8")).toBe("built\n");
    const summary = github.state.checkRuns[0]?.output?.text ?? "";
    expect(`${summary}${result.summary}`).toContain("isolate-user:");
  });
});
