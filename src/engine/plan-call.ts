/**
 * The planner call of `auto` (SPEC §8; research oh-my-graph §3): one read-only model call turns the
 * goal into a graph spec — `claude -p --permission-mode plan` with the planner's deny list, or on the
 * codex runtime `codex exec --sandbox read-only` (permission mode `plan` → `read-only`; no isolation items,
 * like claude's planner, which keeps the operator's configuration; cost unknown, usage reported). Its reply is untrusted input: parsed, validated against the planned-node
 * rules with every refusal collected, and — once — repaired by a fresh call that quotes the refusals
 * fenced. A second refusal fails the run and keeps the rejected spec.
 */
import { randomUUID } from "node:crypto";
import type { TokenUsage } from "../core/ledger-row.js";
import { extractPlanJson } from "../plan/parse-plan.js";
import { type PlannedSpec, validatePlannedSpec } from "../plan/planned-rules.js";
import { buildRepairPrompt } from "../plan/repair-prompt.js";
import { plannerPolicy } from "../policy/ceiling.js";
import type { Runtime } from "../policy/disclosure.js";
import { codexTokenUsage } from "./codex-usage.js";
import { invokeClaude } from "./invoke-claude.js";
import { invokeCodex } from "./invoke-codex.js";
import { START_ATTEMPTS, START_BACKOFF_MS, withStartRetry } from "./start-retry.js";

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

/** One planner call's reply, runtime-neutral: the text, or why there is none. */
type Reply = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly attempt: Attempt };

async function attempt(
  options: PlanCallOptions,
  prompt: string,
  calls: PlanningCall[],
  starts: string[],
): Promise<Attempt> {
  const reply =
    (options.runtime ?? "claude") === "codex"
      ? await codexReply(options, prompt, calls, starts)
      : await claudeReply(options, prompt, calls, starts);
  if (!reply.ok) return reply.attempt;
  const json = extractPlanJson(reply.text);
  if (!json.ok) {
    return { kind: "refused", refusals: [json.message], rejected: reply.text, repairable: false };
  }
  const checked = validatePlannedSpec(json.value, { allowlist: options.allowlist });
  if (!checked.ok)
    return { kind: "refused", refusals: checked.refusals, rejected: json.value, repairable: true };
  return { kind: "ok", spec: checked.spec };
}

/** Why a call that ended without a result produced no plan. */
function noCallWords(
  options: PlanCallOptions,
  outcome:
    | { readonly kind: "spawn_failed"; readonly message: string }
    | { readonly kind: "no_result"; readonly reason: string }
    | { readonly kind: "timed_out" | "cancelled" },
): string {
  switch (outcome.kind) {
    case "spawn_failed":
      return `could not start ${options.executable} (${START_ATTEMPTS} attempts, ${START_BACKOFF_MS} ms apart): ${outcome.message}`;
    case "no_result":
      return outcome.reason;
    case "timed_out":
      return "the planner call timed out";
    default:
      return "the planner call was cancelled";
  }
}

const unusable = (why: string, rejected: unknown = null): Reply => ({
  ok: false,
  attempt: { kind: "refused", refusals: [why], rejected, repairable: false },
});

/** The codex planner call: `exec --sandbox read-only`, a fresh thread, cost unknown. */
async function codexReply(
  options: PlanCallOptions,
  prompt: string,
  calls: PlanningCall[],
  starts: string[],
): Promise<Reply> {
  const retried = await withStartRetry(
    () =>
      invokeCodex({
        executable: options.executable,
        prompt,
        permissionMode: "plan",
        policy: plannerPolicy(),
        session: { kind: "fresh" },
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.codexConfig !== undefined ? { config: options.codexConfig } : {}),
        cwd: options.cwd,
        env: options.env,
        timeoutMs: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    options.signal,
  );
  starts.push(...retried.failedStarts);
  const outcome = retried.outcome;
  if (outcome.kind !== "completed") {
    const threadId =
      outcome.kind === "timed_out"
        ? outcome.partial.threadId
        : outcome.kind === "spawn_failed"
          ? null
          : outcome.threadId;
    calls.push({ sessionId: threadId, costUsd: null, usage: null, durationMs: outcome.durationMs });
    return unusable(noCallWords(options, outcome));
  }
  const r = outcome.result;
  // Codex reports no USD: the planning cost is unknown, never $0 (SPEC §6).
  calls.push({
    sessionId: r.threadId,
    costUsd: null,
    usage: r.usage !== null ? codexTokenUsage(r.usage) : null,
    durationMs: outcome.durationMs,
  });
  if (r.isError || outcome.exitCode !== 0) {
    return unusable(`the planner call failed: ${r.failureDetail ?? `exit ${outcome.exitCode}`}`, r.reply);
  }
  if (r.agentMessages === 0) return unusable("the planner call completed without a reply (no agent message)");
  return { ok: true, text: r.reply ?? "" };
}

/** The claude planner call: `-p --permission-mode plan` with every deniable tool denied. */
async function claudeReply(
  options: PlanCallOptions,
  prompt: string,
  calls: PlanningCall[],
  starts: string[],
): Promise<Reply> {
  const sessionId = randomUUID();
  const retried = await withStartRetry(
    () =>
      invokeClaude({
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
      }),
    options.signal,
  );
  starts.push(...retried.failedStarts);
  const outcome = retried.outcome;
  if (outcome.kind !== "completed") {
    calls.push({ sessionId, costUsd: null, usage: null, durationMs: outcome.durationMs });
    return unusable(noCallWords(options, outcome));
  }
  const r = outcome.result;
  calls.push({
    sessionId: r.sessionId,
    costUsd: r.totalCostUsd,
    usage: r.usage,
    durationMs: outcome.durationMs,
  });
  if (r.isError || outcome.exitCode !== 0) {
    return unusable(`the planner call failed: ${r.failureDetail ?? `exit ${outcome.exitCode}`}`, r.result);
  }
  return { ok: true, text: r.result ?? "" };
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
