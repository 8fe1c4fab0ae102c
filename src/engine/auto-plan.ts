/**
 * The planning half of `auto`, shared by `auto` (which then runs the plan) and `plan` (SPEC §2, §11: "plan
 * only", which runs nothing): the checks and the build-evidence decision before any model call (SPEC §5),
 * then the planner call repaired once, then the trusted mutations — the operator's verify command on every
 * non-gate sink, the tool ceiling on every planned node (SPEC §8) — and the plan section with its one
 * disclosure slot.
 *
 * The loaded-user-config opt-in (seed 001; SPEC §8) enters here and only here: `acceptLoadedUserConfig`
 * is the operator's launch choice (flag or workflow input) and goes into `plannedNodePolicy`; the plan
 * section's disclosure is then read back from the policies actually built (`plannedRunDisclosure`), never
 * from the flag, so what is printed cannot drift from what is spawned. Nothing a planner writes can set it:
 * the planned-spec validator keeps only the fields a plan may carry (src/plan/planned-rules.ts).
 */
import { resolve } from "node:path";
import type { BuildEvidenceAnswer, BuildSignal } from "../core/build-evidence-answer.js";
import { decideBuildEvidence } from "../evidence/build-evidence.js";
import { scanBuildSignalsAlongPath } from "../evidence/build-signals.js";
import type { VerifyChoice } from "../evidence/verify-choice.js";
import type { Graph } from "../graph/graph.js";
import { loadGraphObject } from "../graph/load.js";
import type { PlanSection } from "../ledger/ledger.js";
import { attachVerifyCommand } from "../plan/attach-verify.js";
import type { PlannedSpec } from "../plan/planned-rules.js";
import { goalInvisibleProblem, goalLengthProblem, plannerPrompt } from "../plan/planner-prompt.js";
import { DEFAULT_PLANNED_ALLOWLIST, extendAllowlist } from "../policy/allowlist.js";
import { plannedNodePolicies, plannedNodePolicy } from "../policy/ceiling.js";
import { plannedRunDisclosure, type Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ModelCalls } from "../runtime/model-calls.js";
import { startRetryNote } from "../runtime/start-retry.js";
import { planPolicy } from "./fresh-run.js";
import { type PlanCallResult, type PlanningCall, planWithRepair } from "./plan-call.js";
import { workingDirectoryProblem } from "./run-setup.js";
import { runtimeOptionsProblem, runtimeWarnings } from "./runtime-setup.js";

/** The goal's length check, for a surface that names the goal's source itself (a comment's text). */
export { goalLengthProblem };

/** What the planning half needs: the subset of `AutoRunOptions` that `plan` takes too. Times in ms. */
export interface AutoPlanOptions {
  readonly goal: string;
  /** The checked-out repository root. */
  readonly repoDir: string;
  /**
   * Optional sub-directory where the planner (and nodes) run; it and every folder between it and the root
   * are scanned for build signals too.
   */
  readonly workingDirectory?: string;
  readonly verifyCmd?: string;
  /**
   * The verify command as the run service chose it once (`chooseVerifyCommand`: the operator's, else the
   * policy's); absent: chosen from `verifyCmd` and `policy.verifyCmd` here, by the same function.
   */
  readonly verify?: VerifyChoice;
  readonly verifyTimeoutMs: number;
  /**
   * `repair-attempts` / `--repair-attempts` (SPEC §7; default 0 = off): with an attached verify command,
   * each sink's completion gate feeds a failing build back to the sink's session this many times.
   */
  readonly repairAttempts?: number;
  readonly acceptNoBuildEvidence: boolean;
  /**
   * The operator accepted that planned nodes load their CLI configuration (`--accept-loaded-user-config`,
   * input `accept-loaded-user-config`; SPEC §8, seed 001): every planned node's layers 1 and 4 are
   * dropped, layers 2, 3 and 5 kept. Typed at launch only — no planner reply, policy file, PR text or
   * comment command reaches it. Default off is the caller's `false`.
   */
  readonly acceptLoadedUserConfig: boolean;
  readonly runtime: Runtime;
  readonly model?: string;
  readonly surface: "action" | "cli";
  readonly codexConfig?: readonly string[];
  readonly pr?: { readonly title: string; readonly body: string };
  /**
   * The goal loop's cycle 2 onwards (`max-cycles`, SPEC §7): the assessor's `remaining` from the previous
   * cycle, quoted fenced in the planner prompt. Absent on cycle 1 and with `max-cycles` 1.
   */
  readonly remaining?: string;
  /** Base-branch policy file values (SPEC §5, §11). */
  readonly policy?: {
    readonly verifyCmd?: string;
    readonly requireEvidence?: boolean;
    readonly requireTests?: boolean;
    readonly testReports?: readonly string[];
    readonly plannedTools?: readonly string[];
    readonly verifyRepeat?: number;
    readonly verifyBase?: boolean;
    readonly source?: string;
  };
}

/** Where planning may start: the decision was taken and nothing was spent. */
export interface PlanStart {
  readonly kind: "ready";
  readonly answer: BuildEvidenceAnswer;
  /** Absolute. */
  readonly repoDir: string;
  /** Absolute: the working directory, or `repoDir`. */
  readonly workDir: string;
  /** The planned-node allowlist: the default plus the policy file's `planned-tools`. */
  readonly allowlist: readonly string[];
}

export type PlanStartResult =
  | { readonly kind: "usage_error"; readonly message: string }
  | { readonly kind: "refused"; readonly message: string; readonly signals: readonly BuildSignal[] }
  | PlanStart;

/**
 * Everything decided before any model call or any write: the goal is not empty (nor only hidden text:
 * `goalInvisibleProblem`) nor longer than the planner takes (`goalLengthProblem`: refused, never cut), the runtime options fit,
 * the working directory lies inside the repository, the build-evidence decision (SPEC §5), and the
 * policy file's `planned-tools` extension. Spends nothing and writes nothing.
 */
export async function startPlanning(o: AutoPlanOptions): Promise<PlanStartResult> {
  if (o.goal.trim() === "")
    return { kind: "usage_error", message: "goal is empty: pass the goal (input `goal`, flag `--goal`)" };
  // Refused, never cut: a goal cut to fit the prompt would be another request (a PR body, a long comment).
  const named = o.surface === "cli" ? "--goal" : "input `goal`";
  const tooLong = goalLengthProblem(o.goal, named, `Shorten ${named}`);
  if (tooLong !== null) return { kind: "usage_error", message: tooLong };
  const invisible = goalInvisibleProblem(o.goal, named);
  if (invisible !== null) return { kind: "usage_error", message: invisible };
  const runtimeProblem = runtimeOptionsProblem(o.runtime, o);
  if (runtimeProblem !== null) return { kind: "usage_error", message: runtimeProblem };
  const repoDir = resolve(o.repoDir);
  const workDir = o.workingDirectory ? resolve(repoDir, o.workingDirectory) : repoDir;
  const wdProblem = workingDirectoryProblem(repoDir, workDir);
  if (wdProblem !== null) return { kind: "usage_error", message: wdProblem };
  // The root, every folder down to the working directory, and the working directory: `pkg/package.json`
  // is a build signal for a run in `pkg/src` (issue 17).
  const signals = await scanBuildSignalsAlongPath({ root: repoDir, workingDirectory: workDir });
  const decision = decideBuildEvidence({
    ...(o.verifyCmd !== undefined ? { verifyCmd: o.verifyCmd } : {}),
    ...(o.verify !== undefined ? { verify: o.verify } : {}),
    acceptNoBuildEvidence: o.acceptNoBuildEvidence,
    signals,
    ...(o.policy ? { policy: o.policy } : {}),
    surface: o.surface,
    repoDir,
  });
  if (decision.kind === "usage_error") return { kind: "usage_error", message: decision.message };
  if (decision.kind === "refused")
    return { kind: "refused", message: decision.message, signals: decision.signals };
  let allowlist: readonly string[] = DEFAULT_PLANNED_ALLOWLIST;
  if (o.policy?.plannedTools) {
    const extended = extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, o.policy.plannedTools);
    if (!extended.ok) {
      const why = extended.refusals.map((r) => `${r.entry}: ${r.reason}`).join("; ");
      return { kind: "usage_error", message: `policy file planned-tools refused: ${why}` };
    }
    allowlist = extended.allowlist;
  }
  return { kind: "ready", answer: decision.answer, repoDir, workDir, allowlist };
}

/** How the planner is called (the executable, environment and model calls are the caller's). */
export interface PlannerCallOptions {
  readonly executable: string;
  /** The model calls the run was handed (default: the real CLIs). */
  readonly modelCalls?: ModelCalls;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** The plan, after the trusted mutations: what `auto` runs and `plan` prints. */
export type AutoPlanResult =
  | {
      readonly kind: "planned";
      /** The spec after the verify command was attached (what `graph.json` holds). */
      readonly spec: PlannedSpec;
      readonly graph: Graph;
      /** Every planned node's ceiling, by node id (what `state.json` records as `tool_policies`). */
      readonly policies: Readonly<Record<string, ToolPolicy>>;
      readonly plan: PlanSection;
      readonly calls: readonly PlanningCall[];
      readonly warnings: readonly string[];
    }
  | {
      readonly kind: "rejected";
      readonly plan: PlanSection;
      /** The planner's result: why, the refusals, the last reply kept for the run directory. */
      readonly planned: Extract<PlanCallResult, { kind: "rejected" }>;
      readonly calls: readonly PlanningCall[];
    };

/**
 * The planner call (repaired once), then the trusted mutations and the plan section. Never throws for the
 * planner's own failures (a rejected plan is a result); throws only when a validated plan fails to load
 * after the engine's own mutations (an internal error).
 */
export async function planAuto(
  o: AutoPlanOptions,
  start: PlanStart,
  call: PlannerCallOptions,
): Promise<AutoPlanResult> {
  const { answer } = start;
  // What the goal and the pull request's text lost on the way in is said in the plan section (issue 12 item 6).
  const { prompt, untrustedTextNote } = plannerPrompt({
    goal: o.goal,
    inputs: [],
    allowlist: start.allowlist,
    buildEvidence: answer.kind === "graph" ? "none-detected" : answer.kind,
    ...(answer.kind === "attached" ? { verifyCommand: answer.command } : {}),
    ...(o.pr ? { pr: { title: o.pr.title, body: o.pr.body } } : {}),
    ...(o.remaining !== undefined ? { remaining: o.remaining } : {}),
    runtime: o.runtime,
  });
  const planned = await planWithRepair({
    runtime: o.runtime,
    executable: call.executable,
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    prompt,
    allowlist: start.allowlist,
    cwd: start.workDir,
    env: call.env,
    ...(o.model !== undefined ? { model: o.model } : {}),
    timeoutMs: call.timeoutMs,
    ...(call.signal ? { signal: call.signal } : {}),
    ...(call.modelCalls !== undefined ? { calls: call.modelCalls } : {}),
  });
  const ceiling = { loadedUserConfig: o.acceptLoadedUserConfig };
  const slot = (policies: Readonly<Record<string, ToolPolicy>>): string =>
    plannedRunDisclosure(policies, { runtime: o.runtime, surface: o.surface });
  const policyNote: Pick<PlanSection, "policy"> = planPolicy(o.policy);

  // A planner CLI that failed to start and was retried is said on the ledger (issue 26).
  const startNote = startRetryNote("the planner CLI", planned.failedStarts, planned.kind === "planned");
  if (planned.kind === "rejected") {
    // No node was planned, so no policy was built; the slot states the ceiling this run's nodes would have
    // had, read from the same ceiling function with the same option (one node's worth).
    const plan: PlanSection = {
      buildEvidence: answer,
      sinkCommands: [],
      disclosure: slot({ "(no node)": plannedNodePolicy(["Read"], ceiling) }),
      nodes: [],
      planningCostUsd: sumKnown(planned.calls),
      ...(planned.repairAttempted ? { repaired: { refusals: [...planned.refusals] } } : {}),
      ...policyNote,
      ...(startNote !== null ? { warnings: [startNote] } : {}),
      ...untrustedTextNote,
    };
    return { kind: "rejected", plan, planned, calls: planned.calls };
  }

  // Trusted mutations: the verify command on every non-gate sink, then the graph loaded like any other.
  const spec = structuredClone(planned.spec);
  if (answer.kind === "attached") {
    attachVerifyCommand(spec, answer.command, {
      timeoutMs: o.verifyTimeoutMs,
      ...(o.repairAttempts !== undefined ? { repairAttempts: o.repairAttempts } : {}),
    });
  }
  const loaded = loadGraphObject(spec, "planner reply", {
    verifyTimeoutCeilingMs: Math.max(o.verifyTimeoutMs, 10 * 60_000),
  });
  if (!loaded.ok) {
    const reason = loaded.issues.map((i) => i.reason).join("; ");
    throw new Error(`Internal error: a validated plan failed to load after trusted mutations: ${reason}`);
  }
  const graph = loaded.graph;
  const policies = plannedNodePolicies(graph.nodes, ceiling);
  const warnings = [...(startNote !== null ? [startNote] : []), ...runtimeWarnings(o.runtime, graph)];
  const plan: PlanSection = {
    buildEvidence: answer,
    sinkCommands:
      answer.kind === "attached" ? graph.sinks.map((id) => ({ nodeId: id, command: answer.command })) : [],
    disclosure: slot(policies),
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
    ...untrustedTextNote,
  };
  return { kind: "planned", spec, graph, policies, plan, calls: planned.calls, warnings };
}

/** The planning cost: the sum of the calls' USD, or `null` as soon as one call reported none. */
function sumKnown(calls: readonly PlanningCall[]): number | null {
  if (calls.some((c) => c.costUsd === null)) return null;
  return calls.reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
}
