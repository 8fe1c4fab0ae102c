/**
 * The nodes' changes as a patch (`patch.diff` in the run directory, SPEC §11) and as a commit (`--commit`
 * and the action's push, SPEC §6, §10).
 *
 * The patch compares the starting commit with the working tree through a temporary index, so it includes
 * untracked-but-not-ignored files and leaves the user's index alone. The commit is made with plumbing
 * (`commit-tree` + `update-ref`), so no repository hook — which a PR could have planted, e.g. through
 * `core.hooksPath` — runs.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitError, git } from "../proc/git.js";
import {
  evidenceTree,
  type GitContext,
  gitOptions,
  withWorkingTreeIndex,
  workTreeRoot,
} from "./evidence-tree.js";

/** The identity used when the repository has none configured (SPEC §11). */
export const FALLBACK_IDENTITY = {
  name: "evidence-gate",
  email: "evidence-gate@users.noreply.github.com",
} as const;

/** Everything the nodes changed relative to the starting commit. */
export interface WorkingTreePatch {
  /** `git diff --binary` output, applicable with `git apply`; empty when nothing changed. */
  readonly diff: string;
  /** The same patch byte for byte (write this to `patch.diff`: a file need not be UTF-8). */
  readonly diffBytes: Buffer;
  /** Paths changed (added, modified, deleted), relative to the repository root, sorted. */
  readonly files: readonly string[];
  /** The evidence tree the patch leads to. */
  readonly tree: string;
}

const DIFF_FLAGS = ["--no-color", "--no-ext-diff", "--no-textconv", "--no-renames"] as const;

/**
 * The patch from `baseCommit` (a commit or tree) to the current working tree, untracked-but-not-ignored
 * files included.
 *
 * @throws NotAGitRepositoryError, GitError (e.g. an unknown `baseCommit`).
 */
export function workingTreePatch(
  repoDir: string,
  baseCommit: string,
  context: GitContext = {},
): Promise<WorkingTreePatch> {
  return withWorkingTreeIndex(repoDir, context, async (scope) => {
    const tree = await scope.git(["write-tree"]);
    const base = `${baseCommit}^{tree}`;
    const names = await scope.git(["diff", ...DIFF_FLAGS, "--name-only", "-z", base, tree]);
    const files = names
      .split("\0")
      .filter((n) => n.length > 0)
      .sort();
    const diffBytes = await wholeDiff(scope.git, base, tree);
    return { diff: diffBytes.toString("utf8"), diffBytes, files, tree };
  });
}

/**
 * `git diff --binary` from `base` to `tree` (both tree-ish), whole: through a file, because the exec seam
 * keeps stdout as a bounded tail and a patch must be whole.
 */
async function wholeDiff(
  run: (args: readonly string[]) => Promise<string>,
  base: string,
  tree: string,
): Promise<Buffer> {
  const outDir = await mkdtemp(join(tmpdir(), "evidence-gate-patch-"));
  try {
    const out = join(outDir, "patch.diff");
    await run(["diff", ...DIFF_FLAGS, "--binary", `--output=${out}`, base, tree]);
    return await readFile(out);
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/**
 * The patch (`git diff --binary`, as text) from `baseCommit` (a commit or tree) to `tree`, both already in
 * the object store: what committing `tree` onto `baseCommit` adds, read whole ({@link wholeDiff}).
 *
 * @throws NotAGitRepositoryError, GitError.
 */
export async function treePatch(
  repoDir: string,
  baseCommit: string,
  tree: string,
  context: GitContext = {},
): Promise<string> {
  const root = await workTreeRoot(repoDir, context);
  const run = (args: readonly string[]) => git(args, gitOptions(root, context));
  return (await wholeDiff(run, `${baseCommit}^{tree}`, tree)).toString("utf8");
}

export interface CommitWorkingTreeOptions extends GitContext {
  readonly message: string;
  /** One trailer line appended after a blank line, e.g. `Evidence-Gate-Run: <run id>` (SPEC §10). */
  readonly trailer?: string;
  /**
   * Commit exactly this tree (the evidence tree a verify ran on) instead of the whole working tree. The
   * index is then set to it, so later changes (files a verify command wrote) stay unstaged and visible.
   */
  readonly tree?: string;
  /**
   * The commit `HEAD` must still be (the run's starting commit): the nodes' changes are a diff from it, so
   * they are committed onto it or not at all. When something else moved `HEAD` meanwhile (another run's
   * `--commit`, a commit made by hand or by a verify command), nothing is committed: {@link HeadMoved}.
   */
  readonly parent?: string;
}

/** `HEAD` is no longer the commit the changes were made on (`CommitWorkingTreeOptions.parent`). */
export interface HeadMoved {
  readonly kind: "head_moved";
  /** Where `HEAD` is now (`null`: no commit). */
  readonly head: string | null;
}

async function configValue(root: string, key: string, context: GitContext): Promise<string | null> {
  try {
    const value = await git(["config", "--get", key], { cwd: root, ...context });
    return value.length > 0 ? value : null;
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}

/**
 * Commits every change not ignored (tracked and untracked) on the current branch (or detached `HEAD`).
 * Uses the repository's git identity where configured, else {@link FALLBACK_IDENTITY}. The user's index
 * is updated to the committed tree, as `git add -A && git commit` would leave it.
 *
 * @returns the new commit's SHA; `null` when the working tree equals `HEAD`'s tree; {@link HeadMoved} (only
 *   with `options.parent`) when `HEAD` is no longer that commit.
 * @throws NotAGitRepositoryError, GitError.
 */
export async function commitWorkingTree(
  repoDir: string,
  options: CommitWorkingTreeOptions,
): Promise<string | null | HeadMoved> {
  if (options.trailer !== undefined && !/^[A-Za-z0-9-]+: [^\r\n]+$/.test(options.trailer)) {
    throw new Error(
      `Internal error: commit trailer must be one "Key: value" line, got ${JSON.stringify(options.trailer)}`,
    );
  }
  const context: GitContext = {
    ...(options.baseEnv !== undefined ? { baseEnv: options.baseEnv } : {}),
    ...(options.knownSecrets !== undefined ? { knownSecrets: options.knownSecrets } : {}),
  };
  const root = await workTreeRoot(repoDir, context);
  const run = (args: readonly string[]): Promise<string> => git(args, { cwd: root, ...context });
  const treeContext: GitContext = {
    ...context,
    ...(options.indexOverlay !== undefined ? { indexOverlay: options.indexOverlay } : {}),
  };

  let head: string | null;
  try {
    head = await run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    head = null;
  }
  const moved = (now: string | null): HeadMoved | null =>
    options.parent !== undefined && now?.toLowerCase() !== options.parent.toLowerCase()
      ? { kind: "head_moved", head: now }
      : null;
  const movedBefore = moved(head);
  if (movedBefore !== null) return movedBefore;
  // The working tree is taken as every evidence tree is (a temporary index; in the action, what the trusted
  // scope hides left out), never with a plain `git add -A` into the user's index.
  const tree =
    options.tree !== undefined
      ? await run(["rev-parse", "--verify", `${options.tree}^{tree}`])
      : await evidenceTree(root, treeContext);
  if (head !== null && tree === (await run(["rev-parse", `${head}^{tree}`]))) return null;

  const identity: string[] = [];
  if ((await configValue(root, "user.name", context)) === null) {
    identity.push("-c", `user.name=${FALLBACK_IDENTITY.name}`);
  }
  if ((await configValue(root, "user.email", context)) === null) {
    identity.push("-c", `user.email=${FALLBACK_IDENTITY.email}`);
  }
  const trailer = options.trailer !== undefined ? `\n\n${options.trailer}` : "";
  const message = `${options.message.trimEnd()}${trailer}\n`;
  const sha = await run([
    ...identity,
    "commit-tree",
    tree,
    ...(head !== null ? ["-p", head] : []),
    "-m",
    message,
  ]);
  // Compare-and-swap: refuse to move HEAD if something else moved it meanwhile.
  try {
    await run(["update-ref", "-m", "evidence-gate: commit the nodes' changes", "HEAD", sha, head ?? ""]);
  } catch (error) {
    if (!(error instanceof GitError) || options.parent === undefined) throw error;
    const now = await run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).catch(() => null);
    const movedMeanwhile = moved(now);
    if (movedMeanwhile === null) throw error;
    return movedMeanwhile;
  }
  await run(["read-tree", tree]);
  return sha;
}

/**
 * Applies a `patch.diff` (as {@link workingTreePatch} wrote it) to the working tree of `repoDir` — untracked
 * files included, the index untouched (`git apply` without `--index`). Used when a resumed leg starts on a
 * fresh checkout of the starting commit: the nodes' changes from the earlier legs are put back first.
 *
 * @throws GitError when the patch does not apply (nothing is changed then: `git apply` is atomic).
 */
export async function applyPatch(
  repoDir: string,
  patchPath: string,
  context: GitContext = {},
): Promise<void> {
  const root = await workTreeRoot(repoDir, context);
  await git(["apply", "--binary", "--whitespace=nowarn", patchPath], {
    cwd: root,
    ...(context.baseEnv !== undefined ? { baseEnv: context.baseEnv } : {}),
    ...(context.knownSecrets !== undefined ? { knownSecrets: context.knownSecrets } : {}),
  });
}
