/**
 * One leg, from the verify queue to the written ledger: the part `auto`, `run` and `resume` share once the
 * graph, its policies and the run state are in place. The verifier compares every verify's git-ignored
 * files with the leg's baseline (ADR 0003 amendment) and leaves only this run's own directory out.
 */
import { dirname } from "node:path";
import type { RunId } from "../core/run-id.js";
import { BaseVerifier, type VerifyBaseSetting } from "../evidence/base-verify.js";
import type { IgnoredFiles } from "../evidence/ignored-files.js";
import { type ReceiptSettings, runVerify, VerifyQueue } from "../evidence/verify.js";
import type { Ledger, PlanningCall, PlanSection } from "../ledger/ledger.js";
import { type FinishedRun, finishRun, snapshotLedger, workingTreeOrNull } from "./finish-run.js";
import { executeGraph, type GraphRunOptions } from "./graph-run.js";
import type { GraphRunHooks } from "./leg-hooks.js";
import type { RunFrame } from "./run-frame.js";
import { closeLeg } from "./run-state.js";

/** Progress callbacks of `auto`, `run` and `resume`; each may be async (the action posts check-run updates). */
export interface RunHooks extends Omit<GraphRunHooks, "onRows"> {
  /**
   * The run is about to run its nodes (all checks passed). A resume calls it before it records the leg, so
   * a hook that throws there leaves the run as it was (`resume-run.ts`).
   */
  readonly onRunStarted?: (runId: RunId, runDir: string) => void | Promise<void>;
  readonly onPlan?: (plan: PlanSection) => void | Promise<void>;
  /** An in-progress ledger (`conclusion: null`) after the plan (`plan`) and after each execution (`node`). */
  readonly onProgress?: (ledger: Ledger, kind: "plan" | "node") => void | Promise<void>;
}

/** Everything one leg needs besides what the frame holds. Times in ms. */
export interface LegOptions
  extends Pick<
    GraphRunOptions,
    | "graph"
    | "store"
    | "workDir"
    | "inputs"
    | "policies"
    | "concurrency"
    | "onFail"
    | "runtime"
    | "claudeExecutable"
    | "codexExecutable"
    | "codexConfig"
    | "modelCalls"
    | "model"
    | "modelEnv"
    | "echo"
    | "signal"
  > {
  readonly frame: RunFrame;
  readonly plan: PlanSection;
  /** The planner calls of the run (for the totals); `[]` outside `auto`. */
  readonly calls: readonly PlanningCall[];
  /** The verify commands' environment and the git-ignored files baseline of this leg. */
  readonly verify: {
    readonly baseEnv: Readonly<Record<string, string | undefined>>;
    readonly passThrough: readonly string[];
    readonly knownSecrets: readonly string[];
    readonly ignoredBaseline: IgnoredFiles;
    /** `verify-repeat`: runs per verify (absent: once). */
    readonly repeat?: number;
    /** The run's test-receipt settings (policy `require-tests`, `test-reports`). */
    readonly receipts?: ReceiptSettings;
    /** `verify-base` (ADR 0017): which base each sink's verify is compared with; absent: off. */
    readonly base?: VerifyBaseSetting;
  };
  readonly hooks?: RunHooks;
}

/**
 * A run that reached its ledger, as `auto`, `run` and `resume` return it: the ledger, where the run
 * directory and `ledger.json` are, the digests of the state it rests on (the action posts them), and what
 * the graph asks that the runtime does not enforce (one sentence each; also in the plan section).
 */
export interface FinishedLeg extends FinishedRun {
  readonly kind: "finished";
  readonly runDir: string;
  readonly warnings: readonly string[];
}

/** How a leg spawns its CLIs and reports progress: what `auto`, `run` and `resume` take from their caller. */
export type LegCaller = Pick<
  LegOptions,
  | "claudeExecutable"
  | "codexExecutable"
  | "codexConfig"
  | "modelCalls"
  | "modelEnv"
  | "echo"
  | "signal"
  | "hooks"
>;

/** The {@link LegCaller} fields of a caller's options, the absent ones left out (exact optional types). */
export function legCaller(o: LegCaller): LegCaller {
  return {
    claudeExecutable: o.claudeExecutable,
    ...(o.codexExecutable !== undefined ? { codexExecutable: o.codexExecutable } : {}),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
    modelEnv: o.modelEnv,
    ...(o.echo ? { echo: o.echo } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
  };
}

/** Runs the leg, closes it in `state.json`, and writes the ledger. Rejects only on internal errors. */
export async function runLegAndFinish(o: LegOptions): Promise<FinishedRun & { readonly runDir: string }> {
  const { frame, store, plan, calls } = o;
  const baseVerifier =
    o.verify.base !== undefined
      ? new BaseVerifier({
          repoDir: frame.repoDir,
          startCommit: frame.start.sha,
          setting: o.verify.base,
          baseEnv: o.verify.baseEnv,
          knownSecrets: o.verify.knownSecrets,
          runVerify,
        })
      : null;
  const verifyQueue = new VerifyQueue({
    baseEnv: o.verify.baseEnv,
    passThrough: o.verify.passThrough,
    knownSecrets: o.verify.knownSecrets,
    ...(frame.gitContext.indexOverlay !== undefined ? { indexOverlay: frame.gitContext.indexOverlay } : {}),
    ignoredFiles: {
      baseline: o.verify.ignoredBaseline,
      exclude: [frame.dir.path],
      excludeRunDirectoriesUnder: dirname(frame.dir.path),
    },
    // The separate user's files, readable for the engine's git between two pieces of PR code.
    handBack: [frame.repoDir],
    ...(o.verify.repeat !== undefined ? { repeat: o.verify.repeat } : {}),
    ...(o.verify.receipts !== undefined ? { receipts: o.verify.receipts } : {}),
    ...(baseVerifier !== null ? { base: baseVerifier } : {}),
    ...(o.echo ? { echo: o.echo } : {}),
  });
  const leg = await executeGraph({
    graph: o.graph,
    store,
    dir: frame.dir,
    redactor: frame.redactor,
    repoDir: frame.repoDir,
    workDir: o.workDir,
    inputs: o.inputs,
    policies: o.policies,
    concurrency: o.concurrency,
    onFail: o.onFail,
    ...(o.runtime !== undefined ? { runtime: o.runtime } : {}),
    claudeExecutable: o.claudeExecutable,
    ...(o.codexExecutable !== undefined ? { codexExecutable: o.codexExecutable } : {}),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.modelCalls !== undefined ? { modelCalls: o.modelCalls } : {}),
    modelEnv: o.modelEnv,
    verifyQueue,
    worktrees: {
      runId: frame.runId,
      startCommit: frame.start.sha,
      baseEnv: frame.gitContext.baseEnv,
      knownSecrets: frame.gitContext.knownSecrets,
    },
    ...(o.echo ? { echo: o.echo } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    hooks: {
      ...o.hooks,
      onRows: async (rows) => {
        await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows, calls }), "node");
      },
    },
  });
  // The base's worktree goes with the leg (no PR code runs now); one that stays is said, never fatal.
  const leftBase = await baseVerifier?.close();
  if (leftBase != null) frame.dir.event({ type: "base_worktree_left", problem: leftBase });
  store.state.planning_calls = [...calls];
  // The files as this leg leaves them: the next leg starts only on the same files (resume-run.ts).
  const legEndTree = await workingTreeOrNull(frame);
  store.state.leg_end_tree = legEndTree;
  store.state.legs = closeLeg(store.state.legs, leg.end);
  store.save();
  const finished = await finishRun(frame, {
    graph: o.graph,
    rows: [...leg.rows],
    plan,
    calls,
    end: leg.end,
    finalTree: legEndTree,
  });
  // The leg's outcome is the run's as decided (`failed`, `passed`, `paused`, …), not only how it stopped.
  const outcome = finished.ledger.conclusion?.outcome;
  if (outcome !== undefined) {
    store.state.legs = store.state.legs.map((l, i, all) => (i === all.length - 1 ? { ...l, outcome } : l));
    store.save();
  }
  return {
    ...finished,
    digests: { ...finished.digests, state: frame.dir.digestOf("state.json") },
    runDir: frame.dir.path,
  };
}
