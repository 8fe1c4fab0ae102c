/**
 * The resume workflow's completion (issue 11): after a writer's Approve / Reject the App's check run is
 * `in_progress`, its record (`check-key.ts`) naming the evidence-gate run whose resume was dispatched. When
 * that `workflow_dispatch` run of `RESUME_WORKFLOW_FILE` completes, the check run completes from the run's
 * ledger artifact — read by the shared rule (`src/github/workflow-run-ledger.ts`), then checked against the
 * check run's own head commit and the awaited run id — or `failure` saying why there is none. Never left
 * `in_progress`, never green without a ledger that passed every check.
 *
 * The resume workflow runs on the default branch, so the event's `head_sha` is not the pull request's head:
 * the check run is found from the run's `run-name` (docs/bot.md: `evidence-gate resume <run id> <sha>`, the
 * inputs the bot dispatched), else from the ledger's own run id and head — and in both cases only a check run
 * of this App on that commit that awaits exactly that run is written. Anything else writes nothing.
 */
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import {
  refusedUnlessAbout,
  type WorkflowRunLedger,
  withWorkflowRunLedger,
} from "../github/workflow-run-ledger.js";
import type { AppCheckRuns } from "./app-check-runs.js";
import { alreadyDone, type HandlerContext, type HandlerResult } from "./handler.js";
import { ledgerCompletion } from "./ledger-completion.js";

/** What the run's `run-name` says it resumes: `… <run id> <40-hex sha> …`. */
const AWAITED = /\b(\d{8}-\d{6}-[0-9a-f]{6})\s+([0-9a-f]{40})\b/;

/** The run id and head a resume run's `run-name` (`evidence-gate resume <run id> <sha>`) names, else `null`. */
export function resumeNamedBy(
  displayTitle: string | null,
): { readonly runId: string; readonly headSha: string } | null {
  const named = AWAITED.exec(displayTitle ?? "");
  return named === null ? null : { runId: named[1]!, headSha: named[2]! };
}

/** The run id and head a resume run is for: from its `run-name`, else from the ledger it left. */
export function awaitedResume(
  displayTitle: string | null,
  found: WorkflowRunLedger,
): { readonly runId: string; readonly headSha: string } | null {
  const named = resumeNamedBy(displayTitle);
  if (named !== null) return named;
  if (found.kind !== "ledger" || found.ledger.headSha === undefined) return null;
  return { runId: found.ledger.runId, headSha: found.ledger.headSha };
}

export async function onResumeWorkflowRun(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  upstream: WorkflowRunEvent,
  where: { readonly owner: string; readonly repo: string },
): Promise<HandlerResult> {
  if (upstream.action !== "completed") {
    // The check run went `in_progress` when the bot dispatched the resume.
    return { outcome: "ignored", detail: `resume workflow run ${upstream.runId} ${upstream.action}` };
  }
  const reading = { octokit: ctx.octokit, ...where, upstream, checkName: ctx.config.checkName };
  return withWorkflowRunLedger({ ...reading, checkAgainst: "caller" }, async (read) => {
    const awaited = awaitedResume(upstream.displayTitle, read);
    if (awaited === null) {
      return {
        outcome: "ignored",
        detail: `resume workflow run ${upstream.runId} names no evidence-gate run (no run-name, no ledger)`,
      };
    }
    const target = await checks.find(awaited.headSha);
    if (target !== undefined && checks.doneHere(target)) return alreadyDone(target);
    // This delivery completed the check run and died before its last write: it is done again, in place.
    const redo = target !== undefined && checks.unfinishedHere(target);
    if (
      target === undefined ||
      (!redo && (target.status === "completed" || target.key?.resume !== awaited.runId))
    ) {
      return {
        outcome: "stale",
        detail: `no check run on ${awaited.headSha.slice(0, 7)} awaits the resume of run ${awaited.runId}`,
      };
    }
    const found =
      read.kind === "ledger"
        ? refusedUnlessAbout(read, {
            headSha: target.headSha,
            runId: upstream.runId,
            evidenceGateRunId: awaited.runId,
          })
        : read;
    // The provenance and the annotations are about the pull request's head, not the default branch's.
    const about = { ...upstream, headSha: target.headSha };
    const done = await ledgerCompletion({ found, upstream: about, octokit: ctx.octokit, ...where });
    await checks.complete(target.id, {
      ...done,
      key: { pullRequest: target.key?.pullRequest ?? null, run: target.key?.run ?? null, resume: null },
      ...(upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl }),
      last: true,
    });
    return {
      outcome: `completed:${done.conclusion}`,
      detail:
        found.kind === "ledger"
          ? `check run ${target.id}: resumed run ${found.ledger.runId} from artifact ${found.artifact.id}`
          : `check run ${target.id}: ${found.title}`,
    };
  });
}
