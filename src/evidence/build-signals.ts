/**
 * Build-signal detection (SPEC §5; seed 003; oh-my-graph ADR 0030 via research/oh-my-graph.md §6.7).
 *
 * A build signal is a file that says "this repository builds" (the table is `signal-rules.ts`). The scan
 * reads names only — it never opens a file and never runs anything — and it is bounded however large the
 * repository is:
 *
 * - Each scanned directory's top level: exact names are looked up one by one (a fixed number of `lstat`
 *   calls, so a `package.json` is never missed because the directory is huge), and only the glob rules
 *   (`*.csproj`, `*.sln`, …) and the name-based hints (lockfiles, wrappers) read the listing, which stops
 *   after `MAX_ENTRIES_PER_DIRECTORY` entries (`directory-names.ts`).
 * - Below, from the root and the working directory: the same scan over the folders up to
 *   {@link MAX_DEPTH} levels down (`src/app/pom.xml`, `a/b/c/package.json`; issue 26), breadth first —
 *   every folder of one level before the next, and the conventional monorepo folders' children
 *   ({@link MONOREPO_FOLDERS}: `packages/app`, `apps/web`, …) first of theirs — skipping hidden folders and
 *   {@link SKIPPED_FOLDERS} and stopping after {@link MAX_SUBDIRECTORIES} of them per directory. Symbolic
 *   links are never followed. A signal found there is still a reason to refuse; its suggestion runs the
 *   command in that folder, `(cd packages/app && npm test)` (a test file in a `tests` folder: one folder
 *   up).
 * - {@link scanBuildSignalsAlongPath} also scans the top level of every folder between the root and the
 *   working directory (at most {@link MAX_PATH_FOLDERS}), so `pkg/package.json` is found from `pkg/src`.
 */
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { BuildSignal } from "../core/build-evidence-answer.js";
import { type Names, namesIn } from "./directory-names.js";
import { commandInFolder } from "./folder-command.js";
import { SIGNAL_NAMES, signalsIn, TEST_FOLDERS } from "./signal-rules.js";

/** Most subdirectories scanned below each scanned directory, every level counted (monorepo children included). */
export const MAX_SUBDIRECTORIES = 200;

/** How many levels below a scanned directory are scanned: `a/b/c/package.json` is found, `a/b/c/d/…` is not. */
export const MAX_DEPTH = 3;

/**
 * Most folders scanned between the root and the working directory (both excluded); on a deeper path the
 * ones nearest the working directory are scanned.
 */
export const MAX_PATH_FOLDERS = 32;

/** Folders whose children are scanned too: where monorepos keep their projects (`packages/app`). */
export const MONOREPO_FOLDERS: readonly string[] = [
  "packages",
  "apps",
  "services",
  "libs",
  "crates",
  "modules",
  "cmd",
];

/**
 * Folders never descended into: dependencies and build output, whose build files are someone else's.
 * Hidden folders (`.git`, `.venv`, …) are skipped too.
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  "node_modules",
  "bower_components",
  "vendor",
  "target",
  "dist",
  "build",
  "venv",
  "__pycache__",
]);

/** Exact names any rule, hint or descent may ask about; each is looked up with `lstat`, never opened. */
const EXACT_NAMES = [...new Set([...SIGNAL_NAMES, ...MONOREPO_FOLDERS])];

/**
 * Scans each directory's top level, and the folders below it (up to {@link MAX_DEPTH} levels), for build signals.
 *
 * @param dirs the checked-out root first, then `working-directory` if set. Duplicates are scanned once.
 * @returns for each directory in order: its own signals by table priority, then those of the folders one
 *   level down (in path order, each by table priority). `file` is relative to `dirs[0]`; a signal found
 *   below it suggests `(cd <folder> && <command>)`, the folder relative to the directory scanned.
 *   A folder is scanned once, from the deepest directory that reaches it (where the command would run).
 *   An unreadable or missing directory contributes none.
 */
export async function scanBuildSignals(dirs: readonly string[]): Promise<BuildSignal[]> {
  const unique = [...new Set(dirs.map((d) => resolve(d)))];
  const root = unique[0];
  if (root === undefined) return [];
  return scanDirectories(
    root,
    unique.map((dir) => ({ dir, descend: true })),
    (from, folder) => (folder === from ? "" : relativePath(from, folder)),
  );
}

/** Where {@link scanBuildSignalsAlongPath} scans: a git working tree's root, and a directory inside it. */
export interface RepositoryPath {
  /** The working tree's root (absolute, or relative to the process's directory). */
  readonly root: string;
  /** The working directory: `root` itself, or a folder inside it (absolute, or relative to the process's). */
  readonly workingDirectory: string;
}

/**
 * Scans the root, every folder from it down to the working directory, and the working directory itself,
 * for build signals — so `cd pkg/src && evidence-gate auto` finds `pkg/package.json`.
 *
 * The root and the working directory are scanned as {@link scanBuildSignals} scans them (top level and up
 * to {@link MAX_DEPTH} levels down); each folder between them only at its top level (at most {@link MAX_PATH_FOLDERS}, the
 * nearest to the working directory), since what sits beside the path is other projects' build files.
 *
 * @returns in path order (root first): each directory's own signals by table priority, then for the root
 *   and the working directory those below them (in path order). `file` is relative to `root`
 *   (`pkg/package.json`). Every suggestion is phrased from the working directory, where a verify command
 *   runs: plain for its own signals, else `(cd <folder> && <command>)` with the folder relative to it
 *   (`(cd .. && npm test)`, `(cd app && make)`). A working directory outside `root` is scanned as
 *   `scanBuildSignals([root, workingDirectory])` does. An unreadable or missing directory contributes none.
 */
export async function scanBuildSignalsAlongPath(path: RepositoryPath): Promise<BuildSignal[]> {
  const root = resolve(path.root);
  const workDir = resolve(path.workingDirectory);
  const down = relative(root, workDir);
  if (down.startsWith(`..${sep}`) || down === ".." || resolve(root, down) !== workDir) {
    return scanBuildSignals([root, workDir]);
  }
  const steps = down === "" ? [] : down.split(sep);
  const between = steps
    .slice(0, -1)
    .map((_, i) => join(root, ...steps.slice(0, i + 1)))
    .slice(-MAX_PATH_FOLDERS);
  const dirs = [
    { dir: root, descend: true },
    ...between.map((dir) => ({ dir, descend: false })),
    ...(workDir === root ? [] : [{ dir: workDir, descend: true }]),
  ];
  return scanDirectories(root, dirs, (_from, folder) => relativePath(workDir, folder));
}

/** One directory to scan, and whether to scan the folders below it too. */
interface ScannedDirectory {
  readonly dir: string;
  readonly descend: boolean;
}

/**
 * Where the suggestion for a signal in `folder` (absolute), found from the scanned directory `from`, runs
 * its command: `""` for "here", else a `/`-separated folder for `(cd <folder> && …)`.
 */
type Phrasing = (from: string, folder: string) => string;

/**
 * The signals of `dirs` (each resolved, none twice), in their order: each one's own, then for those that
 * descend the signals below them. A folder is scanned once, from the last directory that reaches it.
 */
async function scanDirectories(
  root: string,
  dirs: readonly ScannedDirectory[],
  phrase: Phrasing,
): Promise<BuildSignal[]> {
  const own = await Promise.all(dirs.map(({ dir }) => namesIn(dir, EXACT_NAMES)));
  const seen = new Set(dirs.map(({ dir }) => dir));
  const nested = new Map<string, BuildSignal[]>();
  const signalsOf = (from: string, folder: string, names: Names): BuildSignal[] => {
    const shaped = (where: string) => (command: string) =>
      where === "" ? command : commandInFolder(where, command);
    return signalsIn(
      names,
      (name) => displayPath(root, folder, name),
      shaped(phrase(from, folder)),
      // A test file in `tests/` belongs to the project one folder up: its command runs there.
      TEST_FOLDERS.includes(basename(folder)) ? shaped(phrase(from, dirname(folder))) : undefined,
    );
  };
  // The last directory (the working directory) claims the folders it reaches first, so a nested
  // signal's command is phrased from where it would run.
  for (let i = dirs.length - 1; i >= 0; i--) {
    const { dir, descend } = dirs[i]!;
    if (!descend) continue;
    const folders = await subfoldersOf(dir, own[i]!, seen);
    for (const folder of folders.keys()) seen.add(join(dir, ...folder.split("/")));
    const found = await mapInBatches([...folders.entries()], async ([folder, names]) =>
      signalsOf(dir, join(dir, ...folder.split("/")), names),
    );
    nested.set(dir, found.flat());
  }
  return dirs.flatMap(({ dir }, i) => [...signalsOf(dir, dir, own[i]!), ...(nested.get(dir) ?? [])]);
}

/** `to` relative to `from`, `/`-separated. */
function relativePath(from: string, to: string): string {
  return relative(from, to).split(sep).join("/");
}

/** A signal's file, relative to the first scanned directory (the checked-out root) when inside it. */
function displayPath(root: string, dir: string, name: string): string {
  const rel = relative(root, join(dir, name));
  const inside = rel !== "" && !rel.startsWith(`..${sep}`) && rel !== "..";
  return (inside ? rel : join(dir, name)).split(sep).join("/");
}

/** A folder worth descending into: not hidden, not dependencies or build output. */
const descendable = (name: string): boolean => !name.startsWith(".") && !SKIPPED_FOLDERS.has(name);

/**
 * The folders below a scanned directory, up to {@link MAX_DEPTH} levels, with their names: `/`-separated
 * paths relative to it, in path order. Breadth first — a level's folders are all taken before the next
 * level's, a monorepo folder's children (`packages/app`) first of their level — at most
 * {@link MAX_SUBDIRECTORIES} in all. Folders in `exclude` (absolute) are neither taken nor counted, and not
 * descended into (another scanned directory covers them). Each folder is listed once.
 */
async function subfoldersOf(
  dir: string,
  names: Names,
  exclude: ReadonlySet<string>,
): Promise<Map<string, Names>> {
  const picked = new Map<string, Names>();
  const childrenOf = (parent: string, listed: Names): string[] => {
    const found = new Set(listed.folders());
    if (parent === "") for (const name of MONOREPO_FOLDERS) if (listed.has(name, "dir")) found.add(name);
    return [...found]
      .sort()
      .filter(descendable)
      .map((name) => (parent === "" ? name : `${parent}/${name}`))
      .filter((rel) => !exclude.has(join(dir, ...rel.split("/"))));
  };
  const isMonorepoChild = (rel: string): boolean => MONOREPO_FOLDERS.includes(rel.split("/")[0]!);
  let level = childrenOf("", names);
  for (let depth = 1; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const ordered =
      depth === 2 ? [...level.filter(isMonorepoChild), ...level.filter((r) => !isMonorepoChild(r))] : level;
    const taken = ordered.slice(0, MAX_SUBDIRECTORIES - picked.size);
    const listed = await mapInBatches(taken, async (rel) => {
      const listing = await namesIn(join(dir, ...rel.split("/")), EXACT_NAMES);
      return [rel, listing] as const;
    });
    for (const [rel, listing] of listed) picked.set(rel, listing);
    if (picked.size >= MAX_SUBDIRECTORIES) break;
    level = listed.flatMap(([rel, listing]) => childrenOf(rel, listing));
  }
  return new Map([...picked].sort(([a], [b]) => comparePaths(a, b)));
}

/** Path order: folder by folder, so `a/b` sorts before `a-c` and `a/b` right after `a`. */
function comparePaths(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  }
  return x.length - y.length;
}

/** Subfolder scans in flight at once. */
const PARALLEL_SCANS = 16;

async function mapInBatches<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL_SCANS) {
    out.push(...(await Promise.all(items.slice(i, i + PARALLEL_SCANS).map(f))));
  }
  return out;
}
