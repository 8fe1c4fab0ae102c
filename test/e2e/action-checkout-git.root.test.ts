/**
 * Nothing the pull request's code writes into the checkout's git directory survives the action (SECURITY.md
 * "A separate user for PR code"; `src/proc/checkout-git.ts`), on the bundle as the runner runs it (`node
 * dist/index.js`, then `node dist/post.js`; build first). NEEDS ROOT (and installs `sudo` when missing, as
 * `action-isolate-user.root.test.ts` does).
 *
 * The attack: with `isolate-user: auto` the verify command runs as `evidence-gate-pr`, which may write the
 * workspace. It plants `core.fsmonitor`, `core.hooksPath` and hooks in `.git/` (`git config`, a hook file),
 * and — the workspace root being writable — moves `.git` aside and puts a copy of its own with the same
 * plants in its place. The engine's own git never reads either (ADR 0012), but git started after the action
 * as the runner's user does: `actions/checkout`'s post step runs, always, in the same job,
 * `git submodule foreach --recursive sh -c "git config --local … || :"`, and a self-hosted runner's next
 * checkout runs `git clean`/`reset`/`checkout` there. Each planted program touches `<markers>/<name>-<uid>`;
 * after the action (and, where the main step was killed, after the action's post step) the test runs that
 * command line and `git status` as the runner's user, and no marker of that user may appear.
 *
 * Run under the e2e lock (`flock /tmp/eg-e2e.lock npx vitest run <this file>`): it shares the user
 * `evidence-gate-pr` with every other `*.root.test.ts`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ActionRun,
  actionTestResources,
  runPostStep,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
} from "../support/action-harness.js";
import type { GitHubServer } from "../support/github-server/index.js";
import { startGitHubServer } from "../support/github-server/index.js";
import { ensureRunnerUser, RUNNER_USER } from "../support/runner-user.js";
import { makeSampleNodeRepo } from "../support/temp-repo.js";

const open = actionTestResources();

type Owner = { readonly uid: number; readonly gid: number };

/** A folder of `owner` (mode 0755), or anyone's (`0o777`): `RUNNER_TEMP`, the markers. */
/** Where this file's folders go (as action-planted-git.root.test.ts does). */
const E2E_PARENT = "/var/lib/evidence-gate-e2e";

function folder(prefix: string, mode: number, owner?: Owner): string {
  // Not under /tmp: the set-up sweeps what the separate user owns there (and the markers become its).
  mkdirSync(E2E_PARENT, { recursive: true });
  const dir = mkdtempSync(join(E2E_PARENT, prefix));
  open.dirs.push(dir);
  chmodSync(dir, mode);
  if (owner !== undefined) execFileSync("chown", [`${owner.uid}:${owner.gid}`, dir]);
  return dir;
}

/** The markers folder and `<markers>.programs` beside it, both anyone's to write (mode 0777). */
function markerFolders(): string {
  const markers = folder("eg-checkout-git-markers-", 0o777);
  execFileSync("mkdir", ["-m", "0777", `${markers}.programs`]);
  open.dirs.push(`${markers}.programs`);
  return markers;
}

/**
 * The verify command (PR code, from the checkout's root, as the separate user): each planted program lives
 * in `<markers>.programs/` and touches `<markers>/<name>-<uid>`. First it writes the checkout's own `.git`
 * (each step may fail: `|| true`), then it moves `.git` to `.git.orig` and puts a copy with the same plants
 * in its place, and records each success in `<markers>/did-<what>`. Then it fails (`npm test` of the buggy
 * sample), and `hold` keeps it running (the post-step test kills the main step meanwhile).
 */
function plantCommand(markers: string, hold: boolean): string {
  const programs = `${markers}.programs`;
  const plant = (gitDir: string) =>
    [
      `git --git-dir=${gitDir} config core.fsmonitor "$P/fsmonitor"`,
      `git --git-dir=${gitDir} config core.hooksPath "$P/hooks"`,
      `mkdir -p ${gitDir}/hooks && cp "$P/hooks/post-checkout" ${gitDir}/hooks/post-checkout`,
    ].join(" && ");
  return [
    `M=${markers}; P=${programs}`,
    'mkdir -p "$P/hooks"',
    'mk() { printf "#!/bin/sh\\ntouch $M/%s-\\$(id -u)\\n%s\\n" "$(basename "$1")" "$2" > "$1"; chmod 755 "$1"; }',
    `mk "$P/fsmonitor" "printf 'token\\\\000'"`,
    'for h in post-checkout post-index-change reference-transaction pre-commit; do mk "$P/hooks/$h" ""; done',
    `(${plant(".git")}) >/dev/null 2>&1 && touch $M/did-in-place`,
    `(cp -a .git "$P/copy" && mv .git .git.orig && mv "$P/copy" .git && ${plant(".git")}) >/dev/null 2>&1 && touch $M/did-replace`,
    hold ? "touch $M/held; exec sleep 60" : "npm test",
  ].join("\n");
}

/** The planted programs' markers of `uid`. */
function ranAs(markers: string, uid: number): string[] {
  return readdirSync(markers).filter((name) => name.endsWith(`-${uid}`) && !name.startsWith("did-"));
}

/**
 * What git runs in the checkout after the action, as the runner's user (`owner`, or root): actions/checkout's
 * post-step command line (its `removeAuth`, verbatim) and a `git status`, with the workspace marked safe as
 * actions/checkout marks it. Both must succeed (git read the repository: a refusal would prove nothing).
 */
function runnersGitAfter(checkout: string, github: GitHubServer, owner?: Owner): void {
  const key = "http.https://github.com/.extraheader";
  const pattern = "http\\.https\\:\\/\\/github\\.com\\/\\.extraheader";
  const env = {
    PATH: process.env.PATH,
    HOME: owner !== undefined ? `/home/${RUNNER_USER}` : "/root",
    INPUT_TOKEN: TEST_GITHUB_TOKEN,
    GITHUB_API_URL: github.url,
    GITHUB_REPOSITORY: TEST_REPOSITORY,
    // actions/checkout marks the workspace safe for its git calls (input `set-safe-directory`, default true),
    // so a `.git` of another owner is read there too.
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "safe.directory",
    GIT_CONFIG_VALUE_0: checkout,
  };
  const as = owner !== undefined ? { uid: owner.uid, gid: owner.gid } : {};
  for (const argv of [
    [
      "submodule",
      "foreach",
      "--recursive",
      `sh -c "git config --local --name-only --get-regexp '${pattern}' && git config --local --unset-all '${key}' || :"`,
    ],
    ["status"],
  ]) {
    const done = spawnSync("git", argv, { cwd: checkout, env, encoding: "utf8", ...as });
    expect(done.status, `git ${argv[0]}: ${done.stderr}`).toBe(0);
  }
}

/** The failing sample's checkout, given to `owner` when set, and its `.git`'s inode and config. */
async function checkout(owner?: Owner) {
  const repo = open.keep(await makeSampleNodeRepo());
  if (owner !== undefined) execFileSync("chown", ["-R", `${owner.uid}:${owner.gid}`, repo.dir]);
  const gitDir = join(repo.dir, ".git");
  return { repo, ino: lstatSync(gitDir).ino, config: readFileSync(join(gitDir, "config"), "utf8") };
}

/** The checkout's `.git` is the original folder again, with its config, and nothing is left beside it. */
function expectOriginalGit(c: Awaited<ReturnType<typeof checkout>>, run: Pick<ActionRun, "stdout">): void {
  const gitDir = join(c.repo.dir, ".git");
  expect(lstatSync(gitDir).ino, stepDebug({ exitCode: null, stdout: run.stdout, stderr: "" })).toBe(c.ino);
  expect(readFileSync(join(gitDir, "config"), "utf8")).toBe(c.config);
  expect(existsSync(join(gitDir, "hooks", "post-checkout"))).toBe(false);
  expect(existsSync(join(c.repo.dir, ".git.orig"))).toBe(false);
}

async function mainStepRestores(owner?: Owner): Promise<void> {
  const c = await checkout(owner);
  const markers = markerFolders();
  const github = await startGitHubServer();
  open.github = github;
  const run = await open.run({
    workspace: c.repo.dir,
    inputs: { mode: "verify", "verify-cmd": plantCommand(markers, false), "isolate-user": "auto" },
    github,
    env: { RUNNER_TEMP: folder("eg-checkout-git-temp-", 0o755, owner) },
    ...(owner !== undefined ? { runAs: owner } : {}),
  });
  expect(run.outputs.conclusion, stepDebug(run)).toBe("failure");
  // The replacement worked as the PR user (the workspace root is its to write) and was put back.
  expect(existsSync(join(markers, "did-replace")), stepDebug(run)).toBe(true);
  runnersGitAfter(c.repo.dir, github, owner);
  expect(ranAs(markers, owner?.uid ?? 0), stepDebug(run)).toEqual([]);
  // The checkout's own .git was not the PR user's to write (group write taken off for the run).
  expect(existsSync(join(markers, "did-in-place"))).toBe(false);
  expect(run.stdout).toContain("put back as they were before it ran");
  expectOriginalGit(c, run);
  // The main step recorded that it put .git back, so the post step leaves the checkout's .git to later
  // steps: a second actions/checkout that made it anew keeps it (it was once removed as "gone").
  expect(run.state["checkout-git"], stepDebug(run)).toBe("");
  if (owner === undefined) {
    execFileSync("rm", ["-rf", join(c.repo.dir, ".git")]);
    execFileSync("git", ["init", "-q", c.repo.dir]);
    const later = lstatSync(join(c.repo.dir, ".git")).ino;
    const post = await runPostStep({ github, state: run.state });
    expect(lstatSync(join(c.repo.dir, ".git")).ino, stepDebug(post)).toBe(later);
  }
}

describe("the checkout's git directory after the action", () => {
  it("as root: what the verify command planted in .git, or in a .git put in its place, is gone before the runner's git (actions/checkout's post step, git status) runs", async () => {
    await mainStepRestores();
  }, 180_000);

  it("through sudo: the same, the action run by a runner-like user with passwordless sudo", async () => {
    await mainStepRestores(ensureRunnerUser());
  }, 180_000);

  it("as root: a main step killed while the verify command runs leaves the plant; the post step puts .git back before actions/checkout's post step", async () => {
    const c = await checkout();
    const markers = markerFolders();
    const github = await startGitHubServer();
    open.github = github;
    let killed = 0;
    const main = await open.run({
      workspace: c.repo.dir,
      inputs: { mode: "verify", "verify-cmd": plantCommand(markers, true), "isolate-user": "auto" },
      github,
      env: { RUNNER_TEMP: folder("eg-checkout-git-temp-", 0o755) },
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (!existsSync(join(markers, "held"))) return;
          clearInterval(poll);
          // As a runner's kill of the step: the action's node processes, the engine included, by their ids.
          const nodes = descendants(child.pid as number).filter((pid) => commOf(pid) === "node");
          for (const pid of nodes.reverse()) process.kill(pid, "SIGKILL");
          killed = nodes.length;
        }, 50);
        child.on("close", () => clearInterval(poll));
      },
    });
    expect(killed, `the main step ended before it was killed:\n${main.stdout.slice(-3000)}`).toBeGreaterThan(
      1,
    );
    expect(existsSync(join(markers, "did-replace")), stepDebug(main)).toBe(true);
    // Left by the killed step: the checkout's .git is the PR's.
    expect(lstatSync(join(c.repo.dir, ".git")).ino).not.toBe(c.ino);

    const post = await runPostStep({ github, state: main.state });
    runnersGitAfter(c.repo.dir, github);
    expect(ranAs(markers, 0), stepDebug(post)).toEqual([]);
    expect(post.stdout, stepDebug(post)).toContain("put back as they were before it ran");
    expectOriginalGit(c, post);
  }, 180_000);
});

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** `pid` and every process below it. */
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
