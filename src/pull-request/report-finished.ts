/**
 * Reports a finished run, whichever mode ran it (SPEC §6, §10, §11): uploads the run directory as
 * `evidence-gate-run-<run id>` and the ledger as `<check-name>-ledger`, writes the job summary (the full
 * ledger, the notes, how to resume a paused run, the artifacts), prints the text ledger (fenced), sets the
 * outputs — before the final write, so a refused write cannot hide the ledger from later steps — and
 * completes the check run with the ledger's conclusion. Without a reporter (a fork's pull request: the
 * token is read-only, SPEC §10) no check run is touched: the summary, the outputs, the step's status and the
 * `<check-name>-ledger` artifact carry the verdict, and `mode: report` posts the check run from that
 * artifact.
 */
import { createRedactor } from "../core/redact.js";
import { readRunState } from "../engine/run-state.js";
import {
  type ArtifactOutcome,
  artifactPageUrl,
  artifactsMarkdown,
  type RunArtifacts,
  uploadRunArtifacts,
} from "../github/artifact.js";
import { failureAnnotations, workflowFileFromEnv } from "../github/check-annotations.js";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import { writeJobSummary } from "../github/job-summary.js";
import { type RunStateDigests, runStateDigestMarker } from "../github/run-state-digest.js";
import {
  StickyCommentError,
  type StickyCommentTarget,
  upsertStickyComment,
} from "../github/sticky-comment.js";
import type { Ledger } from "../ledger/ledger.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { commentMarker, renderCommentBody } from "../ledger/render-comment.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { CommandFence } from "../proc/command-fence.js";
import { postVerdict } from "./posted-verdict.js";
import { resumeHintMarkdown } from "./resume-hint.js";
import type { Runner } from "./runner.js";
import { type Env, finishStep } from "./step-result.js";

export interface FinishedRun {
  readonly ledger: Ledger;
  readonly runDir: string;
  readonly ledgerPath: string;
  /** sha256 of `state.json` and `graph.json` as the engine left them: posted on the check run for resume. */
  readonly digests: RunStateDigests;
}

export interface ReportFinishedOptions {
  readonly runner: Runner;
  readonly finished: FinishedRun;
  readonly runId: string;
  /** `null`: this step posts no check run (the report workflow does). */
  readonly reporter: CheckRunReporter | null;
  readonly checkName: string;
  readonly env: Env;
  /** `RUNNER_TEMP`: where the redacted artifact copies are staged. */
  readonly temp: string;
  readonly secrets: readonly string[];
  /** Plain-text notes for the job summary (e.g. "this PR's copy of the graph was ignored"). */
  readonly notes?: readonly string[];
  /** The pull request to keep the sticky comment on (input `comment`); absent: no comment call. */
  readonly comment?: StickyCommentTarget;
  /** The checkout (`GITHUB_WORKSPACE`): the failures' annotations name files relative to it. */
  readonly workspace: string;
}

export async function reportFinished(o: ReportFinishedOptions): Promise<void> {
  const { finished, runId, runner } = o;
  const artifacts = await uploadRunArtifacts({
    runId,
    runDir: finished.runDir,
    ledgerPath: finished.ledgerPath,
    checkName: o.checkName,
    digests: finished.digests,
    stagingDir: o.temp,
    env: o.env,
    secrets: o.secrets,
    notice: (m) => runner.notice(m),
    warn: (m) => runner.warning(m),
  });
  const ledger = withPatchLocation(finished.ledger, artifacts);
  const conclusion = ledger.conclusion;
  if (conclusion === null) throw new Error("Internal error: a finished run's ledger has no conclusion");
  const hint = conclusion.outcome === "paused" ? pausedHint(runner, finished, runId) : undefined;
  const notes = (o.notes ?? []).map((note) => `> ${escapeInline(note)}\n\n`).join("");
  const markdown = `${renderLedgerMarkdown(ledger)}\n${notes}${hint === undefined ? "" : `${hint}\n\n`}${artifactsMarkdown(artifacts, finished.runDir)}\n`;
  // Known secrets as the check run and the comment lose them; token shapes go in writeJobSummary itself.
  const redact = createRedactor(o.secrets).text;
  const fence = new CommandFence((t) => runner.write(t), true);
  for (const l of renderLedgerText(ledger).split("\n")) fence.line(l);
  fence.close();
  // Outputs first: a failed final write must not hide the ledger from later steps. `conclusion` waits for
  // the check run: it never claims a verdict GitHub does not show (`posted-verdict.ts`).
  runner.setOutput("ledger-path", finished.ledgerPath);
  if (ledger.evidenceTree) runner.setOutput("evidence-tree", ledger.evidenceTree);
  if (o.reporter === null) {
    await writeJobSummary(markdown, { env: o.env, redact });
    finishStep(
      runner,
      {
        outcome: conclusion.outcome,
        conclusion: conclusion.conclusion,
        runId,
        ledgerPath: finished.ledgerPath,
        evidenceTree: ledger.evidenceTree,
      },
      conclusion.title,
    );
    return;
  }
  // The digests go last, hidden: a later `mode: resume` checks the downloaded run directory against them.
  const marker = runStateDigestMarker(runId, finished.digests);
  const reporter = o.reporter;
  const verdict = { runner, env: o.env, verdict: conclusion.conclusion, markdown, redact };
  const finalRef = await postVerdict(verdict, () =>
    reporter.finish(ledger, {
      // The run's notes reach the check run too (a reviewer reads them there: e.g. whose annotations these are).
      appendix: `${notes}${hint === undefined ? "" : `${hint}\n\n`}${marker}`,
      annotations: failureAnnotations(ledger, {
        repoRoot: o.workspace,
        workflowFile: workflowFileFromEnv(o.env),
      }),
      ledgerArtifact: ledgerArtifactLink(artifacts.ledger, o.env),
    }),
  );
  if (o.comment !== undefined) await postComment(o.comment, ledger, o, finalRef.htmlUrl);
  finishStep(
    runner,
    {
      outcome: conclusion.outcome,
      conclusion: conclusion.conclusion,
      checkRunId: finalRef.id,
      checkRunUrl: finalRef.htmlUrl,
      runId,
      ledgerPath: finished.ledgerPath,
      evidenceTree: ledger.evidenceTree,
    },
    conclusion.title,
  );
}

/**
 * The sticky comment, after the check run carries the verdict (SPEC §11): a refused or failed write is a
 * warning annotation and the step's outcome stays the check run's.
 */
async function postComment(
  target: StickyCommentTarget,
  ledger: Ledger,
  o: ReportFinishedOptions,
  checkRunUrl: string | null,
): Promise<void> {
  const marker = commentMarker(o.checkName);
  try {
    const ref = await upsertStickyComment({
      ...target,
      marker,
      body: renderCommentBody(ledger, { checkName: o.checkName, checkRunUrl }),
      redact: createRedactor(o.secrets).text,
    });
    o.runner.info(`PR comment ${ref.action}: ${ref.htmlUrl}`);
  } catch (error) {
    if (!(error instanceof StickyCommentError)) throw error;
    o.runner.warning(
      `evidence-gate: the PR comment was not written: ${error.message} The check run carries the verdict.`,
    );
  }
}

/** The ledger artifact for the check run's "trimmed" notice: its name, and its page once uploaded. */
function ledgerArtifactLink(outcome: ArtifactOutcome, env: Env): { name: string; url?: string } {
  const url =
    outcome.kind === "uploaded" && outcome.id !== null ? artifactPageUrl(env, outcome.id) : undefined;
  return url === undefined ? { name: outcome.name } : { name: outcome.name, url };
}

/** How to resume, from the pause `state.json` records; `undefined` when it cannot be read. */
function pausedHint(runner: Runner, finished: FinishedRun, runId: string): string | undefined {
  let paused: ReturnType<typeof readRunState>["paused"];
  try {
    paused = readRunState(finished.runDir).paused;
  } catch (error) {
    runner.warning(
      `could not read the pause from ${finished.runDir}/state.json: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
  if (paused === null) return undefined;
  return resumeHintMarkdown({ runId, paused, startingSha: finished.ledger.startingCommit?.sha ?? null });
}

/**
 * The ledger with its patch located in the uploaded run-directory artifact (the ledger's `patch.path` is
 * "a run-directory path or an artifact name"); unchanged when the artifact was not uploaded.
 */
function withPatchLocation(ledger: Ledger, artifacts: RunArtifacts): Ledger {
  if (ledger.patch === undefined || artifacts.runDirectory.kind !== "uploaded") return ledger;
  return {
    ...ledger,
    patch: { ...ledger.patch, path: `patch.diff in artifact ${artifacts.runDirectory.name}` },
  };
}
