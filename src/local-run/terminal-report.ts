/**
 * How a CLI run reports (SPEC §2, §6, §10), the same for `auto`, `run` and `resume`: progress lines on
 * stdout (stderr under `--json`, so stdout is the ledger JSON alone), the check run — posted with
 * `--repository`, recorded with `--check-run-out`, never left half-done (a crash completes it) — and, when
 * the run finishes, the ledger printed, `--summary-out` written and the exit code decided.
 */

import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { clip } from "../core/clip.js";
import { startingCommit } from "../evidence/evidence-tree.js";
import { CheckRunClient, CheckRunWriteError } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import { apiUrlFromEnv, createOctokit, type GateOctokit } from "../github/octokit.js";
import { createRecordingOctokit, type RecordedRequest } from "../github/recording-octokit.js";
import { decideEndWithoutRows, type RunEnd } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import { renderLedgerJson } from "../ledger/render-json.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import type { PolicyFileResult } from "../policy/policy-file.js";
import { type CliSecrets, cliSecrets } from "../run/credentials.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import type { ReportFlags } from "./local-setup.js";
import { type CliIo, readCliPolicy, refuseUsage } from "./local-setup.js";

/** What opening a report needs: the command (for messages), its report flags, its process and secrets. */
export interface ReportContext {
  readonly command: "auto" | "run" | "verify" | "resume";
  readonly flags: ReportFlags;
  readonly io: CliIo;
  readonly secrets: CliSecrets;
}

/** Why {@link RunReport.start} created no check run. */
export interface CheckRunNotCreated {
  /** The API error's message, redacted, without a stack trace. */
  readonly message: string;
  /** GitHub refused the token (401/403/404, not a rate limit): the operator's setup to fix (exit 64). */
  readonly tokenRefused: boolean;
}

/** A run that ended before any node ran: a usage error, or a refusal (SPEC §5). */
/** The most characters of what a fresh run is (its goal's first line, its graph) shown in its starting check run. */
const START_WHAT_MAX_CHARS = 500;

export type EarlyEnd = Extract<
  RunEnd,
  { kind: "usage-error" } | { kind: "refused" } | { kind: "setup-failed" }
>;

/**
 * What a fresh run (`auto`, `run`) sets up before it starts: the secrets in the environment, the report
 * and the maintainers' policy file from the working tree (SPEC §11; a malformed one stops the command).
 *
 * @returns them, or the exit code after printing why the command stops.
 */
export async function prepareFreshRun(o: {
  readonly command: "auto" | "run" | "verify";
  readonly flags: ReportFlags;
  readonly io: CliIo;
  readonly repoDir: string;
}): Promise<
  | {
      readonly secrets: CliSecrets;
      readonly report: RunReport;
      readonly policyFile: Extract<PolicyFileResult, { ok: true }>;
    }
  | { readonly exit: number }
> {
  const secrets = cliSecrets(o.io.env);
  const report = RunReport.open({ command: o.command, flags: o.flags, io: o.io, secrets });
  if (typeof report === "string") return { exit: refuseUsage(o.io, o.command, [report])! };
  const policyFile = await readCliPolicy(o.repoDir, report);
  if (policyFile === null) return { exit: EXIT.usage };
  return { secrets, report, policyFile };
}

/** The reporting side of one CLI run. Make it with {@link RunReport.open}. */
export class RunReport {
  readonly #ctx: ReportContext;
  readonly #octokit: GateOctokit | null;
  readonly #recorded: RecordedRequest[] | null;
  readonly #owner: string;
  readonly #repo: string;
  #reporter: CheckRunReporter | null = null;

  private constructor(ctx: ReportContext, octokit: GateOctokit | null, recorded: RecordedRequest[] | null) {
    this.#ctx = ctx;
    this.#octokit = octokit;
    this.#recorded = recorded;
    const [owner, repo] = ctx.flags.repository?.split("/") ?? ["local", "repository"];
    this.#owner = owner ?? "local";
    this.#repo = repo ?? "repository";
  }

  /**
   * The report of a run: with `--repository`, a client for the GitHub API (the token from `GITHUB_TOKEN`,
   * the URL from `GITHUB_API_URL`); with `--check-run-out`, a client that records the requests.
   *
   * @returns the report, or a usage problem (nothing ran).
   */
  static open(ctx: ReportContext): RunReport | string {
    const { flags, io, secrets } = ctx;
    if (flags.repository !== undefined) {
      if (secrets.githubToken === undefined)
        return "--repository needs a token in GITHUB_TOKEN to post the check run";
      const apiUrl = apiUrlFromEnv(io.env);
      if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
        return `GITHUB_API_URL ${JSON.stringify(apiUrl)} is not an http(s) URL: unset it for github.com, or give your GitHub Enterprise Server's API URL`;
      }
      return new RunReport(ctx, createOctokit({ token: secrets.githubToken, baseUrl: apiUrl }), null);
    }
    if (flags.checkRunOut !== undefined) {
      const recording = createRecordingOctokit();
      return new RunReport(ctx, recording.octokit, recording.requests);
    }
    return new RunReport(ctx, null, null);
  }

  /** True when the run has a check run (posted or recorded). */
  get checkRun(): boolean {
    return this.#octokit !== null;
  }

  /** A progress line: stdout, or stderr under `--json`. */
  line(text: string): void {
    (this.#ctx.flags.json ? this.#ctx.io.err : this.#ctx.io.out).write(`${text}\n`);
  }

  /** A problem, on stderr, prefixed with the command. */
  error(text: string): void {
    this.#ctx.io.err.write(`evidence-gate ${this.#ctx.command}: ${text}\n`);
  }

  /**
   * The commit the check run is posted on: `--sha`, else HEAD. It must be the commit the run verifies —
   * HEAD, or, when HEAD is a test merge commit, the PR head merged into it (its second parent); any other
   * SHA would carry a verdict about another tree.
   *
   * @returns the SHA, or a usage problem.
   */
  async headFor(repoDir: string): Promise<{ readonly sha: string } | { readonly problem: string }> {
    const { flags, io, secrets } = this.#ctx;
    let start: Awaited<ReturnType<typeof startingCommit>>;
    try {
      start = await startingCommit(repoDir, { baseEnv: io.env, knownSecrets: secrets.knownSecrets });
    } catch (error) {
      return { problem: `--repo ${repoDir}: ${error instanceof Error ? error.message : String(error)}` };
    }
    const headSha = flags.sha ?? start.sha;
    const allowed = [start.sha, ...(start.parents.length === 2 ? [start.parents[1]!] : [])];
    if (!allowed.some((sha) => sha.toLowerCase() === headSha.toLowerCase())) {
      return {
        problem: `--sha ${headSha} is not the commit this run verifies: give HEAD (${start.sha})${start.parents.length === 2 ? ` or the head merged into it (${start.parents[1]})` : ""}, or leave --sha out`,
      };
    }
    return { sha: headSha };
  }

  /**
   * Before a fresh run (`auto`, `run`, `verify`): creates the check run `in_progress` on the commit the
   * run verifies ({@link headFor}), saying what is starting. No-op without a check run.
   *
   * @returns `null` to go on, or the exit code after printing why nothing ran: 64 when GitHub refused the
   *   token (`CheckRunWriteError.tokenRefused`: the message names `checks: write` and the fix — the
   *   operator's setup, like any usage error), 1 when the API failed otherwise (5xx after the retries, no
   *   answer, a rate limit).
   */
  async startFresh(runId: string, repoDir: string, what: string): Promise<number | null> {
    if (!this.checkRun) return null;
    const head = await this.headFor(repoDir);
    if ("problem" in head) {
      this.error(head.problem);
      return EXIT.usage;
    }
    // `what` is the operator's (a goal's first line, a graph's path): bounded, so a long one cannot push the
    // starting summary past GitHub's limit (the full goal is in the ledger).
    const shown = clip(what, START_WHAT_MAX_CHARS);
    const notStarted = await this.start(runId, head.sha, `Run \`${runId}\` is starting: ${shown}`);
    if (notStarted === null) return null;
    // Nothing ran yet: say why the check run could not be created, without a stack trace.
    this.error(`${notStarted.message}\nNothing was run.`);
    return notStarted.tokenRefused ? EXIT.usage : EXIT.failed;
  }

  /**
   * Creates the check run `in_progress` on `headSha` (no-op without a check run).
   *
   * @returns `null`, or why the check run could not be created (its message redacted, no stack trace) and
   *   whether GitHub refused the token (`CheckRunWriteError.tokenRefused`).
   */
  async start(runId: string, headSha: string, summary: string): Promise<CheckRunNotCreated | null> {
    if (this.#octokit === null) return null;
    this.#reporter = this.#makeReporter(headSha);
    try {
      await this.#reporter.start(runId, summary);
      return null;
    } catch (error) {
      if (!(error instanceof CheckRunWriteError)) throw error;
      this.#reporter = null;
      return { message: this.#ctx.secrets.redactor.text(error.message), tokenRefused: error.tokenRefused };
    }
  }

  /** Updates the check run with an in-progress ledger (best effort; the plan update is never throttled). */
  async progress(ledger: Ledger, kind: "plan" | "node"): Promise<void> {
    await this.#reporter?.progress(ledger, kind === "plan");
  }

  /**
   * The engine threw: the check run is completed `failure` saying so (it never stays in progress), the
   * recorded requests are written, and the caller rethrows.
   */
  async crashed(runId: string, error: unknown): Promise<void> {
    if (this.#reporter !== null && !this.#reporter.completed) {
      await this.#reporter.end(
        "failure",
        "evidence-gate: the engine crashed",
        `The run \`${runId}\` ended with an internal error: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.#writeRecorded();
  }

  /**
   * The run ended before any node ran: the message on stderr, the check run completed with the decided
   * conclusion, the recorded requests and the summary written, and — when there is a check run — its
   * conclusion printed.
   */
  async endedEarly(end: EarlyEnd): Promise<void> {
    const decided = decideEndWithoutRows(end);
    this.error(end.message);
    if (this.#reporter !== null)
      await this.#reporter.end(decided.conclusion, decided.title, `${decided.title}\n\n${end.message}`);
    this.#writeRecorded();
    this.#writeSummary(`# evidence-gate\n\n${end.message}\n`);
    // A conclusion is a check run's: without one (no --repository, no --check-run-out) there is none to print.
    if (this.checkRun) this.line(`conclusion: ${decided.conclusion}`);
  }

  /**
   * The run finished: the check run completed with the ledger (after `--commit` made a new commit, the
   * starting commit's check run is completed `neutral` as superseded and a new one reports the verified
   * commit), the ledger printed (table, or JSON under `--json`), `--summary-out` written, then `next`.
   *
   * @returns the exit code: by the run's outcome, or 1 when the check run could not be written.
   */
  async finished(
    runId: string,
    result: { readonly ledger: Ledger; readonly ledgerPath: string },
    o: {
      readonly commit: boolean;
      /** Lines printed after the ledger: how to continue a paused run. */
      readonly next: readonly string[];
    },
  ): Promise<number> {
    const { ledger } = result;
    const { flags, io, secrets } = this.#ctx;
    let postError: string | null = null;
    if (this.#reporter !== null) {
      try {
        if (ledger.postedCommit !== undefined) {
          // --commit made a new commit: the check run for the starting commit is superseded (SPEC §10).
          await this.#reporter.end(
            "neutral",
            `superseded by ${ledger.postedCommit.sha.slice(0, 7)}`,
            `The nodes' changes were committed as ${ledger.postedCommit.sha}; the evidence is reported on that commit.`,
          );
          this.#reporter = this.#makeReporter(ledger.postedCommit.sha);
          await this.#reporter.start(
            runId,
            `Run \`${runId}\`: reporting the verified commit.`,
            "evidence-gate: reporting",
          );
        }
        await this.#reporter.finish(ledger);
      } catch (error) {
        // The ledger is still printed and written below; the failed write is reported and fails the command.
        if (!(error instanceof CheckRunWriteError)) throw error;
        postError = secrets.redactor.text(error.message);
      }
    }
    this.#writeRecorded();
    this.#writeSummary(renderLedgerMarkdown(ledger));
    if (flags.json) io.out.write(renderLedgerJson(ledger));
    else io.out.write(`\n${renderLedgerText(ledger)}\n`);
    if (o.commit && ledger.postedCommit !== undefined) {
      this.line(
        `--commit: the nodes' changes are committed as ${ledger.postedCommit.sha} (see them with: git show ${ledger.postedCommit.sha.slice(0, 12)})`,
      );
    }
    if (o.commit && ledger.postedCommit === undefined && ledger.patch !== undefined) {
      const why = ledger.patch.holdsSecret
        ? "the changes hold a known secret (a token or model key), which is never committed"
        : ledger.patch.notCommittedBecause !== undefined
          ? `${ledger.patch.notCommittedBecause} (${ledger.conclusion?.title ?? "see the ledger"})`
          : ledger.conclusion?.outcome === "paused"
            ? "the run paused (resume it with --commit to commit once it completes)"
            : ledger.conclusion?.outcome === "failed"
              ? "the run did not pass"
              : `the run ended ${ledger.conclusion?.outcome ?? "without a conclusion"} (${ledger.conclusion?.title ?? "see the ledger"})`;
      this.line(
        `--commit: nothing was committed because ${why}; the nodes' changes are in ${ledger.patch.path}`,
      );
    }
    if (o.commit && ledger.postedCommit === undefined && ledger.patch === undefined)
      this.line(nothingToCommit(ledger));
    this.line(`ledger: ${result.ledgerPath}`);
    for (const line of o.next) this.line(line);
    if (postError !== null) {
      this.error(`the run finished but its check run could not be posted: ${postError}`);
      return EXIT.failed;
    }
    return exitCodeFor(ledger);
  }

  #makeReporter(headSha: string): CheckRunReporter {
    const { flags, io, secrets } = this.#ctx;
    return new CheckRunReporter({
      client: new CheckRunClient({
        octokit: this.#octokit!,
        owner: this.#owner,
        repo: this.#repo,
        warn: (m) => io.err.write(`${m}\n`),
        redact: secrets.redactor.text,
        surface: "cli",
      }),
      name: flags.checkName,
      headSha,
      onProgressError: (error) =>
        io.err.write(
          `could not update the check run with progress: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
    });
  }

  /** `--summary-out`, relative to the command's directory. */
  #writeSummary(markdown: string): void {
    const path = this.#ctx.flags.summaryOut;
    if (path !== undefined) writeFileSync(resolve(this.#ctx.io.cwd, path), markdown);
  }

  #writeRecorded(): void {
    const path = this.#ctx.flags.checkRunOut;
    if (path === undefined || this.#recorded === null) return;
    writeFileSync(resolve(this.#ctx.io.cwd, path), `${JSON.stringify(this.#recorded, null, 2)}\n`);
    // Progress, not the result: on stderr, so stdout stays the ledger alone under --json.
    this.#ctx.io.err.write(`check-run requests: ${path}\n`);
  }
}

/**
 * The `--commit` line of a run that left no changes to commit (no commit made, no `patch.diff`): `--commit`
 * is never silent (issue 26). The nodes changed nothing, or the run stopped before a node changed a file.
 */
function nothingToCommit(ledger: Ledger): string {
  const start = ledger.startingCommit?.sha;
  return `--commit: nothing to commit: the nodes changed no file${start !== undefined ? ` (HEAD stays ${start.slice(0, 7)})` : ""}`;
}
