/**
 * Making and removing the trusted git directory of one run (ADR 0012; the scope and the call rule:
 * `trusted-git.ts`). Call {@link makeTrustedGitDir} before any PR code runs: what it copies from the
 * checkout (`HEAD`, its object store and `shallow` list, the index's stat data, an `https` `remote.origin.url`)
 * is read while the checkout is still what `actions/checkout` (and the action's own head checkout) made.
 */

import { realpathSync } from "node:fs";
import { copyFile, cp, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { GitError, type GitOptions, git } from "./git.js";
import { currentTrustedGit, isInside, type TrustedGitDir } from "./trusted-git.js";

/**
 * The trusted git directory could not be made (ADR 0012): the run must not start, and the step says what to
 * fix (a usage error, as the action's run maps it: the job's git, the checkout or `RUNNER_TEMP` is not as
 * the action needs it).
 */
export class TrustedGitDirError extends Error {
  constructor(
    readonly parent: string,
    readonly detail: string,
  ) {
    super(
      `the engine's own git directory could not be made in ${parent} from the checkout (${detail}). The action needs the checkout actions/checkout made (its .git readable by the job's user), a git of version 2.31 or later on PATH, and room in RUNNER_TEMP for a copy of the checkout's .git/objects (SECURITY.md, "The engine's git")`,
    );
    this.name = "TrustedGitDirError";
  }
}

export interface MakeTrustedGitDirOptions {
  /** The workspace (a directory inside the checkout's work tree). */
  readonly workspace: string;
  /** A folder only the engine's user can enter (the action's run directories, mode 0700). */
  readonly parent: string;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
}

/** The configuration the engine writes itself: nothing in it names a program. */
function trustedConfig(o: { readonly sha256: boolean; readonly originUrl: string | null }): string {
  const lines = [
    "[core]",
    `\trepositoryformatversion = ${o.sha256 ? 1 : 0}`,
    "\tbare = false",
    "\tfilemode = true",
    "\tlogallrefupdates = false",
    "[gc]",
    "\tauto = 0",
    "[maintenance]",
    "\tauto = false",
  ];
  if (o.sha256) lines.push("[extensions]", "\tobjectformat = sha256");
  if (o.originUrl !== null) lines.push('[remote "origin"]', `\turl = ${o.originUrl}`);
  return `${lines.join("\n")}\n`;
}

/**
 * `remote.origin.url` when it is an `https://` or `http://` URL with nothing git's configuration syntax
 * would read differently (the base-ref agent configuration is fetched from it, `base-agent-config.ts`);
 * anything else (an SSH or local remote) is left out, and that fetch falls back to the API.
 */
function usableOrigin(url: string | null): string | null {
  if (url === null || !/^https?:\/\/[^\s"\\;#]+$/i.test(url)) return null;
  return url;
}

async function optional(run: () => Promise<string>): Promise<string | null> {
  try {
    const value = await run();
    return value === "" ? null : value;
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}

/**
 * Copies the checkout's object store (`objects/`, every pack and loose object, as files: never a hard link,
 * whose inode the pull request's user could still write) and its `shallow` list into the trusted directory.
 * Symbolic links are not followed or copied; `info/alternates` keeps only the absolute paths outside the
 * work tree (a `--reference` store of the runner's), `info/http-alternates` nothing.
 */
async function copyObjects(o: {
  readonly objects: string;
  readonly shallow: string | null;
  readonly into: string;
  readonly workTree: string;
}): Promise<void> {
  const alternates = join(o.objects, "info", "alternates");
  await cp(o.objects, join(o.into, "objects"), {
    recursive: true,
    force: true,
    filter: async (src) =>
      src !== alternates &&
      src !== join(o.objects, "info", "http-alternates") &&
      !(await lstat(src)).isSymbolicLink(),
  });
  const kept = (await readFile(alternates, "utf8").catch(() => ""))
    .split("\n")
    .filter((line) => isAbsolute(line) && !isInside(line, o.workTree));
  if (kept.length > 0) await writeFile(join(o.into, "objects", "info", "alternates"), `${kept.join("\n")}\n`);
  if (o.shallow !== null) await copyFile(o.shallow, join(o.into, "shallow")).catch(() => undefined);
}

/** Bound on the copied `info/exclude` (patterns, never a program; a larger one is left out). */
const MAX_EXCLUDE_BYTES = 1024 * 1024;

/**
 * The checkout's `info/exclude` (ignore patterns a step before the action may have written, e.g. for a tool
 * folder) copied as it is at the making, before any PR code ran, so that what was ignored stays ignored. A
 * link or anything but a regular file up to {@link MAX_EXCLUDE_BYTES} is left out: patterns are data, and
 * the copy is the engine's own file from then on.
 */
async function copyExclude(exclude: string | null, gitDir: string): Promise<void> {
  if (exclude === null || !isAbsolute(exclude)) return;
  const stats = await lstat(exclude).catch(() => null);
  if (stats === null || !stats.isFile() || stats.size > MAX_EXCLUDE_BYTES) return;
  await mkdir(join(gitDir, "info"), { recursive: true });
  await copyFile(exclude, join(gitDir, "info", "exclude"));
}

/**
 * Makes the trusted git directory for `o.workspace`'s work tree (see the module comment) in a new 0700
 * folder under `o.parent`:
 * 1. `git init --bare --template=` (no sample hooks), then the engine's own `config` ({@link trustedConfig});
 * 2. the checkout's object store and `shallow` list copied in ({@link copyObjects}), then `HEAD` detached at
 *    the checkout's `HEAD`;
 * 3. the checkout's index copied in and read back onto `HEAD` (`read-tree -m`: entries that match keep
 *    their stat data), else `read-tree HEAD`; then `update-index --refresh` (stat data of files unchanged
 *    since the checkout), so the first evidence tree does not hash every file.
 *
 * Cost: step 2 copies the checkout's `.git/objects` once per run — what `actions/checkout` fetched: the start
 * tree alone at its default `fetch-depth: 1`, the whole history at `fetch-depth: 0` (measured in ADR 0012).
 *
 * @throws TrustedGitDirError when it cannot be made (the run must not start: the engine's git would have no
 *   directory to use); an Error when called inside a trusted scope already.
 */
export async function makeTrustedGitDir(o: MakeTrustedGitDirOptions): Promise<TrustedGitDir> {
  if (currentTrustedGit() !== null)
    throw new Error("Internal error: a trusted git directory is already in use");
  // No GIT_* variable of the job (a GIT_DIR, GIT_INDEX_FILE or GIT_CONFIG_* would change what is copied).
  const baseEnv = Object.fromEntries(Object.entries(o.baseEnv).filter(([name]) => !/^GIT_/i.test(name)));
  const inCheckout: GitOptions = { cwd: o.workspace, baseEnv, knownSecrets: o.knownSecrets };
  const workTree = await optional(() => git(["rev-parse", "--show-toplevel"], inCheckout));
  await mkdir(o.parent, { recursive: true, mode: 0o700 });
  if (workTree === null) {
    // Not a work tree: an empty folder as the git directory, so that every engine git call in the workspace
    // still says "not a git repository" (as it did), even after PR code ran `git init` there.
    const home = await mkdtemp(join(o.parent, ".trusted-git-"));
    await mkdir(join(home, "none"));
    return { gitDir: join(home, "none"), workTree: realpathSync(o.workspace), home, startCommit: null };
  }
  const at = { ...inCheckout, cwd: workTree };
  const head = await optional(() => git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], at));
  const format = await optional(() => git(["rev-parse", "--show-object-format"], at));
  const gitPath = (name: string) =>
    optional(() => git(["rev-parse", "--path-format=absolute", "--git-path", name], at));
  const [indexPath, objects, shallow, exclude] = [
    await gitPath("index"),
    await gitPath("objects"),
    await gitPath("shallow"),
    await gitPath("info/exclude"),
  ];
  const originUrl = usableOrigin(await optional(() => git(["config", "--get", "remote.origin.url"], at)));

  // mkdtemp: mode 0700, owned by the engine's user; the parent is not writable by the pull request's user.
  const home = await mkdtemp(join(o.parent, ".trusted-git-"));
  const gitDir = join(home, "git");
  const dir: TrustedGitDir = { gitDir, workTree, home, startCommit: head };
  try {
    const here: GitOptions = {
      cwd: home,
      baseEnv,
      knownSecrets: o.knownSecrets,
      set: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: home },
    };
    const sha256 = format === "sha256";
    await git(
      ["init", "--quiet", "--bare", "--template=", `--object-format=${sha256 ? "sha256" : "sha1"}`, gitDir],
      here,
    );
    await writeFile(join(gitDir, "config"), trustedConfig({ sha256, originUrl }));
    if (head === null || objects === null) return dir;
    await copyObjects({ objects, shallow, into: gitDir, workTree });
    await copyExclude(exclude, gitDir);
    const inTrusted = [`--git-dir=${gitDir}`, `--work-tree=${workTree}`];
    await git([...inTrusted, "update-ref", "--no-deref", "HEAD", head], here);
    const index = join(gitDir, "index");
    let seeded = false;
    if (indexPath !== null && isAbsolute(indexPath)) {
      try {
        await copyFile(indexPath, index);
        await git(
          [
            ...inTrusted,
            "-c",
            "core.splitIndex=false",
            "-c",
            "core.untrackedCache=false",
            "read-tree",
            "-m",
            "HEAD",
          ],
          here,
        );
        seeded = true;
      } catch (error) {
        if (!(error instanceof GitError) && (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    if (!seeded) {
      await rm(index, { force: true });
      await git([...inTrusted, "read-tree", "HEAD"], here);
    }
    // Exit 1 when a file differs from HEAD (uncommitted changes): the index is refreshed all the same.
    await git([...inTrusted, "-c", "core.fsmonitor=false", "update-index", "-q", "--refresh"], here).catch(
      (error: unknown) => {
        if (!(error instanceof GitError)) throw error;
      },
    );
    return dir;
  } catch (error) {
    await rm(home, { recursive: true, force: true });
    if (error instanceof GitError) throw new TrustedGitDirError(o.parent, error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === "string") throw new TrustedGitDirError(o.parent, (error as Error).message);
    throw error;
  }
}

/** Removes a trusted git directory (its whole 0700 folder). Never throws. */
export async function removeTrustedGitDir(dir: TrustedGitDir): Promise<void> {
  await rm(dir.home, { recursive: true, force: true }).catch(() => undefined);
}
