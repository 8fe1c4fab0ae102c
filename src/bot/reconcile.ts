/**
 * The reconcile sweep (SPEC §2 "Across deliveries"): the App's own `queued` / `in_progress` check runs older
 * than `RECONCILE_AFTER` are settled from the workflow run's real state, so a check run whose delivery was
 * lost — a replica killed mid-delivery, a `202` whose work died, an event GitHub never sent — does not stay
 * open. GitHub's state is the record; nothing is kept between sweeps.
 *
 * Where it looks: every repository of every installation (`GET /app/installations`,
 * `GET /installation/repositories`), the heads of its open pull requests (`GET /repos/{o}/{r}/pulls`), the
 * App's check runs named `CHECK_NAME` on each head (`GET …/commits/{sha}/check-runs`, `app_id`). For each one
 * not completed and started before the bound:
 *
 * - it records a workflow run (`external_id`, `check-key.ts`): `GET …/actions/runs/{id}`. Completed → the
 *   `workflow_run.completed` handler runs on that run exactly as for the event (ledger read, verdict, the
 *   handler's own ordering by attempt); still running → nothing; `404` → the check run completes `failure`
 *   saying the run is gone;
 * - it records none (only the `pull_request` delivery arrived): the newest `pull_request` run of
 *   `WORKFLOW_FILE` on that head (`GET …/actions/workflows/{file}/runs?head_sha=…`), handled as its event would be
 *   (`in_progress` or `completed`); no run at all → left alone;
 * - it awaits a resume (a writer's Approve / Reject, `:resume=<run id>`): the newest `workflow_dispatch` run
 *   of `RESUME_WORKFLOW_FILE` whose `run-name` names that run id and the head (`GET …/actions/workflows/
 *   {file}/runs?event=workflow_dispatch`, every page back to the check run's `started_at`). Completed → its
 *   completion handler (`resume-run-handler.ts`); running → nothing; none yet → still pending until
 *   {@link lostDispatchAfterMs} has passed since the check run started; none after that — the click's dispatch never produced a run (the process died between recording the click and
 *   dispatching, or the dispatch was lost) — the check run stops awaiting it and is settled from the leg that
 *   paused (its recorded workflow run, as above): the run still waits at its gate, so the check run shows the
 *   gate's buttons again;
 * - it awaits a Re-verify (`:verify`, no run recorded yet): the newest `workflow_dispatch` run of
 *   `WORKFLOW_FILE` whose `run-name` names the head (`evidence-gate verify <sha>`). Completed → its
 *   completion handler (`reverify.ts`); running → nothing; none within {@link lostDispatchAfterMs} → nothing;
 *   none after it — the click's dispatch never produced a run —
 *   the check run completes `failure` "Re-verify never ran", with the Re-verify button to try again (never
 *   settled from the head's earlier full run, whose verdict it took over from);
 * - it is not the commit's check run (a lower id, not taken over, is) and records no newer workflow run
 *   attempt than that one: a race's duplicate whose replica died before renaming it, or whose rename failed →
 *   renamed `<name> (duplicate)` and completed `skipped` ({@link AppCheckRuns.retire}); a Re-verify's check run
 *   (`:verify`) or one awaiting a resume is never taken for one.
 *
 * Safe from any number of replicas at once: each write is one a delivery of the same event would make, the
 * handlers only move a check run forward for a given run and attempt, and two replicas settling the same
 * check run at the same moment write the same completion. A transient API failure ends the sweep for that
 * repository (logged); the next sweep tries again.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { statusOf } from "../github/base-ref-file.js";
import type { GateOctokit } from "../github/octokit.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { AppCheckRuns } from "./app-check-runs.js";
import type { BotApp } from "./bot-app.js";
import { type CheckKey, compareAttempt, parseCheckKey, type RunAttempt } from "./check-key.js";
import type { BotConfig } from "./config.js";
import type { BotLog } from "./delivery-log.js";
import type { HandlerContext } from "./handler.js";
import { resumeNamedBy } from "./resume-run-handler.js";
import { verifiedBy } from "./reverify.js";
import { onWorkflowRun } from "./workflow-run-handler.js";

/** What one sweep did (counts). */
export interface ReconcileSweep {
  readonly repositories: number;
  /** Open check runs older than the bound. */
  readonly open: number;
  /** Settled from a completed workflow run (or moved to `in_progress` from a running one). */
  readonly settled: number;
  /** Completed `failure` because their workflow run is gone. */
  readonly gone: number;
  /** Duplicates a race left open (their replica died before renaming them): renamed and skipped. */
  readonly duplicates: number;
  /** Left open: their run still runs, awaits a resume, or none exists. */
  readonly left: number;
  /** Repositories whose sweep failed, and check runs that could not be settled (API errors; logged). */
  readonly failed: number;
}

interface WorkflowRunBody {
  readonly id: number;
  readonly status: string | null;
  readonly path: string;
  readonly event: string;
  readonly repository: unknown;
  readonly display_title?: string;
  readonly created_at?: string;
}

/**
 * How long after its check run started a dispatch the App made (a Re-verify, a resume) may still show no run
 * before the sweep takes it as lost: two `RECONCILE_AFTER`s (default 30 minutes). GitHub lists a run as soon
 * as it accepts the dispatch; the margin covers a listing that lags, so a run that exists is never taken for
 * a lost one (and then its real result dropped as stale).
 */
export function lostDispatchAfterMs(config: Pick<BotConfig, "reconcileAfterMs">): number {
  return 2 * config.reconcileAfterMs;
}

/** The run of `runs` with the highest id (GitHub's newest), if any. */
function newestOf<T extends { readonly id: number }>(runs: readonly T[]): T | undefined {
  return [...runs].sort((a, b) => b.id - a.id)[0];
}

/**
 * One sweep over every installation's repositories.
 * @param now the clock (tests); a check run is open "too long" when `started_at` < now − `reconcileAfterMs`.
 */
export async function reconcileOpenCheckRuns(
  bot: Pick<BotApp, "app">,
  config: BotConfig,
  log: BotLog,
  now: () => Date = () => new Date(),
): Promise<ReconcileSweep> {
  const counts = { repositories: 0, open: 0, settled: 0, gone: 0, duplicates: 0, left: 0, failed: 0 };
  const scale = (config.timing.retryBaseMs ?? 1000) / 1000;
  for await (const { octokit: client, repository, installation } of reconcileTargets(bot)) {
    counts.repositories += 1;
    const octokit = client as unknown as GateOctokit;
    const owner = repository.owner.login;
    const repo = repository.name;
    try {
      const cutoff = now().getTime() - config.reconcileAfterMs;
      const pulls = await octokit.paginate(octokit.rest.pulls.list, {
        owner,
        repo,
        state: "open",
        per_page: 100,
      });
      const heads = [...new Set(pulls.map((p) => p.head.sha.toLowerCase()))];
      const checks = new AppCheckRuns({ octokit, owner, repo, appId: config.appId, name: config.checkName });
      for (const sha of heads) {
        const { data } = await octokit.rest.checks.listForRef({
          owner,
          repo,
          ref: sha,
          check_name: config.checkName,
          app_id: config.appId,
          filter: "all",
          per_page: 100,
        });
        const stuck = data.check_runs.filter(
          (c) =>
            c.name === config.checkName &&
            c.app?.id === config.appId &&
            c.status !== "completed" &&
            Date.parse(c.started_at ?? "") < cutoff,
        );
        // The commit's check run: the lowest id not taken over by a later one (`AppCheckRuns`' rule).
        const live = data.check_runs
          .filter(
            (c) =>
              c.name === config.checkName &&
              c.app?.id === config.appId &&
              parseCheckKey(c.external_id)?.next !== true,
          )
          .sort((a, b) => a.id - b.id);
        for (const check of stuck) {
          counts.open += 1;
          try {
            const key = parseCheckKey(check.external_id);
            const ctx: HandlerContext = {
              config,
              octokit,
              // Its completions are marked as a delivery's are (`app-check-runs.ts`).
              deliveryId: `reconcile-${check.id}`,
              sleep: (ms) => sleep(Math.round(ms * scale)),
            };
            const settle = async (run: WorkflowRunBody): Promise<string> => {
              const action = run.status === "completed" ? "completed" : "in_progress";
              const result = await onWorkflowRun(ctx, {
                action,
                workflow_run: run,
                // A run's own `repository` (the REST API's minimal one) may lack `default_branch`, which a
                // Re-verify run is checked against: the installation's listing has it.
                repository: { default_branch: repository.default_branch, ...(run.repository as object) },
                installation: { id: installation.id },
              });
              return result.outcome;
            };
            /**
             * The runs of workflow file `file` (`GET …/actions/workflows/{file}/runs`, newest first) matching
             * `query` (`event`, `head_sha`): every page, down to the first run created before this check run
             * started (no dispatch for it is older). The `created` filter's `>=` range syntax is not in
             * GitHub's OpenAPI description (it says `date-time`), so the pages are cut here instead.
             */
            const runsOf = async (file: string, query: { event: string; head_sha?: string }) => {
              const since = query.head_sha === undefined ? Date.parse(check.started_at ?? "") : Number.NaN;
              return (await octokit.paginate(
                octokit.rest.actions.listWorkflowRuns,
                { owner, repo, workflow_id: file, ...query, per_page: 100 },
                (response, done) => {
                  const runs = response.data as unknown as WorkflowRunBody[];
                  if (runs.some((r) => Date.parse(r.created_at ?? "") < since)) done();
                  return runs.filter((r) => !(Date.parse(r.created_at ?? "") < since));
                },
              )) as WorkflowRunBody[];
            };
            /** The newest `workflow_dispatch` run of `file` since the check run started whose `run-name` `names` accepts. */
            const dispatched = async (file: string, names: (title: string | null) => boolean) =>
              newestOf(
                (await runsOf(file, { event: "workflow_dispatch" })).filter((r) =>
                  names(r.display_title ?? null),
                ),
              );
            // A dispatch that shows no run yet is still pending until this bound has passed (`lostDispatchAfterMs`).
            const dispatchPending =
              Date.parse(check.started_at ?? "") > now().getTime() - lostDispatchAfterMs(config);
            /** The recorded workflow run settled as GitHub shows it now: completed, running, or gone (404). */
            const fromRecordedRun = async (run: RunAttempt, k: CheckKey): Promise<string> => {
              let body: WorkflowRunBody | null = null;
              try {
                body = (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: run.id }))
                  .data as unknown as WorkflowRunBody;
              } catch (error) {
                if (statusOf(error) !== 404) throw error;
              }
              if (body === null) {
                await checks.complete(check.id, {
                  conclusion: "failure",
                  key: k,
                  title: `Workflow run ${run.id} is gone`,
                  summary: `This check run waited for [workflow run ${run.id}](${check.details_url ?? ""}) (attempt ${run.attempt}), which GitHub no longer has (deleted, or its repository's history was rewritten). No ledger can be read, so this check is not a verdict: push a commit or re-run the workflow to get one.`,
                });
                return "gone";
              }
              return body.status === "completed" ? settle(body) : "left:running";
            };
            let outcome: string;
            const kept = live[0];
            if (key?.resume) {
              const awaited = key.resume;
              const resume = await dispatched(config.resumeWorkflowFile, (title) => {
                const named = resumeNamedBy(title);
                return named?.runId === awaited && named.headSha === sha;
              });
              if (resume !== undefined) {
                outcome = resume.status === "completed" ? await settle(resume) : "left:resume-running";
              } else if (key.run === null || dispatchPending) {
                outcome = "left:awaits-resume";
              } else {
                // The click's dispatch never produced a run: the leg that paused is the real state.
                const leg = { ...key, resume: null };
                await checks.record(check.id, leg);
                const settled = await fromRecordedRun(key.run, leg);
                outcome = settled === "gone" ? "gone" : `lost-click:${settled}`;
              }
            } else if (
              kept !== undefined &&
              kept.id < check.id &&
              key?.verify !== true &&
              (!key?.run || compareAttempt(key.run, parseCheckKey(kept.external_id)) !== "newer")
            ) {
              // A duplicate whose renaming never happened (its replica died between the create and the
              // rename, or the rename failed): it records nothing newer than the commit's check run, and no
              // delivery will ever move it — lookups find the other one.
              await checks.retire(check.id, kept.id);
              outcome = "duplicate";
            } else if (key?.verify === true && key.run === null) {
              const verify = await dispatched(config.workflowFile, (title) => verifiedBy(title) === sha);
              if (verify !== undefined) {
                outcome = verify.status === "completed" ? await settle(verify) : "left:verify-running";
              } else if (dispatchPending) {
                outcome = "left:verify-pending";
              } else {
                await checks.complete(check.id, {
                  conclusion: "failure",
                  key,
                  title: "evidence-gate: Re-verify never ran",
                  summary: `## ❌ Re-verify never ran\n\nA writer's Re-verify queued this check run on \`${sha}\`, but no run of ${escapeInline(config.workflowFile)} named \`evidence-gate verify ${sha}\` exists ${Math.round(lostDispatchAfterMs(config) / 60_000)} minutes later: the dispatch was lost. Nothing was verified, so this check is not a verdict; click Re-verify again.`,
                });
                outcome = "lost-click:completed:failure";
              }
            } else if (key?.run) {
              outcome = await fromRecordedRun(key.run, key);
            } else {
              const run = newestOf(
                await runsOf(config.workflowFile, { event: "pull_request", head_sha: sha }),
              );
              outcome = run === undefined ? "left:no-run" : await settle(run);
            }
            if (outcome === "gone") counts.gone += 1;
            else if (outcome === "duplicate") counts.duplicates += 1;
            else if (outcome.startsWith("left:")) counts.left += 1;
            else counts.settled += 1;
            log.note("reconcile-check", {
              repository: `${owner}/${repo}`,
              checkRun: check.id,
              headSha: sha,
              was: check.status,
              outcome,
            });
          } catch (error) {
            // One check run that cannot be settled now (an API error on its run) leaves the others to be.
            counts.failed += 1;
            log.note("reconcile-check", {
              repository: `${owner}/${repo}`,
              checkRun: check.id,
              headSha: sha,
              error: error instanceof Error ? error.message : String(error),
            });
          }
        }
      }
    } catch (error) {
      counts.failed += 1;
      log.note("reconcile-check", {
        repository: `${owner}/${repo}`,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return counts;
}

/** Every repository of every installation, with that installation's client (`@octokit/app`'s iterator). */
function reconcileTargets(bot: Pick<BotApp, "app">): AsyncIterable<{
  readonly octokit: unknown;
  readonly repository: {
    readonly name: string;
    readonly owner: { readonly login: string };
    readonly default_branch?: string;
  };
  readonly installation: { readonly id: number };
}> {
  const app = bot.app as unknown as {
    eachInstallation: {
      iterator(): AsyncIterable<{ octokit: unknown; installation: { id: number } }>;
    };
  };
  return (async function* () {
    for await (const { octokit, installation } of app.eachInstallation.iterator()) {
      const o = octokit as unknown as GateOctokit;
      for await (const page of o.paginate.iterator(o.rest.apps.listReposAccessibleToInstallation, {
        per_page: 100,
      })) {
        for (const repository of page.data as unknown as { name: string; owner: { login: string } }[]) {
          yield { octokit, repository, installation };
        }
      }
    }
  })();
}
