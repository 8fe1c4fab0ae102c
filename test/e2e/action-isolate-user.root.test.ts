/**
 * `isolate-user` on the bundle as the runner runs it (`node dist/index.js`; build first). NEEDS ROOT: the
 * action, started as root with the default `isolate-user: auto`, creates the user `evidence-gate-pr` on
 * this machine (idempotently) and runs the verify command as it (issue 12 item 3, acceptance: the verify
 * command cannot read the engine's `/proc/<pid>/environ` nor the run directory's `state.json`, and still
 * builds and tests the workspace), and in `mode: run` the real `claude` CLI and its Bash tool run as it
 * too, in a home it can write; `mode: resume` runs its resumed leg the same way. What the user made in the
 * workspace is the runner's user's (here root's) after the step, a link out of it not followed (issue 12
 * leftovers). `RUNNER_TEMP` is made as the runner makes it (mode 0755).
 */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  actionTestResources,
  completion,
  startArtifactService,
  stepDebug,
} from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { GATED_GRAPH, GRAPH_PATH, handGraphScript } from "../support/scenarios/hand-graphs.js";
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
    const outside = mkdtempSync(join(tmpdir(), "eg-isolate-outside-"));
    open.dirs.push(outside);
    chmodSync(outside, 0o777);
    const command = [
      `test "$(id -u)" != 0`,
      `if cat /proc/$PPID/environ >/dev/null 2>&1; then echo "LEAK: read the engine's environ"; exit 3; fi`,
      // The run directory (state.json, events.jsonl, the ledger) is the engine's: not even listable.
      `if ls ${runs} >/dev/null 2>&1; then echo "LEAK: listed the run directories"; exit 4; fi`,
      `if cat ${runs}/*/* >/dev/null 2>&1; then echo "LEAK: read a run directory's file"; exit 5; fi`,
      "mkdir -p build && echo built > build/out.txt",
      // Made the way a build may make them: only their owner may read them, or enter the folder.
      "(umask 077 && mkdir -p build/private && echo mine > build/private/only-mine.txt)",
      // A link to a file of the user's outside the workspace: the hand-back changes the link, not its target.
      `echo outside > ${outside}/target.txt && ln -s ${outside}/target.txt build/outside-link`,
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
    // What the user made in the workspace is the runner's user's again (here root): readable, deletable.
    const user = lstatSync(join(outside, "target.txt")).uid;
    expect(user).not.toBe(process.getuid!());
    for (const made of ["build", "build/out.txt", "build/private", "build/private/only-mine.txt"])
      expect([made, statSync(join(repo.dir, made)).uid]).toEqual([made, process.getuid!()]);
    expect(lstatSync(join(repo.dir, "build", "outside-link")).uid).toBe(process.getuid!());
    // ... and a link was not followed out of the workspace.
    expect(lstatSync(join(outside, "target.txt")).uid).toBe(user);
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
  it("as root: mode resume: the resumed leg's verify command runs as the user too, cannot read the engine's environ nor state.json, and what it made is the runner's after", async () => {
    const repo = await makeFixedSampleRepo("the pull request").then(open.keep);
    open.github = await startGitHubServer();
    open.model = await startModelServer({ script: handGraphScript() });
    open.service = await startArtifactService();
    const { github, model, service } = open;
    const [first, second] = [0, 1].map(() => {
      const dir = mkdtempSync(join(tmpdir(), "eg-isolate-temp-"));
      open.dirs.push(dir);
      chmodSync(dir, 0o755);
      return dir;
    });
    const runs = join(second!, "evidence-gate", "runs");
    // The gate's sink verifies with a probe: it fails the leg on any leak, or when it runs as root.
    const probe = [
      `test "$(id -u)" != 0 || exit 2`,
      `if cat /proc/$PPID/environ >/dev/null 2>&1; then echo "LEAK: read the engine's environ"; exit 3; fi`,
      `if ls ${runs} >/dev/null 2>&1; then echo "LEAK: listed the run directories"; exit 4; fi`,
      `if cat ${runs}/*/state.json >/dev/null 2>&1; then echo "LEAK: read state.json"; exit 5; fi`,
      "(umask 077 && mkdir -p build && echo resumed > build/resumed.txt)",
      "npm test",
    ];
    const graph = GATED_GRAPH.replace(
      "        command: npm test",
      ["        command: |", ...probe.map((line) => `          ${line}`)].join("\n"),
    );
    expect(graph).toContain("LEAK: read state.json");
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: graph });
    const head = await repo.git(["rev-parse", "HEAD"]);
    const paused = await open.run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH, inputs: "file=src/sum.js" },
      github,
      model,
      env: { ...service.env, RUNNER_TEMP: first! },
    });
    expect(paused.outputs.outcome, stepDebug(paused)).toBe("paused");
    const runId = paused.outputs["run-id"]!;
    const uploaded = service.artifacts.find((a) => a.name === `evidence-gate-run-${runId}`)!;
    github.state.addArtifact({ name: uploaded.name, zip: uploaded.zip, headSha: head });

    const resumed = await open.run({
      workspace: repo.dir,
      github,
      model,
      event: { name: "workflow_dispatch", inputs: { "run-id": runId } },
      inputs: { mode: "resume", "resume-run-id": runId, "approve-gate": "sign-off", "isolate-user": "auto" },
      env: { ...service.env, GITHUB_ACTOR: "octo-maintainer", RUNNER_TEMP: second! },
    });
    expect(resumed.exitCode, stepDebug(resumed, 5000)).toBe(0);
    expect(resumed.outputs, stepDebug(resumed, 5000)).toMatchObject({
      outcome: "passed",
      conclusion: "success",
    });
    expect(resumed.stdout).toContain(
      "isolate-user: the verify command and the model CLIs run as evidence-gate-pr",
    );
    expect(resumed.modelRequests.map((r) => r.conversation)).toEqual(["finish"]);
    // The probe was meaningful: the resumed run's state.json was there while the command ran.
    expect(existsSync(join(runs, runId, "state.json"))).toBe(true);
    expect(statSync(join(repo.dir, "build", "resumed.txt")).uid).toBe(process.getuid!());
    expect(completion(resumed)!.output!.summary).toContain("PASS (verified)");
  });
});
