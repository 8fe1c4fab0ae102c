/**
 * `mode: report` (SPEC §2, §10): stage 2 of the two-stage pattern that makes fork pull requests work. A
 * workflow on the base repository, triggered by `workflow_run` (completed) after the pull request's
 * workflow, posts that run's ledger as the check run — with the base repository's token, which a fork's run
 * never has (docs/examples/README.md).
 *
 * Trust (research/security.md §1.3): the `workflow_run` payload is GitHub's and is trusted; the artifact is
 * the pull request's and is not. So:
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
 *   ledger), gets a `failure` check run saying why, and the step fails: never green, never silent.
 *
 * A same-repository pull request's run posts its own check run (its token can), so a `workflow_run` of one
 * is left alone with a notice — unless Dependabot triggered it (read-only token too, SPEC §10).
 */
import * as core from "@actions/core";
import { ledgerArtifactName } from "../github/artifact.js";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import { readEventContext } from "../github/event-context.js";
import { isDependabot } from "../github/fork.js";
import { writeJobSummary } from "../github/job-summary.js";
import { findLedgerArtifact, readLedgerArtifact } from "../github/ledger-artifact.js";
import { apiUrlFromEnv, createOctokit, type GateOctokit } from "../github/octokit.js";
import { type RunArtifact, RunArtifactError } from "../github/run-artifact-download.js";
import {
  parseWorkflowRunEvent,
  type WorkflowRunEvent,
  WorkflowRunEventError,
} from "../github/workflow-run-event.js";
import { decideConclusion } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import { codeSpan, escapeInline, fencedBlock } from "../ledger/markdown-syntax.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { CommandFence } from "../proc/command-fence.js";
import type { ActionInputs } from "../run/action-inputs.js";
import { checkRunReporter, runnerFolders, saveCheckRun } from "../run/running-mode.js";
import { type Env, finishStep, usageFailure } from "../run/step-result.js";
import { coreRunner } from "./runner.js";

export interface ReportModeOptions {
  readonly env: Env;
  readonly signal?: AbortSignal;
  readonly inputs: ActionInputs;
  readonly secrets: readonly string[];
  /** Told the reporter as soon as it exists, so the crash handler can complete its check run. */
  readonly exposeReporter: (reporter: CheckRunReporter) => void;
}

/** Runs `mode: report`; sets the outputs and the step's status. */
export async function runReportMode(o: ReportModeOptions): Promise<void> {
  const { env, inputs } = o;
  let context: ReturnType<typeof readEventContext>;
  try {
    context = readEventContext(env);
  } catch (error) {
    return usageFailure(coreRunner, error instanceof Error ? error.message : String(error));
  }
  const trigger = context.kind === "other" ? context.eventName : context.kind;
  if (context.kind !== "other" || trigger !== "workflow_run") {
    return usageFailure(
      coreRunner,
      `mode report runs on workflow_run: it posts the ledger a pull request's workflow run uploaded, from a workflow of the base repository; this run was triggered by ${trigger}. Use \`on: workflow_run: { workflows: [<the pull request workflow>], types: [completed] }\` (docs/examples/evidence-gate-report.yml).`,
    );
  }
  let upstream: WorkflowRunEvent;
  try {
    upstream = parseWorkflowRunEvent(context.payload);
  } catch (error) {
    if (!(error instanceof WorkflowRunEventError)) throw error;
    return usageFailure(coreRunner, error.message);
  }
  if (upstream.action !== "completed") {
    return usageFailure(
      coreRunner,
      `mode report posts a finished run's ledger; this workflow_run event is "${upstream.action}". Add \`types: [completed]\` to the workflow_run trigger.`,
    );
  }
  const slug = `${context.owner}/${context.repo}`;
  if (upstream.repository.toLowerCase() !== slug.toLowerCase()) {
    return usageFailure(
      coreRunner,
      `workflow run ${upstream.runId} ran in ${upstream.repository}, not in ${slug}: mode report posts only this repository's runs.`,
    );
  }
  if (upstream.event !== "pull_request") {
    return skip(
      env,
      `workflow run ${upstream.runId} was triggered by ${upstream.event}, not pull_request: mode report posts only pull request runs' ledgers (a pull_request_target run is never reported). Nothing was posted.`,
    );
  }
  const dependabot = isDependabot(upstream.actor, upstream.triggeringActor);
  if (!upstream.fromFork && !dependabot) {
    return skip(
      env,
      `workflow run ${upstream.runId} is a same-repository pull request's: its token can write check runs, so it posted its own check run "${inputs.checkName}". Nothing was posted here.`,
    );
  }

  const octokit = createOctokit({ token: inputs.githubToken, baseUrl: apiUrlFromEnv(env) });
  const { reporter } = checkRunReporter({
    runner: coreRunner,
    octokit,
    owner: context.owner,
    repo: context.repo,
    secrets: o.secrets,
    name: inputs.checkName,
    headSha: upstream.headSha,
    detailsUrl: upstream.htmlUrl ?? context.run.runUrl,
  });
  o.exposeReporter(reporter);
  const provenance = provenanceMarkdown(upstream, dependabot);
  core.info(
    `workflow run ${upstream.runId} (${upstream.event}, ${upstream.conclusion ?? "no conclusion"}) on ${upstream.headSha.slice(0, 7)} from ${upstream.headRepository ?? "a deleted repository"}`,
  );

  const found = await readUpstreamLedger(o, octokit, context, upstream);
  if (found.kind !== "ledger") {
    return postFailure(reporter, env, {
      externalId: `workflow-run-${upstream.runId}`,
      title: found.title,
      reason: found.reason,
      issues: found.issues,
      provenance,
      outcome: found.outcome,
    });
  }
  const { ledger, artifact } = found;
  const problem = ledgerProblem(ledger, upstream);
  if (problem !== null) {
    return postFailure(reporter, env, {
      externalId: ledger.runId,
      title: `the ledger of workflow run ${upstream.runId} was refused`,
      reason: `Artifact ${artifact.name} (id ${artifact.id}): ${problem}`,
      issues: [],
      provenance,
      outcome: "failed",
    });
  }

  const conclusion = ledger.conclusion!;
  const appendix = `### Reported from the pull request's workflow run\n\n${provenance}\n\nPosted by \`mode: report\` from the artifact ${codeSpan(artifact.name, { inTable: false })} (id ${artifact.id}), validated as untrusted data and re-rendered here.`;
  await writeJobSummary(`${renderLedgerMarkdown(ledger)}\n${appendix}\n`, { env });
  const fence = new CommandFence((t) => void process.stdout.write(t), true);
  for (const line of renderLedgerText(ledger).split("\n")) fence.line(line);
  fence.close();
  core.setOutput("run-id", ledger.runId);
  core.setOutput("ledger-path", found.path);
  core.setOutput("conclusion", conclusion.conclusion);
  if (ledger.evidenceTree) core.setOutput("evidence-tree", ledger.evidenceTree);
  const started = await reporter.start(ledger.runId, `Posting the ledger of run \`${ledger.runId}\`.`);
  saveCheckRun(coreRunner, started, ledger.runId);
  const ref = await reporter.finish(ledger, { appendix });
  finishStep(
    coreRunner,
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

type UpstreamLedger =
  | {
      readonly kind: "ledger";
      readonly ledger: Ledger;
      readonly path: string;
      readonly artifact: RunArtifact;
    }
  | {
      readonly kind: "none";
      readonly title: string;
      readonly reason: string;
      readonly issues: readonly string[];
      readonly outcome: "failed" | "usage-error";
    };

/** The upstream run's ledger artifact, downloaded and schema-valid, or why there is none to post. */
async function readUpstreamLedger(
  o: ReportModeOptions,
  octokit: GateOctokit,
  context: { readonly owner: string; readonly repo: string },
  upstream: WorkflowRunEvent,
): Promise<UpstreamLedger> {
  const name = ledgerArtifactName(o.inputs.checkName);
  const cannotRead = (error: RunArtifactError): UpstreamLedger => ({
    kind: "none",
    title: `the ledger of workflow run ${upstream.runId} could not be read`,
    reason: error.message,
    issues: [],
    // 401/403/404: the report workflow lacks `actions: read` — something its author must change.
    outcome: error.status === 401 || error.status === 403 || error.status === 404 ? "usage-error" : "failed",
  });
  let artifact: RunArtifact;
  try {
    const listed = await findLedgerArtifact(octokit, {
      owner: context.owner,
      repo: context.repo,
      workflowRunId: upstream.runId,
      name,
    });
    if (listed.artifact === null) {
      const skipped = listed.skipped.length > 0 ? ` Not used: ${listed.skipped.join("; ")}.` : "";
      return {
        kind: "none",
        title: `workflow run ${upstream.runId} uploaded no ledger`,
        reason: `Workflow run ${upstream.runId} ended ${upstream.conclusion ?? "without a conclusion"} and has no artifact ${name}.${skipped} It crashed, was cancelled, or stopped before its ledger was written (its job summary says why); a run without a ledger is never reported as passing.`,
        issues: [],
        outcome: "failed",
      };
    }
    artifact = listed.artifact;
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return cannotRead(error);
  }
  core.info(`artifact ${artifact.name} (id ${artifact.id}, ${artifact.sizeInBytes} bytes)`);
  try {
    const read = await readLedgerArtifact({
      octokit,
      owner: context.owner,
      repo: context.repo,
      artifact,
      tempDir: runnerFolders(o.env).temp,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (read.kind === "refused") {
      return {
        kind: "none",
        title: `the ledger of workflow run ${upstream.runId} was refused`,
        reason: read.reason,
        issues: read.issues,
        outcome: "failed",
      };
    }
    return { kind: "ledger", ledger: read.ledger, path: read.path, artifact };
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return cannotRead(error);
  }
}

/**
 * Why a schema-valid ledger is still not this event's verdict, or `null`: it must be finished, be about the
 * event's head commit (a ledger of another commit could be replayed onto this one), and a `success` must be
 * what its own rows decide (SPEC §6), so a ledger with its conclusion flipped is caught.
 */
export function ledgerProblem(ledger: Ledger, upstream: Pick<WorkflowRunEvent, "headSha">): string | null {
  if (ledger.conclusion === null) return "the ledger is unfinished (it has no conclusion)";
  if (ledger.headSha === undefined) {
    return `the ledger names no head commit, so it cannot be tied to ${upstream.headSha}`;
  }
  if (ledger.headSha !== upstream.headSha) {
    return `the ledger is about head commit ${ledger.headSha}, but the workflow run's head commit is ${upstream.headSha}`;
  }
  if (ledger.conclusion.conclusion === "success") {
    const sinks = ledger.plan.nodes.filter((n) => n.sink);
    const decided = decideConclusion({
      rows: ledger.rows,
      sinks: sinks.map((n) => n.id),
      gateSinks: sinks.filter((n) => n.type === "gate").map((n) => n.id),
      buildEvidence: ledger.plan.buildEvidence,
      postedCommitTree: (ledger.postedCommit ?? ledger.startingCommit)?.tree ?? null,
      requireEvidence: ledger.plan.policy?.requireEvidence === true,
      end: { kind: "completed" },
    });
    if (decided.conclusion !== "success") {
      return `the ledger claims success, but its own rows decide ${decided.conclusion} (${decided.rule})`;
    }
  }
  return null;
}

/** Where the verdict comes from, in trusted words: every event value escaped or in a code span. */
function provenanceMarkdown(upstream: WorkflowRunEvent, dependabot: boolean): string {
  const run =
    upstream.htmlUrl !== null && /^https:\/\/\S+$/.test(upstream.htmlUrl)
      ? `[workflow run ${upstream.runId}](${upstream.htmlUrl.replace(/[()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)})`
      : `workflow run ${upstream.runId}`;
  const from = upstream.fromFork
    ? `the fork ${codeSpan(upstream.headRepository ?? "(deleted)", { inTable: false })}`
    : "this repository";
  const branch =
    upstream.headBranch === null ? "" : `, branch ${codeSpan(upstream.headBranch, { inTable: false })}`;
  const prs =
    upstream.pullRequests.length === 0
      ? ""
      : ` (pull request ${upstream.pullRequests.map((n) => `#${n}`).join(", ")})`;
  return `${run}${upstream.workflowName ? ` of ${escapeInline(upstream.workflowName)}` : ""}, ended ${escapeInline(upstream.conclusion ?? "without a conclusion")}, on ${codeSpan(upstream.headSha, { inTable: false })} from ${from}${branch}${prs}${dependabot ? ", triggered by Dependabot" : ""}.`;
}

/** A `failure` check run on the event's head commit saying why nothing was posted as the verdict. */
async function postFailure(
  reporter: CheckRunReporter,
  env: Env,
  f: {
    readonly externalId: string;
    readonly title: string;
    readonly reason: string;
    readonly issues: readonly string[];
    readonly provenance: string;
    readonly outcome: "failed" | "usage-error";
  },
): Promise<void> {
  const issues =
    f.issues.length === 0
      ? ""
      : `\n\nWhat was found (the artifact's own text, shown as data):\n\n${fencedBlock(f.issues.slice(0, 50).join("\n"))}${f.issues.length > 50 ? `\n\n… and ${f.issues.length - 50} more` : ""}`;
  const title = `evidence-gate: ${f.title}`;
  const summary = `## ❌ ${escapeInline(title)}\n\n${escapeInline(f.reason)}${issues}\n\nNothing from that run is posted as a verdict.\n\n### Reported from the pull request's workflow run\n\n${f.provenance}\n`;
  await writeJobSummary(summary, { env });
  core.setOutput("conclusion", "failure");
  const ref = await reporter.start(f.externalId, summary, title);
  saveCheckRun(coreRunner, ref, f.externalId);
  const done = await reporter.end("failure", title, summary);
  finishStep(
    coreRunner,
    { outcome: f.outcome, conclusion: "failure", checkRunId: done.id, checkRunUrl: done.htmlUrl },
    `${f.title}: ${f.reason}`,
  );
}

/** Nothing to post for this event: said in the log and the job summary; the step passes. */
async function skip(env: Env, message: string): Promise<void> {
  core.notice(`evidence-gate: ${message}`);
  await writeJobSummary(`## evidence-gate: nothing to report\n\n${escapeInline(message)}\n`, { env });
}
