/**
 * The operator's configuration in CI is the base branch's (SPEC §8, §9): before any CLI starts, every
 * agent-configuration path of the checkout (`src/policy/agent-config-paths.ts`: `.claude/`, `.codex/`,
 * `CLAUDE.md`, `CLAUDE.local.md`, `AGENTS.md`, `AGENTS.override.md`, `.mcp.json`, `.claude.json`, anywhere
 * in the tree) is swapped for the base commit's copy — the pull request's copies are moved aside (kept,
 * outside the working tree, under `RUNNER_TEMP`), the base's written in their place, and a path the base
 * does not have is absent — so a pull request cannot plant hooks, MCP servers or instructions that run with
 * the model credential. Git-ignored copies count as the pull request's too (a build step may write them). After the run the pull request's copies are moved back.
 *
 * The swap is invisible to the evidence (SPEC §6, §11): the {@link IndexOverlay} it gives the engine puts
 * the pull request's entries back into every working-tree snapshot (each verify's evidence tree, the final
 * tree, `patch.diff`) for every swapped path that still holds exactly the base's copy; a path a node
 * changed keeps the node's version. So an untouched run's evidence tree is the starting commit's tree and
 * `patch.diff` holds the nodes' changes only. Known limit, said in the summary: the verify command runs on
 * the working tree as it is, with the base's copies of these files.
 */
import { lstat, mkdir, readFile, readlink, rename, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  type GitContext,
  type IndexOverlay,
  withWorkingTreeIndex,
  workTreeRoot,
} from "../evidence/evidence-tree.js";
import type { AgentConfigEntry, BaseAgentConfig } from "../github/base-agent-config.js";
import { AGENT_CONFIG_FILES, AGENT_CONFIG_FOLDERS, isAgentConfigPath } from "../policy/agent-config-paths.js";
import { gitStream } from "../proc/git.js";

/** Git pathspecs that select every agent-configuration path (filtered again by `isAgentConfigPath`). */
export const AGENT_CONFIG_PATHSPECS: readonly string[] = [
  ...AGENT_CONFIG_FILES.map((name) => `:(glob)**/${name}`),
  ...AGENT_CONFIG_FOLDERS.flatMap((name) => [`:(glob)**/${name}`, `:(glob)**/${name}/**`]),
];

/** What a path held, as a working tree leaf: absent, a file (with its exec bit), or a link. */
type Leaf =
  | { readonly kind: "absent" }
  | { readonly kind: "file"; readonly executable: boolean; readonly bytes: Buffer }
  | { readonly kind: "symlink"; readonly target: string }
  | { readonly kind: "other" };

/** The index entry `git add -A` makes of a path: `"<mode> <object id>"`. */
type IndexEntries = ReadonlyMap<string, string>;

export interface SwapInOptions {
  /** Any folder inside the checkout (its top directory is found with git). */
  readonly repoDir: string;
  /** A fresh folder outside the working tree where the pull request's copies are kept during the run. */
  readonly asideDir: string;
  readonly base: BaseAgentConfig;
  readonly gitContext: GitContext;
}

/** What {@link AgentConfigSwap.restore} did. */
export interface RestoreReport {
  /** Paths whose pull-request state (a copy, or absence) is back in place. */
  readonly restored: readonly string[];
  /**
   * Paths a node changed during the run: the node's version stays in the working tree, the pull request's
   * copy (if any) stays under `asideDir`.
   */
  readonly changedByRun: readonly string[];
  readonly asideDir: string;
}

/** A swap in place: give {@link overlay} to the engine, call {@link restore} once after the run. */
export interface AgentConfigSwap {
  readonly overlay: IndexOverlay;
  /** Every path swapped (the pull request's, the base's, or both), sorted. */
  readonly paths: readonly string[];
  /** Paths where the base's copy and the pull request's differ (what the CLIs saw differently). */
  readonly differing: readonly string[];
  /** Base entries that could not be put in place (under a link or a file of the pull request), with why. */
  readonly notPlaced: readonly string[];
  readonly restore: () => Promise<RestoreReport>;
}

async function leafAt(path: string): Promise<Leaf> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch {
    return { kind: "absent" };
  }
  if (stats.isSymbolicLink()) return { kind: "symlink", target: await readlink(path) };
  if (stats.isFile())
    return { kind: "file", executable: (stats.mode & 0o111) !== 0, bytes: await readFile(path) };
  return { kind: "other" };
}

function sameLeaf(a: Leaf, b: Leaf): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.executable === b.executable && a.bytes.equals(b.bytes);
  if (a.kind === "symlink" && b.kind === "symlink") return a.target === b.target;
  return a.kind === "absent";
}

const leafOf = (entry: AgentConfigEntry | undefined): Leaf =>
  entry === undefined
    ? { kind: "absent" }
    : entry.kind === "symlink"
      ? { kind: "symlink", target: entry.bytes.toString("utf8") }
      : { kind: "file", executable: entry.kind === "executable", bytes: entry.bytes };

/** True when every folder between `root` and `path` is a real folder (no link, no file) or absent. */
async function parentsAreFolders(root: string, path: string): Promise<boolean> {
  const segments = path.split("/").slice(0, -1);
  let at = root;
  for (const segment of segments) {
    at = join(at, segment);
    try {
      const stats = await lstat(at);
      if (!stats.isDirectory()) return false;
    } catch {
      return true; // absent from here on: mkdir creates real folders
    }
  }
  return true;
}

/** Removes `dir` and its parents up to (not including) `stop` while they are empty and not in `keep`. */
async function pruneEmpty(dir: string, stop: string, keep: ReadonlySet<string>): Promise<void> {
  let at = dir;
  while (at.startsWith(`${stop}/`) && !keep.has(at)) {
    try {
      await rmdir(at);
    } catch {
      return; // not empty, or gone
    }
    at = dirname(at);
  }
}

async function place(root: string, path: string, leaf: Leaf): Promise<void> {
  const target = join(root, path);
  await mkdir(dirname(target), { recursive: true });
  if (leaf.kind === "file") await writeFile(target, leaf.bytes, { mode: leaf.executable ? 0o755 : 0o644 });
  else if (leaf.kind === "symlink") await symlink(leaf.target, target);
}

/** `rename`, or copy-and-remove across file systems. */
async function move(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    const leaf = await leafAt(from);
    if (leaf.kind === "file") await writeFile(to, leaf.bytes, { mode: leaf.executable ? 0o755 : 0o644 });
    else if (leaf.kind === "symlink") await symlink(leaf.target, to);
    await rm(from, { force: true });
  }
}

/**
 * The agent-configuration paths of the working tree: tracked, untracked, and git-ignored too (issue 12
 * item 4) — a CLI loads an ignored `.claude/settings.local.json`, `CLAUDE.local.md` or `.codex/` as readily
 * as a tracked one, and a pull request's build step (an install script) can write one that `git status`
 * never shows. No `--exclude-standard`: `ls-files -o` then lists every untracked file, ignored or not.
 */
async function workingTreePaths(root: string, context: GitContext): Promise<string[]> {
  const chunks: Buffer[] = [];
  await gitStream(["ls-files", "-z", "-co", "--", ...AGENT_CONFIG_PATHSPECS], {
    cwd: root,
    ...(context.baseEnv !== undefined ? { baseEnv: context.baseEnv } : {}),
    ...(context.knownSecrets !== undefined ? { knownSecrets: context.knownSecrets } : {}),
    set: { GIT_OPTIONAL_LOCKS: "0" },
    onStdout: (chunk) => chunks.push(chunk),
  });
  return [
    ...new Set(
      Buffer.concat(chunks)
        .toString("utf8")
        .split("\0")
        .filter((p) => p !== "" && isAgentConfigPath(p)),
    ),
  ];
}

/** The entries a temporary index of the working tree holds for the agent-configuration paths. */
async function snapshotEntries(scope: {
  readonly git: (args: readonly string[]) => Promise<string>;
}): Promise<Map<string, string>> {
  const out = await scope.git(["ls-files", "-s", "-z", "--", ...AGENT_CONFIG_PATHSPECS]);
  const entries = new Map<string, string>();
  for (const record of out.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const path = record.slice(tab + 1);
    const [mode = "", oid = ""] = record.slice(0, tab).split(" ");
    if (isAgentConfigPath(path)) entries.set(path, `${mode} ${oid}`);
  }
  return entries;
}

/**
 * The overlay: for each agent-configuration path whose snapshot entry is still the base's (as placed),
 * the pull request's entry (or none) goes back; a path a node changed keeps the snapshot's entry.
 */
function overlayFor(prEntries: IndexEntries, placedEntries: IndexEntries): IndexOverlay {
  return {
    covers: isAgentConfigPath,
    apply: async (scope) => {
      const current = await snapshotEntries(scope);
      const remove: string[] = [];
      const add: string[] = [];
      const paths = new Set([...prEntries.keys(), ...placedEntries.keys(), ...current.keys()]);
      for (const path of paths) {
        const now = current.get(path);
        if (now !== placedEntries.get(path)) continue; // a node's change (or a new file): it stays
        const wanted = prEntries.get(path);
        if (wanted === now) continue;
        if (now !== undefined) remove.push(path);
        if (wanted !== undefined) {
          const [mode, oid] = wanted.split(" ");
          add.push(`${mode},${oid},${path}`);
        }
      }
      // Removals first: a link `.claude` and a folder `.claude/` cannot both be in an index.
      for (let i = 0; i < remove.length; i += 500)
        await scope.git(["update-index", "--force-remove", "--", ...remove.slice(i, i + 500)]);
      for (let i = 0; i < add.length; i += 500)
        await scope.git([
          "update-index",
          "--add",
          "--replace",
          ...add.slice(i, i + 500).flatMap((c) => ["--cacheinfo", c]),
        ]);
    },
  };
}

/**
 * Swaps the checkout's agent configuration for the base's (see the module comment). Call before any CLI
 * starts, after the starting commit was read.
 *
 * @throws when a file cannot be moved or written (the caller must not start a CLI then).
 */
export async function swapInBaseAgentConfig(o: SwapInOptions): Promise<AgentConfigSwap> {
  const root = await workTreeRoot(o.repoDir, o.gitContext);
  const baseByPath = new Map(o.base.entries.map((e) => [e.path, e]));
  const prPaths = await workingTreePaths(root, o.gitContext);
  const paths = [...new Set([...prPaths, ...baseByPath.keys()])].sort();
  const plain: GitContext = {
    ...(o.gitContext.baseEnv !== undefined ? { baseEnv: o.gitContext.baseEnv } : {}),
    ...(o.gitContext.knownSecrets !== undefined ? { knownSecrets: o.gitContext.knownSecrets } : {}),
  };
  const prEntries = await withWorkingTreeIndex(root, plain, snapshotEntries);
  // Folders that existed before the swap are never removed by it.
  const existingFolders = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(join(root, path)); dir.startsWith(`${root}/`); dir = dirname(dir)) {
      const stats = await lstat(dir).catch(() => null);
      if (stats?.isDirectory()) existingFolders.add(dir);
    }
  }

  const prLeaves = new Map<string, Leaf>();
  for (const path of paths) {
    if (!(await parentsAreFolders(root, path))) continue;
    const leaf = await leafAt(join(root, path));
    if (leaf.kind === "absent" || leaf.kind === "other") continue;
    prLeaves.set(path, leaf);
    await move(join(root, path), join(o.asideDir, path));
    await pruneEmpty(dirname(join(root, path)), root, new Set());
  }
  const notPlaced: string[] = [];
  const placedLeaves = new Map<string, Leaf>();
  for (const [path, entry] of baseByPath) {
    const leaf = leafOf(entry);
    const existing = await leafAt(join(root, path));
    if (!(await parentsAreFolders(root, path)) || existing.kind !== "absent") {
      notPlaced.push(
        `${path} (something of the pull request's that is not agent configuration is in the way)`,
      );
      continue;
    }
    await place(root, path, leaf);
    placedLeaves.set(path, leaf);
  }
  for (const skipped of o.base.skipped) notPlaced.push(`${skipped} (a submodule on the base ref)`);
  const placedEntries = await withWorkingTreeIndex(root, plain, snapshotEntries);
  const differing = paths.filter(
    (p) => !sameLeaf(prLeaves.get(p) ?? { kind: "absent" }, placedLeaves.get(p) ?? { kind: "absent" }),
  );

  let restored = false;
  const restore = async (): Promise<RestoreReport> => {
    if (restored) throw new Error("Internal error: the agent configuration was restored twice");
    restored = true;
    const back: string[] = [];
    const changedByRun: string[] = [];
    // Deepest first: a folder the base's files made is empty (and pruned) before its own path is judged.
    for (const path of [...paths].reverse()) {
      // PR code ran since the swap: a folder on the way may now be a link (`x/.claude` → any folder), and
      // reading, removing or renaming through it would act outside the work tree as the engine's user.
      // Such a path is left as the run made it, and its aside copy stays aside.
      if (!(await parentsAreFolders(root, path))) {
        changedByRun.push(path);
        continue;
      }
      const now = await leafAt(join(root, path));
      if (!sameLeaf(now, placedLeaves.get(path) ?? { kind: "absent" })) {
        changedByRun.push(path);
        continue;
      }
      if (now.kind !== "absent") {
        await rm(join(root, path), { force: true });
        await pruneEmpty(dirname(join(root, path)), root, existingFolders);
      }
      back.push(path);
    }
    const restoredPaths: string[] = [];
    for (const path of back) {
      // Checked again just before the move: `mkdir -p` and `rename` follow a link in a parent folder.
      if (prLeaves.has(path) && !(await parentsAreFolders(root, path))) {
        changedByRun.push(path);
        continue;
      }
      if (prLeaves.has(path)) await move(join(o.asideDir, path), join(root, path));
      restoredPaths.push(path);
    }
    restoredPaths.sort();
    changedByRun.sort();
    return { restored: restoredPaths, changedByRun, asideDir: o.asideDir };
  };
  return { overlay: overlayFor(prEntries, placedEntries), paths, differing, notPlaced, restore };
}
