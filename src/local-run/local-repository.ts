/**
 * Where a CLI command runs (SPEC §11; issue 17 item 1): `--repo DIR`, or the current folder, resolved to the
 * **git working tree it lies in**. The working tree's root is the repository — its `.evidence-gate/` holds
 * the runs, its whole tree is the evidence, its root and every folder down to the working directory are
 * scanned for build signals — and the folder the command was pointed at, with `--working-directory`
 * resolved from it, is the working directory. So `cd pkg/src && evidence-gate auto` runs as
 * `evidence-gate auto --repo . --working-directory pkg/src` from the root would.
 *
 * The lookup is `git rev-parse --show-toplevel` through the exec seam (`workTreeRoot`); a folder in no
 * working tree is a usage error here, before anything is spent (`plan` included: it would otherwise pay
 * for a planner call on a folder `auto` refuses).
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { liesInRepository } from "../engine/outside-writes.js";
import { NotAGitRepositoryError, workTreeRoot } from "../evidence/evidence-tree.js";

/** A command's repository: the working tree's root, and where in it the command works. */
export interface LocalRepository {
  /** The git working tree's root (absolute, as git names it). */
  readonly repoDir: string;
  /** The working directory, relative to {@link repoDir} (`/`-separated); absent when it is the root. */
  readonly workingDirectory?: string;
}

/** What {@link locateRepository} reads: the flags as given, and what git runs with. */
export interface LocateOptions {
  /** The command's directory: `--repo` is resolved from it. */
  readonly cwd: string;
  /** `--repo DIR` as given (default `.`). */
  readonly repo: string;
  /** `--working-directory DIR` as given: relative to `--repo` (or the current folder). */
  readonly workingDirectory?: string;
  /** The environment git starts from (scrubbed by the exec seam). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
}

const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

const realOrSelf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/**
 * Resolves `--repo` (or the current folder) to its git working tree's root, and `--working-directory`
 * (resolved from `--repo`, and lying anywhere inside that working tree) to the working directory.
 *
 * @returns the repository, or every problem found as usage errors (nothing ran).
 */
export async function locateRepository(
  o: LocateOptions,
): Promise<
  { readonly ok: true; readonly repo: LocalRepository } | { readonly ok: false; readonly problems: string[] }
> {
  const folder = resolve(o.cwd, o.repo);
  const named = o.repo === "." ? `the current folder ${folder}` : `--repo ${folder}`;
  if (!existsSync(folder))
    return { ok: false, problems: [`--repo ${folder} does not exist: give the repository's folder`] };
  if (!isDir(folder))
    return { ok: false, problems: [`--repo ${folder} is not a folder: give the repository's folder`] };
  let root: string;
  try {
    root = await workTreeRoot(folder, { baseEnv: o.env, knownSecrets: o.knownSecrets });
  } catch (error) {
    if (!(error instanceof NotAGitRepositoryError)) throw error;
    return {
      ok: false,
      problems: [
        `${named} is not inside a git working tree: evidence-gate records its evidence with git. Run it in a clone (git clone, or git init and a first commit), or give --repo a clone's folder. Nothing was run.`,
      ],
    };
  }
  const workDir = resolve(folder, o.workingDirectory ?? ".");
  const given = o.workingDirectory !== undefined ? `--working-directory ${o.workingDirectory}` : named;
  // Real paths: a symlink must not lead the run (and its verify) out of the tree whose hash is the evidence.
  if (!liesInRepository(workDir, { cwd: root, repoRoot: root })) {
    return {
      ok: false,
      problems: [
        `${given} is outside the repository ${root} (the git working tree of --repo): give a folder inside it (--working-directory is relative to --repo)`,
      ],
    };
  }
  if (!isDir(workDir)) {
    return {
      ok: false,
      problems: [`${given} is not a folder inside ${root} (--working-directory is relative to --repo)`],
    };
  }
  const down = relative(realOrSelf(root), realOrSelf(workDir)).split(sep).join("/");
  return { ok: true, repo: { repoDir: root, ...(down !== "" ? { workingDirectory: down } : {}) } };
}
