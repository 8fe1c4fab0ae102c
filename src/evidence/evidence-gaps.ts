/**
 * Bytes a verify command runs on that its evidence tree does not hold (ADR 0003, amendment 2026-11-29, 2).
 *
 * The evidence tree is what `git add -A` makes of the working tree, and two things make that differ from
 * the bytes on disk:
 *
 * - **Dirty submodules.** A submodule is a gitlink in the tree (its HEAD commit); edits inside it, new
 *   untracked files in it, or commits on no pushed branch are not in the tree. `git status --porcelain=v2
 *   --ignore-submodules=none` reports them (recursively) in its submodule field `S<c><m><u>`.
 * - **`.gitattributes` conversions** (`ident`, `eol`, `text`, `filter`, `working-tree-encoding`): git's
 *   clean conversion can fold edited working-tree bytes back to the committed blob (`$Id: anything $` →
 *   `$Id$`; CRLF ↔ LF), so the tree can equal the commit's while different code ran. For each file of the
 *   tree with such an attribute, the working-tree bytes are compared with what checking the tree's blob
 *   out would produce (`git cat-file --filters <tree>:<path>`).
 *
 * Every git call goes through the exec seam with the git child environment; `GIT_OPTIONAL_LOCKS=0` keeps
 * `git status` from refreshing (writing) the user's index.
 */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { git, gitStream } from "../proc/git.js";
import { onTrustedGit } from "../proc/trusted-git.js";
import { type GitContext, nulFields } from "./evidence-tree.js";
import { gitlinkPaths } from "./seed-index.js";

/** At most this many attributed files are compared through `git cat-file --filters`; over it, unknown. */
export const DEFAULT_MAX_FILTERED_FILES = 2000;
/** How many paths of each kind the evidence keeps. */
export const MAX_GAP_EXAMPLES = 10;
/** Bytes of paths per `git check-attr` call (argv stays far below the system limit). */
const CHECK_ATTR_BATCH_BYTES = 64 * 1024;

const ATTRIBUTES = ["ident", "eol", "text", "filter", "working-tree-encoding"] as const;

/** Files whose working-tree bytes are not what checking out the evidence tree would produce. */
export interface UnrepresentedFilesFinding {
  /** How many such files, or `null` when it is not known (the check was over its bound or failed). */
  readonly total: number | null;
  /** Up to {@link MAX_GAP_EXAMPLES} of them, in path order. */
  readonly examples: readonly string[];
  /** Why the total is not known, when it is not. */
  readonly note?: string;
}

export interface EvidenceGaps {
  /** Submodule paths with new commits, modified tracked content or untracked content (at most 10). */
  readonly dirtySubmodules: readonly string[];
  /** `null` when every attributed file is represented. */
  readonly unrepresentedFiles: UnrepresentedFilesFinding | null;
}

export interface EvidenceGapsOptions extends GitContext {
  /** Default {@link DEFAULT_MAX_FILTERED_FILES}. */
  readonly maxFilteredFiles?: number;
  /**
   * The temporary index the tree was written from (`withWorkingTreeIndex`), read by every git of the
   * check: the submodules checked are the tree's gitlinks, not whatever the repository's own index — which
   * the pull request can write — lists. Absent: git's default index.
   */
  readonly treeIndex?: string;
}

const options = (cwd: string, context: EvidenceGapsOptions) => ({
  cwd,
  ...(context.baseEnv !== undefined ? { baseEnv: context.baseEnv } : {}),
  ...(context.knownSecrets !== undefined ? { knownSecrets: context.knownSecrets } : {}),
  set: {
    GIT_OPTIONAL_LOCKS: "0",
    ...(context.treeIndex !== undefined ? { GIT_INDEX_FILE: context.treeIndex } : {}),
  },
});

/** Runs git and returns its raw stdout (no decoding, no trimming). */
async function gitBytes(args: readonly string[], cwd: string, context: EvidenceGapsOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await gitStream(args, { ...options(cwd, context), onStdout: (chunk) => chunks.push(chunk) });
  return Buffer.concat(chunks);
}

/**
 * What of the working tree under `root` the evidence `tree` (taken from it just before) does not hold.
 * Never rejects: a check that fails is reported as unknown (`total: null`), which is not clean.
 */
export async function evidenceGaps(
  root: string,
  tree: string,
  context: EvidenceGapsOptions = {},
): Promise<EvidenceGaps> {
  const [dirtySubmodules, unrepresentedFiles] = await Promise.all([
    findDirtySubmodules(root, context).catch((error: unknown): string[] | Error =>
      error instanceof Error ? error : new Error(String(error)),
    ),
    findUnrepresentedFiles(root, tree, context).catch(
      (error: unknown): UnrepresentedFilesFinding => ({
        total: null,
        examples: [],
        note: `the working tree could not be compared with the evidence tree: ${messageOf(error)}`,
      }),
    ),
  ]);
  if (dirtySubmodules instanceof Error) {
    const note = `the submodules could not be checked: ${dirtySubmodules.message}`;
    return {
      dirtySubmodules: [],
      unrepresentedFiles: {
        total: null,
        examples: unrepresentedFiles?.examples ?? [],
        note: unrepresentedFiles?.note !== undefined ? `${note}; ${unrepresentedFiles.note}` : note,
      },
    };
  }
  return { dirtySubmodules, unrepresentedFiles };
}

/** Submodules `git status` reports with new commits, modified content or untracked content. */
export async function findDirtySubmodules(
  root: string,
  context: EvidenceGapsOptions = {},
): Promise<string[]> {
  // `-uno`: the superproject's untracked files are not needed; a submodule's untracked content is still
  // reported in its `S<c><m><u>` field with `--ignore-submodules=none`.
  // On the trusted git directory (the action, ADR 0012), `none` would make git start `git status` inside
  // each submodule, on the submodule's own git directory — which the pull request can write (its config is
  // code): `dirty` reads only the submodule's HEAD, so a submodule's new commits are still reported, its
  // uncommitted content is not (SECURITY.md, "The engine's git").
  const ignore = onTrustedGit(root) ? "dirty" : "none";
  const out = await gitBytes(
    ["status", "--porcelain=v2", "-z", `--ignore-submodules=${ignore}`, "--untracked-files=no"],
    root,
    context,
  );
  const fields = nulFields(out);
  const dirty: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    // Fields before the path: `1` has 8, `2` has 9 (and its original path follows as the next record),
    // `u` has 10.
    const kind = entry[0];
    const before = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : -1;
    if (kind === "2") i++;
    if (before < 0) continue;
    const parts = entry.split(" ");
    const sub = parts[2] ?? "";
    if (!sub.startsWith("S") || sub === "S...") continue;
    const path = parts.slice(before).join(" ");
    if (dirty.length < MAX_GAP_EXAMPLES) dirty.push(path);
  }
  for (const path of await filledUncheckedOutSubmodules(root, context)) {
    if (dirty.length < MAX_GAP_EXAMPLES && !dirty.includes(path)) dirty.push(path);
  }
  return dirty;
}

/**
 * Submodules of the tree's index whose folder holds files but no repository (`.git`): a submodule that was
 * not checked out (what `actions/checkout` leaves by default) into which anything wrote files. Git records
 * such a gitlink as its commit and never looks inside, and `git status` reports it clean, so code a verify
 * ran from there was in no tree (found by an attack, 2026-12-06: "verified on this commit" over it). Read
 * from `context.treeIndex` (none: nothing found).
 */
async function filledUncheckedOutSubmodules(root: string, context: EvidenceGapsOptions): Promise<string[]> {
  if (context.treeIndex === undefined) return [];
  const gitlinks = gitlinkPaths(await readFile(context.treeIndex));
  // The evidence tree's git writes version 2, checksummed, never split (EVIDENCE_TREE_PINS); anything else
  // is reported as a check that could not run, never as clean.
  if (gitlinks === null) throw new Error(`the tree's index ${context.treeIndex} is not one this reads`);
  const filled: string[] = [];
  for (const path of gitlinks) {
    let entries: string[];
    try {
      entries = await readdir(join(root, path));
    } catch {
      continue; // not a folder (absent, or a file: then it is in the tree as what it is)
    }
    if (entries.length > 0 && !entries.includes(".git")) filled.push(path);
  }
  return filled;
}

/**
 * Files of `tree` with a conversion attribute whose working-tree bytes differ from what checking out the
 * tree's blob would produce; `null` when there is none.
 */
export async function findUnrepresentedFiles(
  root: string,
  tree: string,
  context: EvidenceGapsOptions = {},
): Promise<UnrepresentedFilesFinding | null> {
  const max = context.maxFilteredFiles ?? DEFAULT_MAX_FILTERED_FILES;
  // Regular files of the tree and their blob ids (symlinks and gitlinks are not converted).
  const listing = nulFields(await gitBytes(["ls-tree", "-r", "-z", "--full-tree", tree], root, context));
  const blobs = new Map<string, string>();
  for (const record of listing) {
    const tab = record.indexOf("\t");
    const [mode, type, id] = record.slice(0, tab).split(" ");
    if (type === "blob" && (mode === "100644" || mode === "100755") && id !== undefined) {
      blobs.set(record.slice(tab + 1), id);
    }
  }
  // Paths an index overlay rewrote (the agent configuration held at the base's copies during an action
  // run, SPEC §9) differ from the working tree by design; they are not a gap.
  const overlay = context.indexOverlay;
  const candidates = [...blobs.keys()].filter((path) => overlay === undefined || !overlay.covers(path));
  const attributed = await convertingFiles(root, candidates, context);
  if (attributed.size === 0) return null;

  const smudgeIsIdentity = await checkoutKeepsLf(root, context);
  const unrepresented: string[] = [];
  let filtered = 0;
  for (const path of [...attributed.keys()].sort()) {
    const id = blobs.get(path)!;
    let raw: Buffer | null;
    try {
      raw = (await lstat(`${root}/${path}`)).isFile() ? await readFile(`${root}/${path}`) : null;
    } catch {
      raw = null;
    }
    if (raw === null) {
      unrepresented.push(path);
      continue;
    }
    // Fast path: with only `text`/`eol=lf` and LF checkouts, checkout writes the blob's own bytes, so a
    // file whose raw bytes are the blob is represented.
    if (attributed.get(path) === "text-only" && smudgeIsIdentity && blobId(raw, id.length) === id) continue;
    if (++filtered > max) {
      return {
        total: null,
        examples: unrepresented.slice(0, MAX_GAP_EXAMPLES),
        note: `more than ${max} files with .gitattributes conversions (the bound); they were not all compared`,
      };
    }
    const checkedOut = await gitBytes(["cat-file", "--filters", `${tree}:${path}`], root, context);
    if (!checkedOut.equals(raw)) unrepresented.push(path);
  }
  if (unrepresented.length === 0) return null;
  return { total: unrepresented.length, examples: unrepresented.slice(0, MAX_GAP_EXAMPLES) };
}

/**
 * The paths with a conversion attribute, and whether only `text`/`eol=lf` apply (`text-only`) or a
 * conversion that can change bytes on checkout (`converting`: ident, filter, encoding, eol=crlf).
 */
async function convertingFiles(
  root: string,
  paths: readonly string[],
  context: GitContext,
): Promise<Map<string, "text-only" | "converting">> {
  const found = new Map<string, "text-only" | "converting">();
  let start = 0;
  while (start < paths.length) {
    let end = start;
    let bytes = 0;
    while (end < paths.length && (end === start || bytes + paths[end]!.length < CHECK_ATTR_BATCH_BYTES)) {
      bytes += paths[end]!.length + 1;
      end++;
    }
    const fields = nulFields(
      await gitBytes(["check-attr", "-z", ...ATTRIBUTES, "--", ...paths.slice(start, end)], root, context),
    );
    for (let i = 0; i + 2 < fields.length; i += 3) {
      const path = fields[i]!;
      const attribute = fields[i + 1]!;
      const info = fields[i + 2]!;
      if (info === "unspecified" || info === "unset") continue;
      let kind: "text-only" | "converting";
      if (attribute === "text" || (attribute === "eol" && info === "lf")) kind = "text-only";
      else if (attribute === "filter" && info === "set")
        continue; // no driver named: no conversion
      else kind = "converting";
      if (found.get(path) !== "converting") found.set(path, kind);
    }
    start = end;
  }
  return found;
}

/** Whether a `text` file is checked out with LF line ends (no `core.autocrlf=true`, no `core.eol=crlf`). */
async function checkoutKeepsLf(root: string, context: GitContext): Promise<boolean> {
  const value = async (key: string): Promise<string> => {
    try {
      return (await git(["config", "--get", key], options(root, context))).trim().toLowerCase();
    } catch {
      return ""; // not set
    }
  };
  const [autocrlf, eol] = await Promise.all([value("core.autocrlf"), value("core.eol")]);
  return autocrlf !== "true" && eol !== "crlf";
}

/** The git object id of `content` as a blob (SHA-1, or SHA-256 for a 64-digit id). */
function blobId(content: Buffer, idLength: number): string {
  const hash = createHash(idLength === 64 ? "sha256" : "sha1");
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest("hex");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
