/**
 * The action's pull-request modes once the run is open (SPEC §5, §6, §10): push mode's checkout, the
 * credential check that turns a fork's or Dependabot's pull request into a verify-only run (and a fork's
 * with a key but no writer's approval at its head), then `auto`,
 * `run` or `verify`. `auto` plans from the goal — the workflow's, or the text of a writer's
 * `/evidence-gate run` comment — with the refusal check before any model call.
 */
import { unreachable } from "../core/unreachable.js";
import { forkApprovalMissing } from "../github/fork.js";
import { missingCredentialMessage, missingModelCredential } from "../run/credentials.js";
import type { RunProxy } from "../run/model-cli.js";
import { autoMode } from "../run/request.js";
import { startRun } from "../run/start-run.js";
import { DEFAULT_AUTO_CONCURRENCY } from "./action-inputs.js";
import { BaseAgentConfigRun } from "./base-agent-config-run.js";
import { runGraphMode } from "./graph-mode.js";
import { withPrCodeIsolation } from "./isolation-scope.js";
import { announcePolicy, type PullRequestRun } from "./pull-request-run.js";
import { openPushMode } from "./push-mode.js";
import { actionPorts, actionRequestBase, endRun, reportRun, withActionProxy } from "./running-mode.js";
import { runVerifyMode } from "./verify-mode.js";

/** Runs the mode of an opened pull-request run and reports it. Rejects only on internal errors. */
export async function runPullRequestModes(opened: PullRequestRun): Promise<void> {
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
      return fromComment === undefined
        ? runAutoMode(run, mode.goal)
        : runAutoMode({ ...run, notes: [...run.notes, fromComment.note] }, fromComment.goal);
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

/** `auto`: plan from the goal, run, report (SPEC §5: the refusal check runs before any model call). */
function runAutoMode(run: PullRequestRun, goal: string): Promise<void> {
  const refuse = (message: string) => endRun(run, { kind: "usage-error", message });
  return withActionProxy(run, run.inputs.runtime, refuse, (proxy) => runAutoLeg(run, goal, proxy));
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
