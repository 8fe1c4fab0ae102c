/**
 * `push: true` with the separate user, against PR code that moves the checkout's locked `.git` (the fifth
 * attack round, issue 21). The `.git` cannot be written, but the workspace root can, so it can be renamed:
 * - onto a `test/` folder the node emptied: the verify command then runs no test of `test/`, and a tree that
 *   kept the start commit's `test/` for the hidden path claimed the tests were there. The tree now holds
 *   nothing at the moved `.git`'s path: `test/` is deleted, the run is not success and nothing is pushed;
 * - to `.git.orig` during a first attempt, with a planned retry: the sinks' rows then hold two trees, and the
 *   commit was made with a plain `git add -A` — the checkout's `.git` (its `config` holding the job's token,
 *   as `persist-credentials: true` leaves it) was pushed, and the pushed tree was not the judged one. The
 *   commit is now always the judged tree, made as every evidence tree is.
 * Real `claude` CLI, real git over HTTP, `node dist/index.js` as the runner starts it, as root and through
 * `sudo` as a runner-like user.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  actionTestResources,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
} from "../support/action-harness.js";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.js";
import { ensureRunnerUser } from "../support/runner-user.js";
import { GRAPH_PATH } from "../support/scenarios/hand-graphs.js";
import { makeFixedSampleRepo, makeSampleNodeRepo } from "../support/temp-repo.js";

const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const PUSH_TOKEN = "ghp_movedGitE2eToken00000000000000000000";
// The pull request's head branch in the harness's event.
const BRANCH = "retry-exporter";
const open = actionTestResources();
let gitServer: GitHttpServer | undefined;
afterEach(async () => {
  await gitServer?.close();
  gitServer = undefined;
});

/** A folder for `RUNNER_TEMP` (mode 0755), of `owner` when given. */
function runnerTemp(owner?: { readonly uid: number; readonly gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), "eg-moved-git-temp-"));
  open.dirs.push(dir);
  chmodSync(dir, 0o755);
  if (owner !== undefined) execFileSync("chown", [`${owner.uid}:${owner.gid}`, dir]);
  return dir;
}

/** The bare repository the push goes to, holding `headSha` on the branch and on `main`. */
async function remote(source: { git(args: string[]): Promise<string> }): Promise<{ headSha: string }> {
  gitServer = await startGitHttpServer({ token: PUSH_TOKEN });
  const bare = await gitServer.createRepository(TEST_REPOSITORY);
  const headSha = await source.git(["rev-parse", "HEAD"]);
  await source.git([
    "push",
    "--quiet",
    bare,
    `${headSha}:refs/heads/${BRANCH}`,
    `${headSha}:refs/heads/main`,
  ]);
  return { headSha };
}

/**
 * A workspace kept on disk after the job (a self-hosted runner's `_work`) is not the separate user's group's
 * to write: a later job's PR code (the same user) could otherwise rename this checkout's `.git` aside and
 * plant a copy its next `actions/checkout` runs (the fifth attack round).
 */
function expectWorkspaceReclaimed(workspace: string): void {
  const find = (...args: string[]) =>
    execFileSync("find", [workspace, ...args], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l !== "");
  expect(find("-group", "evidence-gate-pr"), "entries still of the separate user's group").toEqual([]);
  expect(find("-type", "d", "-perm", "-2000"), "folders still set-group-id").toEqual([]);
}

describe("push: true, PR code moves the checkout's .git", () => {
  it("as root: a node's Bash breaks sum, empties test/ and moves .git onto it: test/ is deleted in the tree, not success, nothing pushed", async () => {
    const source = open.keep(await makeFixedSampleRepo("the pull request"));
    const { headSha } = await remote(source);
    const mark = "MOVED-GIT-ONTO-TEST";
    const bash =
      "printf 'export function sum(a, b) {\\n  return a - b;\\n}\\n' > src/sum.js && printf 'import { test } from \"node:test\";\\ntest(\"smoke\", () => {});\\n' > src/smoke.test.js && rm -rf test && mv .git test && echo moved-as=$(id -un)";
    const graph = [
      "name: hide",
      "nodes:",
      "  - id: work",
      `    prompt: "${mark}: do the work."`,
      "    allowed_tools: [Bash]",
      "    success_check:",
      "      verify:",
      "        command: npm test",
      "",
    ].join("\n");
    const { github, model } = await open.servers({
      conversations: [
        {
          name: "work",
          match: mark,
          turns: [{ tool_calls: [{ name: "Bash", input: { command: bash } }] }, { text: "Done." }],
        },
      ],
    });
    github.state.addFile({ ref: BASE_SHA, path: GRAPH_PATH, content: graph });
    const result = await open.run({
      workspace: source.dir,
      inputs: { graph: GRAPH_PATH, "isolate-user": "auto", push: "true", "push-token": PUSH_TOKEN },
      github,
      model,
      headSha,
      env: { RUNNER_TEMP: runnerTemp(), GITHUB_SERVER_URL: gitServer!.url },
    });
    // The plant was real: the Bash tool ran as the separate user and moved the .git.
    expect(JSON.stringify(result.modelRequests.at(-1)?.body ?? {})).toContain("moved-as=evidence-gate-pr");
    expect(result.outputs.conclusion, stepDebug(result, 8000)).toBe("action_required");
    expect(result.outputs["pushed-sha"] ?? "").toBe("");
    expect(await gitServer!.gitIn(TEST_REPOSITORY, ["rev-parse", `refs/heads/${BRANCH}`])).toBe(headSha);
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8"));
    expect(JSON.stringify(ledger.changedFiles)).toContain("test/sum.test.js");
    // The checkout's own .git is back where it was, and test/ is not a git directory any more.
    expect(await source.git(["rev-parse", "HEAD"])).toBe(headSha);
    expectWorkspaceReclaimed(source.dir);
  }, 300_000);

  it("through sudo: mode auto, a planned retry, and PR code that moves .git to .git.orig in the first verify: the pushed commit is the judged tree, without .git.orig or the job's token", async () => {
    const runAs = ensureRunnerUser();
    const source = open.keep(await makeSampleNodeRepo());
    await source.write(
      "test/helper.test.js",
      'import { execSync } from "node:child_process";\nimport { test } from "node:test";\ntry { execSync("mv .git .git.orig", { cwd: new URL("..", import.meta.url).pathname, stdio: "ignore" }); } catch {}\ntest("helper", () => {});\n',
    );
    await source.git(["add", "-A"]);
    await source.git(["commit", "-q", "-m", "the pull request: a test helper"]);
    const { headSha } = await remote(source);
    // actions/checkout's default persist-credentials: true leaves the job's token in .git/config.
    const basic = Buffer.from(`x-access-token:${TEST_GITHUB_TOKEN}`).toString("base64");
    await source.git([
      "config",
      "--local",
      "http.https://github.com/.extraheader",
      `AUTHORIZATION: basic ${basic}`,
    ]);
    execFileSync("chown", ["-R", `${runAs.uid}:${runAs.gid}`, source.dir]);
    const sumFile = join(source.dir, "src", "sum.js");
    const goal = "MOVED-GIT-GOAL make sum add";
    const impl = "MOVED-GIT-IMPLEMENT";
    const plan = JSON.stringify({
      name: "fix",
      version: "1",
      nodes: [
        {
          id: "implement",
          prompt: `${impl}: fix sum in src/sum.js.`,
          allowed_tools: ["Read", "Write"],
          retry: { max: 1, on: ["verify_failed"] },
        },
      ],
    });
    const write = (content: string) => ({
      tool_calls: [{ name: "Write", input: { file_path: sumFile, content } }],
    });
    const { github, model } = await open.servers({
      conversations: [
        {
          name: "retry",
          match: [impl, "previous-attempt-reply"],
          turns: [write("export function sum(a, b) {\n  return a + b;\n}\n"), { text: "Done." }],
        },
        {
          name: "implement",
          match: impl,
          turns: [write("export function sum(a, b) {\n  return a * b;\n}\n"), { text: "Done." }],
        },
        { name: "planner", match: goal, turns: [{ text: plan }] },
      ],
    });
    const result = await open.run({
      workspace: source.dir,
      inputs: {
        goal,
        "verify-cmd": "npm test",
        "isolate-user": "auto",
        push: "true",
        "push-token": PUSH_TOKEN,
      },
      github,
      model,
      headSha,
      env: { RUNNER_TEMP: runnerTemp(runAs), GITHUB_SERVER_URL: gitServer!.url },
      runAs,
    });
    // Both attempts ran: the first verify failed (and moved .git), the retry's passed.
    expect(result.modelRequests.map((r) => r.conversation)).toEqual(
      expect.arrayContaining(["planner", "implement", "retry"]),
    );
    expect(result.outputs, stepDebug(result, 9000)).toMatchObject({ conclusion: "success" });
    const pushed = result.outputs["pushed-sha"]!;
    expect(pushed).toMatch(/^[0-9a-f]{40}$/);
    const ledger = JSON.parse(readFileSync(result.outputs["ledger-path"]!, "utf8"));
    const pushedTree = await gitServer!.gitIn(TEST_REPOSITORY, ["rev-parse", `${pushed}^{tree}`]);
    expect(pushedTree, "the pushed tree is the judged one").toBe(ledger.postedCommit.tree);
    const files = await gitServer!.gitIn(TEST_REPOSITORY, ["ls-tree", "-r", "--name-only", pushed]);
    expect(files.split("\n").sort()).toEqual(
      [".gitignore", "package.json", "src/sum.js", "test/helper.test.js", "test/sum.test.js"].sort(),
    );
    expect(await gitServer!.gitIn(TEST_REPOSITORY, ["log", "-p", "-1", pushed])).not.toContain(basic);
    expectWorkspaceReclaimed(source.dir);
  }, 400_000);
});
