/**
 * "Re-run" on the App's check run (SPEC §2.3): `check_run.rerequested`, and `check_suite.rerequested` ("Re-run
 * all checks") for the App's suite, re-run the workflow run the check run records in its `external_id`
 * (`POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun`,
 * https://docs.github.com/rest/actions/workflow-runs#re-run-a-workflow). GitHub sends these events only to
 * the App that created the check run — which is why a `GITHUB_TOKEN` check run's Re-run cannot do this.
 *
 * The person who clicked must have write access (asked of GitHub, never taken from the event). The re-run
 * keeps the run's own trigger (`pull_request`): a fork's run gets a fork's token and no secrets again.
 * A check run that records no workflow run, or whose run GitHub cannot re-run (gone, too old), is completed
 * `failure` saying so.
 *
 * Idempotent (issue 23 item 1): only the head's current check run, once completed, can be re-run. The re-run
 * gets a fresh check run, `queued`, recording the next attempt (GitHub's "requesting a new check run"); the
 * clicked one stays as it completed and is marked `:next` (`AppCheckRuns.replace`). So a repeated Re-run of the
 * same attempt — a second click, a redelivery — names a check run that is no longer current, or one still
 * queued or running, and does nothing: no 403 from GitHub turned into a verdict, no extra re-run that costs a
 * model's spend. Two copies of one click worked at the same moment on two replicas both find the clicked check
 * run current; GitHub's attempt counter settles them (`GET …/actions/runs/{id}`, before the re-run and after a
 * refusal): a run already past the attempt the check run records was re-run by the other copy (`stale`).
 */
import { z } from "zod";
import { accessWords, checkWriter } from "../github/writer-check.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { type AppCheckRun, AppCheckRuns } from "./app-check-runs.js";
import { alreadyDone, type HandlerContext, type HandlerResult, parsePayload } from "./handler.js";
import { commitSha, repositoryPart, senderPart } from "./payload-parts.js";

const checkRunSchema = z.object({
  check_run: z.object({
    id: z.number().int().positive(),
    name: z.string(),
    head_sha: commitSha,
    app: z.object({ id: z.number().int() }),
  }),
  repository: repositoryPart,
  sender: senderPart,
});

const checkSuiteSchema = z.object({
  check_suite: z.object({ head_sha: commitSha, app: z.object({ id: z.number().int() }) }),
  repository: repositoryPart,
  sender: senderPart,
});

/** The App's check runs named `CHECK_NAME` on `repository`, through the installation client. */
export function checksOf(ctx: HandlerContext, repository: z.infer<typeof repositoryPart>): AppCheckRuns {
  return new AppCheckRuns({
    octokit: ctx.octokit,
    owner: repository.owner.login,
    repo: repository.name,
    appId: ctx.config.appId,
    name: ctx.config.checkName,
    delivery: ctx.deliveryId,
  });
}

/** `check_run.rerequested`. */
export async function onCheckRunRerequested(ctx: HandlerContext, payload: unknown): Promise<HandlerResult> {
  const event = parsePayload("check_run", checkRunSchema, payload);
  if (event.check_run.app.id !== ctx.config.appId || event.check_run.name !== ctx.config.checkName) {
    return {
      outcome: "ignored",
      detail: `check run ${event.check_run.id} is not this App's "${ctx.config.checkName}"`,
    };
  }
  const checks = checksOf(ctx, event.repository);
  const run = await checks.get(event.check_run.id);
  return rerun(ctx, checks, run, event);
}

/** `check_suite.rerequested`: the App's check run on the suite's head commit is re-run. */
export async function onCheckSuiteRerequested(ctx: HandlerContext, payload: unknown): Promise<HandlerResult> {
  const event = parsePayload("check_suite", checkSuiteSchema, payload);
  if (event.check_suite.app.id !== ctx.config.appId) {
    return { outcome: "ignored", detail: "the check suite is another app's" };
  }
  const checks = checksOf(ctx, event.repository);
  const run = await checks.find(event.check_suite.head_sha);
  if (run === undefined) {
    return {
      outcome: "ignored",
      detail: `no "${ctx.config.checkName}" check run on ${event.check_suite.head_sha.slice(0, 7)}`,
    };
  }
  return rerun(ctx, checks, run, event);
}

async function rerun(
  ctx: HandlerContext,
  checks: AppCheckRuns,
  check: AppCheckRun,
  event: { readonly repository: z.infer<typeof repositoryPart>; readonly sender: z.infer<typeof senderPart> },
): Promise<HandlerResult> {
  if (checks.doneHere(check)) return alreadyDone(check);
  const owner = event.repository.owner.login;
  const repo = event.repository.name;
  const login = event.sender.login;
  const access = await checkWriter(ctx.octokit, { owner, repo, login });
  if (!access.isWriter) {
    return {
      outcome: "refused",
      detail: `${login} has ${accessWords(access.permission)}; a re-run needs write`,
    };
  }
  const current = await checks.find(check.headSha);
  if (current?.id !== check.id || check.key?.next === true) {
    return {
      outcome: "stale",
      detail: `check run ${check.id} was already re-run${current === undefined ? "" : `: check run ${current.id} is current`}`,
    };
  }
  if (check.status !== "completed") {
    return { outcome: "stale", detail: `check run ${check.id} is ${check.status}: its run is not over` };
  }
  const own = check.key ?? { pullRequest: null, run: null };
  // Re-run is the full run (docs/bot.md): on a Re-verify's check run (`:verify`, whose run is the model-free
  // verify dispatch, or none when it never ran) it re-runs the head's newest full run of the workflow.
  const full = own.verify === true ? await fullRunOf(ctx, owner, repo, check.headSha) : undefined;
  const key = own.verify === true ? { pullRequest: own.pullRequest, run: full ?? null } : own;
  const recorded = key.run;
  const fail = async (title: string, reason: string): Promise<HandlerResult> => {
    await checks.complete(check.id, {
      conclusion: "failure",
      key: own,
      title: `evidence-gate: ${title}`,
      summary: `## ❌ ${escapeInline(title)}\n\n${escapeInline(reason)}\n\nNothing was re-run. Push a commit, or re-run the workflow from the Actions tab, to get a new verdict.`,
      last: true,
    });
    return { outcome: "completed:failure", detail: title };
  };
  if (recorded === null) {
    return fail(
      "no workflow run to re-run",
      `Check run ${check.id} records no workflow run (${check.externalId ?? "no external id"}): the workflow never reported to it.`,
    );
  }
  // Another copy of this click (a duplicate delivery on another replica, worked at the same moment) may have
  // re-run the run already — GitHub's attempt counter is the record: a run past the attempt this check run
  // records was re-run, and re-running it again would cost a model's spend (before) or get GitHub's 403
  // "already running", which is no verdict (after).
  const movedOn = async (): Promise<HandlerResult | null> => {
    const attempt = await runAttempt(ctx, owner, repo, recorded.id);
    if (attempt === null || attempt <= recorded.attempt) return null;
    return {
      outcome: "stale",
      detail: `workflow run ${recorded.id} is at attempt ${attempt} already; check run ${check.id} records attempt ${recorded.attempt}`,
    };
  };
  const before = await movedOn();
  if (before !== null) return before;
  try {
    await ctx.octokit.rest.actions.reRunWorkflow({ owner, repo, run_id: recorded.id });
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status !== "number" || status >= 500) throw error;
    const after = await movedOn();
    if (after !== null) return after;
    const said = (error as { response?: { data?: { message?: unknown } } }).response?.data?.message;
    return fail(
      `workflow run ${recorded.id} cannot be re-run`,
      `GitHub answered ${status}${typeof said === "string" ? ` "${said}"` : ""} to re-running workflow run ${recorded.id} (it was deleted, or is too old to re-run).`,
    );
  }
  const made = await checks.replace(check, {
    status: "queued",
    key: { pullRequest: key.pullRequest, run: { id: recorded.id, attempt: recorded.attempt + 1 } },
    output: {
      title: `Re-run of workflow run ${recorded.id} requested`,
      summary: `${escapeInline(login)} asked for a re-run: workflow run ${recorded.id} runs again (attempt ${recorded.attempt + 1}). This check run completes with that attempt's ledger.`,
    },
    last: true,
  });
  return {
    outcome: "rerun",
    detail: `workflow run ${recorded.id} re-run by ${login}; check run ${made.run.id} follows it`,
  };
}

/**
 * The newest `pull_request` run of the App's workflow on `headSha` (the head's full run), as the run and
 * attempt a check run records, or `undefined` when there is none.
 */
async function fullRunOf(
  ctx: HandlerContext,
  owner: string,
  repo: string,
  headSha: string,
): Promise<{ readonly id: number; readonly attempt: number } | undefined> {
  const { data } = await ctx.octokit.rest.actions.listWorkflowRunsForRepo({
    owner,
    repo,
    head_sha: headSha,
    event: "pull_request",
    per_page: 100,
  });
  const newest = data.workflow_runs
    .filter((r) => r.path === `.github/workflows/${ctx.config.workflowFile}`)
    .sort((a, b) => b.id - a.id)[0];
  return newest === undefined ? undefined : { id: newest.id, attempt: newest.run_attempt ?? 1 };
}

/**
 * Workflow run `runId`'s `run_attempt` as GitHub shows it now (`GET …/actions/runs/{id}`), or `null` when
 * GitHub answers 4xx (the run is gone or not readable: the re-run request then says what GitHub thinks).
 * @throws a 5xx or no answer, after Octokit's retries (the delivery fails and is redelivered).
 */
async function runAttempt(
  ctx: HandlerContext,
  owner: string,
  repo: string,
  runId: number,
): Promise<number | null> {
  try {
    const { data } = await ctx.octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId });
    return data.run_attempt ?? 1;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status < 500) return null;
    throw error;
  }
}
