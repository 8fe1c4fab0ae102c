/**
 * The action's run on a pull request (`auto`, `run`, `verify`; SPEC §5, §6, §9, §10), read top to bottom:
 * {@link runPullRequest} decides the trigger, builds the check-run reporter once and hands it down, opens the
 * run ({@link openPullRequestRun}), then runs its mode ({@link runPullRequestModes}) and reports it.
 *
 * Opening: the trigger names the pull request (`trigger.ts`: a `pull_request` payload, a comment command, a
 * dispatch); the check run is created `in_progress` on the PR head before anything else, and its id saved
 * for the post step at once; input problems then complete it `action_required`; the maintainers' policy file
 * is read from the **base** ref (never the PR's checkout); and when the workspace is not the pull request's
 * checkout (comment, dispatch, `pull_request_target`) its head is checked out and `HEAD` checked against it
 * before anything runs.
 *
 * A fork's or Dependabot's pull request gets a read-only token (SPEC §10): no check run is created or
 * written at all — not even tried — and the run goes on; the job summary carries the ledger, the
 * `<check-name>-ledger` artifact is uploaded as on every run, and `mode: report` in a `workflow_run`
 * workflow of the base repository posts the check run from it (docs/examples/).
 *
 * The modes, once the run is open: push mode's checkout, the separate user for PR code, the credential check
 * that turns a fork's or Dependabot's pull request into a verify-only run (and a fork's with a key but no
 * writer's approval at its head), then `auto`, `run` or `verify`. `auto` plans from the goal — the
 * workflow's, or the text of a writer's `/evidence-gate run` comment — with the refusal check before any
 * model call.
 *
 * A thrown error after the reporter exists completes its check run here ({@link completeAfterCrash}), so
 * the action's last-resort handler never needs the reporter handed back up.
 */

import { mintRunId, type RunId } from "../core/run-id.js";
import { unreachable } from "../core/unreachable.js";
import { goalLengthProblem } from "../engine/auto-plan.js";
import { ledgerArtifactName } from "../github/artifact.js";
import { type BaseRefPolicy, PolicyReadError, prCopyNote, readBaseRefPolicy } from "../github/base-policy.js";
import { CheckRunWriteError } from "../github/check-run.js";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import { COMMENT_COMMAND } from "../github/comment-command.js";
import { type PullRequestFields, readEventContext } from "../github/event-context.js";
import { forkApprovalMissing } from "../github/fork.js";
import { writeJobSummary } from "../github/job-summary.js";
import { type GateOctokit, octokitFromEnv } from "../github/octokit.js";
import { type PullRequestSubject, resolveTrigger, type Trigger } from "../github/trigger.js";
import type { RunEnd } from "../ledger/conclusion.js";
import type { PolicyFileResult } from "../policy/policy-file.js";
import { missingCredentialMessage, missingModelCredential } from "../run/credentials.js";
import type { ModelCalls, RunProxy } from "../run/model-cli.js";
import { autoMode } from "../run/request.js";
import { startRun } from "../run/start-run.js";
import { DEFAULT_AUTO_CONCURRENCY, describeMode, type InputsResult } from "./action-inputs.js";
import { BaseAgentConfigRun } from "./base-agent-config-run.js";
import { runGraphMode } from "./graph-mode.js";
import { withPrCodeIsolation } from "./isolation-scope.js";
import { stopOnOwnPush } from "./loop-guard.js";
import { checkOutPullRequestHead, eventCheckoutProblem } from "./pr-checkout.js";
import { openPushMode } from "./push-mode.js";
import type { Runner } from "./runner.js";
import {
  actionPorts,
  actionRequestBase,
  announcePolicy,
  botReportsNote,
  checkRunReporter,
  endRun,
  openActionProxy,
  type PullRequestRun,
  reportRun,
  runnerFolders,
  saveCheckRun,
} from "./running-mode.js";
import { completeAfterCrash, type Env, endEarly, usageFailure } from "./step-result.js";
import { runVerifyMode } from "./verify-mode.js";

/** What the action's entry hands the pull request's run: the runner port, the inputs read once, the secrets. */
export interface PullRequestRunOptions {
  readonly runner: Runner;
  readonly env: Env;
  readonly signal?: AbortSignal;
  /** The model calls the engine makes (`ActionSeams.modelCalls`); absent: the real CLIs. */
  readonly modelCalls?: ModelCalls;
  readonly parsed: InputsResult;
  readonly secrets: readonly string[];
}

/**
 * The pull request's run, whole: the trigger ({@link decideTrigger}); the check-run reporter, built here once
 * and handed down to everything that reports (the opening, the modes, the engine's progress hooks, the
 * report); the opening ({@link openPullRequestRun}); the mode ({@link runPullRequestModes}). Resolves when
 * the step's outcome is set. A thrown error after the reporter exists completes the check run first
 * ({@link completeAfterCrash}: a usage error for an untrusted `git`, else `failure`) and is rethrown for the
 * action's last-resort handler, which sets the step's outcome.
 */
export async function runPullRequest(o: PullRequestRunOptions): Promise<void> {
  const decided = await decideTrigger(o);
  if (decided === null) return;
  const { subject } = decided.trigger;
  const { reporter } = checkRunReporter({
    runner: o.runner,
    octokit: decided.octokit,
    owner: subject.owner,
    repo: subject.repo,
    secrets: o.secrets,
    name: o.parsed.ok ? o.parsed.inputs.checkName : "evidence-gate",
    headSha: subject.headSha,
    detailsUrl: subject.run.runUrl,
  });
  try {
    const opened = await openPullRequestRun(o, decided, reporter);
    if (opened !== null) await runPullRequestModes(opened);
  } catch (error) {
    await completeAfterCrash(o.runner, reporter, error, o.env);
  }
}

/** A trigger that names a pull request this step reports on (to run it, or to refuse it on its check run). */
type RunnableTrigger = Extract<Trigger, { kind: "run" } | { kind: "refused-on-check" }>;

/** A trigger this step runs or refuses on its check run, with the API client and the token. */
interface DecidedTrigger {
  readonly trigger: RunnableTrigger;
  readonly octokit: GateOctokit;
  readonly token: string;
}

/**
 * The event, the loop guard, the token and the trigger (SPEC §9, §10): `null` after reporting why the step
 * ends here (no pull request to run, a refused or unsupported trigger, an input problem outside a
 * `pull_request`, no token); else the trigger with the API client and the token.
 */
async function decideTrigger(o: PullRequestRunOptions): Promise<DecidedTrigger | null> {
  const { env, parsed, runner } = o;
  let event: ReturnType<typeof readEventContext>;
  try {
    event = readEventContext(env);
  } catch (error) {
    usageFailure(runner, error instanceof Error ? error.message : String(error));
    return null;
  }
  // A push mode's own push starts nothing: no check run is touched (SPEC §10 loop guard).
  const token = parsed.ok ? parsed.inputs.githubToken : env["INPUT_GITHUB-TOKEN"]?.trim();
  if (await stopOnOwnPush(runner, env, event, token)) return null;
  // Input problems are posted on a pull_request's check run; for other triggers the pull request is only
  // known once the inputs (e.g. `pr`) are read, so they fail the step alone.
  if (!parsed.ok && event.kind !== "pull_request") {
    const trigger = event.kind === "other" ? event.eventName : event.kind;
    usageFailure(runner, `${parsed.errors.join("\n")}\n(triggered by ${trigger})`);
    return null;
  }
  if (token === undefined || token === "") {
    usageFailure(
      runner,
      "input `github-token` is empty: leave it at its default (the workflow's github.token)",
    );
    return null;
  }
  const octokit = octokitFromEnv(token, env);
  let trigger: Trigger;
  if (parsed.ok) {
    trigger = await resolveTrigger({ event, inputs: parsed.inputs, octokit, warn: (m) => runner.warning(m) });
  } else if (event.kind === "pull_request") {
    const { kind: _kind, ...fields } = event;
    trigger = {
      kind: "run",
      subject: { ...fields, trigger: "pull_request", checkoutHead: false },
      basePolicy: null,
      notes: [],
    };
  } else {
    throw new Error("Internal error: unparsed inputs on a trigger other than pull_request");
  }
  switch (trigger.kind) {
    case "nothing":
      // Not this action's business: a notice, no check run, no outputs, the step passes.
      runner.notice(`evidence-gate: ${trigger.message}`);
      await writeJobSummary(`## evidence-gate: nothing to do\n\n${trigger.message}\n`, { env });
      return null;
    case "refused":
      await writeJobSummary(`## ⚠️ evidence-gate refused: ${trigger.title}\n\n${trigger.message}\n`, { env });
      runner.setOutput("outcome", "refused");
      runner.setFailed(`evidence-gate: refused: ${trigger.title}: ${trigger.message}`);
      return null;
    case "usage-error":
      usageFailure(runner, trigger.message);
      return null;
    case "run":
    case "refused-on-check":
      return { trigger, octokit, token };
    default:
      return trigger satisfies never;
  }
}

/**
 * Opens a pull-request run on its decided trigger, reporting through `reporter`. Returns `null` when the step
 * has already ended (the check run could not be created, an input or policy problem, a refused trigger, a
 * head that could not be checked out — each reported). In order: the check run ({@link openCheckRun}), the
 * head checkout, the base policy ({@link readPolicy}).
 */
async function openPullRequestRun(
  o: PullRequestRunOptions,
  decided: DecidedTrigger,
  reporter: CheckRunReporter,
): Promise<PullRequestRun | null> {
  const { env, parsed, runner } = o;
  const { trigger, octokit, token } = decided;
  const subject = trigger.subject;
  const opened = await openCheckRun(o, subject, reporter);
  if (opened === null) return null;
  const { runId, noCheckRun, failStepAfterReport } = opened;
  const early = noCheckRun === undefined ? reporter : null;
  const stop = async (end: Parameters<typeof endEarly>[2], message: string, notes: readonly string[]) => {
    await endEarly(runner, early, end, message, env, notes);
    return null;
  };
  if (!parsed.ok) {
    const message = parsed.errors.join("\n");
    return stop({ kind: "usage-error", message }, message, opened.notes);
  }
  if (trigger.kind === "refused-on-check") {
    const end = { kind: "refused", reason: "unsupported-trigger", message: trigger.message } as const;
    return stop(end, trigger.message, opened.notes);
  }
  const folders = runnerFolders(env);
  const notes: string[] = [...opened.notes, ...trigger.notes];

  // The workspace holds the default branch (comment, dispatch) or the base (pull_request_target): check out
  // the head the run was decided on, with the token given to that one fetch only, before anything runs.
  if (subject.checkoutHead) {
    const checkout = await checkOutPullRequestHead({
      workspace: folders.workspace,
      number: subject.number,
      headSha: subject.headSha,
      serverUrl: subject.run.serverUrl,
      token,
      baseEnv: env,
      knownSecrets: o.secrets,
    });
    if (!checkout.ok) {
      const end =
        checkout.reason === "moved"
          ? ({ kind: "refused", reason: "head-moved", message: checkout.message } as const)
          : ({ kind: "engine-error", message: checkout.message } as const);
      return stop(end, checkout.message, notes);
    }
    runner.info(checkout.note);
    notes.push(checkout.note);
  } else {
    const problem = await eventCheckoutProblem({
      workspace: folders.workspace,
      headSha: subject.headSha,
      baseEnv: env,
      knownSecrets: o.secrets,
    });
    if (problem !== null)
      return stop({ kind: "refused", reason: "checkout-not-head", message: problem }, problem, notes);
  }
  const policy = await readPolicy(runner, { trigger, octokit, workspace: folders.workspace, notes });
  if (policy.kind === "ended") return stop(policy.end, policy.end.message, notes);
  return {
    runner,
    env,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
    inputs: parsed.inputs,
    event: subject,
    octokit,
    reporter,
    runId,
    ...folders,
    secrets: o.secrets,
    policy: policy.policy,
    notes,
    // A read-only token (fork, Dependabot) cannot write a comment either: stage 2 posts the check run only.
    ...(parsed.inputs.comment && noCheckRun === undefined
      ? { comment: { octokit, owner: subject.owner, repo: subject.repo, issueNumber: subject.number } }
      : {}),
    ...(noCheckRun !== undefined ? { noCheckRun } : {}),
    ...(failStepAfterReport !== undefined ? { failStepAfterReport } : {}),
  };
}

/** The run's check run, or why it has none (see {@link openCheckRun}). */
interface OpenedCheckRun {
  readonly runId: RunId;
  /** Set when this step posts no check run: the note saying so (a read-only token, or a refused create). */
  readonly noCheckRun?: string;
  /** Set when the create was refused for want of permission: the step fails at the end with it. */
  readonly failStepAfterReport?: string;
  /** Notes for the summaries so far (whose annotations a taken-over check run carries, or `noCheckRun`). */
  readonly notes: readonly string[];
}

/**
 * Mints the run id and creates the check run `in_progress` on the PR head — or takes over the one an earlier
 * run left on that head (SPEC §6) — and saves it for the post step at once. A fork's or Dependabot's
 * `pull_request` gets a read-only token (SPEC §10): no check run is even tried. A 403/404 on create lets
 * the run go on without one (the step fails at the end naming the permission); any other failure ends the
 * step (`null`) before anything is spent.
 */
async function openCheckRun(
  o: PullRequestRunOptions,
  subject: PullRequestSubject,
  reporter: CheckRunReporter,
): Promise<OpenedCheckRun | null> {
  const { parsed, runner } = o;
  const checkName = parsed.ok ? parsed.inputs.checkName : "evidence-gate";
  const runId = mintRunId();
  // Only a `pull_request` event of a fork or Dependabot gets a read-only token; a comment command or a
  // dispatch runs in the base repository's context with the workflow's own permissions. With `report-to:
  // bot` the App owns the check run: no check-run call is even tried either.
  const readOnly = subject.trigger === "pull_request" ? readOnlyTokenNote(subject, checkName) : undefined;
  const toBot = reportsToBot(o) ? botReportsNote(checkName) : undefined;
  const skip = toBot ?? readOnly;
  if (skip !== undefined) {
    runner.notice(skip);
    runner.setOutput("run-id", runId);
    return { runId, noCheckRun: skip, notes: [skip] };
  }
  try {
    // One check run per name and head SHA: a re-run takes over the one an earlier run left (SPEC §6).
    const opened = await reporter.open(
      runId,
      `Run \`${runId}\` is starting: ${parsed.ok ? describeMode(parsed.inputs.mode) : "checking inputs"}`,
    );
    const notes: string[] = [];
    if (opened.tookOver !== null) {
      runner.info(
        `check run ${opened.ref.id} (left by run ${opened.tookOver.externalId}, ${opened.tookOver.conclusion ?? opened.tookOver.status}) is this run's now`,
      );
      // GitHub keeps annotations for good: say whose they are, so no one reads them as this run's findings.
      const marks = opened.tookOver.annotationsCount;
      if (marks > 0)
        notes.push(
          `This check run was first written by run \`${opened.tookOver.externalId}\`; its ${marks} annotation${marks === 1 ? "" : "s"} stay on it (GitHub cannot remove annotations) and are that run's findings, not this run's.`,
        );
    }
    saveCheckRun(runner, opened.ref, runId);
    runner.setOutput("run-id", runId);
    return { runId, notes };
  } catch (error) {
    if (!(error instanceof CheckRunWriteError)) throw error;
    if (error.status !== 403 && error.status !== 404) {
      await checkRunNotCreated(runner, error, o.env);
      return null;
    }
    // The token may not write check runs (SPEC §10): the run goes on without one, so its ledger still
    // reaches the job summary and the artifact, and the step fails at the end naming the permission.
    const noCheckRun = `The check run could not be created, so this run posts none: ${error.message} The run goes on; its ledger is in this job summary and the ${ledgerArtifactName(checkName)} artifact, and the step fails at the end.`;
    runner.error(`evidence-gate: ${noCheckRun}`);
    runner.setOutput("run-id", runId);
    return { runId, noCheckRun, failStepAfterReport: error.message, notes: [noCheckRun] };
  }
}

/**
 * The maintainers' policy from the base ref (SPEC §9: policy comes from the base branch, code from the
 * head; the PR's own copy is never read for its values), noting in `notes` when the PR's copy was
 * ignored. A policy that cannot be read, or does not parse, ends the run before anything is spent.
 */
async function readPolicy(
  runner: Runner,
  o: {
    readonly trigger: Extract<Trigger, { kind: "run" }>;
    readonly octokit: GateOctokit;
    readonly workspace: string;
    readonly notes: string[];
  },
): Promise<
  | { readonly kind: "read"; readonly policy: Extract<PolicyFileResult, { ok: true }> }
  | { readonly kind: "ended"; readonly end: Extract<RunEnd, { kind: "usage-error" | "engine-error" }> }
> {
  const { subject } = o.trigger;
  let basePolicy: BaseRefPolicy;
  try {
    basePolicy =
      o.trigger.basePolicy ??
      (await readBaseRefPolicy(o.octokit, {
        owner: subject.owner,
        repo: subject.repo,
        ref: subject.baseRef,
        sha: subject.baseSha,
      }));
  } catch (error) {
    if (!(error instanceof PolicyReadError)) throw error;
    const refused = error.status === 401 || error.status === 403;
    return { kind: "ended", end: { kind: refused ? "usage-error" : "engine-error", message: error.message } };
  }
  const ignoredCopy = await prCopyNote(o.workspace, basePolicy);
  if (ignoredCopy !== null) {
    runner.notice(ignoredCopy);
    o.notes.push(ignoredCopy);
  }
  if (!basePolicy.result.ok) {
    const message = `${basePolicy.result.errors.join("\n")}\nFix the policy file on the base branch: nothing runs while the maintainers' policy is malformed.`;
    return { kind: "ended", end: { kind: "usage-error", message } };
  }
  return { kind: "read", policy: basePolicy.result };
}

/**
 * Whether input `report-to` is `bot` — read from the raw input when the inputs were refused, so even a
 * usage error is left to the App's check run (the step has no `checks: write` then).
 */
function reportsToBot(o: PullRequestRunOptions): boolean {
  return o.parsed.ok ? o.parsed.inputs.reportTo === "bot" : o.env["INPUT_REPORT-TO"]?.trim() === "bot";
}

/**
 * Why this pull request's token cannot write check runs (SPEC §10: a fork's pull request, or Dependabot's,
 * gets a read-only `GITHUB_TOKEN` whatever the workflow asks for), as the note for the log and the
 * summaries; `undefined` when the token can.
 */
export function readOnlyTokenNote(event: PullRequestFields, checkName: string): string | undefined {
  if (!event.isFork && !event.isDependabot) return undefined;
  const who = event.isFork
    ? `comes from a fork (${event.headRepoFullName ?? "a deleted repository"})`
    : "was opened or triggered by Dependabot";
  return `This pull request ${who}: its GITHUB_TOKEN is read-only, so this step creates no check run. The ledger is uploaded as the artifact ${ledgerArtifactName(checkName)}, and the report workflow (mode: report, on workflow_run) posts the check run "${checkName}" from it; a run that uploads no ledger gets a failing check run from that workflow. See docs/examples/README.md.`;
}

/**
 * The check run could not be created (SPEC §6, §10: a 403/404 names the missing `checks: write`). Nothing
 * has run yet and nothing will: a verdict that cannot be posted is not worth a model call. The job summary
 * says so, then the step fails. A refused permission is something the workflow must change (outcome
 * `usage-error`); any other failure (5xx after retries, no answer) is `failed`.
 */
async function checkRunNotCreated(runner: Runner, error: CheckRunWriteError, env: Env): Promise<void> {
  const permission = error.status === 403 || error.status === 404;
  const summary = [
    "## ⚠️ evidence-gate: the check run could not be created",
    "",
    error.message,
    "",
    "Nothing ran and nothing was spent: the run stops before planning when its verdict cannot be posted.",
    "",
  ].join("\n");
  await writeJobSummary(summary, { env });
  runner.setOutput("outcome", permission ? "usage-error" : "failed");
  runner.setFailed(`evidence-gate: ${error.message}`);
}

/** Runs the mode of an opened pull-request run and reports it. Rejects only on internal errors. */
async function runPullRequestModes(opened: PullRequestRun): Promise<void> {
  // push: true checks out the PR head before anything runs (SPEC §10), or ends the run saying why.
  const checkedOut = await openPushMode(opened);
  if (checkedOut === null) return;
  // After the checkout (its files get the user's group), before any PR code runs.
  const withNote = (note: string): PullRequestRun => ({ ...checkedOut, notes: [...checkedOut.notes, note] });
  await withPrCodeIsolation(
    {
      runner: checkedOut.runner,
      setting: checkedOut.inputs.isolateUser,
      workspace: checkedOut.workspace,
      runsDir: checkedOut.runsDir,
      temp: checkedOut.temp,
      env: checkedOut.env,
      sharedCaches: checkedOut.inputs.prUserCache,
      knownSecrets: checkedOut.secrets,
    },
    (message, note) => endRun(withNote(note), { kind: "usage-error", message }),
    (note) => runMode(withNote(note)),
  );
}

/** The mode's run, once the checkout and the separate user are in place. */
async function runMode(run: PullRequestRun): Promise<void> {
  const mode = run.inputs.mode;
  // Before any model call: without a credential, a fork's or Dependabot's pull request (GitHub gives it no
  // secrets) is verify-only when a verify command is given, else it ends saying which secret is missing.
  // On the base repository's own pull request a missing credential is the workflow's mistake, not GitHub's
  // secret rules: a usage error naming the input, rather than a quiet downgrade to verify-only.
  const missing = mode.kind === "auto" || mode.kind === "run" ? missingModelCredential(run.inputs) : null;
  if (missing !== null && !run.event.isFork && !run.event.isDependabot) {
    return endRun(run, { kind: "usage-error", message: missingCredentialMessage(run.inputs.runtime) });
  }
  if (missing !== null) return runVerifyMode(run, { kind: "no-credential", missing });
  // A fork's code gets the model key only once a writer approved that head (a pinned comment command).
  const unapproved = mode.kind === "auto" || mode.kind === "run" ? forkApprovalMissing(run.event) : null;
  if (unapproved !== null) return runVerifyMode(run, { kind: "fork-unapproved", why: unapproved });
  switch (mode.kind) {
    case "verify":
      return runVerifyMode(run, { kind: "mode" });
    case "auto": {
      const fromComment = commentGoal(run);
      if (fromComment === undefined) return runAutoMode(run, mode.goal);
      const withNote = { ...run, notes: [...run.notes, fromComment.note] };
      // Named as the comment, not as input `goal` (the engine's own check): its author is who shortens it.
      const tooLong = goalLengthProblem(
        fromComment.goal,
        `The text of the ${COMMENT_COMMAND} run comment`,
        "Comment again with the text shortened",
      );
      if (tooLong !== null) return endRun(withNote, { kind: "usage-error", message: tooLong });
      return runAutoMode(withNote, fromComment.goal);
    }
    case "run":
      return runGraphMode(run, mode);
    case "lint":
    case "resume":
    case "report":
      throw new Error(`Internal error: mode ${mode.kind} reached the pull-request path`);
    default:
      return unreachable(mode);
  }
}

/**
 * The goal a `/evidence-gate run <goal>` comment gives (SPEC §9: the text after the command is the operator's
 * goal — an instruction, not data — because only a writer, or an allow-listed bot, gets that far: see
 * `github/trigger.ts`); `undefined` when the run did not come from a comment or the comment names no goal
 * (the workflow's `goal` input then stands). Said in the log and the summaries, with its author.
 */
function commentGoal(run: PullRequestRun): { readonly goal: string; readonly note: string } | undefined {
  const request = run.event.request;
  const goal = request?.text.trim();
  if (request === undefined || goal === undefined || goal === "") return undefined;
  const note = `The goal is the text of @${request.author}'s /evidence-gate run comment (a writer's instruction: README, Triggers), not the workflow's goal input.`;
  run.runner.info(note);
  return { goal, note };
}

/**
 * `auto`: plan from the goal, run, report (SPEC §5: the refusal check runs before any model call), with the
 * run's key proxy open around the leg.
 */
async function runAutoMode(run: PullRequestRun, goal: string): Promise<void> {
  const proxy = await openActionProxy(run, run.inputs.runtime);
  if (proxy.kind === "refused") return endRun(run, { kind: "usage-error", message: proxy.message });
  try {
    await runAutoLeg(run, goal, proxy.proxy);
  } finally {
    await proxy.close();
  }
}

async function runAutoLeg(run: PullRequestRun, goal: string, proxy: RunProxy | undefined): Promise<void> {
  const { event, inputs } = run;
  const policy = announcePolicy(run);
  // The base's agent configuration for the run (SPEC §9), the pull request's put back after it.
  const agentConfig = new BaseAgentConfigRun(run);
  const result = await startRun(
    {
      mode: autoMode({
        goal,
        ...(inputs.verifyCmd !== undefined ? { verifyCmd: inputs.verifyCmd } : {}),
        acceptNoBuildEvidence: inputs.acceptNoBuildEvidence,
        // The workflow's input, typed at launch: nothing in the PR, the plan or the policy file sets it.
        acceptLoadedUserConfig: inputs.acceptLoadedUserConfig,
        ...(inputs.repairAttempts > 0 ? { repairAttempts: inputs.repairAttempts } : {}),
        maxCycles: inputs.maxCycles,
        ...(inputs.maxCostUsd !== undefined ? { maxCostUsd: inputs.maxCostUsd } : {}),
        runtime: inputs.runtime,
        concurrency: inputs.concurrency ?? DEFAULT_AUTO_CONCURRENCY,
        ...(policy !== undefined ? { policy } : {}),
        surface: "action",
      }),
      ...actionRequestBase(run),
      ...(policy !== undefined ? { policy } : {}),
      pr: {
        title: event.title,
        body: event.body,
        headSha: event.headSha,
        baseRef: event.baseRef,
        baseSha: event.baseSha,
      },
    },
    actionPorts(run, agentConfig.workspace, {}, proxy),
  );
  const notes = [...run.notes, ...agentConfig.notes];
  switch (result.kind) {
    case "usage_error":
      return endRun(run, { kind: "usage-error", message: result.message }, notes);
    case "setup_failed":
      return endRun(run, { kind: "setup-failed", message: result.message }, notes);
    case "refused":
      return endRun(run, { kind: "refused", reason: "build-evidence", message: result.message }, notes);
    case "finished":
      return reportRun(run, result, notes);
    default:
      return unreachable(result);
  }
}
