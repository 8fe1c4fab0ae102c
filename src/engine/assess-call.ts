/**
 * The goal loop's assessor call (`max-cycles`, SPEC §7; issue 13 item 7): one fresh, isolated, tool-less
 * model call per finished cycle — claude `-p --permission-mode plan --setting-sources "" --tools ""
 * --strict-mcp-config --disallowedTools …` (`assessorPolicy`), codex `exec --sandbox read-only` in a fresh
 * thread (cost unknown). Its reply is untrusted input read by `parseAssessment`; a call that fails or an
 * unreadable reply is a result naming why, never a guessed verdict.
 */
import { unreachable } from "../core/unreachable.js";
import { type Assessment, parseAssessment } from "../plan/assessor-prompt.js";
import { assessorPolicy } from "../policy/ceiling.js";
import type { Runtime } from "../policy/disclosure.js";
import { askReadOnly, type ReadOnlyReply } from "../runtime/read-only-call.js";
import { START_ATTEMPTS, START_BACKOFF_MS } from "../runtime/start-retry.js";
import type { PlanningCall } from "./plan-call.js";

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
  const reply = await askReadOnly({
    runtime: o.runtime,
    executable: o.executable,
    ...(o.codexConfig !== undefined ? { codexConfig: o.codexConfig } : {}),
    prompt: o.prompt,
    policy: assessorPolicy(),
    cwd: o.cwd,
    env: o.env,
    ...(o.model !== undefined ? { model: o.model } : {}),
    timeoutMs: o.timeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  if (!reply.ok) return { kind: "failed", reason: noAssessmentWords(reply), call: reply.call };
  const parsed = parseAssessment(reply.text);
  if (!parsed.ok) return { kind: "failed", reason: parsed.reason, call: reply.call };
  return {
    kind: "assessed",
    assessment: parsed.assessment,
    call: reply.call,
    failedStarts: reply.failedStarts,
  };
}

/** Why an assessor call produced no reply to read. */
function noAssessmentWords(reply: Extract<ReadOnlyReply, { ok: false }>): string {
  switch (reply.ended) {
    case "timed_out":
      return "the assessor call timed out";
    case "cancelled":
      return "the assessor call was cancelled";
    case "spawn_failed":
      return `the assessor CLI could not start (${START_ATTEMPTS} attempts, ${START_BACKOFF_MS} ms apart): ${reply.detail}`;
    case "no_reply":
      return `the assessor call ${reply.detail}`;
    case "no_result":
    case "failed":
      return `the assessor call failed: ${reply.detail}`;
    default:
      return unreachable(reply.ended);
  }
}
