/**
 * `mode: resume` (SPEC §4, §11): one more leg of a paused or failed run, started by a person through a
 * `workflow_dispatch` (dispatching needs write access to the repository; the approver recorded is the
 * dispatching user, `GITHUB_ACTOR` — or input `approver` when the evidence-gate App dispatched it for a
 * writer's click, the App being the actor then; the row names both). With `report-to: bot` the leg posts no
 * check run: the App completes its own from this run's ledger artifact.
 *
 * 1. The run directory comes from the earlier workflow run's artifact `evidence-gate-run-<run id>`
 *    (newest usable one, same-repository runs only, size-bounded, digest-checked, extracted without
 *    trusting the zip) into `RUNNER_TEMP`.
 * 2. The check run is the one the run posted, found by name on the PR head (the artifact's workflow run's
 *    head commit) and carrying the run id; it is taken over only once the engine has accepted the decision
 *    and the leg starts, so a mistaken dispatch (wrong gate, nothing to retry) leaves it as it was and only
 *    fails this step.
 * 3. `resumeRun` runs the leg on the current checkout (the state's repository path is replaced by it: the
 *    run may have started on another runner) — its verify commands and model CLIs as the separate user
 *    where it can be set up (input `isolate-user`, `isolation-scope.ts`, as the pull-request modes) — and
 *    the result is reported like any run, the run directory uploaded again for a later leg.
 */

import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { unreachable } from "../core/unreachable.js";
import { IGNORED_BASELINE_FILE } from "../engine/graph-run.js";
import type { ResumeAction } from "../engine/resume-run.js";
import { readRunState } from "../engine/run-state.js";
import { runArtifactName } from "../github/artifact.js";
import { extractArtifactZip, UnsafeArchiveError } from "../github/artifact-zip.js";
import type { CheckRunClient, CheckRunRef } from "../github/check-run.js";
import { readEventContext } from "../github/event-context.js";
import { type GateOctokit, octokitFromEnv } from "../github/octokit.js";
import {
  downloadRunArtifact,
  findRunArtifact,
  type RunArtifact,
  RunArtifactError,
} from "../github/run-artifact-download.js";
import { readRunStateDigests, runStateDigestProblem } from "../github/run-state-digest.js";
import type { ModelCalls, RunProxy } from "../run/model-cli.js";
import { recordedRuntime } from "../run/model-proxy.js";
import { startRun } from "../run/start-run.js";
import { type ActionInputs, describeMode, type ModeInputs } from "./action-inputs.js";
import { withPrCodeIsolation } from "./isolation-scope.js";
import type { Runner } from "./runner.js";
import {
  actionPorts,
  actionRequestBase,
  botReportsNote,
  checkRunReporter,
  openActionProxy,
  type RunningMode,
  reportRun,
  runnerFolders,
  saveCheckRun,
} from "./running-mode.js";
import { completeAfterCrash, type Env, failWithoutCheckRun, usageFailure } from "./step-result.js";

export interface ResumeModeOptions {
  readonly runner: Runner;
  readonly env: Env;
  readonly signal?: AbortSignal;
  /** The model calls the engine makes (`ActionSeams.modelCalls`); absent: the real CLIs. */
  readonly modelCalls?: ModelCalls;
  readonly inputs: ActionInputs;
  readonly mode: Extract<ModeInputs, { kind: "resume" }>;
  readonly secrets: readonly string[];
}

const SHA = /^[0-9a-f]{40}$/i;

/** Why a run directory could not be used: how the step ends (`failWithoutCheckRun`). */
interface NotResumed {
  readonly kind: "not-resumed";
  readonly outcome: "usage-error" | "failed";
  readonly title: string;
  readonly message: string;
}

const failed = (end: Omit<NotResumed, "kind">): NotResumed => ({ kind: "not-resumed", ...end });

/**
 * The earlier run's directory (SPEC §4, §11): the newest usable artifact `evidence-gate-run-<run id>` of
 * this repository's workflow runs, size-bounded and digest-checked on download, extracted without trusting
 * the zip into `<runsDir>/<run id>`, and holding that run's `state.json`. Returns where it is and the head
 * commit its workflow run was on, or why it cannot be used (nothing ran).
 */
async function fetchRunDirectory(
  o: ResumeModeOptions,
  where: {
    readonly owner: string;
    readonly repo: string;
    readonly octokit: GateOctokit;
    readonly runsDir: string;
  },
): Promise<
  | {
      readonly kind: "fetched";
      readonly artifact: RunArtifact;
      readonly headSha: string;
      readonly runDir: string;
    }
  | NotResumed
> {
  const { mode, runner } = o;
  const { octokit } = where;
  const event = { owner: where.owner, repo: where.repo };
  const name = runArtifactName(mode.runId);

  let artifact: RunArtifact;
  try {
    const found = await findRunArtifact(octokit, { owner: event.owner, repo: event.repo, name });
    if (found.artifact === null) {
      const skipped = found.skipped.length > 0 ? ` Not used: ${found.skipped.join("; ")}.` : "";
      return failed({
        outcome: "usage-error",
        title: `no run directory for run ${mode.runId}`,
        message: `No usable artifact ${name} in ${event.owner}/${event.repo}.${skipped} The run that paused uploads it; check \`resume-run-id\`, and that the artifact has not expired (the repository's artifact retention). Nothing ran.`,
      });
    }
    artifact = found.artifact;
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return failed({
      outcome: artifactOutcome(error),
      title: `run ${mode.runId} could not be found`,
      message: `${error.message} Nothing ran.`,
    });
  }
  const headSha = artifact.headSha;
  if (headSha === null || !SHA.test(headSha)) {
    return failed({
      outcome: "failed",
      title: `run ${mode.runId} names no head commit`,
      message: `Artifact ${name} (id ${artifact.id}) belongs to a workflow run without a head commit (${JSON.stringify(headSha)}): the check run cannot be found. Nothing ran.`,
    });
  }
  runner.info(
    `run ${mode.runId}: artifact ${name} (id ${artifact.id}, ${artifact.sizeInBytes} bytes) of workflow run ${artifact.workflowRunId ?? "?"} on ${headSha.slice(0, 7)}`,
  );

  const runDir = join(where.runsDir, mode.runId);
  try {
    const zip = await downloadRunArtifact({
      octokit,
      owner: event.owner,
      repo: event.repo,
      artifact,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
    });
    // A runner reused without cleaning RUNNER_TEMP may still hold an older copy: the artifact wins.
    if (existsSync(runDir)) rmSync(runDir, { recursive: true, force: true });
    const extracted = await extractArtifactZip(zip, runDir);
    runner.info(`run ${mode.runId}: ${extracted.files} files extracted into ${runDir}`);
    // A lock in a downloaded copy belonged to a process on another runner: meaningless here.
    rmSync(join(runDir, "run.lock"), { force: true });
  } catch (error) {
    if (!(error instanceof RunArtifactError) && !(error instanceof UnsafeArchiveError)) throw error;
    return failed({
      outcome: error instanceof RunArtifactError ? artifactOutcome(error) : "failed",
      title: `the run directory of run ${mode.runId} could not be used`,
      message: `${error instanceof UnsafeArchiveError ? `Artifact ${name} (id ${artifact.id}) was refused: ${error.message}` : error.message} Nothing ran.`,
    });
  }
  const recorded = recordedRunId(runDir);
  if (recorded !== null && recorded !== mode.runId) {
    return failed({
      outcome: "failed",
      title: `artifact ${name} holds another run`,
      message: `Its state.json names run ${JSON.stringify(recorded)}, not ${mode.runId}: refused. Nothing ran.`,
    });
  }

  return { kind: "fetched", artifact, headSha, runDir };
}

/**
 * Whether the run's own check run vouches for the downloaded run directory: the digests of `state.json`,
 * `graph.json` and `ignored-baseline.json` the engine posted on it (hidden in its summary, out of every node's reach — a node runs as
 * this user and could edit the files a later leg reads) must match the files. `null` when they do, else why
 * the leg does not start (nothing ran).
 */
async function vouchedFor(
  client: CheckRunClient,
  o: {
    readonly checkName: string;
    readonly headSha: string;
    readonly runId: string;
    readonly runDir: string;
    readonly name: string;
    readonly artifactId: number;
    readonly log: (line: string) => void;
  },
): Promise<NotResumed | null> {
  let posted: Awaited<ReturnType<CheckRunClient["findCarrying"]>>;
  try {
    // By the run id in the marker, not by `external_id`: the evidence-gate App's check run (`report-to:
    // bot`) records its own key there, and carries the digests from the run's ledger artifact.
    posted = await client.findCarrying({
      name: o.checkName,
      headSha: o.headSha,
      carries: (run) => readRunStateDigests(run.summary, o.runId) !== null,
    });
  } catch (error) {
    return failed({
      outcome: "failed",
      title: `the check run of run ${o.runId} could not be read`,
      message: `${error instanceof Error ? error.message : String(error)} The run directory cannot be checked against it. Nothing ran.`,
    });
  }
  const expected = posted === undefined ? null : readRunStateDigests(posted.summary, o.runId);
  const digestProblem =
    expected === null
      ? `the check run "${o.checkName}" on ${o.headSha.slice(0, 7)} carries no run-state digest for run ${o.runId} (it is not that run's, or the run ended before it could post one)`
      : runStateDigestProblem(o.runDir, expected);
  if (digestProblem === null) {
    // A record from before `ignored-baseline.json` was covered: the baseline cannot be checked, so the
    // leg does not use it (its verifies' git-ignored files are then "unknown": never success).
    const baseline = join(o.runDir, IGNORED_BASELINE_FILE);
    if (expected?.ignored === undefined && existsSync(baseline)) {
      rmSync(baseline);
      o.log(
        `run ${o.runId}: its check run's run-state record does not cover ignored-baseline.json (an earlier version wrote it): the resumed leg does not use that baseline`,
      );
    }
    return null;
  }
  return failed({
    outcome: "failed",
    title: `the run directory of run ${o.runId} was refused`,
    message: `Artifact ${o.name} (id ${o.artifactId}) does not match what the engine wrote: ${digestProblem}. A resumed leg only continues a run directory its check run vouches for. Start a new run. Nothing ran.`,
  });
}

export async function runResumeMode(o: ResumeModeOptions): Promise<void> {
  const { env, inputs, mode, runner } = o;
  let event: ReturnType<typeof readEventContext>;
  try {
    event = readEventContext(env);
  } catch (error) {
    return usageFailure(runner, error instanceof Error ? error.message : String(error));
  }
  const trigger = event.kind === "other" ? event.eventName : event.kind;
  if (trigger !== "workflow_dispatch") {
    return usageFailure(
      runner,
      `mode resume runs on workflow_dispatch: a person with write access dispatches it, and is recorded as the one who decided; this run was triggered by ${trigger}. Add \`on: workflow_dispatch\` to the resume workflow (README, "Resume a paused run").`,
    );
  }
  const actor = event.run.actor;
  if (actor === null)
    return usageFailure(runner, "GITHUB_ACTOR is not set: a resumed leg records who decided");
  const octokit = octokitFromEnv(inputs.githubToken, env);
  const folders = runnerFolders(env);
  const fetched = await fetchRunDirectory(o, {
    owner: event.owner,
    repo: event.repo,
    octokit,
    runsDir: folders.runsDir,
  });
  if (fetched.kind === "not-resumed") return failWithoutCheckRun(runner, env, fetched);
  const { artifact, headSha } = fetched;
  const name = runArtifactName(mode.runId);
  const runDir = fetched.runDir;

  const { client, reporter } = checkRunReporter({
    runner,
    octokit,
    owner: event.owner,
    repo: event.repo,
    secrets: o.secrets,
    name: inputs.checkName,
    headSha,
    detailsUrl: event.run.runUrl,
  });
  // The reporter is handed down; a crash from here on completes its check run before it is rethrown.
  try {
    // The App dispatches for the writer who clicked (GITHUB_ACTOR is then the App): the approver input.
    const decider = mode.approver ?? actor;
    const action: ResumeAction =
      mode.decision.kind === "retry-failed"
        ? { kind: "retry-failed" }
        : { ...mode.decision, by: decider, ...(decider !== actor ? { dispatchedBy: actor } : {}) };
    const toBot = inputs.reportTo === "bot" ? botReportsNote(inputs.checkName) : undefined;
    const takeOverCheckRun = async (): Promise<void> => {
      if (toBot !== undefined) return;
      const summary = `Run \`${mode.runId}\` resumes: ${describeMode(mode)} (${decider === actor ? "" : `decided by ${decider}, `}dispatched by ${actor}).`;
      const existing = await client.findLatest({ name: inputs.checkName, headSha });
      const ref: CheckRunRef =
        existing !== undefined && existing.externalId === mode.runId
          ? await reporter.restart(existing.id, { externalId: mode.runId, summary })
          : await reporter.start(mode.runId, summary, "evidence-gate: resuming");
      saveCheckRun(runner, ref, mode.runId);
    };
    runner.setOutput("run-id", mode.runId);

    const vouched = await vouchedFor(client, {
      checkName: inputs.checkName,
      headSha,
      runId: mode.runId,
      runDir,
      name,
      artifactId: artifact.id,
      log: (line) => runner.info(line),
    });
    if (vouched !== null) return await failWithoutCheckRun(runner, env, vouched);

    const refuse = (message: string) =>
      failWithoutCheckRun(runner, env, {
        outcome: "usage-error",
        title: `run ${mode.runId} was not resumed`,
        message,
      });
    // The leg runs PR code (the verify commands, the model CLIs): as the separate user, as the pull-request
    // modes do, once the run directory is vouched for and before anything of it runs. Awaited here, inside
    // the `try`: a returned promise that rejects would skip the `catch`, and the check run `takeOverCheckRun`
    // restarted would stay in progress without the error.
    return await withPrCodeIsolation(
      {
        runner,
        setting: inputs.isolateUser,
        sharedCaches: inputs.prUserCache,
        ...folders,
        env,
        knownSecrets: o.secrets,
      },
      (message) => refuse(message),
      async (note) => {
        const run: RunningMode = {
          runner,
          env,
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
          inputs,
          reporter,
          runId: mode.runId,
          ...folders,
          secrets: o.secrets,
          notes: toBot === undefined ? [note] : [toBot, note],
          ...(toBot !== undefined ? { noCheckRun: toBot } : {}),
        };
        const proxy = await openActionProxy(run, recordedRuntime(fetched.runDir));
        if (proxy.kind === "refused") return refuse(proxy.message);
        try {
          await resumeLeg(run, { mode, action, headSha, takeOverCheckRun, proxy: proxy.proxy });
        } finally {
          await proxy.close();
        }
      },
    );
  } catch (error) {
    await completeAfterCrash(runner, reporter, error, env);
  }
}

/** The resumed leg, once the run directory is vouched for: the engine, then the report. */
async function resumeLeg(
  run: RunningMode,
  o: {
    readonly mode: Extract<ModeInputs, { kind: "resume" }>;
    readonly action: ResumeAction;
    readonly headSha: string;
    readonly takeOverCheckRun: () => Promise<void>;
    readonly proxy: RunProxy | undefined;
  },
): Promise<void> {
  const { runner, env, inputs } = run;
  const { mode } = o;
  const result = await startRun(
    {
      mode: {
        kind: "resume",
        runId: mode.runId,
        action: o.action,
        headSha: o.headSha,
        // The run may have started on another runner: the state's repository path is this checkout now.
        repoDirOverride: run.workspace,
        ...(inputs.concurrency !== undefined ? { concurrency: inputs.concurrency } : {}),
      },
      ...actionRequestBase(run),
    },
    actionPorts(run, {}, { onRunStarted: o.takeOverCheckRun }, o.proxy),
  );
  switch (result.kind) {
    case "usage_error":
      return failWithoutCheckRun(runner, env, {
        outcome: "usage-error",
        title: `run ${mode.runId} was not resumed`,
        message: /nothing (ran|was run)/i.test(result.message)
          ? result.message
          : `${result.message} Nothing ran.`,
      });
    case "setup_failed":
      // The runner's environment (the CLI install), not the dispatch's inputs: the check run keeps its verdict.
      return failWithoutCheckRun(runner, env, {
        outcome: "failed",
        title: `run ${mode.runId} was not resumed: the model CLI could not be installed`,
        message: `${result.message} Nothing ran; run the workflow again once the npm registry is reachable.`,
      });
    case "nothing_to_retry":
      return failWithoutCheckRun(runner, env, {
        outcome: "usage-error",
        title: `run ${mode.runId} has nothing to retry`,
        message: `${result.message}. Its check run keeps its verdict; nothing ran.`,
      });
    case "finished":
      return reportRun(run, result);
    default:
      return unreachable(result);
  }
}

/** 401/403/404 from the artifacts API: the workflow must grant `actions: read`; anything else failed. */
function artifactOutcome(error: RunArtifactError): "usage-error" | "failed" {
  return error.status === 401 || error.status === 403 || error.status === 404 ? "usage-error" : "failed";
}

/** The run id `state.json` records, or `null` when it cannot be read (the engine then says why). */
function recordedRunId(runDir: string): string | null {
  try {
    return readRunState(runDir).run_id;
  } catch {
    return null;
  }
}
