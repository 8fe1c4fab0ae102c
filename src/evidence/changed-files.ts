/**
 * The changed-files record of a run (SPEC §6; `core/changed-files.ts`): what the nodes changed between the
 * run's starting tree and the tree the run ended with, read from git's object database (two tree objects,
 * `git diff-tree`: no working tree, no index, no hook, no credentials — git runs through the exec seam with
 * the child environment of SPEC §9), and which of those changes touch what defines the verify command
 * (`verify-definition.ts`).
 */
import { posix, relative, sep } from "node:path";
import {
  type ChangedFile,
  type ChangedFiles,
  type ChangeStatus,
  MAX_CHANGED_FILES_KEPT,
  MAX_FLAGGED_KEPT,
} from "../core/changed-files.js";
import { GitError, git, gitStream } from "../proc/git.js";
import type { GitContext } from "./evidence-tree.js";
import { workTreeRoot } from "./evidence-tree.js";
import {
  addedLinesByFile,
  classifyVerifyDefinition,
  isTestPath,
  type PackageJsonSides,
  packageJsonPaths,
  removedLineCountsByFile,
  type VerifyCommandAt,
} from "./verify-definition.js";

/**
 * Most `package.json` changes whose two sides are read (two git calls each); the rest are flagged as not
 * compared — a safe answer for a change that wide (a monorepo's mass version bump is then flagged too).
 */
const MAX_PACKAGE_JSONS_READ = 200;

/** Most test files whose added lines are read for skip markers (the rest are not searched). */
const MAX_TEST_FILES_SEARCHED = 200;

/** What {@link changedFilesRecord} compares. */
export interface ChangedFilesOptions {
  /** The starting commit's tree (40 hex). */
  readonly baseTree: string;
  /** The tree the run ended with (the working tree's evidence tree, 40 hex). */
  readonly finalTree: string;
  /** The verify commands the run ran, with the absolute folder each ran in (`VerifyEvidence.cwd`). */
  readonly verifyCommands: readonly { readonly command: string; readonly cwd: string }[];
}

/**
 * The files changed from `baseTree` to `finalTree` (renames detected, `git diff-tree -M`), in path order and
 * bounded ({@link MAX_CHANGED_FILES_KEPT}), with the changes that touch what defines the verify command.
 *
 * @throws NotAGitRepositoryError, GitError (e.g. a tree that is not in the object database).
 */
export async function changedFilesRecord(
  repoDir: string,
  options: ChangedFilesOptions,
  context: GitContext = {},
): Promise<ChangedFiles> {
  const root = await workTreeRoot(repoDir, context);
  const run = (args: readonly string[]): Promise<string> => git(args, { cwd: root, ...gitOptions(context) });
  const changes = await listChanges(root, options, context);
  const packageJsons = new Map<string, PackageJsonSides>();
  for (const change of changes) {
    const sides = packageJsonPaths(change);
    if (sides.base === undefined && sides.final === undefined) continue;
    if (packageJsons.size >= MAX_PACKAGE_JSONS_READ) {
      packageJsons.set(change.path, { base: null, final: null, unread: true });
      continue;
    }
    packageJsons.set(change.path, {
      base: sides.base === undefined ? null : await blobText(run, options.baseTree, sides.base),
      final: sides.final === undefined ? null : await blobText(run, options.finalTree, sides.final),
    });
  }
  const verifyDefinition = classifyVerifyDefinition({
    changes,
    packageJsons,
    verifyCommands: options.verifyCommands.flatMap((c) => relativeCommand(root, c)),
    ...(await testFilesDiffLines(run, options, changes)),
  });
  const counts: Record<ChangeStatus, number> = { added: 0, modified: 0, deleted: 0, renamed: 0 };
  for (const change of changes) counts[change.status] += 1;
  return {
    total: changes.length,
    counts,
    files: changes.slice(0, MAX_CHANGED_FILES_KEPT),
    verifyDefinition: verifyDefinition.slice(0, MAX_FLAGGED_KEPT),
    flaggedTotal: verifyDefinition.length,
  };
}

function gitOptions(context: GitContext): Pick<GitContext, "baseEnv" | "knownSecrets"> {
  return {
    ...(context.baseEnv !== undefined ? { baseEnv: context.baseEnv } : {}),
    ...(context.knownSecrets !== undefined ? { knownSecrets: context.knownSecrets } : {}),
  };
}

/** Every change between the two trees, streamed (a `-z` list has no bound), sorted by path. */
async function listChanges(
  root: string,
  options: ChangedFilesOptions,
  context: GitContext,
): Promise<ChangedFile[]> {
  const chunks: Buffer[] = [];
  await gitStream(
    ["diff-tree", "-r", "-z", "-M", "--no-ext-diff", "--name-status", options.baseTree, options.finalTree],
    { cwd: root, ...gitOptions(context), onStdout: (chunk) => chunks.push(chunk) },
  );
  return parseNameStatus(Buffer.concat(chunks).toString("utf8"));
}

/**
 * `git diff-tree -z --name-status` output as changes, sorted by path: `A`, `M`, `T` (type change, counted
 * as modified), `D`, `R<score>` (two paths: from, to); `C` (a copy) counts as the new path added.
 */
export function parseNameStatus(output: string): ChangedFile[] {
  const fields = output.split("\0");
  const changes: ChangedFile[] = [];
  let i = 0;
  while (i < fields.length) {
    const status = fields[i] ?? "";
    if (status === "") {
      i += 1;
      continue;
    }
    const letter = status[0];
    if (letter === "R" || letter === "C") {
      const from = fields[i + 1] ?? "";
      const to = fields[i + 2] ?? "";
      changes.push(letter === "R" ? { path: to, status: "renamed", from } : { path: to, status: "added" });
      i += 3;
      continue;
    }
    const path = fields[i + 1] ?? "";
    const kind: ChangeStatus = letter === "A" ? "added" : letter === "D" ? "deleted" : "modified";
    changes.push({ path, status: kind });
    i += 2;
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The text of `path` in `tree`, or `null` when it is not a file there. */
async function blobText(
  run: (args: readonly string[]) => Promise<string>,
  tree: string,
  path: string,
): Promise<string | null> {
  try {
    return await run(["cat-file", "blob", `${tree}:${path}`]);
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}

/**
 * The added lines and the count of changed or removed lines of the changed test files (not deleted), from
 * one `-U0` diff over them. A renamed file counts as a test file when either of its names is one.
 */
async function testFilesDiffLines(
  run: (args: readonly string[]) => Promise<string>,
  options: ChangedFilesOptions,
  changes: readonly ChangedFile[],
): Promise<{ addedLines: Map<string, string[]>; removedLines: Map<string, number> }> {
  const tests = changes
    .filter(
      (c) => c.status !== "deleted" && (isTestPath(c.path) || (c.from !== undefined && isTestPath(c.from))),
    )
    .slice(0, MAX_TEST_FILES_SEARCHED);
  if (tests.length === 0) return { addedLines: new Map(), removedLines: new Map() };
  const paths = tests.flatMap((c) => (c.from !== undefined ? [c.from, c.path] : [c.path]));
  const patch = await run([
    "--literal-pathspecs",
    "-c",
    "core.quotePath=false",
    "diff-tree",
    "-r",
    "-p",
    "-U0",
    "-M",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    options.baseTree,
    options.finalTree,
    "--",
    ...paths,
  ]);
  return { addedLines: addedLinesByFile(patch), removedLines: removedLineCountsByFile(patch) };
}

/** A verify command with its folder made repository-relative; none when it ran outside the repository. */
function relativeCommand(
  root: string,
  c: { readonly command: string; readonly cwd: string },
): VerifyCommandAt[] {
  const rel = relative(root, c.cwd).split(sep).join(posix.sep);
  if (rel.startsWith("..") || posix.isAbsolute(rel)) return [];
  return [{ command: c.command, cwd: rel }];
}
