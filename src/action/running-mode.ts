/**
 * What every mode that runs nodes (`auto`, `run`, `resume`) does the same way (SPEC §6, §9, §10): where
 * the run directories go on the runner, how its check run is reported and recorded for the post step, what
 * it passes the engine besides its own options, and how it reports the end — finished, or before any node
 * ran.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { CheckRunClient, type CheckRunRef } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import type { GateOctokit } from "../github/octokit.js";
import type { RunEnd } from "../ledger/conclusion.js";
import { createRedactor } from "../ledger/redact.js";
import { ClaudeSetup } from "./claude-setup.js";
import type { ActionInputs } from "./inputs.js";
import { progressHooks } from "./progress-hooks.js";
import { type FinishedRun, reportFinished } from "./report-finished.js";
import { SAVED_STATE } from "./state.js";
import { type Env, endEarly } from "./step-result.js";

/** A mode's run once its check run has a reporter: what it runs with and reports through. */
export interface RunningMode {
  readonly env: Env;
  readonly signal?: AbortSignal;
  readonly inputs: ActionInputs;
  readonly reporter: CheckRunReporter;
  readonly runId: string;
  /** `GITHUB_WORKSPACE`: the checkout. */
  readonly workspace: string;
  /** `RUNNER_TEMP`. */
  readonly temp: string;
  /** `<RUNNER_TEMP>/evidence-gate/runs`: run directories. */
  readonly runsDir: string;
  readonly secrets: readonly string[];
  /** Notes for the summaries (the PR's ignored copy of the policy file, say). */
  readonly notes: readonly string[];
}

/** The checkout, `RUNNER_TEMP` and the run directories' folder under it (created). */
export function runnerFolders(env: Env): Pick<RunningMode, "workspace" | "temp" | "runsDir"> {
  const workspace = resolve(env.GITHUB_WORKSPACE ?? process.cwd());
  const temp = env.RUNNER_TEMP ?? join(workspace, ".evidence-gate-tmp");
  const runsDir = join(temp, "evidence-gate", "runs");
  mkdirSync(runsDir, { recursive: true });
  return { workspace, temp, runsDir };
}

/**
 * The check run's client and reporter on `headSha`, linked to the workflow run. A failed progress update
 * is a warning and the run goes on (the final completion still must succeed); every completion the API
 * accepted is saved for the post step, which then leaves the check run alone.
 */
export function checkRunReporter(o: {
  readonly octokit: GateOctokit;
  readonly owner: string;
  readonly repo: string;
  readonly secrets: readonly string[];
  readonly name: string;
  readonly headSha: string;
  readonly detailsUrl: string;
}): { readonly client: CheckRunClient; readonly reporter: CheckRunReporter } {
  const client = new CheckRunClient({
    octokit: o.octokit,
    owner: o.owner,
    repo: o.repo,
    warn: (m) => core.warning(m),
    redact: createRedactor(o.secrets).text,
  });
  const reporter = new CheckRunReporter({
    client,
    name: o.name,
    headSha: o.headSha,
    detailsUrl: o.detailsUrl,
    onProgressError: (error) =>
      core.warning(
        `could not update the check run with progress: ${error instanceof Error ? error.message : String(error)}`,
      ),
    onCompleted: () => core.saveState(SAVED_STATE.checkRunCompleted, "true"),
  });
  return { client, reporter };
}

/** The check run this step now reports on: saved for the post step, and set as the step's outputs. */
export function saveCheckRun(ref: CheckRunRef, runId: string): void {
  core.saveState(SAVED_STATE.checkRunId, String(ref.id));
  core.saveState(SAVED_STATE.runId, runId);
  core.setOutput("check-run-id", String(ref.id));
  if (ref.htmlUrl) core.setOutput("check-run-url", ref.htmlUrl);
}

/**
 * The engine options every mode passes alike — no commit, the action's surface, the `claude` found or
 * installed just before the first model call, each CLI's environment and the fenced echo, the log lines
 * and check-run progress — with the mode's `own` options over them.
 */
export function engineOptions<T extends object>(run: RunningMode, own: T) {
  const claude = new ClaudeSetup(run);
  return {
    runsDir: run.runsDir,
    commit: false,
    surface: "action" as const,
    // Read when the engine spawns, after `beforeFirstModelCall` found or installed the CLI.
    get claudeExecutable(): string {
      return claude.executable;
    },
    // The engine calls it after its own checks (a refused run installs nothing).
    beforeFirstModelCall: claude.beforeFirstModelCall,
    // Each CLI gets a fresh HOME (SPEC §9): the operator's configuration in CI is the base branch's only.
    modelEnv: claude.modelEnv,
    baseEnv: run.env,
    knownSecrets: run.secrets,
    echo: claude.echo,
    ...(run.signal ? { signal: run.signal } : {}),
    hooks: progressHooks(run.reporter),
    ...own,
  };
}

/** A finished run, reported ({@link reportFinished}) with the run's notes, or `notes`. */
export function reportRun(run: RunningMode, finished: FinishedRun, notes = run.notes): Promise<void> {
  return reportFinished({
    finished,
    runId: run.runId,
    reporter: run.reporter,
    checkName: run.inputs.checkName,
    env: run.env,
    temp: run.temp,
    secrets: run.secrets,
    notes,
    workspace: run.workspace,
  });
}

/** A run that ended before any node ran ({@link endEarly}), with the run's notes, or `notes`. */
export function endRun(
  run: RunningMode,
  end: Extract<RunEnd, { readonly message: string }>,
  notes = run.notes,
): Promise<void> {
  return endEarly(run.reporter, end, end.message, run.env, notes);
}
