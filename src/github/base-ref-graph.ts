/**
 * Where the action reads a hand-written graph (SPEC §9, §10): `mode: run` from the pull request's **base**
 * ref through the contents API — a pull request cannot rewrite the graph that gates it — and `mode: lint`
 * from the workspace (the graph under review). Both reads are bounded by {@link GRAPH_FILE_MAX_BYTES}, and
 * a workspace read never follows a symlink out of the checkout.
 */
import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { GRAPH_FILE_MAX_BYTES } from "../core/graph-file-limit.js";
import { readBounded } from "../policy/policy-file.js";
import { type BaseRefFile, BaseRefReadError, readBaseRefFile, unusableReason } from "./base-ref-file.js";
import type { GateOctokit } from "./octokit.js";

export { GRAPH_FILE_MAX_BYTES };

export interface BaseRefGraphTarget {
  readonly owner: string;
  readonly repo: string;
  /** `pull_request.base.ref`, e.g. `main`. */
  readonly baseRef: string;
  /** `pull_request.base.sha`: the commit read. */
  readonly baseSha: string;
  /** The graph's repository path (normal form, see `graph-path.ts`). */
  readonly path: string;
}

/** Why nothing can run: the workflow or the base branch must change (`usage`), or GitHub did not answer. */
export type GraphReadFailure = {
  readonly ok: false;
  readonly kind: "usage-error" | "engine-error";
  readonly message: string;
};

export type BaseRefGraph =
  | {
      readonly ok: true;
      readonly text: string;
      readonly bytes: Buffer;
      /** `base ref main (abc1234): .github/graph.yml`: the ledger's and the messages' graph source. */
      readonly source: string;
    }
  | GraphReadFailure;

/** `base ref main (abc1234): PATH`. */
export function baseRefGraphSource(target: BaseRefGraphTarget): string {
  return `base ref ${target.baseRef} (${target.baseSha.slice(0, 7)}): ${target.path}`;
}

/** Reads the graph file at `pull_request.base.sha`. Never reads the checkout. */
export async function readBaseRefGraph(
  octokit: GateOctokit,
  target: BaseRefGraphTarget,
): Promise<BaseRefGraph> {
  const source = baseRefGraphSource(target);
  let file: BaseRefFile;
  try {
    file = await readBaseRefFile(
      octokit,
      { owner: target.owner, repo: target.repo, ref: target.baseRef, sha: target.baseSha },
      target.path,
      { maxBytes: GRAPH_FILE_MAX_BYTES },
    );
  } catch (error) {
    if (!(error instanceof BaseRefReadError)) throw error;
    const refused = error.status === 401 || error.status === 403;
    return {
      ok: false,
      kind: refused ? "usage-error" : "engine-error",
      message: `could not read the graph ${source} through the API (${error.status === null ? "no answer" : `HTTP ${error.status}`}: ${error.message}).${refused ? " The workflow's token needs `contents: read` to read the graph from the base ref." : ""} Nothing ran.`,
    };
  }
  if (file.kind === "missing") {
    return {
      ok: false,
      kind: "usage-error",
      message: `the graph ${target.path} does not exist on the base ref ${target.baseRef} (${target.baseSha.slice(0, 7)}): merge the graph first, or use mode: lint to check a graph under review. mode: run reads the graph from the base ref, never from the pull request.`,
    };
  }
  if (file.kind !== "file") {
    const reason = unusableReason(file, { maxBytes: GRAPH_FILE_MAX_BYTES, noun: "a graph file" });
    return { ok: false, kind: "usage-error", message: `the graph ${source}: ${reason}. Nothing ran.` };
  }
  const text = decodeUtf8(file.bytes);
  if (text === null) {
    return { ok: false, kind: "usage-error", message: `the graph ${source} is not UTF-8 text. Nothing ran.` };
  }
  return { ok: true, text, bytes: file.bytes, source };
}

export type WorkspaceGraph =
  | { readonly ok: true; readonly text: string; readonly bytes: Buffer; readonly file: string }
  | { readonly ok: false; readonly message: string };

/**
 * Reads `path` (normal form) from the checkout at `workspace`. The file's real path must lie inside the
 * workspace's: a symlink in the pull request cannot make the action read (and print) a file outside it.
 */
export async function readWorkspaceGraph(workspace: string, path: string): Promise<WorkspaceGraph> {
  const file = join(workspace, ...path.split("/"));
  let real: string;
  let root: string;
  try {
    root = realpathSync(workspace);
    real = realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      return {
        ok: false,
        message: `no graph file at ${path} in the workspace (${file}): check input \`graph\``,
      };
    }
    return { ok: false, message: `cannot read the graph file ${path}: ${errorText(error)}` };
  }
  const inside = relative(root, real);
  if (inside === "" || inside === ".." || inside.startsWith(`..${sep}`) || inside.startsWith(sep)) {
    return {
      ok: false,
      message: `the graph file ${path} resolves to ${real}, outside the workspace ${root}: a graph under review must be a file in the repository`,
    };
  }
  let bytes: Buffer | null;
  try {
    bytes = await readBounded(real, GRAPH_FILE_MAX_BYTES);
  } catch (error) {
    return { ok: false, message: `cannot read the graph file ${path}: ${errorText(error)}` };
  }
  if (bytes === null) return { ok: false, message: `no graph file at ${path} in the workspace (${file})` };
  if (bytes.length > GRAPH_FILE_MAX_BYTES) {
    return {
      ok: false,
      message: `the graph file ${path} is over ${GRAPH_FILE_MAX_BYTES} bytes; a graph file may be at most ${GRAPH_FILE_MAX_BYTES} bytes`,
    };
  }
  const text = decodeUtf8(bytes);
  if (text === null) return { ok: false, message: `the graph file ${path} is not UTF-8 text` };
  return { ok: true, text, bytes, file };
}

/**
 * What to tell the pull request when its checkout's copy of the graph differs from the base ref's (the
 * copy that ran): `null` when they agree or the checkout cannot be read as a file.
 */
export async function prGraphCopyNote(
  workspace: string,
  base: { readonly bytes: Buffer; readonly source: string; readonly path: string },
): Promise<string | null> {
  const copy = await readWorkspaceGraph(workspace, base.path);
  if (copy.ok && copy.bytes.equals(base.bytes)) return null;
  const what = copy.ok
    ? `This pull request's copy of ${base.path} differs from the base ref's`
    : `This pull request's checkout has no readable ${base.path}`;
  return `${what}: the run used the graph from ${base.source}. A change to the graph takes effect once it is merged; check it with mode: lint meanwhile.`;
}

function decodeUtf8(bytes: Buffer): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
