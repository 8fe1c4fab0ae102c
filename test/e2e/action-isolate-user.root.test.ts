/**
 * `isolate-user` on the bundle as the runner runs it (`node dist/index.js`; build first). NEEDS ROOT: the
 * action, started as root with the default `isolate-user: auto`, creates the user `evidence-gate-pr` on
 * this machine (idempotently) and runs the verify command as it (issue 12 item 3, acceptance: the verify
 * command cannot read the engine's `/proc/<pid>/environ` nor the run directory's `state.json`, and still
 * builds and tests the workspace), and in `mode: run` the real `claude` CLI and its Bash tool run as it
 * too, in a home it can write; `mode: resume` runs its resumed leg the same way. What the user made in the
 * workspace is the runner's user's (here root's) after the step, a link out of it not followed (issue 12
 * leftovers). `RUNNER_TEMP` is made as the runner makes it (mode 0755).
 *
 * The second describe takes the path GitHub-hosted runners take: the runner's service runs the action as
 * an unprivileged user with passwordless sudo (`runner`), so the action is not root and switches with `sudo
 * -n`. NEEDS `sudo` too (CI's `.ci/run` installs it): the test creates, idempotently, the user `eg-runner`
 * with a home and a sudoers drop-in (`eg-runner ALL=(ALL) NOPASSWD:ALL`, mode 0440, checked with `visudo
 * -cf`), gives it the repository, `RUNNER_TEMP` and the harness's files, and starts `node dist/index.js` as
 * it (`runAs`). Both describes are in one file because they share the user `evidence-gate-pr`, every
 * process of which is killed when a run ends: two files would run side by side and kill each other's.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  actionTestResources,
  completion,
  startArtifactService,
  stepDebug,
} from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { ensureRunnerUser } from "../support/runner-user.js";
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

const SUDO_MARK = "WHO-AM-I-THROUGH-SUDO";

let runner: { readonly uid: number; readonly gid: number };

/** A folder of the runner's user (mode 0755, as the runner makes `RUNNER_TEMP`), removed after the test. */
function runnerFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  open.dirs.push(dir);
  chmodSync(dir, 0o755);
  execFileSync("chown", [`${runner.uid}:${runner.gid}`, dir]);
  return dir;
}

/** `uid:comm` of each live process of the user `evidence-gate-pr` whose command line holds `needle`. */
function prProcesses(needle: string): string[] {
  const listed = spawnSync("pgrep", ["-a", "-u", "evidence-gate-pr", "-f", needle], { encoding: "utf8" });
  return listed.stdout.split("\n").filter((line) => line.trim() !== "" && !line.includes("pgrep"));
}

describe("through sudo: the action runs as a runner-like user with passwordless sudo", () => {
  // The runner-like user and its sudoers drop-in, created when missing (both idempotent).
  beforeAll(() => {
    runner = ensureRunnerUser();
  });

  it("through sudo: mode verify: the command runs as evidence-gate-pr, reads no ancestor's environ, nor the run directory, cannot sudo, builds and tests; its files are the runner's after, nothing of it is left", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    execFileSync("chown", ["-R", `${runner.uid}:${runner.gid}`, repo.dir]);
    const github = await startGitHubServer();
    open.github = github;
    const temp = runnerFolder("eg-sudo-temp-");
    const runs = join(temp, "evidence-gate", "runs");
    // Unique to this run: the leftover it starts is found by it.
    const sleeper = `sleep ${600 + (process.pid % 1000)}.${Date.now() % 1000}`;
    const command = [
      `test "$(id -un)" = evidence-gate-pr || { echo "WRONG USER: $(id -un)"; exit 2; }`,
      "mkdir -p build",
      // Every ancestor up to PID 1 (sudo, the engine, the action's first process, the runner): uid and
      // command, and whether its environment could be read.
      `p=$PPID; while [ "$p" -gt 1 ]; do s=$(cat /proc/$p/stat); u=$(stat -c %u /proc/$p); c=$(cat /proc/$p/comm); if cat /proc/$p/environ >/dev/null 2>&1; then r=read; else r=denied; fi; echo "$u $c $r" >> build/ancestors.txt; p=$(echo "\${s##*) }" | cut -d" " -f2); done`,
      `if ls ${runs} >/dev/null 2>&1; then echo "LEAK: listed the run directories"; exit 4; fi`,
      `if cat ${runs}/*/* >/dev/null 2>&1; then echo "LEAK: read a run directory's file"; exit 5; fi`,
      `if sudo -n true >/dev/null 2>&1; then echo "LEAK: sudo -n true"; exit 6; fi`,
      "echo built > build/out.txt",
      "(umask 077 && mkdir -p build/private && echo mine > build/private/only-mine.txt)",
      // Left running, out of the session: the end of the run must still kill it.
      `setsid ${sleeper} </dev/null >/dev/null 2>&1 &`,
      "npm test",
    ].join("\n");
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": command, "isolate-user": "auto" },
      github,
      env: { RUNNER_TEMP: temp },
      runAs: runner,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs, stepDebug(result)).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(result.stdout).toContain(
      "isolate-user: the verify command and the model CLIs run as evidence-gate-pr",
    );
    expect(result.stdout).toContain("switched through sudo -n");
    // The probes were meaningful: the run directory held files while the command ran ...
    const [runDir] = readdirSync(runs).filter((name) => name !== ".gitignore");
    expect(existsSync(join(runs, runDir!, "events.jsonl"))).toBe(true);
    // ... and the ancestors walked include sudo (root) and the engine (the runner's user), none readable.
    const ancestors = readFileSync(join(repo.dir, "build", "ancestors.txt"), "utf8")
      .trim()
      .split("\n");
    console.log(`ancestors of the verify command (uid comm environ):\n${ancestors.join("\n")}`);
    expect(ancestors[0]).toBe("0 sudo denied");
    expect(ancestors).toContain(`${runner.uid} node denied`);
    expect(ancestors.filter((line) => !line.endsWith(" denied"))).toEqual([]);
    // What the user made is the runner's user's again, even what only its owner could read.
    for (const made of ["build", "build/out.txt", "build/private", "build/private/only-mine.txt"])
      expect([made, statSync(join(repo.dir, made)).uid]).toEqual([made, runner.uid]);
    // The setsid leftover was killed when the command ended (its marker read and the kill sent through
    // sudo), not only by the user-wide kill at the end of the step.
    expect(prProcesses(sleeper)).toEqual([]);
    const evidence = readdirSync(join(runs, runDir!))
      .filter((name) => name.endsWith(".json") || name.endsWith(".jsonl"))
      .map((name) => readFileSync(join(runs, runDir!, name), "utf8"))
      .join("\n");
    expect(evidence).toContain(
      "1 process the command left running (background, setsid or double-forked) was killed",
    );
  });

  it("through sudo: a verify command that ignores SIGTERM is stopped at its timeout: the TERM reaches it, the KILL after the grace too (not only sudo)", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    execFileSync("chown", ["-R", `${runner.uid}:${runner.gid}`, repo.dir]);
    const github = await startGitHubServer();
    open.github = github;
    const command = [
      "mkdir -p build",
      `trap 'echo TERM >> build/signals.txt' TERM`,
      "while :; do sleep 1; done",
    ].join("\n");
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": command, "verify-timeout": "1s", "isolate-user": "auto" },
      github,
      env: { RUNNER_TEMP: runnerFolder("eg-sudo-temp-") },
      runAs: runner,
    });
    expect(result.outputs.outcome, stepDebug(result)).not.toBe("passed");
    expect(result.stdout).toContain("switched through sudo -n");
    expect(readFileSync(join(repo.dir, "build", "signals.txt"), "utf8")).toContain("TERM");
    // Ended by the timeout's own SIGKILL: nothing was left for the user-wide kill at the end of the step.
    expect(result.stdout, stepDebug(result)).not.toContain("left running were killed");
    expect(result.stdout).not.toContain("left running was killed");
    expect(prProcesses("while :; do sleep 1; done")).toEqual([]);
  });

  it("through sudo: mode run: the real claude CLI and its Bash tool run as evidence-gate-pr, with a home it can write; what the tool made 0600 is read by the engine's git (the tree is known, the patch holds it)", async () => {
    const repo = await makeFixedSampleRepo("the pull request", {}).then(open.keep);
    execFileSync("chown", ["-R", `${runner.uid}:${runner.gid}`, repo.dir]);
    const { github, model } = await open.servers({
      conversations: [
        {
          name: "look",
          match: SUDO_MARK,
          turns: [
            {
              tool_calls: [
                {
                  name: "Bash",
                  input: {
                    // A file and a folder only their owner may read: the engine's git (the runner's user)
                    // reads the working tree right after, for the sink's evidence tree.
                    command:
                      'echo who=$(id -un) && touch "$HOME/written" && echo home-writable && (umask 077 && mkdir -p notes && echo mine > notes/private.txt && echo mine > private.txt)',
                  },
                },
              ],
            },
            { text: "Done." },
          ],
        },
      ],
    });
    const graph = [
      "name: who-am-i",
      "nodes:",
      "  - id: look",
      `    prompt: "${SUDO_MARK}: say who you run as."`,
      "    allowed_tools: [Bash]",
      "    success_check:",
      "      verify:",
      "        command: npm test",
      "",
    ].join("\n");
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: graph });
    const result = await open.run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH, "isolate-user": "auto" },
      github,
      model,
      env: { RUNNER_TEMP: runnerFolder("eg-sudo-temp-") },
      runAs: runner,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    // The node changed files the commit does not have: verified, not on this commit. Without the hand-back
    // before the sink's snapshot the engine's git could not read them, and the tree was unknown (neutral).
    expect(result.outputs, stepDebug(result)).toMatchObject({ conclusion: "action_required" });
    expect(result.stdout).toContain("Verified, but not on this commit");
    expect(result.summary).toContain("+++ b/notes/private.txt");
    expect(result.stdout).toContain("switched through sudo -n");
    const printed = JSON.stringify(result.modelRequests.at(-1)?.body ?? {});
    expect(printed).toContain("who=evidence-gate-pr");
    expect(printed).toContain("home-writable");
    for (const made of ["private.txt", "notes", "notes/private.txt"])
      expect([made, statSync(join(repo.dir, made)).uid]).toEqual([made, runner.uid]);
  });
});
