/**
 * `run`: a hand-written graph end to end (SPEC §2, §3, §4). Load and validate the graph (every issue, or
 * nothing runs) → check the inputs it references were given → the repository checks every run makes →
 * one leg of the engine (`graph-run.ts`) → the ledger and its conclusion (`finish-run.ts`).
 *
 * No build-evidence refusal applies: `run` trusts the graph's own `success_check.verify` fields (SPEC §5),
 * and each node gets only its own `allowed_tools` (no ceiling; SPEC §8). The answer recorded is `graph`,
 * naming which sinks verify.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createRedactor } from "../core/redact.js";
import { mintRunId } from "../core/run-id.js";
import { ignoredFilesFingerprint } from "../evidence/ignored-files.js";
import type { Graph } from "../graph/graph.js";
import { formatIssue, type GraphIssue } from "../graph/issue.js";
import { loadGraphText } from "../graph/load.js";
import { placeholdersIn } from "../graph/placeholders.js";
import type { PlanSection } from "../ledger/ledger.js";
import { handWrittenDisclosure } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { type RunFrame, snapshotLedger } from "./finish-run.js";
import { RunStateStore } from "./graph-run.js";
import { type FinishedLeg, legCaller, type RunHooks, runLegAndFinish } from "./leg.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { EngineRunBase, PullRequestContext } from "./run-options.js";
import { concurrencyProblem, prepareRepository } from "./run-setup.js";
import { RUN_STATE_SCHEMA_VERSION } from "./run-state.js";
import {
  codexConfigKeys,
  executableFor,
  missingCliProblem,
  type Runtime,
  runtimeOptionsProblem,
  runtimeWarnings,
} from "./runtime-setup.js";

export type { RunHooks };

/** Everything `run` needs, parsed and checked by the entry point. Times in ms. */
export interface HandRunOptions extends EngineRunBase {
  /** The graph file's text (the CLI reads the file; the action reads it from the base ref). */
  readonly graphText: string;
  /** Where it came from, for messages and the ledger: a path, or `base ref main: .github/graph.yml`. */
  readonly graphSource: string;
  /** `--input NAME=VALUE` values. */
  readonly inputs: Readonly<Record<string, string>>;
  readonly repoDir: string;
  readonly workingDirectory?: string;
  /** `--concurrency N` (1..10): overrides the graph's `concurrency`. */
  readonly concurrency?: number;
  /** `--continue-on-fail`: ORs with the graph's `on_fail: continue`. */
  readonly continueOnFail: boolean;
  /** Largest `success_check.verify.timeout` allowed (SPEC §3: configurable, default 10 min). */
  readonly verifyTimeoutCeilingMs?: number;
  readonly verifyEnv: readonly string[];
  /** Which CLI every agent node runs (SPEC §4; `--runtime` / input `runtime`), recorded in `state.json`. */
  readonly runtime: Runtime;
  /** `--model` (claude) / `-m` (codex); default: the CLI's own. */
  readonly model?: string;
  readonly pr?: PullRequestContext;
  readonly postedHeadSha?: string;
  /** Base-branch policy: `require-evidence` turns every unverified `neutral` into `failure`. */
  readonly policy?: { readonly requireEvidence?: boolean; readonly source?: string };
}

export type HandRunResult =
  | { readonly kind: "usage_error"; readonly message: string }
  /** The graph did not load: every issue, each rendered `invalid graph: node "ID": REASON`. */
  | { readonly kind: "invalid_graph"; readonly issues: readonly GraphIssue[]; readonly message: string }
  | FinishedLeg;

/** Runs a hand-written graph. Rejects only on internal errors (the entry point fails the check run then). */
export async function runHandWritten(o: HandRunOptions): Promise<HandRunResult> {
  const loaded = loadGraphText(o.graphText, o.graphSource, {
    ...(o.verifyTimeoutCeilingMs !== undefined ? { verifyTimeoutCeilingMs: o.verifyTimeoutCeilingMs } : {}),
  });
  if (!loaded.ok) {
    return {
      kind: "invalid_graph",
      issues: loaded.issues,
      message: `${o.graphSource} does not load (${loaded.issues.length} ${loaded.issues.length === 1 ? "issue" : "issues"}):\n${loaded.issues.map(formatIssue).join("\n")}`,
    };
  }
  const graph = loaded.graph;
  const runtimeProblem = runtimeOptionsProblem(o.runtime, o);
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const warnings = runtimeWarnings(o.runtime, graph);
  const missing = missingInputs(graph, o.inputs);
  if (missing.length > 0) {
    return {
      kind: "usage_error",
      message: `${o.graphSource} uses ${missing.map((n) => `{{ inputs.${n} }}`).join(", ")} but no value was given: pass ${missing.map((n) => `--input ${n}=VALUE`).join(" ")} (action: input \`inputs\`). Nothing was run.`,
    };
  }
  const concurrencyWrong = concurrencyProblem(o.concurrency);
  if (concurrencyWrong !== null) return { kind: "usage_error", message: concurrencyWrong };

  const gitContext = {
    baseEnv: o.baseEnv,
    knownSecrets: o.knownSecrets,
    ...(o.indexOverlay !== undefined ? { indexOverlay: o.indexOverlay } : {}),
  };
  const prepared = await prepareRepository({
    repoDir: o.repoDir,
    ...(o.workingDirectory !== undefined ? { workingDirectory: o.workingDirectory } : {}),
    commit: o.commit,
    gitContext,
    ...(o.pr ? { pr: o.pr } : {}),
    ...(o.postedHeadSha !== undefined ? { postedHeadSha: o.postedHeadSha } : {}),
  });
  if (!prepared.ok) return { kind: "usage_error", message: prepared.message };
  const { repoDir, workDir, start, startDescription, startClean } = prepared.repo;
  const hasAgents = graph.nodes.some((n) => n.type !== "gate");
  const setupError = (await o.beforeFirstModelCall?.(o.runtime)) ?? null;
  if (setupError !== null) return { kind: "usage_error", message: setupError };
  if (hasAgents) {
    const missingCli = missingCliProblem(o.runtime, executableFor(o.runtime, o), o.baseEnv);
    if (missingCli !== null) return { kind: "usage_error", message: missingCli };
  }

  const runId = o.runId ?? mintRunId();
  // Known secrets never reach what the run writes or hands on (SPEC §9); see auto-run.ts.
  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  // A new run directory: the lock is free; taken so a `resume` started meanwhile is refused.
  dir.lock();
  const startedAt = new Date().toISOString();
  dir.event({ type: "run_started", runId, mode: "run", leg: "fresh" });
  const checkedSinks = graph.sinks.filter((id) => graph.nodes_by_id.get(id)?.type !== "gate");
  const answer = {
    kind: "graph" as const,
    verifiedSinks: checkedSinks.filter((id) => graph.nodes_by_id.get(id)?.success_check.verify !== null),
    unverifiedSinks: checkedSinks.filter((id) => graph.nodes_by_id.get(id)?.success_check.verify === null),
  };
  const policies: Record<string, ToolPolicy> = {};
  for (const node of graph.nodes) {
    // A hand-written node's only layer is its own declaration (SPEC §8; `handWrittenPolicy`).
    if (node.type !== "gate")
      policies[node.id] = {
        allowedTools: [...node.allowed_tools],
        strictMcpConfig: false,
        disallowedTools: [],
      };
  }
  const plan: PlanSection = {
    buildEvidence: answer,
    sinkCommands: graph.sinks.flatMap((id) => {
      const verify = graph.nodes_by_id.get(id)?.success_check.verify;
      return verify ? [{ nodeId: id, command: verify.command }] : [];
    }),
    disclosure: handWrittenDisclosure(o.surface, o.runtime),
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      ...(n.type === "gate" ? { type: "gate" as const } : {}),
      dependsOn: [...n.depends_on],
      allowedTools: [...n.allowed_tools],
      sink: graph.sinks.includes(n.id),
    })),
    planningCostUsd: 0,
    ...(o.policy?.source !== undefined
      ? { policy: { source: o.policy.source, requireEvidence: o.policy.requireEvidence === true } }
      : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  const concurrency = o.concurrency ?? graph.concurrency;
  const onFail = o.continueOnFail || graph.on_fail === "continue" ? "continue" : "halt";
  const store = new RunStateStore(dir, {
    schema_version: RUN_STATE_SCHEMA_VERSION,
    run_id: runId,
    mode: "run",
    graph_source: o.graphSource,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.runtime === "codex" && (o.codexConfig ?? []).length > 0
      ? { codex_config_keys: codexConfigKeys(o.codexConfig) }
      : {}),
    inputs: { ...o.inputs },
    build_evidence: answer,
    starting_commit: { sha: start.sha, tree: start.tree, description: startDescription },
    start_clean: startClean,
    repo_dir: repoDir,
    work_dir: workDir,
    concurrency,
    on_fail: onFail,
    // For `run` the recorded timeout is the ceiling the graph was validated with (resume re-validates).
    verify: { timeout_ms: o.verifyTimeoutCeilingMs ?? 10 * 60_000, env: [...o.verifyEnv] },
    ...(o.policy
      ? {
          policy: {
            require_evidence: o.policy.requireEvidence === true,
            ...(o.policy.source !== undefined ? { source: o.policy.source } : {}),
          },
        }
      : {}),
    tool_policies: policies,
    planning_calls: [],
    plan,
    rows: [],
    nodes: {},
    gates: {},
    paused: null,
    legs: [{ started_at: startedAt, kind: "fresh" }],
  });
  dir.writeJson("graph.json", graph.spec);
  store.save();
  await o.hooks?.onRunStarted?.(runId, dir.path);
  await o.hooks?.onPlan?.(redactor.deep(plan));

  const frame: RunFrame = {
    runId,
    mode: "run",
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    repoDir,
    gitContext,
    start: { sha: start.sha, tree: start.tree, description: startDescription },
    ...(o.pr ? { headSha: o.pr.headSha } : {}),
    answer,
    requireEvidence: o.policy?.requireEvidence === true,
    commit: o.commit
      ? {
          message: graph.name ?? `run ${o.graphSource}`,
          ...(o.publish !== undefined ? { publish: o.publish } : {}),
        }
      : null,
    redactor,
    dir,
    startedAt,
  };
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: [], calls: [] }), "plan");
  // The git-ignored files as the run found them (ADR 0003 amendment); only this run's directory is left out.
  const ignoredBaseline = await ignoredFilesFingerprint(repoDir, {
    ...gitContext,
    exclude: [dir.path],
    excludeRunDirectoriesUnder: o.runsDir,
  });
  const finished = await runLegAndFinish({
    frame,
    store,
    graph,
    plan,
    calls: [],
    workDir,
    inputs: o.inputs,
    policies,
    concurrency,
    onFail,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    verify: {
      baseEnv: o.baseEnv,
      passThrough: o.verifyEnv,
      knownSecrets: o.knownSecrets,
      ignoredBaseline,
    },
    ...legCaller(o),
  });
  return { kind: "finished", ...finished, warnings };
}

/** `{{ inputs.NAME }}` names used anywhere in the graph (prompt, cwd, verify command and cwd) and not given. */
export function missingInputs(graph: Graph, inputs: Readonly<Record<string, string>>): string[] {
  const missing = new Set<string>();
  for (const node of graph.nodes) {
    const templates = [
      node.prompt,
      node.cwd ?? "",
      node.success_check.verify?.command ?? "",
      node.success_check.verify?.cwd ?? "",
    ];
    for (const template of templates) {
      for (const ref of placeholdersIn(template)) {
        if (ref.namespace === "inputs" && ref.problem === null && !Object.hasOwn(inputs, ref.name))
          missing.add(ref.name);
      }
    }
  }
  return [...missing];
}

/** The run directory of `runId` under `runsDir`, when it exists. */
export function existingRunDir(runsDir: string, runId: string): string | null {
  const path = join(runsDir, runId);
  return existsSync(path) ? path : null;
}
