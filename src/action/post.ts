/**
 * The action's post step (`runs.post: dist/post.js`; the runner runs it after the job's steps, on success,
 * failure and cancellation alike — `post-if` defaults to `always()`). SPEC §6: a check run the main step left
 * `in_progress` (or `queued`) is completed here — `cancelled` when the main step had received the runner's
 * SIGINT/SIGTERM, else `failure` ("the run ended before reporting"): never left green or stuck in progress.
 *
 * What the main step saved arrives as `STATE_<name>` variables (`core.getState`, names in ./state.ts). Nothing
 * is written when no check run was created, when the main step completed it itself, when GitHub already shows
 * it completed, or when its `external_id` names another run (a newer run took it over). A failed API call
 * fails this step with GitHub's answer: it is never swallowed. First of all, the separate user's fresh home
 * the main step left (cancelled, killed) is removed (issue 21 item 3; `pull-request/isolation-scope.ts`), and the
 * checkout's git directories are put back as they were before PR code ran (`proc/checkout-git.ts`).
 */
import * as core from "@actions/core";
import { createRedactor, secretForms } from "../core/redact.js";
import { CheckRunClient, type ExistingCheckRun } from "../github/check-run.js";
import { writeJobSummary } from "../github/job-summary.js";
import { octokitFromEnv } from "../github/octokit.js";
import { decideEndWithoutRows, type RunEnd } from "../ledger/conclusion.js";
import { removeLeftRunHome, restoreLeftCheckoutGit } from "../pull-request/isolation-scope.js";
import { SAVED_STATE } from "../pull-request/saved-state.js";

type Env = Readonly<Record<string, string | undefined>>;

/** What the post step did, for logs and tests. */
export type PostOutcome =
  | { readonly kind: "nothing-saved" }
  | { readonly kind: "completed-by-main"; readonly checkRunId: number }
  | { readonly kind: "already-completed"; readonly checkRunId: number; readonly conclusion: string | null }
  | { readonly kind: "taken-over"; readonly checkRunId: number; readonly externalId: string }
  | { readonly kind: "completed"; readonly checkRunId: number; readonly conclusion: "cancelled" | "failure" }
  | { readonly kind: "failed"; readonly message: string };

/** `core.getState` over `env` (the runner passes saved state as `STATE_<name>`). */
function savedState(env: Env, name: string): string {
  return (env[`STATE_${name}`] ?? "").trim();
}

/** Runs the post step; sets the step's status. Never throws. */
export async function runPost(env: Env = process.env): Promise<PostOutcome> {
  // First, whatever the check run needs: nothing a pull request's build wrote stays for the next job's.
  const removed = removeLeftRunHome(env);
  if (removed !== null) core.info(removed);
  try {
    // ... and nothing it wrote into the checkout's `.git` is there for actions/checkout's post step, which
    // runs after this one (post steps run in reverse order) and starts git in the checkout as the runner's
    // user — unless the main step recorded that it put `.git` back itself (`withPrCodeIsolation`).
    const restored = restoreLeftCheckoutGit(env);
    for (const line of restored.info) core.info(line);
    for (const line of restored.warnings) core.warning(line);
    return await post(env);
  } catch (error) {
    return fail(`evidence-gate post step: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function post(env: Env): Promise<PostOutcome> {
  const savedId = savedState(env, SAVED_STATE.checkRunId);
  if (savedId === "") {
    core.info(
      "evidence-gate post step: the main step saved no check run id (none was created): nothing to do.",
    );
    return { kind: "nothing-saved" };
  }
  if (!/^[1-9]\d*$/.test(savedId) || !Number.isSafeInteger(Number(savedId))) {
    return fail(
      `evidence-gate post step: the saved check run id ${JSON.stringify(savedId)} is not a check run id.`,
    );
  }
  const checkRunId = Number(savedId);
  if (savedState(env, SAVED_STATE.checkRunCompleted) === "true") {
    core.info(`evidence-gate post step: the main step completed check run ${checkRunId}: nothing to do.`);
    return { kind: "completed-by-main", checkRunId };
  }

  const cancelled = savedState(env, SAVED_STATE.cancelRequested) === "true";
  const runId = savedState(env, SAVED_STATE.runId);
  const leftInProgress = `the main step left check run ${checkRunId} unfinished${cancelled ? " after the workflow was cancelled" : ""}`;

  const token = env["INPUT_GITHUB-TOKEN"]?.trim() ?? "";
  if (token === "") {
    return fail(
      `evidence-gate post step: ${leftInProgress}, and input \`github-token\` is empty: it cannot be completed and stays in progress.`,
    );
  }
  for (const form of secretForms(token)) core.setSecret(form);
  const [owner = "", repo = "", extra] = (env.GITHUB_REPOSITORY ?? "").trim().split("/");
  if (owner === "" || repo === "" || extra !== undefined) {
    return fail(
      `evidence-gate post step: ${leftInProgress}, and GITHUB_REPOSITORY (${JSON.stringify(env.GITHUB_REPOSITORY ?? "")}) is not OWNER/NAME: it cannot be completed.`,
    );
  }

  const client = new CheckRunClient({
    octokit: octokitFromEnv(token, env),
    owner,
    repo,
    warn: (m) => core.warning(m),
    redact: createRedactor([token]).text,
  });

  let existing: ExistingCheckRun;
  try {
    existing = await client.get(checkRunId);
  } catch (error) {
    return failWrite(env, checkRunId, error, "could not be read");
  }
  if (existing.status === "completed") {
    core.info(
      `evidence-gate post step: check run ${checkRunId} is already completed (${existing.conclusion ?? "no conclusion"}): nothing to do.`,
    );
    return { kind: "already-completed", checkRunId, conclusion: existing.conclusion };
  }
  if (runId !== "" && existing.externalId !== null && existing.externalId !== runId) {
    core.info(
      `evidence-gate post step: check run ${checkRunId} now carries run ${existing.externalId}, not this run's ${runId}: that run completes it; left alone.`,
    );
    return { kind: "taken-over", checkRunId, externalId: existing.externalId };
  }

  const end: RunEnd = cancelled ? { kind: "cancelled" } : { kind: "abandoned" };
  const decided = decideEndWithoutRows(end);
  const conclusion = decided.conclusion === "cancelled" ? "cancelled" : "failure";
  const summary = postSummary(env, { cancelled, runId, title: decided.title, status: existing.status });
  try {
    await client.complete(checkRunId, { conclusion, title: decided.title, summary });
  } catch (error) {
    return failWrite(env, checkRunId, error, `could not be completed \`${conclusion}\``);
  }
  core.warning(
    `evidence-gate post step: ${leftInProgress} (${existing.status}); completed it \`${conclusion}\`: ${decided.title}.`,
  );
  await appendSummary(env, summary);
  return { kind: "completed", checkRunId, conclusion };
}

function postSummary(
  env: Env,
  facts: { cancelled: boolean; runId: string; title: string; status: string },
): string {
  const run = facts.runId === "" ? "the run" : `run \`${facts.runId}\``;
  const logs = workflowRunUrl(env);
  const where = logs === null ? "" : ` The step logs are in [the workflow run](${logs}).`;
  const body = facts.cancelled
    ? `The workflow was cancelled before ${run} finished: the main step was stopped before it could post its ledger and left the check run \`${facts.status}\`, so the action's post step completed it \`cancelled\`. Nothing here is a verdict on this change; re-run the job for one.`
    : `${run.charAt(0).toUpperCase()}${run.slice(1)} ended before reporting (the main step crashed or was killed): it left the check run \`${facts.status}\`, so the action's post step completed it \`failure\`. A run that did not report cannot pass; re-run the job.`;
  return `## ${facts.title}\n\n${body}${where}\n`;
}

/** `{server}/{owner}/{repo}/actions/runs/{id}`, or `null` when the runner's variables are missing. */
function workflowRunUrl(env: Env): string | null {
  const server = (env.GITHUB_SERVER_URL ?? "https://github.com").trim().replace(/\/+$/, "");
  const repository = env.GITHUB_REPOSITORY?.trim();
  const runId = env.GITHUB_RUN_ID?.trim();
  if (!repository || !runId || !/^\d+$/.test(runId)) return null;
  return `${server}/${repository}/actions/runs/${runId}`;
}

async function failWrite(env: Env, checkRunId: number, error: unknown, what: string): Promise<PostOutcome> {
  const message = error instanceof Error ? error.message : String(error);
  await appendSummary(
    env,
    `## ⚠️ evidence-gate: check run ${checkRunId} ${what}\n\nThe main step ended without completing it, and the post step's API call failed:\n\n${message}\n\nThe check run may still show as in progress; re-run the job.\n`,
  );
  return fail(`evidence-gate post step: check run ${checkRunId} ${what}: ${message}`);
}

async function appendSummary(env: Env, markdown: string): Promise<void> {
  try {
    await writeJobSummary(markdown, { env, notice: (m) => core.info(m) });
  } catch (error) {
    core.warning(
      `could not write the job summary: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function fail(message: string): PostOutcome {
  core.setFailed(message);
  return { kind: "failed", message };
}
