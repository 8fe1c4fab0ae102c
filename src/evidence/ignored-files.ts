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
 */
import { createHash } from "node:crypto";
import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { GitError, gitStream } from "../proc/git.js";
import { type GitContext, workTreeRoot } from "./evidence-tree.js";

/** Over this many ignored files (after exclusions) the fingerprint is `unknown`. */
export const DEFAULT_MAX_IGNORED_FILES = 500_000;
/** Example paths kept on a verify's evidence when its ignored files changed. */
export const MAX_CHANGE_EXAMPLES = 10;

/** lstat numbers kept per file, in this order. */
const FIELDS = 5; // size, mtimeMs, ctimeMs, mode, ino
const MISSING = -1; // listed by git, gone before lstat (a race with a writer)
const UNREADABLE = -2; // lstat failed otherwise (EACCES on a parent, ELOOP, …)
/** lstat calls between two yields to the event loop. */
const STAT_SLICE = 2000;

/**
 * The listed files: `paths` sorted by bytes, each held as a latin1 string (one character per byte of
 * git's path, so any byte sequence survives and string order is byte order); `stats[i * 5 …]` holds
 * file i's lstat numbers.
 */
export interface IgnoredEntries {
  readonly paths: readonly string[];
  readonly stats: Float64Array;
}

export type IgnoredFiles =
  | {
      readonly kind: "fingerprint";
      /** sha256 (hex) over the sorted paths and their lstat numbers. */
      readonly hash: string;
      /** How many ignored files were fingerprinted. */
      readonly files: number;
      /** Per-file data, for naming what changed; not serialised anywhere. */
      readonly entries: IgnoredEntries;
    }
  | {
      readonly kind: "unknown";
      readonly reason: string;
      /** True when git listed more than the bound (the listing was stopped). */
      readonly overBound: boolean;
    };

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
    root = await workTreeRoot(dir, options);
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
  if (overBound) {
    return {
      kind: "unknown",
      overBound: true,
      reason: `there are more than ${max} git-ignored files (the bound); they were not fingerprinted`,
    };
  }
  if (pending !== null) take((pending as Buffer).toString("latin1"));
  paths.sort();
  const stats = await statAll(root, paths);
  return fingerprintOf({ paths, stats });
}

/** One changed path (display form, UTF-8 decoded) and how it changed since the baseline. */
export interface IgnoredFileChange {
  readonly path: string;
  readonly change: "modified" | "added" | "removed";
}

export type IgnoredFilesComparison =
  | { readonly kind: "unchanged" }
  | {
      readonly kind: "changed";
      /** How many paths differ, or `null` when it is not known (the listing went over the bound). */
      readonly total: number | null;
      /** Up to `maxExamples` of them, in path order. */
      readonly examples: readonly IgnoredFileChange[];
      /** Said instead of (or besides) examples, e.g. "more than 500000 git-ignored files now". */
      readonly note?: string;
    }
  | { readonly kind: "unknown"; readonly reason: string };

/**
 * Compares `current` with `baseline`. An unknown baseline gives `unknown`; a current listing over the
 * bound after a baseline that was within it is `changed` (files were added), not `unknown`.
 */
export function compareIgnoredFiles(
  baseline: IgnoredFiles,
  current: IgnoredFiles,
  maxExamples: number = MAX_CHANGE_EXAMPLES,
): IgnoredFilesComparison {
  if (baseline.kind === "unknown") return { kind: "unknown", reason: baseline.reason };
  if (current.kind === "unknown") {
    if (current.overBound) {
      return {
        kind: "changed",
        total: null,
        examples: [],
        note: `${current.reason}, against ${baseline.files} at the baseline`,
      };
    }
    return { kind: "unknown", reason: current.reason };
  }
  if (current.hash === baseline.hash) return { kind: "unchanged" };
  const examples: IgnoredFileChange[] = [];
  let total = 0;
  walk(baseline.entries, current.entries, (path, before, after) => {
    if (
      before !== null &&
      after !== null &&
      sameStats(baseline.entries.stats, before, current.entries.stats, after)
    )
      return;
    total++;
    if (examples.length < maxExamples) {
      examples.push({
        path: displayPath(path),
        change: before === null ? "added" : after === null ? "removed" : "modified",
      });
    }
  });
  // Equal entries with unequal hashes cannot happen; say so rather than claim a change with no path.
  if (total === 0) return { kind: "unchanged" };
  return { kind: "changed", total, examples };
}

/**
 * The baseline for the next verify after one verify ran: `baseline`, with the changes the verify itself
 * made (between `before` and `after`) accepted — so its build outputs (`dist/`, `coverage/`) do not count
 * against the next sink, while a change that was already there before it ran (a node's) still does.
 *
 * A path the verify did not touch keeps its baseline entry; a path it touched takes its `after` entry.
 * When any of the three is unknown, `baseline` is returned unchanged (fails safe: the next verify then
 * sees the build outputs as changes).
 */
export function acceptVerifyChanges(
  baseline: IgnoredFiles,
  before: IgnoredFiles,
  after: IgnoredFiles,
): IgnoredFiles {
  if (baseline.kind !== "fingerprint" || before.kind !== "fingerprint" || after.kind !== "fingerprint")
    return baseline;
  if (before.hash === after.hash) return baseline;
  // Paths present in any of the three, in order; the result holds what the merge says for each.
  const touched = new Map<string, number | null>(); // path → index in `after`, or null when removed
  walk(before.entries, after.entries, (path, b, a) => {
    if (b !== null && a !== null && sameStats(before.entries.stats, b, after.entries.stats, a)) return;
    touched.set(path, a);
  });
  const paths: string[] = [];
  const values: number[] = [];
  const push = (path: string, stats: Float64Array, index: number): void => {
    paths.push(path);
    for (let f = 0; f < FIELDS; f++) values.push(stats[index * FIELDS + f]!);
  };
  const base = baseline.entries;
  const afterEntries = after.entries;
  const touchedPaths = [...touched.keys()].sort();
  let i = 0;
  let t = 0;
  while (i < base.paths.length || t < touchedPaths.length) {
    const p = base.paths[i];
    const q = touchedPaths[t];
    if (q === undefined || (p !== undefined && p < q)) {
      push(p!, base.stats, i++);
    } else {
      const index = touched.get(q)!;
      if (index !== null) push(q, afterEntries.stats, index);
      if (p === q) i++;
      t++;
    }
  }
  return fingerprintOf({ paths, stats: Float64Array.from(values) });
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

function displayPath(latin1: string): string {
  return Buffer.from(latin1, "latin1").toString("utf8");
}

/**
 * lstat of every path (relative to `root`) into a flat array. Synchronous lstat is about twice as fast
 * as the thread-pool one for many small calls (bench/ignored-files.mjs), so it runs in slices, yielding
 * to the event loop between them: the process stays responsive (check-run updates, a model server).
 */
async function statAll(root: string, paths: readonly string[]): Promise<Float64Array> {
  const stats = new Float64Array(paths.length * FIELDS);
  const rootBytes = Buffer.from(`${root}/`, "utf8");
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % STAT_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const rel = paths[i]!;
    // Pure printable ASCII is the same in latin1 and UTF-8; anything else goes to lstat as the exact bytes.
    const full = /^[\x20-\x7e]*$/.test(rel)
      ? `${root}/${rel}`
      : Buffer.concat([rootBytes, Buffer.from(rel, "latin1")]);
    const at = i * FIELDS;
    try {
      const st = lstatSync(full, { throwIfNoEntry: false });
      if (st === undefined) {
        stats.fill(MISSING, at, at + FIELDS);
        continue;
      }
      stats[at] = st.size;
      stats[at + 1] = st.mtimeMs;
      stats[at + 2] = st.ctimeMs;
      stats[at + 3] = st.mode;
      stats[at + 4] = st.ino;
    } catch {
      stats.fill(UNREADABLE, at, at + FIELDS);
    }
  }
  return stats;
}

function fingerprintOf(entries: IgnoredEntries): IgnoredFiles {
  const hash = createHash("sha256");
  hash.update(`evidence-gate ignored-files v1 ${entries.paths.length}\n`);
  let chunk = "";
  for (let i = 0; i < entries.paths.length; i++) {
    const at = i * FIELDS;
    const s = entries.stats;
    chunk += `${entries.paths[i]}\0${s[at]} ${s[at + 1]} ${s[at + 2]} ${s[at + 3]} ${s[at + 4]}\n`;
    if (chunk.length > 65_536) {
      hash.update(chunk, "latin1");
      chunk = "";
    }
  }
  hash.update(chunk, "latin1");
  return { kind: "fingerprint", hash: hash.digest("hex"), files: entries.paths.length, entries };
}

function sameStats(a: Float64Array, i: number, b: Float64Array, j: number): boolean {
  for (let f = 0; f < FIELDS; f++) if (a[i * FIELDS + f] !== b[j * FIELDS + f]) return false;
  return true;
}

/** Merge-walks two sorted entry lists: `visit(path, indexInA | null, indexInB | null)` per distinct path. */
function walk(
  a: IgnoredEntries,
  b: IgnoredEntries,
  visit: (path: string, i: number | null, j: number | null) => void,
): void {
  let i = 0;
  let j = 0;
  while (i < a.paths.length || j < b.paths.length) {
    const p = a.paths[i];
    const q = b.paths[j];
    if (q === undefined || (p !== undefined && p < q)) visit(p!, i++, null);
    else if (p === undefined || q < p) visit(q, null, j++);
    else {
      visit(p, i++, j++);
    }
  }
}

/** {@link IgnoredFiles} as JSON-safe data (`ignored-baseline.json` in the run directory; `resume` reads it). */
export type IgnoredFilesData =
  | {
      readonly kind: "fingerprint";
      readonly hash: string;
      readonly files: number;
      /** The latin1 path strings of `entries.paths`. */
      readonly paths: readonly string[];
      /** `entries.stats` as plain numbers. */
      readonly stats: readonly number[];
    }
  | { readonly kind: "unknown"; readonly reason: string; readonly overBound: boolean };

/** Converts a fingerprint to JSON-safe data, losslessly. */
export function ignoredFilesToData(files: IgnoredFiles): IgnoredFilesData {
  if (files.kind === "unknown") return files;
  return {
    kind: "fingerprint",
    hash: files.hash,
    files: files.files,
    paths: files.entries.paths,
    stats: Array.from(files.entries.stats),
  };
}

/**
 * Reads a fingerprint back from {@link ignoredFilesToData}'s output. Anything malformed becomes an
 * `unknown` fingerprint naming why, so a resumed leg never compares against a made-up baseline.
 */
export function ignoredFilesFromData(data: unknown): IgnoredFiles {
  const d = data as Partial<Record<string, unknown>> | null;
  if (d?.kind === "unknown" && typeof d.reason === "string") {
    return { kind: "unknown", reason: d.reason, overBound: d.overBound === true };
  }
  if (
    d?.kind === "fingerprint" &&
    typeof d.hash === "string" &&
    typeof d.files === "number" &&
    Array.isArray(d.paths) &&
    d.paths.every((p) => typeof p === "string") &&
    Array.isArray(d.stats) &&
    d.stats.every((n) => typeof n === "number") &&
    d.stats.length === d.paths.length * 5
  ) {
    return {
      kind: "fingerprint",
      hash: d.hash,
      files: d.files,
      entries: { paths: d.paths as string[], stats: Float64Array.from(d.stats as number[]) },
    };
  }
  return {
    kind: "unknown",
    reason: "the saved baseline of the run's git-ignored files could not be read",
    overBound: false,
  };
}
