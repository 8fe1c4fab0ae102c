/**
 * The verdict reaches the outputs and the job summary as what it is on GitHub (issue 21 item 7: "outputs
 * never claim more than the check run"). The job summary and `conclusion` are written once the check run
 * was completed; when completing it fails, the output `conclusion` reads `<verdict> (not posted)` and the
 * summary's heading says the verdict was reached and not posted, then the step fails with the API's answer.
 * A later step that reads `conclusion == 'success'` is not misled, and the ledger is still in the summary.
 */
import { writeJobSummary } from "../github/job-summary.js";
import type { Runner } from "./runner.js";
import type { Env } from "./step-result.js";

/** The check run could not be completed with the engine's verdict: the message names both. */
export class VerdictNotPostedError extends Error {
  constructor(
    readonly verdict: string,
    cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `the engine's verdict was ${verdict}, but completing the check run failed, so it was not posted: ${why}`,
    );
    this.name = "VerdictNotPostedError";
  }
}

/** The output `conclusion` when the verdict did not reach the check run: `success (not posted)`. */
export function notPostedConclusion(verdict: string): string {
  return `${verdict} (not posted)`;
}

/**
 * `markdown` (a ledger whose first line is its `## … evidence-gate: <verdict> — <title>` heading) with that
 * heading replaced by one saying the verdict was not posted, and a paragraph saying why.
 */
export function notPostedMarkdown(markdown: string, error: VerdictNotPostedError): string {
  const heading = `## ⚠️ evidence-gate: ${error.verdict} — not posted: the check run could not be completed`;
  const why = `The engine reached the verdict **${error.verdict}**, but it is not on the check run: ${error.message}. The post step completes the check run \`failure\`; the ledger below is what the engine found.`;
  const [first = "", ...rest] = markdown.split("\n");
  return first.startsWith("## ")
    ? [heading, "", why, ...rest].join("\n")
    : [heading, "", why, "", markdown].join("\n");
}

/**
 * Runs `post` (the check-run write that carries `verdict`), then writes `markdown` to the job summary.
 * When `post` throws, the output `conclusion` says the verdict was not posted, the summary's heading says
 * so too, and a {@link VerdictNotPostedError} is thrown (the step fails).
 *
 * @param o.redact applied to the summary (known secrets), as `writeJobSummary` takes it.
 * @throws VerdictNotPostedError wrapping `post`'s error.
 */
export async function postVerdict<T>(
  o: {
    readonly runner: Pick<Runner, "setOutput">;
    readonly env: Env;
    readonly verdict: string;
    readonly markdown: string;
    readonly redact?: (text: string) => string;
  },
  post: () => Promise<T>,
): Promise<T> {
  const summaryOptions = { env: o.env, ...(o.redact !== undefined ? { redact: o.redact } : {}) };
  let posted: T;
  try {
    posted = await post();
  } catch (error) {
    const notPosted = new VerdictNotPostedError(o.verdict, error);
    o.runner.setOutput("conclusion", notPostedConclusion(o.verdict));
    await writeJobSummary(notPostedMarkdown(o.markdown, notPosted), summaryOptions);
    throw notPosted;
  }
  await writeJobSummary(o.markdown, summaryOptions);
  return posted;
}
