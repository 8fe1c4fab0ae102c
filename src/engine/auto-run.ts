/**
 * The main job: `auto` end to end (SPEC §5, §6, §8). Build-evidence decision before any model call →
 * planner call (repaired once) → trusted mutations (verify command on every non-gate sink, the tool
 * ceiling on every planned node) → scheduled node runs → evidence trees → optional commit → ledger and
 * conclusion. Entry points (`src/action`, `src/cli`) call this once and map the result. The leg itself
 * (scheduling, node lifecycle, state) is `leg.ts` → `graph-run.ts`, shared with `run` and `resume`.
 */
import { resolve } from "node:path";
import type { BuildEvidenceAnswer, BuildSignal } from "../evidence/answer.js";
import { decideBuildEvidence } from "../evidence/build-evidence.js";
import { scanBuildSignals } from "../evidence/build-signals.js";
import { ignoredFilesFingerprint } from "../evidence/ignored-files.js";
import { loadGraphObject } from "../graph/load.js";
import type { RunEnd } from "../ledger/conclusion.js";
import type { PlanSection } from "../ledger/ledger.js";
import { createRedactor } from "../ledger/redact.js";
import { attachVerifyCommand } from "../plan/attach-verify.js";
import { buildPlannerPrompt } from "../plan/planner-prompt.js";
import { DEFAULT_PLANNED_ALLOWLIST, extendAllowlist } from "../policy/allowlist.js";
import { plannedNodePolicy } from "../policy/ceiling.js";
import { ceilingDisclosure } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { type FinishInput, finishRun, type RunFrame, snapshotLedger } from "./finish-run.js";
import { RunStateStore } from "./graph-run.js";
import { type FinishedLeg, legCaller, type RunHooks, runLegAndFinish } from "./leg.js";
import { type PlanningCall, planWithRepair } from "./plan-call.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import { mintRunId, type RunId } from "./run-id.js";
import { prepareRepository, workingDirectoryProblem } from "./run-setup.js";
import { closeLeg, RUN_STATE_SCHEMA_VERSION } from "./run-state.js";
import {
  executableFor,
  missingCliProblem,
  type Runtime,
  runtimeOptionsProblem,
  runtimeWarnings,
} from "./runtime-setup.js";

/** Everything `auto` needs, parsed and checked by the entry point. Times in ms. */
export interface AutoRunOptions {
  readonly goal: string;
  /** The checked-out repository root (git work tree). */
  readonly repoDir: string;
  /** Optional sub-directory scanned for build signals too, and where nodes run. */
  readonly workingDirectory?: string;
  readonly verifyCmd?: string;
  readonly verifyTimeoutMs: number;
  /** Variable names passed through to the verify command (input `verify-env`). */
  readonly verifyEnv: readonly string[];
  readonly acceptNoBuildEvidence: boolean;
  /**
   * Which CLI the planner and every planned node run (SPEC §4; `--runtime` / input `runtime`). On codex
   * the planner runs `--sandbox read-only` and the disclosure is codex's.
   */
  readonly runtime: Runtime;
  /** `--model` (claude) / `-m` (codex); default: the CLI's own. */
  readonly model?: string;
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  /** Commit the nodes' changes when the run ends (CLI `--commit`). */
  readonly commit: boolean;
  readonly runsDir: string;
  readonly surface: "action" | "cli";
  /** The `claude` executable (claude runs; required for the type's sake on codex runs, unused there). */
  readonly claudeExecutable: string;
  /** The `codex` executable (codex runs); default `codex`. */
  readonly codexExecutable?: string;
  /** Codex only: the `codex-config` pairs, `-c KEY=VALUE` on the planner and every node (`RuntimeOptions`). */
  readonly codexConfig?: readonly string[];
  /**
   * Called once after the build-evidence decision and before the planner call (the action installs the
   * CLI here, so a refused run installs nothing). Returns an error message to stop as a usage error.
   */
  readonly beforeFirstModelCall?: () => Promise<string | null>;
  /** Builds a model child's environment for a call (`label` = node id or `planner`). */
  readonly modelEnv: (label: string) => Readonly<Record<string, string>>;
  /** The environment verify commands start from (scrubbed by the seam). */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
  readonly pr?: {
    readonly title: string;
    readonly body: string;
    readonly headSha: string;
    readonly baseRef: string;
    /** The `/evidence-gate run` comment's text and author: fenced DATA in the planner prompt, never the goal. */
    readonly request?: { readonly author: string; readonly text: string };
  };
  /** Base-branch policy file values (SPEC §5). */
  readonly policy?: {
    readonly verifyCmd?: string;
    readonly requireEvidence?: boolean;
    readonly plannedTools?: readonly string[];
    /** Where the file was read (`describePolicySource`); recorded in the ledger's plan section. */
    readonly source?: string;
  };
  readonly plannerTimeoutMs: number;
  readonly echo?: { readonly write: (text: string) => void; readonly fenceWorkflowCommands: boolean };
  readonly signal?: AbortSignal;
  readonly hooks?: AutoRunHooks;
  /**
   * CLI `--sha`: the head the check is posted on when HEAD is a merge of it (the summary then says "the
   * merge of <head> into <base>"). The action passes `pr` instead.
   */
  readonly postedHeadSha?: string;
  /** Run id to use (the action mints it before creating the check run); default: minted here. */
  readonly runId?: RunId;
}

/** Progress callbacks of `auto`: those of every run (`leg.ts`). */
export type AutoRunHooks = RunHooks;

export type AutoRunResult =
  | { readonly kind: "usage_error"; readonly message: string }
  | { readonly kind: "refused"; readonly message: string; readonly signals: readonly BuildSignal[] }
  | FinishedLeg;

/** Runs `auto`. Rejects only on internal errors (the entry point fails the check run then). */
export async function runAuto(o: AutoRunOptions): Promise<AutoRunResult> {
  if (o.goal.trim() === "")
    return { kind: "usage_error", message: "goal is empty: pass the goal (input `goal`, flag `--goal`)" };
  const runtimeProblem = runtimeOptionsProblem(o.runtime, o);
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const gitContext = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  // Before the build-evidence decision, as before: a bad working directory is a usage error first.
  const repoDir = resolve(o.repoDir);
  const workDir = o.workingDirectory ? resolve(repoDir, o.workingDirectory) : repoDir;
  const wdProblem = workingDirectoryProblem(repoDir, workDir);
  if (wdProblem !== null) return { kind: "usage_error", message: wdProblem };
  const signals = await scanBuildSignals(workDir === repoDir ? [repoDir] : [repoDir, workDir]);
  const decision = decideBuildEvidence({
    ...(o.verifyCmd !== undefined ? { verifyCmd: o.verifyCmd } : {}),
    acceptNoBuildEvidence: o.acceptNoBuildEvidence,
    signals,
    ...(o.policy ? { policy: o.policy } : {}),
    surface: o.surface,
  });
  if (decision.kind === "usage_error") return { kind: "usage_error", message: decision.message };
  if (decision.kind === "refused")
    return { kind: "refused", message: decision.message, signals: decision.signals };
  const answer = decision.answer;
  // git runs from the run's own environment (never the host process's), like the verify's evidence tree.
  const prepared = await prepareRepository({
    repoDir,
    ...(o.workingDirectory !== undefined ? { workingDirectory: o.workingDirectory } : {}),
    commit: o.commit,
    gitContext,
    ...(o.pr ? { pr: { headSha: o.pr.headSha, baseRef: o.pr.baseRef } } : {}),
    ...(o.postedHeadSha !== undefined ? { postedHeadSha: o.postedHeadSha } : {}),
  });
  if (!prepared.ok) return { kind: "usage_error", message: prepared.message };
  const { start, startDescription, startClean } = prepared.repo;
  const setupError = (await o.beforeFirstModelCall?.()) ?? null;
  if (setupError !== null) return { kind: "usage_error", message: setupError };
  const executable = executableFor(o.runtime, o);
  const missingCli = missingCliProblem(o.runtime, executable, o.baseEnv);
  if (missingCli !== null) return { kind: "usage_error", message: missingCli };

  const runId = o.runId ?? mintRunId();
  // Known secrets (4+ characters) never reach what the run writes or hands on: the run directory, the
  // hooks' snapshots, the returned ledger (SPEC §9). A child can still print them (the verify command can
  // read the parent's initial environment through /proc), so this redacts output; it prevents nothing.
  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  // A new run directory: the lock is free; taken so a `resume` started meanwhile is refused.
  dir.lock();
  const startedAt = new Date().toISOString();
  dir.event({ type: "run_started", runId, mode: "auto" });
  const store = new RunStateStore(dir, {
    schema_version: RUN_STATE_SCHEMA_VERSION,
    run_id: runId,
    mode: "auto",
    goal: o.goal,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    inputs: {},
    build_evidence: answer,
    starting_commit: { sha: start.sha, tree: start.tree, description: startDescription },
    start_clean: startClean,
    repo_dir: repoDir,
    work_dir: workDir,
    concurrency: o.concurrency,
    on_fail: o.onFail,
    verify: { timeout_ms: o.verifyTimeoutMs, env: [...o.verifyEnv] },
    ...(o.policy
      ? {
          policy: {
            require_evidence: o.policy.requireEvidence === true,
            ...(o.policy.source !== undefined ? { source: o.policy.source } : {}),
          },
        }
      : {}),
    tool_policies: {},
    planning_calls: [],
    plan: null,
    rows: [],
    nodes: {},
    gates: {},
    paused: null,
    legs: [{ started_at: startedAt, kind: "fresh" }],
  });
  store.save();
  await o.hooks?.onRunStarted?.(runId, dir.path);

  let allowed: readonly string[] = DEFAULT_PLANNED_ALLOWLIST;
  if (o.policy?.plannedTools) {
    const extended = extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, o.policy.plannedTools);
    if (!extended.ok) {
      const why = extended.refusals.map((r) => `${r.entry}: ${r.reason}`).join("; ");
      return { kind: "usage_error", message: `policy file planned-tools refused: ${why}` };
    }
    allowed = extended.allowlist;
  }
  const prompt = buildPlannerPrompt({
    goal: o.goal,
    inputs: [],
    allowlist: allowed,
    buildEvidence: answer.kind === "graph" ? "none-detected" : answer.kind,
    ...(answer.kind === "attached" ? { verifyCommand: answer.command } : {}),
    ...(o.pr ? { pr: { title: o.pr.title, body: o.pr.body } } : {}),
    ...(o.pr?.request ? { request: o.pr.request } : {}),
    runtime: o.runtime,
  });
  // The git-ignored files as the run found them, before any model call: each verify is compared with this
  // (ADR 0003, amendment 2026-11-29) — a pass that rests on ignored files on no commit is not success.
  // Only this run's own directory (the engine writes state.json and events there); other files under the
  // runs folder — a node could plant one that the build imports — are fingerprinted like any ignored file.
  const ignoredExclude = [dir.path];
  const ignoredBaseline = await ignoredFilesFingerprint(repoDir, {
    ...gitContext,
    exclude: ignoredExclude,
    excludeRunDirectoriesUnder: o.runsDir,
  });
  const planned = await planWithRepair({
    runtime: o.runtime,
    executable,
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    prompt,
    allowlist: allowed,
    cwd: workDir,
    env: o.modelEnv("planner"),
    ...(o.model !== undefined ? { model: o.model } : {}),
    timeoutMs: o.plannerTimeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const disclosure = ceilingDisclosure({ runtime: o.runtime, loadedUserConfig: false, surface: o.surface });
  const policyNote: Pick<PlanSection, "policy"> =
    o.policy?.source !== undefined
      ? { policy: { source: o.policy.source, requireEvidence: o.policy.requireEvidence === true } }
      : {};

  const frame: RunFrame = {
    runId,
    mode: "auto",
    goal: o.goal,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    repoDir,
    gitContext,
    start: { sha: start.sha, tree: start.tree, description: startDescription },
    answer,
    requireEvidence: o.policy?.requireEvidence === true,
    commit: o.commit ? { message: o.goal } : null,
    redactor,
    dir,
    startedAt,
  };
  const finish = async (args: FinishInput): Promise<AutoRunResult> => {
    store.state.planning_calls = [...args.calls];
    store.state.legs = closeLeg(store.state.legs, args.end);
    store.save();
    const { ledger, ledgerPath, digests } = await finishRun(frame, args);
    return { kind: "finished", ledger, runDir: dir.path, ledgerPath, digests, warnings: [] };
  };

  if (planned.kind === "rejected") {
    dir.writeJson("rejected.json", { refusals: planned.refusals, rejected: planned.rejected });
    const plan: PlanSection = {
      buildEvidence: answer,
      sinkCommands: [],
      disclosure,
      nodes: [],
      planningCostUsd: sumKnown(planned.calls),
      ...(planned.repairAttempted ? { repaired: { refusals: [...planned.refusals] } } : {}),
      ...policyNote,
    };
    await o.hooks?.onPlan?.(redactor.deep(plan));
    // Only a repaired-and-refused-again plan is "refused twice"; an unusable first reply (no JSON, a
    // failed call) is not repairable and ends the run as a planning failure naming why.
    const end: RunEnd = o.signal?.aborted
      ? { kind: "cancelled" }
      : planned.repairAttempted
        ? { kind: "plan-refused", refusals: planned.refusals }
        : { kind: "engine-error", message: `planning failed: ${planned.reason}` };
    return finish({ graph: null, rows: [], plan, calls: planned.calls, end });
  }

  // Trusted mutations: the verify command on every non-gate sink, then the graph loaded like any other.
  const spec = structuredClone(planned.spec);
  if (answer.kind === "attached") attachVerifyCommand(spec, answer.command, { timeoutMs: o.verifyTimeoutMs });
  const loaded = loadGraphObject(spec, "planner reply", {
    verifyTimeoutCeilingMs: Math.max(o.verifyTimeoutMs, 10 * 60_000),
  });
  if (!loaded.ok) {
    const reason = loaded.issues.map((i) => i.reason).join("; ");
    throw new Error(`Internal error: a validated plan failed to load after trusted mutations: ${reason}`);
  }
  const graph = loaded.graph;
  dir.writeJson("graph.json", spec);
  const policies: Record<string, ToolPolicy> = {};
  for (const node of graph.nodes) {
    policies[node.id] = plannedNodePolicy(node.allowed_tools, { loadedUserConfig: false });
  }
  store.state.tool_policies = policies;
  const warnings = runtimeWarnings(o.runtime, graph);
  const plan: PlanSection = {
    buildEvidence: answer,
    sinkCommands:
      answer.kind === "attached" ? graph.sinks.map((id) => ({ nodeId: id, command: answer.command })) : [],
    disclosure,
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      dependsOn: [...n.depends_on],
      allowedTools: [...n.allowed_tools],
      sink: graph.sinks.includes(n.id),
    })),
    planningCostUsd: sumKnown(planned.calls),
    ...(planned.repairedFrom ? { repaired: { refusals: [...planned.repairedFrom] } } : {}),
    ...policyNote,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  store.save();
  dir.event({ type: "plan_ready", nodes: graph.nodes.map((n) => n.id), sinks: graph.sinks });
  await o.hooks?.onPlan?.(redactor.deep(plan));
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: [], calls: planned.calls }), "plan");

  store.state.planning_calls = [...planned.calls];
  store.state.plan = plan;
  store.save();
  const finished = await runLegAndFinish({
    frame,
    store,
    graph,
    plan,
    calls: planned.calls,
    workDir,
    inputs: {},
    policies,
    concurrency: Math.min(o.concurrency, graph.concurrency),
    onFail: o.onFail,
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

function sumKnown(calls: readonly PlanningCall[]): number | null {
  if (calls.some((c) => c.costUsd === null)) return null;
  return calls.reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
}

export type { BuildEvidenceAnswer };
