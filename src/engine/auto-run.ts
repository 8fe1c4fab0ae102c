/**
 * The main job: `auto` end to end (SPEC §5, §6, §8). Build-evidence decision before any model call →
 * planner call (repaired once) → trusted mutations (verify command on every non-gate sink, the tool
 * ceiling on every planned node) → scheduled node runs → evidence trees → optional commit → ledger and
 * conclusion. Entry points (`src/action`, `src/cli`) call this once and map the result. The leg itself
 * (scheduling, node lifecycle, state) is `leg.ts` → `graph-run.ts`, shared with `run` and `resume`.
 */
import type { BuildEvidenceAnswer, BuildSignal } from "../core/build-evidence-answer.js";
import { createRedactor } from "../core/redact.js";
import { mintRunId } from "../core/run-id.js";
import { ignoredFilesFingerprint } from "../evidence/ignored-files.js";
import type { RunEnd } from "../ledger/conclusion.js";
import { type AutoPlanOptions, planAuto, startPlanning } from "./auto-plan.js";
import { type FinishInput, finishRun, type RunFrame, snapshotLedger } from "./finish-run.js";
import { RunStateStore } from "./graph-run.js";
import { type FinishedLeg, legCaller, type RunHooks, runLegAndFinish } from "./leg.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { EngineRunBase, PullRequestContext } from "./run-options.js";
import { prepareRepository } from "./run-setup.js";
import { closeLeg, RUN_STATE_SCHEMA_VERSION } from "./run-state.js";
import { codexConfigKeys, executableFor, missingCliProblem, type Runtime } from "./runtime-setup.js";

/**
 * Everything `auto` needs, parsed and checked by the entry point. Times in ms. The fields the planning
 * half reads are {@link AutoPlanOptions} (shared with `plan`), among them `acceptLoadedUserConfig`.
 */
export interface AutoRunOptions extends AutoPlanOptions, EngineRunBase {
  readonly goal: string;
  /** The checked-out repository root (git work tree). */
  readonly repoDir: string;
  /** Optional sub-directory scanned for build signals too, and where nodes run. */
  readonly workingDirectory?: string;
  readonly verifyTimeoutMs: number;
  /** Variable names passed through to the verify command (input `verify-env`). */
  readonly verifyEnv: readonly string[];
  readonly acceptNoBuildEvidence: boolean;
  /** See {@link AutoPlanOptions.acceptLoadedUserConfig}: the operator's launch choice, never a plan's. */
  readonly acceptLoadedUserConfig: boolean;
  /**
   * Which CLI the planner and every planned node run (SPEC §4; `--runtime` / input `runtime`). On codex
   * the planner runs `--sandbox read-only` and the disclosure is codex's.
   */
  readonly runtime: Runtime;
  /** `--model` (claude) / `-m` (codex); default: the CLI's own. */
  readonly model?: string;
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  readonly codexConfig?: readonly string[];
  /** The pull request (action): its head and base for the starting commit, its text for the planner. */
  readonly pr?: PullRequestContext & { readonly title: string; readonly body: string };
  readonly plannerTimeoutMs: number;
  readonly hooks?: AutoRunHooks;
  /**
   * CLI `--sha`: the head the check is posted on when HEAD is a merge of it (the summary then says "the
   * merge of <head> into <base>"). The action passes `pr` instead.
   */
  readonly postedHeadSha?: string;
}

/** Progress callbacks of `auto`: those of every run (`leg.ts`). */
export type AutoRunHooks = RunHooks;

export type AutoRunResult =
  | { readonly kind: "usage_error"; readonly message: string }
  | { readonly kind: "refused"; readonly message: string; readonly signals: readonly BuildSignal[] }
  | FinishedLeg;

/** Runs `auto`. Rejects only on internal errors (the entry point fails the check run then). */
export async function runAuto(o: AutoRunOptions): Promise<AutoRunResult> {
  const gitContext = {
    baseEnv: o.baseEnv,
    knownSecrets: o.knownSecrets,
    ...(o.indexOverlay !== undefined ? { indexOverlay: o.indexOverlay } : {}),
  };
  // Before the repository is touched or anything is spent: a bad working directory is a usage error first.
  const started = await startPlanning(o);
  if (started.kind !== "ready") return started;
  const { answer, repoDir, workDir } = started;
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
  const setupError = (await o.beforeFirstModelCall?.(o.runtime)) ?? null;
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
    ...(o.runtime === "codex" && (o.codexConfig ?? []).length > 0
      ? { codex_config_keys: codexConfigKeys(o.codexConfig) }
      : {}),
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
  const planned = await planAuto(o, started, {
    executable,
    env: o.modelEnv("planner", o.runtime),
    timeoutMs: o.plannerTimeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
  });

  const frame: RunFrame = {
    runId,
    mode: "auto",
    goal: o.goal,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    repoDir,
    gitContext,
    start: { sha: start.sha, tree: start.tree, description: startDescription },
    ...(o.pr ? { headSha: o.pr.headSha } : {}),
    answer,
    requireEvidence: o.policy?.requireEvidence === true,
    commit: o.commit ? { message: o.goal, ...(o.publish !== undefined ? { publish: o.publish } : {}) } : null,
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
    const rejected = planned.planned;
    dir.writeJson("rejected.json", { refusals: rejected.refusals, rejected: rejected.rejected });
    const plan = planned.plan;
    await o.hooks?.onPlan?.(redactor.deep(plan));
    // Only a repaired-and-refused-again plan is "refused twice"; an unusable first reply (no JSON, a
    // failed call) is not repairable and ends the run as a planning failure naming why.
    const end: RunEnd = o.signal?.aborted
      ? { kind: "cancelled" }
      : rejected.repairAttempted
        ? { kind: "plan-refused", refusals: rejected.refusals }
        : { kind: "engine-error", message: `planning failed: ${rejected.reason}` };
    return finish({ graph: null, rows: [], plan, calls: planned.calls, end });
  }

  // The trusted mutations were made by `planAuto`: the verify command on every non-gate sink, the ceiling
  // (with the operator's opt-in, if any) on every planned node. state.json records the policies as built.
  const { spec, graph, policies, plan, warnings } = planned;
  dir.writeJson("graph.json", spec);
  store.state.tool_policies = policies;
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

export type { BuildEvidenceAnswer };
