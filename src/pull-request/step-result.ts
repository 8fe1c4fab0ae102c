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
