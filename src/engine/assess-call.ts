/**
 * The goal loop's assessor call (`max-cycles`, SPEC §7; issue 13 item 7): one fresh, isolated, tool-less
 * model call per finished cycle — claude `-p --permission-mode plan --setting-sources "" --tools ""
 * --strict-mcp-config --disallowedTools …` (`assessorPolicy`), codex `exec --sandbox read-only` in a fresh
 * thread (cost unknown). Its reply is untrusted input read by `parseAssessment`; a call that fails or an
 * unreadable reply is a result naming why, never a guessed verdict.
 */
import { type Assessment, parseAssessment } from "../plan/assessor-prompt.js";
import { assessorPolicy } from "../policy/ceiling.js";
import { askReadOnly, noReplyWords, type ReadOnlyCaller } from "../runtime/read-only-call.js";
import type { PlanningCall } from "./plan-call.js";

/** How one assessor call is made: the run's read-only caller and the prompt. Times in ms. */
export interface AssessCallOptions extends ReadOnlyCaller {
  readonly prompt: string;
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
  const reply = await askReadOnly({ ...o, who: "assessor", policy: assessorPolicy() });
  if (!reply.ok)
    return {
      kind: "failed",
      reason: noReplyWords({ who: "assessor", executable: o.executable }, reply),
      call: reply.call,
    };
  const parsed = parseAssessment(reply.text);
  if (!parsed.ok) return { kind: "failed", reason: parsed.reason, call: reply.call };
  return {
    kind: "assessed",
    assessment: parsed.assessment,
    call: reply.call,
    failedStarts: reply.failedStarts,
  };
}
