/**
 * `workflow_run` of the evidence-gate workflow (SPEC §2.3): `requested` / `in_progress` mark the App's
 * check run `in_progress` with the workflow run as its details link; `completed` downloads that run's
 * ledger artifact with the installation token, validates it as untrusted data (the rule of
 * `src/github/workflow-run-ledger.ts`, shared with `mode: report`) and completes the check run with it —
 * or `failure` saying why there is none. A ledger that says the run pushed a commit (`push: true`, its
 * `postedCommit` not the head) is checked against GitHub's own view of that commit (`pushed-commit.ts`); then
 * the verdict goes on the pushed commit's check run and the head's is superseded ({@link movedToPushed}).
 * Before a ledger that would post `success`, `neutral` or `action_required` is posted, the run's workflow
 * definition must be the base branch's (`src/github/run-provenance.ts`): else the check completes
 * `action_required` naming the changed file, and nothing from the run is posted. GitHub's own conclusion of
 * the run bounds the ledger's (`ledger-completion.ts`; docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md).
 *
 * Only runs of `.github/workflows/<WORKFLOW_FILE>` triggered by `pull_request` count (a `pull_request_target`
 * or `push` run of the same file is never reported), and those triggered by `issue_comment` (a
 * `/evidence-gate run` comment with `report-to: bot`), whose pull request is the one its `run-name` names,
 * its head checked with GitHub (`comment-run.ts`). The commit is the event's `head_sha`, never the
 * artifact's. The `workflow_dispatch` runs of `WORKFLOW_FILE` itself are Re-verify runs (`reverify.ts`). The `workflow_dispatch` runs of `RESUME_WORKFLOW_FILE` (the resume the buttons dispatch) go to
 * `resume-run-handler.ts`, which completes the check run awaiting them.
 *
 * Idempotent and ordered by attempt (`check-key.ts`): a check run is only rewritten by a newer workflow run
 * or a newer attempt; the same attempt again (a redelivery, a late `requested`) after the check completed, or
 * an older one, writes nothing. A completed check run never moves back: a newer run or attempt on its head
 * gets a fresh check run that takes over from it (`AppCheckRuns.replace`). When no check run exists yet (the `pull_request` delivery is late or lost, or the App was
 * installed after the pull request opened), `requested` / `in_progress` wait briefly for it, then create it.
 */
import { z } from "zod";
import { checkRunProvenance } from "../github/run-provenance.js";
import { needsProvenance, provenanceRefusal } from "../github/run-verdict.js";
import {
  parseWorkflowRunEvent,
  type WorkflowRunEvent,
  WorkflowRunEventError,
} from "../github/workflow-run-event.js";
import {
  PROVENANCE_HEADING,
  type WorkflowRunLedger,
  withWorkflowRunLedger,
} from "../github/workflow-run-ledger.js";
import type { StartingCommit } from "../ledger/ledger.js";
import { codeSpan } from "../ledger/markdown-syntax.js";
import type { AppCheckRun, AppCheckRuns } from "./app-check-runs.js";
import { compareAttempt, type RunAttempt } from "./check-key.js";
import { commentRunAsPullRequestRun } from "./comment-run.js";
import {
  alreadyDone,
  type HandlerContext,
  type HandlerResult,
  MalformedPayloadError,
  parsePayload,
} from "./handler.js";
import { APP_PERMISSIONS, ledgerCompletion, provenanceOf } from "./ledger-completion.js";
import { repositoryPart } from "./payload-parts.js";
import { checkedPushClaim, pushedCommitOf, shortSha } from "./pushed-commit.js";
import { checksOf } from "./rerun-handler.js";
import { onResumeWorkflowRun } from "./resume-run-handler.js";
import { onVerifyWorkflowRun } from "./reverify.js";
import { HOLD_TITLE, holdForApproval, keyFor, runningOutput } from "./run-check-state.js";

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
  const checks = checksOf(ctx, repository);
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
  if (upstream.workflowPath === workflow && upstream.event === "workflow_dispatch" && sameRepository) {
    return onVerifyWorkflowRun(ctx, checks, upstream, {
      owner: repository.owner.login,
      repo: repository.name,
      defaultBranch: repository.default_branch,
    });
  }
  if (upstream.workflowPath !== workflow) {
    return {
      outcome: "ignored",
      detail: `workflow ${upstream.workflowPath ?? "(no path)"} is not ${workflow}`,
    };
  }
  if (upstream.event === "issue_comment" && sameRepository) {
    // A `/evidence-gate run` comment's run: its pull request comes from its ledger, checked with GitHub.
    const view = await commentRunAsPullRequestRun(ctx, upstream, repository);
    if (!("runId" in view)) return view;
    return complete(ctx, checks, view, { id: view.runId, attempt: view.runAttempt ?? 1 }, repository);
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
      return upstream.conclusion === "action_required"
        ? holdForApproval(checks, upstream, attempt)
        : complete(ctx, checks, upstream, attempt, repository);
    default:
      return { outcome: "ignored", detail: `workflow_run ${upstream.action}` };
  }
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
  if (existing !== undefined && checks.doneHere(existing)) return alreadyDone(existing);
  const output = runningOutput(upstream, attempt);
  const detailsUrl = upstream.htmlUrl ?? undefined;
  if (existing === undefined) {
    const made = await checks.create({
      headSha: upstream.headSha,
      key: keyFor(upstream, attempt, undefined),
      status: "in_progress",
      output,
      ...(detailsUrl === undefined ? {} : { detailsUrl }),
      last: true,
    });
    if (made.created) return { outcome: "check-in-progress", detail: `created check run ${made.run.id}` };
    existing = made.run;
  }
  const order = compareAttempt(attempt, existing.key);
  // A late `requested` of a run held for approval does not say it runs: only its `in_progress` does.
  const held = order === "same" && existing.title === HOLD_TITLE && upstream.action === "requested";
  if (order === "older" || held || (order === "same" && existing.status !== "queued")) {
    return { outcome: "stale", detail: `check run ${existing.id} already records ${existing.externalId}` };
  }
  if (existing.status === "completed") {
    // A completed check run never moves back: a newer run or attempt gets a fresh check run (issue 23 item 1).
    const made = await checks.replace(existing, {
      key: keyFor(upstream, attempt, existing),
      status: "in_progress",
      output,
      ...(detailsUrl === undefined ? {} : { detailsUrl }),
      last: true,
    });
    return {
      outcome: "check-in-progress",
      detail: `check run ${made.run.id} after completed check run ${existing.id}, run ${attempt.id} attempt ${attempt.attempt}`,
    };
  }
  await checks.move(existing.id, {
    status: "in_progress",
    key: keyFor(upstream, attempt, existing),
    output,
    ...(detailsUrl === undefined ? {} : { detailsUrl }),
    last: true,
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
    if (checks.doneHere(target)) return alreadyDone(target);
    const order = compareAttempt(attempt, target.key);
    // This delivery completed the check run and died before its last write: it is done again, in place.
    const redo = order === "same" && checks.unfinishedHere(target);
    // A redelivered completion of the run that paused must not overwrite the check awaiting its resume.
    const awaitingResume = typeof target.key?.resume === "string";
    if (
      !redo &&
      (order === "older" || (order === "same" && (target.status === "completed" || awaitingResume)))
    ) {
      return { outcome: "stale", detail: `check run ${target.id} already records ${target.externalId}` };
    }
    if (target.status === "completed" && !redo) {
      // A newer run or attempt on a head whose check completed: a fresh check run (issue 23 item 1).
      target = (
        await checks.replace(target, {
          key: keyFor(upstream, attempt, target),
          status: "in_progress",
          output: runningOutput(upstream, attempt),
          ...(upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl }),
        })
      ).run;
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
  const reading = { octokit: ctx.octokit, owner, repo, upstream, checkName: ctx.config.checkName };
  return withWorkflowRunLedger({ ...reading, checkAgainst: "event" }, async (read) => {
    const key = keyFor(upstream, attempt, target);
    const detailsUrl = upstream.htmlUrl ?? undefined;
    const links = detailsUrl === undefined ? {} : { detailsUrl };
    const claimed = read.kind === "ledger" ? pushedCommitOf(read.ledger, upstream) : undefined;
    // A ledger claiming a push: GitHub must show that commit as the ledger says, else the claim is refused.
    const found =
      read.kind === "ledger" && claimed !== undefined
        ? await checkedPushClaim(ctx.octokit, read, claimed, upstream, { owner, repo })
        : read;
    if (found.kind === "ledger" && needsProvenance(found.ledger, upstream)) {
      // Only a run whose workflow definition is the base branch's is posted as a verdict (issue 22 item 1).
      const refusal = provenanceRefusal(
        await checkRunProvenance({
          octokit: ctx.octokit,
          owner,
          repo,
          upstream,
          ...(claimed === undefined ? {} : { pushedSha: claimed.sha }),
        }),
        { upstream, provenance: provenanceOf(upstream), permissions: APP_PERMISSIONS },
      );
      if (refusal !== null) {
        const { conclusion, title, summary } = refusal;
        const done = { conclusion, title, summary, annotations: [], actions: [], ...links };
        // The pushed commit's check run (queued by the push's synchronize) is not left open either.
        const onPushed = claimed === undefined ? undefined : await checks.find(claimed.sha.toLowerCase());
        if (onPushed !== undefined && onPushed.status !== "completed") {
          if (compareAttempt(attempt, onPushed.key) !== "older") {
            await checks.complete(onPushed.id, { ...done, key: keyFor(upstream, attempt, onPushed) });
          }
        }
        await checks.complete(target.id, { ...done, key, last: true });
        return {
          outcome: `completed:${refusal.conclusion}`,
          detail: `check run ${target.id}: ${refusal.reason}`,
        };
      }
    }
    if (found.kind === "ledger" && claimed !== undefined) {
      return movedToPushed(ctx, checks, { found, claimed, upstream, attempt, target, owner, repo });
    }
    const done = await ledgerCompletion({ found, upstream, octokit: ctx.octokit, owner, repo });
    await checks.complete(target.id, { ...done, key, ...links, last: true });
    return {
      outcome: `completed:${done.conclusion}`,
      detail:
        found.kind === "ledger"
          ? `check run ${target.id}: run ${found.ledger.runId} from artifact ${found.artifact.id}`
          : `check run ${target.id}: ${found.title}`,
    };
  });
}

type FoundLedger = Extract<WorkflowRunLedger, { kind: "ledger" }>;

/**
 * `push: true` (`pushed-commit.ts` checked the claim): the verdict goes on the App's check run on the pushed
 * commit — the one the `pull_request` synchronize delivery queued, whichever came first, or created now — and
 * the head's check run completes `neutral` "Superseded by <sha>", the wording of the action's own move
 * (`src/pull-request/push-mode.ts`). The pushed commit is written first and the head's last: a delivery that fails in
 * between leaves the head's check run open, so a redelivery does both again (rewriting the pushed commit's
 * with the same verdict), while a redelivery after both is `stale` at the head's. A pushed commit's check run
 * that already records a newer workflow run (the push started one, with a push token that can) is left to it.
 */
async function movedToPushed(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  o: {
    readonly found: FoundLedger;
    readonly claimed: StartingCommit;
    readonly upstream: WorkflowRunEvent;
    readonly attempt: RunAttempt;
    readonly target: AppCheckRun;
    readonly owner: string;
    readonly repo: string;
  },
): Promise<HandlerResult> {
  const { found, upstream, attempt, target } = o;
  const pushedSha = o.claimed.sha.toLowerCase();
  const detailsUrl = upstream.htmlUrl ?? undefined;
  const links = detailsUrl === undefined ? {} : { detailsUrl };
  const done = await ledgerCompletion({
    found,
    upstream,
    octokit: ctx.octokit,
    owner: o.owner,
    repo: o.repo,
    commitSha: pushedSha,
  });
  let onPushed = await checks.find(pushedSha);
  if (onPushed === undefined) {
    onPushed = (
      await checks.create({
        headSha: pushedSha,
        key: keyFor(upstream, attempt, undefined),
        status: "in_progress",
        output: {
          title: `Reporting workflow run ${upstream.runId}`,
          summary: `Workflow run ${upstream.runId} pushed \`${pushedSha}\` on top of \`${upstream.headSha}\`; its verdict follows here.`,
        },
        ...links,
      })
    ).run;
  }
  const newerThere = compareAttempt(attempt, onPushed.key) === "older";
  if (!newerThere) {
    await checks.complete(onPushed.id, { ...done, key: keyFor(upstream, attempt, onPushed), ...links });
  }
  const short = shortSha(pushedSha);
  const link =
    onPushed.htmlUrl === null
      ? `check run ${onPushed.id}`
      : `[the check run on ${short}](${onPushed.htmlUrl})`;
  const branch =
    upstream.headBranch === null
      ? "the pull request's branch"
      : codeSpan(upstream.headBranch, { inTable: false });
  const provenance = provenanceOf(upstream);
  await checks.complete(target.id, {
    conclusion: "neutral",
    title: `Superseded by ${short}`,
    summary: [
      `## Superseded by ${short}`,
      "",
      `Run ${codeSpan(found.ledger.runId, { inTable: false })} ${done.conclusion === "success" ? "verified the nodes' changes and pushed them" : "pushed the nodes' changes"} to ${branch} as commit \`${pushedSha}\` (tree \`${o.claimed.tree.toLowerCase()}\`). ${newerThere ? `That commit's check run follows a newer workflow run: ${link}.` : `The verdict is posted on that commit: ${link}.`}`,
      "",
      `This check run, on ${shortSha(upstream.headSha)}, carries no verdict. GitHub shows ${short} with this commit as its first parent and that tree, as the ledger says.`,
      "",
      PROVENANCE_HEADING,
      "",
      provenance,
      "",
    ].join("\n"),
    key: keyFor(upstream, attempt, target),
    ...links,
    last: true,
  });
  return {
    outcome: `completed:${done.conclusion}`,
    detail: newerThere
      ? `check run ${target.id} superseded by ${short}, whose check run ${onPushed.id} records a newer run`
      : `check run ${target.id} superseded by check run ${onPushed.id} on ${short}: run ${found.ledger.runId} from artifact ${found.artifact.id}`,
  };
}
