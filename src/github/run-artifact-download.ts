/**
 * Finds and downloads an earlier workflow run's run-directory artifact, `evidence-gate-run-<run id>`
 * (SPEC §4, §11), for `mode: resume` — through the REST API with the workflow's token (`actions: read`):
 *
 * 1. `GET /repos/{owner}/{repo}/actions/artifacts?name=…` (https://docs.github.com/rest/actions/artifacts):
 *    the newest artifact of that exact name that has not expired and was uploaded by a workflow run of
 *    **this** repository's own branches. A pull request from a fork runs in the base repository and can
 *    upload an artifact of any name; its `workflow_run.head_repository_id` differs from `repository_id`, and
 *    such an artifact is never used: a resumed leg trusts the state it resumes (tool policies, prompts).
 * 2. `GET …/artifacts/{id}/zip` answers 302 with a short-lived blob URL. The redirect is taken by hand and
 *    the blob fetched **without** the token, with a byte limit; when the listing gave a `sha256:` digest,
 *    the bytes must match it.
 */
import { createHash } from "node:crypto";
import { statusOf } from "./base-ref-file.js";
import { isForkHead } from "./fork.js";
import type { GateOctokit } from "./octokit.js";

/** The largest run-directory artifact downloaded: 64 MiB (a run directory is mostly small JSON and text). */
export const RUN_ARTIFACT_MAX_BYTES = 64 * 1024 * 1024;

/** An artifact found for a run id, with what the action needs of its workflow run. */
export interface RunArtifact {
  readonly id: number;
  readonly name: string;
  readonly sizeInBytes: number;
  readonly createdAt: string | null;
  /** `sha256:<hex>` for artifacts uploaded with upload-artifact v4 / @actions/artifact v2 or newer. */
  readonly digest: string | null;
  readonly workflowRunId: number | null;
  /** The workflow run's head commit: for a `pull_request` run, the PR head the check run was posted on. */
  readonly headSha: string | null;
}

/**
 * A lookup or download that cannot go on; `status` is GitHub's HTTP status when it answered. `transient`:
 * GitHub did not answer, or answered 5xx / 429 after the client's retries — the same request later may
 * succeed, so it is no verdict on the artifact (the bot fails the delivery, to be redelivered).
 */
export class RunArtifactError extends Error {
  override readonly name = "RunArtifactError";
  readonly transient: boolean;
  constructor(
    message: string,
    readonly status: number | null,
    transient?: boolean,
  ) {
    super(message);
    this.transient = transient ?? (status !== null && (status >= 500 || status === 429));
  }
}

export interface RunArtifactTarget {
  readonly owner: string;
  readonly repo: string;
  /** The artifact's exact name, `evidence-gate-run-<run id>`. */
  readonly name: string;
}

/**
 * The newest usable artifact named `target.name`, or `null` when there is none.
 * @throws {RunArtifactError} when GitHub refuses or does not answer the listing.
 */
export async function findRunArtifact(
  octokit: GateOctokit,
  target: RunArtifactTarget,
): Promise<{ readonly artifact: RunArtifact | null; readonly skipped: readonly string[] }> {
  let listed: Awaited<
    ReturnType<GateOctokit["rest"]["actions"]["listArtifactsForRepo"]>
  >["data"]["artifacts"];
  try {
    const response = await octokit.rest.actions.listArtifactsForRepo({
      owner: target.owner,
      repo: target.repo,
      name: target.name,
      per_page: 100,
    });
    listed = response.data.artifacts;
  } catch (error) {
    throw artifactApiError(
      error,
      `could not list the artifacts named ${target.name} in ${target.owner}/${target.repo}`,
    );
  }
  return newestUsableArtifact(listed, target.name, (a) => {
    const run = a.workflow_run;
    if (run === null || run === undefined || run.repository_id === undefined) {
      return `artifact ${a.id} names no workflow run of this repository`;
    }
    const head = run.head_repository_id === undefined ? null : { id: run.head_repository_id };
    if (isForkHead(head, { id: run.repository_id })) {
      return `artifact ${a.id} was uploaded by a workflow run of a fork (workflow run ${run.id})`;
    }
    return null;
  });
}

/** One artifact as GitHub lists it (`listArtifactsForRepo`, `listWorkflowRunArtifacts`). */
export type ListedArtifact = Awaited<
  ReturnType<GateOctokit["rest"]["actions"]["listArtifactsForRepo"]>
>["data"]["artifacts"][number];

/**
 * The newest (by `created_at`, then id) unexpired artifact named `name` that `unusable` has no objection to
 * (it returns why an artifact is not used, or `null`), with the reasons the others were passed over.
 * `fallbackRunId` stands for the workflow run when GitHub's entry names none.
 */
export function newestUsableArtifact(
  listed: readonly ListedArtifact[],
  name: string,
  unusable: (artifact: ListedArtifact) => string | null,
  fallbackRunId: number | null = null,
): { readonly artifact: RunArtifact | null; readonly skipped: readonly string[] } {
  const skipped: string[] = [];
  const usable = listed.filter((a) => {
    if (a.name !== name) return false;
    const why = a.expired ? `artifact ${a.id} has expired` : unusable(a);
    if (why !== null) skipped.push(why);
    return why === null;
  });
  const newest = usable.sort(
    (a, b) => (Date.parse(b.created_at ?? "") || 0) - (Date.parse(a.created_at ?? "") || 0) || b.id - a.id,
  )[0];
  if (newest === undefined) return { artifact: null, skipped };
  return {
    artifact: {
      id: newest.id,
      name: newest.name,
      sizeInBytes: newest.size_in_bytes,
      createdAt: newest.created_at,
      digest: newest.digest ?? null,
      workflowRunId: newest.workflow_run?.id ?? fallbackRunId,
      headSha: newest.workflow_run?.head_sha ?? null,
    },
    skipped,
  };
}

export interface DownloadRunArtifactOptions {
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  readonly artifact: RunArtifact;
  /** Default {@link RUN_ARTIFACT_MAX_BYTES}. */
  readonly maxBytes?: number;
  /** What kind of artifact, for the size messages (default "a run directory artifact"). */
  readonly kind?: string;
  /** The blob fetch (default `globalThis.fetch`). */
  readonly fetch?: typeof globalThis.fetch;
  readonly signal?: AbortSignal;
}

/**
 * The artifact's zip, at most `maxBytes` long and matching its digest when the listing gave one.
 * @throws {RunArtifactError} for a refused or failed request, an oversized or mismatching download.
 */
export async function downloadRunArtifact(options: DownloadRunArtifactOptions): Promise<Buffer> {
  const { artifact } = options;
  const max = options.maxBytes ?? RUN_ARTIFACT_MAX_BYTES;
  const what = `artifact ${artifact.name} (id ${artifact.id})`;
  const kind = options.kind ?? "a run directory artifact";
  if (artifact.sizeInBytes > max) {
    throw new RunArtifactError(
      `${what} is ${artifact.sizeInBytes} bytes; ${kind} may be at most ${max} bytes`,
      null,
    );
  }
  let location: string | undefined;
  try {
    const response = await options.octokit.rest.actions.downloadArtifact({
      owner: options.owner,
      repo: options.repo,
      artifact_id: artifact.id,
      archive_format: "zip",
      request: { redirect: "manual", ...(options.signal ? { signal: options.signal } : {}) },
    });
    location = (response.headers as Record<string, string | undefined>).location;
  } catch (error) {
    throw artifactApiError(error, `could not download ${what}`);
  }
  if (location === undefined || !/^https?:\/\//.test(location)) {
    throw new RunArtifactError(
      `could not download ${what}: GitHub answered without a download location`,
      null,
    );
  }
  let blob: Response;
  try {
    // No Authorization header: the signed URL is the credential, and the token stays with api.github.com.
    blob = await (options.fetch ?? globalThis.fetch)(location, {
      redirect: "follow",
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    throw new RunArtifactError(
      `could not download ${what} from its storage URL: ${error instanceof Error ? error.message : String(error)}`,
      null,
      true,
    );
  }
  if (!blob.ok || blob.body === null) {
    throw new RunArtifactError(
      `could not download ${what}: the storage URL answered ${blob.status}`,
      blob.status,
    );
  }
  const bytes = await readAtMost(blob.body, max, what, kind);
  if (artifact.digest?.startsWith("sha256:")) {
    const actual = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    if (actual.toLowerCase() !== artifact.digest.toLowerCase()) {
      throw new RunArtifactError(
        `${what} does not match its digest (${artifact.digest}, downloaded ${actual}): refused`,
        null,
      );
    }
  }
  return bytes;
}

async function readAtMost(
  body: ReadableStream<Uint8Array>,
  max: number,
  what: string,
  kind: string,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new RunArtifactError(`${what} is over ${max} bytes; ${kind} may be at most ${max} bytes`, null);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** A refused or unanswered artifacts API call as a {@link RunArtifactError}, naming `actions: read` for 401/403/404. */
export function artifactApiError(error: unknown, what: string): RunArtifactError {
  const status = statusOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  const permission =
    status === 401 || status === 403 || status === 404
      ? " Listing and downloading artifacts needs the token permission `actions: read`: add it to the job's `permissions`."
      : "";
  return new RunArtifactError(
    `${what} (${status === null ? "no answer" : `HTTP ${status}`}: ${detail}).${permission}`,
    status,
    status === null || status >= 500 || status === 429,
  );
}
