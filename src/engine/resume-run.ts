/**
 * `resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)`: one more leg of a paused or failed run
 * (SPEC §4; research/oh-my-graph.md §7.6–§7.7), rebuilt from `state.json` and `graph.json` in its run
 * directory — never from the graph file, which may have changed since.
 *
 * - `--approve GATE` (the run is paused at GATE): records who approved and the head SHA, adds the gate's
 *   `PASS (approved)` row, and runs its dependents.
 * - `--reject GATE`: records the rejection, adds a FAIL row, prunes the gate's subtree; the run fails.
 * - `--retry-failed`: keeps every PASS (and its output), marks the failed executions superseded and runs
 *   exactly the nodes that never passed (after a session-limit pause, the ones it stopped).
 *
 * A resumed leg can never widen a tool policy: it uses the first leg's policies verbatim (SPEC §8), and
 * its plan section's disclosure slot is read from them — so an auto run whose operator accepted a loaded
 * user configuration is reprinted as such, before any node of the leg runs (`hooks.onPlan`). The
 * repository must still be at the run's starting commit: an approval is bound to the head SHA it was
 * given on.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type FailRow, NOTHING_SPENT } from "../core/ledger-row.js";
import { createRedactor } from "../core/redact.js";
import { isRunId, type RunId } from "../core/run-id.js";
import { evidenceTree, startingCommit } from "../evidence/evidence-tree.js";
import { ignoredFilesFromData } from "../evidence/ignored-files.js";
import { applyPatch } from "../evidence/patch.js";
import type { Graph } from "../graph/graph.js";
import { formatIssue } from "../graph/issue.js";
import { loadGraphObject } from "../graph/load.js";
import type { PlanSection } from "../ledger/ledger.js";
import { handWrittenDisclosure, plannedRunDisclosure } from "../policy/disclosure.js";
import { type RunFrame, snapshotLedger } from "./finish-run.js";
import { IGNORED_BASELINE_FILE, RunStateStore } from "./graph-run.js";
import { type FinishedLeg, legCaller, runLegAndFinish } from "./leg.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import type { EngineRunBase } from "./run-options.js";
import { concurrencyProblem, workingDirectoryProblem } from "./run-setup.js";
import { approvedGateRow, type RunState, RunStateError, readRunState } from "./run-state.js";
import {
  executableFor,
  missingCliProblem,
  type Runtime,
  resumedCodexConfigProblem,
  runtimeOptionsProblem,
  runtimeWarnings,
} from "./runtime-setup.js";

/** What the resumed leg does. `by` is who decided (a login, or the local user in the CLI). */
/**
 * What the leg does. `by` is who decided (the recorded approver); `dispatchedBy`, when given, is who started
 * the leg for them — the evidence-gate App's dispatch for a writer's click (issue 11) — and the row says so.
 */
export type ResumeAction =
  | { readonly kind: "approve"; readonly gate: string; readonly by: string; readonly dispatchedBy?: string }
  | { readonly kind: "reject"; readonly gate: string; readonly by: string; readonly dispatchedBy?: string }
  | { readonly kind: "retry-failed" };

/** ` (dispatched by <login>)` when someone other than the decider started the leg, else nothing. */
function dispatchedWords(action: { readonly by: string; readonly dispatchedBy?: string }): string {
  return action.dispatchedBy === undefined || action.dispatchedBy === action.by
    ? ""
    : ` (dispatched by ${action.dispatchedBy})`;
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

export type ResumeResult =
  | { readonly kind: "usage_error"; readonly message: string }
  /**
   * `--retry-failed` on a run with nothing left to run: every node passed (`failed: false`), or what did not
   * pass hangs on a gate a person rejected (`failed: true` — the run stays failed; the CLI exits 1).
   */
  | { readonly kind: "nothing_to_retry"; readonly message: string; readonly failed: boolean }
  | FinishedLeg;

/** Resumes a run. Rejects only on internal errors. */
export async function resumeRun(o: ResumeOptions): Promise<ResumeResult> {
  if (!isRunId(o.runId)) {
    return {
      kind: "usage_error",
      message: `${JSON.stringify(o.runId)} is not a run id (YYYYMMDD-HHMMSS-xxxxxx): give the id the run printed`,
    };
  }
  const runId = o.runId as RunId;
  const path = join(o.runsDir, runId);
  if (!existsSync(path)) {
    return {
      kind: "usage_error",
      message: `no run ${runId} under ${o.runsDir}: check the run id and --runs-dir (the folder the run was started with)`,
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
  const graph = loaded.graph;
  // The first leg's runtime, always: a run is one CLI's run (its sessions are that CLI's).
  const runtime: Runtime = state.runtime;
  if (o.runtime !== undefined && o.runtime !== runtime) {
    return {
      kind: "usage_error",
      message: `run ${o.runId} uses runtime "${runtime}"; it cannot be resumed with runtime "${o.runtime}" (a resumed leg keeps the first leg's runtime). Nothing was run.`,
    };
  }
  const runtimeProblem = runtimeOptionsProblem(runtime, {
    ...(state.model !== undefined ? { model: state.model } : {}),
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
  });
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const configProblem =
    runtime === "codex" ? resumedCodexConfigProblem(o.runId, state.codex_config_keys, o.codexConfig) : null;
  if (configProblem !== null) return { kind: "usage_error", message: configProblem };
  const warnings = runtimeWarnings(runtime, graph);
  // Every planned node must have its recorded ceiling: a missing one would run with no ceiling at all.
  if (state.mode === "auto") {
    const bare = graph.nodes.filter((n) => n.type !== "gate" && !Object.hasOwn(state.tool_policies, n.id));
    if (bare.length > 0) {
      return {
        kind: "usage_error",
        message: `${join(path, "state.json")} records no tool policy for planned node${bare.length === 1 ? "" : "s"} ${bare.map((n) => `"${n.id}"`).join(", ")}: resuming would run ${bare.length === 1 ? "it" : "them"} without the ceiling the first leg set. Start a new run. Nothing was run.`,
      };
    }
  }
  const legDisclosure =
    state.mode === "auto"
      ? plannedRunDisclosure(state.tool_policies, { runtime, surface: o.surface })
      : handWrittenDisclosure(o.surface, runtime);
  const concurrencyWrong = concurrencyProblem(o.concurrency);
  if (concurrencyWrong !== null) return { kind: "usage_error", message: concurrencyWrong };

  // The repository must still be where the run started: a decision is bound to the head it was given on.
  const gitContext = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
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

  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  dir.noteDigest("graph.json", graphText);
  const store = new RunStateStore(dir, state);
  const paused = state.paused;
  const action = o.action;
  const legKind = action.kind === "retry-failed" ? "retry-failed" : `${action.kind} ${action.gate}`;

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
      break;
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
        (n) => store.node(n.id)?.status !== "passed" && !rejected.includes(n.id) && !behindRejected.has(n.id),
      );
      if (unpassed.length === 0) {
        return {
          kind: "nothing_to_retry",
          failed: rejected.length > 0,
          message:
            rejected.length === 0
              ? `run ${runId} has no failed nodes to retry: every node passed`
              : `run ${runId} has no failed nodes to retry: every node passed except ${rejected.map((id) => `gate "${id}"`).join(", ")}, which a person rejected, and what depends on it. A rejection is final for this run: start a new run to try again`,
        };
      }
      break;
    }
  }
  if (graph.nodes.some((n) => n.type !== "gate" && store.node(n.id)?.status !== "passed")) {
    const setupError = (await o.beforeFirstModelCall?.(runtime)) ?? null;
    if (setupError !== null) return { kind: "usage_error", message: setupError };
    const missingCli = missingCliProblem(runtime, executableFor(runtime, o), o.baseEnv);
    if (missingCli !== null) return { kind: "usage_error", message: missingCli };
  }

  // One leg at a time: a second `resume` of the same run while this one runs is refused (research §7.5).
  const locked = dir.lock();
  if (locked !== null) return { kind: "usage_error", message: `${locked}. Nothing was run.` };
  // --commit commits "the nodes' changes": a run that began on uncommitted edits would commit them too.
  if (o.commit && state.start_clean !== true) {
    dir.unlock();
    return {
      kind: "usage_error",
      message: `run ${runId} began on a working tree with uncommitted changes${state.start_clean === undefined ? " (or its state does not say)" : ""}, so --commit would commit them as the nodes' work: resume without --commit (the patch is kept in the run directory). Nothing was run.`,
    };
  }
  // The files must be the ones the run left: an edit made while it waited (a neutered test, say) must not
  // ride along under an approval, and nodes' changes that went missing must not be reported as verified.
  const filesProblem = await restoreLegEndFiles(state, path, gitContext).catch((error: unknown) => {
    dir.unlock();
    throw error;
  });
  if (filesProblem !== null) {
    dir.unlock();
    return { kind: "usage_error", message: filesProblem };
  }

  // The leg starts: recorded before anything runs.
  const startedAt = new Date().toISOString();
  store.state.legs = [...store.state.legs, { started_at: startedAt, kind: legKind }];
  store.state.paused = null;
  dir.event({ type: "run_started", runId, mode: state.mode, leg: legKind });
  const at = new Date().toISOString();
  if (action.kind === "approve") {
    store.setGate(action.gate, { status: "approved", by: action.by, head_sha: headSha, at });
    const approved = approvedGateRow(action.gate, action.by, headSha, graph.sinks.includes(action.gate));
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
      sink: graph.sinks.includes(action.gate),
    };
    store.addRow(row);
    store.setNode(action.gate, { status: "failed", session_id: null, executions: 1 });
    dir.event({ type: "gate_rejected", node: action.gate, by: action.by });
    dir.event({ type: "node_failed", node: action.gate, cause: "rejected", detail: row.detail });
  } else {
    // Every failed execution is replaced by this leg's; a cleared feedback declarer re-arms its body.
    for (const node of graph.nodes) {
      const record = store.node(node.id);
      if (record === undefined || record.status === "passed") continue;
      if (state.gates[node.id]?.status === "rejected") continue;
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
  store.save();

  // The leg's disclosure slot, from the policies this leg will spawn (the first leg's, verbatim), never
  // from a flag: an opted-in plan is reprinted as loaded, an isolated one as isolated (seed 001 §2.7).
  const plan: PlanSection = {
    ...((state.plan as PlanSection | null) ?? {
      buildEvidence: state.build_evidence,
      sinkCommands: [],
      nodes: [],
      planningCostUsd: 0,
    }),
    disclosure: legDisclosure,
  };
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
    commit: o.commit ? { message: state.goal ?? `run ${state.graph_source ?? runId}` } : null,
    redactor,
    dir,
    startedAt: state.legs[0]?.started_at ?? startedAt,
  };
  await o.hooks?.onRunStarted?.(runId, dir.path);
  await o.hooks?.onPlan?.(plan);
  const calls = state.planning_calls;
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: store.state.rows, calls }), "plan");

  // The ignored-files baseline as the last leg left it; unreadable → every verify says "unknown".
  const baselinePath = join(path, IGNORED_BASELINE_FILE);
  const baseline = ignoredFilesFromData(
    existsSync(baselinePath)
      ? safeJson(readFileSync(baselinePath, "utf8"))
      : { kind: "unknown", reason: `${IGNORED_BASELINE_FILE} is missing`, overBound: false },
  );
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
      ignoredBaseline: baseline,
    },
    ...legCaller(o),
  });
  return { kind: "finished", ...finished, warnings };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
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

/**
 * Makes sure the working tree holds the files the latest leg left (`leg_end_tree`). A fresh checkout of the
 * starting commit (the action's resume job) gets the run's `patch.diff` applied first. Any other difference
 * is refused.
 *
 * @returns `null` when the files are as the run left them, else the usage error (nothing was changed).
 */
async function restoreLegEndFiles(
  state: RunState,
  runDir: string,
  gitContext: {
    readonly baseEnv: Readonly<Record<string, string | undefined>>;
    readonly knownSecrets: readonly string[];
  },
): Promise<string | null> {
  const expected = state.leg_end_tree;
  // A crashed leg recorded no end: its files cannot be checked, and `--retry-failed` re-runs what it lost.
  if (expected === undefined || expected === null) return null;
  const now = await evidenceTree(state.repo_dir, gitContext);
  if (now === expected) return null;
  const patch = join(runDir, "patch.diff");
  if (now === state.starting_commit.tree && existsSync(patch)) {
    try {
      await applyPatch(state.repo_dir, patch, gitContext);
    } catch (error) {
      return `the nodes' changes from the earlier leg (${patch}) do not apply to ${state.repo_dir}: ${error instanceof Error ? error.message : String(error)}. Nothing was run.`;
    }
    if ((await evidenceTree(state.repo_dir, gitContext)) === expected) return null;
    return `after applying ${patch}, the files in ${state.repo_dir} are still not the ones the run left (tree ${expected.slice(0, 12)}). Nothing else was run; restore a clean checkout of ${state.starting_commit.sha.slice(0, 12)} before resuming again.`;
  }
  return `the files in ${state.repo_dir} are not the ones run ${state.run_id} left when it paused (tree ${now.slice(0, 12)}, expected ${expected.slice(0, 12)}): files were edited while it waited, or the nodes' changes are missing. A resumed leg continues exactly the files the approval and the earlier verdicts were about: undo the edits (or put the nodes' changes back: \`git apply ${patch}\` on a clean checkout of ${state.starting_commit.sha.slice(0, 12)}), or start a new run. Nothing was run.`;
}
