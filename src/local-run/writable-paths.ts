/**
 * The places a CLI run writes, checked before anything runs or is spent (issue 17 item 5): the runs folder
 * (`--runs-dir`, else `<repo>/.evidence-gate/runs`), the output files (`--summary-out`, `--check-run-out`)
 * and the repository's git object store (every evidence tree is hashed into it, `git add -A`). A place that
 * is a file, lies on a read-only file system or is not writable is the operator's input to fix: a usage
 * error naming it and the fix (exit 64), never a stack trace or an internal error after the run.
 *
 * `access(W_OK)` answers for both: a read-only mount (EROFS) and missing permission (EACCES) — access(2).
 * {@link writeFailureProblem} is the last resort for a write that fails anyway once the run is under way
 * (the disk fills, a folder is made read-only meanwhile).
 */
import {
  accessSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { GitError, git } from "../proc/git.js";

/** A filesystem error code, in words. */
const CODE_WORDS: Readonly<Record<string, string>> = {
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
  EEXIST: "a file is in the way",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENOENT: "no such file or folder",
};

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : undefined;

const worded = (code: string | undefined): string =>
  code === undefined ? "not writable" : `${code}: ${CODE_WORDS[code] ?? "not writable"}`;

/** Why `path` cannot be written into, or `null` (`access(W_OK | X_OK)`). */
function unwritable(path: string): string | null {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    return worded(codeOf(error));
  }
}

/**
 * Why no folder can be made in the existing folder `parent` on the way to `dir`, or `null`: the first
 * missing folder is made and removed again. `access(W_OK)` says yes to root on `/proc` (whose folders
 * refuse `mkdir` with ENOENT), and there Node's recursive `mkdirSync` retries forever, at full CPU and
 * deaf to SIGTERM (seen on Node 20 with `--runs-dir /proc/x`); a real `mkdir` answers for every filesystem.
 */
function childFolderProblem(parent: string, dir: string): string | null {
  const first = join(parent, relative(parent, dir).split(sep)[0] ?? "");
  try {
    mkdirSync(first);
  } catch (error) {
    return worded(codeOf(error));
  }
  rmdirSync(first);
  return null;
}

/**
 * Why the folder `dir` cannot hold what the run writes there (it is created when missing), or `null`: a
 * part of its path is a file, or the folder (or, when missing, its nearest existing ancestor) is not
 * writable.
 *
 * @param label how the operator named it (`--runs-dir out`, `the runs folder /repo/.evidence-gate/runs`).
 * @param fix what to do instead, appended to the problem.
 */
export function folderWriteProblem(label: string, dir: string, fix: string): string | null {
  let path = resolve(dir);
  for (;;) {
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch (error) {
      const code = codeOf(error);
      if ((code === "ENOENT" || code === "ENOTDIR") && dirname(path) !== path) {
        path = dirname(path);
        continue;
      }
      return `${label} cannot be used (${worded(code)}): ${fix}`;
    }
    if (!isFolder) {
      return path === resolve(dir)
        ? `${label} is a file, not a folder: ${fix}`
        : `${label} cannot be created: ${path} is a file, not a folder: ${fix}`;
    }
    const why = unwritable(path) ?? (path === resolve(dir) ? null : childFolderProblem(path, resolve(dir)));
    if (why === null) return null;
    return path === resolve(dir)
      ? `${label} is not writable (${why}): ${fix}`
      : `${label} cannot be created: ${path} is not writable (${why}). ${fix}`;
  }
}

/**
 * Why an output file (`--summary-out`, `--check-run-out`) cannot be written, or `null`: the path is a
 * folder, its folder does not exist or is not writable, or the file exists and is not writable. A file that
 * does not exist yet is really created and removed again: `access(W_OK)` says yes to root on `/proc`,
 * where creating a file fails (ENOENT) — once the run had finished, with a stack trace.
 *
 * @param flag the flag and its value as given (`--summary-out s.md`); `file` is the resolved path.
 */
export function outputFileProblem(flag: string, file: string): string | null {
  const folder = dirname(file);
  let stats: ReturnType<typeof statSync> | undefined;
  try {
    stats = statSync(file);
  } catch {
    stats = undefined;
  }
  if (stats?.isDirectory()) return `${flag} is a folder: give a file path`;
  try {
    if (!statSync(folder).isDirectory()) return `${flag}: ${folder} is a file, not a folder`;
  } catch {
    return `${flag}: the folder ${folder} does not exist`;
  }
  const why = stats !== undefined ? fileUnwritable(file) : (unwritable(folder) ?? newFileProblem(file));
  return why === null
    ? null
    : `${flag} cannot be written (${why}): give a path in a writable folder, or leave ${flag.split(" ")[0]} out`;
}

/** Why `file` (absent) cannot be created, or `null`: it is created empty and removed again. */
function newFileProblem(file: string): string | null {
  try {
    closeSync(openSync(file, "wx"));
  } catch (error) {
    return worded(codeOf(error));
  }
  unlinkSync(file);
  return null;
}

function fileUnwritable(file: string): string | null {
  try {
    accessSync(file, constants.W_OK);
    return null;
  } catch (error) {
    return worded(codeOf(error));
  }
}

/**
 * Why git cannot write the repository's object store (`git rev-parse --git-path objects`), or `null`.
 * Every evidence tree is `git add -A` into a temporary index, which writes the working tree's blobs there:
 * on a read-only checkout the run would end in a git error once it had started.
 */
export async function gitObjectsProblem(
  root: string,
  context: {
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly knownSecrets: readonly string[];
  },
): Promise<string | null> {
  let objects: string;
  try {
    objects = await git(["rev-parse", "--git-path", "objects"], {
      cwd: root,
      baseEnv: context.env,
      knownSecrets: context.knownSecrets,
    });
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
  const path = isAbsolute(objects) ? objects : join(root, objects);
  const why = unwritable(path);
  return why === null
    ? null
    : `the repository ${root} cannot be written: git's object store ${path} is not writable (${why}), and every evidence tree is hashed into it. Run on a writable clone of the repository. Nothing was run.`;
}

/**
 * The last resort for a write that failed once the run was under way (a Node filesystem error with its
 * path, or git failing to write): the path, the reason and the fix, as the operator's problem; `null` for
 * any other error (an internal one).
 */
export function writeFailureProblem(error: unknown): string | null {
  const code = codeOf(error);
  const path = (error as { path?: unknown } | null)?.path;
  if (code !== undefined && code !== "ENOENT" && code in CODE_WORDS && typeof path === "string") {
    return `could not write ${path} (${worded(code)}): make that place writable, or point --runs-dir, --summary-out or --check-run-out elsewhere, then run again`;
  }
  if (
    error instanceof GitError &&
    /read-only file system|permission denied|no space left/i.test(error.detail)
  ) {
    return `git could not write the repository (${error.message.split("\n")[0]}): run on a writable clone with free space, then run again`;
  }
  return null;
}
