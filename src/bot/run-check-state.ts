/**
 * The App's check run before a verdict (`workflow-run-handler.ts`): what it records (`keyFor`), what it says
 * while its workflow run runs, and — a run GitHub holds for a maintainer's approval — that it waits
 * (`holdForApproval`, issue 23 item 4).
 */
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import type { AppCheckRun, AppCheckRuns } from "./app-check-runs.js";
import { type CheckKey, compareAttempt, type RunAttempt } from "./check-key.js";
import { alreadyDone, type HandlerResult } from "./handler.js";

/** The record for `attempt`: the pull request the check run already records, else the event's first. */
export function keyFor(
  upstream: WorkflowRunEvent,
  attempt: RunAttempt,
  existing: AppCheckRun | undefined,
): CheckKey {
  return { pullRequest: existing?.key?.pullRequest ?? upstream.pullRequests[0] ?? null, run: attempt };
}

/** "workflow run N", linked to the run when its address is an https URL. */
export function runLink(upstream: WorkflowRunEvent): string {
  return upstream.htmlUrl !== null && /^https:\/\/\S+$/.test(upstream.htmlUrl)
    ? `[workflow run ${upstream.runId}](${upstream.htmlUrl})`
    : `workflow run ${upstream.runId}`;
}

/** What the check run says while `attempt` runs. */
export function runningOutput(upstream: WorkflowRunEvent, attempt: RunAttempt) {
  const run = runLink(upstream);
  return {
    title: `Workflow run ${upstream.runId} is running`,
    summary: `${run}${upstream.workflowName ? ` of ${escapeInline(upstream.workflowName)}` : ""} (attempt ${attempt.attempt}) is running on \`${upstream.headSha}\`. This check run completes with that run's qualified ledger; until then it is not a verdict.`,
  };
}

/** The title of a check run whose workflow run GitHub holds for a maintainer's approval. */
export const HOLD_TITLE = "Waiting for a maintainer to approve the workflow run";

/**
 * A run GitHub holds before any job ran — a first-time contributor's fork (GitHub sends `workflow_run`
 * `completed` with `conclusion: action_required`; https://docs.github.com/actions/managing-workflow-runs/approving-workflow-runs-from-public-forks):
 * no verdict, so the check run is put back `queued` saying it waits for a maintainer to approve the workflow
 * run, recording the run and attempt. Once approved, the same run and attempt runs: its `in_progress` moves the
 * check on and its `completed` completes it (issue 23 item 4). A completed check run is never reopened for it.
 */
export async function holdForApproval(
  checks: AppCheckRuns,
  upstream: WorkflowRunEvent,
  attempt: RunAttempt,
): Promise<HandlerResult> {
  const existing = await checks.find(upstream.headSha);
  if (existing !== undefined && checks.doneHere(existing)) return alreadyDone(existing);
  const link = runLink(upstream);
  const output = {
    title: HOLD_TITLE,
    summary: `GitHub holds ${link} on \`${upstream.headSha}\` until a maintainer approves it (a first-time contributor's fork: the Actions tab's "Approve and run"). No job has run; this is not a verdict. This check run follows the approved run and completes with its qualified ledger.`,
  };
  const detailsUrl = upstream.htmlUrl ?? undefined;
  const links = detailsUrl === undefined ? {} : { detailsUrl };
  if (existing === undefined) {
    const made = await checks.create({
      headSha: upstream.headSha,
      key: keyFor(upstream, attempt, undefined),
      status: "queued",
      output,
      ...links,
      last: true,
    });
    return { outcome: "held-for-approval", detail: `check run ${made.run.id} waits for approval` };
  }
  const order = compareAttempt(attempt, existing.key);
  // The hold follows the run's `requested` / `in_progress`; a completed check of this attempt stays completed.
  if (order === "older" || (order === "same" && existing.status === "completed")) {
    return { outcome: "stale", detail: `check run ${existing.id} already records ${existing.externalId}` };
  }
  const key = keyFor(upstream, attempt, existing);
  if (existing.status === "completed") {
    const made = await checks.replace(existing, { key, status: "queued", output, ...links, last: true });
    return { outcome: "held-for-approval", detail: `check run ${made.run.id} waits for approval` };
  }
  await checks.move(existing.id, { status: "queued", key, output, ...links, last: true });
  return { outcome: "held-for-approval", detail: `check run ${existing.id} waits for approval` };
}
