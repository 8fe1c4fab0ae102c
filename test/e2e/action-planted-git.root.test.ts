/**
 * The engine's own git runs nothing the pull request configured (issue 21 item 1; ADR 0012), on the bundle
 * as the runner runs it (`node dist/index.js`; build first). NEEDS ROOT (and installs `sudo` when missing,
 * as `action-isolate-user.root.test.ts` does): with `isolate-user: auto` the pull request's code runs as
 * `evidence-gate-pr`, which may write the workspace's `.git/`. Its committed `plant.sh` — run by the verify
 * command, or by the real `claude` CLI's Bash tool — plants `core.fsmonitor` (a lying one: "nothing
 * changed"), `filter.x.clean`/`smudge` with a `.gitattributes` line, `diff.x.textconv`, `diff.external`,
 * and `core.hooksPath` with every hook; each planted program touches `<markers>/<name>-<uid>`. None of them
 * may ever run as the engine's user (root, or the runner-like `eg-runner` through `sudo`), and the evidence
 * tree is the working tree's true tree (a lying fsmonitor forges nothing). Each test ends by running git
 * itself in the planted checkout, to show the plant was live.
 *
 * Run under the e2e lock (`flock /tmp/eg-e2e.lock npx vitest run <this file>`): it shares the user
 * `evidence-gate-pr` with every other `*.root.test.ts`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ActionRun,
  actionTestResources,
  startArtifactService,
  stepDebug,
  TEST_REPOSITORY,
} from "../support/action-harness.js";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { startModelServer } from "../support/model-server/index.js";
import { ensureRunnerUser } from "../support/runner-user.js";
import { fixSumScript, MARKS, reviewOnlyPlan } from "../support/scenarios/fix-sum.js";
import { GATED_GRAPH, GRAPH_PATH, handGraphScript } from "../support/scenarios/hand-graphs.js";
import { hermeticGitEnv, makeFixedSampleRepo, type TempRepo } from "../support/temp-repo.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const PUSH_TOKEN = "ghp_plantedGitE2eToken00000000000000000";
const BRANCH = "retry-exporter";
const MARK = "PLANT-THE-GIT-CONFIG";
/** A test that runs the real claude CLI through the bundle, once or twice, on a loaded 2-core machine. */
const REAL_CLI_MS = 240_000;

const open = actionTestResources();
let gitServer: GitHttpServer | undefined;
afterEach(async () => {
  await gitServer?.close();
  gitServer = undefined;
});

/**
 * Where the markers folders are made: not under `/tmp`, `/var/tmp` or `/dev/shm`, whose files of the separate
 * user the run's end removes (the planted programs, which the test's own git runs after the run).
 */
const MARKERS_PARENT = "/var/lib/evidence-gate-e2e";

/** A folder anyone may write (mode 0777) outside the workspace: the planted programs' markers. */
function markerFolder(): string {
  mkdirSync(MARKERS_PARENT, { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(MARKERS_PARENT, "planted-markers-"));
  for (const made of [dir, `${dir}.programs`]) {
    if (!existsSync(made)) execFileSync("mkdir", [made]);
    open.dirs.push(made);
    chmodSync(made, 0o777);
  }
  return dir;
}

/** A folder for `RUNNER_TEMP` (mode 0755, as the runner makes it), of `owner` when given. */
function runnerTemp(owner?: { readonly uid: number; readonly gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-planted-temp-"));
  open.dirs.push(dir);
  chmodSync(dir, 0o755);
  if (owner !== undefined) execFileSync("chown", [`${owner.uid}:${owner.gid}`, dir]);
  return dir;
}

/**
 * The pull request's `plant.sh` (run from the checkout's root, as the separate user): every planted program
 * lives in `<markers>.programs/` (outside the checkout, so the run's tree holds only the two changes below), touches `<markers>/<name>-<uid>` and then does its job; the
 * fsmonitor answers "nothing changed" (protocol 2: a token, a NUL, no path), and a `git status` stores its
 * token in the checkout's index. It then changes a tracked file (after that `git status`: a git that asks the
 * liar does not see it) and adds `.gitattributes`, so the true evidence tree differs from the start tree.
 */
function plantScript(markers: string): string {
  return [
    // The config plant, then the tree edit after the liar's token is in the index (plantConfigScript does both).
    plantConfigScript(markers),
    "",
  ].join("\n");
}

/**
 * `plant.sh`'s first part: the planted programs (in `programs`), the `.git/config` naming them, the
 * `.gitattributes` line.
 */
function plantConfigScript(
  markers: string,
  programs = `${markers}.programs`,
  during: { readonly editTree: boolean } = { editTree: true },
): string {
  return [
    "set -e",
    `M=${markers}`,
    `P=${programs}`,
    'mkdir -p "$P/hooks"',
    'mk() { f="$1"; shift; { echo "#!/bin/sh"; echo "touch $M/$(basename "$f")-\\$(id -u)"; for l in "$@"; do printf "%s\\n" "$l"; done; } > "$f"; chmod 755 "$f"; }',
    `mk "$P/fsmonitor" "printf 'token\\\\000'"`,
    `mk "$P/clean" "cat"`,
    `mk "$P/textconv" 'cat "$1"'`,
    `mk "$P/external-diff"`,
    'for h in pre-commit post-commit post-index-change reference-transaction post-checkout pre-push post-rewrite pre-auto-gc; do mk "$P/hooks/$h"; done',
    // The checkout's own .git has no group write during the run (src/proc/checkout-git.ts): a copy of it,
    // the user's own, is put in its place (the workspace root is writable) and planted.
    ...(during.editTree ? ['cp -a .git "$P/git" && mv .git .git.orig && mv "$P/git" .git'] : []),
    "cat >> .git/config <<EOF",
    "[core]",
    "\tfsmonitor = $P/fsmonitor",
    "\thooksPath = $P/hooks",
    '[filter "x"]',
    "\tclean = $P/clean",
    "\tsmudge = $P/clean",
    '[diff "x"]',
    "\ttextconv = $P/textconv",
    "[diff]",
    "\texternal = $P/external-diff",
    "EOF",
    "printf '* filter=x diff=x\\n' > .gitattributes",
    // The liar's token goes into the checkout's index first; the change after it is then "not there".
    // (Not before the action starts: a push run refuses a checkout with uncommitted changes.)
    ...(during.editTree
      ? ["git status >/dev/null 2>&1 || true", "printf '// planted\\n' >> src/sum.js"]
      : []),
    // Kept for provePlantLive: the run's end puts the checkout's original .git back.
    'cp -a .git "$P/live"',
    "",
  ].join("\n");
}

/** The markers: `<program>-<uid>` for each planted program that ran. */
const markersIn = (dir: string): string[] => readdirSync(dir).sort();

/** Markers of planted programs that ran as anyone but `evidence-gate-pr` (the engine's user, root). */
function notThePrUser(markers: string): string[] {
  const prUid = execFileSync("id", ["-u", "evidence-gate-pr"], { encoding: "utf8" }).trim();
  return markersIn(markers).filter((m) => !m.endsWith(`-${prUid}`));
}

/**
 * The tree `plant.sh` leaves (the checkout's files, `src/sum.js` with the planted line, `.gitattributes`),
 * made in a clone with no configuration before anything is planted.
 */
async function plantedTree(repo: TempRepo): Promise<string> {
  const clone = mkdtempSync(join(tmpdir(), "eg-planted-clone-"));
  open.dirs.push(clone);
  const env = { ...hermeticGitEnv, GIT_CONFIG_PARAMETERS: "'safe.directory=*'" } as NodeJS.ProcessEnv;
  execFileSync("git", ["clone", "--quiet", "--no-hardlinks", repo.dir, clone], { env });
  writeFileSync(join(clone, ".gitattributes"), "* filter=x diff=x\n");
  writeFileSync(join(clone, "src/sum.js"), `${readFileSync(join(clone, "src/sum.js"), "utf8")}// planted\n`);
  execFileSync("git", ["add", "-A"], { cwd: clone, env });
  return execFileSync("git", ["write-tree"], { cwd: clone, env, encoding: "utf8" }).trim();
}

/**
 * Runs git as the test itself, in the planted checkout (`git add -A` into a scratch index, then `git diff`):
 * the planted fsmonitor, filter, textconv and hooks run — so the plant was live, and a run that found
 * nothing did so because the engine's git never read it.
 */
function provePlantLive(repo: TempRepo, markers: string): void {
  // The planted .git as the plant left it (the checkout's own is put back when the run ends).
  const env = {
    ...process.env,
    GIT_CONFIG_PARAMETERS: "'safe.directory=*'",
    GIT_DIR: `${markers}.programs/live`,
    GIT_WORK_TREE: repo.dir,
  } as NodeJS.ProcessEnv;
  const index = join(mkdtempSync(join(tmpdir(), "eg-planted-index-")), "index");
  open.dirs.push(join(index, ".."));
  spawnSync("git", ["add", "-A"], { cwd: repo.dir, env: { ...env, GIT_INDEX_FILE: index } });
  spawnSync("git", ["diff", "HEAD", "--", "src/sum.js"], { cwd: repo.dir, env });
  const uid = process.getuid!();
  const ran = markersIn(markers).filter((m) => m.endsWith(`-${uid}`));
  expect(ran, "the test's own git must run the planted programs").toEqual(
    expect.arrayContaining([`clean-${uid}`, `fsmonitor-${uid}`, `post-index-change-${uid}`]),
  );
}

/** A checkout (the fixed sample project and the pull request's `plant.sh`). */
async function plantedRepo(markers: string): Promise<TempRepo> {
  return open.keep(await makeFixedSampleRepo("the pull request", { "plant.sh": plantScript(markers) }));
}

/** The GitHub and model servers of a `mode: run` graph whose one node's Bash tool runs `plant.sh`. */
async function plantingServers() {
  const graph = [
    "name: plant",
    "nodes:",
    "  - id: plant",
    `    prompt: "${MARK}: run sh plant.sh."`,
    "    allowed_tools: [Bash]",
    "    success_check:",
    "      verify:",
    "        command: npm test",
    "",
  ].join("\n");
  const servers = await open.servers({
    conversations: [
      {
        name: "plant",
        match: MARK,
        turns: [
          { tool_calls: [{ name: "Bash", input: { command: "sh plant.sh && echo planted-as=$(id -un)" } }] },
          { text: "Done." },
        ],
      },
    ],
  });
  servers.github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: graph });
  return servers;
}

/** The user `node dist/index.js` is started as (the runner-like `eg-runner`), or the test's own (root). */
type RunAs = { readonly uid: number; readonly gid: number } | undefined;

/** What every planted run must show: the separate user ran the PR's code, the plant happened, nothing ran as the engine. */
function expectPlantedNothingRan(
  result: ActionRun,
  o: { repo: TempRepo; markers: string; runAs: RunAs },
): void {
  expect(result.stdout, stepDebug(result)).toContain(
    "isolate-user: the verify command and the model CLIs run as evidence-gate-pr",
  );
  if (o.runAs !== undefined) expect(result.stdout).toContain("switched through sudo -n");
  // The plant happened (as the separate user: its own git never ran, so no marker at all is expected).
  expect(readFileSync(join(o.repo.dir, ".gitattributes"), "utf8")).toBe("* filter=x diff=x\n");
  expect(notThePrUser(o.markers)).toEqual([]);
}

/**
 * A verify command that plants, then tests (`sh plant.sh && npm test`), in `mode: verify`, or in `mode:
 * auto` with the real claude CLI (the scripted planner plans one review node; the operator's verify command
 * is its sink's): nothing planted runs as the engine's user — not in the evidence tree, nor in the run's
 * end (the final tree, changed files, patch), which the engine's git reads after the plant.
 */
async function verifyCommandPlants(o: {
  readonly mode: "verify" | "auto";
  readonly runAs: RunAs;
}): Promise<void> {
  const markers = markerFolder();
  const repo = await plantedRepo(markers);
  const headTree = await repo.git(["rev-parse", "HEAD^{tree}"]);
  if (o.runAs !== undefined) execFileSync("chown", ["-R", `${o.runAs.uid}:${o.runAs.gid}`, repo.dir]);
  const verifyCmd = "sh plant.sh && npm test";
  const { github, model } =
    o.mode === "auto"
      ? await open.servers(fixSumScript({ repoDir: repo.dir, plannerReplies: [reviewOnlyPlan()] }))
      : { github: await startGitHubServer(), model: undefined };
  open.github = github;
  const result = await open.run({
    workspace: repo.dir,
    inputs:
      o.mode === "auto"
        ? { goal: `${MARKS.plannerGoal}.`, "verify-cmd": verifyCmd, "isolate-user": "auto" }
        : { mode: "verify", "verify-cmd": verifyCmd, "isolate-user": "auto" },
    github,
    ...(model !== undefined ? { model } : {}),
    env: { RUNNER_TEMP: runnerTemp(o.runAs) },
    ...(o.runAs !== undefined ? { runAs: o.runAs } : {}),
  });
  expectPlantedNothingRan(result, { repo, markers, runAs: o.runAs });
  if (model !== undefined) expect(model.requests.map((r) => r.conversation)).toEqual(["planner", "review"]);
  // The verify command ran on the commit's tree (the evidence tree is taken before it runs) — and changed a
  // tracked file of it while it ran, which the engine's git sees though the planted fsmonitor says nothing
  // changed: not success.
  expectEditWhileVerifying(result);
  expect(result.outputs["evidence-tree"]).toBe(headTree);
  provePlantLive(repo, markers);
}

/**
 * The plant's edit of `src/sum.js` during the verify, seen: the sink's row names it (`changedWhileRunning`)
 * and the run is `action_required` — a git that asked the planted fsmonitor ("nothing changed") would have
 * missed it and called the run `success`.
 */
function expectEditWhileVerifying(result: Awaited<ReturnType<typeof open.run>>): void {
  expect(result.outputs, stepDebug(result)).toMatchObject({
    outcome: "passed",
    conclusion: "action_required",
  });
  const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8"));
  const changed = ledger.rows.flatMap(
    (row: { verify?: { changedWhileRunning?: { examples: string[] } } }) =>
      row.verify?.changedWhileRunning?.examples ?? [],
  );
  expect(changed).toEqual(["src/sum.js"]);
}

/**
 * `mode: run` with `push: true`, the checkout's `.git/config` planted twice: before the action starts (as an
 * earlier step of the job, or a pull request's code in a self-hosted runner's kept workspace, could: push
 * mode's own git calls — the clean-checkout check's `git add -A`, the head checkout — read it before the
 * trusted git directory exists), and by the real claude CLI's Bash tool (`plantingServers`). Nothing
 * planted runs as the engine's user, and the pushed commit (made in the trusted directory) holds the true
 * tree.
 */
async function pushPlanted(runAs: RunAs): Promise<void> {
  const markers = markerFolder();
  gitServer = await startGitHttpServer({ token: PUSH_TOKEN });
  const bare = await gitServer.createRepository(TEST_REPOSITORY);
  // Planted before the action starts: the commit names the filter for every file (.gitattributes).
  const source = open.keep(
    await makeFixedSampleRepo("the pull request", {
      "plant.sh": plantScript(markers),
      ".gitattributes": "* filter=x diff=x\n",
    }),
  );
  const headSha = await source.git(["rev-parse", "HEAD"]);
  await source.git([
    "push",
    "--quiet",
    bare,
    `${headSha}:refs/heads/${BRANCH}`,
    `${headSha}:refs/heads/main`,
  ]);
  const expected = await plantedTree(source);
  // An earlier step of the job (or a kept self-hosted workspace) left the checkout's .git/config planted.
  open.dirs.push(`${markers}.before`);
  execFileSync("sh", ["-c", plantConfigScript(markers, `${markers}.before`, { editTree: false })], {
    cwd: source.dir,
  });
  if (runAs !== undefined) execFileSync("chown", ["-R", `${runAs.uid}:${runAs.gid}`, source.dir]);
  const { github, model } = await plantingServers();
  const result = await open.run({
    workspace: source.dir,
    inputs: { graph: GRAPH_PATH, "isolate-user": "auto", push: "true", "push-token": PUSH_TOKEN },
    github,
    model,
    headSha,
    env: { RUNNER_TEMP: runnerTemp(runAs), GITHUB_SERVER_URL: gitServer.url },
    ...(runAs !== undefined ? { runAs } : {}),
  });
  expect(result.exitCode, stepDebug(result)).toBe(0);
  expect(JSON.stringify(result.modelRequests.at(-1)?.body ?? {})).toContain("planted-as=evidence-gate-pr");
  expectPlantedNothingRan(result, { repo: source, markers, runAs });
  expect(result.outputs, stepDebug(result, 20000)).toMatchObject({
    conclusion: "success",
    "pushed-sha": expect.stringMatching(/^[0-9a-f]{40}$/),
  });
  const pushed = result.outputs["pushed-sha"]!;
  expect(await gitServer.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(pushed);
  expect(await gitServer.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^{tree}`])).toBe(expected);
  expect(result.outputs["evidence-tree"]).toBe(expected);
  provePlantLive(source, markers);
}

/**
 * `mode: resume`: a `mode: run` of the gated graph (review → gate `sign-off` → finish, whose verify command
 * plants) pauses and uploads its run directory; a `workflow_dispatch` approves the gate, and the resumed
 * leg's verify command plants. Nothing planted runs as the engine's user in the resumed leg's end (final
 * tree, changed files, patch, the re-uploaded run directory), and its evidence tree is the commit's.
 */
async function resumePlanted(runAs: RunAs): Promise<void> {
  const markers = markerFolder();
  const repo = await plantedRepo(markers);
  const head = await repo.git(["rev-parse", "HEAD"]);
  const headTree = await repo.git(["rev-parse", "HEAD^{tree}"]);
  if (runAs !== undefined) execFileSync("chown", ["-R", `${runAs.uid}:${runAs.gid}`, repo.dir]);
  open.github = await startGitHubServer();
  open.model = await startModelServer({ script: handGraphScript() });
  open.service = await startArtifactService();
  const { github, model, service } = open;
  const graph = GATED_GRAPH.replace("command: npm test", "command: sh plant.sh && npm test");
  expect(graph).not.toBe(GATED_GRAPH);
  github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: graph });
  const common = { workspace: repo.dir, github, model, ...(runAs !== undefined ? { runAs } : {}) };
  const paused = await open.run({
    ...common,
    inputs: { graph: GRAPH_PATH, inputs: "file=src/sum.js", "isolate-user": "auto" },
    env: { ...service.env, RUNNER_TEMP: runnerTemp(runAs) },
  });
  expect(paused.outputs.outcome, stepDebug(paused, 30000)).toBe("paused");
  const runId = paused.outputs["run-id"]!;
  const uploaded = service.artifacts.find((a) => a.name === `evidence-gate-run-${runId}`);
  expect(uploaded, stepDebug(paused)).toBeDefined();
  github.state.addArtifact({ name: uploaded!.name, zip: uploaded!.zip, headSha: head });
  const resumed = await open.run({
    ...common,
    event: { name: "workflow_dispatch", inputs: { "run-id": runId } },
    inputs: { mode: "resume", "resume-run-id": runId, "approve-gate": "sign-off", "isolate-user": "auto" },
    env: { ...service.env, GITHUB_ACTOR: "octo-maintainer", RUNNER_TEMP: runnerTemp(runAs) },
  });
  expect(
    resumed.modelRequests.map((r) => r.conversation),
    stepDebug(resumed),
  ).toEqual(["finish"]);
  expectPlantedNothingRan(resumed, { repo, markers, runAs });
  expectEditWhileVerifying(resumed);
  expect(resumed.outputs["evidence-tree"]).toBe(headTree);
  provePlantLive(repo, markers);
}

describe("as root: the engine's git runs nothing the pull request planted in .git", () => {
  it("as root: mode verify: the planted fsmonitor, filter, textconv, external diff and hooks never run as root; the evidence tree is the true one", async () => {
    await verifyCommandPlants({ mode: "verify", runAs: undefined });
  });

  it(
    "as root: mode auto with the real claude CLI: the planned node's verify command plants; nothing planted runs as root, the evidence tree is the true one",
    async () => {
      await verifyCommandPlants({ mode: "auto", runAs: undefined });
    },
    REAL_CLI_MS,
  );

  it(
    "as root: mode run with push: true: planted before the action starts and by the real claude CLI's Bash tool; nothing planted runs as root, the pushed commit is the true tree",
    async () => {
      await pushPlanted(undefined);
    },
    REAL_CLI_MS,
  );

  it(
    "as root: mode resume: the resumed leg's verify command plants; nothing planted runs as root, the evidence tree is the true one",
    async () => {
      await resumePlanted(undefined);
    },
    REAL_CLI_MS,
  );
});

describe("through sudo: the engine's git runs nothing the pull request planted in .git", () => {
  let runner: { readonly uid: number; readonly gid: number };
  beforeAll(() => {
    runner = ensureRunnerUser();
  });

  it("through sudo: mode verify: the planted programs never run as the runner's user; the evidence tree is the true one", async () => {
    await verifyCommandPlants({ mode: "verify", runAs: runner });
  });

  it(
    "through sudo: mode auto with the real claude CLI: the planned node's verify command plants; nothing planted runs as the runner's user, the evidence tree is the true one",
    async () => {
      await verifyCommandPlants({ mode: "auto", runAs: runner });
    },
    REAL_CLI_MS,
  );

  it(
    "through sudo: mode run with push: true: planted before the action starts and by the real claude CLI's Bash tool; nothing planted runs as the runner's user, the pushed commit is the true tree",
    async () => {
      await pushPlanted(runner);
    },
    REAL_CLI_MS,
  );

  it(
    "through sudo: mode resume: the resumed leg's verify command plants; nothing planted runs as the runner's user, the evidence tree is the true one",
    async () => {
      await resumePlanted(runner);
    },
    REAL_CLI_MS,
  );
});

describe("as root: no trusted git", () => {
  it("as root: the only git on PATH is the pull request's (a workspace folder): a usage error naming PATH and the fix, posted on the check run; the planted git never ran", async () => {
    const markers = markerFolder();
    const repo = await plantedRepo(markers);
    const bin = join(repo.dir, ".tools", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\ntouch '${join(markers, "git")}'-$(id -u)\nexec /usr/bin/git "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    const github = await startGitHubServer();
    open.github = github;
    const result = await open.run({
      workspace: repo.dir,
      inputs: { mode: "verify", "verify-cmd": "npm test", "isolate-user": "auto" },
      github,
      env: { RUNNER_TEMP: runnerTemp(undefined), PATH: bin },
    });
    expect(result.exitCode, stepDebug(result)).toBe(1);
    expect(markersIn(markers)).toEqual([]);
    expect(result.outputs).toMatchObject({ outcome: "usage-error", conclusion: "action_required" });
    const text = `no trusted git on PATH (${JSON.stringify(bin)})`;
    expect(result.stdout).toContain(text);
    expect(result.stdout).toContain("Install git in a system folder (e.g. /usr/bin) that is on PATH");
    expect(result.stdout).not.toContain("internal error");
    expect(result.summary).toContain(text);
    expect(github.state.checkRuns.at(-1)).toMatchObject({
      status: "completed",
      conclusion: "action_required",
    });
    expect(github.state.checkRuns.at(-1)?.output?.summary ?? "").toContain(text);
  });
});
