/**
 * The main job: `auto` end to end (SPEC §5, §6, §8). Build-evidence decision before any model call →
 * planner call (repaired once) → trusted mutations (verify command on every non-gate sink, the tool
 * ceiling on every planned node) → scheduled node runs → evidence trees → optional commit → ledger and
 * conclusion. Entry points (`src/action`, `src/cli`) call this once and map the result. The leg itself
 * (scheduling, node lifecycle, state) is `leg.ts` → `graph-run.ts`, shared with `run` and `resume`.
 */
import type { BuildSignal } from "../core/build-evidence-answer.js";
import type { IgnoredFiles } from "../evidence/ignored-files.js";
import { receiptSettingsOf } from "../evidence/verify.js";
import type { RunEnd } from "../ledger/conclusion.js";
import type { Runtime } from "../policy/disclosure.js";
import { claudeNotLoggedInMessage } from "../runtime/claude-runtime.js";
import { type AutoPlanOptions, type AutoPlanResult, planAuto, startPlanning } from "./auto-plan.js";
import { finishRun, snapshotLedger } from "./finish-run.js";
import {
  frameCommit,
  gitContextOf,
  ignoredBaselineOf,
  openFreshRun,
  prepareFreshRepository,
  startRunState,
} from "./fresh-run.js";
import { type FinishedLeg, legCaller, type RunHooks, runLegAndFinish } from "./leg.js";
import { runEndOfAbort } from "./run-end.js";
import type { RunFrame } from "./run-frame.js";
import type { EngineRunBase, PullRequestContext } from "./run-options.js";
import { closeLeg } from "./run-state.js";
import type { RunStateStore } from "./run-state-store.js";
import { executableFor, modelCliEnd, modelCliProblem, type SetupFailed } from "./runtime-setup.js";

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
  | SetupFailed
  | { readonly kind: "refused"; readonly message: string; readonly signals: readonly BuildSignal[] }
  | FinishedLeg;

/** Runs `auto`. Rejects only on internal errors (the entry point fails the check run then). */
export async function runAuto(o: AutoRunOptions): Promise<AutoRunResult> {
  const gitContext = gitContextOf(o);
  // Before the repository is touched or anything is spent: a bad working directory is a usage error first.
  const started = await startPlanning(o);
  if (started.kind !== "ready") return started;
  // git runs from the run's own environment (never the host process's), like the verify's evidence tree.
  const prepared = await prepareFreshRepository(o, { commit: o.commit, gitContext });
  if (!prepared.ok) return { kind: "usage_error", message: prepared.message };
  const cliProblem = await modelCliProblem(o, o.runtime, { findExecutable: true });
  if (cliProblem !== null) return modelCliEnd(cliProblem);

  const frame = openFreshRun(o, {
    mode: "auto",
    goal: o.goal,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    repo: prepared.repo,
    gitContext,
    answer: started.answer,
    ...(o.pr ? { headSha: o.pr.headSha } : {}),
    requireEvidence: o.policy?.requireEvidence === true,
    commit: frameCommit(o, o.goal),
  });
  // The plan and its policies are recorded once the planner answered (`runPlan`).
  const store = startRunState(frame, {
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    inputs: {},
    repo: prepared.repo,
    concurrency: o.concurrency,
    onFail: o.onFail,
    verify: {
      timeout_ms: o.verifyTimeoutMs,
      env: [...o.verifyEnv],
      ...(o.verifyRepeat !== undefined ? { repeat: o.verifyRepeat } : {}),
    },
    ...(o.policy ? { policy: o.policy } : {}),
    toolPolicies: {},
    plan: null,
  });
  await o.hooks?.onRunStarted?.(frame.runId, frame.dir.path);
  // Taken before any model call: the planner is a model call too.
  const ignoredBaseline = await ignoredBaselineOf(frame, o.runsDir);
  const planned = await planAuto(o, started, {
    executable: executableFor(o.runtime, o),
    env: o.modelEnv("planner", o.runtime),
    timeoutMs: o.plannerTimeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
  });
  const opened = { frame, store };
  if (planned.kind === "rejected") return endRejectedPlan(o, opened, planned);
  return runPlan(o, opened, { planned, workDir: prepared.repo.workDir, ignoredBaseline });
}

/** The run as it stands once opened: its frame and its `state.json`. */
interface OpenedRun {
  readonly frame: RunFrame;
  readonly store: RunStateStore;
}

/**
 * Ends a run whose planner reply was refused (twice, after a repair) or unusable: `rejected.json` keeps
 * the refusals and the reply, the plan section says so, and the ledger concludes with no node run.
 */
async function endRejectedPlan(
  o: AutoRunOptions,
  { frame, store }: OpenedRun,
  planned: Extract<AutoPlanResult, { kind: "rejected" }>,
): Promise<AutoRunResult> {
  const { dir, redactor } = frame;
  const rejected = planned.planned;
  dir.writeJson("rejected.json", { refusals: rejected.refusals, rejected: rejected.rejected });
  const plan = planned.plan;
  await o.hooks?.onPlan?.(redactor.deep(plan));
  // Only a repaired-and-refused-again plan is "refused twice"; an unusable first reply (no JSON, a
  // failed call) is not repairable and ends the run as a planning failure naming why.
  // claude without a credential is the operator's setup (a usage error naming it), not a planning failure.
  const end: RunEnd = o.signal?.aborted
    ? runEndOfAbort(o.signal)
    : rejected.notLoggedIn === true
      ? { kind: "usage-error", message: claudeNotLoggedInMessage(o.surface) }
      : rejected.repairAttempted
        ? { kind: "plan-refused", refusals: rejected.refusals }
        : { kind: "planning-failed", message: rejected.reason };
  store.state.planning_calls = [...planned.calls];
  store.state.legs = closeLeg(store.state.legs, end);
  store.save();
  const { ledger, ledgerPath, digests } = await finishRun(frame, {
    graph: null,
    rows: [],
    plan,
    calls: planned.calls,
    end,
  });
  return { kind: "finished", ledger, runDir: dir.path, ledgerPath, digests, warnings: [] };
}

/** What running the plan needs besides the opened run: the plan, where nodes run, the ignored files. */
interface PlanToRun {
  readonly planned: Extract<AutoPlanResult, { kind: "planned" }>;
  /** Absolute: the working directory, or the repository root. */
  readonly workDir: string;
  readonly ignoredBaseline: IgnoredFiles;
}

/**
 * Records the plan (`graph.json`, the policies and the plan section in `state.json`, `plan_ready`), tells
 * the hooks, and runs it as the run's first leg.
 */
async function runPlan(
  o: AutoRunOptions,
  { frame, store }: OpenedRun,
  run: PlanToRun,
): Promise<AutoRunResult> {
  const { dir, redactor } = frame;
  // The trusted mutations were made by `planAuto`: the verify command on every non-gate sink, the ceiling
  // (with the operator's opt-in, if any) on every planned node. state.json records the policies as built.
  const { spec, graph, policies, plan, calls, warnings } = run.planned;
  dir.writeJson("graph.json", spec);
  store.state.tool_policies = policies;
  store.save();
  dir.event({ type: "plan_ready", nodes: graph.nodes.map((n) => n.id), sinks: graph.sinks });
  await o.hooks?.onPlan?.(redactor.deep(plan));
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: [], calls }), "plan");

  store.state.planning_calls = [...calls];
  store.state.plan = plan;
  store.save();
  const finished = await runLegAndFinish({
    frame,
    store,
    graph,
    plan,
    calls,
    workDir: run.workDir,
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
      ignoredBaseline: run.ignoredBaseline,
      ...(o.verifyRepeat !== undefined ? { repeat: o.verifyRepeat } : {}),
      receipts: receiptSettingsOf(o.policy, o.testReports),
      ...(o.verifyBase !== undefined ? { base: o.verifyBase } : {}),
    },
    ...legCaller(o),
  });
  return { kind: "finished", ...finished, warnings };
}
