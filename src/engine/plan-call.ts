/**
 * The planner call of `auto` (SPEC §8; research oh-my-graph §3): one read-only model call turns the
 * goal into a graph spec — `claude -p --permission-mode plan` with the planner's deny list, or on the
 * codex runtime `codex exec --sandbox read-only` (permission mode `plan` → `read-only`; no isolation items,
 * like claude's planner, which keeps the operator's configuration; cost unknown, usage reported). Its reply is untrusted input: parsed, validated against the planned-node
 * rules with every refusal collected, and — once — repaired by a fresh call that quotes the refusals
 * fenced. A second refusal fails the run and keeps the rejected spec.
 */
import { unreachable } from "../core/unreachable.js";
import { extractPlanJson } from "../plan/parse-plan.js";
import { type PlannedSpec, validatePlannedSpec } from "../plan/planned-rules.js";
import { buildRepairPrompt } from "../plan/repair-prompt.js";
import { plannerPolicy } from "../policy/ceiling.js";
import type { Runtime } from "../policy/disclosure.js";
import { askReadOnly, type ModelCallBill, type ReadOnlyReply } from "../runtime/read-only-call.js";
import { START_ATTEMPTS, START_BACKOFF_MS } from "../runtime/start-retry.js";

/** One planner (or assessor) call's bill, for the ledger totals. `costUsd: null` = unknown. */
export type PlanningCall = ModelCallBill;

export type PlanCallResult =
  | {
      readonly kind: "planned";
      /** The validated spec object (plain JSON, before trusted mutations). */
      readonly spec: PlannedSpec;
      readonly calls: readonly PlanningCall[];
      /** Refusals of the first reply when a repair call was needed. */
      readonly repairedFrom: readonly string[] | null;
      /** Each failed start of the planner CLI that was retried (`withStartRetry`), in order. */
      readonly failedStarts: readonly string[];
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
      /** Each failed start of the planner CLI that was retried (`withStartRetry`), in order. */
      readonly failedStarts: readonly string[];
    };

export interface PlanCallOptions {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  /** The run's model CLI: `claude` or `codex`, per `runtime`. */
  readonly executable: string;
  /** Codex only: the operator's `codex-config` pairs (`-c KEY=VALUE`). */
  readonly codexConfig?: readonly string[];
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

async function attempt(
  options: PlanCallOptions,
  prompt: string,
  calls: PlanningCall[],
  starts: string[],
): Promise<Attempt> {
  const reply = await askReadOnly({
    runtime: options.runtime ?? "claude",
    executable: options.executable,
    ...(options.codexConfig !== undefined ? { codexConfig: options.codexConfig } : {}),
    prompt,
    policy: plannerPolicy(),
    cwd: options.cwd,
    env: options.env,
    ...(options.model !== undefined ? { model: options.model } : {}),
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  starts.push(...reply.failedStarts);
  calls.push(reply.call);
  if (!reply.ok) {
    return {
      kind: "refused",
      refusals: [noPlanWords(options, reply)],
      rejected: reply.replyText,
      repairable: false,
    };
  }
  const json = extractPlanJson(reply.text);
  if (!json.ok) {
    return { kind: "refused", refusals: [json.message], rejected: reply.text, repairable: false };
  }
  const checked = validatePlannedSpec(json.value, { allowlist: options.allowlist });
  if (!checked.ok)
    return { kind: "refused", refusals: checked.refusals, rejected: json.value, repairable: true };
  return { kind: "ok", spec: checked.spec };
}

/** Why a planner call produced no reply to read. */
function noPlanWords(options: PlanCallOptions, reply: Extract<ReadOnlyReply, { ok: false }>): string {
  switch (reply.ended) {
    case "spawn_failed":
      return `could not start ${options.executable} (${START_ATTEMPTS} attempts, ${START_BACKOFF_MS} ms apart): ${reply.detail}`;
    case "no_result":
      return reply.detail;
    case "timed_out":
      return "the planner call timed out";
    case "cancelled":
      return "the planner call was cancelled";
    case "failed":
      return `the planner call failed: ${reply.detail}`;
    case "no_reply":
      return `the planner call ${reply.detail}`;
    default:
      return unreachable(reply.ended);
  }
}

/** Plans once, repairs at most once. Never throws for the planner's own failures. */
export async function planWithRepair(options: PlanCallOptions): Promise<PlanCallResult> {
  const calls: PlanningCall[] = [];
  const failedStarts: string[] = [];
  const first = await attempt(options, options.prompt, calls, failedStarts);
  if (first.kind === "ok")
    return { kind: "planned", spec: first.spec, calls, repairedFrom: null, failedStarts };
  if (!first.repairable) {
    return {
      kind: "rejected",
      reason: first.refusals.join("; "),
      refusals: first.refusals,
      rejected: first.rejected,
      calls,
      repairAttempted: false,
      failedStarts,
    };
  }
  const second = await attempt(
    options,
    buildRepairPrompt(options.prompt, first.refusals),
    calls,
    failedStarts,
  );
  if (second.kind === "ok")
    return { kind: "planned", spec: second.spec, calls, repairedFrom: first.refusals, failedStarts };
  return {
    kind: "rejected",
    reason: `the plan was refused twice: ${second.refusals.join("; ")}`,
    refusals: second.refusals,
    rejected: second.rejected,
    calls,
    repairAttempted: true,
    failedStarts,
  };
}
