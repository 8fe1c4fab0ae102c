/**
 * The planner call of `auto` (SPEC §8; research oh-my-graph §3): one read-only model call turns the
 * goal into a graph spec — `claude -p --permission-mode plan` with the planner's deny list, or on the
 * codex runtime `codex exec --sandbox read-only` (permission mode `plan` → `read-only`; no isolation items,
 * like claude's planner, which keeps the operator's configuration; cost unknown, usage reported). Its reply is untrusted input: parsed, validated against the planned-node
 * rules with every refusal collected, and — once — repaired by a fresh call that quotes the refusals
 * fenced. A second refusal fails the run and keeps the rejected spec.
 */
import { extractPlanJson } from "../plan/parse-plan.js";
import { type PlannedSpec, validatePlannedSpec } from "../plan/planned-rules.js";
import { buildRepairPrompt } from "../plan/repair-prompt.js";
import { plannerPolicy } from "../policy/ceiling.js";
import type { Runtime } from "../policy/disclosure.js";
import {
  askReadOnly,
  endedNotLoggedIn,
  type ModelCallBill,
  noReplyWords,
  type ReadOnlyCaller,
} from "../runtime/read-only-call.js";

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
      /**
       * The claude CLI answered "Not logged in" (`endedNotLoggedIn`): no credential, nothing spent — the
       * caller ends the run as a usage error naming the credential (`claudeNotLoggedInMessage`).
       */
      readonly notLoggedIn?: true;
    };

/** How the planner is asked: the run's read-only caller, the prompt, and the verify allowlist it must keep to. */
export interface PlanCallOptions extends Omit<ReadOnlyCaller, "runtime"> {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  readonly prompt: string;
  readonly allowlist: readonly string[];
}

type Attempt =
  | { kind: "ok"; spec: PlannedSpec }
  | { kind: "refused"; refusals: string[]; rejected: unknown; repairable: boolean; notLoggedIn?: true };

async function attempt(
  options: PlanCallOptions,
  prompt: string,
  calls: PlanningCall[],
  starts: string[],
): Promise<Attempt> {
  const reply = await askReadOnly({
    ...options,
    runtime: options.runtime ?? "claude",
    who: "planner",
    prompt,
    policy: plannerPolicy(),
  });
  starts.push(...reply.failedStarts);
  calls.push(reply.call);
  if (!reply.ok) {
    return {
      kind: "refused",
      refusals: [noReplyWords({ who: "planner", executable: options.executable }, reply)],
      rejected: reply.replyText,
      repairable: false,
      ...(endedNotLoggedIn(reply) ? { notLoggedIn: true as const } : {}),
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
      ...(first.notLoggedIn === true ? { notLoggedIn: true as const } : {}),
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
