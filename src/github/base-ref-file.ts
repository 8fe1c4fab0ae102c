/**
 * One file read from the pull request's **base** ref through the contents API
 * (`GET /repos/{owner}/{repo}/contents/{path}?ref=…`; https://docs.github.com/rest/repos/contents). SPEC §9:
 * policy comes from the base branch, code from the head — the maintainers' policy file and a hand-written
 * graph (`mode: run`) are read this way, never from the pull request's checkout, so a pull request cannot
 * loosen its own gate. Bounded: a file whose reported size is over `maxBytes` is refused before its content
 * is decoded.
 */
import { unreachable } from "../core/unreachable.js";
import type { GateOctokit } from "./octokit.js";

/** A base-ref read that failed for a reason other than "no such file" (404). */
export class BaseRefReadError extends Error {
  override readonly name = "BaseRefReadError";
  constructor(
    message: string,
    /** The HTTP status, `null` when there was no answer. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface BaseRefTarget {
  readonly owner: string;
  readonly repo: string;
  /** The base branch's name (`pull_request.base.ref`). */
  readonly ref: string;
  /** `pull_request.base.sha`: read at this commit when given, else at `ref`. */
  readonly sha?: string;
}

/** What the base ref holds at a path. Everything but `file` is a reason the caller cannot use it. */
export type BaseRefFile =
  | { readonly kind: "file"; readonly bytes: Buffer }
  /** 404: no such path at that commit. */
  | { readonly kind: "missing" }
  | { readonly kind: "folder" }
  /** A symlink or submodule entry (the contents API's `type`). */
  | { readonly kind: "not-a-regular-file"; readonly type: string }
  | { readonly kind: "too-large"; readonly size: number }
  /** The API answered without the content (e.g. a file over 1 MB comes back with `encoding: none`). */
  | { readonly kind: "no-content"; readonly encoding: string };

/**
 * Reads `path` at the base ref (`target.sha` when given, else `target.ref`).
 * @throws {BaseRefReadError} for any failure but 404 (`detail` is GitHub's message or the network error).
 */
export async function readBaseRefFile(
  octokit: GateOctokit,
  target: BaseRefTarget,
  path: string,
  options: { readonly maxBytes: number },
): Promise<BaseRefFile> {
  const sha = target.sha !== undefined && target.sha !== "" ? target.sha : undefined;
  let data: unknown;
  try {
    const response = await octokit.rest.repos.getContent({
      owner: target.owner,
      repo: target.repo,
      path,
      ref: sha ?? target.ref,
    });
    data = response.data;
  } catch (error) {
    const status = statusOf(error);
    if (status === 404) return { kind: "missing" };
    throw new BaseRefReadError(error instanceof Error ? error.message : String(error), status);
  }
  if (Array.isArray(data)) return { kind: "folder" };
  const file = data as { type?: unknown; size?: unknown; encoding?: unknown; content?: unknown };
  if (file.type !== "file") return { kind: "not-a-regular-file", type: String(file.type) };
  if (typeof file.size === "number" && file.size > options.maxBytes)
    return { kind: "too-large", size: file.size };
  if (file.encoding !== "base64" || typeof file.content !== "string") {
    return { kind: "no-content", encoding: String(file.encoding) };
  }
  const bytes = Buffer.from(file.content.replace(/\s+/g, ""), "base64");
  // The decoded bytes are what counts; a reported size that understated them is still refused.
  if (bytes.length > options.maxBytes) return { kind: "too-large", size: bytes.length };
  return { kind: "file", bytes };
}

/**
 * Why a non-`file` answer cannot be used, as a clause: `the path is a folder, not a file`. `noun` names
 * the limit's subject ("a policy file"). `missing` has no reason here: each caller words its own absence.
 */
export function unusableReason(
  result: Exclude<BaseRefFile, { kind: "file" } | { kind: "missing" }>,
  options: { readonly maxBytes: number; readonly noun: string },
): string {
  switch (result.kind) {
    case "folder":
      return "the path is a folder, not a file";
    case "not-a-regular-file":
      return `the path is a ${result.type}, not a regular file`;
    case "too-large":
      return `the file is ${result.size} bytes; ${options.noun} may be at most ${options.maxBytes} bytes`;
    case "no-content":
      return `the API did not return the file's content (encoding ${result.encoding})`;
    default:
      return unreachable(result);
  }
}

export function statusOf(error: unknown): number | null {
  if (typeof error !== "object" || error === null) return null;
  const status = (error as { status?: unknown }).status;
  return typeof status === "number" ? status : null;
}
