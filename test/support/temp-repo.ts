/**
 * Real git repositories in temp directories, for tests. Git runs through the product's exec seam
 * (`src/proc/git.ts`) with a hermetic environment: the machine's global and system git config are not
 * read, so a developer's identity, hooks path or signing settings never leak into a test.
 */
import { execFile } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { git as runGit } from "../../src/proc/git.js";

/** `process.env` without the machine's git config. Pass it as `baseEnv` to product code under test. */
export const hermeticGitEnv: Readonly<Record<string, string | undefined>> = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: undefined,
  GIT_AUTHOR_EMAIL: undefined,
  GIT_COMMITTER_NAME: undefined,
  GIT_COMMITTER_EMAIL: undefined,
};

/** The identity test repositories commit with (unless made with `identity: false`). */
export const TEST_IDENTITY = { name: "Test Author", email: "test@example.invalid" } as const;

export interface TempRepo {
  readonly dir: string;
  /** Runs `git ARGS` in the repository; returns stdout without its trailing newline. */
  git(args: readonly string[]): Promise<string>;
  /** Writes a file (creating folders) relative to the repository. */
  write(path: string, content: string): Promise<void>;
  /** Reads a file relative to the repository. */
  read(path: string): Promise<string>;
  /** Removes the repository. */
  cleanup(): Promise<void>;
}

export interface MakeTempRepoOptions {
  /** Files to write, path (relative, `/`-separated) → content. */
  readonly files?: Readonly<Record<string, string>>;
  /** Commit the files on `main` ("initial"). Default false: files stay untracked. */
  readonly commit?: boolean;
  /** Configure a local identity. Default true; false leaves the repository with none. */
  readonly identity?: boolean;
  /** Make a plain directory, not a git repository. */
  readonly noGit?: boolean;
}

/** Makes a temp directory holding a git repository on branch `main`. */
export async function makeTempRepo(options: MakeTempRepoOptions = {}): Promise<TempRepo> {
  const repo = tempRepoAt(await mkdtemp(join(tmpdir(), "evidence-gate-repo-")));
  for (const [path, content] of Object.entries(options.files ?? {})) await repo.write(path, content);
  if (options.noGit) return repo;
  await repo.git(["init", "--quiet", "--initial-branch=main"]);
  // What `git config commit.gpgsign false`, `user.name` and `user.email` write, without three more gits.
  // `maintenance.auto false` and `gc.auto 0`: no `git maintenance run --auto` child after each commit,
  // merge or fetch (git 2.39 starts one per command; a test repository never needs it).
  const config = ["[commit]", "\tgpgsign = false", "[maintenance]", "\tauto = false", "[gc]", "\tauto = 0"];
  if (options.identity !== false) {
    config.push("[user]", `\tname = ${TEST_IDENTITY.name}`, `\temail = ${TEST_IDENTITY.email}`);
  }
  await appendFile(join(repo.dir, ".git", "config"), `${config.join("\n")}\n`);
  if (options.commit) {
    // commitAll without its `rev-parse`: nothing here needs the SHA.
    await repo.git(["add", "-A"]);
    await repo.git(["commit", "--quiet", "--allow-empty", "-m", "initial"]);
  }
  return repo;
}

/**
 * A repository with `README.md` ("hello\n") committed on `main` ("initial"), the engine harnesses' default:
 * a copy of a template made once per process (the same commit each time), as {@link makeSampleNodeRepo}'s.
 */
export function makeHelloRepo(): Promise<TempRepo> {
  return copyOf("hello", () => makeTempRepo({ commit: true, files: { "README.md": "hello\n" } }));
}

/**
 * The {@link TempRepo} handle of the repository (or plain folder) at `dir`, which the caller made (it is not
 * registered anywhere: `cleanup` removes `dir`).
 */
export function tempRepoAt(dir: string): TempRepo {
  const repo: TempRepo = {
    dir,
    git: (args) => runGit(args, { cwd: dir, baseEnv: hermeticGitEnv }),
    write: async (path, content) => {
      const full = join(dir, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
    },
    read: (path) => readFile(join(dir, path), "utf8"),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
  return repo;
}

/**
 * The sample repositories as first made in this process (`buggy`: {@link makeSampleNodeRepo}'s; `fixed`:
 * {@link makeFixedSampleRepo}'s with its defaults; `hello`: {@link makeHelloRepo}'s), copied for each test
 * that asks: a copy is the same repository (same commits, same SHAs) for one git (the index refresh), where
 * making one runs three or more. Each lives in `TMPDIR/evidence-gate-template-PID-…`, removed when the process
 * exits, or — vitest ends its workers without an exit event — by the next process that makes one, once PID is
 * gone.
 */
const templates: { buggy?: Promise<string>; fixed?: Promise<string>; hello?: Promise<string> } = {};
const TEMPLATE = /^evidence-gate-template-(\d+)-/;

/** Makes a template with `make`, renamed to a folder named for this process; returns its path. */
async function makeTemplate(make: () => Promise<TempRepo>): Promise<string> {
  removeTemplatesOfEndedProcesses();
  const made = await make();
  const dir = join(tmpdir(), `evidence-gate-template-${process.pid}-${basename(made.dir)}`);
  await rename(made.dir, dir);
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Removes the templates of processes that have ended (their exit handler did not run). */
function removeTemplatesOfEndedProcesses(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(TEMPLATE.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") {
        rmSync(join(tmpdir(), name), { recursive: true, force: true });
      }
    }
  }
}

/** A fresh copy of the template `make` builds once per process. */
async function copyOf(name: keyof typeof templates, make: () => Promise<TempRepo>): Promise<TempRepo> {
  templates[name] ??= makeTemplate(make);
  const template = await templates[name];
  const repo = tempRepoAt(await mkdtemp(join(tmpdir(), "evidence-gate-repo-")));
  // `cp -a` (one process) copies the .git folder's small files in a fraction of `fs.cp`'s CPU time.
  await promisify(execFile)("cp", ["-a", `${template}/.`, repo.dir]);
  // The copied index's stat data (inode, times) is the template's: refresh it, or plumbing such as
  // `git diff-index` would see every file as changed.
  await repo.git(["update-index", "-q", "--refresh"]);
  return repo;
}

/** Stages everything and commits it; returns the new commit's SHA. */
export async function commitAll(repo: TempRepo, message: string): Promise<string> {
  await repo.git(["add", "-A"]);
  await repo.git(["commit", "--quiet", "--allow-empty", "-m", message]);
  return repo.git(["rev-parse", "HEAD"]);
}

/** The buggy source of the sample project: `sum` subtracts. */
export const BUGGY_SUM = "export function sum(a, b) {\n  return a - b;\n}\n";
/** The sample project's `package.json`: an ES module whose `npm test` runs `node --test`. */
export const SAMPLE_PACKAGE_JSON = `${JSON.stringify(
  { name: "sample", version: "1.0.0", private: true, type: "module", scripts: { test: "node --test" } },
  null,
  2,
)}\n`;
/** The fixed source of the sample project. */
export const FIXED_SUM = "export function sum(a, b) {\n  return a + b;\n}\n";
/** The name of the sample project's test, which fails until `sum` is fixed. */
export const SAMPLE_TEST_NAME = "sum adds two numbers";

/**
 * A tiny Node project committed on `main`: `npm test` runs `node --test`, and `test/sum.test.js` fails
 * until `src/sum.js` is fixed (write {@link FIXED_SUM} to it).
 */
export function makeSampleNodeRepo(): Promise<TempRepo> {
  return copyOf("buggy", makeBuggySample);
}

function makeBuggySample(): Promise<TempRepo> {
  return makeTempRepo({
    commit: true,
    files: {
      "package.json": SAMPLE_PACKAGE_JSON,
      ".gitignore": "node_modules/\ndist/\n",
      "src/sum.js": BUGGY_SUM,
      "test/sum.test.js": [
        'import assert from "node:assert/strict";',
        'import { test } from "node:test";',
        'import { sum } from "../src/sum.js";',
        "",
        `test(${JSON.stringify(SAMPLE_TEST_NAME)}, () => {`,
        "  assert.equal(sum(2, 3), 5);",
        "});",
        "",
      ].join("\n"),
    },
  });
}

/**
 * {@link makeSampleNodeRepo} with sum() fixed and committed (as `message`): `npm test` passes on HEAD.
 * `files` are written and committed with the fix.
 */
export async function makeFixedSampleRepo(
  message = "fix sum",
  files: Readonly<Record<string, string>> = {},
): Promise<TempRepo> {
  if (message === "fix sum" && Object.keys(files).length === 0) {
    return copyOf("fixed", () => fixSample("fix sum", {}));
  }
  return fixSample(message, files);
}

/** {@link makeFixedSampleRepo} made anew: the fix and `files` committed over a copy of the sample. */
async function fixSample(message: string, files: Readonly<Record<string, string>>): Promise<TempRepo> {
  const repo = await makeSampleNodeRepo();
  await repo.write("src/sum.js", FIXED_SUM);
  for (const [path, content] of Object.entries(files)) await repo.write(path, content);
  await commitAll(repo, message);
  return repo;
}

/** A checkout of GitHub's test merge commit (`refs/pull/N/merge`): `HEAD` = merge of the head into a moved base. */
export interface MergeCheckout extends TempRepo {
  /** The base branch's tip the head was merged into (the merge's first parent). */
  readonly baseSha: string;
  /** The PR head (the merge's second parent). */
  readonly headSha: string;
  /** The merge commit, checked out detached like `actions/checkout` does on `pull_request`. */
  readonly mergeSha: string;
}

/**
 * Makes `main` with one commit, a `feature` branch with a change, then moves `main` on and checks out
 * (detached) a merge of `feature` into `main` — the shape `actions/checkout` gives a `pull_request` job.
 */
export async function makeMergeCheckout(): Promise<MergeCheckout> {
  const repo = await makeTempRepo({ commit: true, files: { "README.md": "base\n" } });
  await repo.git(["checkout", "--quiet", "-b", "feature"]);
  await repo.write("feature.txt", "from the PR head\n");
  const headSha = await commitAll(repo, "feature change");
  await repo.git(["checkout", "--quiet", "main"]);
  await repo.write("base.txt", "the base moved on\n");
  const baseSha = await commitAll(repo, "base change");
  await repo.git(["checkout", "--quiet", "--detach", baseSha]);
  await repo.git([
    "merge",
    "--quiet",
    "--no-ff",
    "--no-edit",
    "-m",
    `Merge ${headSha} into ${baseSha}`,
    headSha,
  ]);
  const mergeSha = await repo.git(["rev-parse", "HEAD"]);
  return { ...repo, baseSha, headSha, mergeSha };
}
