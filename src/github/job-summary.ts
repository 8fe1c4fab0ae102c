/**
 * The job summary: Markdown appended to the file named by `GITHUB_STEP_SUMMARY`. It needs no token
 * permission, so it works on fork PRs, and it always carries the full ledger (SPEC §6, §10).
 *
 * GitHub shows at most 1 MiB per step; a bigger summary is dropped with an error annotation
 * (https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary).
 * So the text is cut, with a notice, to what is left of that budget after earlier appends in this step.
 *
 * The summary is public to anyone who can read the workflow run, so it is redacted before it is written
 * (SPEC §9): by the caller's `redact` (known secrets), then of token shapes (`core/token-shapes.ts`), whoever
 * called.
 */
import { appendFile, stat } from "node:fs/promises";
import * as core from "@actions/core";
import { redactTokenShapes } from "../core/token-shapes.js";
import { truncateUtf8, utf8Bytes } from "../ledger/byte-budget.js";

export const JOB_SUMMARY_MAX_BYTES = 1024 * 1024;

const CUT_NOTICE =
  "**Cut by evidence-gate:** GitHub shows at most 1 MiB of job summary per step. " +
  "The full ledger is in the run's ledger artifact.";

export type JobSummaryResult =
  | { readonly kind: "written"; readonly path: string; readonly bytes: number; readonly cut: boolean }
  | { readonly kind: "skipped"; readonly reason: "GITHUB_STEP_SUMMARY unset" };

export interface WriteJobSummaryOptions {
  /** Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Told when there is nowhere to write. Default `core.notice`. */
  readonly notice?: (message: string) => void;
  /** Applied to the Markdown before it is written (known secrets). Default: none; token shapes are redacted either way. */
  readonly redact?: (text: string) => string;
}

/** Appends `markdown` (plus a trailing newline) to the step's summary file. */
export async function writeJobSummary(
  markdown: string,
  options: WriteJobSummaryOptions = {},
): Promise<JobSummaryResult> {
  const env = options.env ?? process.env;
  const path = env.GITHUB_STEP_SUMMARY?.trim();
  if (path === undefined || path === "") {
    (options.notice ?? core.notice)(
      "GITHUB_STEP_SUMMARY is not set (not running in GitHub Actions?): no job summary was written.",
    );
    return { kind: "skipped", reason: "GITHUB_STEP_SUMMARY unset" };
  }
  const used = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  const redacted = redactTokenShapes(options.redact === undefined ? markdown : options.redact(markdown));
  const text = redacted.endsWith("\n") ? redacted : `${redacted}\n`;
  const budget = Math.max(0, JOB_SUMMARY_MAX_BYTES - used);
  let fitted = text;
  if (utf8Bytes(text) > budget)
    fitted = budget === 0 ? "" : `${truncateUtf8(text, budget - 1, CUT_NOTICE)}\n`;
  if (fitted !== "") await appendFile(path, fitted, "utf8");
  return { kind: "written", path, bytes: utf8Bytes(fitted), cut: fitted !== text };
}
