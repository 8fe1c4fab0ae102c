/**
 * The action's main job (SPEC §2, §6, §10): read inputs and the event, create the check run
 * `in_progress` on the PR head before planning, run `auto`, complete the check run with the ledger's
 * conclusion, write the job summary and the outputs, and decide the step's pass/fail. Every path that
 * created a check run completes it; a failed API write fails the step after the job summary is written.
 * The maintainers' policy file is read from the base ref (never the PR's checkout) before anything runs.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { type AutoRunResult, runAuto } from "../engine/auto-run.js";
import { mintRunId } from "../engine/run-id.js";
import { artifactsMarkdown, type RunArtifacts, uploadRunArtifacts } from "../github/artifact.js";
import { type BaseRefPolicy, PolicyReadError, prCopyNote, readBaseRefPolicy } from "../github/base-policy.js";
import { CheckRunClient, type CheckRunRef, CheckRunWriteError } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import { type EventContext, readEventContext } from "../github/event-context.js";
import { writeJobSummary } from "../github/job-summary.js";
import { apiUrlFromEnv, createOctokit } from "../github/octokit.js";
import { type Conclusion, decideEndWithoutRows, type RunEnd } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import { escapeInline } from "../ledger/markdown-syntax.js";
import { createRedactor, secretForms } from "../ledger/redact.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { unreachable } from "../ledger/unreachable.js";
import { autoRunPolicy, policySummary } from "../policy/policy-file.js";
import { buildChildEnv } from "../proc/child-env.js";
import { CommandFence } from "../proc/command-fence.js";
import { readActionInputs } from "./inputs.js";
import { ensureClaude } from "./install-claude.js";
import { SAVED_STATE } from "./state.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Outputs of the step (SPEC §11). */
interface StepResult {
  readonly outcome: Conclusion["outcome"];
  readonly conclusion: string;
  readonly checkRunId?: number;
  readonly checkRunUrl?: string | null;
  readonly runId?: string;
  readonly ledgerPath?: string;
  readonly evidenceTree?: string | null;
}

const FAILING_OUTCOMES = new Set(["failed", "refused", "usage-error", "cancelled", "timed-out", "abandoned"]);

/** Runs the action; sets outputs and the step's status. Never throws. */
export async function runAction(env: Env = process.env, signal?: AbortSignal): Promise<void> {
  let reporter: CheckRunReporter | null = null;
  try {
    await main(env, signal, (r) => {
      reporter = r;
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const r = reporter as CheckRunReporter | null;
    if (r !== null && r.ref !== null && !r.completed) {
      try {
        await r.end(
          "failure",
          "evidence-gate: the run ended with an internal error",
          `The engine stopped with an internal error:\n\n\`\`\`\n${message}\n\`\`\``,
        );
      } catch (writeError) {
        core.error(
          `could not complete the check run after the error: ${writeError instanceof Error ? writeError.message : String(writeError)}`,
        );
      }
    }
    core.setOutput("outcome", "failed");
    core.setFailed(`evidence-gate: ${message}`);
  }
}

async function main(
  env: Env,
  signal: AbortSignal | undefined,
  exposeReporter: (r: CheckRunReporter) => void,
): Promise<void> {
  const parsed = readActionInputs(env);
  let event: EventContext;
  try {
    event = readEventContext(env);
  } catch (error) {
    return usageFailure(`${error instanceof Error ? error.message : String(error)}`);
  }
  const token = parsed.ok ? parsed.inputs.githubToken : env["INPUT_GITHUB-TOKEN"];
  const secrets = [
    token,
    parsed.ok ? parsed.inputs.anthropicApiKey : undefined,
    parsed.ok ? parsed.inputs.claudeCodeOauthToken : undefined,
  ].filter((s): s is string => typeof s === "string" && s !== "");
  // Mask every form the redactor knows (raw, base64 at each offset, URL-encoded…) in the live log too.
  for (const secret of secrets) for (const form of secretForms(secret)) core.setSecret(form);

  if (event.kind !== "pull_request") {
    return usageFailure(
      `evidence-gate runs on pull_request events (opened, synchronize, reopened, ready_for_review); this run was triggered by ${event.kind === "other" ? event.eventName : event.kind}. Add \`on: pull_request\` to the workflow.`,
    );
  }
  if (token === undefined || token === "")
    return usageFailure(
      "input `github-token` is empty: leave it at its default (the workflow's github.token)",
    );
  const octokit = createOctokit({ token, baseUrl: apiUrlFromEnv(env) });
  const reporter = new CheckRunReporter({
    client: new CheckRunClient({
      octokit,
      owner: event.owner,
      repo: event.repo,
      warn: (m) => core.warning(m),
      redact: createRedactor(secrets).text,
    }),
    name: parsed.ok ? parsed.inputs.checkName : "evidence-gate",
    headSha: event.headSha,
    detailsUrl: event.run.runUrl,
    // A failed mid-run update is reported and the run goes on; the final completion still must succeed.
    onProgressError: (error) =>
      core.warning(
        `could not update the check run with progress: ${error instanceof Error ? error.message : String(error)}`,
      ),
    // Every path that completes the check run (finish, endEarly, the crash handler) passes here, and only
    // after GitHub accepted the write: the post step then leaves the check run alone.
    onCompleted: () => core.saveState(SAVED_STATE.checkRunCompleted, "true"),
  });
  exposeReporter(reporter);
  const runId = mintRunId();
  let ref: CheckRunRef;
  try {
    ref = await reporter.start(
      runId,
      `Run \`${runId}\` is starting: ${parsed.ok ? parsed.inputs.goal.split("\n")[0] : "checking inputs"}`,
    );
  } catch (error) {
    if (!(error instanceof CheckRunWriteError)) throw error;
    return checkRunNotCreated(error, env);
  }
  core.saveState(SAVED_STATE.checkRunId, String(ref.id));
  core.saveState(SAVED_STATE.runId, runId);
  core.setOutput("check-run-id", String(ref.id));
  if (ref.htmlUrl) core.setOutput("check-run-url", ref.htmlUrl);
  core.setOutput("run-id", runId);

  if (!parsed.ok) {
    const message = parsed.errors.join("\n");
    return endEarly(reporter, { kind: "usage-error", message }, message, env);
  }
  const inputs = parsed.inputs;
  const workspace = resolve(env.GITHUB_WORKSPACE ?? process.cwd());
  const temp = env.RUNNER_TEMP ?? join(workspace, ".evidence-gate-tmp");
  const runsDir = join(temp, "evidence-gate", "runs");
  mkdirSync(runsDir, { recursive: true });

  // Policy comes from the base branch, code from the head (SPEC §9): the PR's own copy is never read for
  // its values. A policy that cannot be read, or does not parse, stops the run before anything is spent.
  let basePolicy: BaseRefPolicy;
  try {
    basePolicy = await readBaseRefPolicy(octokit, {
      owner: event.owner,
      repo: event.repo,
      ref: event.baseRef,
      sha: event.baseSha,
    });
  } catch (error) {
    if (!(error instanceof PolicyReadError)) throw error;
    const refused = error.status === 401 || error.status === 403;
    return endEarly(
      reporter,
      refused
        ? { kind: "usage-error", message: error.message }
        : { kind: "engine-error", message: error.message },
      error.message,
      env,
    );
  }
  const policyNotes: string[] = [];
  const ignoredCopy = await prCopyNote(workspace, basePolicy);
  if (ignoredCopy !== null) {
    core.notice(ignoredCopy);
    policyNotes.push(ignoredCopy);
  }
  if (!basePolicy.result.ok) {
    const message = `${basePolicy.result.errors.join("\n")}\nFix the policy file on the base branch: nothing runs while the maintainers' policy is malformed.`;
    return endEarly(reporter, { kind: "usage-error", message }, message, env, policyNotes);
  }
  const policy = autoRunPolicy(basePolicy.result);
  core.info(
    policy === undefined
      ? `policy: no .github/evidence-gate.yml on the base ref ${event.baseRef}: the defaults apply`
      : `policy: ${policy.source}: ${policySummary(basePolicy.result.policy)}`,
  );

  const fenceLog = { write: (text: string) => void process.stdout.write(text), fenceWorkflowCommands: true };
  const credential: Record<string, string> = {};
  if (inputs.anthropicApiKey) credential.ANTHROPIC_API_KEY = inputs.anthropicApiKey;
  if (inputs.claudeCodeOauthToken) credential.CLAUDE_CODE_OAUTH_TOKEN = inputs.claudeCodeOauthToken;
  const homes = join(temp, "evidence-gate", "homes");
  mkdirSync(homes, { recursive: true });

  let claudeExecutable = "claude";
  const result = await (async (): Promise<AutoRunResult> => {
    // The refusal check runs inside runAuto before any model call; the CLI install only happens after it.
    return runAuto({
      runId,
      goal: inputs.goal,
      repoDir: workspace,
      ...(inputs.workingDirectory !== undefined ? { workingDirectory: inputs.workingDirectory } : {}),
      ...(inputs.verifyCmd !== undefined ? { verifyCmd: inputs.verifyCmd } : {}),
      verifyTimeoutMs: inputs.verifyTimeoutMs,
      verifyEnv: inputs.verifyEnv,
      acceptNoBuildEvidence: inputs.acceptNoBuildEvidence,
      ...(policy !== undefined ? { policy } : {}),
      runtime: "claude",
      ...(inputs.model !== undefined ? { model: inputs.model } : {}),
      concurrency: inputs.concurrency,
      onFail: inputs.continueOnFail ? "continue" : "halt",
      commit: false,
      runsDir,
      surface: "action",
      get claudeExecutable() {
        return claudeExecutable;
      },
      beforeFirstModelCall: async () => {
        const found = await ensureClaude({
          version: inputs.claudeVersion,
          env,
          knownSecrets: secrets,
          log: (l) => core.info(l),
        });
        if (found.kind === "failed") return found.message;
        claudeExecutable = found.path;
        return null;
      },
      // Each CLI gets a fresh HOME (SPEC §9): the operator's configuration in CI is the base branch's only.
      modelEnv: (label) =>
        buildChildEnv({
          base: env,
          child: { kind: "model", runtime: "claude" },
          knownSecrets: secrets,
          set: { ...credential, HOME: mkdtempSync(join(homes, `${label.replace(/[^\w.-]/g, "_")}-`)) },
        }),
      baseEnv: env,
      knownSecrets: secrets,
      pr: { title: event.title, body: event.body, headSha: event.headSha, baseRef: event.baseRef },
      plannerTimeoutMs: 20 * 60_000,
      ...(signal ? { signal } : {}),
      echo: fenceLog,
      hooks: {
        onPlan: (plan) => core.info(`plan: ${plan.nodes.map((n) => n.id).join(", ")}`),
        onNodeStarted: (id) => core.info(`node ${id} started`),
        onNodeVerifying: (id, command) =>
          core.info(`node ${id}: the engine runs the verify command: ${command}`),
        onNodeFinished: (row) =>
          core.info(
            `node ${row.nodeId}: ${row.verdict}${row.verdict === "PASS" ? ` (${row.qualifier})` : row.verdict === "FAIL" ? ` ${row.cause}` : ""}`,
          ),
        onProgress: async (ledger, kind) => {
          await reporter.progress(ledger, kind === "plan");
        },
      },
    });
  })();

  switch (result.kind) {
    case "usage_error":
      return endEarly(
        reporter,
        { kind: "usage-error", message: result.message },
        result.message,
        env,
        policyNotes,
      );
    case "refused":
      return endEarly(
        reporter,
        { kind: "refused", reason: "build-evidence", message: result.message },
        result.message,
        env,
        policyNotes,
      );
    case "finished": {
      // The ledger is final (ledger.json written): upload the run directory and the ledger, then name the
      // artifacts in the summaries (the patch's location included) before the check run completes.
      const artifacts = await uploadRunArtifacts({
        runId,
        runDir: result.runDir,
        ledgerPath: result.ledgerPath,
        checkName: inputs.checkName,
        stagingDir: temp,
        env,
        secrets,
        notice: (m) => core.notice(m),
        warn: (m) => core.warning(m),
      });
      const ledger = withPatchLocation(result.ledger, artifacts);
      const notes = policyNotes.map((note) => `> ${escapeInline(note)}\n\n`).join("");
      const markdown = `${renderLedgerMarkdown(ledger)}\n${notes}${artifactsMarkdown(artifacts, result.runDir)}\n`;
      await writeJobSummary(markdown, { env });
      const fence = new CommandFence((t) => void process.stdout.write(t), true);
      for (const l of renderLedgerText(ledger).split("\n")) fence.line(l);
      fence.close();
      // Outputs first: a failed final write must not hide the ledger from later steps.
      core.setOutput("ledger-path", result.ledgerPath);
      core.setOutput("conclusion", ledger.conclusion!.conclusion);
      if (ledger.evidenceTree) core.setOutput("evidence-tree", ledger.evidenceTree);
      const finalRef = await reporter.finish(ledger);
      return finishStep(
        {
          outcome: ledger.conclusion!.outcome,
          conclusion: ledger.conclusion!.conclusion,
          checkRunId: finalRef.id,
          checkRunUrl: finalRef.htmlUrl,
          runId,
          ledgerPath: result.ledgerPath,
          evidenceTree: ledger.evidenceTree,
        },
        ledger.conclusion!.title,
      );
    }
    default:
      return unreachable(result);
  }
}

async function endEarly(
  reporter: CheckRunReporter,
  end: Exclude<RunEnd, { kind: "completed" }>,
  message: string,
  env: Env,
  notes: readonly string[] = [],
): Promise<void> {
  const decided = decideEndWithoutRows(end);
  // `decided.reason` already quotes `message` and adds what was (not) spent.
  const summary = `## ${decided.title}\n\n${decided.reason}\n${notes.map((note) => `\n> ${escapeInline(note)}\n`).join("")}`;
  await writeJobSummary(summary, { env });
  await reporter.end(decided.conclusion, decided.title, summary);
  finishStep({ outcome: decided.outcome, conclusion: decided.conclusion }, `${decided.title}: ${message}`);
}

/**
 * The check run could not be created (SPEC §6, §10: a 403/404 names the missing `checks: write`). Nothing
 * has run yet and nothing will: a verdict that cannot be posted is not worth a model call. The job summary
 * says so, then the step fails. A refused permission is something the workflow must change (outcome
 * `usage-error`); any other failure (5xx after retries, no answer) is `failed`.
 */
async function checkRunNotCreated(error: CheckRunWriteError, env: Env): Promise<void> {
  const permission = error.status === 403 || error.status === 404;
  const summary = [
    "## ⚠️ evidence-gate: the check run could not be created",
    "",
    error.message,
    "",
    "Nothing ran and nothing was spent: the run stops before planning when its verdict cannot be posted.",
    "",
  ].join("\n");
  await writeJobSummary(summary, { env });
  core.setOutput("outcome", permission ? "usage-error" : "failed");
  core.setFailed(`evidence-gate: ${error.message}`);
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

function usageFailure(message: string): void {
  core.setOutput("outcome", "usage-error");
  core.setFailed(`evidence-gate: ${message}`);
}

function finishStep(result: StepResult, title: string): void {
  core.setOutput("outcome", result.outcome);
  core.setOutput("conclusion", result.conclusion);
  if (result.checkRunId !== undefined) core.setOutput("check-run-id", String(result.checkRunId));
  if (result.checkRunUrl) core.setOutput("check-run-url", result.checkRunUrl);
  if (result.runId) core.setOutput("run-id", result.runId);
  if (result.ledgerPath) core.setOutput("ledger-path", result.ledgerPath);
  if (result.evidenceTree) core.setOutput("evidence-tree", result.evidenceTree);
  if (FAILING_OUTCOMES.has(result.outcome)) {
    core.setFailed(`evidence-gate: ${title}`);
  } else if (result.outcome === "paused" || result.conclusion !== "success") {
    core.warning(`evidence-gate: ${title} (check run conclusion: ${result.conclusion})`);
  }
}
