/**
 * `mode: report` (SPEC §2, §10): stage 2 of the two-stage pattern that makes fork pull requests work. A
 * workflow on the base repository, triggered by `workflow_run` (completed) after the pull request's
 * workflow, posts that run's ledger as the check run — with the base repository's token, which a fork's run
 * never has (docs/examples/README.md).
 *
 * Trust (research/security.md §1.3): the `workflow_run` payload is GitHub's and is trusted; the artifact is
 * the pull request's and is not. The rule lives in `src/github/workflow-run-ledger.ts`, which the bot's
 * `workflow_run.completed` handler follows too:
 *
 * - the commit the check run is posted on is `workflow_run.head_sha`, and the pull request is known by the
 *   event's head repository and branch (its `pull_requests` list is empty for a fork) — never by the ledger;
 * - the artifact `<check-name>-ledger` is looked up among **that** run's artifacts only, downloaded with a
 *   size limit into `RUNNER_TEMP`, extracted without trusting the zip, and parsed with the ledger's strict
 *   schema (`src/github/ledger-artifact.ts`);
 * - a ledger that is unfinished, names no head commit or another head commit than the event's, or claims
 *   `success` that its own rows do not support, is refused;
 * - the check run's text is re-rendered from the validated ledger by the product's renderer (every text
 *   field escaped or fenced), never copied from the artifact;
 * - anything refused, and a run that uploaded no ledger (it crashed, was cancelled, or stopped before its
 *   ledger), gets a `failure` check run saying why, and the step fails: never green, never silent;
 * - a ledger that would post `success`, `neutral` or `action_required` is posted only from a run whose workflow
 *   definition is the base branch's (`src/github/run-provenance.ts`: the pull request's changed files, the
 *   base's workflow and the local actions it uses); else `action_required` naming the changed file (or
 *   `failure` when the token cannot read them), and the step fails;
 * - GitHub's conclusion of the run bounds the ledger's: a `success` ledger from a run GitHub reports
 *   `failure`, `cancelled` or `timed_out` is posted with GitHub's conclusion, naming both
 *   (`src/github/run-verdict.ts`; docs/adr/0013-ledger-provenance-from-the-pull-requests-files.md).
 *
 * A same-repository pull request's run posts its own check run (its token can), so a `workflow_run` of one
 * is left alone with a notice — unless Dependabot triggered it (read-only token too, SPEC §10).
 */
import { createRedactor } from "../core/redact.js";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import { readEventContext } from "../github/event-context.js";
import { isDependabot } from "../github/fork.js";
import { writeJobSummary } from "../github/job-summary.js";
import { type GateOctokit, octokitFromEnv } from "../github/octokit.js";
import { checkRunProvenance } from "../github/run-provenance.js";
import { agreedWithRun, needsProvenance, provenanceRefusal } from "../github/run-verdict.js";
import {
  parseWorkflowRunEvent,
  type WorkflowRunEvent,
  WorkflowRunEventError,
} from "../github/workflow-run-event.js";
import {
  ledgerProvenanceMarkdown,
  readWorkflowRunLedger,
  refusedLedgerOutput,
  reportedLedgerAppendix,
  type WorkflowRunLedger,
} from "../github/workflow-run-ledger.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { CommandFence } from "../proc/command-fence.js";
import type { ActionInputs } from "./action-inputs.js";
import { postVerdict } from "./posted-verdict.js";
import type { Runner } from "./runner.js";
import { checkRunReporter, runnerFolders, saveCheckRun } from "./running-mode.js";
import { completeAfterCrash, type Env, finishStep, usageFailure } from "./step-result.js";

export interface ReportModeOptions {
  readonly runner: Runner;
  readonly env: Env;
  readonly signal?: AbortSignal;
  readonly inputs: ActionInputs;
  readonly secrets: readonly string[];
}

/** Runs `mode: report`; sets the outputs and the step's status. */
export async function runReportMode(o: ReportModeOptions): Promise<void> {
  const { env, inputs, runner } = o;
  let context: ReturnType<typeof readEventContext>;
  try {
    context = readEventContext(env);
  } catch (error) {
    return usageFailure(runner, error instanceof Error ? error.message : String(error));
  }
  const trigger = context.kind === "other" ? context.eventName : context.kind;
  if (context.kind !== "other" || trigger !== "workflow_run") {
    return usageFailure(
      runner,
      `mode report runs on workflow_run: it posts the ledger a pull request's workflow run uploaded, from a workflow of the base repository; this run was triggered by ${trigger}. Use \`on: workflow_run: { workflows: [<the pull request workflow>], types: [completed] }\` (docs/examples/evidence-gate-report.yml).`,
    );
  }
  let upstream: WorkflowRunEvent;
  try {
    upstream = parseWorkflowRunEvent(context.payload);
  } catch (error) {
    if (!(error instanceof WorkflowRunEventError)) throw error;
    return usageFailure(runner, error.message);
  }
  if (upstream.action !== "completed") {
    return usageFailure(
      runner,
      `mode report posts a finished run's ledger; this workflow_run event is "${upstream.action}". Add \`types: [completed]\` to the workflow_run trigger.`,
    );
  }
  const slug = `${context.owner}/${context.repo}`;
  if (upstream.repository.toLowerCase() !== slug.toLowerCase()) {
    return usageFailure(
      runner,
      `workflow run ${upstream.runId} ran in ${upstream.repository}, not in ${slug}: mode report posts only this repository's runs.`,
    );
  }
  if (upstream.event !== "pull_request") {
    return skip(
      runner,
      env,
      `workflow run ${upstream.runId} was triggered by ${upstream.event}, not pull_request: mode report posts only pull request runs' ledgers (a pull_request_target run is never reported). Nothing was posted.`,
    );
  }
  const dependabot = isDependabot(upstream.actor, upstream.triggeringActor);
  if (!upstream.fromFork && !dependabot) {
    return skip(
      runner,
      env,
      `workflow run ${upstream.runId} is a same-repository pull request's: its token can write check runs, so it posted its own check run "${inputs.checkName}". Nothing was posted here.`,
    );
  }

  // As the other modes: `GITHUB_API_URL`, and the retry waits `EVIDENCE_GATE_BACKOFF_SECOND_MS` scales.
  const octokit = octokitFromEnv(inputs.githubToken, env);
  const { reporter } = checkRunReporter({
    runner: runner,
    octokit,
    owner: context.owner,
    repo: context.repo,
    secrets: o.secrets,
    name: inputs.checkName,
    headSha: upstream.headSha,
    detailsUrl: upstream.htmlUrl ?? context.run.runUrl,
  });
  // The reporter is handed down; a crash from here on completes its check run before it is rethrown.
  try {
    const provenance = ledgerProvenanceMarkdown(upstream, { dependabot });
    runner.info(
      `workflow run ${upstream.runId} (${upstream.event}, ${upstream.conclusion ?? "no conclusion"}) on ${upstream.headSha.slice(0, 7)} from ${upstream.headRepository ?? "a deleted repository"}`,
    );

    const found = await readWorkflowRunLedger({
      octokit,
      owner: context.owner,
      repo: context.repo,
      upstream,
      checkName: inputs.checkName,
      tempDir: runnerFolders(env).temp,
      ...(o.signal ? { signal: o.signal } : {}),
      log: (message) => runner.info(message),
    });
    const vetted = await vet(found, {
      octokit,
      owner: context.owner,
      repo: context.repo,
      upstream,
      provenance,
    });
    // Awaited inside the `try`: a returned promise that rejects would skip `completeAfterCrash`, leaving the
    // check run these started in progress.
    if (vetted.kind === "refused") return await postRefusal(runner, reporter, env, vetted.refusal);
    return await postLedger(o, reporter, vetted.found, { provenance, upstream });
  } catch (error) {
    await completeAfterCrash(runner, reporter, error, env);
  }
}

/**
 * Posts a validated ledger as the check run (the log and the outputs first; `conclusion` and the job summary
 * once the check run carries the verdict), then ends the step as its outcome says.
 */
async function postLedger(
  o: ReportModeOptions,
  reporter: CheckRunReporter,
  found: Extract<WorkflowRunLedger, { kind: "ledger" }>,
  about: { readonly provenance: string; readonly upstream: WorkflowRunEvent },
): Promise<void> {
  const { env, runner } = o;
  const { provenance } = about;
  const { artifact } = found;
  // GitHub's verdict on the run bounds the ledger's (issue 22 item 2).
  const ledger = agreedWithRun(found.ledger, about.upstream);
  const appendix = reportedLedgerAppendix({ provenance, artifact, postedBy: "`mode: report`" });
  const conclusion = ledger.conclusion!;
  // The ledger came from an artifact the upstream run wrote: known secrets are redacted here too (issue 12
  // item 5), in the step's log as on the check run. `conclusion` and the summary follow the check run: a
  // refused write says it was not posted.
  const redact = createRedactor(o.secrets).text;
  const fence = new CommandFence((t) => runner.write(t), true);
  for (const line of redact(renderLedgerText(ledger)).split("\n")) fence.line(line);
  fence.close();
  runner.setOutput("run-id", ledger.runId);
  runner.setOutput("ledger-path", found.path);
  if (ledger.evidenceTree) runner.setOutput("evidence-tree", ledger.evidenceTree);
  const markdown = `${renderLedgerMarkdown(ledger)}\n${appendix}\n`;
  const ref = await postVerdict(
    { runner, env, verdict: conclusion.conclusion, markdown, redact },
    async () => {
      const started = await reporter.start(ledger.runId, `Posting the ledger of run \`${ledger.runId}\`.`);
      saveCheckRun(runner, started, ledger.runId);
      return reporter.finish(ledger, { appendix });
    },
  );
  finishStep(
    runner,
    {
      outcome: conclusion.outcome,
      conclusion: conclusion.conclusion,
      checkRunId: ref.id,
      checkRunUrl: ref.htmlUrl,
      runId: ledger.runId,
      ledgerPath: found.path,
      evidenceTree: ledger.evidenceTree,
    },
    conclusion.title,
  );
}

/** A refusal {@link postRefusal} posts. */
interface Refusal {
  readonly externalId: string;
  readonly conclusion: "failure" | "action_required";
  readonly title: string;
  readonly summary: string;
  readonly message: string;
  readonly outcome: "failed" | "usage-error" | "refused";
}

/**
 * The ledger to post, or why none is: no ledger, a refused one (`failure`), or — for a ledger that would
 * post `success`, `neutral` or `action_required` — a run whose workflow definition is not the base branch's
 * (issue 22 item 1: `action_required` naming the changed file; `failure` when the token cannot tell).
 */
async function vet(
  found: WorkflowRunLedger,
  o: {
    readonly octokit: GateOctokit;
    readonly owner: string;
    readonly repo: string;
    readonly upstream: WorkflowRunEvent;
    readonly provenance: string;
  },
): Promise<
  | { readonly kind: "post"; readonly found: Extract<WorkflowRunLedger, { kind: "ledger" }> }
  | { readonly kind: "refused"; readonly refusal: Refusal }
> {
  const { upstream, provenance } = o;
  if (found.kind !== "ledger") {
    const { title, summary } = refusedLedgerOutput({ ...found, provenance });
    return {
      kind: "refused",
      refusal: {
        externalId: found.refusedRunId ?? `workflow-run-${upstream.runId}`,
        conclusion: "failure",
        title,
        summary,
        message: `${found.title}: ${found.reason}`,
        outcome: found.outcome,
      },
    };
  }
  if (!needsProvenance(found.ledger, upstream)) return { kind: "post", found };
  const refusal = provenanceRefusal(await checkRunProvenance(o), {
    upstream,
    provenance,
    permissions: REPORT_PERMISSIONS,
  });
  if (refusal === null) return { kind: "post", found };
  const { conclusion, title, summary, reason, outcome } = refusal;
  return {
    kind: "refused",
    refusal: { externalId: found.ledger.runId, conclusion, title, summary, message: reason, outcome },
  };
}

/** The permissions `mode: report` needs beyond `actions: read` and `checks: write`, as its refusals name them. */
const REPORT_PERMISSIONS =
  "`pull-requests: read` (the pull request's changed files) and `contents: read` (the base's workflow file) in the report job's `permissions`";

/**
 * A check run on the event's head commit saying why nothing was posted as the verdict (`failure`, or
 * `action_required` for a run the pull request rewrote); the step fails with `message`.
 */
async function postRefusal(runner: Runner, reporter: CheckRunReporter, env: Env, f: Refusal): Promise<void> {
  const { title, summary } = f;
  await writeJobSummary(summary, { env });
  runner.setOutput("conclusion", f.conclusion);
  const ref = await reporter.start(f.externalId, summary, title);
  saveCheckRun(runner, ref, f.externalId);
  const done = await reporter.end(f.conclusion, title, summary);
  finishStep(
    runner,
    { outcome: f.outcome, conclusion: f.conclusion, checkRunId: done.id, checkRunUrl: done.htmlUrl },
    f.message,
  );
}

/** Nothing to post for this event: said in the log and the job summary; the step passes. */
async function skip(runner: Runner, env: Env, message: string): Promise<void> {
  runner.notice(`evidence-gate: ${message}`);
  await writeJobSummary(`## evidence-gate: nothing to report\n\n${escapeInline(message)}\n`, { env });
}
