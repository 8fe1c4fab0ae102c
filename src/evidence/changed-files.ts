/**
 * The changed-files record of a run (SPEC §6; `core/changed-files-record.ts`): what the nodes changed between the
 * run's starting tree and the tree the run ended with, read from git's object database (two tree objects,
 * `git diff-tree`: no working tree, no index, no hook, no credentials — git runs through the exec seam with
 * the child environment of SPEC §9), and which of those changes touch what defines the verify command
 * (`verify-definition.ts`), among them the data files the starting tree's test files name (`test-data.ts`).
 */
import { posix, relative, sep } from "node:path";
import {
  type ChangedFile,
  type ChangedFiles,
  type ChangeStatus,
  MAX_CHANGED_FILES_KEPT,
  MAX_FLAGGED_KEPT,
} from "../core/changed-files-record.js";
import { GitError, git, gitStream } from "../proc/git.js";
import type { GitContext } from "./evidence-tree.js";
import { workTreeRoot } from "./evidence-tree.js";
import { isCodeFile, isNamedBy, pathsNamedOnLine, testDataReason } from "./test-data.js";
import {
  addedLinesByFile,
  classifyVerifyDefinition,
  isDefinitionFile,
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

/**
 * Rule 9's bounds (`namedByTests`): at most this many changed data files are looked for in the starting
 * tree's test files (the first in path order; the rest are not, and README says so) …
 */
const MAX_NAMED_CANDIDATES = 500;
/** … in one `git grep` whose output is read up to this many bytes (then git is stopped) … */
const MAX_NAMED_GREP_BYTES = 4 * 1024 * 1024;
/** … and whose lines longer than this many characters are skipped (minified or generated text). */
const MAX_NAMED_LINE_CHARS = 2000;

/**
 * The test files `git grep` searches for rule 9 (`isTestPath`'s patterns and `conftest.py`), as pathspecs;
 * never under `node_modules/`.
 */
const TEST_FILE_PATHSPECS: readonly string[] = [
  ":(glob)**/*.test.*",
  ":(glob)**/*.spec.*",
  ":(glob)**/*_test.go",
  ":(glob)**/test_*.py",
  ":(glob)**/*_test.py",
  ":(glob)**/conftest.py",
  ":(glob)**/test/**",
  ":(glob)**/tests/**",
  ":(glob)**/__tests__/**",
  ":(glob)**/spec/**",
  ":(exclude,glob)**/node_modules/**",
];

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
    namedByTests: await namedByTests(root, options.baseTree, changes, context),
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

/**
 * Rule 9's input: which changed data files of the starting tree a test file of the starting tree names in a
 * string literal (`test-data.ts`), each with the first test file and literal found. Candidates: changes not
 * added, whose starting path is no test file, no test data by name, no definition file, no `package.json`
 * and no code file; at most {@link MAX_NAMED_CANDIDATES}. One `git grep -F` over the starting tree's test
 * files for the candidates' base names finds the lines to read (bounded by {@link MAX_NAMED_GREP_BYTES} and
 * {@link MAX_NAMED_LINE_CHARS}); `pathsNamedOnLine` decides whether a line names the candidate's path.
 */
async function namedByTests(
  root: string,
  baseTree: string,
  changes: readonly ChangedFile[],
  context: GitContext,
): Promise<Map<string, { testPath: string; literal: string }>> {
  const named = new Map<string, { testPath: string; literal: string }>();
  const candidates = changes
    .filter((c) => c.status !== "added")
    .map((c) => c.from ?? c.path)
    .filter(
      (p) =>
        !isTestPath(p) &&
        testDataReason(p) === null &&
        !isDefinitionFile(p) &&
        posix.basename(p) !== "package.json" &&
        !isCodeFile(p),
    )
    .slice(0, MAX_NAMED_CANDIDATES);
  if (candidates.length === 0) return named;
  const byName = new Map<string, string[]>();
  for (const path of candidates) {
    const name = posix.basename(path);
    byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  const stop = new AbortController();
  const args = [
    "grep",
    "-z",
    "-n",
    "-I",
    "-F",
    "--no-color",
    "--no-textconv",
    ...[...byName.keys()].flatMap((name) => ["-e", name]),
    baseTree,
    "--",
    ...TEST_FILE_PATHSPECS,
  ];
  try {
    await gitStream(args, {
      cwd: root,
      ...gitOptions(context),
      signal: stop.signal,
      onStdout: (chunk) => {
        if (bytes >= MAX_NAMED_GREP_BYTES) return;
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= MAX_NAMED_GREP_BYTES) stop.abort();
      },
    });
  } catch (error) {
    // git grep exits 1 when nothing matched; a grep stopped at the byte bound keeps what it read.
    const nothing = error instanceof GitError && /exit 1:/.test(error.detail);
    if (!(nothing || stop.signal.aborted)) throw error;
  }
  const prefix = `${baseTree}:`;
  for (const record of Buffer.concat(chunks).toString("utf8").split("\n")) {
    const [where, , line] = record.split("\0");
    if (where === undefined || line === undefined || line.length > MAX_NAMED_LINE_CHARS) continue;
    const testPath = where.startsWith(prefix) ? where.slice(prefix.length) : where;
    if (!isTestPath(testPath) && posix.basename(testPath) !== "conftest.py") continue;
    const paths = pathsNamedOnLine(testPath, line);
    for (const [name, sameName] of byName) {
      if (!line.includes(name)) continue;
      for (const path of sameName) {
        if (named.has(path) || !isNamedBy(path, paths)) continue;
        named.set(path, { testPath, literal: literalNaming(line, name) });
      }
    }
  }
  return named;
}

/**
 * The string literal of `line` that holds `name` (for the ledger's words), or `name` itself; the test file
 * is the pull request's text, so control characters are shown as `?` (no terminal escape reaches the text
 * ledger).
 */
export function literalNaming(line: string, name: string): string {
  const found = /"([^"\n]{1,300})"|'([^'\n]{1,300})'|`([^`\n]{1,300})`/g;
  for (const match of line.matchAll(found)) {
    const text = match[1] ?? match[2] ?? match[3] ?? "";
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is replaced.
    if (text.includes(name)) return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  }
  return name;
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
