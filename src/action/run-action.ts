/**
 * The action's main job (SPEC §2, §6, §10): read the inputs once, run the mode they name, map the result to
 * the check run, the job summary, the outputs and the step's status.
 *
 * - `auto` / `run` (pull_request): the check run is created `in_progress` on the PR head before anything
 *   else, the maintainers' policy file is read from the base ref, then the engine runs (`runAuto`, or
 *   `runHandWritten` with the graph read from the base ref).
 * - `verify`: the engine runs the verify command once, no model (`verify-mode.ts`). A pull request without
 *   a model credential (a fork, Dependabot) runs that instead of `auto`/`run`, or ends `action_required`
 *   naming the missing secret when no verify command is given.
 * - Which pull request, and whether to run at all, comes from the trigger (`trigger.ts`): `pull_request`,
 *   an `/evidence-gate run` comment, a `workflow_dispatch` with `pr`, an opted-in `pull_request_target`.
 * - `lint`: reads the graph under review from the workspace; no model call, no API call, no check run (not
 *   even for an input problem, which fails the step with the job summary listing it).
 * - `resume` (workflow_dispatch): downloads the earlier run's directory and runs one more leg.
 * - `report` (workflow_run): posts the ledger artifact a pull request's run uploaded (a fork's run cannot
 *   write check runs itself), validated as untrusted data.
 *
 * Every path that created a check run completes it; a failed API write fails the step after the job
 * summary is written; the last-resort handler fails the step on any thrown value.
 */
import * as core from "@actions/core";
import { secretForms } from "../core/redact.js";
import { unreachable } from "../core/unreachable.js";
import { type AutoRunResult, runAuto } from "../engine/auto-run.js";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import { missingCredentialMessage } from "../run/credentials.js";
import { BaseAgentConfigRun } from "./base-agent-config-run.js";
import { DEFAULT_AUTO_CONCURRENCY, type InputsResult, lintRequested, readActionInputs } from "./inputs.js";
import { failLintInputs, runLintMode } from "./lint-mode.js";
import { announcePolicy, openPullRequestRun, type PullRequestRun } from "./pull-request-run.js";
import { openPushMode } from "./push-mode.js";
import { runReportMode } from "./report-mode.js";
import { runResumeMode } from "./resume-mode.js";
import { runGraphMode } from "./run-graph-mode.js";
import { endRun, engineOptions, reportRun } from "./running-mode.js";
import type { Env } from "./step-result.js";
import { missingModelCredential, runVerifyMode } from "./verify-mode.js";

/** Runs the action; sets outputs and the step's status. Never throws. */
export async function runAction(env: Env = process.env, signal?: AbortSignal): Promise<void> {
  let reporter: CheckRunReporter | null = null;
  try {
    await main(env, signal, (r) => {
      reporter = r;
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const r = reporter as CheckRunReporter | null;
    if (r !== null && r.ref !== null && !r.completed) {
      try {
        await r.end(
          "failure",
          "evidence-gate: the run ended with an internal error",
          `The engine stopped with an internal error:\n\n\`\`\`\n${message}\n\`\`\``,
        );
      } catch (writeError) {
        core.error(
          `could not complete the check run after the error: ${writeError instanceof Error ? writeError.message : String(writeError)}`,
        );
      }
    }
    core.setOutput("outcome", "failed");
    core.setFailed(`evidence-gate: ${message}`);
  }
}

/** The known secret values: the GitHub token and the model credentials (SPEC §9), masked and redacted. */
function knownSecrets(env: Env, parsed: InputsResult): string[] {
  return [
    parsed.ok ? parsed.inputs.githubToken : env["INPUT_GITHUB-TOKEN"],
    parsed.ok ? parsed.inputs.anthropicApiKey : env["INPUT_ANTHROPIC-API-KEY"],
    parsed.ok ? parsed.inputs.claudeCodeOauthToken : env["INPUT_CLAUDE-CODE-OAUTH-TOKEN"],
    parsed.ok ? parsed.inputs.openaiApiKey : env["INPUT_OPENAI-API-KEY"],
    parsed.ok ? parsed.inputs.pushToken : env["INPUT_PUSH-TOKEN"],
  ]
    .map((s) => s?.trim())
    .filter((s): s is string => typeof s === "string" && s !== "");
}

async function main(
  env: Env,
  signal: AbortSignal | undefined,
  exposeReporter: (r: CheckRunReporter) => void,
): Promise<void> {
  const parsed = readActionInputs(env);
  const secrets = knownSecrets(env, parsed);
  // Mask every form the redactor knows (raw, base64 at each offset, URL-encoded…) in the live log too.
  for (const secret of secrets) for (const form of secretForms(secret)) core.setSecret(form);

  // Lint is decided from the raw `mode` input first: it never calls the API, even to report bad inputs.
  if (lintRequested(env)) {
    if (!parsed.ok) return failLintInputs(env, parsed.errors);
    if (parsed.inputs.mode.kind !== "lint")
      throw new Error(`Internal error: mode lint was read as ${parsed.inputs.mode.kind}`);
    return runLintMode({ env, inputs: parsed.inputs, mode: parsed.inputs.mode });
  }
  if (parsed.ok && parsed.inputs.mode.kind === "resume") {
    return runResumeMode({
      env,
      ...(signal ? { signal } : {}),
      inputs: parsed.inputs,
      mode: parsed.inputs.mode,
      secrets,
      exposeReporter,
    });
  }
  if (parsed.ok && parsed.inputs.mode.kind === "report") {
    return runReportMode({
      env,
      ...(signal ? { signal } : {}),
      inputs: parsed.inputs,
      secrets,
      exposeReporter,
    });
  }
  const opened = await openPullRequestRun({
    env,
    ...(signal ? { signal } : {}),
    parsed,
    secrets,
    exposeReporter,
  });
  if (opened === null) return;
  // push: true checks out the PR head before anything runs (SPEC §10), or ends the run saying why.
  const run = await openPushMode(opened);
  if (run === null) return;
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
 * `trigger.ts`); `undefined` when the run did not come from a comment or the comment names no goal (the
 * workflow's `goal` input then stands). Said in the log and the summaries, with its author.
 */
function commentGoal(run: PullRequestRun): { readonly goal: string; readonly note: string } | undefined {
  const request = run.event.request;
  const goal = request?.text.trim();
  if (request === undefined || goal === undefined || goal === "") return undefined;
  const note = `The goal is the text of @${request.author}'s /evidence-gate run comment (a writer's instruction, SPEC §9), not the workflow's goal input.`;
  core.info(note);
  return { goal, note };
}

/** `auto`: plan from the goal, run, report (SPEC §5: the refusal check runs before any model call). */
async function runAutoMode(run: PullRequestRun, goal: string): Promise<void> {
  const { event, inputs } = run;
  const policy = announcePolicy(run);
  // The base's agent configuration for the run (SPEC §9), the pull request's put back after it.
  const agentConfig = new BaseAgentConfigRun(run);
  let result: AutoRunResult;
  try {
    result = await runAuto(
      // The refusal check runs inside runAuto before any model call; the CLI install only happens after it.
      engineOptions(
        run,
        {
          runId: run.runId,
          goal,
          repoDir: run.workspace,
          ...(inputs.workingDirectory !== undefined ? { workingDirectory: inputs.workingDirectory } : {}),
          ...(inputs.verifyCmd !== undefined ? { verifyCmd: inputs.verifyCmd } : {}),
          verifyTimeoutMs: inputs.verifyTimeoutMs,
          verifyEnv: inputs.verifyEnv,
          acceptNoBuildEvidence: inputs.acceptNoBuildEvidence,
          // The workflow's input, typed at launch: nothing in the PR, the plan or the policy file sets it.
          acceptLoadedUserConfig: inputs.acceptLoadedUserConfig,
          ...(policy !== undefined ? { policy } : {}),
          runtime: inputs.runtime,
          ...(inputs.model !== undefined ? { model: inputs.model } : {}),
          concurrency: inputs.concurrency ?? DEFAULT_AUTO_CONCURRENCY,
          onFail: inputs.continueOnFail ? "continue" : "halt",
          pr: {
            title: event.title,
            body: event.body,
            headSha: event.headSha,
            baseRef: event.baseRef,
          },
          plannerTimeoutMs: 20 * 60_000,
        },
        agentConfig.prepare,
      ),
    );
  } finally {
    await agentConfig.finish();
  }
  const notes = [...run.notes, ...agentConfig.notes];
  switch (result.kind) {
    case "usage_error":
      return endRun(run, { kind: "usage-error", message: result.message }, notes);
    case "refused":
      return endRun(run, { kind: "refused", reason: "build-evidence", message: result.message }, notes);
    case "finished":
      return reportRun(run, result, notes);
    default:
      return unreachable(result);
  }
}
