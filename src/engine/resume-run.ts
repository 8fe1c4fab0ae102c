/**
 * `resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)`: one more leg of a paused or failed run
 * (SPEC §4; research/oh-my-graph.md §7.6–§7.7), rebuilt from `state.json` and `graph.json` in its run
 * directory (`resume-source.ts`) — never from the graph file, which may have changed since. The checks
 * (`resume-checks.ts`, `resume-action.ts`) come before anything is written; the action is recorded when the
 * leg starts (`resume-action.ts`); the leg and its ending are every run's (`leg.ts`).
 *
 * A resumed leg can never widen a tool policy: it uses the first leg's policies verbatim (SPEC §8), and
 * its plan section's disclosure slot is read from them — so an auto run whose operator accepted a loaded
 * user configuration is reprinted as such, before any node of the leg runs (`hooks.onPlan`). The
 * repository must still be at the run's starting commit, with the files the latest leg left
 * (`leg-end-files.ts`): an approval is bound to the head SHA it was given on.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRedactor } from "../core/redact.js";
import { type IgnoredFiles, ignoredFilesFromData } from "../evidence/ignored-files.js";
import { receiptSettingsOf } from "../evidence/verify.js";
import type { PlanSection } from "../ledger/ledger.js";
import { handWrittenDisclosure, plannedRunDisclosure, type Runtime } from "../policy/disclosure.js";
import { snapshotLedger } from "./finish-run.js";
import { graphCommitSubject } from "./fresh-run.js";
import { IGNORED_BASELINE_FILE } from "./graph-run.js";
import { type FinishedLeg, legCaller, runLegAndFinish } from "./leg.js";
import { restoreLegEndFiles } from "./leg-end-files.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import {
  type NothingToRetry,
  type ResumeAction,
  resumeActionProblem,
  startResumedLeg,
} from "./resume-action.js";
import {
  missingCeilingProblem,
  resumedRepository,
  resumedRuntime,
  type UsageError,
} from "./resume-checks.js";
import { readResumableRun } from "./resume-source.js";
import type { RunFrame, RunGitContext } from "./run-frame.js";
import type { EngineRunBase } from "./run-options.js";
import { concurrencyProblem } from "./run-setup.js";
import type { RunState } from "./run-state.js";
import { RunStateStore } from "./run-state-store.js";
import { modelCliEnd, modelCliProblem, type SetupFailed } from "./runtime-setup.js";

export interface ResumeOptions extends Omit<EngineRunBase, "runId" | "publish" | "indexOverlay"> {
  readonly runId: string;
  readonly action: ResumeAction;
  /**
   * The head SHA the decision is about (the PR head in the action; HEAD in the CLI). It must be the run's
   * starting commit or the head it merged; default: the repository's HEAD.
   */
  readonly headSha?: string;
  /**
   * Where the repository is now, when the run directory was moved (the action downloads it from an
   * earlier workflow run, whose checkout had another path). Default: the path recorded in `state.json`.
   * The working directory keeps its place relative to the repository root.
   */
  readonly repoDir?: string;
  /** `--concurrency N` for this leg (1..10); default: the first leg's. */
  readonly concurrency?: number;
  /**
   * The runtime the caller expects (`--runtime`), if it named one: it must be the run's own. A resumed leg
   * always runs the first leg's runtime, read from `state.json`; absent = whatever that is.
   */
  readonly runtime?: Runtime;
  /**
   * Codex only: the `codex-config` pairs for this leg (not recorded by the first leg, which may have
   * carried a header secret in them; the workflow or the operator gives them again).
   */
  readonly codexConfig?: readonly string[];
}

/** A refusal (nothing was run), nothing left to retry, or the leg's ledger. */
export type ResumeResult = UsageError | SetupFailed | NothingToRetry | FinishedLeg;

/** Resumes a run. Rejects only on internal errors. */
export async function resumeRun(o: ResumeOptions): Promise<ResumeResult> {
  const run = readResumableRun(o.runsDir, o.runId);
  if (run.kind !== "read") return run;
  const { runId, path, graph } = run;
  const chosen = resumedRuntime(o, run);
  if (chosen.kind !== "runtime") return chosen;
  const { runtime, warnings } = chosen;
  const ceilingProblem = missingCeilingProblem(run, join(path, "state.json"));
  if (ceilingProblem !== null) return { kind: "usage_error", message: ceilingProblem };
  const concurrencyWrong = concurrencyProblem(o.concurrency);
  if (concurrencyWrong !== null) return { kind: "usage_error", message: concurrencyWrong };
  const gitContext = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  const located = await resumedRepository(o, run, gitContext);
  if (located.kind !== "located") return located;
  const { state, headSha } = located;

  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  dir.noteDigest("graph.json", run.graphText);
  const store = new RunStateStore(dir, state);
  const unfit = resumeActionProblem({ runId, graph, state }, o.action);
  if (unfit !== null) return unfit;
  if (graph.nodes.some((n) => n.type !== "gate" && store.node(n.id)?.status !== "passed")) {
    const cliProblem = await modelCliProblem(o, runtime, { findExecutable: true });
    if (cliProblem !== null) return modelCliEnd(cliProblem);
  }
  const takeProblem = await takeRunForLeg(dir, state, { commit: o.commit, gitContext });
  if (takeProblem !== null) return { kind: "usage_error", message: takeProblem };

  // The leg starts: recorded before anything runs.
  const startedAt = startResumedLeg({ store, dir, runId, graph }, o.action, headSha);
  const plan = resumedPlan(state, { surface: o.surface, runtime });
  const frame: RunFrame = {
    runId,
    mode: state.mode,
    ...(state.goal !== undefined ? { goal: state.goal } : {}),
    runtime: state.runtime,
    ...(state.model !== undefined ? { model: state.model } : {}),
    repoDir: state.repo_dir,
    gitContext,
    start: state.starting_commit,
    ...(o.headSha !== undefined ? { headSha } : {}),
    answer: state.build_evidence,
    requireEvidence: state.policy?.require_evidence === true,
    commit: o.commit
      ? { message: state.goal ?? graphCommitSubject(graph.name, state.graph_source ?? runId, state.repo_dir) }
      : null,
    redactor,
    dir,
    startedAt: state.legs[0]?.started_at ?? startedAt,
  };
  await o.hooks?.onRunStarted?.(runId, dir.path);
  await o.hooks?.onPlan?.(plan);
  const calls = state.planning_calls;
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: store.state.rows, calls }), "plan");

  const finished = await runLegAndFinish({
    frame,
    store,
    graph,
    plan,
    calls,
    workDir: state.work_dir,
    inputs: state.inputs,
    // Verbatim from the first leg: a resumed leg never widens a tool policy (SPEC §8).
    policies: state.tool_policies,
    concurrency: o.concurrency ?? state.concurrency,
    onFail: state.on_fail,
    runtime,
    ...(state.model !== undefined ? { model: state.model } : {}),
    verify: {
      baseEnv: o.baseEnv,
      passThrough: state.verify.env,
      knownSecrets: o.knownSecrets,
      ignoredBaseline: leftIgnoredBaseline(path),
      ...(state.verify.repeat !== undefined ? { repeat: state.verify.repeat } : {}),
      receipts: receiptSettingsOf({
        ...(state.policy?.require_tests === true ? { requireTests: true } : {}),
        ...(state.policy?.test_reports !== undefined ? { testReports: state.policy.test_reports } : {}),
      }),
    },
    ...legCaller(o),
  });
  return { kind: "finished", ...finished, warnings };
}

/**
 * Takes the run for this leg: its lock first (one leg at a time: a second `resume` of the same run while
 * this one runs is refused; research §7.5), then — `--commit` commits "the nodes' changes" — a run that
 * began on uncommitted edits is refused `--commit`, and the files must be the ones the latest leg left.
 * A refusal releases the lock again.
 *
 * @returns `null` when the leg may run (the lock is held), else the usage-error message.
 * @throws git errors (internal errors), after releasing the lock.
 */
async function takeRunForLeg(
  dir: RedactingRunDirectory,
  state: RunState,
  o: { readonly commit: boolean; readonly gitContext: RunGitContext },
): Promise<string | null> {
  const locked = dir.lock();
  if (locked !== null) return `${locked}. Nothing was run.`;
  if (o.commit && state.start_clean !== true) {
    dir.unlock();
    return `run ${dir.runId} began on a working tree with uncommitted changes${state.start_clean === undefined ? " (or its state does not say)" : ""}, so --commit would commit them as the nodes' work: resume without --commit (the patch is kept in the run directory). Nothing was run.`;
  }
  const filesProblem = await restoreLegEndFiles(state, dir.path, o.gitContext).catch((error: unknown) => {
    dir.unlock();
    throw error;
  });
  if (filesProblem !== null) dir.unlock();
  return filesProblem;
}

/**
 * The leg's plan section: the first leg's, with the disclosure slot read from the policies this leg will
 * spawn (the first leg's, verbatim), never from a flag — an opted-in plan is reprinted as loaded, an
 * isolated one as isolated (seed 001 §2.7).
 */
function resumedPlan(
  state: RunState,
  o: { readonly surface: "action" | "cli"; readonly runtime: Runtime },
): PlanSection {
  const disclosure =
    state.mode === "auto"
      ? plannedRunDisclosure(state.tool_policies, { runtime: o.runtime, surface: o.surface })
      : handWrittenDisclosure(o.surface, o.runtime);
  return {
    ...((state.plan as PlanSection | null) ?? {
      buildEvidence: state.build_evidence,
      sinkCommands: [],
      nodes: [],
      planningCostUsd: 0,
    }),
    disclosure,
  };
}

/** The ignored-files baseline as the last leg left it (ADR 0003); missing or unreadable: "unknown". */
function leftIgnoredBaseline(runDir: string): IgnoredFiles {
  const baselinePath = join(runDir, IGNORED_BASELINE_FILE);
  return ignoredFilesFromData(
    existsSync(baselinePath)
      ? safeJson(readFileSync(baselinePath, "utf8"))
      : { kind: "unknown", reason: `${IGNORED_BASELINE_FILE} is missing`, overBound: false },
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
