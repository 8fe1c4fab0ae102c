/**
 * The checkout's own git directories, kept from the separate user and put back after it (SECURITY.md "A
 * separate user for PR code"; the attack: the verify command, as `evidence-gate-pr`, wrote `core.fsmonitor`
 * into `.git/config`, and `actions/checkout`'s post step — `git submodule foreach --recursive sh -c "git
 * config --local …"`, run after the action in the same job as the runner's user — ran it, read the job's
 * token and set the failing check to `success`). The engine's own git never reads the checkout's `.git`
 * (ADR 0012); git started by *anyone else* after the action does, so nothing PR code wrote there may
 * survive the run.
 *
 * Before any PR code runs ({@link guardCheckoutGit}, after the set-up gave the workspace to the user's group):
 * 1. every `.git` in the workspace (the checkout's, a submodule's `gitfile`, a nested repository's) is
 *    recorded: its path, device and inode, kind (folder, file, link) and, for a file or link, its content;
 * 2. each git directory's program-naming files — `config`, `config.worktree`, `commondir`, `gitdir`,
 *    `hooks/` and `info/` (attributes, exclude), of the directory itself and of every git directory under
 *    its `modules/` (submodules, at any depth) and `worktrees/` — are copied into a snapshot folder only the
 *    engine's user can enter (under the run directories, mode 0700);
 * 3. group write is taken off every `.git` (`chmod -R g-w`): the user may read the checkout's git (its
 *    `git status`, `git log`, `git diff`, `git rev-parse` work; a `git status` just cannot refresh the
 *    index) and write nothing in it (`git add`, `git commit`, `git stash`, `git config` fail). The workspace
 *    root stays writable, so the user can still rename `.git` there (a rename in the same folder needs no
 *    write on the folder moved; a move to another folder does, so the original cannot leave its parent) or
 *    put another `.git` in its place.
 *
 * When no PR code runs any more ({@link restoreCheckoutGit}: after every process of the user was killed and
 * what it made was handed back to the engine's user), for each recorded `.git`:
 * - not the recorded inode at its path (renamed, replaced by a link, a file or a new folder): what stands
 *   there is removed and the original, found by its inode in the same folder (else anywhere in the
 *   workspace), is renamed back; a recorded file that is gone is written back from its recorded content;
 * - then each git directory's snapshot files are written back where they differ, and files the snapshot
 *   does not have are removed from `hooks/` and `info/`, and a `config.worktree` that was not there goes.
 * The main step does this when the mode ends (success, failure, crash: a `finally`), and the post step does
 * it again (`restoreLeftCheckoutGit` in `pull-request/isolation-scope.ts`; it runs before `actions/checkout`'s post
 * step on every outcome, cancellation included), then removes the snapshot.
 *
 * Not covered, by design: worktree files git reads (`.gitattributes` names a filter or diff driver, which
 * runs only when configuration defines it; `.gitmodules` `submodule.<name>.update = !command` is honoured
 * only from configuration, never from `.gitmodules` — gitmodules(5), since git 2.20.2 / CVE-2019-19604).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { type ChildIdentity, runPrivileged, SYSTEM_TOOLS_ENV } from "./child-identity.js";

/** One `.git` entry of the workspace as it was before PR code ran. */
export interface RecordedGit {
  /** Absolute path. */
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
  readonly kind: "dir" | "file" | "link";
  /** A file's content (base64) or a link's target; `null` for a folder. */
  readonly content: string | null;
}

/** What {@link guardCheckoutGit} recorded: JSON-safe, saved in the snapshot folder for the post step. */
export interface CheckoutGitGuard {
  /** The separate user (the post step kills its processes and hands its files back before restoring). */
  readonly identity: GuardIdentity;
  readonly workspace: string;
  /** The 0700 folder holding the snapshot (`<n>/` per recorded folder, the relative git dirs inside). */
  readonly snapshot: string;
  readonly entries: readonly RecordedGit[];
}

/** What of the user's identity the post step needs (no home: it runs nothing as the user). */
export type GuardIdentity = Pick<ChildIdentity, "user" | "uid" | "gid" | "via" | "setpriv">;

/** The file in the snapshot folder holding the {@link CheckoutGitGuard} itself. */
export const GUARD_FILE = "guard.json";

/** Files of a git directory that name programs (or point at another git directory). */
const CONTROL_FILES = ["config", "config.worktree", "commondir", "gitdir"] as const;
/** Folders of a git directory kept whole (hooks run; `info/attributes` selects drivers). */
const CONTROL_DIRS = ["hooks", "info"] as const;

/** Every `.git` under `workspace` (not descending into one), found with `find -xdev -prune`. */
function findGitEntries(workspace: string): string[] {
  const found = spawnSync("find", [workspace, "-xdev", "-name", ".git", "-prune", "-print0"], {
    encoding: "utf8",
    env: { ...SYSTEM_TOOLS_ENV },
    maxBuffer: 64 * 1024 * 1024,
  });
  return (found.stdout ?? "").split("\0").filter((path) => path !== "");
}

/** `gitDir` and every git directory under its `modules/` (at any depth) and `worktrees/`, relative to it. */
function gitDirsIn(gitDir: string, rel = ""): string[] {
  const dirs = [rel];
  for (const sub of ["modules", "worktrees"]) {
    const walk = (at: string): void => {
      let names: string[];
      try {
        names = readdirSync(join(gitDir, at));
      } catch {
        return;
      }
      for (const name of names) {
        const child = join(at, name);
        const stats = lstatSync(join(gitDir, child));
        if (!stats.isDirectory()) continue;
        // A git directory has HEAD; a submodule named a/b has the folder modules/a holding b.
        if (existsSync(join(gitDir, child, "HEAD"))) dirs.push(...gitDirsIn(gitDir, child));
        else if (sub === "modules") walk(child);
      }
    };
    walk(join(rel, sub));
  }
  return [...new Set(dirs)];
}

/** Copies the control files of each git directory under `gitDir` into `into` (same relative layout). */
function snapshotGitDir(gitDir: string, into: string): void {
  for (const rel of gitDirsIn(gitDir)) {
    mkdirSync(join(into, rel), { recursive: true, mode: 0o700 });
    // HEAD marks a git directory in the snapshot too (`gitDirsIn` reads it there); it is never written back.
    if (existsSync(join(gitDir, rel, "HEAD"))) cpSync(join(gitDir, rel, "HEAD"), join(into, rel, "HEAD"));
    for (const name of [...CONTROL_FILES, ...CONTROL_DIRS]) {
      const from = join(gitDir, rel, name);
      if (!existsSync(from)) continue;
      cpSync(from, join(into, rel, name), { recursive: true, verbatimSymlinks: true });
    }
  }
}

/**
 * Records, snapshots and locks every `.git` of `workspace` (steps 1–3 of the module comment), the snapshot in
 * a new folder `snapshot` (made mode 0700; its parent must be the engine's alone). Call it before any PR code
 * runs and after the set-up's `chmod -R g+rwX`.
 *
 * @returns the guard (also written to `<snapshot>/guard.json`), or a sentence saying why it could not be
 *   made (the run must not go on: PR code could plant what the runner's git runs later).
 */
export function guardCheckoutGit(
  identity: GuardIdentity,
  workspace: string,
  snapshot: string,
): CheckoutGitGuard | string {
  try {
    mkdirSync(snapshot, { recursive: true, mode: 0o700 });
    chmodSync(snapshot, 0o700);
    const entries: RecordedGit[] = [];
    for (const [index, path] of findGitEntries(workspace).entries()) {
      const stats = lstatSync(path);
      const kind = stats.isSymbolicLink() ? "link" : stats.isDirectory() ? "dir" : "file";
      const content =
        kind === "link" ? readlinkSync(path) : kind === "file" ? readFileSync(path).toString("base64") : null;
      entries.push({ path, dev: stats.dev, ino: stats.ino, kind, content });
      if (kind === "dir") snapshotGitDir(path, join(snapshot, String(index)));
      if (kind === "link") continue;
      const locked = runPrivileged(identity, ["chmod", "-R", "g-w", path]);
      if (locked !== null) return `could not take group write off ${path} (${locked})`;
    }
    const { user, uid, gid, via, setpriv } = identity;
    const guard: CheckoutGitGuard = {
      identity: { user, uid, gid, via, setpriv },
      workspace,
      snapshot,
      entries,
    };
    writeFileSync(join(snapshot, GUARD_FILE), JSON.stringify(guard), { mode: 0o600 });
    return guard;
  } catch (error) {
    return `could not record the checkout's git directories (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The path in `parentDir` (else anywhere under `workspace`) whose inode is `entry`'s, or `null`. */
function findByInode(entry: RecordedGit, workspace: string): string | null {
  const matches = (path: string): boolean => {
    try {
      const stats = lstatSync(path);
      return stats.ino === entry.ino && stats.dev === entry.dev;
    } catch {
      return false;
    }
  };
  const parent = dirname(entry.path);
  for (const name of existsSync(parent) ? readdirSync(parent) : []) {
    if (matches(join(parent, name))) return join(parent, name);
  }
  const found = spawnSync("find", [workspace, "-xdev", "-inum", String(entry.ino), "-print0"], {
    encoding: "utf8",
    env: { ...SYSTEM_TOOLS_ENV },
  });
  return (found.stdout ?? "").split("\0").find((path) => path !== "" && matches(path)) ?? null;
}

/**
 * Where the pull request's code moved the checkout's git directories: for each recorded `.git` no longer at
 * its path, the path (absolute) now holding its inode, found as {@link restoreCheckoutGit} finds it. A tree
 * the engine makes during the run leaves these out (`hiddenPaths` in `trusted-git.ts`): a `.git` renamed
 * `.git.orig` is the checkout's, not the nodes' work, and committed it would publish the checkout's
 * configuration. Reads only; safe while the user's processes run (a path it misses is restored at the end).
 */
export function movedCheckoutGits(guard: CheckoutGitGuard): string[] {
  const moved: string[] = [];
  for (const entry of guard.entries) {
    if (isRecorded(entry, entry.path)) continue;
    const now = findByInode(entry, guard.workspace);
    if (now !== null && now !== entry.path) moved.push(now);
  }
  return moved;
}

/** `true` when `path` holds exactly what `entry` recorded. */
function isRecorded(entry: RecordedGit, path: string): boolean {
  try {
    const stats = lstatSync(path);
    return stats.ino === entry.ino && stats.dev === entry.dev;
  } catch {
    return false;
  }
}

/**
 * Makes every folder between `workspace` and `path`'s parent a real folder again: a component PR code
 * replaced with a link (or a file) is removed — the link itself, never what it names — and a folder made in
 * its place (the original is then found by its inode, `findByInode`). Without this, putting `sub/.git` back
 * through a `sub` linked to `/etc` would delete and write there as root (a fourth attack). Returns what it
 * removed, relative to `workspace`.
 */
function realParents(workspace: string, path: string): string[] {
  const removed: string[] = [];
  const rel = relative(workspace, dirname(path));
  if (rel === "" || rel.startsWith("..")) return removed;
  let at = workspace;
  for (const part of rel.split(sep)) {
    at = join(at, part);
    const stats = lstatSync(at, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true) continue;
    if (stats !== undefined) {
      unlinkSync(at);
      removed.push(relative(workspace, at));
    }
    mkdirSync(at, { mode: 0o755 });
  }
  return removed;
}

/** Puts one recorded `.git` entry back at its path; a sentence for what could not be done, or `null`. */
function restoreEntry(entry: RecordedGit, workspace: string): string | null {
  realParents(workspace, entry.path);
  if (isRecorded(entry, entry.path)) {
    if (entry.kind === "file" && readFileSync(entry.path).toString("base64") !== entry.content)
      writeFileSync(entry.path, Buffer.from(entry.content ?? "", "base64"));
    return null;
  }
  const original = findByInode(entry, workspace);
  mkdirSync(dirname(entry.path), { recursive: true });
  rmSync(entry.path, { recursive: true, force: true });
  if (original !== null) {
    renameSync(original, entry.path);
    return null;
  }
  if (entry.kind === "file") writeFileSync(entry.path, Buffer.from(entry.content ?? "", "base64"));
  else if (entry.kind === "link") symlinkSync(entry.content ?? "", entry.path);
  else return `the checkout's git directory ${entry.path} was gone; what stood in its place was removed`;
  return null;
}

/** `true` when the trees at `a` and `b` hold the same names, kinds, modes, contents and link targets. */
function sameTree(a: string, b: string): boolean {
  const sa = lstatSync(a, { throwIfNoEntry: false });
  const sb = lstatSync(b, { throwIfNoEntry: false });
  if (sa === undefined || sb === undefined) return sa === sb;
  if (sa.isSymbolicLink() || sb.isSymbolicLink())
    return sa.isSymbolicLink() && sb.isSymbolicLink() && readlinkSync(a) === readlinkSync(b);
  if (sa.isDirectory() !== sb.isDirectory() || (sa.mode & 0o111) !== (sb.mode & 0o111)) return false;
  if (!sa.isDirectory()) return sa.isFile() && sb.isFile() && readFileSync(a).equals(readFileSync(b));
  const names = readdirSync(a).sort();
  const other = readdirSync(b).sort();
  return (
    names.length === other.length && names.every((n, i) => n === other[i] && sameTree(join(a, n), join(b, n)))
  );
}

/** Writes each control file and folder of the snapshot `from` back into the git directory `gitDir`. */
function restoreGitDir(from: string, gitDir: string): void {
  for (const rel of gitDirsIn(from)) {
    for (const name of [...CONTROL_FILES, ...CONTROL_DIRS]) {
      const saved = join(from, rel, name);
      const live = join(gitDir, rel, name);
      if (sameTree(saved, live)) continue;
      rmSync(live, { recursive: true, force: true });
      if (existsSync(saved)) cpSync(saved, live, { recursive: true, verbatimSymlinks: true });
    }
  }
}

/**
 * Puts every `.git` {@link guardCheckoutGit} recorded back as it was (the module comment's end). Call it
 * only when no process of the user runs and what it made is the engine's user's again (`hand-back.ts`).
 *
 * @returns one sentence per thing it could not put back, and one per thing it did put back (prefixed
 *   `restored`), for the log; never throws.
 */
export function restoreCheckoutGit(guard: CheckoutGitGuard): { restored: string[]; problems: string[] } {
  const restored: string[] = [];
  const problems: string[] = [];
  for (const [index, entry] of guard.entries.entries()) {
    try {
      const wasThere = isRecorded(entry, entry.path);
      const problem = restoreEntry(entry, guard.workspace);
      if (problem !== null) problems.push(problem);
      else if (!wasThere)
        restored.push(`${relative(guard.workspace, entry.path) || basename(entry.path)} (replaced)`);
      const saved = join(guard.snapshot, String(index));
      if (entry.kind === "dir" && problem === null && existsSync(saved)) {
        const before = sameSnapshot(saved, entry.path);
        restoreGitDir(saved, entry.path);
        if (!before) restored.push(`${relative(guard.workspace, entry.path) || ".git"} (changed)`);
      }
    } catch (error) {
      problems.push(
        `could not put ${entry.path} back (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  // A `.git` that was not there before PR code ran is PR code's: a folder the PR's commit declares a
  // submodule (`.gitmodules` + a gitlink) is entered by the runner's `git submodule foreach` after the action,
  // which runs that repository's fsmonitor (a fourth attack). Every such `.git` goes (a link: the link itself).
  const recorded = new Set(guard.entries.map((entry) => entry.path));
  for (const path of findGitEntries(guard.workspace)) {
    if (recorded.has(path)) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      restored.push(`${relative(guard.workspace, path)} (made by the pull request's code: removed)`);
    } catch (error) {
      problems.push(
        `could not remove ${path}, a git directory the pull request's code made (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  return { restored, problems };
}

/** `true` when every control file and folder under `gitDir` is the snapshot's. */
function sameSnapshot(from: string, gitDir: string): boolean {
  return gitDirsIn(from).every((rel) =>
    [...CONTROL_FILES, ...CONTROL_DIRS].every((name) =>
      sameTree(join(from, rel, name), join(gitDir, rel, name)),
    ),
  );
}

/** Reads a guard saved by {@link guardCheckoutGit} in `snapshot`, or `null` when there is none. */
export function readCheckoutGitGuard(snapshot: string): CheckoutGitGuard | null {
  try {
    if (!statSync(snapshot).isDirectory()) return null;
    return JSON.parse(readFileSync(join(snapshot, GUARD_FILE), "utf8")) as CheckoutGitGuard;
  } catch {
    return null;
  }
}
