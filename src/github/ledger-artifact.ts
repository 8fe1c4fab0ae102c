/**
 * Finds, downloads and validates the `<check-name>-ledger` artifact (SPEC §10, §11) of one workflow run, for
 * `mode: report`. The artifact was uploaded by a pull request's workflow run — possibly a fork's, whose
 * workflow file and code the fork controls — so everything in it is **untrusted data**
 * (research/security.md §1.3, GitHub "Security hardening: treat artifacts from other workflows as
 * untrusted"):
 *
 * 1. `GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts?name=…`
 *    (https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts): the artifacts of exactly
 *    the run the `workflow_run` event names, newest first; an expired one is not used.
 * 2. The zip is fetched through the API's redirect without the token, at most
 *    {@link LEDGER_ARTIFACT_MAX_BYTES}, digest-checked (`run-artifact-download.ts`), and extracted without
 *    trusting it (`artifact-zip.ts`: no `..`, no symlinks, {@link LEDGER_ARCHIVE_LIMITS}) into a fresh
 *    folder under `RUNNER_TEMP`, never the workspace. Nothing in it is executed.
 * 3. `ledger.json` at the archive's root is parsed with the ledger's strict zod schema
 *    (`render-json.ts`: unknown keys refused, strings and lists bounded, `schemaVersion: 1`).
 *
 * Whether the ledger belongs to the event's commit is the caller's check (`workflow-run-ledger.ts`).
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Ledger } from "../ledger/ledger.js";
import { parseLedgerJson } from "../ledger/render-json.js";
import { type ArchiveLimits, extractArtifactZip, UnsafeArchiveError } from "./artifact-zip.js";
import type { GateOctokit } from "./octokit.js";
import {
  artifactApiError,
  downloadRunArtifact,
  type ListedArtifact,
  newestUsableArtifact,
  type RunArtifact,
  RunArtifactError,
} from "./run-artifact-download.js";
import { parseRunStateDigestFile, RUN_STATE_DIGEST_FILE, type RunStateDigests } from "./run-state-digest.js";

/** The largest ledger artifact (zip) downloaded: 8 MiB. A ledger is JSON with bounded output tails. */
export const LEDGER_ARTIFACT_MAX_BYTES = 8 * 1024 * 1024;

/** A ledger archive holds one file; at most 8 entries and 32 MiB uncompressed are extracted. */
export const LEDGER_ARCHIVE_LIMITS: ArchiveLimits = { maxEntries: 8, maxTotalBytes: 32 * 1024 * 1024 };

/** The file the ledger artifact holds at its root (`artifact.ts` uploads the run's `ledger.json`). */
export const LEDGER_FILE = "ledger.json";

export interface LedgerArtifactTarget {
  readonly owner: string;
  readonly repo: string;
  /** The workflow run the `workflow_run` event names. */
  readonly workflowRunId: number;
  /** `<check-name>-ledger` (`ledgerArtifactName`). */
  readonly name: string;
}

/**
 * The newest unexpired artifact named `target.name` of the workflow run, or `null` with why not.
 * @throws {RunArtifactError} when GitHub refuses or does not answer the listing (401/403/404 name
 *   `actions: read`).
 */
export async function findLedgerArtifact(
  octokit: GateOctokit,
  target: LedgerArtifactTarget,
): Promise<{ readonly artifact: RunArtifact | null; readonly skipped: readonly string[] }> {
  let listed: readonly ListedArtifact[];
  try {
    const response = await octokit.rest.actions.listWorkflowRunArtifacts({
      owner: target.owner,
      repo: target.repo,
      run_id: target.workflowRunId,
      name: target.name,
      per_page: 100,
    });
    listed = response.data.artifacts;
  } catch (error) {
    throw artifactApiError(
      error,
      `could not list the artifacts of workflow run ${target.workflowRunId} in ${target.owner}/${target.repo}`,
    );
  }
  // The listing is of one run; an artifact naming another run is not that run's ledger.
  return newestUsableArtifact(
    listed,
    target.name,
    (a) =>
      a.workflow_run?.id !== undefined && a.workflow_run.id !== target.workflowRunId
        ? `artifact ${a.id} belongs to workflow run ${a.workflow_run.id}`
        : null,
    target.workflowRunId,
  );
}

/** The artifact's ledger, parsed and schema-valid (not yet checked against the event). */
export type LedgerArtifactRead =
  | {
      readonly kind: "ledger";
      readonly ledger: Ledger;
      readonly path: string;
      /** The run-state digests beside it (`RUN_STATE_DIGEST_FILE` for the ledger's run), else `null`. */
      readonly digests: RunStateDigests | null;
    }
  /** The artifact is not a ledger this product posts: `reason` says why, `issues` list what was found. */
  | { readonly kind: "refused"; readonly reason: string; readonly issues: readonly string[] };

export interface ReadLedgerArtifactOptions {
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  readonly artifact: RunArtifact;
  /** A folder under `RUNNER_TEMP`: the archive is extracted into a fresh folder inside it. */
  readonly tempDir: string;
  /** Default {@link LEDGER_ARTIFACT_MAX_BYTES}. */
  readonly maxBytes?: number;
  readonly limits?: ArchiveLimits;
  readonly fetch?: typeof globalThis.fetch;
  readonly signal?: AbortSignal;
}

/**
 * Downloads, extracts and parses the ledger artifact. Untrusted content that fails a check (over a size
 * limit, a digest mismatch, an unsafe or broken zip, no `ledger.json`, not the ledger schema) is
 * `refused`, never thrown.
 * @throws {RunArtifactError} when GitHub refuses or does not answer (with `status`), not for the content.
 */
export async function readLedgerArtifact(o: ReadLedgerArtifactOptions): Promise<LedgerArtifactRead> {
  const what = `artifact ${o.artifact.name} (id ${o.artifact.id})`;
  let zip: Buffer;
  try {
    zip = await downloadRunArtifact({
      octokit: o.octokit,
      owner: o.owner,
      repo: o.repo,
      artifact: o.artifact,
      maxBytes: o.maxBytes ?? LEDGER_ARTIFACT_MAX_BYTES,
      kind: "a ledger artifact",
      ...(o.fetch ? { fetch: o.fetch } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (error) {
    // A status means GitHub (or the storage URL) refused: not the content's fault.
    if (error instanceof RunArtifactError && error.status === null) {
      return { kind: "refused", reason: error.message, issues: [] };
    }
    throw error;
  }
  const folder = join(mkdtempSync(join(o.tempDir, "evidence-gate-ledger-")), "artifact");
  try {
    await extractArtifactZip(zip, folder, o.limits ?? LEDGER_ARCHIVE_LIMITS);
  } catch (error) {
    if (!(error instanceof UnsafeArchiveError)) throw error;
    return { kind: "refused", reason: `${what} was refused: ${error.message}`, issues: [] };
  }
  const path = join(folder, LEDGER_FILE);
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return { kind: "refused", reason: `${what} holds no ${LEDGER_FILE} at its root`, issues: [] };
  }
  if (!stat.isFile()) {
    return { kind: "refused", reason: `${what}: ${LEDGER_FILE} is not a file`, issues: [] };
  }
  const parsed = parseLedgerJson(readFileSync(path, "utf8"));
  if (!parsed.ok) {
    return {
      kind: "refused",
      reason: `${what}: ${LEDGER_FILE} is not a ledger of this version's schema (schemaVersion 1)`,
      issues: parsed.issues,
    };
  }
  return { kind: "ledger", ledger: parsed.ledger, path, digests: digestsBeside(folder, parsed.ledger.runId) };
}

/** The digests file beside the ledger, when it is a regular file of that form for `runId`; else `null`. */
function digestsBeside(folder: string, runId: string): RunStateDigests | null {
  const path = join(folder, RUN_STATE_DIGEST_FILE);
  try {
    if (!statSync(path).isFile()) return null;
    return parseRunStateDigestFile(readFileSync(path, "utf8"), runId);
  } catch {
    return null;
  }
}
