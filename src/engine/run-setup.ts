/**
 * The checks every fresh run makes before anything is installed, billed or written (SPEC §5 "a refused
 * run spends nothing"): the working directory lies inside the repository, the repository has a starting
 * commit (the evidence tree's anchor) and `--commit` has a clean tree to commit onto. Shared by `auto`
 * and `run`; whether the model CLI can be found is `runtime-setup.ts`.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  describeStartingCommit,
  evidenceTree,
  NoCommitError,
  NotAGitRepositoryError,
  type StartingCommit,
  startingCommit,
} from "../evidence/evidence-tree.js";
import { liesInRepository } from "./outside-writes.js";
import type { RunGitContext } from "./run-frame.js";

/** What a prepared run stands on. Paths are absolute. */
export interface PreparedRepository {
  readonly repoDir: string;
  readonly workDir: string;
  readonly start: StartingCommit;
  /** A noun phrase naming the starting commit ("the merge of abc1234 into main"). */
  readonly startDescription: string;
  /** The working tree held no uncommitted edits (its tree was the starting commit's) when the run began. */
  readonly startClean: boolean;
}

export interface PrepareOptions {
  readonly repoDir: string;
  readonly workingDirectory?: string;
  readonly commit: boolean;
  readonly gitContext: RunGitContext;
  /** The PR head and base (action), or the CLI's `--sha`, to recognise a test merge commit. */
  readonly pr?: { readonly headSha: string; readonly baseRef: string };
  readonly postedHeadSha?: string;
}

/** The working directory's problem (outside the repository, not a folder), or `null`. */
export function workingDirectoryProblem(repoDir: string, workDir: string): string | null {
  // Compare real paths: a symlinked working directory must not lead the run (and its verify) out of the
  // repository whose tree is the evidence.
  if (!liesInRepository(workDir, { cwd: repoDir, repoRoot: repoDir })) {
    return `working directory ${workDir} is outside the repository ${repoDir}: working-directory / --working-directory must name a sub-folder of it`;
  }
  if (!existsSync(workDir) || !statSync(workDir).isDirectory()) {
    return `working directory ${workDir} is not a folder: check working-directory / --repo`;
  }
  return null;
}

/**
 * Resolves the directories and the starting commit.
 *
 * @returns the prepared repository, or a usage error message (nothing ran).
 * @throws git errors other than "not a repository" / "no commit" (internal errors).
 */
export async function prepareRepository(
  o: PrepareOptions,
): Promise<
  { readonly ok: true; readonly repo: PreparedRepository } | { readonly ok: false; readonly message: string }
> {
  const repoDir = resolve(o.repoDir);
  const workDir = o.workingDirectory ? resolve(repoDir, o.workingDirectory) : repoDir;
  const problem = workingDirectoryProblem(repoDir, workDir);
  if (problem !== null) return { ok: false, message: problem };
  let start: StartingCommit;
  try {
    const prHead = o.pr?.headSha ?? o.postedHeadSha;
    start = await startingCommit(repoDir, { ...o.gitContext, ...(prHead !== undefined ? { prHead } : {}) });
  } catch (error) {
    if (error instanceof NotAGitRepositoryError || error instanceof NoCommitError)
      return { ok: false, message: `${error.message} Nothing was run.` };
    throw error;
  }
  const startClean = (await evidenceTree(repoDir, o.gitContext)) === start.tree;
  if (o.commit) {
    // --commit commits "the nodes' changes": on a dirty tree it would sweep the user's own edits (and
    // untracked files) into that commit and call them the nodes' work.
    if (!startClean) {
      return {
        ok: false,
        message: `--commit needs a clean working tree: ${repoDir} has changes that are not committed (tracked edits or untracked, not ignored files), and --commit would commit them as the nodes' changes. Commit or stash them first, or run without --commit. Nothing was run.`,
      };
    }
  }
  const startDescription = describeStartingCommit({
    sha: start.sha,
    parents: start.parents,
    ...(o.pr
      ? { prHead: o.pr.headSha, baseRef: o.pr.baseRef }
      : o.postedHeadSha !== undefined
        ? { prHead: o.postedHeadSha }
        : {}),
  });
  return { ok: true, repo: { repoDir, workDir, start, startDescription, startClean } };
}

/** A `--concurrency` override's problem (SPEC §3: 1 to 10, a whole number), or `null` when absent or fine. */
export function concurrencyProblem(concurrency: number | undefined): string | null {
  if (concurrency === undefined || (Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 10))
    return null;
  return `concurrency must be a whole number from 1 to 10 (got ${concurrency})`;
}
