/**
 * The ledger a pull request's workflow run left, read as **untrusted data** (SPEC §2.3, §10;
 * research/security.md §1.3) — the one rule both stage-2 posters follow: the action's `mode: report`
 * (`src/action/report-mode.ts`) and the bot's `workflow_run.completed` handler (`src/bot/`).
 *
 * The `workflow_run` event is GitHub's and is trusted; the artifact is the pull request's and is not. So:
 *
 * - the artifact `<check-name>-ledger` is looked up among **that** run's artifacts only, downloaded with a
 *   size limit into a fresh temporary folder, extracted without trusting the zip, and parsed with the
 *   ledger's strict schema (`ledger-artifact.ts`: zod, 8 MiB download and 32 MiB extraction limits,
 *   `schemaVersion: 1`);
 * - a ledger that is unfinished, names no head commit or another head commit than the event's, or claims
 *   `success` that its own rows do not support, is refused ({@link ledgerProblem});
 * - a run that uploaded no ledger (it crashed, was cancelled, or stopped before its ledger) is reported as
 *   such — never as passing.
 *
 * A ledger that passes all this is still posted only from a run whose workflow definition is the base
 * branch's, and only as green as GitHub's own conclusion of the run (`run-provenance.ts`, `run-verdict.ts`).
 *
 * What is posted is re-rendered from the validated ledger by the product's renderer, never copied from the
 * artifact; the words around it ({@link ledgerProvenanceMarkdown}, {@link refusedLedgerOutput}) escape every
 * event value.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decideConclusion } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import { codeSpan, escapeInline, fencedBlock } from "../ledger/markdown-syntax.js";
import { ledgerArtifactName } from "./artifact.js";
import { findLedgerArtifact, readLedgerArtifact } from "./ledger-artifact.js";
import type { GateOctokit } from "./octokit.js";
import { type RunArtifact, RunArtifactError } from "./run-artifact-download.js";
import type { RunStateDigests } from "./run-state-digest.js";
import type { WorkflowRunEvent } from "./workflow-run-event.js";

export interface ReadWorkflowRunLedgerOptions {
  readonly octokit: GateOctokit;
  /** The repository the workflow run ran in (the base repository). */
  readonly owner: string;
  readonly repo: string;
  /** The trusted `workflow_run` event: the run whose artifacts are listed, and the head SHA to match. */
  readonly upstream: WorkflowRunEvent;
  /** The check name: the artifact is `<check-name>-ledger` ({@link ledgerArtifactName}). */
  readonly checkName: string;
  /** A folder the archive is extracted into (a fresh folder inside it): `RUNNER_TEMP`, or the OS temp dir. */
  readonly tempDir: string;
  readonly signal?: AbortSignal;
  /** Told one line about the artifact found (id, size); never its content. */
  readonly log?: (message: string) => void;
}

/** The ledger to post, or why there is none. */
export type WorkflowRunLedger =
  | {
      readonly kind: "ledger";
      readonly ledger: Ledger;
      /** Where `ledger.json` was extracted. */
      readonly path: string;
      readonly artifact: RunArtifact;
      /** The run-state digests the artifact carries beside the ledger (`run-state-digest.ts`), else `null`. */
      readonly digests: RunStateDigests | null;
    }
  | {
      readonly kind: "none";
      /** One line (plain text), e.g. `workflow run 30433642 uploaded no ledger`. */
      readonly title: string;
      /** Plain-text sentences saying why; the artifact's own text never appears here. */
      readonly reason: string;
      /** What the schema found, the artifact's own text: show it fenced, as data. */
      readonly issues: readonly string[];
      /** `usage-error`: the workflow lacks `actions: read` (401/403/404); `failed`: anything else. */
      readonly outcome: "failed" | "usage-error";
      /** The run id of a schema-valid ledger that was refused (a later check refused it), else absent. */
      readonly refusedRunId?: string;
      /**
       * `true`: GitHub did not answer or answered 5xx / 429 ({@link RunArtifactError.transient}) — no verdict
       * on the run; the bot fails the delivery so it is redelivered instead of completing the check.
       */
      readonly transient?: true;
    };

/**
 * Finds, downloads and validates the workflow run's ledger artifact, and checks the ledger against the event
 * ({@link ledgerProblem}). Everything the artifact's content can get wrong is a `none` answer, never thrown.
 * @throws only for an internal error (a bug); GitHub's refusals are `none` with `outcome` saying whose fix it is.
 */
export async function readWorkflowRunLedger(o: ReadWorkflowRunLedgerOptions): Promise<WorkflowRunLedger> {
  const read = await readWorkflowRunLedgerUnchecked(o);
  return read.kind === "ledger" ? refusedUnlessAbout(read, o.upstream) : read;
}

/**
 * {@link readWorkflowRunLedger} without the check against the event: the artifact found, downloaded and
 * schema-valid, or why not. For a run whose event does not name the commit the ledger is about — the resume
 * workflow the evidence-gate App dispatches runs on the default branch — the caller then checks the ledger
 * with {@link refusedUnlessAbout} against the commit it knows from elsewhere (its own check run).
 */
export async function readWorkflowRunLedgerUnchecked(
  o: ReadWorkflowRunLedgerOptions,
): Promise<WorkflowRunLedger> {
  const { upstream } = o;
  const name = ledgerArtifactName(o.checkName);
  const cannotRead = (error: RunArtifactError): WorkflowRunLedger => ({
    kind: "none",
    title: `the ledger of workflow run ${upstream.runId} could not be read`,
    reason: error.message,
    issues: [],
    // 401/403/404: the token lacks `actions: read` — something the workflow's (or App's) owner must change.
    outcome: error.status === 401 || error.status === 403 || error.status === 404 ? "usage-error" : "failed",
    ...(error.transient ? { transient: true as const } : {}),
  });
  let artifact: RunArtifact;
  try {
    const listed = await findLedgerArtifact(o.octokit, {
      owner: o.owner,
      repo: o.repo,
      workflowRunId: upstream.runId,
      name,
    });
    if (listed.artifact === null) {
      const skipped = listed.skipped.length > 0 ? ` Not used: ${listed.skipped.join("; ")}.` : "";
      return {
        kind: "none",
        title: `workflow run ${upstream.runId} uploaded no ledger`,
        reason: `Workflow run ${upstream.runId} ended ${upstream.conclusion ?? "without a conclusion"} and has no artifact ${name}.${skipped} It crashed, was cancelled, or stopped before its ledger was written (its job summary says why); a run without a ledger is never reported as passing.`,
        issues: [],
        outcome: "failed",
      };
    }
    artifact = listed.artifact;
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return cannotRead(error);
  }
  o.log?.(`artifact ${artifact.name} (id ${artifact.id}, ${artifact.sizeInBytes} bytes)`);
  let read: Awaited<ReturnType<typeof readLedgerArtifact>>;
  try {
    read = await readLedgerArtifact({
      octokit: o.octokit,
      owner: o.owner,
      repo: o.repo,
      artifact,
      tempDir: o.tempDir,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return cannotRead(error);
  }
  if (read.kind === "refused") {
    const title = `the ledger of workflow run ${upstream.runId} was refused`;
    return { kind: "none", title, reason: read.reason, issues: read.issues, outcome: "failed" };
  }
  return { kind: "ledger", ledger: read.ledger, path: read.path, artifact, digests: read.digests };
}

/**
 * GitHub did not answer, or answered 5xx / 429 past the client's retries, while a ledger was looked up or
 * downloaded ({@link RunArtifactError.transient}): no verdict can be drawn. The bot lets the delivery fail
 * (logged `error`) so the App redelivers it; the check run is not completed.
 */
export class TransientGitHubError extends Error {
  override readonly name = "TransientGitHubError";
}

/** What {@link withWorkflowRunLedger} reads: the options of {@link readWorkflowRunLedger} less the folder. */
export interface ScratchLedgerOptions extends Omit<ReadWorkflowRunLedgerOptions, "tempDir"> {
  /**
   * `event`: the ledger is checked against the event's head ({@link readWorkflowRunLedger}); `caller`: not
   * checked here ({@link readWorkflowRunLedgerUnchecked}) — the run's event does not name the commit (the
   * resume and Re-verify runs the App dispatches run on the default branch), and the caller checks it with
   * {@link refusedUnlessAbout} against the commit of its own check run.
   */
  readonly checkAgainst: "event" | "caller";
}

/**
 * The bot's one way to read a workflow run's ledger: a fresh scratch folder in the OS temp dir, the artifact
 * read into it ({@link readWorkflowRunLedger} or {@link readWorkflowRunLedgerUnchecked}), `use` called with
 * the answer while the extracted files exist, and the folder removed after — whatever `use` does — so the
 * server keeps nothing on disk.
 * @throws {TransientGitHubError} before `use` is called when the read failed only because GitHub did not
 *   answer well (never a `none` answer, which would become a final verdict); else whatever `use` throws.
 */
export async function withWorkflowRunLedger<T>(
  o: ScratchLedgerOptions,
  use: (read: WorkflowRunLedger) => Promise<T>,
): Promise<T> {
  const tempDir = await mkdtemp(join(tmpdir(), "evidence-gate-ledger-"));
  try {
    const options = { ...o, tempDir };
    const read =
      o.checkAgainst === "event"
        ? await readWorkflowRunLedger(options)
        : await readWorkflowRunLedgerUnchecked(options);
    if (read.kind === "none" && read.transient === true) {
      throw new TransientGitHubError(`GitHub did not answer well, try again later: ${read.reason}`);
    }
    return await use(read);
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

/**
 * The found ledger, or `none` when {@link ledgerProblem} refuses it for `about.headSha`, or when `about.runId`
 * is given and the ledger is another evidence-gate run's. `about.runId` of the upstream event names the
 * workflow run in the title.
 */
export function refusedUnlessAbout(
  found: Extract<WorkflowRunLedger, { kind: "ledger" }>,
  about: { readonly headSha: string; readonly runId: number; readonly evidenceGateRunId?: string },
): WorkflowRunLedger {
  const { ledger, artifact } = found;
  const problem =
    about.evidenceGateRunId !== undefined && ledger.runId !== about.evidenceGateRunId
      ? `the ledger is run ${ledger.runId}'s, but run ${about.evidenceGateRunId} was awaited`
      : ledgerProblem(ledger, about);
  if (problem === null) return found;
  return {
    kind: "none",
    title: `the ledger of workflow run ${about.runId} was refused`,
    reason: `Artifact ${artifact.name} (id ${artifact.id}): ${problem}`,
    issues: [],
    outcome: "failed",
    refusedRunId: ledger.runId,
  };
}

/**
 * Why a schema-valid ledger is still not this event's verdict, or `null`: it must be finished, be about the
 * event's head commit (a ledger of another commit could be replayed onto this one), and a `success` must be
 * what its own rows decide (SPEC §6), so a ledger with its conclusion flipped is caught.
 */
export function ledgerProblem(ledger: Ledger, upstream: Pick<WorkflowRunEvent, "headSha">): string | null {
  if (ledger.conclusion === null) return "the ledger is unfinished (it has no conclusion)";
  if (ledger.headSha === undefined) {
    return `the ledger names no head commit, so it cannot be tied to ${upstream.headSha}`;
  }
  if (ledger.headSha !== upstream.headSha) {
    return `the ledger is about head commit ${ledger.headSha}, but the workflow run's head commit is ${upstream.headSha}`;
  }
  if (ledger.conclusion.conclusion === "success") {
    const sinks = ledger.plan.nodes.filter((n) => n.sink);
    const decided = decideConclusion({
      rows: ledger.rows,
      sinks: sinks.map((n) => n.id),
      gateSinks: sinks.filter((n) => n.type === "gate").map((n) => n.id),
      buildEvidence: ledger.plan.buildEvidence,
      postedCommitTree: (ledger.postedCommit ?? ledger.startingCommit)?.tree ?? null,
      requireEvidence: ledger.plan.policy?.requireEvidence === true,
      end: { kind: "completed" },
      ...(ledger.changedFiles !== undefined ? { changedFiles: ledger.changedFiles } : {}),
    });
    if (decided.conclusion !== "success") {
      return `the ledger claims success, but its own rows decide ${decided.conclusion} (${decided.rule})`;
    }
  }
  return null;
}

/** The heading the provenance section of a stage-2 check run opens with. */
export const PROVENANCE_HEADING = "### Reported from the pull request's workflow run";

/**
 * Where the verdict comes from, in trusted words: every event value escaped or in a code span, the run's
 * link only when it is an `https://` URL (its parentheses and angle brackets percent-encoded).
 */
export function ledgerProvenanceMarkdown(
  upstream: WorkflowRunEvent,
  o: { readonly dependabot: boolean },
): string {
  const run =
    upstream.htmlUrl !== null && /^https:\/\/\S+$/.test(upstream.htmlUrl)
      ? `[workflow run ${upstream.runId}](${upstream.htmlUrl.replace(/[()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)})`
      : `workflow run ${upstream.runId}`;
  const from = upstream.fromFork
    ? `the fork ${codeSpan(upstream.headRepository ?? "(deleted)", { inTable: false })}`
    : "this repository";
  const branch =
    upstream.headBranch === null ? "" : `, branch ${codeSpan(upstream.headBranch, { inTable: false })}`;
  const prs =
    upstream.pullRequests.length === 0
      ? ""
      : ` (pull request ${upstream.pullRequests.map((n) => `#${n}`).join(", ")})`;
  return `${run}${upstream.workflowName ? ` of ${escapeInline(upstream.workflowName)}` : ""}, ended ${escapeInline(upstream.conclusion ?? "without a conclusion")}, on ${codeSpan(upstream.headSha, { inTable: false })} from ${from}${branch}${prs}${o.dependabot ? ", triggered by Dependabot" : ""}.`;
}

/**
 * The appendix a posted ledger carries: the provenance, and who posted it from which artifact.
 * `postedBy` is trusted Markdown (e.g. "`mode: report`", "the evidence-gate App").
 */
export function reportedLedgerAppendix(o: {
  readonly provenance: string;
  readonly artifact: Pick<RunArtifact, "name" | "id">;
  readonly postedBy: string;
}): string {
  return `${PROVENANCE_HEADING}\n\n${o.provenance}\n\nPosted by ${o.postedBy} from the artifact ${codeSpan(o.artifact.name, { inTable: false })} (id ${o.artifact.id}), validated as untrusted data and re-rendered here.`;
}

/**
 * The `failure` check run output for a run whose ledger is not posted (none, unreadable or refused): the
 * title, the reason escaped, the artifact's own findings fenced (at most 50), and the provenance.
 */
export function refusedLedgerOutput(f: {
  readonly title: string;
  readonly reason: string;
  readonly issues: readonly string[];
  readonly provenance: string;
}): { readonly title: string; readonly summary: string } {
  const issues =
    f.issues.length === 0
      ? ""
      : `\n\nWhat was found (the artifact's own text, shown as data):\n\n${fencedBlock(f.issues.slice(0, 50).join("\n"))}${f.issues.length > 50 ? `\n\n… and ${f.issues.length - 50} more` : ""}`;
  const title = `evidence-gate: ${f.title}`;
  const summary = `## ❌ ${escapeInline(title)}\n\n${escapeInline(f.reason)}${issues}\n\nNothing from that run is posted as a verdict.\n\n${PROVENANCE_HEADING}\n\n${f.provenance}\n`;
  return { title, summary };
}
