/**
 * `isolate-user` on the bundle as the runner runs it (`node dist/index.js`; build first). NEEDS ROOT: the
 * action, started as root with the default `isolate-user: auto`, creates the user `evidence-gate-pr` on
 * this machine (idempotently) and runs the verify command as it (issue 12 item 3, acceptance: the verify
 * command cannot read the engine's `/proc/<pid>/environ` nor the run directory's `state.json`, and still
 * builds and tests the workspace), and in `mode: run` the real `claude` CLI and its Bash tool run as it
 * too, in a home it can write. `RUNNER_TEMP` is made as the runner makes it (mode 0755).
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { actionTestResources, stepDebug } from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { GRAPH_PATH } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo } from "../support/temp-repo.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const MARK = "WHO-AM-I-MARK";
const GRAPH = [
  "name: who-am-i",
  "nodes:",
  "  - id: look",
  `    prompt: "${MARK}: say who you run as."`,
  "    allowed_tools: [Bash]",
  "    success_check:",
  "      verify:",
  "        command: npm test",
  "",
].join("\n");

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

  it("as root: mode run: the real claude CLI and its Bash tool run as the user, with a home it can write; the verify passes", async () => {
    const repo = await makeFixedSampleRepo("the pull request", {}).then(open.keep);
    const { github, model } = await open.servers({
      conversations: [
        {
          name: "look",
          match: MARK,
          turns: [
            {
              tool_calls: [
                {
                  name: "Bash",
                  input: { command: 'echo who=$(id -un) && touch "$HOME/written" && echo home-writable' },
                },
              ],
            },
            { text: "Done." },
          ],
        },
      ],
    });
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: GRAPH });
    const temp = mkdtempSync(join(tmpdir(), "eg-isolate-temp-"));
    open.dirs.push(temp);
    chmodSync(temp, 0o755);
    const result = await open.run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH, "isolate-user": "auto" },
      github,
      model,
      env: { RUNNER_TEMP: temp },
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs, stepDebug(result)).toMatchObject({ conclusion: "success" });
    const printed = JSON.stringify(result.modelRequests.at(-1)?.body ?? {});
    expect(printed).toContain("who=evidence-gate-pr");
    expect(printed).toContain("home-writable");
  });
});
