/**
 * `mode: run` (SPEC §9, §10): a hand-written graph read from the pull request's **base** ref at
 * `pull_request.base.sha` — never from the checkout, so a pull request cannot rewrite the graph that gates
 * it — then run by the engine (`runHandWritten`) on the checkout, and reported like `auto`. The base
 * branch's policy applies (`require-evidence` turns an unverified `neutral` into `failure`).
 */
import * as core from "@actions/core";
import { runHandWritten } from "../engine/hand-run.js";
import { formatIssue } from "../graph/issue.js";
import { unreachable } from "../ledger/unreachable.js";
import { describePolicySource, policySummary } from "../policy/policy-file.js";
import { ClaudeSetup } from "./claude-setup.js";
import { prGraphCopyNote, readBaseRefGraph } from "./graph-file.js";
import type { ModeInputs } from "./inputs.js";
import { progressHooks } from "./progress-hooks.js";
import type { PullRequestRun } from "./pull-request-run.js";
import { reportFinished } from "./report-finished.js";
import { endEarly } from "./step-result.js";

export async function runGraphMode(
  run: PullRequestRun,
  mode: Extract<ModeInputs, { kind: "run" }>,
): Promise<void> {
  const { env, event, inputs, reporter } = run;
  const graph = await readBaseRefGraph(run.octokit, {
    owner: event.owner,
    repo: event.repo,
    baseRef: event.baseRef,
    baseSha: event.baseSha,
    path: mode.graph,
  });
  if (!graph.ok) {
    const end =
      graph.kind === "usage-error"
        ? ({ kind: "usage-error", message: graph.message } as const)
        : ({ kind: "engine-error", message: graph.message } as const);
    return endEarly(reporter, end, graph.message, env, run.notes);
  }
  core.info(`graph: ${graph.source}`);
  const notes = [...run.notes];
  const copyNote = await prGraphCopyNote(run.workspace, {
    bytes: graph.bytes,
    source: graph.source,
    path: mode.graph,
  });
  if (copyNote !== null) {
    core.notice(copyNote);
    notes.push(copyNote);
  }
  const policySource =
    run.policy.source.kind === "none" ? undefined : describePolicySource(run.policy.source);
  core.info(
    policySource === undefined
      ? `policy: no .github/evidence-gate.yml on the base ref ${event.baseRef}: the defaults apply`
      : `policy: ${policySource}: ${policySummary(run.policy.policy)}`,
  );
  const claude = new ClaudeSetup({ inputs, env, secrets: run.secrets, temp: run.temp });
  const result = await runHandWritten({
    runId: run.runId,
    graphText: graph.text,
    graphSource: graph.source,
    inputs: mode.graphInputs,
    repoDir: run.workspace,
    ...(inputs.workingDirectory !== undefined ? { workingDirectory: inputs.workingDirectory } : {}),
    ...(inputs.concurrency !== undefined ? { concurrency: inputs.concurrency } : {}),
    continueOnFail: inputs.continueOnFail,
    // `verify-timeout` is the ceiling a graph's own verify timeouts are checked against (SPEC §3).
    verifyTimeoutCeilingMs: inputs.verifyTimeoutMs,
    verifyEnv: inputs.verifyEnv,
    runtime: "claude",
    ...(inputs.model !== undefined ? { model: inputs.model } : {}),
    commit: false,
    runsDir: run.runsDir,
    surface: "action",
    get claudeExecutable() {
      return claude.executable;
    },
    beforeFirstModelCall: claude.beforeFirstModelCall,
    modelEnv: claude.modelEnv,
    baseEnv: env,
    knownSecrets: run.secrets,
    pr: { headSha: event.headSha, baseRef: event.baseRef },
    ...(policySource !== undefined
      ? { policy: { requireEvidence: run.policy.policy.requireEvidence, source: policySource } }
      : {}),
    echo: claude.echo,
    ...(run.signal ? { signal: run.signal } : {}),
    hooks: progressHooks(reporter),
  });
  switch (result.kind) {
    case "usage_error":
      return endEarly(reporter, { kind: "usage-error", message: result.message }, result.message, env, notes);
    case "invalid_graph": {
      // Every issue, one per line; the graph on the base branch must change before anything can run.
      const message = `${graph.source} does not load (${result.issues.length} ${result.issues.length === 1 ? "issue" : "issues"}):\n${result.issues.map((issue) => `- ${formatIssue(issue)}`).join("\n")}\nFix the graph on the base branch (check a fix with mode: lint).`;
      return endEarly(reporter, { kind: "usage-error", message }, message, env, notes);
    }
    case "finished":
      return reportFinished({
        finished: result,
        runId: run.runId,
        reporter,
        checkName: inputs.checkName,
        env,
        temp: run.temp,
        secrets: run.secrets,
        notes,
      });
    default:
      return unreachable(result);
  }
}
