/**
 * `resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)`: one more leg of a paused or failed run
 * (SPEC §4; research/oh-my-graph.md §7.6–§7.7), rebuilt from `state.json` and `graph.json` in its run
 * directory (read back first, below) — never from the graph file, which may have changed since. The checks
 * come before anything is written; `hooks.onRunStarted` runs next (the surface's check run), and only once it
 * returned is the action recorded, when the leg starts — a hook that throws leaves the run as it was (its
 * lock released, nothing recorded); the leg and its ending are every run's (`leg.ts`).
 *
 * A resumed leg can never widen a tool policy: it uses the first leg's policies verbatim (SPEC §8), and
 * its plan section's disclosure slot is read from them — so an auto run whose operator accepted a loaded
 * user configuration is reprinted as such, before any node of the leg runs (`hooks.onPlan`). The
 * repository must still be at the run's starting commit, with the files the latest leg left
 * (`leg-end-files.ts`): an approval is bound to the head SHA it was given on.
 *
 * One module, in the order a resume meets it: the run read back from its directory; what the resumed leg
 * must satisfy; the action and where the run stopped; then the driver, {@link resumeRun}.
 *
 * **Read back.** The run a `resume` continues, read back from its run directory (SPEC §4; research/oh-my-graph.md §7.6):
 * `state.json` (parsed as data, `run-state.ts`) and `graph.json` as the first leg wrote it — never the
 * graph file, which may have changed since. A run directory can come from a downloaded workflow artifact,
 * so nothing in it is trusted for its shape.
 *
 * **Checks.** What a resumed leg must satisfy before anything runs or is written (SPEC §4, §8; research/oh-my-graph.md
 * §7.6–§7.7), each a usage error naming the fix: the leg runs the first leg's runtime with the codex
 * settings it needs again, every planned node still has its recorded ceiling, the repository is still at
 * the run's starting commit and the decision names that commit's head.
 *
 * **The action.** The action of a resumed leg (SPEC §4; research/oh-my-graph.md §7.6–§7.7): whether it fits where the run
 * stopped, and what it records in `state.json` and `events.jsonl` when the leg starts, before any node runs.
 *
 * - `--approve GATE` (the run is paused at GATE): who approved and the head SHA, the gate's
 *   `PASS (approved)` row; its dependents then run.
 * - `--reject GATE`: the rejection and a FAIL row; the gate's subtree is pruned and the run fails.
 * - `--retry-failed`: every PASS is kept (and its output), the failed executions are marked superseded, and
 *   exactly the nodes that never passed run again (after a session-limit pause, the ones it stopped).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type FailRow, NOTHING_SPENT } from "../core/ledger-row.js";
import { createRedactor } from "../core/redact.js";
import { isRunId, type RunId } from "../core/run-id.js";
import { startingCommit } from "../evidence/evidence-tree.js";
import { type IgnoredFiles, ignoredFilesFromData } from "../evidence/ignored-files.js";
import { receiptSettingsOf } from "../evidence/verify.js";
import type { Graph } from "../graph/graph.js";
import { formatIssue } from "../graph/issue.js";
import { loadGraphObject } from "../graph/load.js";
import type { PlanSection } from "../ledger/ledger.js";
import { handWrittenDisclosure, plannedRunDisclosure, type Runtime } from "../policy/disclosure.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import { snapshotLedger } from "./finish-run.js";
import { graphCommitSubject } from "./fresh-run.js";
import { IGNORED_BASELINE_FILE } from "./graph-run.js";
import { type FinishedLeg, legCaller, runLegAndFinish } from "./leg.js";
import { restoreLegEndFiles } from "./leg-end-files.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { RunFrame, RunGitContext } from "./run-frame.js";
import type { EngineRunBase } from "./run-options.js";
import { concurrencyProblem, workingDirectoryProblem } from "./run-setup.js";
import { approvedGateRow, type RunState, RunStateError, readRunState } from "./run-state.js";
import { RunStateStore } from "./run-state-store.js";
import {
  modelCliEnd,
  modelCliProblem,
  runtimeOptionsProblem,
  runtimeWarnings,
  type SetupFailed,
} from "./runtime-setup.js";

/** A run read back: its id and directory, its state, and its graph with the text it was read from. */
export interface ResumableRun {
  readonly kind: "read";
  readonly runId: RunId;
  /** `<runsDir>/<run id>`. */
  readonly path: string;
  readonly state: RunState;
  readonly graph: Graph;
  /** `graph.json` as read (its digest is the one the action posted). */
  readonly graphText: string;
}

/**
 * Reads run `runId` under `runsDir`. The graph is re-validated with the recorded verify timeout as the
 * ceiling (at least SPEC §3's default 10 min).
 *
 * @returns the run, or a usage error naming what is wrong (a bad id, no such run, an unreadable state
 *   file, a missing, unparsable or invalid `graph.json`).
 * @throws file-system errors other than those (internal errors).
 */
export function readResumableRun(
  runsDir: string,
  runId: string,
): ResumableRun | { readonly kind: "usage_error"; readonly message: string } {
  if (!isRunId(runId)) {
    return {
      kind: "usage_error",
      message: `${JSON.stringify(runId)} is not a run id (YYYYMMDD-HHMMSS-xxxxxx): give the id the run printed`,
    };
  }
  const path = join(runsDir, runId);
  if (!existsSync(path)) {
    return {
      kind: "usage_error",
      message: `no run ${runId} under ${runsDir}: check the run id and --runs-dir (the folder the run was started with)`,
    };
  }
  let state: RunState;
  try {
    state = readRunState(path);
  } catch (error) {
    if (error instanceof RunStateError) return { kind: "usage_error", message: error.message };
    throw error;
  }
  const graphPath = join(path, "graph.json");
  if (!existsSync(graphPath))
    return { kind: "usage_error", message: `${graphPath} does not exist: this run has no graph to resume` };
  let spec: unknown;
  const graphText = readFileSync(graphPath, "utf8");
  try {
    spec = JSON.parse(graphText);
  } catch (error) {
    return {
      kind: "usage_error",
      message: `${graphPath} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const loaded = loadGraphObject(spec, graphPath, {
    verifyTimeoutCeilingMs: Math.max(state.verify.timeout_ms, 10 * 60_000),
  });
  if (!loaded.ok) {
    return {
      kind: "usage_error",
      message: `${graphPath} does not load:\n${loaded.issues.map(formatIssue).join("\n")}`,
    };
  }
  return { kind: "read", runId: runId as RunId, path, state, graph: loaded.graph, graphText };
}

/** A refusal: nothing was run. */
export interface UsageError {
  readonly kind: "usage_error";
  readonly message: string;
}

/** The runtime a resumed leg runs, and what it will not enforce of the graph (one sentence each). */
export interface ResumedRuntime {
  readonly kind: "runtime";
  readonly runtime: Runtime;
  readonly warnings: readonly string[];
}

/**
 * The runtime the leg runs — always the first leg's, from `state.json` (a run is one CLI's run: its
 * sessions are that CLI's) — checked against what the caller gave: the `--runtime` it expects, the model
 * and `codex-config` pairs (pairs for every key the first leg recorded; their values are not recorded).
 *
 * @returns the runtime and what it will not enforce of the graph (`runtimeWarnings`), or the refusal.
 */
export function resumedRuntime(
  o: { readonly runtime?: Runtime; readonly codexConfig?: readonly string[] },
  run: ResumableRun,
): ResumedRuntime | UsageError {
  const { state, runId } = run;
  const runtime: Runtime = state.runtime;
  if (o.runtime !== undefined && o.runtime !== runtime) {
    return {
      kind: "usage_error",
      message: `run ${runId} uses runtime "${runtime}"; it cannot be resumed with runtime "${o.runtime}" (a resumed leg keeps the first leg's runtime). Nothing was run.`,
    };
  }
  const runtimeProblem = runtimeOptionsProblem(runtime, {
    ...(state.model !== undefined ? { model: state.model } : {}),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
  });
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const configProblem = runtimeFor(runtime).resumedSettingsProblem(
    runId,
    state.codex_config_keys,
    o.codexConfig,
  );
  if (configProblem !== null) return { kind: "usage_error", message: configProblem };
  return { kind: "runtime", runtime, warnings: runtimeWarnings(runtime, run.graph) };
}

/**
 * Every planned node must have its recorded ceiling: a missing one would run with no ceiling at all (a
 * resumed leg never widens a tool policy, SPEC §8). Hand-written runs record each node's own tools.
 *
 * @returns the usage-error message, or `null`.
 */
export function missingCeilingProblem(run: ResumableRun, statePath: string): string | null {
  const { state, graph } = run;
  if (state.mode !== "auto") return null;
  const bare = graph.nodes.filter((n) => n.type !== "gate" && !Object.hasOwn(state.tool_policies, n.id));
  if (bare.length === 0) return null;
  return `${statePath} records no tool policy for planned node${bare.length === 1 ? "" : "s"} ${bare.map((n) => `"${n.id}"`).join(", ")}: resuming would run ${bare.length === 1 ? "it" : "them"} without the ceiling the first leg set. Start a new run. Nothing was run.`;
}

/** Where the leg runs: the state with the repository's current place, and the head the decision is about. */
export interface ResumedRepository {
  readonly kind: "located";
  /** `state.json` as read, with `repo_dir` / `work_dir` moved when the caller gave another `repoDir`. */
  readonly state: RunState;
  /** The head SHA the decision is bound to (the caller's, else the repository's HEAD). */
  readonly headSha: string;
}

/**
 * The repository must still be where the run started: a decision is bound to the head it was given on.
 * A moved repository (`repoDir`: the action's resume job checks out elsewhere) keeps the working directory's
 * place relative to its root; HEAD must be the starting commit, and `headSha` that commit or the head it
 * merged.
 *
 * @throws git errors other than an unreadable repository (internal errors).
 */
export async function resumedRepository(
  o: { readonly repoDir?: string; readonly headSha?: string },
  run: ResumableRun,
  gitContext: RunGitContext,
): Promise<ResumedRepository | UsageError> {
  const { runId } = run;
  let state = run.state;
  if (o.repoDir !== undefined) {
    const repoDir = resolve(o.repoDir);
    const workDir = resolve(repoDir, relative(state.repo_dir, state.work_dir));
    const problem = workingDirectoryProblem(repoDir, workDir);
    if (problem !== null) return { kind: "usage_error", message: problem };
    state = { ...state, repo_dir: repoDir, work_dir: workDir };
  }
  let head: Awaited<ReturnType<typeof startingCommit>>;
  try {
    head = await startingCommit(state.repo_dir, gitContext);
  } catch (error) {
    return {
      kind: "usage_error",
      message: `the run's repository ${state.repo_dir} cannot be read (${error instanceof Error ? error.message : String(error)}): resume on the machine and checkout the run started in`,
    };
  }
  if (head.sha !== state.starting_commit.sha) {
    return {
      kind: "usage_error",
      message: `the repository ${state.repo_dir} is at ${head.sha.slice(0, 12)}, but run ${runId} started at ${state.starting_commit.sha.slice(0, 12)}: a resumed leg continues the same commit's run. Check that commit out again, or start a new run. Nothing was run.`,
    };
  }
  const headSha = o.headSha ?? head.sha;
  const allowedHeads = [head.sha, ...(head.parents.length === 2 ? [head.parents[1]!] : [])];
  if (!allowedHeads.some((sha) => sha.toLowerCase() === headSha.toLowerCase())) {
    return {
      kind: "usage_error",
      message: `head SHA ${headSha} is not the commit run ${runId} is about (${allowedHeads.join(" or ")}): an approval is bound to the head it was given on`,
    };
  }
  return { kind: "located", state, headSha };
}

/**
 * What the leg does. `by` is who decided (the recorded approver); `dispatchedBy`, when given, is who started
 * the leg for them — the evidence-gate App's dispatch for a writer's click (issue 11) — and the row says so.
 */
export type ResumeAction =
  | { readonly kind: "approve"; readonly gate: string; readonly by: string; readonly dispatchedBy?: string }
  | { readonly kind: "reject"; readonly gate: string; readonly by: string; readonly dispatchedBy?: string }
  | { readonly kind: "retry-failed" };

/**
 * `--retry-failed` on a run with nothing left to run: every node passed (`failed: false`), or what did not
 * pass hangs on a gate a person rejected (`failed: true` — the run stays failed; the CLI exits 1).
 */
export interface NothingToRetry {
  readonly kind: "nothing_to_retry";
  readonly message: string;
  readonly failed: boolean;
}

/**
 * Whether `action` fits where the run stopped: `--approve` / `--reject` only the gate the run waits at;
 * `--retry-failed` not at a gate (a person decides it) and only with an unpassed node left outside a
 * rejected gate's subtree (a rejection is final for the run).
 *
 * @returns the refusal, {@link NothingToRetry}, or `null` when the leg can run.
 */
export function resumeActionProblem(
  run: Pick<ResumableRun, "runId" | "graph" | "state">,
  action: ResumeAction,
): UsageError | NothingToRetry | null {
  const { runId, graph, state } = run;
  const paused = state.paused;
  switch (action.kind) {
    case "approve":
    case "reject": {
      if (paused?.reason !== "gate") {
        return {
          kind: "usage_error",
          message: `run ${runId} is not paused at a gate${paused?.reason === "session-limit" ? " (it paused at the model's session limit: resume it with --retry-failed)" : ""}; --${action.kind} applies only to the gate a run is waiting at`,
        };
      }
      if (paused.node !== action.gate) {
        return {
          kind: "usage_error",
          message: `run ${runId} is waiting at gate "${paused.node}", not "${action.gate}": resume it with --approve ${paused.node} or --reject ${paused.node}`,
        };
      }
      return null;
    }
    case "retry-failed": {
      if (paused?.reason === "gate") {
        return {
          kind: "usage_error",
          message: `run ${runId} is paused at gate "${paused.node}": a person decides it — resume with --approve ${paused.node} or --reject ${paused.node}`,
        };
      }
      // A rejected gate stays rejected, and its subtree stays pruned: only the other unpassed nodes can run.
      const rejected = graph.nodes.filter((n) => state.gates[n.id]?.status === "rejected").map((n) => n.id);
      const behindRejected = descendantsOf(graph, rejected);
      const unpassed = graph.nodes.filter(
        (n) =>
          state.nodes[n.id]?.status !== "passed" && !rejected.includes(n.id) && !behindRejected.has(n.id),
      );
      if (unpassed.length > 0) return null;
      return {
        kind: "nothing_to_retry",
        failed: rejected.length > 0,
        message:
          rejected.length === 0
            ? `run ${runId} has no failed nodes to retry: every node passed`
            : `run ${runId} has no failed nodes to retry: every node passed except ${rejected.map((id) => `gate "${id}"`).join(", ")}, which a person rejected, and what depends on it. A rejection is final for this run: start a new run to try again`,
      };
    }
  }
}

/** Every node that depends, directly or not, on one of `roots` (the roots themselves excluded). */
function descendantsOf(graph: Graph, roots: readonly string[]): Set<string> {
  const found = new Set<string>();
  let grew = roots.length > 0;
  while (grew) {
    grew = false;
    for (const node of graph.nodes) {
      if (found.has(node.id)) continue;
      if (node.depends_on.some((d) => roots.includes(d) || found.has(d))) {
        found.add(node.id);
        grew = true;
      }
    }
  }
  return found;
}

/** Where a leg's start is recorded: the run's store and directory; its id and graph. */
export interface LegStartPlace {
  readonly store: RunStateStore;
  readonly dir: RedactingRunDirectory;
  readonly runId: RunId;
  readonly graph: Graph;
}

/** ` (dispatched by <login>)` when someone other than the decider started the leg, else nothing. */
function dispatchedWords(action: { readonly by: string; readonly dispatchedBy?: string }): string {
  return action.dispatchedBy === undefined || action.dispatchedBy === action.by
    ? ""
    : ` (dispatched by ${action.dispatchedBy})`;
}

/**
 * Starts the leg: appends its record (`approve GATE`, `reject GATE` or `retry-failed`) to `legs`, clears
 * the pause, appends `run_started`, records the action (the decision is bound to `headSha`), and saves
 * `state.json` — all before anything runs.
 *
 * @returns when the leg started (ISO-8601).
 */
export function startResumedLeg(place: LegStartPlace, action: ResumeAction, headSha: string): string {
  const { store, dir } = place;
  const legKind = action.kind === "retry-failed" ? "retry-failed" : `${action.kind} ${action.gate}`;
  const startedAt = new Date().toISOString();
  store.state.legs = [...store.state.legs, { started_at: startedAt, kind: legKind }];
  store.state.paused = null;
  dir.event({ type: "run_started", runId: place.runId, mode: store.state.mode, leg: legKind });
  const at = new Date().toISOString();
  if (action.kind === "approve") {
    store.setGate(action.gate, { status: "approved", by: action.by, head_sha: headSha, at });
    const approved = approvedGateRow(
      action.gate,
      action.by,
      headSha,
      place.graph.sinks.includes(action.gate),
    );
    store.addRow({ ...approved, detail: `${approved.detail}${dispatchedWords(action)}` });
    store.setNode(action.gate, { status: "passed", session_id: null, executions: 1 });
    dir.event({ type: "gate_approved", node: action.gate, by: action.by, headSha });
    dir.event({ type: "node_passed", node: action.gate, qualifier: "approved" });
  } else if (action.kind === "reject") {
    store.setGate(action.gate, { status: "rejected", by: action.by, head_sha: headSha, at });
    const row: FailRow = {
      nodeId: action.gate,
      verdict: "FAIL",
      cause: "rejected",
      detail: `gate rejected by ${action.by} at ${headSha.slice(0, 12)}${dispatchedWords(action)}`,
      ...NOTHING_SPENT,
      sink: place.graph.sinks.includes(action.gate),
    };
    store.addRow(row);
    store.setNode(action.gate, { status: "failed", session_id: null, executions: 1 });
    dir.event({ type: "gate_rejected", node: action.gate, by: action.by });
    dir.event({ type: "node_failed", node: action.gate, cause: "rejected", detail: row.detail });
  } else {
    supersedeFailures(store, place.graph);
  }
  store.save();
  return startedAt;
}

/**
 * `--retry-failed`: every failed execution is replaced by this leg's — its FAIL row marked superseded and
 * its record set back to `skipped` — except a rejected gate's; a cleared feedback declarer re-arms its
 * body (its members back to `skipped`, its round count to 0).
 */
function supersedeFailures(store: RunStateStore, graph: Graph): void {
  for (const node of graph.nodes) {
    const record = store.node(node.id);
    if (record === undefined || record.status === "passed") continue;
    if (store.state.gates[node.id]?.status === "rejected") continue;
    store.supersedeLatest(node.id);
    store.setNode(node.id, { ...record, status: "skipped" });
    if (node.feedback !== null && record.status === "failed") {
      for (const id of node.feedback.body) {
        const bodyRecord = store.node(id);
        if (bodyRecord !== undefined) store.setNode(id, { ...bodyRecord, status: "skipped" });
      }
      store.setNode(node.id, { ...record, status: "skipped", feedback_rounds: 0 });
    }
  }
}

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
  // What the decision asks of the run is judged before where the repository is: a run with nothing left
  // to retry says so, even when its own `--commit` moved HEAD since (new user's trial).
  const unfit = resumeActionProblem({ runId, graph, state: run.state }, o.action);
  if (unfit !== null) return unfit;
  const gitContext = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  const located = await resumedRepository(o, run, gitContext);
  if (located.kind !== "located") return located;
  const { state, headSha } = located;

  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  dir.noteDigest("graph.json", run.graphText);
  const store = new RunStateStore(dir, state);
  if (graph.nodes.some((n) => n.type !== "gate" && store.node(n.id)?.status !== "passed")) {
    const cliProblem = await modelCliProblem(o, runtime, { findExecutable: true });
    if (cliProblem !== null) return modelCliEnd(cliProblem);
  }
  const takeProblem = await takeRunForLeg(dir, state, { commit: o.commit, gitContext });
  if (takeProblem !== null) return { kind: "usage_error", message: takeProblem };

  // Before the leg is recorded: a hook that throws (the CLI could not create its check run, the action
  // could not take its check run over) leaves the run as it was — still paused, its decision unspent.
  try {
    await o.hooks?.onRunStarted?.(runId, dir.path);
  } catch (error) {
    dir.unlock();
    throw error;
  }
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
