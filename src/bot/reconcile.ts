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
 *   `WORKFLOW_FILE` on that head (`GET …/actions/runs?head_sha=…`), handled as its event would be
 *   (`in_progress` or `completed`); no run at all → left alone;
 * - it awaits a resume (the buttons dispatched one) → left alone (the resume workflow's completion settles it);
 * - it is not the commit's check run (a lower id, not taken over, is) and records no newer workflow run
 *   attempt than that one: a race's duplicate whose replica died before renaming it, or whose rename failed →
 *   renamed `<name> (duplicate)` and completed `skipped` ({@link AppCheckRuns.retire}); a Re-verify's check run
 *   (`:verify`) is never taken for one.
 *
 * Safe from any number of replicas at once: each write is one a delivery of the same event would make, the
 * handlers only move a check run forward for a given run and attempt, and two replicas settling the same
 * check run at the same moment write the same completion. A transient API failure ends the sweep for that
 * repository (logged); the next sweep tries again.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { GateOctokit } from "../github/octokit.js";
import { AppCheckRuns } from "./app-check-runs.js";
import type { BotApp } from "./bot-app.js";
import { compareAttempt, parseCheckKey } from "./check-key.js";
import type { BotConfig } from "./config.js";
import type { BotLog } from "./delivery-log.js";
import type { HandlerContext } from "./handler.js";
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
  /**
   * Renamed `<name> (duplicate)` and completed `skipped`: a later open check run on a head whose check run is
   * another (a race's loser never renamed), recording no newer workflow run attempt than that one.
   */
  readonly duplicates: number;
  /** Left open: their run still runs, awaits a resume, or none exists. */
  readonly left: number;
  /** Repositories whose sweep failed (API errors; logged). */
  readonly failed: number;
}

interface WorkflowRunBody {
  readonly id: number;
  readonly status: string | null;
  readonly path: string;
  readonly event: string;
  readonly repository: unknown;
}

function statusOf(error: unknown): number | null {
  const status = (error as { status?: unknown }).status;
  return typeof status === "number" ? status : null;
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
          const key = parseCheckKey(check.external_id);
          const ctx: HandlerContext = {
            config,
            octokit,
            deliveryId: `reconcile:${check.id}`,
            sleep: (ms) => sleep(Math.round(ms * scale)),
          };
          const settle = async (run: WorkflowRunBody): Promise<string> => {
            const action = run.status === "completed" ? "completed" : "in_progress";
            const result = await onWorkflowRun(ctx, {
              action,
              workflow_run: run,
              repository: run.repository,
              installation: { id: installation.id },
            });
            return result.outcome;
          };
          let outcome: string;
          const kept = live[0];
          if (key?.resume) {
            outcome = "left:awaits-resume";
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
          } else if (key?.run) {
            let run: WorkflowRunBody | null = null;
            try {
              run = (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: key.run.id }))
                .data as unknown as WorkflowRunBody;
            } catch (error) {
              if (statusOf(error) !== 404) throw error;
            }
            if (run === null) {
              await checks.complete(check.id, {
                conclusion: "failure",
                key,
                title: `Workflow run ${key.run.id} is gone`,
                summary: `This check run waited for [workflow run ${key.run.id}](${check.details_url ?? ""}) (attempt ${key.run.attempt}), which GitHub no longer has (deleted, or its repository's history was rewritten). No ledger can be read, so this check is not a verdict: push a commit or re-run the workflow to get one.`,
              });
              outcome = "gone";
            } else if (run.status === "completed") {
              outcome = await settle(run);
            } else {
              outcome = "left:running";
            }
          } else {
            const { data: listed } = await octokit.rest.actions.listWorkflowRunsForRepo({
              owner,
              repo,
              head_sha: sha,
              event: "pull_request",
              per_page: 100,
            });
            const runs = (listed.workflow_runs as unknown as WorkflowRunBody[])
              .filter((r) => r.path === `.github/workflows/${config.workflowFile}`)
              .sort((a, b) => b.id - a.id);
            outcome = runs[0] === undefined ? "left:no-run" : await settle(runs[0]);
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
  readonly repository: { readonly name: string; readonly owner: { readonly login: string } };
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
