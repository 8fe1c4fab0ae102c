/**
 * The goal loop's assessor call (`max-cycles`, SPEC §7; issue 13 item 7): one fresh, isolated, tool-less
 * model call per finished cycle — claude `-p --permission-mode plan --setting-sources "" --tools ""
 * --strict-mcp-config --disallowedTools …` (`assessorPolicy`), codex `exec --sandbox read-only` in a fresh
 * thread (cost unknown). Its reply is untrusted input read by `parseAssessment`; a call that fails or an
 * unreadable reply is a result naming why, never a guessed verdict.
 */
import { randomUUID } from "node:crypto";
import { type Assessment, parseAssessment } from "../plan/assessor-prompt.js";
import { assessorPolicy } from "../policy/ceiling.js";
import type { Runtime } from "../policy/disclosure.js";
import { codexTokenUsage } from "./codex-usage.js";
import { invokeClaude } from "./invoke-claude.js";
import { invokeCodex } from "./invoke-codex.js";
import type { PlanningCall } from "./plan-call.js";
import { START_ATTEMPTS, START_BACKOFF_MS, withStartRetry } from "./start-retry.js";

/** How one assessor call is made: the run's CLI, its environment and where it runs. Times in ms. */
export interface AssessCallOptions {
  readonly runtime: Runtime;
  readonly executable: string;
  readonly codexConfig?: readonly string[];
  readonly prompt: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly model?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** The assessor's verdict with the call's bill, or why there is no verdict (the bill still counts). */
export type AssessResult =
  | {
      readonly kind: "assessed";
      readonly assessment: Assessment;
      readonly call: PlanningCall;
      /** Each failed start of the assessor CLI that was retried (`withStartRetry`), in order. */
      readonly failedStarts: readonly string[];
    }
  | { readonly kind: "failed"; readonly reason: string; readonly call: PlanningCall };

/** Makes the assessor call. Never throws for the call's own failures. */
export async function assessCycle(o: AssessCallOptions): Promise<AssessResult> {
  const reply = o.runtime === "codex" ? await codexReply(o) : await claudeReply(o);
  if (!reply.ok) return { kind: "failed", reason: reply.reason, call: reply.call };
  const parsed = parseAssessment(reply.text);
  if (!parsed.ok) return { kind: "failed", reason: parsed.reason, call: reply.call };
  return {
    kind: "assessed",
    assessment: parsed.assessment,
    call: reply.call,
    failedStarts: reply.failedStarts,
  };
}

type Reply =
  | {
      readonly ok: true;
      readonly text: string;
      readonly call: PlanningCall;
      readonly failedStarts: readonly string[];
    }
  | { readonly ok: false; readonly reason: string; readonly call: PlanningCall };

function noResultWords(kind: string, detail: string | undefined): string {
  if (kind === "timed_out") return "the assessor call timed out";
  if (kind === "cancelled") return "the assessor call was cancelled";
  if (kind === "spawn_failed") {
    return `the assessor CLI could not start (${START_ATTEMPTS} attempts, ${START_BACKOFF_MS} ms apart): ${detail ?? kind}`;
  }
  return `the assessor call failed: ${detail ?? kind}`;
}

async function claudeReply(o: AssessCallOptions): Promise<Reply> {
  const sessionId = randomUUID();
  const retried = await withStartRetry(
    () =>
      invokeClaude({
        executable: o.executable,
        prompt: o.prompt,
        permissionMode: "plan",
        policy: assessorPolicy(),
        session: { kind: "fresh", sessionId },
        ...(o.model !== undefined ? { model: o.model } : {}),
        cwd: o.cwd,
        env: o.env,
        timeoutMs: o.timeoutMs,
        ...(o.signal ? { signal: o.signal } : {}),
      }),
    o.signal,
  );
  const outcome = retried.outcome;
  if (outcome.kind !== "completed") {
    const call = { sessionId, costUsd: null, usage: null, durationMs: outcome.durationMs };
    const detail =
      outcome.kind === "spawn_failed"
        ? outcome.message
        : outcome.kind === "no_result"
          ? outcome.reason
          : undefined;
    return { ok: false, reason: noResultWords(outcome.kind, detail), call };
  }
  const r = outcome.result;
  const call = {
    sessionId: r.sessionId,
    costUsd: r.totalCostUsd,
    usage: r.usage,
    durationMs: outcome.durationMs,
  };
  if (r.isError || outcome.exitCode !== 0) {
    return {
      ok: false,
      reason: noResultWords("failed", r.failureDetail ?? `exit ${outcome.exitCode}`),
      call,
    };
  }
  return { ok: true, text: r.result ?? "", call, failedStarts: retried.failedStarts };
}

async function codexReply(o: AssessCallOptions): Promise<Reply> {
  const retried = await withStartRetry(
    () =>
      invokeCodex({
        executable: o.executable,
        prompt: o.prompt,
        permissionMode: "plan",
        policy: assessorPolicy(),
        session: { kind: "fresh" },
        ...(o.model !== undefined ? { model: o.model } : {}),
        ...(o.codexConfig !== undefined ? { config: o.codexConfig } : {}),
        cwd: o.cwd,
        env: o.env,
        timeoutMs: o.timeoutMs,
        ...(o.signal ? { signal: o.signal } : {}),
      }),
    o.signal,
  );
  const outcome = retried.outcome;
  if (outcome.kind !== "completed") {
    const threadId =
      outcome.kind === "timed_out"
        ? outcome.partial.threadId
        : outcome.kind === "spawn_failed"
          ? null
          : outcome.threadId;
    const call = { sessionId: threadId, costUsd: null, usage: null, durationMs: outcome.durationMs };
    const detail =
      outcome.kind === "spawn_failed"
        ? outcome.message
        : outcome.kind === "no_result"
          ? outcome.reason
          : undefined;
    return { ok: false, reason: noResultWords(outcome.kind, detail), call };
  }
  const r = outcome.result;
  // Codex reports no USD: the assessor's cost is unknown, never $0 (SPEC §6).
  const call = {
    sessionId: r.threadId,
    costUsd: null,
    usage: r.usage !== null ? codexTokenUsage(r.usage) : null,
    durationMs: outcome.durationMs,
  };
  if (r.isError || outcome.exitCode !== 0) {
    return {
      ok: false,
      reason: noResultWords("failed", r.failureDetail ?? `exit ${outcome.exitCode}`),
      call,
    };
  }
  return { ok: true, text: r.reply ?? "", call, failedStarts: retried.failedStarts };
}
