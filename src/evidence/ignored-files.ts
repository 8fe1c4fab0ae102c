/**
 * A fingerprint of the git-ignored files (ADR 0003, amendment 2026-11-29).
 *
 * The evidence tree (evidence-tree.ts) holds every tracked and untracked-but-not-ignored file, so a verify
 * command that reads a git-ignored file — `node_modules/`, a `config.local.js` the code loads, a build
 * cache — may pass on a working tree whose ignored part is on no commit: a node that edits
 * `node_modules/<runner>/cli.js` to exit 0 would get a green check over a commit whose tests fail on a
 * fresh clone. The engine therefore fingerprints the ignored files when the run starts and again just
 * before each verify command, and a verify whose ignored files changed is not `success` evidence.
 *
 * The fingerprint is the sha256 of the sorted list of ignored files (`git ls-files --others --ignored
 * --exclude-standard -z`, through the exec seam) with each file's `lstat` data: size, mtime, ctime, mode
 * and inode. Contents are not read (a large `node_modules` would cost seconds); ctime is included because
 * no unprivileged process can set it back, so an edit that restores the old mtime (`touch -d`) still
 * shows. Symlinks are fingerprinted as links (their targets are not followed). Only the folders named in
 * `exclude` are left out — the engine passes the run's own directory, where it writes while the run goes on;
 * everything else ignored, the rest of `.evidence-gate/` included, counts.
 *
 * Bounded: over {@link DEFAULT_MAX_IGNORED_FILES} entries git is stopped and the answer is `unknown`.
 * Never rejects: a git failure is `unknown` too, with the reason.
 *
 * This module lists and stat-s the files. The fingerprint value is `ignored-fingerprint.ts`, comparing two
 * of them `ignored-files-change.ts`, their JSON form `ignored-files-data.ts`; all three are re-exported
 * here, so the engine and the verify step import one module.
 */
import { type Dirent, lstatSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { GitError, gitStream } from "../proc/git.js";
import { type GitContext, workTreeRoot } from "./evidence-tree.js";
import { fingerprintOf, type IgnoredFiles, STAT_FIELDS } from "./ignored-fingerprint.js";

export {
  acceptVerifyChanges,
  compareIgnoredFiles,
  type IgnoredFileChange,
  type IgnoredFilesComparison,
  MAX_CHANGE_EXAMPLES,
} from "./ignored-files-change.js";
export { type IgnoredFilesData, ignoredFilesFromData, ignoredFilesToData } from "./ignored-files-data.js";
export type { IgnoredEntries, IgnoredFiles } from "./ignored-fingerprint.js";

/** Over this many ignored files (after exclusions) the fingerprint is `unknown`. */
export const DEFAULT_MAX_IGNORED_FILES = 500_000;
/**
 * An index path no one can create (`/proc` takes no new entries; elsewhere `/` is root's): git reads a
 * missing index as an empty one.
 */
const NO_INDEX = "/proc/evidence-gate-no-index/index";
const MISSING = -1; // listed by git, gone before lstat (a race with a writer)
const UNREADABLE = -2; // lstat failed otherwise (EACCES on a parent, ELOOP, …)
/** lstat calls between two yields to the event loop. */
const STAT_SLICE = 2000;

export interface IgnoredFilesOptions extends GitContext {
  /** Absolute folders whose files are left out besides `<root>/.evidence-gate/` (e.g. the runs folder). */
  readonly exclude?: readonly string[];
  /**
   * The runs folder (absolute): every run directory directly under it (a folder named like a run id,
   * `YYYYMMDD-HHMMSS-xxxxxx`) is left out — other runs of the repository write there while this one waits
   * at a gate. Anything else in the runs folder still counts (a node could hide a file the build loads).
   */
  readonly excludeRunDirectoriesUnder?: string;
  /** Default {@link DEFAULT_MAX_IGNORED_FILES}. */
  readonly maxEntries?: number;
  /** git's time limit (default 120 s). */
  readonly timeoutMs?: number;
  /**
   * The top directory of `dir`'s work tree when the caller just resolved it for the same snapshot
   * (`evidenceTreeAndRoot`): the files of that work tree are listed, and git is not asked again.
   * Absent: resolved here (`workTreeRoot(dir)`).
   */
  readonly root?: string;
}

/**
 * Fingerprints the git-ignored files of the work tree containing `dir` (the whole work tree, whatever
 * sub-folder `dir` is).
 *
 * @returns the fingerprint, or `unknown` with the reason (not a work tree, git failed, over the bound).
 */
export async function ignoredFilesFingerprint(
  dir: string,
  options: IgnoredFilesOptions = {},
): Promise<IgnoredFiles> {
  const max = options.maxEntries ?? DEFAULT_MAX_IGNORED_FILES;
  let root: string;
  try {
    root = options.root ?? (await workTreeRoot(dir, options));
  } catch (error) {
    return unknown(`the git-ignored files could not be listed: ${messageOf(error)}`);
  }
  const prefixes = excludedPrefixes(root, options.exclude ?? []);
  const runsPrefix =
    options.excludeRunDirectoriesUnder === undefined
      ? null
      : (excludedPrefixes(root, [options.excludeRunDirectoriesUnder])[0] ?? null);
  const inRunDirectory = (path: string): boolean =>
    runsPrefix !== null && path.startsWith(runsPrefix) && RUN_DIRECTORY.test(path.slice(runsPrefix.length));
  const paths: string[] = [];
  let overBound = false;
  let pending: Buffer | null = null;
  const stop = new AbortController();
  const take = (path: string): void => {
    if (
      overBound ||
      path === "" ||
      prefixes.some((prefix) => path.startsWith(prefix)) ||
      inRunDirectory(path)
    )
      return;
    if (paths.length >= max) {
      overBound = true;
      stop.abort();
      return;
    }
    paths.push(path);
  };
  try {
    await gitStream(["ls-files", "--others", "--ignored", "--exclude-standard", "-z"], {
      cwd: root,
      // No index: every ignored file on disk is listed, whatever an index says is tracked. The repository's
      // index is written by whoever ran in it, and a file force-added there (`git add -f`) but not in HEAD
      // is in no evidence tree (evidence-tree.ts): listed against it, it was in no record at all.
      set: { GIT_INDEX_FILE: NO_INDEX },
      ...(options.baseEnv !== undefined ? { baseEnv: options.baseEnv } : {}),
      ...(options.knownSecrets !== undefined ? { knownSecrets: options.knownSecrets } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      signal: stop.signal,
      onStdout: (chunk) => {
        if (overBound) return;
        const buf: Buffer = pending === null ? chunk : Buffer.concat([pending, chunk]);
        let start = 0;
        for (let nul = buf.indexOf(0, start); nul !== -1; nul = buf.indexOf(0, start)) {
          take(buf.toString("latin1", start, nul));
          start = nul + 1;
        }
        pending = start < buf.length ? Buffer.from(buf.subarray(start)) : null;
      },
    });
  } catch (error) {
    if (!(overBound && error instanceof GitError)) {
      return unknown(`git ls-files (the git-ignored files) failed: ${messageOf(error)}`);
    }
  }
  if (pending !== null) take((pending as Buffer).toString("latin1"));
  // A repository inside an ignored folder is listed as that folder alone (`node_modules/`), and a folder's
  // own stat does not change when a file deeper inside is edited: a node edited a test runner there and the
  // record said "unchanged" (found by an attack, 2026-12-06). Its files are listed too, within the bound.
  for (const folder of paths.filter((path) => path.endsWith("/"))) {
    filesUnder(root, folder, take);
  }
  if (overBound) {
    return {
      kind: "unknown",
      overBound: true,
      reason: `there are more than ${max} git-ignored files (the bound); they were not fingerprinted`,
    };
  }
  paths.sort();
  const stats = await statAll(root, paths);
  return fingerprintOf({ paths, stats });
}

/**
 * Calls `take` with every entry under `folder` (root-relative, latin1 form of its UTF-8 bytes, ending in
 * `/`), depth first, without following links; folders end in `/`. Stops early once `take` has hit the
 * bound (it then ignores the rest). An unreadable folder is passed over: its own entry is still listed.
 */
function filesUnder(root: string, folder: string, take: (path: string) => void): void {
  const rootBytes = Buffer.from(`${root}/`, "utf8");
  const pending = [folder];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let entries: Dirent<Buffer>[];
    try {
      entries = readdirSync(Buffer.concat([rootBytes, Buffer.from(dir, "latin1")]), {
        withFileTypes: true,
        encoding: "buffer",
      });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = `${dir}${entry.name.toString("latin1")}`;
      if (entry.isDirectory()) {
        take(`${path}/`);
        pending.push(`${path}/`);
      } else take(path);
    }
  }
}

function unknown(reason: string): IgnoredFiles {
  return { kind: "unknown", reason, overBound: false };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A run directory's first path element and separator (`run-id.ts`'s format). */
const RUN_DIRECTORY = /^\d{8}-\d{6}-[0-9a-f]{6}\//;

/** Root-relative, `/`-separated prefixes (latin1 form, ending in `/`) of the folders left out. */
function excludedPrefixes(root: string, exclude: readonly string[]): string[] {
  // Only the folders the engine itself writes during this run are left out (the run's own directory):
  // leaving out all of `.evidence-gate/` would let a node hide a file the build loads in there.
  const prefixes = new Set<string>();
  const realRoot = realOrSame(root);
  for (const folder of exclude) {
    if (!isAbsolute(folder)) continue;
    const rel = relative(realRoot, realOrSame(folder));
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
    prefixes.add(Buffer.from(`${rel.split(sep).join("/")}/`, "utf8").toString("latin1"));
  }
  return [...prefixes];
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * lstat of every path (relative to `root`) into a flat array. Synchronous lstat is about twice as fast
 * as the thread-pool one for many small calls (bench/b4c-ignored-files.mjs), so it runs in slices, yielding
 * to the event loop between them: the process stays responsive (check-run updates, a model server).
 */
async function statAll(root: string, paths: readonly string[]): Promise<Float64Array> {
  const stats = new Float64Array(paths.length * STAT_FIELDS);
  const rootBytes = Buffer.from(`${root}/`, "utf8");
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % STAT_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const rel = paths[i]!;
    // Pure printable ASCII is the same in latin1 and UTF-8; anything else goes to lstat as the exact bytes.
    const full = /^[\x20-\x7e]*$/.test(rel)
      ? `${root}/${rel}`
      : Buffer.concat([rootBytes, Buffer.from(rel, "latin1")]);
    const at = i * STAT_FIELDS;
    try {
      const st = lstatSync(full, { throwIfNoEntry: false });
      if (st === undefined) {
        stats.fill(MISSING, at, at + STAT_FIELDS);
        continue;
      }
      stats[at] = st.size;
      stats[at + 1] = st.mtimeMs;
      stats[at + 2] = st.ctimeMs;
      stats[at + 3] = st.mode;
      stats[at + 4] = st.ino;
    } catch {
      stats.fill(UNREADABLE, at, at + STAT_FIELDS);
    }
  }
  return stats;
}
