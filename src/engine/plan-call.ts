/**
 * The planner call of `auto` (SPEC §8; research oh-my-graph §3): one read-only `claude` call turns the
 * goal into a graph spec. Its reply is untrusted input: parsed, validated against the planned-node
 * rules with every refusal collected, and — once — repaired by a fresh call that quotes the refusals
 * fenced. A second refusal fails the run and keeps the rejected spec.
 */
import { randomUUID } from "node:crypto";
import type { TokenUsage } from "../ledger/model.js";
import { extractPlanJson } from "../plan/parse-plan.js";
import { type PlannedSpec, validatePlannedSpec } from "../plan/planned-rules.js";
import { buildRepairPrompt } from "../plan/repair-prompt.js";
import { plannerPolicy } from "../policy/ceiling.js";
import { invokeClaude } from "./invoke-claude.js";

/** One planner call's bill, for the ledger totals. `costUsd: null` = unknown. */
export interface PlanningCall {
  readonly sessionId: string | null;
  readonly costUsd: number | null;
  readonly usage: TokenUsage | null;
  readonly durationMs: number;
}

export type PlanCallResult =
  | {
      readonly kind: "planned";
      /** The validated spec object (plain JSON, before trusted mutations). */
      readonly spec: PlannedSpec;
      readonly calls: readonly PlanningCall[];
      /** Refusals of the first reply when a repair call was needed. */
      readonly repairedFrom: readonly string[] | null;
    }
  | {
      readonly kind: "rejected";
      readonly reason: string;
      readonly refusals: readonly string[];
      /** The last reply's parsed spec (or raw text when it did not parse), kept for the run directory. */
      readonly rejected: unknown;
      readonly calls: readonly PlanningCall[];
      /** True when a repair call was made (the first reply broke the planned-node rules). */
      readonly repairAttempted: boolean;
    };

export interface PlanCallOptions {
  readonly executable: string;
  readonly prompt: string;
  readonly allowlist: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly model?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

type Attempt =
  | { kind: "ok"; spec: PlannedSpec }
  | { kind: "refused"; refusals: string[]; rejected: unknown; repairable: boolean };

async function attempt(options: PlanCallOptions, prompt: string, calls: PlanningCall[]): Promise<Attempt> {
  const sessionId = randomUUID();
  const outcome = await invokeClaude({
    executable: options.executable,
    prompt,
    permissionMode: "plan",
    policy: plannerPolicy(),
    session: { kind: "fresh", sessionId },
    ...(options.model !== undefined ? { model: options.model } : {}),
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (outcome.kind !== "completed") {
    calls.push({ sessionId, costUsd: null, usage: null, durationMs: outcome.durationMs });
    const why =
      outcome.kind === "spawn_failed"
        ? `could not start ${options.executable}: ${outcome.message}`
        : outcome.kind === "no_result"
          ? outcome.reason
          : outcome.kind === "timed_out"
            ? "the planner call timed out"
            : "the planner call was cancelled";
    return { kind: "refused", refusals: [why], rejected: null, repairable: false };
  }
  const r = outcome.result;
  calls.push({
    sessionId: r.sessionId,
    costUsd: r.totalCostUsd,
    usage: r.usage,
    durationMs: outcome.durationMs,
  });
  if (r.isError || outcome.exitCode !== 0) {
    const why = r.failureDetail ?? `exit ${outcome.exitCode}`;
    return {
      kind: "refused",
      refusals: [`the planner call failed: ${why}`],
      rejected: r.result,
      repairable: false,
    };
  }
  const reply = r.result ?? "";
  const json = extractPlanJson(reply);
  if (!json.ok) {
    return { kind: "refused", refusals: [json.message], rejected: reply, repairable: false };
  }
  const checked = validatePlannedSpec(json.value, { allowlist: options.allowlist });
  if (!checked.ok)
    return { kind: "refused", refusals: checked.refusals, rejected: json.value, repairable: true };
  return { kind: "ok", spec: checked.spec };
}

/** Plans once, repairs at most once. Never throws for the planner's own failures. */
export async function planWithRepair(options: PlanCallOptions): Promise<PlanCallResult> {
  const calls: PlanningCall[] = [];
  const first = await attempt(options, options.prompt, calls);
  if (first.kind === "ok") return { kind: "planned", spec: first.spec, calls, repairedFrom: null };
  if (!first.repairable) {
    return {
      kind: "rejected",
      reason: first.refusals.join("; "),
      refusals: first.refusals,
      rejected: first.rejected,
      calls,
      repairAttempted: false,
    };
  }
  const second = await attempt(options, buildRepairPrompt(options.prompt, first.refusals), calls);
  if (second.kind === "ok")
    return { kind: "planned", spec: second.spec, calls, repairedFrom: first.refusals };
  return {
    kind: "rejected",
    reason: `the plan was refused twice: ${second.refusals.join("; ")}`,
    refusals: second.refusals,
    rejected: second.rejected,
    calls,
    repairAttempted: true,
  };
}
