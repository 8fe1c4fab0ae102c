/**
 * `workflow_run` of the evidence-gate workflow (SPEC §2.3): `requested` / `in_progress` mark the App's
 * check run `in_progress` with the workflow run as its details link; `completed` downloads that run's
 * ledger artifact with the installation token, validates it as untrusted data (the rule of
 * `src/github/workflow-run-ledger.ts`, shared with `mode: report`) and completes the check run with it —
 * or `failure` saying why there is none.
 *
 * Only runs of `.github/workflows/<WORKFLOW_FILE>` triggered by `pull_request` count (a `pull_request_target`
 * or `push` run of the same file is never reported). The commit is the event's `head_sha`, never the
 * artifact's. The `workflow_dispatch` runs of `RESUME_WORKFLOW_FILE` (the resume the buttons dispatch) go to
 * `resume-run-handler.ts`, which completes the check run awaiting them.
 *
 * Idempotent and ordered by attempt (`check-key.ts`): a check run is only rewritten by a newer workflow run
 * or a newer attempt; the same attempt again (a redelivery) after the check completed, or an older one,
 * writes nothing. When no check run exists yet (the `pull_request` delivery is late or lost, or the App was
 * installed after the pull request opened), `requested` / `in_progress` wait briefly for it, then create it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import {
  parseWorkflowRunEvent,
  type WorkflowRunEvent,
  WorkflowRunEventError,
} from "../github/workflow-run-event.js";
import { readWorkflowRunLedger } from "../github/workflow-run-ledger.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { type AppCheckRun, AppCheckRuns } from "./app-check-runs.js";
import { type CheckKey, compareAttempt, type RunAttempt } from "./check-key.js";
import { type HandlerContext, type HandlerResult, MalformedPayloadError, parsePayload } from "./handler.js";
import { ledgerCompletion } from "./ledger-completion.js";
import { repositoryPart } from "./payload-parts.js";
import { onResumeWorkflowRun } from "./resume-run-handler.js";

const envelope = z.object({ repository: repositoryPart });

/** Waits before creating a missing check run on `requested` / `in_progress`, ms (scaled in tests). */
const CREATE_PATIENCE_MS = [250, 500, 1000];

export async function onWorkflowRun(ctx: HandlerContext, payload: unknown): Promise<HandlerResult> {
  const { repository } = parsePayload("workflow_run", envelope, payload);
  let upstream: WorkflowRunEvent;
  try {
    upstream = parseWorkflowRunEvent(payload);
  } catch (error) {
    if (!(error instanceof WorkflowRunEventError)) throw error;
    throw new MalformedPayloadError("workflow_run", error.issues);
  }
  const workflow = `.github/workflows/${ctx.config.workflowFile}`;
  const checks = new AppCheckRuns({
    octokit: ctx.octokit,
    owner: repository.owner.login,
    repo: repository.name,
    appId: ctx.config.appId,
    name: ctx.config.checkName,
  });
  const sameRepository = upstream.repository.toLowerCase() === repository.full_name.toLowerCase();
  if (
    upstream.workflowPath === `.github/workflows/${ctx.config.resumeWorkflowFile}` &&
    upstream.event === "workflow_dispatch" &&
    sameRepository
  ) {
    return onResumeWorkflowRun(ctx, checks, upstream, {
      owner: repository.owner.login,
      repo: repository.name,
    });
  }
  if (upstream.workflowPath !== workflow) {
    return {
      outcome: "ignored",
      detail: `workflow ${upstream.workflowPath ?? "(no path)"} is not ${workflow}`,
    };
  }
  if (upstream.event !== "pull_request") {
    return {
      outcome: "ignored",
      detail: `workflow run ${upstream.runId} was triggered by ${upstream.event}, not pull_request`,
    };
  }
  if (!sameRepository) {
    return { outcome: "ignored", detail: `workflow run ${upstream.runId} ran in ${upstream.repository}` };
  }
  const attempt: RunAttempt = { id: upstream.runId, attempt: upstream.runAttempt ?? 1 };
  switch (upstream.action) {
    case "requested":
    case "in_progress":
      return markRunning(ctx, checks, upstream, attempt);
    case "completed":
      return complete(ctx, checks, upstream, attempt, repository);
    default:
      return { outcome: "ignored", detail: `workflow_run ${upstream.action}` };
  }
}

function keyFor(
  upstream: WorkflowRunEvent,
  attempt: RunAttempt,
  existing: AppCheckRun | undefined,
): CheckKey {
  return { pullRequest: existing?.key?.pullRequest ?? upstream.pullRequests[0] ?? null, run: attempt };
}

function runningOutput(upstream: WorkflowRunEvent, attempt: RunAttempt) {
  const run =
    upstream.htmlUrl !== null && /^https:\/\/\S+$/.test(upstream.htmlUrl)
      ? `[workflow run ${upstream.runId}](${upstream.htmlUrl})`
      : `workflow run ${upstream.runId}`;
  return {
    title: `Workflow run ${upstream.runId} is running`,
    summary: `${run}${upstream.workflowName ? ` of ${escapeInline(upstream.workflowName)}` : ""} (attempt ${attempt.attempt}) is running on \`${upstream.headSha}\`. This check run completes with that run's qualified ledger; until then it is not a verdict.`,
  };
}

async function markRunning(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  upstream: WorkflowRunEvent,
  attempt: RunAttempt,
): Promise<HandlerResult> {
  let existing = await checks.find(upstream.headSha);
  for (const wait of CREATE_PATIENCE_MS) {
    if (existing !== undefined) break;
    await ctx.sleep(wait);
    existing = await checks.find(upstream.headSha);
  }
  const output = runningOutput(upstream, attempt);
  const detailsUrl = upstream.htmlUrl ?? undefined;
  if (existing === undefined) {
    const made = await checks.create({
      headSha: upstream.headSha,
      key: keyFor(upstream, attempt, undefined),
      status: "in_progress",
      output,
      ...(detailsUrl === undefined ? {} : { detailsUrl }),
    });
    if (made.created) return { outcome: "check-in-progress", detail: `created check run ${made.run.id}` };
    existing = made.run;
  }
  const order = compareAttempt(attempt, existing.key);
  if (order === "older" || (order === "same" && existing.status !== "queued")) {
    return { outcome: "stale", detail: `check run ${existing.id} already records ${existing.externalId}` };
  }
  await checks.move(existing.id, {
    status: "in_progress",
    key: keyFor(upstream, attempt, existing),
    output,
    ...(detailsUrl === undefined ? {} : { detailsUrl }),
  });
  return {
    outcome: "check-in-progress",
    detail: `check run ${existing.id}, run ${attempt.id} attempt ${attempt.attempt}`,
  };
}

async function complete(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  upstream: WorkflowRunEvent,
  attempt: RunAttempt,
  repository: z.infer<typeof repositoryPart>,
): Promise<HandlerResult> {
  let target = await checks.find(upstream.headSha);
  if (target !== undefined) {
    const order = compareAttempt(attempt, target.key);
    // A redelivered completion of the run that paused must not overwrite the check awaiting its resume.
    const awaitingResume = typeof target.key?.resume === "string";
    if (order === "older" || (order === "same" && (target.status === "completed" || awaitingResume))) {
      return { outcome: "stale", detail: `check run ${target.id} already records ${target.externalId}` };
    }
  } else {
    target = (
      await checks.create({
        headSha: upstream.headSha,
        key: keyFor(upstream, attempt, undefined),
        status: "in_progress",
        output: runningOutput(upstream, attempt),
        ...(upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl }),
      })
    ).run;
  }
  const owner = repository.owner.login;
  const repo = repository.name;
  // A fresh folder per delivery, removed after: the server keeps nothing on disk.
  const tempDir = mkdtempSync(join(tmpdir(), "evidence-gate-bot-"));
  try {
    const found = await readWorkflowRunLedger({
      octokit: ctx.octokit,
      owner,
      repo,
      upstream,
      checkName: ctx.config.checkName,
      tempDir,
    });
    const done = await ledgerCompletion({ found, upstream, octokit: ctx.octokit, owner, repo });
    await checks.complete(target.id, {
      ...done,
      key: keyFor(upstream, attempt, target),
      ...(upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl }),
    });
    return {
      outcome: `completed:${done.conclusion}`,
      detail:
        found.kind === "ledger"
          ? `check run ${target.id}: run ${found.ledger.runId} from artifact ${found.artifact.id}`
          : `check run ${target.id}: ${found.title}`,
    };
  } finally {
    rmSync(tempDir, { recursive: true, force: true });
  }
}
