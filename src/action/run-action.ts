/**
 * The action's main job (SPEC §2, §6, §10): read the inputs once, run the mode they name, map the result to
 * the check run, the job summary, the outputs and the step's status.
 *
 * - `auto` / `run` / `verify` (pull_request and the other triggers): the run service opens the pull
 *   request's run (`pull-request/pull-request-run.ts`: the check run `in_progress` on the PR head before anything
 *   else, the maintainers' policy file from the base ref) and runs its mode.
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
import { runPullRequest } from "../pull-request/pull-request-run.js";
import { runReportMode } from "../pull-request/report-mode.js";
import { runResumeMode } from "../pull-request/resume-mode.js";
import { type Env, endOnUntrustedGit } from "../pull-request/step-result.js";
import { noTrustedGit, trustEngineExecutables } from "../pull-request/trusted-executables.js";
import { actionSecrets } from "../run/credentials.js";
import type { ModelCalls } from "../runtime/model-calls.js";
import { lintRequested, readActionInputs } from "./inputs.js";
import { failLintInputs, runLintMode } from "./lint-mode.js";
import { coreRunner } from "./runner.js";

/** What {@link runAction} can be handed instead of the real thing. */
export interface ActionSeams {
  /**
   * The model calls the engine makes (`runtime/model-calls.ts`); absent (as the runner starts the action):
   * the real CLI from the tool cache. The port tier's tests hand the scripted stand-in here, and the run
   * still finds and pins the tool cache's executable first (issue 24 item 1).
   */
  readonly modelCalls?: ModelCalls;
}

/**
 * Runs the action; sets outputs and the step's status. Never throws. The last-resort handler: a mode that
 * built a check-run reporter has already completed its check run when an error reaches here
 * (`completeAfterCrash` in `pull-request/step-result.ts`), so this sets the step's outcome only — a usage
 * error for an untrusted `git` met before any check run existed, else `failed`.
 */
export async function runAction(
  env: Env = process.env,
  signal?: AbortSignal,
  seams: ActionSeams = {},
): Promise<void> {
  try {
    await main(env, signal, seams);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Before anything ran (the first engine git call, or the trusted git directory): a usage error
    // naming the fix, never "an internal error".
    if (noTrustedGit(error)) return endOnUntrustedGit(coreRunner, null, message, env);
    core.setOutput("outcome", "failed");
    core.setFailed(`evidence-gate: ${message}`);
  }
}

/**
 * The action's main job, without the last-resort handler ({@link runAction} adds it): the trusted
 * executables, the inputs read once, the secrets masked, then the mode — lint, resume, report, or the pull
 * request's run (`auto`, `run`, `verify`: `pull-request/pull-request-run.ts`). Each mode builds its own
 * check-run reporter and completes it on a crash; nothing is handed back up. Rejects on internal errors.
 */
async function main(env: Env, signal: AbortSignal | undefined, seams: ActionSeams): Promise<void> {
  // Before anything else runs: which git, sh and npm the engine runs (never a PATH entry the PR can write).
  trustEngineExecutables(env, coreRunner);
  const parsed = readActionInputs(env);
  const secrets = actionSecrets(parsed.ok ? parsed.inputs : null, env);
  // Mask every form the redactor knows (raw, base64 at each offset, URL-encoded…) in the live log too.
  for (const secret of secrets) for (const form of secretForms(secret)) core.setSecret(form);

  // Lint is decided from the raw `mode` input first: it never calls the API, even to report bad inputs.
  if (lintRequested(env)) {
    if (!parsed.ok) return failLintInputs(env, parsed.errors);
    if (parsed.inputs.mode.kind !== "lint")
      throw new Error(`Internal error: mode lint was read as ${parsed.inputs.mode.kind}`);
    return runLintMode({ env, inputs: parsed.inputs, mode: parsed.inputs.mode });
  }
  const base = {
    runner: coreRunner,
    env,
    ...(signal ? { signal } : {}),
    ...(seams.modelCalls !== undefined ? { modelCalls: seams.modelCalls } : {}),
    secrets,
  };
  if (parsed.ok && parsed.inputs.mode.kind === "resume")
    return runResumeMode({ ...base, inputs: parsed.inputs, mode: parsed.inputs.mode });
  if (parsed.ok && parsed.inputs.mode.kind === "report")
    return runReportMode({ ...base, inputs: parsed.inputs });
  return runPullRequest({ ...base, parsed });
}
