/**
 * The two checks a validated ledger passes before `mode: report` or the App posts it as a pull request's
 * check run (issue 22 items 1 and 2; docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md):
 *
 * 1. **provenance** ({@link provenanceRefusal}): the run's workflow definition is the base branch's
 *    (`run-provenance.ts`); a run the pull request rewrote gets `action_required` naming the changed files
 *    and what a writer does, and a run whose provenance cannot be told is never a verdict either;
 * 2. **agreement with GitHub** ({@link agreedWithRun}): a ledger whose step would have passed (`success`,
 *    `neutral`, a pause or an `action_required` with outcome `passed`) from a run GitHub reports `failure`,
 *    `cancelled` or `timed_out` is posted with GitHub's verdict (`cancelled`, `timed_out`, else `failure`),
 *    both named in its title and reason.
 */
import type { CheckConclusion, Conclusion } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import { codeSpan, escapeInline } from "../ledger/markdown-syntax.js";
import type { RunProvenance } from "./run-provenance.js";
import type { WorkflowRunEvent } from "./workflow-run-event.js";
import { PROVENANCE_HEADING } from "./workflow-run-ledger.js";

/** Why a run's ledger is not posted as a verdict: the check run's conclusion, title and Markdown summary. */
export interface ProvenanceRefusal {
  readonly conclusion: "action_required" | "failure";
  /** The action's `outcome`: `refused` (a writer must look), `usage-error` (the token lacks a permission). */
  readonly outcome: "refused" | "usage-error";
  readonly title: string;
  readonly summary: string;
  /** One line for the log and the step's error. */
  readonly reason: string;
}

/**
 * The refusal for a run whose provenance is not the base branch's, or `null` when it is.
 * @param o.provenance `ledgerProvenanceMarkdown` of the run (trusted Markdown).
 * @param o.permissions how the poster gets the read permissions, e.g. "`pull-requests: read` and
 *   `contents: read` in the report job's `permissions`" (trusted Markdown).
 */
export function provenanceRefusal(
  found: RunProvenance,
  o: {
    readonly upstream: WorkflowRunEvent;
    readonly provenance: string;
    readonly permissions: string;
  },
): ProvenanceRefusal | null {
  if (found.kind === "base") return null;
  const run = `workflow run ${o.upstream.runId}`;
  const tail = `\n\n${PROVENANCE_HEADING}\n\n${o.provenance}\n`;
  if (found.kind === "unknown") {
    const denied = found.apiStatus === 401 || found.apiStatus === 403 || found.apiStatus === 404;
    const title = `evidence-gate: could not tell whether the pull request rewrote the workflow of ${run}`;
    // `permissions` is trusted Markdown (code spans): the only fix sentence not escaped.
    const fix = denied
      ? `The token was refused: it needs ${o.permissions}.`
      : "A writer reviews the pull request, and re-runs its workflow once it can be told (its head is the run's, it lists fewer than 3000 files).";
    return {
      conclusion: denied ? "failure" : "action_required",
      outcome: denied ? "usage-error" : "refused",
      title,
      reason: `${found.reason}. ${fix}`,
      summary: `## ⚠️ ${escapeInline(title)}\n\n${escapeInline(found.reason)}.\n\nA ledger is posted as a verdict only from a run whose workflow definition is the base branch's; this one could not be checked, so nothing from it is posted as a verdict. ${denied ? fix : escapeInline(fix)}${tail}`,
    };
  }
  const pr = `pull request #${found.pullRequest}`;
  const title = `evidence-gate: ${pr} changes the workflow that produced this ledger`;
  const list = found.files
    .map((f) => `- ${codeSpan(f.path, { inTable: false })}: ${escapeInline(f.role)}`)
    .join("\n");
  const names = found.files.map((f) => f.path).join(", ");
  return {
    conclusion: "action_required",
    outcome: "refused",
    title,
    reason: `${pr} changes ${names}, part of what ${run} ran: its ledger is not posted as a verdict. A writer reviews the change; to get a verdict, land it on the base branch in a pull request of its own (or take it out of this one), then re-run this pull request's workflow.`,
    summary: [
      `## ⚠️ ${escapeInline(title)}`,
      "",
      `${escapeInline(run)} ran the workflow as ${escapeInline(pr)} has it, and ${escapeInline(pr)} changes:`,
      "",
      list,
      "",
      "On a pull request GitHub runs the workflow as the pull request has it, so that run decided what it uploaded: its ledger is not evidence the gate produced, and this check is never `success` for it. Nothing from that run is posted as a verdict.",
      "",
      `**What a writer does:** review the change to ${found.files.length === 1 ? "this file" : "these files"}. To get a verdict, land it on the base branch in a pull request of its own (or take it out of this one), then re-run this pull request's workflow: a run whose workflow definition is the base branch's is posted as usual. A writer who reviewed the whole pull request, workflow change included, may instead merge it past this check (a bypass of the required check).`,
      tail.slice(2),
    ].join("\n"),
  };
}

/**
 * `ledger` as posted for a run GitHub reports `upstream.conclusion`. The ledger's outcome says how its step
 * ended (`src/pull-request/step-result.ts`): `passed` and `paused` pass the step, every other outcome fails it. So the
 * ledger stands when GitHub says `success`, or when its outcome already failed the step (`failed`, `refused`,
 * `usage-error`, `cancelled`, `timed-out`: GitHub's `failure` is then the ledger's own doing). A `passed` or
 * `paused` ledger from a run GitHub reports anything else disagrees with GitHub: its conclusion becomes
 * GitHub's (`cancelled`, `timed_out`, anything else `failure`) with rule `workflow-run-not-success`, the title
 * and reason naming both verdicts, and no gate buttons follow (the conclusion is no longer `action_required`).
 */
export function agreedWithRun(
  ledger: Ledger,
  upstream: Pick<WorkflowRunEvent, "runId" | "conclusion">,
): Ledger {
  const own = ledger.conclusion;
  if (own === null || upstream.conclusion === "success") return ledger;
  if (own.outcome !== "passed" && own.outcome !== "paused") return ledger;
  const github = upstream.conclusion ?? "no conclusion";
  const conclusion: CheckConclusion =
    github === "cancelled" ? "cancelled" : github === "timed_out" ? "timed_out" : "failure";
  const outcome: Conclusion["outcome"] =
    conclusion === "cancelled" ? "cancelled" : conclusion === "timed_out" ? "timed-out" : "failed";
  return {
    ...ledger,
    conclusion: {
      conclusion,
      outcome,
      rule: "workflow-run-not-success",
      title: `Workflow run ${upstream.runId} ended ${github}; its ledger says ${own.conclusion}`,
      reason: `GitHub reports workflow run ${upstream.runId} ended ${github}, while the ledger it uploaded concludes ${own.conclusion} (${own.title}). A ledger's ${own.conclusion} is posted only when GitHub's own verdict on the run is success too: a step failed, or the run was cancelled or timed out, after the ledger was written. Fix what failed (the run's log says what) and re-run the workflow.`,
    },
  };
}

/**
 * Whether the ledger, as posted ({@link agreedWithRun}), needs the provenance check before it is posted: a
 * `success`, `neutral` or `action_required` (a gate's buttons) could pass or resume something, so it needs a
 * run whose workflow definition is the base branch's; a `failure`, `cancelled` or `timed_out` is posted as
 * it is (nothing passes on it, and a pull request may always fail its own check).
 */
export function needsProvenance(
  ledger: Ledger,
  upstream: Pick<WorkflowRunEvent, "runId" | "conclusion">,
): boolean {
  const posted = agreedWithRun(ledger, upstream).conclusion?.conclusion;
  return posted === "success" || posted === "neutral" || posted === "action_required";
}
