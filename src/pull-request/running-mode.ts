/**
 * What every mode that runs nodes (`auto`, `run`, `verify`, `resume`; `report` for its check run) does the same
 * way (SPEC §6, §9, §10): the shape of a mode's run ({@link RunningMode}, {@link PullRequestRun},
 * {@link PushTarget}), where the run directories go on the runner, how its check run is built, reported and
 * recorded for the post step, what it passes the engine besides its own options, and how it reports the end —
 * finished, or before any node ran. The lifecycle (`pull-request-run.ts`) and the modes it calls import these;
 * this module imports none of them, so no import goes back up (issue 24).
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { createRedactor } from "../core/redact.js";
import type { RunId } from "../core/run-id.js";
import { redactTokenShapes } from "../core/token-shapes.js";
import type { RunHooks } from "../engine/leg.js";
import type { PublishCommit } from "../engine/run-frame.js";
import type { Runtime } from "../engine/runtime-setup.js";
import { ledgerArtifactName } from "../github/artifact.js";
import { CheckRunClient, type CheckRunRef } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import type { GateOctokit } from "../github/octokit.js";
import type { StickyCommentTarget } from "../github/sticky-comment.js";
import type { PullRequestSubject } from "../github/trigger.js";
import type { RunEnd } from "../ledger/conclusion.js";
import { autoRunPolicy, type PolicyFileResult, policySummary } from "../policy/policy-file.js";
import { actionModelCredentials } from "../run/credentials.js";
import type { ModelCalls } from "../run/model-cli.js";
import { ModelCliSetup, type RunProxy } from "../run/model-cli.js";
import { openRunProxy, proxyEventLine } from "../run/model-proxy.js";
import type { RunPorts, RunRequest, WorkspacePort } from "../run/request.js";
import type { ActionInputs } from "./action-inputs.js";
import { progressHooks } from "./progress-hooks.js";
import { type FinishedRun, reportFinished } from "./report-finished.js";
import type { Runner } from "./runner.js";
import { SAVED_STATE } from "./saved-state.js";
import { type Env, endEarly } from "./step-result.js";

/** A mode's run once its check run has a reporter: what it runs with and reports through. */
export interface RunningMode {
  /** The runner's log, outputs, saved state and step status. */
  readonly runner: Runner;
  readonly env: Env;
  readonly signal?: AbortSignal;
  /** The model calls the engine makes (`ActionSeams.modelCalls`); absent: the real CLIs. */
  readonly modelCalls?: ModelCalls;
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
  /** Set with `push: true` on a same-repository PR, once its head is checked out (`push-mode.ts`). */
  readonly push?: PushTarget;
  /** Where the sticky PR comment goes (input `comment` on a pull request); absent: no comment. */
  readonly comment?: StickyCommentTarget;
  /**
   * Set when this step posts no check run — a fork's or Dependabot's pull request, whose token is read-only
   * (SPEC §10) — to the note saying so and that `mode: report` posts it from the ledger artifact. The
   * reporter then never creates its check run, and nothing here calls the check-run API.
   */
  readonly noCheckRun?: string;
  /**
   * Set when the check run could not be created for want of permission (a 403/404 on the base repository's
   * own pull request, SPEC §10): the run goes on without one, and once the job summary holds its ledger the
   * step fails with this message (naming `checks: write`).
   */
  readonly failStepAfterReport?: string;
}

/** Everything a pull-request mode needs once the check run exists and the policy was read. */
export interface PullRequestRun extends RunningMode {
  /** The pull request, however the trigger named it (its head is checked out in the workspace). */
  readonly event: PullRequestSubject;
  readonly octokit: GateOctokit;
  readonly runId: RunId;
  readonly policy: Extract<PolicyFileResult, { ok: true }>;
}

/** What a push-mode run carries into the engine and the report. */
export interface PushTarget {
  /** `pull_request.head.ref`: the branch pushed to. */
  readonly branch: string;
  /** Pushes the run's commit (the engine's `publish`, called once by `finish-run.ts`). */
  readonly publish: PublishCommit;
  /**
   * Moves the run's check run to the pushed commit: creates it there (`in_progress`), completes the old head's
   * `neutral` "Superseded by <sha>", saves the new one for the post step; returns the new one's reporter.
   */
  readonly moveCheckRun: (pushed: {
    readonly sha: string;
    readonly tree: string;
  }) => Promise<CheckRunReporter>;
}

/** The base branch's policy as the engine takes it (`undefined` when there is none), said in the log. */
export function announcePolicy(run: PullRequestRun): ReturnType<typeof autoRunPolicy> {
  const { runner } = run;
  const policy = autoRunPolicy(run.policy);
  runner.info(
    policy === undefined
      ? `policy: no .github/evidence-gate.yml on the base ref ${run.event.baseRef}: the defaults apply`
      : `policy: ${policy.source}: ${policySummary(run.policy.policy)}`,
  );
  return policy;
}

/** The note of a `report-to: bot` step: the evidence-gate App posts the check run from the ledger artifact. */
export function botReportsNote(checkName: string): string {
  return `report-to: bot: the evidence-gate App owns the check run "${checkName}", so this step creates and writes no check run and no comment. The ledger is uploaded as the artifact ${ledgerArtifactName(checkName)}; the App posts the check run from it when this workflow run completes (docs/bot.md).`;
}

/** Fails the step after the report when the check run could not be created (see `failStepAfterReport`). */
function failAfterReport(run: RunningMode): void {
  if (run.failStepAfterReport !== undefined)
    run.runner.setFailed(`evidence-gate: ${run.failStepAfterReport}`);
}

/** The reporter that posts this run's check run, or `null` when the report workflow posts it. */
export function postingReporter(run: RunningMode): CheckRunReporter | null {
  return run.noCheckRun === undefined ? run.reporter : null;
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
  readonly runner: Runner;
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
    warn: (m) => o.runner.warning(m),
    redact: createRedactor(o.secrets).text,
  });
  const reporter = new CheckRunReporter({
    client,
    name: o.name,
    headSha: o.headSha,
    detailsUrl: o.detailsUrl,
    onProgressError: (error) =>
      o.runner.warning(
        `could not update the check run with progress: ${error instanceof Error ? error.message : String(error)}`,
      ),
    onCompleted: () => o.runner.saveState(SAVED_STATE.checkRunCompleted, "true"),
  });
  return { client, reporter };
}

/** The check run this step now reports on: saved for the post step, and set as the step's outputs. */
export function saveCheckRun(runner: Runner, ref: CheckRunRef, runId: string): void {
  runner.saveState(SAVED_STATE.checkRunId, String(ref.id));
  runner.saveState(SAVED_STATE.runId, runId);
  runner.setOutput("check-run-id", String(ref.id));
  if (ref.htmlUrl) runner.setOutput("check-run-url", ref.htmlUrl);
}

/**
 * The request fields every mode fills alike on the runner: the checkout, the runs folder, only push mode
 * commits (and the engine then commits only what it can push as verified, ADR 0008), the action's surface,
 * the run id minted before the check run, the `codex-config` pairs, and the inputs every fresh run reads.
 */
export function actionRequestBase(run: RunningMode): Omit<RunRequest, "mode"> & { readonly runId: RunId } {
  const { inputs } = run;
  return {
    runId: run.runId as RunId,
    repoDir: run.workspace,
    ...(inputs.workingDirectory !== undefined ? { workingDirectory: inputs.workingDirectory } : {}),
    ...(inputs.model !== undefined ? { model: inputs.model } : {}),
    codexConfig: inputs.codexConfig,
    continueOnFail: inputs.continueOnFail,
    verifyTimeoutMs: inputs.verifyTimeoutMs,
    verifyEnv: inputs.verifyEnv,
    ...(inputs.verifyRepeat !== undefined ? { verifyRepeat: inputs.verifyRepeat } : {}),
    ...(inputs.verifyBase === true ? { verifyBase: true } : {}),
    ...(inputs.testReports !== undefined ? { testReports: inputs.testReports } : {}),
    commit: run.push !== undefined,
    runsDir: run.runsDir,
    surface: "action",
    knownSecrets: run.secrets,
    baseEnv: run.env,
    timeout: {
      ms: inputs.timeoutMinutes * 60_000,
      limit: `${inputs.timeoutMinutes} min`,
      setting: "timeout-minutes",
    },
  };
}

/**
 * The ports every mode plugs in on the runner: the run's model CLI (`claude` or `codex`) found or installed
 * just before the first model call, each call with a fresh HOME / CODEX_HOME (SPEC §9: the operator's
 * configuration in CI is the base branch's only), children's output echoed fenced from the runner's
 * workflow-command parser and without token shapes (issue 12 item 5), the log lines and check-run progress, the interrupt, and the workspace around
 * the engine (the agent-configuration swap, and push mode's publish).
 */
export function actionPorts(
  run: RunningMode,
  workspace: WorkspacePort = {},
  hooks: RunHooks = {},
  proxy?: RunProxy,
): RunPorts {
  const { inputs, runner } = run;
  const publish = run.push?.publish;
  return {
    modelCli: new ModelCliSetup({
      credentials: inputs,
      versions: { claude: inputs.claudeVersion, codex: inputs.codexVersion },
      log: (line) => runner.info(line),
      env: run.env,
      secrets: run.secrets,
      temp: run.temp,
      workspace: run.workspace,
      ...(proxy !== undefined ? { proxy } : {}),
      ...(run.modelCalls !== undefined ? { modelCalls: run.modelCalls } : {}),
    }),
    workspace: { ...workspace, ...(publish !== undefined ? { publish } : {}) },
    hooks: { ...progressHooks(runner, run.reporter), ...hooks },
    // The log is public where the repository is: token shapes nobody declared go (the runner masks the
    // known secrets itself, `core.setSecret`); escapes and colours are kept, so the log reads as printed.
    echo: {
      write: (text) => runner.write(redactTokenShapes(text)),
      fenceWorkflowCommands: true,
      limitBytes: inputs.outputLogLimit,
    },
    ...(run.signal ? { signal: run.signal } : {}),
  };
}

/**
 * A finished run, reported ({@link reportFinished}) with the run's notes, or `notes` — on the pushed commit's
 * check run when push mode pushed one (`PushTarget.moveCheckRun`).
 */
export async function reportRun(run: RunningMode, finished: FinishedRun, notes = run.notes): Promise<void> {
  const pushed = run.push !== undefined ? finished.ledger.postedCommit : undefined;
  // A read-only token (fork, Dependabot) posts no check run at all; a pushed commit gets its own.
  const posting = postingReporter(run);
  const reporter =
    posting !== null && run.push !== undefined && pushed !== undefined
      ? await run.push.moveCheckRun(pushed)
      : posting;
  await reportFinished({
    runner: run.runner,
    finished,
    runId: run.runId,
    reporter,
    checkName: run.inputs.checkName,
    env: run.env,
    temp: run.temp,
    secrets: run.secrets,
    notes,
    ...(run.comment !== undefined ? { comment: run.comment } : {}),
    workspace: run.workspace,
  });
  failAfterReport(run);
}

/** A run that ended before any node ran ({@link endEarly}), with the run's notes, or `notes`. */
export async function endRun(
  run: RunningMode,
  end: Extract<RunEnd, { readonly message: string }>,
  notes = run.notes,
): Promise<void> {
  await endEarly(run.runner, postingReporter(run), end, end.message, run.env, notes);
  failAfterReport(run);
}

/** The run's key proxy once opened: what the ports take (`undefined`: nothing proxied), and its closing. */
export interface ActionProxy {
  readonly kind: "open";
  readonly proxy: RunProxy | undefined;
  /** Stops the proxy (a no-op when nothing was proxied); call it when the leg is over, however it ended. */
  readonly close: () => Promise<void>;
}

/**
 * Opens the run's key proxy for `runtime` (`model-proxy.ts`: the model CLIs get its base URL and a dummy key):
 * an {@link ActionProxy} the caller closes after the leg (`try … finally`), or `refused` with the usage-error
 * message when the settings cannot be proxied (nothing ran; the caller ends the run with it). An open/close
 * pair rather than a `body` callback, so the mode's leg is called by the mode itself (issue 24: nothing below
 * calls the lifecycle back).
 */
export async function openActionProxy(
  run: RunningMode,
  runtime: Runtime,
): Promise<ActionProxy | { readonly kind: "refused"; readonly message: string }> {
  const { runner } = run;
  const opened = await openRunProxy({
    runtime,
    credentials: actionModelCredentials(run.inputs, runtime),
    env: run.env,
    codexConfig: run.inputs.codexConfig,
    readUserCodexConfig: false,
    log: (event) => runner.warning(proxyEventLine(event)),
    say: (line) => runner.info(line),
  });
  if (opened.kind === "refused") return opened;
  const proxy = opened.proxy;
  return { kind: "open", proxy, close: async () => void (await proxy?.proxy.close()) };
}
