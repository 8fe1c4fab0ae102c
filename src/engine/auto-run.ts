/**
 * The main job: `auto` end to end (SPEC §5, §6, §8). Build-evidence decision before any model call →
 * planner call (repaired once) → trusted mutations (verify command on every non-gate sink, the tool
 * ceiling on every planned node) → scheduled node runs → evidence trees → optional commit → ledger and
 * conclusion. Entry points (`src/action`, `src/cli`) call this once and map the result.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { BuildEvidenceAnswer, BuildSignal } from "../evidence/answer.js";
import { decideBuildEvidence } from "../evidence/build-evidence.js";
import { scanBuildSignals } from "../evidence/build-signals.js";
import {
  describeStartingCommit,
  evidenceTree,
  NoCommitError,
  NotAGitRepositoryError,
  startingCommit,
} from "../evidence/evidence-tree.js";
import { ignoredFilesFingerprint } from "../evidence/ignored-files.js";
import { commitWorkingTree, workingTreePatch } from "../evidence/patch.js";
import { VerifyQueue } from "../evidence/verify.js";
import type { Graph } from "../graph/load.js";
import { loadGraphObject } from "../graph/load.js";
import { interpolate } from "../graph/placeholders.js";
import { decideConclusion, type RunEnd } from "../ledger/conclusion.js";
import { computeTotals, type Ledger, type PlanSection } from "../ledger/ledger.js";
import type { LedgerRow } from "../ledger/model.js";
import { createRedactor } from "../ledger/redact.js";
import { attachVerifyCommand } from "../plan/attach-verify.js";
import { buildPlannerPrompt } from "../plan/planner-prompt.js";
import { DEFAULT_PLANNED_ALLOWLIST, extendAllowlist } from "../policy/allowlist.js";
import { plannedNodePolicy } from "../policy/ceiling.js";
import { ceilingDisclosure } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { findExecutable } from "../proc/which.js";
import { type AgentNodeSpec, runAgentNode } from "./agent-node.js";
import { liesInRepository } from "./outside-writes.js";
import { type PlanningCall, planWithRepair } from "./plan-call.js";
import { RedactingRunDirectory } from "./redacting-run-dir.js";
import { mintRunId, type RunId } from "./run-id.js";
import { schedule } from "./scheduler.js";

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
  readonly runtime: "claude";
  readonly model?: string;
  readonly concurrency: number;
  readonly onFail: "halt" | "continue";
  /** Commit the nodes' changes when the run ends (CLI `--commit`). */
  readonly commit: boolean;
  readonly runsDir: string;
  readonly surface: "action" | "cli";
  readonly claudeExecutable: string;
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

/** Progress callbacks; each may be async (the action posts check-run updates from them). */
export interface AutoRunHooks {
  readonly onRunStarted?: (runId: RunId, runDir: string) => void | Promise<void>;
  readonly onPlan?: (plan: PlanSection) => void | Promise<void>;
  /** An in-progress ledger (`conclusion: null`) after planning (`plan`) and after each node (`node`). */
  readonly onProgress?: (ledger: Ledger, kind: "plan" | "node") => void | Promise<void>;
  readonly onNodeStarted?: (nodeId: string) => void;
  readonly onNodeVerifying?: (nodeId: string, command: string) => void;
  readonly onNodeFinished?: (row: LedgerRow) => void | Promise<void>;
}

export type AutoRunResult =
  | { readonly kind: "usage_error"; readonly message: string }
  | { readonly kind: "refused"; readonly message: string; readonly signals: readonly BuildSignal[] }
  | {
      readonly kind: "finished";
      readonly ledger: Ledger;
      readonly runDir: string;
      readonly ledgerPath: string;
    };

/** Runs `auto`. Rejects only on internal errors (the entry point fails the check run then). */
export async function runAuto(o: AutoRunOptions): Promise<AutoRunResult> {
  if (o.goal.trim() === "")
    return { kind: "usage_error", message: "goal is empty: pass the goal (input `goal`, flag `--goal`)" };
  const repoDir = resolve(o.repoDir);
  const workDir = o.workingDirectory ? resolve(repoDir, o.workingDirectory) : repoDir;
  // Compare real paths: a symlinked working directory must not lead the run (and its verify) out of the
  // repository whose tree is the evidence.
  if (!liesInRepository(workDir, { cwd: repoDir, repoRoot: repoDir })) {
    return {
      kind: "usage_error",
      message: `working directory ${workDir} is outside the repository ${repoDir}: working-directory / --working-directory must name a sub-folder of it`,
    };
  }
  if (!existsSync(workDir) || !statSync(workDir).isDirectory()) {
    return {
      kind: "usage_error",
      message: `working directory ${workDir} is not a folder: check working-directory / --repo`,
    };
  }
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
  const gitContext = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  let start: Awaited<ReturnType<typeof startingCommit>>;
  try {
    // Before anything is installed, billed or written: without a starting commit there is no evidence tree.
    const prHead = o.pr?.headSha ?? o.postedHeadSha;
    start = await startingCommit(repoDir, { ...gitContext, ...(prHead !== undefined ? { prHead } : {}) });
  } catch (error) {
    if (error instanceof NotAGitRepositoryError || error instanceof NoCommitError)
      return { kind: "usage_error", message: `${error.message} Nothing was run.` };
    throw error;
  }
  if (o.commit) {
    // --commit commits "the nodes' changes": on a dirty tree it would sweep the user's own edits (and
    // untracked files) into that commit and call them the nodes' work.
    const before = await evidenceTree(repoDir, gitContext);
    if (before !== start.tree) {
      return {
        kind: "usage_error",
        message: `--commit needs a clean working tree: ${repoDir} has changes that are not committed (tracked edits or untracked, not ignored files), and --commit would commit them as the nodes' changes. Commit or stash them first, or run without --commit. Nothing was run.`,
      };
    }
  }
  const setupError = (await o.beforeFirstModelCall?.()) ?? null;
  if (setupError !== null) return { kind: "usage_error", message: setupError };
  // The model child's PATH is the run's own (`buildChildEnv` keeps it); building a model env here would
  // mint a HOME in the action for nothing.
  const claudePath = findExecutable(o.claudeExecutable, o.baseEnv.PATH);
  if (claudePath === null) {
    return {
      kind: "usage_error",
      message: `the claude CLI was not found: ${JSON.stringify(o.claudeExecutable)} is not an executable${o.claudeExecutable.includes("/") ? "" : " on PATH"}. Install @anthropic-ai/claude-code or point --claude-path at the executable; nothing was run`,
    };
  }

  const runId = o.runId ?? mintRunId();
  // Known secrets (4+ characters) never reach what the run writes or hands on: the run directory, the
  // hooks' snapshots, the returned ledger (SPEC §9). A child can still print them (the verify command can
  // read the parent's initial environment through /proc), so this redacts output; it prevents nothing.
  const redactor = createRedactor(o.knownSecrets);
  const dir = new RedactingRunDirectory(o.runsDir, runId, redactor);
  const startedAt = new Date().toISOString();
  dir.event({ type: "run_started", runId, mode: "auto" });
  const startDescription = describeStartingCommit({
    sha: start.sha,
    parents: start.parents,
    ...(o.pr
      ? { prHead: o.pr.headSha, baseRef: o.pr.baseRef }
      : o.postedHeadSha !== undefined
        ? { prHead: o.postedHeadSha }
        : {}),
  });
  const state = {
    schema_version: 1,
    run_id: runId,
    mode: "auto",
    goal: o.goal,
    runtime: o.runtime,
    build_evidence: answer,
    starting_commit: { sha: start.sha, tree: start.tree },
    tool_policies: {} as Record<string, ToolPolicy>,
    nodes: {} as Record<string, LedgerRow>,
  };
  dir.writeJson("state.json", state);
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
    buildEvidence: answer.kind,
    ...(answer.kind === "attached" ? { verifyCommand: answer.command } : {}),
    ...(o.pr ? { pr: { title: o.pr.title, body: o.pr.body } } : {}),
    runtime: o.runtime,
  });
  // The git-ignored files as the run found them, before any model call: each verify is compared with this
  // (ADR 0003, amendment 2026-11-29) — a pass that rests on ignored files on no commit is not success.
  // Only this run's own directory (the engine writes state.json and events there); other files under the
  // runs folder — a node could plant one that the build imports — are fingerprinted like any ignored file.
  const ignoredExclude = [dir.path];
  const ignoredBaseline = await ignoredFilesFingerprint(repoDir, { ...gitContext, exclude: ignoredExclude });
  const planned = await planWithRepair({
    executable: o.claudeExecutable,
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

  const finish = async (args: {
    graph: Graph | null;
    rows: LedgerRow[];
    plan: PlanSection;
    calls: readonly PlanningCall[];
    end: RunEnd;
  }): Promise<AutoRunResult> => {
    const sinks = args.graph ? args.graph.sinks : [];
    const gateSinks = args.graph
      ? args.graph.nodes.filter((n) => n.type === "gate" && sinks.includes(n.id)).map((n) => n.id)
      : [];
    let postedTree: string | null = start.tree;
    let postedSha = start.sha;
    let patch: Ledger["patch"];
    let finalTree: string | null = null;
    try {
      finalTree = await evidenceTree(repoDir, gitContext);
    } catch {
      finalTree = null;
    }
    const changed = finalTree !== null && finalTree !== start.tree;
    let commitNote = "";
    // --commit never puts a failed run's changes on the branch: they stay in patch.diff for a person to judge.
    const everyRowPassed = args.rows.length > 0 && args.rows.every((r) => r.verdict === "PASS");
    // --commit never puts a known secret (the token, the model key) into git history either.
    // The nodes' changes, diffed once: checked for secrets before a --commit, saved when not committed.
    const nodesPatch = changed ? await workingTreePatch(repoDir, start.sha, gitContext) : null;
    const changesHoldSecret = nodesPatch !== null && redactor.contains(nodesPatch.diff);
    // Commit what was verified: the sinks' one evidence tree when they share it, else the working tree.
    const sinkTrees = new Set(
      args.rows.filter((r) => r.sink && r.verify?.evidenceTree).map((r) => r.verify!.evidenceTree!),
    );
    const verifiedTree = sinkTrees.size === 1 ? [...sinkTrees][0]! : undefined;
    // --commit also never commits a run whose evidence would not stand on that commit (ignored files or
    // outside writes the build used, submodule or .gitattributes gaps): judged as if it were committed.
    const wouldBe = decideConclusion({
      rows: args.rows,
      sinks,
      gateSinks,
      buildEvidence: answer,
      postedCommitTree: verifiedTree ?? finalTree,
      requireEvidence: o.policy?.requireEvidence === true,
      end: args.end,
    }).conclusion;
    const evidenceStands = wouldBe === "success" || wouldBe === "neutral";
    if (
      changed &&
      o.commit &&
      args.end.kind === "completed" &&
      everyRowPassed &&
      !changesHoldSecret &&
      evidenceStands
    ) {
      const sha = await commitWorkingTree(repoDir, {
        ...gitContext,
        ...(verifiedTree !== undefined ? { tree: verifiedTree } : {}),
        message: `evidence-gate: ${redactor.text(firstLine(o.goal))}`,
        trailer: `Evidence-Gate-Run: ${runId}`,
      });
      if (sha !== null) {
        postedSha = sha;
        postedTree = verifiedTree ?? finalTree;
        commitNote = "the nodes' changes, committed by --commit";
      }
    } else if (changed) {
      const p = nodesPatch!;
      // patch.diff is the nodes' content byte for byte and is left as is (a redacted patch would not apply);
      // the ledger's preview is redacted, and says so when the patch holds a known secret.
      const path = dir.writeBytes("patch.diff", p.diffBytes);
      patch = {
        path,
        bytes: p.diffBytes.length,
        preview: redactor.text(p.diff).slice(0, 4000),
        ...(redactor.contains(p.diff) ? { holdsSecret: true as const } : {}),
        ...(o.commit && everyRowPassed && !evidenceStands
          ? { notCommittedBecause: `its evidence would end ${wouldBe}` }
          : {}),
      };
    }
    const decided = decideConclusion({
      rows: args.rows,
      sinks,
      gateSinks,
      buildEvidence: answer,
      postedCommitTree: postedTree,
      requireEvidence: o.policy?.requireEvidence === true,
      end: args.end,
    });
    const unredacted: Ledger = {
      schemaVersion: 1,
      runId,
      mode: "auto",
      goal: o.goal,
      runtime: o.runtime,
      ...(o.model !== undefined ? { model: o.model } : {}),
      plan: args.plan,
      rows: args.rows,
      totals: computeTotals(
        args.rows,
        args.calls.map((c) => ({ costUsd: c.costUsd, usage: c.usage })),
      ),
      conclusion: decided,
      startedAt,
      finishedAt: new Date().toISOString(),
      startingCommit: { sha: start.sha, tree: start.tree, description: startDescription },
      ...(postedSha !== start.sha && postedTree !== null
        ? {
            postedCommit: {
              sha: postedSha,
              tree: postedTree,
              description: `${postedSha.slice(0, 7)} (${commitNote})`,
            },
          }
        : {}),
      evidenceTree: evidenceTreeOf(args.rows),
      ...(patch ? { patch } : {}),
    };
    const ledger = redactor.deep(unredacted);
    const ledgerPath = dir.writeJson("ledger.json", ledger);
    dir.event({ type: "run_finished", outcome: decided.outcome, conclusion: decided.conclusion });
    return { kind: "finished", ledger, runDir: dir.path, ledgerPath };
  };

  const snapshot = (
    plan: PlanSection,
    rows: readonly LedgerRow[],
    calls: readonly PlanningCall[],
  ): Ledger => ({
    schemaVersion: 1,
    runId,
    mode: "auto",
    goal: o.goal,
    runtime: o.runtime,
    ...(o.model !== undefined ? { model: o.model } : {}),
    plan,
    rows,
    totals: computeTotals(
      rows,
      calls.map((c) => ({ costUsd: c.costUsd, usage: c.usage })),
    ),
    conclusion: null,
    startedAt,
    finishedAt: null,
    startingCommit: { sha: start.sha, tree: start.tree, description: startDescription },
    evidenceTree: evidenceTreeOf(rows),
  });

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
  const policies = new Map<string, ToolPolicy>();
  for (const node of graph.nodes) {
    const policy = plannedNodePolicy(node.allowed_tools, { loadedUserConfig: false });
    policies.set(node.id, policy);
    state.tool_policies[node.id] = policy;
  }
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
  };
  dir.writeJson("state.json", state);
  dir.event({ type: "plan_ready", nodes: graph.nodes.map((n) => n.id), sinks: graph.sinks });
  await o.hooks?.onPlan?.(redactor.deep(plan));
  await o.hooks?.onProgress?.(redactor.deep(snapshot(plan, [], planned.calls)), "plan");

  const verifyQueue = new VerifyQueue({
    baseEnv: o.baseEnv,
    passThrough: o.verifyEnv,
    knownSecrets: o.knownSecrets,
    ignoredFiles: { baseline: ignoredBaseline, exclude: ignoredExclude },
    ...(o.echo ? { echo: o.echo } : {}),
  });
  const rows = new Map<string, LedgerRow>();
  const replies = new Map<string, string>();
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const recordRow = async (row: LedgerRow): Promise<void> => {
    state.nodes[row.nodeId] = row;
    dir.writeJson("state.json", state);
    if (row.verdict === "PASS")
      dir.event({ type: "node_passed", node: row.nodeId, qualifier: row.qualifier });
    else if (row.verdict === "FAIL")
      dir.event({ type: "node_failed", node: row.nodeId, cause: row.cause, detail: row.detail });
    await o.hooks?.onNodeFinished?.(redactor.deep(row));
    await o.hooks?.onProgress?.(redactor.deep(snapshot(plan, [...rows.values()], planned.calls)), "node");
  };

  const result = await schedule({
    nodes: graph.nodes.map((n) => ({ id: n.id, dependsOn: n.depends_on })),
    concurrency: Math.min(o.concurrency, graph.concurrency),
    onFail: o.onFail,
    ...(o.signal ? { signal: o.signal } : {}),
    run: async (id, signal) => {
      const node = byId.get(id)!;
      const interpolated = interpolate(node.prompt, {
        inputs: {},
        artifactPath: (ref) => (replies.has(ref) ? dir.nodeOutputPath(ref) : undefined),
        readArtifact: (ref) => replies.get(ref),
        feedback: () => undefined,
      });
      if (!interpolated.ok) {
        const row: LedgerRow = {
          nodeId: id,
          verdict: "FAIL",
          cause: "run_error",
          detail: interpolated.message,
          sessionId: null,
          costUsd: 0,
          durationMs: 0,
          deniedToolCalls: 0,
          usage: null,
          numTurns: null,
          sink: graph.sinks.includes(id),
        };
        rows.set(id, row);
        await recordRow(row);
        return "failed";
      }
      const agentSpec: AgentNodeSpec = {
        id,
        prompt: interpolated.text,
        permissionMode: node.permission_mode,
        policy: policies.get(id)!,
        timeoutMs: node.timeout_ms,
        cwd: workDir,
        repoRoot: repoDir,
        sink: graph.sinks.includes(id),
        exitZero: node.success_check.exit_zero,
        resultMatches: node.success_check.result_matches,
        verify: node.success_check.verify
          ? {
              command: node.success_check.verify.command,
              cwd: node.success_check.verify.cwd ? resolve(workDir, node.success_check.verify.cwd) : workDir,
              timeoutMs: node.success_check.verify.timeout_ms,
              expectExit: node.success_check.verify.expect_exit,
            }
          : null,
      };
      // The node's own work, until its verify is queued: a verify it overlaps keeps the ignored baseline.
      const workDone = verifyQueue.nodeWorking();
      const produced = await runAgentNode(
        agentSpec,
        {
          claudeExecutable: o.claudeExecutable,
          ...(o.model !== undefined ? { model: o.model } : {}),
          modelEnv: o.modelEnv,
          runDir: dir,
          verifyQueue,
          ...(o.echo ? { echo: o.echo } : {}),
          onStarted: (nodeId, sessionId) => {
            dir.event({ type: "node_started", node: nodeId, sessionId });
            o.hooks?.onNodeStarted?.(nodeId);
          },
          onVerifying: (nodeId, command) => {
            workDone();
            dir.event({ type: "node_verifying", node: nodeId, command });
            o.hooks?.onNodeVerifying?.(nodeId, redactor.text(command));
          },
        },
        signal,
      );
      workDone();
      // What the node or its verify printed may hold a known secret: redact its row, reply and saved output.
      dir.redactSavedOutputs(id);
      const row = redactor.deep(produced.row);
      const reply = redactor.text(produced.reply);
      if (row.verdict === "PASS") replies.set(id, reply);
      rows.set(id, row);
      await recordRow(row);
      return row.verdict === "PASS"
        ? "passed"
        : row.verdict === "FAIL" && row.cause === "cancelled"
          ? "cancelled"
          : "failed";
    },
  });

  const ordered: LedgerRow[] = [];
  for (const node of graph.nodes) {
    const outcome = result.outcomes.get(node.id);
    const row = rows.get(node.id);
    if (outcome?.kind === "cancelled" && row && row.verdict === "FAIL") {
      const detail = outcome.haltedBy
        ? `cancelled: "${outcome.haltedBy}" failed and on_fail is halt`
        : "cancelled: the run was cancelled";
      ordered.push({ ...row, detail });
    } else if (row) {
      ordered.push(row);
    } else {
      const because = outcome?.kind === "skipped" ? outcome.because : "never ran";
      const skipped: LedgerRow = {
        nodeId: node.id,
        verdict: "SKIPPED",
        reason: because,
        sessionId: null,
        // A node that never ran spent nothing: 0, not unknown.
        costUsd: 0,
        durationMs: 0,
        deniedToolCalls: 0,
        usage: null,
        numTurns: null,
        sink: graph.sinks.includes(node.id),
        detail: "",
      };
      dir.event({ type: "node_skipped", node: node.id, reason: because });
      ordered.push(skipped);
    }
  }
  const end: RunEnd = o.signal?.aborted === true ? { kind: "cancelled" } : { kind: "completed" };
  return finish({ graph, rows: ordered, plan, calls: planned.calls, end });
}

/** The evidence tree of the run: the tree the (first) sink verify ran on, `null` when none ran. */
function evidenceTreeOf(rows: readonly LedgerRow[]): string | null {
  for (const row of rows) if (row.sink && row.verify?.evidenceTree) return row.verify.evidenceTree;
  return null;
}

function sumKnown(calls: readonly PlanningCall[]): number | null {
  if (calls.some((c) => c.costUsd === null)) return null;
  return calls.reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 72);
}

export type { BuildEvidenceAnswer };
