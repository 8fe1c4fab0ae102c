/**
 * `isolate-user` on the bundle as the runner runs it (`node dist/index.js`; build first). NEEDS ROOT: the
 * action, started as root with the default `isolate-user: auto`, creates the user `evidence-gate-pr` on
 * this machine (idempotently) and runs the verify command as it (issue 12 item 3, acceptance: the verify
 * command cannot read the engine's `/proc/<pid>/environ` nor the run directory's `state.json`, and still
 * builds and tests the workspace), and in `mode: run` the real `claude` CLI and its Bash tool run as it
 * too, in a home it can write; `runtime: codex` runs the real codex CLI and its `exec_command` tool as it;
 * `mode: resume` runs its resumed leg the same way. A `git` planted first on `PATH` (a workspace folder, a
 * world-writable one) is run by the verify command, which keeps the job's `PATH`, and never by the engine
 * (issue 21 item 2; as root and through sudo). What the user made in the
 * workspace is the runner's user's (here root's) after the step, a link out of it not followed (issue 12
 * leftovers). `RUNNER_TEMP` is made as the runner makes it (mode 0755).
 *
 * The second describe takes the path GitHub-hosted runners take: the runner's service runs the action as
 * an unprivileged user with passwordless sudo (`runner`), so the action is not root and switches with `sudo
 * -n`. NEEDS `sudo` too (CI's `.ci/run` installs it): the test creates, idempotently, the user `eg-runner`
 * with a home and a sudoers drop-in (`eg-runner ALL=(ALL) NOPASSWD:ALL`, mode 0440, checked with `visudo
 * -cf`), gives it the repository, `RUNNER_TEMP` and the harness's files, and starts `node dist/index.js` as
 * it (`runAs`); the planted `git` and `mode: resume` are measured that way too. Both describes are in one file because they share the user `evidence-gate-pr`, every
 * process of which is killed when a run ends: two files would run side by side and kill each other's.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  actionTestResources,
  completion,
  runPostStep,
  startArtifactService,
  stepDebug,
} from "../support/action-harness.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { codexConfigFor, startModelServer } from "../support/model-server/index.js";
import { ensureRunnerUser } from "../support/runner-user.js";
import { GATED_GRAPH, GRAPH_PATH, handGraphScript } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo, makeSampleNodeRepo } from "../support/temp-repo.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const MARK = "WHO-AM-I-MARK";
/** Where this file keeps folders the run must not sweep (its end removes the user's files from /tmp). */
const E2E_PARENT = "/var/lib/evidence-gate-e2e";
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

/**
 * Issue 21 item 3, as a self-hosted runner meets it: one pull request's build plants a `~/.npmrc` whose
 * `script-shell=/bin/true` makes every `npm test` pass, in its `HOME`, in the login home of the user by
 * its absolute path, and files in its `TMPDIR` and `XDG_CACHE_HOME`; the next pull request's build (a
 * failing `npm test`) must find none of it and fail. On `main` the `HOME` was the login home, which
 * survives: the second build passed. The build also leaves files, a folder and a link in the machine's
 * shared temporary folders (`/tmp`, `/var/tmp`, `/dev/shm`): gone when the run ends, the link's target (root's)
 * kept; and a file the user wrote into `/dev/shm` after that (as a process outliving the run would) is gone
 * before the next run's build runs.
 */
async function plantedHomeRuns(o: {
  readonly temp: () => string;
  readonly runAs?: { readonly uid: number; readonly gid: number };
}): Promise<void> {
  const loginHome = "$(getent passwd evidence-gate-pr | cut -d: -f6)";
  const tag = `eg-left-${process.pid}-${Date.now()}`;
  const left = ["/tmp", "/var/tmp", "/dev/shm"].map((dir) => join(dir, tag));
  // Root's, outside the user's reach but named by its link: the sweep must not follow the link.
  const rootsFile = join(tmpdir(), `${tag}-roots`);
  writeFileSync(rootsFile, "root's\n");
  open.dirs.push(rootsFile);
  const plant = [
    ...left.map((path) => `echo planted > '${path}'`),
    `mkdir '${left[0]}.d' && echo planted > '${left[0]}.d/inside'`,
    `ln -s '${rootsFile}' '${left[0]}.link'`,
    `test "$(id -un)" = evidence-gate-pr`,
    "printf 'script-shell=/bin/true\\n' > \"$HOME/.npmrc\"",
    // The plant works in this run: npm reads it (so the next run's build would pass on it).
    `test "$(npm config get script-shell)" = /bin/true`,
    `printf 'script-shell=/bin/true\\n' > "${loginHome}/.npmrc" 2>/dev/null || echo "login home not writable"`,
    'mkdir -p "$XDG_CACHE_HOME" && echo planted > "$XDG_CACHE_HOME/planted" && echo planted > "$TMPDIR/planted"',
    'mkdir -p build && echo "$HOME $TMPDIR $XDG_CACHE_HOME" > build/run-home.txt',
    'echo "npm_config_cache=$npm_config_cache" > build/npm-cache.txt',
  ].join("\n");
  const first = open.keep(await makeFixedSampleRepo());
  const second = open.keep(await makeSampleNodeRepo());
  for (const repo of o.runAs ? [first, second] : [])
    execFileSync("chown", ["-R", `${o.runAs!.uid}:${o.runAs!.gid}`, repo.dir]);
  const github = await startGitHubServer();
  open.github = github;
  const temp = o.temp();
  const planted = await open.run({
    workspace: first.dir,
    // The operator's one shared cache: npm's, kept between runs (and said in the summary).
    inputs: { mode: "verify", "verify-cmd": plant, "isolate-user": "auto", "pr-user-cache": "npm" },
    github,
    env: { RUNNER_TEMP: temp },
    ...(o.runAs ? { runAs: o.runAs } : {}),
  });
  expect(planted.outputs, stepDebug(planted)).toMatchObject({ outcome: "passed", conclusion: "success" });
  expect(planted.stdout).toContain("its HOME, TMPDIR and caches are fresh for this run");
  const [home, tmp, cache] = readFileSync(join(first.dir, "build", "run-home.txt"), "utf8")
    .trim()
    .split(" ");
  // Outside the workspace, under RUNNER_TEMP, and gone once the run ended.
  for (const dir of [home!, tmp!, cache!]) {
    expect(dir.startsWith(join(temp, "evidence-gate", "pr-user-"))).toBe(true);
    expect(existsSync(dir), dir).toBe(false);
  }
  expect(readdirSync(join(temp, "evidence-gate")).filter((n) => n.startsWith("pr-user-"))).toEqual([]);
  expect(planted.stdout).toContain("login home not writable");
  expect(readFileSync(join(first.dir, "build", "npm-cache.txt"), "utf8")).toBe(
    "npm_config_cache=/var/cache/evidence-gate-pr/npm\n",
  );
  expect(statSync("/var/cache/evidence-gate-pr/npm").mode & 0o777).toBe(0o700);
  const checkRun = github.state.checkRuns.at(-1)?.output?.text ?? "";
  expect(`${checkRun}${planted.summary}`).toContain(
    "Shared caches (pr-user-cache): npm in /var/cache/evidence-gate-pr/npm, kept between runs",
  );
  const login = execFileSync("getent", ["passwd", "evidence-gate-pr"]).toString().split(":")[5]!;
  expect(readdirSync(login)).toEqual([]);
  expect(statSync(login)).toMatchObject({ uid: 0 });
  // The shared temporary folders: what the build left there is gone, what a link named is not.
  for (const path of [...left, `${left[0]}.d`, `${left[0]}.link`])
    expect(existsSync(path) || isLink(path), path).toBe(false);
  expect(readFileSync(rootsFile, "utf8")).toBe("root's\n");
  expect(planted.stdout).toContain("what it left in /tmp, /var/tmp, /dev/shm is removed");
  // Written by the user after the run's end (a process that outlived it would): the next set-up removes it.
  const late = join("/dev/shm", `${tag}-late`);
  writeFileSync(late, "planted after the run\n");
  const prUser = execFileSync("getent", ["passwd", "evidence-gate-pr"]).toString().split(":");
  execFileSync("chown", [`${prUser[2]}:${prUser[3]}`, late]);

  const probe = [
    // Without pr-user-cache, npm's cache is this run's own again.
    'test -z "$npm_config_cache" || echo "SHARED-CACHE""-STILL-SET"',
    `for f in "$HOME/.npmrc" "${loginHome}/.npmrc" "$XDG_CACHE_HOME/planted" "$TMPDIR/planted" "${home}/.npmrc" "${tmp}/planted" ${[...left, late].map((f) => `'${f}'`).join(" ")}; do if [ -e "$f" ]; then echo "LEFT-BY""-THE-LAST-RUN: $f"; fi; done`,
    "npm test",
  ].join("\n");
  const next = await open.run({
    workspace: second.dir,
    inputs: { mode: "verify", "verify-cmd": probe, "isolate-user": "auto" },
    github,
    env: { RUNNER_TEMP: temp },
    ...(o.runAs ? { runAs: o.runAs } : {}),
  });
  expect(next.stdout).not.toContain("LEFT-BY-THE-LAST-RUN");
  expect(existsSync(late)).toBe(false);
  expect(next.stdout).not.toContain("SHARED-CACHE-STILL-SET");
  // The probe ran to its end: the failure is npm test's.
  expect(next.stdout).toContain("# fail 1");
  // The failing build fails: no planted script-shell turned it green.
  expect(next.outputs, stepDebug(next)).toMatchObject({ outcome: "failed", conclusion: "failure" });
}

/** Whether `path` is a symbolic link (`existsSync` follows it). */
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Every process whose parent chain leads to `pid`, `pid` included. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = [pid];
  for (let i = 0; i < found.length; i++)
    for (const [child, parent] of parents) if (parent === found[i]) found.push(child);
  return found;
}

/** The engine's peak resident memory (VmHWM, KiB) of each `node` process under `pid`, read while it runs. */
function watchNodeMemory(pid: number): { stop: () => number } {
  const peaks = new Map<number, number>();
  const read = (): void => {
    for (const p of descendants(pid)) {
      try {
        const status = readFileSync(`/proc/${p}/status`, "utf8");
        if (!/^Name:\s+node$/m.test(status)) continue;
        const hwm = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
        peaks.set(p, Math.max(peaks.get(p) ?? 0, hwm));
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(read, 100);
  read();
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(0, ...peaks.values());
    },
  };
}

/** A `RUNNER_TEMP` as the runner makes it (mode 0755), of the test's user (root), removed after the test. */
function rootTemp(): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-isolate-temp-"));
  open.dirs.push(dir);
  chmodSync(dir, 0o755);
  return dir;
}

/** The stated bound of issue 21 item 5 on the engine's peak memory while a child prints without end. */
const ENGINE_PEAK_KIB = 400 * 1024;
/** What a `yes`-style verify prints (300 MB), and the step log's bound: the default 2 MiB, plus 1 MiB of the action's own lines. */
const YES_BYTES = 300_000_000;
const LOG_BOUND = 3 * 1024 * 1024;

/**
 * Issue 21 item 5: a verify command printing `yes` (300 MB) as fast as it can, through `node dist/index.js`:
 * the step log stays under {@link LOG_BOUND} (the head, the marker naming what was left out, the tail with
 * the last line), the engine's peak memory under {@link ENGINE_PEAK_KIB}, the run directory small, and the
 * run still ends as the command did (passed, then failed).
 */
async function yesRuns(o: {
  readonly temp: () => string;
  readonly runAs?: { readonly uid: number; readonly gid: number };
}): Promise<void> {
  const repo = open.keep(await makeFixedSampleRepo());
  if (o.runAs) execFileSync("chown", ["-R", `${o.runAs.uid}:${o.runAs.gid}`, repo.dir]);
  const github = await startGitHubServer();
  open.github = github;
  for (const [command, expected] of [
    [`yes | head -c ${YES_BYTES}\necho YES-TAIL-MARK`, { outcome: "passed", conclusion: "success" }],
    [
      `yes | head -c ${YES_BYTES / 3}\necho YES-TAIL-MARK\nexit 3`,
      { outcome: "failed", conclusion: "failure" },
    ],
  ] as const) {
    const temp = o.temp();
    let memory: { stop: () => number } | null = null;
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": command, "isolate-user": "auto" },
      github,
      env: { RUNNER_TEMP: temp },
      onSpawn: (child) => {
        memory = watchNodeMemory(child.pid!);
      },
      ...(o.runAs ? { runAs: o.runAs } : {}),
    });
    const peakKib = (memory as { stop: () => number } | null)?.stop() ?? 0;
    console.log(
      `yes verify: step log ${result.stdout.length} bytes, engine peak ${Math.round(peakKib / 1024)} MiB`,
    );
    expect(result.outputs, stepDebug(result)).toMatchObject(expected);
    expect(result.stdout.length).toBeLessThan(LOG_BOUND);
    expect(result.stdout).toMatch(
      /\[evidence-gate: \d+ bytes of this command's output left out of the log here/,
    );
    const afterMarker = result.stdout.slice(result.stdout.indexOf("left out of the log here"));
    expect(afterMarker).toContain("YES-TAIL-MARK");
    expect(peakKib).toBeGreaterThan(0);
    expect(peakKib).toBeLessThan(ENGINE_PEAK_KIB);
    // The run directory keeps the bounded record: the evidence's tail (with the last line), nothing more.
    const runs = join(temp, "evidence-gate", "runs");
    // Not `.gitignore` nor the checkout-git snapshot (`.checkout-git-*`, taken before PR code runs).
    const [runDir] = readdirSync(runs).filter((name) => !name.startsWith("."));
    const files = readdirSync(join(runs, runDir!), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    const size = files.reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
    expect(size).toBeLessThan(1024 * 1024);
    console.log(`run directory: ${files.map((e) => e.name).join(", ")}`);
    const record = files.map((e) => readFileSync(join(e.parentPath, e.name), "utf8")).join("\n");
    expect(record).toContain("YES-TAIL-MARK");
  }
}

/**
 * A `git` planted where a pull request can put one first on `PATH` (issue 21 item 2): in a folder of the
 * workspace (`.tools/bin`, git-excluded so the tree stays the commit's) and, before it, in a folder anyone
 * may write. Each appends the uid it runs as to `<probe>/git-ran`, then runs the real git.
 *
 * @returns the two folders (the world-writable one first) and the marker file.
 */
function plantGit(workspace: string, owner?: { readonly uid: number; readonly gid: number }) {
  const probe = mkdtempSync(join(tmpdir(), "eg-planted-git-"));
  open.dirs.push(probe);
  chmodSync(probe, 0o777);
  const marker = join(probe, "git-ran");
  // Made here (root's, writable by all): the user's appends leave it root's, so the run's end keeps it.
  writeFileSync(marker, "");
  chmodSync(marker, 0o666);
  const open777 = join(probe, "bin");
  const inWorkspace = join(workspace, ".tools", "bin");
  for (const dir of [open777, inWorkspace]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "git"),
      `#!/bin/sh\necho "$(id -u) ${dir}" >> '${marker}'\nexec /usr/bin/git "$@"\n`,
    );
    chmodSync(join(dir, "git"), 0o755);
  }
  chmodSync(open777, 0o777);
  appendFileSync(join(workspace, ".git", "info", "exclude"), "/.tools/\n");
  if (owner !== undefined)
    execFileSync("chown", ["-R", `${owner.uid}:${owner.gid}`, join(workspace, ".tools")]);
  return { folders: [open777, inWorkspace], marker, first: join(open777, "git") };
}

/** The uids the planted gits ran as (one per call), from the marker. */
function plantedRuns(marker: string): number[] {
  if (!existsSync(marker)) return [];
  return readFileSync(marker, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => Number(line.split(" ")[0]));
}

/** The verify command of the planted-git tests: it sees the job's PATH (the planted git first) and runs it. */
const PLANTED_VERIFY = [
  "mkdir -p build",
  "command -v git > build/which-git.txt",
  "git --version",
  "npm test",
].join("\n");

describe("as root: isolate-user auto runs the verify command as the separate user", () => {
  it("as root: mode verify: the command is not root, cannot read the engine's environ or state.json, and builds and tests the workspace", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const github = await startGitHubServer();
    open.github = github;
    const temp = mkdtempSync(join(tmpdir(), "eg-isolate-temp-"));
    open.dirs.push(temp);
    chmodSync(temp, 0o755);
    const runs = join(temp, "evidence-gate", "runs");
    // Not under /tmp: the run's end sweeps what the user left in the shared temporary folders.
    mkdirSync(E2E_PARENT, { recursive: true, mode: 0o755 });
    const outside = mkdtempSync(join(E2E_PARENT, "isolate-outside-"));
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
    // Not `.gitignore` nor the checkout-git snapshot (`.checkout-git-*`, taken before PR code runs).
    const [runDir] = readdirSync(runs).filter((name) => !name.startsWith("."));
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

  it("as root: a file one run's build writes into the separate user's home is not there for the next run's build", async () => {
    await plantedHomeRuns({
      temp: rootTemp,
    });
  });

  it("as root: a main step killed while the verify command runs leaves its fresh home; the post step, given the saved state, removes it", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const github = await startGitHubServer();
    open.github = github;
    const pidFile = join(repo.dir, "build", "verify.pid");
    let killed: number[] = [];
    const main = await open.run({
      workspace: repo.dir,
      inputs: {
        mode: "verify",
        "verify-cmd":
          'mkdir -p build && echo planted > "$HOME/.npmrc" && echo $$ > build/verify.pid && exec sleep 60',
        "isolate-user": "auto",
      },
      github,
      env: { RUNNER_TEMP: rootTemp() },
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") return;
          clearInterval(poll);
          open.pids.push(Number(readFileSync(pidFile, "utf8").trim()));
          // As a runner's kill of the step: the action's processes, the engine included, by their ids.
          const nodes = descendants(child.pid!).filter((pid) => {
            try {
              return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "node";
            } catch {
              return false;
            }
          });
          for (const pid of nodes.reverse()) process.kill(pid, "SIGKILL");
          killed = nodes;
        }, 50);
        child.on("close", () => clearInterval(poll));
      },
    });
    expect(
      killed.length,
      `the main step ended before it was killed:\n${main.stdout.slice(-3000)}`,
    ).toBeGreaterThan(1);
    const home = main.state["pr-user-home"]!;
    expect(home).toMatch(/\/evidence-gate\/pr-user-[^/]+$/);
    // Left by the killed step, with what the build wrote in it.
    expect(existsSync(join(home, "home", ".npmrc"))).toBe(true);

    const post = await runPostStep({ github, state: main.state });
    expect(post.stdout, stepDebug(post)).toContain(`removed the separate user's fresh home ${home}`);
    expect(existsSync(home)).toBe(false);
  }, 120_000);

  it("as root: a verify printing yes (300 MB): the step log and the engine's memory stay bounded, the run ends as the command did", async () => {
    await yesRuns({
      temp: rootTemp,
    });
  }, 240_000);

  it("as root: a git planted first on PATH (a workspace folder, a world-writable folder) never runs as the engine's user; the verify command still finds it on its PATH", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    const planted = plantGit(repo.dir);
    open.github = await startGitHubServer();
    const temp = mkdtempSync(join(tmpdir(), "eg-isolate-temp-"));
    open.dirs.push(temp);
    chmodSync(temp, 0o755);
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": PLANTED_VERIFY, "isolate-user": "auto" },
      github: open.github,
      env: { RUNNER_TEMP: temp },
      prependPath: planted.folders,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs, stepDebug(result)).toMatchObject({ outcome: "passed", conclusion: "success" });
    // The PR user's command keeps the job's PATH: it found the planted git first.
    expect(readFileSync(join(repo.dir, "build", "which-git.txt"), "utf8").trim()).toBe(planted.first);
    const runs = plantedRuns(planted.marker);
    const prUid = Number(execFileSync("id", ["-u", "evidence-gate-pr"]).toString().trim());
    // The engine (root), which ran git for the evidence tree, never ran it ...
    expect(runs.filter((uid) => uid !== prUid)).toEqual([]);
    // ... while the PR user's command ran the git its PATH finds first (the probe works).
    expect(runs).toContain(prUid);
    expect(result.stdout).toContain(
      "evidence-gate runs its own programs from trusted paths: git /usr/bin/git",
    );
    expect(result.stdout).toContain(`passed over ${planted.first}`);
    expect(result.stdout).toContain(`passed over ${join(planted.folders[1]!, "git")}`);
  });

  it("as root: runtime codex: the real codex CLI and its exec_command tool run as the separate user", async () => {
    const repo = await makeFixedSampleRepo("the pull request", {}).then(open.keep);
    const CODEX_MARK = "WHO-AM-I-CODEX";
    const { github, model } = await open.servers({
      conversations: [
        {
          name: "look",
          match: CODEX_MARK,
          turns: [
            { tool_calls: [{ name: "exec_command", input: { cmd: "echo who=$(id -un) uid=$(id -u)" } }] },
            { text: "Done." },
          ],
        },
      ],
    });
    github.state.addFile({
      ref: BASE_SHA,
      path: GRAPH_PATH,
      content: GRAPH.replace(MARK, CODEX_MARK),
    });
    // codex's workspace-write sandbox may write /tmp: its fresh CODEX_HOMEs need a RUNNER_TEMP outside it.
    const temp = mkdtempSync(join("/var/tmp", "eg-isolate-codex-"));
    open.dirs.push(temp);
    chmodSync(temp, 0o755);
    const result = await open.run({
      workspace: repo.dir,
      inputs: {
        graph: GRAPH_PATH,
        "isolate-user": "auto",
        runtime: "codex",
        "openai-api-key": "sk-test-openai-isolate-0a1b2c3d4e5f",
        "anthropic-api-key": "",
        "codex-config": codexConfigFor(model.url).join("\n"),
      },
      github,
      model,
      env: { RUNNER_TEMP: temp, NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" },
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs, stepDebug(result)).toMatchObject({ conclusion: "success" });
    expect(result.stdout).toContain(
      "isolate-user: the verify command and the model CLIs run as evidence-gate-pr",
    );
    expect(result.modelRequests.every((r) => r.api === "openai")).toBe(true);
    const printed = JSON.stringify(result.modelRequests.at(-1)?.body ?? {});
    expect(printed).toContain("who=evidence-gate-pr");
    expect(printed).not.toContain("uid=0");
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
    // Not `.gitignore` nor the checkout-git snapshot (`.checkout-git-*`, taken before PR code runs).
    const [runDir] = readdirSync(runs).filter((name) => !name.startsWith("."));
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

  it("through sudo: a file one run's build writes into the separate user's home is not there for the next run's build", async () => {
    await plantedHomeRuns({ temp: () => runnerFolder("eg-sudo-temp-"), runAs: runner });
  });

  it("through sudo: a verify printing yes (300 MB): the step log and the engine's memory stay bounded, the run ends as the command did", async () => {
    await yesRuns({ temp: () => runnerFolder("eg-sudo-temp-"), runAs: runner });
  }, 240_000);

  it("through sudo: a git planted first on PATH never runs as the runner's user (the engine's); the verify command still finds it", async () => {
    const repo = open.keep(await makeFixedSampleRepo());
    execFileSync("chown", ["-R", `${runner.uid}:${runner.gid}`, repo.dir]);
    const planted = plantGit(repo.dir, runner);
    open.github = await startGitHubServer();
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": PLANTED_VERIFY, "isolate-user": "auto" },
      github: open.github,
      env: { RUNNER_TEMP: runnerFolder("eg-sudo-temp-") },
      prependPath: planted.folders,
      runAs: runner,
    });
    expect(result.exitCode, stepDebug(result)).toBe(0);
    expect(result.outputs, stepDebug(result)).toMatchObject({ outcome: "passed", conclusion: "success" });
    expect(result.stdout).toContain("switched through sudo -n");
    expect(readFileSync(join(repo.dir, "build", "which-git.txt"), "utf8").trim()).toBe(planted.first);
    const runs = plantedRuns(planted.marker);
    const prUid = Number(execFileSync("id", ["-u", "evidence-gate-pr"]).toString().trim());
    expect(runs.filter((uid) => uid !== prUid)).toEqual([]);
    expect(runs).toContain(prUid);
    expect(result.stdout).toContain(`passed over ${planted.first}`);
  });

  it("through sudo: mode resume: the resumed leg's verify command runs as evidence-gate-pr, cannot read the run directory, and what it made is the runner's after", async () => {
    const repo = await makeFixedSampleRepo("the pull request").then(open.keep);
    // Read before the hand-over: root's git refuses a repository another user owns.
    const head = await repo.git(["rev-parse", "HEAD"]);
    execFileSync("chown", ["-R", `${runner.uid}:${runner.gid}`, repo.dir]);
    open.github = await startGitHubServer();
    open.model = await startModelServer({ script: handGraphScript() });
    open.service = await startArtifactService();
    const { github, model, service } = open;
    const [first, second] = [runnerFolder("eg-sudo-temp-"), runnerFolder("eg-sudo-temp-")];
    const runs = join(second, "evidence-gate", "runs");
    const probe = [
      `test "$(id -un)" = evidence-gate-pr || exit 2`,
      `if ls ${runs} >/dev/null 2>&1; then echo "LEAK: listed the run directories"; exit 4; fi`,
      `if cat ${runs}/*/state.json >/dev/null 2>&1; then echo "LEAK: read state.json"; exit 5; fi`,
      `if sudo -n true >/dev/null 2>&1; then echo "LEAK: sudo -n true"; exit 6; fi`,
      "(umask 077 && mkdir -p build && echo resumed > build/resumed.txt)",
      "npm test",
    ];
    const graph = GATED_GRAPH.replace(
      "        command: npm test",
      ["        command: |", ...probe.map((line) => `          ${line}`)].join("\n"),
    );
    expect(graph).toContain("LEAK: read state.json");
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: graph });
    const paused = await open.run({
      workspace: repo.dir,
      inputs: { graph: GRAPH_PATH, inputs: "file=src/sum.js" },
      github,
      model,
      env: { ...service.env, RUNNER_TEMP: first },
      runAs: runner,
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
      env: { ...service.env, GITHUB_ACTOR: "octo-maintainer", RUNNER_TEMP: second },
      runAs: runner,
    });
    expect(resumed.exitCode, stepDebug(resumed, 5000)).toBe(0);
    expect(resumed.outputs, stepDebug(resumed, 5000)).toMatchObject({
      outcome: "passed",
      conclusion: "success",
    });
    expect(resumed.stdout).toContain("switched through sudo -n");
    expect(resumed.modelRequests.map((r) => r.conversation)).toEqual(["finish"]);
    expect(existsSync(join(runs, runId, "state.json"))).toBe(true);
    expect(statSync(join(repo.dir, "build", "resumed.txt")).uid).toBe(runner.uid);
    expect(completion(resumed)!.output!.summary).toContain("PASS (verified)");
  });
});
