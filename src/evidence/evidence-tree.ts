/**
 * The evidence tree and the starting commit (SPEC §6).
 *
 * The evidence tree of a verify is the git tree hash of the working tree the command ran on: every
 * tracked and untracked-but-not-ignored file, taken through a TEMPORARY index so the user's index is never
 * read or touched (`GIT_INDEX_FILE` in a temp dir, seeded from a backdated copy of the engine's own index of
 * the last tree of that work tree — so unchanged files are not re-hashed — or from `HEAD`; then
 * `git add -A`; then `git write-tree`). The blobs it writes are ordinary loose objects; nothing else in the
 * repository changes.
 *
 * The starting commit is `HEAD` when the run begins: the PR head, or GitHub's test merge commit of that
 * head into the base (`refs/pull/N/merge`, whose second parent is the head).
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitError, git } from "../proc/git.js";
import { currentTrustedGit, hiddenPaths, isInside } from "../proc/trusted-git.js";
import { copySeed, seedIndexes } from "./seed-index.js";

/** The environment git runs from; scrubbed by the git child-env policy (SPEC §9). */
export interface GitContext {
  /** Default `process.env`. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets?: readonly string[];
  /**
   * Corrects a working-tree snapshot before its tree is written (see {@link IndexOverlay}): the action
   * swaps the pull request's agent configuration for the base ref's during a run (SPEC §9), and the
   * evidence tree and `patch.diff` must show the pull request's files, not the swap.
   */
  readonly indexOverlay?: IndexOverlay;
}

/**
 * Rewrites entries of a temporary index that holds the whole working tree (`git add -A` done), before
 * `git write-tree`. `git` runs with that temporary index in `root` (the work tree's top directory). It
 * must only change the index, never the working tree or the user's index.
 */
export interface IndexOverlay {
  /**
   * Whether `path` (repository-relative, `/`-separated) is one the overlay may rewrite: such a path's
   * working-tree bytes are not the evidence tree's by design, so the evidence-gaps check leaves it out.
   */
  readonly covers: (path: string) => boolean;
  readonly apply: (scope: {
    readonly root: string;
    readonly git: (args: readonly string[]) => Promise<string>;
  }) => Promise<void>;
}

/** The directory is not inside a git work tree, so no evidence tree or starting commit exists. */
export class NotAGitRepositoryError extends Error {
  constructor(
    readonly dir: string,
    readonly detail: string,
  ) {
    super(
      `${dir} is not inside a git working tree (${detail}); evidence-gate records the evidence tree and ` +
        "the starting commit with git. Run it in a checkout (actions/checkout, or git clone / git init).",
    );
    this.name = "NotAGitRepositoryError";
  }
}

/** The repository has no commit yet, so there is no starting commit. */
export class NoCommitError extends Error {
  constructor(readonly dir: string) {
    super(`${dir} is a git repository with no commit yet: there is no starting commit to verify against.`);
    this.name = "NoCommitError";
  }
}

/** The exec-seam options of one engine git call in `cwd` with `context` (and variables `set`). */
export const gitOptions = (cwd: string, context: GitContext, set?: Record<string, string>) => ({
  cwd,
  ...(context.baseEnv !== undefined ? { baseEnv: context.baseEnv } : {}),
  ...(context.knownSecrets !== undefined ? { knownSecrets: context.knownSecrets } : {}),
  ...(set !== undefined ? { set } : {}),
});

/**
 * The top directory of the work tree containing `dir`.
 *
 * @throws NotAGitRepositoryError when `dir` is missing or not inside a work tree.
 */
export async function workTreeRoot(dir: string, context: GitContext = {}): Promise<string> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new NotAGitRepositoryError(dir, "not a directory");
  } catch (error) {
    if (error instanceof NotAGitRepositoryError) throw error;
    throw new NotAGitRepositoryError(dir, "the directory does not exist");
  }
  let root: string;
  try {
    root = await git(["rev-parse", "--show-toplevel"], gitOptions(dir, context));
  } catch (error) {
    if (error instanceof GitError && /not a git repository|must be run in a work tree/i.test(error.detail)) {
      throw new NotAGitRepositoryError(dir, "git rev-parse --show-toplevel found none");
    }
    throw error;
  }
  // `core.worktree` in a configuration the pull request can write names another folder as the work tree —
  // a pristine copy of HEAD, say — and the tree would be taken there while the command ran here (found by
  // an attack on this session's change). A work tree that does not contain `dir` describes nothing of it.
  if (!isInside(dir, root)) {
    throw new NotAGitRepositoryError(
      dir,
      `git names ${root} as its work tree, which does not contain it: core.worktree points elsewhere`,
    );
  }
  return root;
}

/** `HEAD`'s commit, or `null` when the branch is unborn. */
async function headCommit(root: string, context: GitContext): Promise<string | null> {
  try {
    return await git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], gitOptions(root, context));
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}

/** NUL-separated fields of a git `-z` listing, decoded as UTF-8 (no empty last field). */
export function nulFields(bytes: Buffer): string[] {
  const fields = bytes.toString("utf8").split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}

/**
 * Configuration every git of an evidence tree gets on its command line (which wins over every
 * configuration file): the keys that decide whether git trusts an index entry's stat data instead of
 * reading the file, and what `git add -A` records of a file. A repository's `.git/config` is written by whoever ran in it — a node's agent, a verify
 * command — and `core.ignoreStat` makes `git add -A` mark what it adds "assume unchanged",
 * `core.checkStat=minimal` and `core.trustctime=false` let a same-size edit with its mtime put back pass as
 * unchanged, an untracked cache or split index is one more file to trust, and sparse patterns, `fileMode`,
 * `symlinks`, `ignoreCase` and `autocrlf` each let `add -A` record something other than the bytes, modes
 * and names on disk (git-config(1); each found by an attack on this change).
 */
const EVIDENCE_TREE_PINS: readonly string[] = [
  "-c",
  "core.ignoreStat=false",
  "-c",
  "core.checkStat=default",
  "-c",
  "core.trustctime=true",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "core.splitIndex=false",
  // What `add -A` takes from the files: every path (no sparse patterns), the mode and link bits as they are,
  // names as they are spelled, bytes as they are (no CRLF folding without an attribute; attribute
  // conversions are the gap check's: evidence-gaps.ts).
  "-c",
  "core.sparseCheckout=false",
  "-c",
  "core.fileMode=true",
  "-c",
  "core.symlinks=true",
  "-c",
  "core.ignoreCase=false",
  "-c",
  "core.autocrlf=false",
  // A seed is kept only in a form seed-index.ts reads (`feature.manyFiles` would ask for version 4 and no
  // checksum).
  "-c",
  "index.version=2",
  "-c",
  "index.skipHash=false",
];

/**
 * Runs `task` with a temporary index that holds the whole working tree (`git add -A`), then removes it.
 * `task` gets git options that use the temporary index.
 */
export async function withWorkingTreeIndex<T>(
  repoDir: string,
  context: GitContext,
  task: (scope: {
    readonly root: string;
    readonly git: (args: readonly string[]) => Promise<string>;
    /** The temporary index (`GIT_INDEX_FILE`), for a git `task` starts with its own options. */
    readonly indexFile: string;
  }) => Promise<T>,
): Promise<T> {
  const root = await workTreeRoot(repoDir, context);
  const tempDir = await mkdtemp(join(tmpdir(), "evidence-gate-index-"));
  const indexFile = join(tempDir, "index");
  try {
    // Never the repository's own index (seed-index.ts says why). A second early: file times come from the
    // kernel's coarse clock, which may lag this one.
    const readSince = Math.floor(Date.now() / 1000) - 1;
    const seedKey = `${currentTrustedGit()?.gitDir ?? ""}\0${root}`;
    const scoped = (args: readonly string[]): Promise<string> =>
      git([...EVIDENCE_TREE_PINS, ...args], gitOptions(root, context, { GIT_INDEX_FILE: indexFile }));
    if (!(await copySeed(seedIndexes.get(seedKey), indexFile))) {
      // HEAD's entries (no stat data: every file is read) keep what `add -A` leaves as it is — a submodule
      // that is not checked out stays in the tree. An unborn branch starts from an empty index.
      try {
        await scoped(["read-tree", "HEAD"]);
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        await rm(indexFile, { force: true });
      }
    }
    // `-A` without a pathspec covers the whole work tree, whatever the cwd (git ≥ 2.0). In the action, a
    // checkout's git directory moved by PR code is no file of the tree: what stands at its path is left
    // out, and what the seeded index had there goes too (`hiddenPaths`).
    const hidden = hiddenPaths(root).map((rel) => `:(top,literal)${rel}`);
    if (hidden.length > 0) {
      await scoped(["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--", ...hidden]);
      const excluded = hidden.map((spec) => spec.replace(":(top,literal)", ":(top,literal,exclude)"));
      await scoped(["add", "-A", "--", ":/", ...excluded]);
    } else await scoped(["add", "-A"]);
    // Kept before the overlay: the seed is what git read from the files, nothing the engine put there.
    await seedIndexes.keep(seedKey, indexFile, readSince);
    await context.indexOverlay?.apply({ root, git: scoped });
    return await task({ root, git: scoped, indexFile });
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

/**
 * The git tree hash of the working tree of the repository containing `repoDir`: every tracked and
 * untracked-but-not-ignored file as it is now. The user's index is not read for writing nor changed.
 *
 * @throws NotAGitRepositoryError when `repoDir` is not in a work tree; GitError when git fails.
 */
export async function evidenceTree(repoDir: string, context: GitContext = {}): Promise<string> {
  return (await evidenceTreeAndRoot(repoDir, context)).tree;
}

/**
 * {@link evidenceTree}, with the work tree's top directory it was taken in (what `workTreeRoot(repoDir)`
 * answered at that moment). A caller that reads more of the same snapshot — before anything else could
 * have run in the work tree — uses this `root` rather than asking git again, so that every part of the
 * snapshot describes the repository the tree was made from.
 *
 * @throws NotAGitRepositoryError when `repoDir` is not in a work tree; GitError when git fails.
 */
export function evidenceTreeAndRoot(
  repoDir: string,
  context: GitContext = {},
): Promise<{ readonly tree: string; readonly root: string }> {
  return withWorkingTreeIndex(repoDir, context, async (scope) => ({
    tree: await scope.git(["write-tree"]),
    root: scope.root,
  }));
}

/** The checked-out `HEAD` when the run begins (SPEC §6). */
export interface StartingCommit {
  readonly sha: string;
  readonly tree: string;
  /** Parent SHAs in order; GitHub's test merge commit has `[base, head]`. */
  readonly parents: readonly string[];
  /** True when `HEAD` is the merge of `prHead` into the base (two parents, the second `prHead`). */
  readonly isMergeOfHead: boolean;
}

const sameSha = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Reads the starting commit: `HEAD`'s SHA, tree and parents.
 *
 * @param options.prHead the PR head SHA (`pull_request.head.sha`), to recognise GitHub's test merge commit.
 * @throws NotAGitRepositoryError, NoCommitError (unborn branch), GitError.
 */
export async function startingCommit(
  repoDir: string,
  options: GitContext & { readonly prHead?: string } = {},
): Promise<StartingCommit> {
  const root = await workTreeRoot(repoDir, options);
  const sha = await headCommit(root, options);
  if (sha === null) throw new NoCommitError(root);
  // `cat-file` is plumbing: no pager, no signature display, no user formatting config.
  const raw = await git(["cat-file", "commit", sha], gitOptions(root, options));
  const header = raw.split("\n\n", 1)[0] ?? "";
  let tree = "";
  const parents: string[] = [];
  for (const line of header.split("\n")) {
    if (line.startsWith("tree ")) tree = line.slice(5).trim();
    else if (line.startsWith("parent ")) parents.push(line.slice(7).trim());
  }
  if (tree === "") throw new GitError(["cat-file", "commit", sha], "commit has no tree line");
  const isMergeOfHead =
    options.prHead !== undefined &&
    parents.length === 2 &&
    parents[1] !== undefined &&
    sameSha(parents[1], options.prHead);
  return { sha, tree, parents, isMergeOfHead };
}

const short = (sha: string): string => sha.slice(0, 7);

/**
 * Names the starting commit for the summary: "the merge of abc1234 into main" for GitHub's test merge
 * commit (two parents, the second the PR head), else the short SHA of `sha`.
 *
 * @param commit.baseRef the base branch name; without it the base parent's short SHA is named.
 */
export function describeStartingCommit(commit: {
  readonly sha: string;
  readonly parents: readonly string[];
  readonly prHead?: string;
  readonly baseRef?: string;
}): string {
  const [base, head] = commit.parents;
  if (
    commit.parents.length === 2 &&
    base !== undefined &&
    head !== undefined &&
    commit.prHead !== undefined
  ) {
    if (sameSha(head, commit.prHead)) {
      return `the merge of ${short(head)} into ${commit.baseRef ?? short(base)}`;
    }
  }
  return short(commit.sha);
}
