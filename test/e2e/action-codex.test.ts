/**
 * `runtime: codex` in the action end to end (SPEC §8, §9, §10, §11): `dist/index.js` run as the runner runs
 * it, the real pinned `codex` CLI on PATH (behind a recording stand-in that logs what each call was given),
 * the scripted model server's OpenAI Responses side reached through the `codex-config` input, the local
 * GitHub server, a real verify command.
 *
 * What is proved: a codex that is a node script runs on the action's own node even with another `node` first
 * on PATH; each codex call gets a fresh `HOME` / `CODEX_HOME`, created before the call, under
 * `RUNNER_TEMP` and never under /tmp or the workspace; input `openai-api-key` reaches the model server
 * through the key proxy (codex itself gets a dummy) and nothing else (not the verify command) and never the check run, the summary or the log; and a codex run without
 * it is a usage error naming the input, with nothing installed and nothing run.
 */

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DUMMY_CREDENTIAL } from "../../src/proxy/credential.js";
import { DEFAULT_CODEX_VERSION } from "../../src/pull-request/action-inputs.js";
import { actionTestResources, completion, stepDebug } from "../support/action-harness.js";
import { codexConfigFor } from "../support/model-server/index.js";
import { recordedCodexCalls, writeRecordingCodexOnNode } from "../support/scenarios/codex.js";
import { MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { makeFixedSampleRepo } from "../support/temp-repo.js";

const OPENAI_KEY = "sk-test-openai-action-9f8e7d6c5b4a3f2e";
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

const open = actionTestResources();

/** A folder outside the system temp directory for `RUNNER_TEMP` (removed after the test). */
function outsideTmp(): string {
  const home = homedir();
  const base = relative(realpathSync(tmpdir()), realpathSync(home)).startsWith("..") ? home : REPO_ROOT;
  const dir = mkdtempSync(join(base, ".eg-action-codex-"));
  open.dirs.push(dir);
  return dir;
}

function isUnder(path: string, root: string): boolean {
  const rel = relative(realpathSync(root), realpathSync(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** The planner answers a one-node review plan; the review node answers in one turn. Two codex calls. */
function script() {
  return {
    conversations: [
      { name: "review", match: MARKS.review, turns: [{ text: "The file reads fine. Nothing to change." }] },
      { name: "planner", match: MARKS.plannerGoal, turns: [{ text: reviewOnlyPlan() }] },
    ],
  };
}

describe("action runtime: codex (dist/index.js)", () => {
  it("plans and runs on the real codex CLI: a fresh HOME/CODEX_HOME per call under RUNNER_TEMP (never /tmp or the workspace), the OpenAI key reaches codex only and is never posted", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const { github, model } = await open.servers(script());
    const scratch = outsideTmp();
    const log = join(scratch, "codex-calls.log");
    const bin = join(scratch, "bin");
    writeRecordingCodexOnNode(bin, log);
    // A `node` first on PATH (as an earlier step's GITHUB_PATH can put one): codex.js must not run on it.
    const planted = join(scratch, "planted-bin");
    mkdirSync(planted);
    const plantedLog = join(scratch, "planted-node.log");
    writeFileSync(
      join(planted, "node"),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${plantedLog}'\nexec '${process.execPath}' "$@"\n`,
    );
    chmodSync(join(planted, "node"), 0o755);
    const verifyEnv = join(scratch, "verify-env.txt");

    const result = await open.run({
      workspace: repo.dir,
      inputs: {
        goal: `${MARKS.plannerGoal}.`,
        "verify-cmd": `env | cut -d= -f1 > '${verifyEnv}' && npm test`,
        runtime: "codex",
        "openai-api-key": OPENAI_KEY,
        "anthropic-api-key": "",
        "codex-config": codexConfigFor(model.url).join("\n"),
      },
      github,
      model,
      toolCacheClis: { codex: join(bin, "codex") },
      prependPath: [planted],
      runnerTempParent: scratch,
      env: { NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" },
    });

    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs).toMatchObject({ outcome: "passed", conclusion: "success" });
    // The recording codex in the tool cache ran, not one found on PATH (issue 12 item 4).
    expect(result.stdout).toContain(
      `codex ${DEFAULT_CODEX_VERSION} runs as ${realpathSync(join(bin, "codex"))}`,
    );
    expect(result.modelRequests.map((r) => [r.api, r.conversation])).toEqual([
      ["openai", "planner"],
      ["openai", "review"],
    ]);

    for (const request of result.modelRequests)
      expect(request.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    // Two calls, two fresh homes, each existing before its call (codex ran in it), none shared.
    const calls = recordedCodexCalls(log);
    expect(calls).toHaveLength(2);
    const [planner, review] = calls;
    expect(planner!.codexHome).not.toBe(review!.codexHome);
    expect(planner!.home).not.toBe(review!.home);
    const homesRoot = join(result.runnerTemp, "evidence-gate", "codex-homes");
    for (const call of calls) {
      expect(call.codexHome).toBe(join(call.home, ".codex"));
      expect(isUnder(call.codexHome, homesRoot)).toBe(true);
      expect(isUnder(call.codexHome, "/tmp")).toBe(false);
      expect(isUnder(call.codexHome, tmpdir())).toBe(false);
      expect(isUnder(call.codexHome, repo.dir)).toBe(false);
      // codex kept the thread in the home it was given.
      expect(existsSync(join(call.codexHome, "sessions"))).toBe(true);
      // The key proxy's dummy (issue 12): the real key stays in the engine, which sends it upstream.
      expect(call.openaiApiKey).toBe(DUMMY_CREDENTIAL);
      expect(call.codexApiKey).toBe(DUMMY_CREDENTIAL);
      expect(call.names).not.toContain("INPUT_OPENAI-API-KEY");
      expect(call.names).not.toContain("GITHUB_TOKEN");
      // The action's own node ran the node-script CLI, not its `#!/usr/bin/env node` line's PATH lookup.
      expect(call.node).toBe(process.execPath);
    }
    const plantedRuns = existsSync(plantedLog) ? readFileSync(plantedLog, "utf8") : "";
    expect(plantedRuns).not.toContain(realpathSync(join(bin, "codex")));

    // The verify command got no model credential.
    const verifyNames = readFileSync(verifyEnv, "utf8").split("\n");
    expect(verifyNames).toContain("PATH");
    for (const name of ["OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME"])
      expect(verifyNames).not.toContain(name);

    // The key is on no check-run payload, not in the summary, not in the log.
    const payloads = JSON.stringify(result.calls.map((c) => c.body));
    expect(payloads).toContain("Planned Codex nodes run isolated");
    expect(payloads).not.toContain(OPENAI_KEY);
    expect(result.summary).toContain("codex");
    expect(result.summary).not.toContain(OPENAI_KEY);
    // Registered as a secret (the runner masks it in the log), and printed nowhere else.
    expect(result.commands).toContain(`::add-mask::${OPENAI_KEY}`);
    const printed = `${result.stdout}\n${result.stderr}`
      .split("\n")
      .filter((l) => !l.startsWith("::add-mask::"));
    expect(printed.join("\n")).not.toContain(OPENAI_KEY);
    expect(completion(result)!.output!.summary).toContain("PASS (verified)");
    github.assertNoViolations();
  });

  it("without openai-api-key, runtime codex is a usage error naming the input: codex is not installed, no model is called, no run directory", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const { github, model } = await open.servers(script());
    const scratch = outsideTmp();
    // A stand-in npm that records any call: the codex install must never start.
    const bin = join(scratch, "npm-bin");
    mkdirSync(bin);
    const npmLog = join(scratch, "npm-args");
    writeFileSync(join(bin, "npm"), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${npmLog}'\nexit 1\n`);
    chmodSync(join(bin, "npm"), 0o755);

    const result = await open.run({
      workspace: repo.dir,
      inputs: {
        goal: `${MARKS.plannerGoal}.`,
        "verify-cmd": "npm test",
        runtime: "codex",
        "anthropic-api-key": "",
        "codex-config": codexConfigFor(model.url).join("\n"),
      },
      github,
      model,
      claudeOnPath: false,
      prependPath: [bin],
      runnerTempParent: scratch,
    });

    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(result.outputs).toMatchObject({ outcome: "usage-error", conclusion: "action_required" });
    const summary = completion(result)!.output!.summary!;
    expect(summary).toContain("input `openai-api-key` is empty: runtime codex needs an OpenAI API key");
    expect(existsSync(npmLog)).toBe(false);
    expect(result.stdout).not.toContain("installing @openai/codex");
    expect(model.requests).toHaveLength(0);
    const runs = join(result.runnerTemp, "evidence-gate", "runs");
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
    expect(existsSync(join(result.runnerTemp, "evidence-gate", "codex-homes"))).toBe(false);
    github.assertNoViolations();
  });
});
