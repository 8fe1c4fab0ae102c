/**
 * One read-only model call, whichever CLI the run uses (issue 24 item 1: the planner and the assessor ask
 * the model the same way; only the prompt, the tool ceiling and what they make of the reply differ):
 * `claude -p --permission-mode plan` in a fresh session the engine mints, or `codex exec --sandbox
 * read-only` in a fresh thread (codex mints its id; cost unknown, usage reported). A CLI that does not
 * start is retried ({@link withStartRetry}); nothing else is. Every runtime difference — the session id,
 * the bill's cost and usage convention, codex's "completed without an agent message" — stays in this
 * file: the callers get the reply's text or why there is none, and the bill either way.
 */
import { randomUUID } from "node:crypto";
import type { TokenUsage } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import { codexTokenUsage } from "./codex-usage.js";
import { MODEL_CALLS, type ModelCalls } from "./model-calls.js";
import { START_ATTEMPTS, START_BACKOFF_MS, withStartRetry } from "./start-retry.js";

/**
 * Where and how the run's read-only calls are made (the planner's and the assessor's alike): the run's CLI,
 * its environment, where it runs, the model calls the run was handed. Times in ms.
 */
export interface ReadOnlyCaller {
  readonly runtime: Runtime;
  /** The run's model CLI (`claude` or `codex`, per `runtime`): a path or a name on `PATH`. */
  readonly executable: string;
  /** Codex only: the operator's `codex-config` pairs (`-c KEY=VALUE`). */
  readonly codexConfig?: readonly string[];
  readonly cwd: string;
  /** The complete child environment (built for a model child). */
  readonly env: Readonly<Record<string, string>>;
  readonly model?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The model calls the run was handed; default {@link MODEL_CALLS} (the real CLIs). */
  readonly calls?: ModelCalls;
}

/** Who asks (its name in the words of a failure, and the call's label), what, and under which ceiling. */
export interface ReadOnlyCallOptions extends ReadOnlyCaller {
  readonly who: "planner" | "assessor";
  readonly prompt: string;
  /** The tool ceiling (`plannerPolicy()`, `assessorPolicy()`); the permission mode is always `plan`. */
  readonly policy: ToolPolicy;
}

/**
 * One call's bill, for the ledger's totals: the session (claude) or thread (codex) id, `null` when none
 * was seen; `costUsd: null` = unknown (always on codex, which reports no USD: never `$0`, SPEC §6);
 * tokens in the ledger's convention; duration in ms.
 */
export interface ModelCallBill {
  readonly sessionId: string | null;
  readonly costUsd: number | null;
  readonly usage: TokenUsage | null;
  readonly durationMs: number;
}

/**
 * The reply's text, or how the call ended without one: `spawn_failed` (every start failed; `detail` is the
 * last start's message), `no_result` (the CLI ended without a usable result; `detail` says why),
 * `timed_out`, `cancelled`, `failed` (the CLI reported an error or a non-zero exit; `detail` is its words,
 * `replyText` what it replied anyway), `no_reply` (codex completed without an agent message). The bill
 * and the failed starts before the last attempt are there either way.
 */
export type ReadOnlyReply =
  | {
      readonly ok: true;
      readonly text: string;
      readonly call: ModelCallBill;
      readonly failedStarts: readonly string[];
    }
  | {
      readonly ok: false;
      readonly ended: "spawn_failed" | "no_result" | "timed_out" | "cancelled" | "failed" | "no_reply";
      readonly detail: string;
      readonly replyText: string | null;
      readonly call: ModelCallBill;
      readonly failedStarts: readonly string[];
    };

/** Makes one read-only call. Never rejects for the CLI's own failures. */
export function askReadOnly(options: ReadOnlyCallOptions): Promise<ReadOnlyReply> {
  return options.runtime === "codex" ? askCodex(options) : askClaude(options);
}

/** What a call that ended without a completed result says: its kind and the words for it. */
function unfinished(
  outcome:
    | { readonly kind: "spawn_failed"; readonly message: string }
    | { readonly kind: "no_result"; readonly reason: string }
    | { readonly kind: "timed_out" | "cancelled" },
): { readonly ended: "spawn_failed" | "no_result" | "timed_out" | "cancelled"; readonly detail: string } {
  switch (outcome.kind) {
    case "spawn_failed":
      return { ended: "spawn_failed", detail: outcome.message };
    case "no_result":
      return { ended: "no_result", detail: outcome.reason };
    default:
      return { ended: outcome.kind, detail: outcome.kind === "timed_out" ? "timed out" : "cancelled" };
  }
}

/**
 * Why a read-only call produced no reply to read, in words naming who asked (`the planner call timed
 * out`, `could not start the assessor CLI …`).
 */
export function noReplyWords(
  o: Pick<ReadOnlyCallOptions, "who" | "executable">,
  reply: Extract<ReadOnlyReply, { ok: false }>,
): string {
  switch (reply.ended) {
    case "spawn_failed":
      return `could not start the ${o.who} CLI ${o.executable} (${START_ATTEMPTS} attempts, ${START_BACKOFF_MS} ms apart): ${reply.detail}`;
    case "timed_out":
      return `the ${o.who} call timed out`;
    case "cancelled":
      return `the ${o.who} call was cancelled`;
    case "no_reply":
      return `the ${o.who} call ${reply.detail}`;
    case "no_result":
    case "failed":
      return `the ${o.who} call failed: ${reply.detail}`;
    default:
      return unreachable(reply.ended);
  }
}

/**
 * claude's answer when it has no credential at all — none in its environment, no login of its own:
 * `Not logged in · Please run /login` (claude 2.1.332, an `is_error` result at $0: it never reached the
 * model API; test/runtime/fixtures/not-logged-in.jsonl).
 */
const NOT_LOGGED_IN = /^not logged in\b/i;

/**
 * Whether a read-only call ended because the claude CLI has no credential ({@link NOT_LOGGED_IN}): the
 * operator's setup, not a failed call — callers make it a usage error naming the credential and the fix
 * (`claudeNotLoggedInMessage`, `claude-runtime.ts`). Nothing was spent.
 */
export function endedNotLoggedIn(reply: ReadOnlyReply): boolean {
  return !reply.ok && reply.ended === "failed" && NOT_LOGGED_IN.test(reply.detail.trim());
}

/** The fields both CLIs' calls take alike: read-only (`plan`), the ceiling, where and how long. */
function callFields(o: ReadOnlyCallOptions) {
  return {
    label: o.who,
    executable: o.executable,
    prompt: o.prompt,
    permissionMode: "plan" as const,
    policy: o.policy,
    ...(o.model !== undefined ? { model: o.model } : {}),
    cwd: o.cwd,
    env: o.env,
    timeoutMs: o.timeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
  };
}

async function askClaude(o: ReadOnlyCallOptions): Promise<ReadOnlyReply> {
  const sessionId = randomUUID();
  const { outcome, failedStarts } = await withStartRetry(
    () => (o.calls ?? MODEL_CALLS).claude({ ...callFields(o), session: { kind: "fresh", sessionId } }),
    o.signal,
  );
  if (outcome.kind !== "completed") {
    const call = { sessionId, costUsd: null, usage: null, durationMs: outcome.durationMs };
    return { ok: false, ...unfinished(outcome), replyText: null, call, failedStarts };
  }
  const r = outcome.result;
  const call = {
    sessionId: r.sessionId,
    costUsd: r.totalCostUsd,
    usage: r.usage,
    durationMs: outcome.durationMs,
  };
  if (r.isError || outcome.exitCode !== 0) {
    const detail = r.failureDetail ?? `exit ${outcome.exitCode}`;
    return { ok: false, ended: "failed", detail, replyText: r.result, call, failedStarts };
  }
  return { ok: true, text: r.result ?? "", call, failedStarts };
}

async function askCodex(o: ReadOnlyCallOptions): Promise<ReadOnlyReply> {
  const { outcome, failedStarts } = await withStartRetry(
    () =>
      (o.calls ?? MODEL_CALLS).codex({
        ...callFields(o),
        session: { kind: "fresh" },
        ...(o.codexConfig !== undefined ? { config: o.codexConfig } : {}),
      }),
    o.signal,
  );
  if (outcome.kind !== "completed") {
    const threadId =
      outcome.kind === "timed_out"
        ? outcome.partial.threadId
        : outcome.kind === "spawn_failed"
          ? null
          : outcome.threadId;
    const call = { sessionId: threadId, costUsd: null, usage: null, durationMs: outcome.durationMs };
    return { ok: false, ...unfinished(outcome), replyText: null, call, failedStarts };
  }
  const r = outcome.result;
  // Codex reports no USD: the call's cost is unknown, never $0 (SPEC §6).
  const call = {
    sessionId: r.threadId,
    costUsd: null,
    usage: r.usage !== null ? codexTokenUsage(r.usage) : null,
    durationMs: outcome.durationMs,
  };
  if (r.isError || outcome.exitCode !== 0) {
    const detail = r.failureDetail ?? `exit ${outcome.exitCode}`;
    return { ok: false, ended: "failed", detail, replyText: r.reply, call, failedStarts };
  }
  if (r.agentMessages === 0) {
    return {
      ok: false,
      ended: "no_reply",
      detail: "completed without a reply (no agent message)",
      replyText: null,
      call,
      failedStarts,
    };
  }
  return { ok: true, text: r.reply ?? "", call, failedStarts };
}
