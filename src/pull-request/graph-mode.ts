/**
 * `mode: run` (SPEC §9, §10): a hand-written graph read from the pull request's **base** ref at
 * `pull_request.base.sha` — never from the checkout, so a pull request cannot rewrite the graph that gates
 * it, with its `use:` fragments and `agent:` subagents read from the same commit (`base-ref-sources.ts`) —
 * then run by the engine (`runHandWritten`) on the checkout, and reported like `auto`. The base
 * branch's policy applies (`require-evidence` turns an unverified `neutral` into `failure`).
 */
import { unreachable } from "../core/unreachable.js";
import { prGraphCopyNote, readBaseRefGraph } from "../github/base-ref-graph.js";
import { formatIssue } from "../graph/issue.js";
import type { FragmentSource } from "../graph/load.js";
import type { AgentSource } from "../policy/agent-definition.js";
import type { RunProxy } from "../run/model-cli.js";
import { startRun } from "../run/start-run.js";
import type { ModeInputs } from "./action-inputs.js";
import { BaseAgentConfigRun } from "./base-agent-config-run.js";
import { baseRefAgents, baseRefFragments } from "./base-ref-sources.js";
import {
  actionPorts,
  actionRequestBase,
  announcePolicy,
  endRun,
  openActionProxy,
  type PullRequestRun,
  reportRun,
} from "./running-mode.js";

export async function runGraphMode(
  run: PullRequestRun,
  mode: Extract<ModeInputs, { kind: "run" }>,
): Promise<void> {
  const { event, inputs } = run;
  const target = {
    owner: event.owner,
    repo: event.repo,
    baseRef: event.baseRef,
    baseSha: event.baseSha,
    path: mode.graph,
  };
  const graph = await readBaseRefGraph(run.octokit, target);
  if (!graph.ok) {
    const end =
      graph.kind === "usage-error"
        ? ({ kind: "usage-error", message: graph.message } as const)
        : ({ kind: "engine-error", message: graph.message } as const);
    return endRun(run, end);
  }
  run.runner.info(`graph: ${graph.source}`);
  const notes = [...run.notes];
  const copyNote = await prGraphCopyNote(run.workspace, {
    bytes: graph.bytes,
    source: graph.source,
    path: mode.graph,
  });
  if (copyNote !== null) {
    run.runner.notice(copyNote);
    notes.push(copyNote);
  }
  const refuse = (message: string) => endRun(run, { kind: "usage-error", message }, notes);
  // The graph's fragments and subagents come from the same commit as the graph, never the checkout.
  const sources = {
    fragments: baseRefFragments(run.octokit, target),
    agents: baseRefAgents(run.octokit, target),
  };
  const proxy = await openActionProxy(run, inputs.runtime);
  if (proxy.kind === "refused") return refuse(proxy.message);
  try {
    await runGraphLeg(run, mode, { graph, notes, proxy: proxy.proxy, sources });
  } finally {
    await proxy.close();
  }
}

/** The leg of a `mode: run` whose graph was read: the engine on the checkout, then the report. */
async function runGraphLeg(
  run: PullRequestRun,
  mode: Extract<ModeInputs, { kind: "run" }>,
  o: {
    readonly graph: { readonly text: string; readonly source: string };
    readonly notes: string[];
    readonly proxy: RunProxy | undefined;
    readonly sources: { readonly fragments: FragmentSource; readonly agents: AgentSource };
  },
): Promise<void> {
  const { event, inputs } = run;
  const { graph, notes } = o;
  const policy = announcePolicy(run);
  // The base's agent configuration for the run (SPEC §9), the pull request's put back after it.
  const agentConfig = new BaseAgentConfigRun(run);
  const result = await startRun(
    {
      mode: {
        kind: "run",
        graphText: graph.text,
        graphSource: graph.source,
        fragments: o.sources.fragments,
        agents: o.sources.agents,
        inputs: mode.graphInputs,
        runtime: inputs.runtime,
        ...(inputs.concurrency !== undefined ? { concurrency: inputs.concurrency } : {}),
        // `verify-timeout` is the ceiling a graph's own verify timeouts are checked against (SPEC §3).
        verifyTimeoutCeilingMs: inputs.verifyTimeoutMs,
      },
      ...actionRequestBase(run),
      pr: { headSha: event.headSha, baseRef: event.baseRef, baseSha: event.baseSha },
      ...(policy !== undefined ? { policy } : {}),
    },
    actionPorts(run, agentConfig.workspace, {}, o.proxy),
  );
  notes.push(...agentConfig.notes);
  switch (result.kind) {
    case "usage_error":
      return endRun(run, { kind: "usage-error", message: result.message }, notes);
    case "setup_failed":
      return endRun(run, { kind: "setup-failed", message: result.message }, notes);
    case "invalid_graph": {
      // Every issue, one per line; the graph on the base branch must change before anything can run.
      const message = `${graph.source} does not load (${result.issues.length} ${result.issues.length === 1 ? "issue" : "issues"}):\n${result.issues.map((issue) => `- ${formatIssue(issue)}`).join("\n")}\nFix the graph on the base branch (check a fix with mode: lint).`;
      return endRun(run, { kind: "usage-error", message }, notes);
    }
    case "finished":
      return reportRun(run, result, notes);
    default:
      return unreachable(result);
  }
}
