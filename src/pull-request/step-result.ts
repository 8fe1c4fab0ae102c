/**
 * How the step ends (SPEC §10, §11): the outputs, and whether the step fails. `outcome` decides: the step
 * fails for `failed`, `refused`, `usage-error`, `cancelled` and `timed-out`; it passes with a warning for
 * `paused` and for a passed run whose check run is not `success` (the check run carries the verdict).
 */
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import { writeJobSummary } from "../github/job-summary.js";
import { type Conclusion, decideEndWithoutRows, type RunEnd } from "../ledger/conclusion.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import type { Runner } from "./runner.js";
import { noTrustedGit } from "./trusted-executables.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** Outputs of the step (SPEC §11). */
export interface StepResult {
  readonly outcome: Conclusion["outcome"];
  /** The check run's conclusion; `""` when the mode posts none (`lint`). */
  readonly conclusion: string;
  readonly checkRunId?: number;
  readonly checkRunUrl?: string | null;
  readonly runId?: string;
  readonly ledgerPath?: string;
  readonly evidenceTree?: string | null;
}

const FAILING_OUTCOMES = new Set(["failed", "refused", "usage-error", "cancelled", "timed-out", "abandoned"]);

/** Sets the outputs, then fails the step or warns as `outcome` and `conclusion` say. */
export function finishStep(runner: Runner, result: StepResult, title: string): void {
  runner.setOutput("outcome", result.outcome);
  if (result.conclusion !== "") runner.setOutput("conclusion", result.conclusion);
  if (result.checkRunId !== undefined) runner.setOutput("check-run-id", String(result.checkRunId));
  if (result.checkRunUrl) runner.setOutput("check-run-url", result.checkRunUrl);
  if (result.runId) runner.setOutput("run-id", result.runId);
  if (result.ledgerPath) runner.setOutput("ledger-path", result.ledgerPath);
  if (result.evidenceTree) runner.setOutput("evidence-tree", result.evidenceTree);
  if (FAILING_OUTCOMES.has(result.outcome)) {
    runner.setFailed(`evidence-gate: ${title}`);
  } else if (result.outcome === "paused" || (result.conclusion !== "" && result.conclusion !== "success")) {
    runner.warning(`evidence-gate: ${title} (check run conclusion: ${result.conclusion})`);
  }
}

/** A usage error before any check run exists: outcome `usage-error`, the step fails. */
export function usageFailure(runner: Runner, message: string): void {
  runner.setOutput("outcome", "usage-error");
  runner.setFailed(`evidence-gate: ${message}`);
}

/**
 * Ends the step before any check run exists, with the reason in the job summary too (a resume whose run
 * cannot be found, say): the step fails with `outcome`.
 */
export async function failWithoutCheckRun(
  runner: Runner,
  env: Env,
  end: { readonly outcome: "usage-error" | "failed"; readonly title: string; readonly message: string },
): Promise<void> {
  const { outcome, title, message } = end;
  await writeJobSummary(`## ⚠️ evidence-gate: ${title}\n\n${message}\n`, { env });
  runner.setOutput("outcome", outcome);
  runner.setFailed(`evidence-gate: ${title}: ${message}`);
}

/**
 * Completes a created check run for a run that ended before any node ran (refusal, usage error, unreadable
 * graph or policy): the same Markdown goes to the check run and the job summary, then the step ends.
 * `reporter` is `null` when this step posts no check run (a fork's pull request, SPEC §10): the job summary
 * and the step's status carry the end alone.
 */
export async function endEarly(
  runner: Runner,
  reporter: CheckRunReporter | null,
  end: Exclude<RunEnd, { kind: "completed" }>,
  message: string,
  env: Env,
  notes: readonly string[] = [],
): Promise<void> {
  const decided = decideEndWithoutRows(end);
  // `decided.reason` already quotes `message` and adds what was (not) spent.
  const summary = `## ${decided.title}\n\n${decided.reason}\n${notes.map((note) => `\n> ${escapeInline(note)}\n`).join("")}`;
  await writeJobSummary(summary, { env });
  if (reporter !== null) await reporter.end(decided.conclusion, decided.title, summary);
  finishStep(
    runner,
    { outcome: decided.outcome, conclusion: decided.conclusion },
    `${decided.title}: ${message}`,
  );
}

/**
 * Ends the step on a missing trusted `git` (the job's set-up to fix, never "an internal error"): a usage
 * error on `reporter`'s check run when it is open, else on the job summary alone. A failed write is
 * reported and the step still fails as a usage error. Shared by {@link completeAfterCrash} and the action's
 * last-resort handler (before any check run existed).
 */
export async function endOnUntrustedGit(
  runner: Runner,
  reporter: CheckRunReporter | null,
  message: string,
  env: Env,
): Promise<void> {
  try {
    await endEarly(runner, reporter, { kind: "usage-error", message }, message, env);
  } catch (writeError) {
    runner.error(
      `could not ${reporter !== null ? "complete the check run" : "write the job summary"} after the usage error: ${writeError instanceof Error ? writeError.message : String(writeError)}`,
    );
    usageFailure(runner, message);
  }
}

/**
 * The crash path of a run that built a check-run reporter (issue 24: the reporter is handed down, never back
 * up to the action's entry). `error` was thrown after `reporter` existed:
 *
 * - no trusted `git` ({@link noTrustedGit}): the job's set-up to fix, not an internal error — ended as a
 *   usage error naming the fix ({@link endEarly}), on the check run when one is open; resolves (the step's
 *   outcome is set);
 * - anything else: the check run, when open and not completed, is completed `failure` ("the run ended with
 *   an internal error", the message quoted), then `error` is rethrown for the last-resort handler, which
 *   sets the outcome `failed` and fails the step (a crashed run never leaves the check green).
 *
 * A failed completion write is logged as an error and never hides `error`.
 */
export async function completeAfterCrash(
  runner: Runner,
  reporter: CheckRunReporter,
  error: unknown,
  env: Env,
): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const open = reporter.ref !== null && !reporter.completed;
  if (noTrustedGit(error)) return endOnUntrustedGit(runner, open ? reporter : null, message, env);
  if (open) {
    try {
      await reporter.end(
        "failure",
        "evidence-gate: the run ended with an internal error",
        `The engine stopped with an internal error:\n\n\`\`\`\n${message}\n\`\`\``,
      );
    } catch (writeError) {
      runner.error(
        `could not complete the check run after the error: ${writeError instanceof Error ? writeError.message : String(writeError)}`,
      );
    }
  }
  throw error;
}
