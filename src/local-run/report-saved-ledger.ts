/**
 * `evidence-gate report RUN_ID --repository OWNER/NAME --sha SHA` (SPEC §11): a saved run's ledger posted
 * as a completed check run, after the fact. Like the action (SPEC §6), one check run per check name and
 * head SHA: an evidence-gate check run already on that commit (`external_id` a run id) is taken over and
 * completed with this ledger, so posting twice leaves one check run.
 *
 * The commit must be the one the ledger is about — the commit its verdicts were judged against (after
 * `--commit`, the commit it made; else the pull request head it was given, or its starting commit) — or the
 * check run would carry a verdict about another tree.
 */
import { CheckRunClient, type CheckRunRef, CheckRunWriteError } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import { apiUrlFromEnv, octokitFromEnv } from "../github/octokit.js";
import type { Ledger } from "../ledger/ledger.js";

/** What posting a saved ledger needs. */
export interface ReportSavedLedgerOptions {
  readonly ledger: Ledger;
  /** The GitHub token (`GITHUB_TOKEN`, else `GH_TOKEN`). */
  readonly token: string;
  /** The environment: `GITHUB_API_URL` (default github.com) and the retry waits. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `OWNER/NAME`. */
  readonly repository: string;
  /** The commit (40 hex) the check run is posted on. */
  readonly sha: string;
  readonly checkName: string;
  /** Redacts known secrets from an error message. */
  readonly redact: (text: string) => string;
  readonly warn: (message: string) => void;
}

/** The outcome of posting: the completed check run (and whether an earlier one was taken over), or why not. */
export type ReportSavedLedgerResult =
  | { readonly kind: "posted"; readonly ref: CheckRunRef; readonly tookOver: boolean }
  | { readonly kind: "usage_error"; readonly message: string }
  | { readonly kind: "write_failed"; readonly message: string };

/**
 * The commits a ledger's check run may be posted on: its posted commit after `--commit`/push, else its
 * pull request head and its starting commit (40 hex, lower case).
 */
export function reportableCommits(ledger: Ledger): string[] {
  if (ledger.postedCommit !== undefined) return [ledger.postedCommit.sha.toLowerCase()];
  return [
    ...new Set(
      [ledger.headSha, ledger.startingCommit?.sha]
        .filter((s): s is string => s !== undefined)
        .map((s) => s.toLowerCase()),
    ),
  ];
}

/**
 * Posts the ledger as a completed check run on `sha` (creating it, or taking over the evidence-gate check
 * run already on that commit).
 *
 * @returns the check run, or why nothing was posted (`usage_error`: another commit, a bad API URL) or
 *   the write failed (redacted).
 */
export async function reportSavedLedger(o: ReportSavedLedgerOptions): Promise<ReportSavedLedgerResult> {
  const apiUrl = apiUrlFromEnv(o.env);
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    return {
      kind: "usage_error",
      message: `GITHUB_API_URL ${JSON.stringify(apiUrl)} is not an http(s) URL: unset it for github.com, or give your GitHub Enterprise Server's API URL`,
    };
  }
  const allowed = reportableCommits(o.ledger);
  if (!allowed.includes(o.sha.toLowerCase())) {
    return {
      kind: "usage_error",
      message:
        allowed.length === 0
          ? `the ledger of run ${o.ledger.runId} names no commit, so it cannot be tied to ${o.sha}`
          : `run ${o.ledger.runId}'s ledger is about ${allowed.join(" or ")}, not ${o.sha}: give --sha ${allowed[0]} (a verdict about one tree is never posted on another commit)`,
    };
  }
  const [owner, repo] = o.repository.split("/") as [string, string];
  const reporter = new CheckRunReporter({
    client: new CheckRunClient({
      octokit: octokitFromEnv(o.token, o.env),
      owner,
      repo,
      warn: o.warn,
      redact: o.redact,
      surface: "cli",
    }),
    name: o.checkName,
    headSha: o.sha,
  });
  try {
    const opened = await reporter.open(
      o.ledger.runId,
      `Run \`${o.ledger.runId}\`: posting its saved ledger.`,
      "evidence-gate: reporting",
    );
    const ref = await reporter.finish(o.ledger);
    return { kind: "posted", ref, tookOver: opened.tookOver !== null };
  } catch (error) {
    if (!(error instanceof CheckRunWriteError)) throw error;
    return { kind: "write_failed", message: o.redact(error.message) };
  }
}
