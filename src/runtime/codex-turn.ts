/**
 * The `codex exec` call of one agent node and what it means for the row (SPEC §4 "Codex CLI";
 * research/oh-my-graph.md §5.3–§5.8): the session is the thread id codex prints (`onStarted` gets `null`
 * for a fresh thread, `onSession` the id once it arrives); `handoff: session` resumes the thread in the
 * `CODEX_HOME` that started it; cost is always unknown (codex reports no USD); usage is this call's share
 * of the thread's cumulative count; `turn.failed` is `run_error` even on exit 0; a completed turn without
 * an agent message is `output_error`; a turn that failed at the model's usage limit ("You’ve hit your
 * usage limit", a 429 `usage_limit_reached`; codex-stream.ts) pauses the run like claude's session limit.
 */
import { join } from "node:path";
import type { FailCause, TokenUsage } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import {
  type AgentTurn,
  type CallFacts,
  type CallFailure,
  type CallReport,
  callFailure,
  limitPause,
  NO_CALL,
  oneLine,
  sessionLostFailure,
  unfinishedCall,
} from "./agent-turn.js";
import { codexPromptProblem, isCodexThreadId } from "./codex-argv.js";
import { codexTokenUsage, usageSince } from "./codex-usage.js";
import { planOfCodexTodos } from "./declared-plan.js";
import type { CodexCallOutcome } from "./invoke-codex.js";

/**
 * The `CODEX_HOME` an environment gives codex: `CODEX_HOME`, else `$HOME/.codex` (codex's default), else
 * `null` (codex would then fail to find a home).
 */
export function codexHomeOf(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env.CODEX_HOME !== undefined && env.CODEX_HOME !== "") return env.CODEX_HOME;
  return env.HOME !== undefined && env.HOME !== "" ? join(env.HOME, ".codex") : null;
}

/**
 * Runs the node's codex call through `turn.calls` and folds its outcome. A prompt
 * codex cannot take, or a resumed session that is not a codex thread id, fails before anything is spawned
 * (nothing spent: cost 0).
 *
 * @returns the row's facts, the call's failure (`null` when the node may go on to its checks) and the
 *   thread it reached. Never rejects for the CLI's own failures.
 */
export async function codexTurn(turn: AgentTurn, signal: AbortSignal): Promise<CallReport> {
  const session = turn.session;
  const resumed = session.kind === "resume" ? session : null;
  const nothingRan = (cause: FailCause, detail: string): CallReport => ({
    facts: { ...NO_CALL, sessionId: resumed?.sessionId ?? null },
    failure: callFailure(cause, detail),
  });
  const promptProblem = codexPromptProblem(turn.prompt);
  if (promptProblem !== null)
    return nothingRan("run_error", `codex cannot run this prompt: ${promptProblem}`);
  if (resumed !== null && !isCodexThreadId(resumed.sessionId)) {
    return nothingRan(
      "run_error",
      `handoff: session cannot resume "${resumed.sessionId}": it is not a codex thread id (was the parent run on claude?)`,
    );
  }
  turn.onStarted?.(resumed?.sessionId ?? null);
  const executable = turn.executable;
  const baseEnv = turn.modelEnv();
  // A thread lives in the CODEX_HOME that started it: a resumed call runs there, whatever home this call
  // was given (the action gives each call a fresh one).
  const env =
    resumed?.codexHome !== undefined && codexHomeOf(baseEnv) !== resumed.codexHome
      ? { ...baseEnv, CODEX_HOME: resumed.codexHome }
      : baseEnv;
  const home = codexHomeOf(env);
  const outcome = await turn.calls.codex({
    label: turn.nodeId,
    executable,
    prompt: turn.prompt,
    permissionMode: turn.permissionMode,
    policy: turn.policy,
    session: resumed !== null ? { kind: "resume", threadId: resumed.sessionId } : { kind: "fresh" },
    ...(turn.model !== undefined ? { model: turn.model } : {}),
    ...(turn.codexConfig !== undefined ? { config: turn.codexConfig } : {}),
    cwd: turn.cwd,
    env,
    timeoutMs: turn.timeoutMs,
    signal,
    ...(turn.echo ? { echo: turn.echo } : {}),
    ...(resumed === null ? { onThreadStarted: (threadId: string) => turn.onSession?.(threadId) } : {}),
    ...(turn.completion?.planTool === true ? { planTool: true } : {}),
  });
  const facts = codexFactsOf(outcome, resumed?.sessionId ?? null, resumed?.threadUsage ?? null);
  const report = (f: CallFailure | null, usage: TokenUsage | null = null): CallReport => ({
    facts,
    failure: f,
    ...(facts.sessionId !== null ? { codexThread: { usage, home } } : {}),
  });
  const lost =
    resumed !== null && turn.completion?.continuing === true ? lostThread(outcome, resumed.sessionId) : null;
  if (lost !== null) return report(sessionLostFailure("codex", resumed?.sessionId ?? "", lost));
  if (outcome.kind !== "completed") return report(unfinishedCall(outcome, executable));
  const r = outcome.result;
  const cumulative = r.usage !== null ? codexTokenUsage(r.usage) : null;
  // The usage limit pauses (SPEC §4), as claude's session limit does; oh-my-graph left it an ordinary
  // failure on codex (research §5.6). A rate limit codex gave up retrying stays a failure.
  if (r.usageLimit !== null) {
    const resetsAt = r.usageLimit.resetsAt ?? null;
    return report(limitPause("usage", resetsAt));
  }
  if (r.isError) {
    const why = r.failureDetail ?? "codex reported turn.failed";
    return report(
      callFailure("run_error", `codex reported turn.failed (exit ${outcome.exitCode}): ${oneLine(why)}`),
    );
  }
  if (outcome.exitCode !== 0)
    return report(callFailure("nonzero_exit", `codex exited ${outcome.exitCode}`), cumulative);
  if (r.agentMessages === 0) {
    return report(
      callFailure("output_error", "codex completed its turn without an agent message (no reply to judge)"),
      cumulative,
    );
  }
  return report(null, cumulative);
}

/**
 * What codex said when `exec … resume ID` found no such thread (0.169.0: exit 1, nothing on stdout,
 * "thread/resume failed: no rollout found for thread id ID" on stderr), or that it answered in another
 * thread than the one resumed; `null` when the thread was found.
 */
function lostThread(outcome: CodexCallOutcome, threadId: string): string | null {
  if (outcome.kind === "no_result" && /no rollout found for thread id/i.test(outcome.stderrTail)) {
    const line = outcome.stderrTail.split("\n").find((l) => /no rollout found/i.test(l));
    return line ?? "no rollout found for thread id";
  }
  if (outcome.kind === "completed" && outcome.result.threadId !== threadId)
    return `codex answered in thread ${outcome.result.threadId}`;
  return null;
}

/**
 * The row's facts of one codex call. `sessionId` is the thread id (`thread.started`, else the resumed
 * id); cost is always `null` (codex reports no USD); usage is this call's share of the thread's count;
 * codex has no permission denials (a sandbox-blocked command reaches only the model), so `denied` is 0;
 * written paths are the apply_patch changes the stream showed (shell commands' writes are not visible).
 */
function codexFactsOf(
  outcome: CodexCallOutcome,
  resumedId: string | null,
  before: TokenUsage | null,
): CallFacts {
  const unknown = { costUsd: null, numTurns: null, denied: 0, durationMs: outcome.durationMs };
  switch (outcome.kind) {
    case "completed": {
      const r = outcome.result;
      return {
        ...unknown,
        sessionId: r.threadId,
        usage: r.usage !== null ? usageSince(codexTokenUsage(r.usage), before) : null,
        writtenPaths: r.writtenPaths,
        reply: r.reply ?? "",
        plan: planOfCodexTodos(r.todos),
      };
    }
    case "spawn_failed":
      return { ...unknown, sessionId: resumedId, usage: null, writtenPaths: [], reply: "" };
    case "timed_out":
      return {
        ...unknown,
        sessionId: outcome.partial.threadId ?? resumedId,
        usage: null,
        writtenPaths: outcome.partial.writtenPaths,
        reply: "",
      };
    case "no_result":
    case "cancelled":
      return {
        ...unknown,
        sessionId: outcome.threadId ?? resumedId,
        usage: null,
        writtenPaths: outcome.writtenPaths,
        reply: "",
      };
    default:
      return unreachable(outcome);
  }
}
