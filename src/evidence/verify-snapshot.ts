/**
 * What a verify command is about to run on, taken immediately before it runs (SPEC §5): the evidence tree
 * (or why there is none), the bytes the tree does not hold (dirty submodules, files whose
 * `.gitattributes` conversion folds an edit back to the committed blob: ADR 0003, amendment 2026-11-29,
 * 2), and — when asked — the git-ignored files compared with the run's baseline.
 */
import type { VerifyEvidence } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import { git } from "../proc/git.js";
import { type EvidenceGapsOptions, evidenceGaps } from "./evidence-gaps.js";
import { evidenceTreeAndRoot, type GitContext, gitOptions, withWorkingTreeIndex } from "./evidence-tree.js";
import {
  compareIgnoredFiles,
  type IgnoredFiles,
  type IgnoredFilesComparison,
  ignoredFilesFingerprint,
} from "./ignored-files.js";

/** The baseline the git-ignored files of a verify are compared with, and the folders left out. */
export interface IgnoredFilesCheck {
  readonly baseline: IgnoredFiles;
  /** Absolute folders left out besides `<root>/.evidence-gate/` (the runs folder). */
  readonly exclude?: readonly string[];
  /** See `IgnoredFilesOptions.excludeRunDirectoriesUnder`: other runs' directories are left out. */
  readonly excludeRunDirectoriesUnder?: string;
}

/** The snapshot of one verify's working directory. */
export interface VerifySnapshot {
  /** The evidence tree's id; `null` when `cwd` is not a git work tree (see `treeNote`). */
  readonly tree: string | null;
  /** Why there is no evidence tree, worded for the top of the output tail; `null` when there is one. */
  readonly treeNote: string | null;
  /** The evidence fields for what the tree does not hold (none when it holds everything). */
  readonly gaps: Partial<VerifyEvidence>;
  /** The evidence fields of the ignored-files comparison (none when not measured). */
  readonly ignored: Partial<VerifyEvidence>;
  /** The ignored-files fingerprint taken now; `null` when not measured. */
  readonly before: IgnoredFiles | null;
}

/**
 * Takes the snapshot of `cwd`. Never rejects for a directory that is not a work tree (that is `treeNote`);
 * git failures in the gap or ignored-files checks are reported in their fields, as those modules do.
 */
export async function snapshotBeforeVerify(
  cwd: string,
  context: GitContext,
  ignoredFiles: IgnoredFilesCheck | undefined,
): Promise<VerifySnapshot> {
  let taken: {
    readonly tree: string;
    readonly root: string;
    readonly gaps: Partial<VerifyEvidence>;
  } | null = null;
  let treeNote: string | null = null;
  try {
    // The gap check describes the tree just written: the same top directory (asking git again could only
    // name another repository — a `.git` a node planted since in a sub-folder — whose files the tree does
    // not describe) and the same index (its gitlinks are the submodules checked, not what the repository's
    // own index, which the pull request can write, lists).
    taken = await withWorkingTreeIndex(cwd, context, async (scope) => {
      const tree = await scope.git(["write-tree"]);
      return {
        tree,
        root: scope.root,
        gaps: await gapFields(scope.root, tree, { ...context, treeIndex: scope.indexFile }),
      };
    });
  } catch (error) {
    treeNote = `[evidence-gate] no evidence tree: ${error instanceof Error ? error.message : String(error)}`;
  }
  const tree = taken?.tree ?? null;
  const gaps: Partial<VerifyEvidence> = taken?.gaps ?? {};
  // The ignored files of the same top directory, for the same reason.
  if (ignoredFiles === undefined) return { tree, treeNote, gaps, ignored: {}, before: null };
  const before = await ignoredFilesFingerprint(cwd, {
    ...context,
    ...(taken !== null ? { root: taken.root } : {}),
    ...(ignoredFiles.exclude !== undefined ? { exclude: ignoredFiles.exclude } : {}),
    ...(ignoredFiles.excludeRunDirectoriesUnder !== undefined
      ? { excludeRunDirectoriesUnder: ignoredFiles.excludeRunDirectoriesUnder }
      : {}),
  });
  const ignored = ignoredFields(compareIgnoredFiles(ignoredFiles.baseline, before));
  return { tree, treeNote, gaps, ignored, before };
}

/**
 * True when the evidence says the command ran on exactly the tree: no gaps, and the ignored files (when
 * measured) unchanged. Only such a result may be reused for, or reuse, another sink's: the same tree with
 * a changed node_modules, or over different submodule or converted bytes, is not the same evidence.
 */
export function ranOnTheTreeAlone(evidence: Partial<VerifyEvidence>): boolean {
  const ignoredClean = evidence.ignoredFiles === undefined || evidence.ignoredFiles === "unchanged";
  const gaps =
    (evidence.dirtySubmodules?.length ?? 0) > 0 ||
    evidence.unrepresentedFiles !== undefined ||
    evidence.changedWhileRunning !== undefined;
  return ignoredClean && !gaps;
}

/**
 * The evidence fields for what the evidence tree does not hold; none when it holds everything. `root` is
 * the top directory `tree` was taken in.
 */
async function gapFields(
  root: string,
  tree: string,
  context: EvidenceGapsOptions,
): Promise<Partial<VerifyEvidence>> {
  const found = await evidenceGaps(root, tree, context);
  return {
    ...(found.dirtySubmodules.length > 0 ? { dirtySubmodules: found.dirtySubmodules } : {}),
    ...(found.unrepresentedFiles !== null ? { unrepresentedFiles: found.unrepresentedFiles } : {}),
  };
}

/** How many changed paths {@link changedWhileRunning} names. */
const CHANGED_EXAMPLES = 10;

/**
 * The files of `tree` (the evidence tree taken just before a verify command ran in `cwd`) that the working
 * tree no longer holds as they were — changed, removed or made another kind of entry — once the command
 * has exited: `null` when none (files it added do not count: build outputs a `.gitignore` misses). Never
 * rejects: a comparison that fails is `total: null` with a note, which is not clean.
 */
export async function changedWhileRunning(
  cwd: string,
  tree: string,
  context: GitContext,
): Promise<VerifyEvidence["changedWhileRunning"] | null> {
  try {
    // The top directory the after-tree was taken in (after the command): its objects hold `after`.
    const { tree: after, root } = await evidenceTreeAndRoot(cwd, context);
    if (after === tree) return null;
    const listed = await git(
      ["diff-tree", "-r", "-z", "--no-renames", "--name-only", "--diff-filter=MDT", tree, after],
      gitOptions(root, context),
    );
    const paths = listed.split("\0").filter((path) => path !== "");
    if (paths.length === 0) return null;
    return { total: paths.length, examples: paths.slice(0, CHANGED_EXAMPLES) };
  } catch (error) {
    const note = `the working tree after the command could not be compared with the evidence tree: ${error instanceof Error ? error.message : String(error)}`;
    return { total: null, examples: [], note };
  }
}

/** The evidence fields of an ignored-files comparison. */
function ignoredFields(comparison: IgnoredFilesComparison): Partial<VerifyEvidence> {
  switch (comparison.kind) {
    case "unchanged":
      return { ignoredFiles: "unchanged" };
    case "changed":
      return {
        ignoredFiles: "changed",
        ignoredFilesChanges: {
          total: comparison.total,
          examples: comparison.examples.map((e) => ({ path: e.path, change: e.change })),
          ...(comparison.note !== undefined ? { note: comparison.note } : {}),
        },
      };
    case "unknown":
      return { ignoredFiles: "unknown", ignoredFilesReason: comparison.reason };
    default:
      return unreachable(comparison);
  }
}
