/**
 * "Re-verify" on the App's completed check run (issue 23 item 5): a writer's click runs only the engine's
 * verify command on the pull request's **current** head — no model, no spend — by dispatching the pull request
 * workflow (`WORKFLOW_FILE`) on the default branch in `mode: verify`, as a fresh check run. The existing
 * Re-run stays the full run. The workflow must accept `workflow_dispatch` with the inputs {@link VerifyInputs}
 * (docs/bot.md, "The workflows").
 *
 * The click ({@link onReverifyClick}), each refusal dispatching nothing: the check run must be the head's
 * current one and completed (a repeated click, a redelivery, finds the fresh one instead: `stale`); the
 * clicker must have write access, asked of GitHub (`writer-permission.ts`); the pull request — the one the
 * check run records, else the open one whose head is its commit — must be open. Then a fresh check run,
 * `queued`, recording `:verify` (`check-key.ts`), goes on the pull request's current head (taking over from a
 * completed one there, `AppCheckRuns.replace`; when that head's check run is still going, nothing is
 * dispatched), and the workflow is dispatched. A dispatch GitHub refuses or does not answer completes the
 * fresh check run `failure` saying why — with the Re-verify button, so a writer can try again.
 *
 * The completion ({@link onVerifyWorkflowRun}): the `workflow_dispatch` run of `WORKFLOW_FILE` runs on the
 * default branch, so its `head_sha` is not the pull request's. Only a run **of the default branch**
 * (`workflow_run.head_branch` = the repository's `default_branch`, both from GitHub's event) counts: a
 * dispatch on another ref runs that ref's copy of the workflow, which a pull request's branch can rewrite.
 * The check run is found from its `run-name` (`evidence-gate verify <sha>`, the input the App dispatched)
 * only — never from the ledger, which the pull request's code wrote: no SHA there is `stale`. Only a check
 * run of this App on that commit that awaits a Re-verify is written — from the ledger, read by the shared
 * rule and checked against the check run's own head commit, then (before a `success`, `neutral` or
 * `action_required`) under the provenance rule the `pull_request` path applies (`checkRunProvenance`,
 * docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md) on the check run's pull request as GitHub
 * shows it; or `failure` saying why there is none. Anything else writes nothing.
 */
import { statusOf } from "../github/base-ref-file.js";
import { checkRunProvenance } from "../github/run-provenance.js";
import { needsProvenance, type ProvenanceRefusal, provenanceRefusal } from "../github/run-verdict.js";
import type { WorkflowRunEvent } from "../github/workflow-run-event.js";
import { refusedUnlessAbout, withWorkflowRunLedger } from "../github/workflow-run-ledger.js";
import { accessWords, checkWriter } from "../github/writer-check.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import type { AppCheckRun, AppCheckRuns } from "./app-check-runs.js";
import { asPullRequestRun } from "./comment-run.js";
import { dispatchFailure } from "./dispatch-refusal.js";
import { alreadyDone, type HandlerContext, type HandlerResult } from "./handler.js";
import { APP_PERMISSIONS, ledgerCompletion, provenanceOf } from "./ledger-completion.js";
import { commitSha } from "./payload-parts.js";

/** The inputs the pull request workflow is dispatched with for a Re-verify (docs/bot.md). */
export interface VerifyInputs {
  readonly mode: "verify";
  /** The pull request's head commit to verify, 40 hex. */
  readonly sha: string;
  /** The pull request's number, as a string (GitHub's dispatch inputs are strings). */
  readonly "pull-request": string;
}

/** What a Re-verify run's `run-name` says it verifies: `… verify <40-hex sha> …`. */
const VERIFYING = /\bverify\s+([0-9a-f]{40})\b/;

/** The commit a Re-verify run's `run-name` (`evidence-gate verify <sha>`, docs/bot.md) names, else `null`. */
export function verifiedBy(displayTitle: string | null): string | null {
  return VERIFYING.exec(displayTitle ?? "")?.[1] ?? null;
}

/** Where and by whom: the repository of the click and the clicker's login. */
export interface ReverifyClick {
  readonly owner: string;
  readonly repo: string;
  readonly defaultBranch: string;
  readonly login: string;
}

/** A writer's Re-verify click on check run `checkRunId` (see the module comment). */
export async function onReverifyClick(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  checkRunId: number,
  click: ReverifyClick,
): Promise<HandlerResult> {
  const { owner, repo, login } = click;
  const check = await checks.get(checkRunId);
  if (checks.doneHere(check)) return alreadyDone(check);
  const current = await checks.find(check.headSha);
  if (check.status !== "completed" || current?.id !== check.id) {
    return {
      outcome: "stale",
      detail: `check run ${check.id} is not the completed check run of ${check.headSha.slice(0, 7)} any more (already re-verified or re-run): nothing was dispatched`,
    };
  }
  const access = await checkWriter(ctx.octokit, { owner, repo, login });
  if (!access.isWriter) {
    return {
      outcome: "refused",
      detail: `${login} has ${accessWords(access.permission)}; a Re-verify needs write: nothing was dispatched`,
    };
  }
  const pull = await pullRequestOf(ctx, check, { owner, repo });
  if (typeof pull === "string") return { outcome: "refused", detail: `${pull} Nothing was dispatched.` };
  const onHead = pull.headSha === check.headSha ? check : await checks.find(pull.headSha);
  if (onHead !== undefined && onHead.status !== "completed") {
    return {
      outcome: "stale",
      detail: `check run ${onHead.id} on the pull request's head ${pull.headSha.slice(0, 7)} is ${onHead.status}: nothing was dispatched`,
    };
  }
  const key = { pullRequest: pull.number, run: null, verify: true };
  const output = {
    title: "Re-verify requested",
    summary: `${escapeInline(login)} (${accessWords(access.permission)}) asked to re-verify pull request #${pull.number} at \`${pull.headSha}\`: ${escapeInline(ctx.config.workflowFile)} is dispatched on ${escapeInline(click.defaultBranch)} in \`mode: verify\`, which runs only the verify command — no model. This check run completes with that run's ledger.`,
  };
  const fresh =
    onHead === undefined
      ? await checks.create({ headSha: pull.headSha, key, status: "queued", output })
      : await checks.replace(onHead, { key, status: "queued", output });
  const inputs: VerifyInputs = { mode: "verify", sha: pull.headSha, "pull-request": String(pull.number) };
  try {
    await ctx.octokit.rest.actions.createWorkflowDispatch({
      owner,
      repo,
      workflow_id: ctx.config.workflowFile,
      ref: click.defaultBranch,
      inputs: { ...inputs },
    });
  } catch (error) {
    const failed = dispatchFailure(error, {
      workflow: ctx.config.workflowFile,
      ref: click.defaultBranch,
      inputs: Object.keys(inputs),
    });
    const why = failed.what;
    await checks.complete(fresh.run.id, {
      conclusion: "failure",
      key,
      title: "evidence-gate: Re-verify not dispatched",
      summary: `## ❌ Re-verify not dispatched\n\n${escapeInline(why)}. ${failed.fix} Nothing ran; a writer can click Re-verify again.`,
      last: true,
    });
    return { outcome: "dispatch-refused", detail: why };
  }
  return {
    outcome: "dispatched",
    detail: `Re-verify of #${pull.number} at ${pull.headSha.slice(0, 7)} by ${login}; check run ${fresh.run.id} follows it`,
  };
}

/**
 * The number of an open pull request whose head is `headSha` now (`GET /repos/{owner}/{repo}/pulls`, every
 * page), or `undefined`: how a check run that records no pull request — a fork's, created from `workflow_run`
 * (whose `pull_requests` is empty for a fork) before the `pull_request` delivery — is tied to one.
 */
export async function openPullRequestAt(
  ctx: HandlerContext,
  o: { readonly owner: string; readonly repo: string },
  headSha: string,
): Promise<number | undefined> {
  const open = await ctx.octokit.paginate(ctx.octokit.rest.pulls.list, {
    ...o,
    state: "open",
    per_page: 100,
  });
  return open.find((p) => p.head.sha.toLowerCase() === headSha.toLowerCase())?.number;
}

/** The open pull request of `check` (recorded, else the open one whose head is its commit), or why there is none. */
async function pullRequestOf(
  ctx: HandlerContext,
  check: AppCheckRun,
  o: { readonly owner: string; readonly repo: string },
): Promise<{ readonly number: number; readonly headSha: string } | string> {
  const recorded = check.key?.pullRequest ?? null;
  if (recorded === null) {
    const found = await openPullRequestAt(ctx, o, check.headSha);
    if (found === undefined) return `no open pull request has ${check.headSha.slice(0, 7)} as its head.`;
    return { number: found, headSha: check.headSha };
  }
  const { data } = await ctx.octokit.rest.pulls.get({ ...o, pull_number: recorded });
  if (data.state !== "open") return `pull request #${recorded} is ${data.state}.`;
  const head = commitSha.safeParse(data.head.sha);
  if (!head.success)
    return `pull request #${recorded}'s head ${JSON.stringify(data.head.sha)} is no commit SHA.`;
  return { number: recorded, headSha: head.data };
}

/** The `workflow_run` of a Re-verify: `workflow_dispatch` of `WORKFLOW_FILE` (see the module comment). */
export async function onVerifyWorkflowRun(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  upstream: WorkflowRunEvent,
  where: { readonly owner: string; readonly repo: string; readonly defaultBranch: string | undefined },
): Promise<HandlerResult> {
  if (upstream.action !== "completed") {
    return { outcome: "ignored", detail: `Re-verify workflow run ${upstream.runId} ${upstream.action}` };
  }
  const { owner, repo } = where;
  if (where.defaultBranch === undefined || upstream.headBranch !== where.defaultBranch) {
    return {
      outcome: "refused",
      detail: `Re-verify workflow run ${upstream.runId} ran on ${JSON.stringify(upstream.headBranch)}, not the default branch ${JSON.stringify(where.defaultBranch ?? "(not in the event)")}: another ref's copy of the workflow is no Re-verify; nothing is posted`,
    };
  }
  const sha = verifiedBy(upstream.displayTitle);
  if (sha === null) {
    return {
      outcome: "stale",
      detail: `Re-verify workflow run ${upstream.runId}: its run-name ${JSON.stringify(upstream.displayTitle ?? "")} names no commit (\`evidence-gate verify <sha>\`, docs/bot.md); its ledger never picks one: nothing is posted`,
    };
  }
  const reading = { octokit: ctx.octokit, owner, repo, upstream, checkName: ctx.config.checkName };
  return withWorkflowRunLedger({ ...reading, checkAgainst: "caller" }, async (read) => {
    const target = await checks.find(sha);
    if (target !== undefined && checks.doneHere(target)) return alreadyDone(target);
    // This delivery completed the check run and died before its last write: it is done again, in place.
    const redo = target !== undefined && checks.unfinishedHere(target);
    if (target === undefined || (!redo && (target.status === "completed" || target.key?.verify !== true))) {
      return {
        outcome: "stale",
        detail: `no check run awaits a Re-verify on ${sha.slice(0, 7)} (workflow run ${upstream.runId})`,
      };
    }
    const found =
      read.kind === "ledger"
        ? refusedUnlessAbout(read, { headSha: target.headSha, runId: upstream.runId })
        : read;
    const about = { ...upstream, headSha: target.headSha };
    const key = {
      pullRequest: target.key?.pullRequest ?? null,
      run: { id: upstream.runId, attempt: upstream.runAttempt ?? 1 },
      verify: true,
    };
    const links = upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl };
    if (found.kind === "ledger" && needsProvenance(found.ledger, upstream)) {
      const refusal = await reverifyProvenance(ctx, target, about, { owner, repo });
      if (refusal !== null) {
        const { conclusion, title, summary } = refusal;
        await checks.complete(target.id, {
          conclusion,
          title,
          summary,
          annotations: [],
          actions: [],
          key,
          ...links,
          last: true,
        });
        return {
          outcome: `completed:${conclusion}`,
          detail: `check run ${target.id}: Re-verify run ${upstream.runId}: ${refusal.reason}`,
        };
      }
    }
    const done = await ledgerCompletion({ found, upstream: about, octokit: ctx.octokit, owner, repo });
    await checks.complete(target.id, { ...done, key, ...links, last: true });
    return {
      outcome: `completed:${done.conclusion}`,
      detail: `check run ${target.id}: Re-verify run ${upstream.runId}`,
    };
  });
}

/**
 * The provenance rule of the `pull_request` path (`checkRunProvenance`, `provenanceRefusal`) for a Re-verify
 * run: on the check run's pull request (recorded, else the open one whose head is its commit) as GitHub shows
 * it now, so the run is judged as that pull request's run of its head. `null` when the run may be posted.
 */
async function reverifyProvenance(
  ctx: HandlerContext,
  target: AppCheckRun,
  about: WorkflowRunEvent,
  o: { readonly owner: string; readonly repo: string },
): Promise<ProvenanceRefusal | null> {
  const number = target.key?.pullRequest ?? (await openPullRequestAt(ctx, o, target.headSha)) ?? null;
  let view: WorkflowRunEvent = { ...about, pullRequests: [] };
  if (number !== null) {
    try {
      const { data } = await ctx.octokit.rest.pulls.get({ ...o, pull_number: number });
      view = asPullRequestRun(about, data, { full_name: `${o.owner}/${o.repo}` });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  return provenanceRefusal(await checkRunProvenance({ octokit: ctx.octokit, ...o, upstream: view }), {
    upstream: view,
    provenance: provenanceOf(view),
    permissions: APP_PERMISSIONS,
  });
}
