/**
 * The `claude -p` call of one agent node and what it means for the row (SPEC §4 "Claude CLI"): the
 * session id is minted and published before the spawn (or resumed), `is_error: true` is a failure even on
 * exit 0, "hit your session limit" pauses the run, `--max-budget-usd` stops the CLI itself, and a resumed
 * session's cost is this call's share of the session's cumulative cost.
 */
import { randomUUID } from "node:crypto";
import {
  type AgentTurn,
  type CallFacts,
  type CallFailure,
  type CallReport,
  callFailure,
  limitPause,
  oneLine,
  sessionLostFailure,
  unfinishedCall,
} from "./agent-turn.js";
import { planOfClaudeTodos } from "./declared-plan.js";
import type { ClaudeCallOutcome } from "./invoke-claude.js";

/**
 * Runs the node's claude call through `turn.calls` and folds its outcome.
 *
 * @returns the row's facts and the call's failure (`null` when the node may go on to its checks); cost in
 *   USD, `null` when claude reported none. Never rejects for the CLI's own failures.
 */
export async function claudeTurn(turn: AgentTurn, signal: AbortSignal): Promise<CallReport> {
  const session = turn.session;
  const sessionId = session.kind === "resume" ? session.sessionId : randomUUID();
  turn.onStarted?.(sessionId);
  const budgetUsd = turn.budgetUsd;
  // `--max-budget-usd` bounds one process's spend (measured on 2.1.332: a resumed call given $0.001 ran
  // on a session that had spent $0.0016), so a completion attempt gets what its earlier attempts left.
  const cliBudgetUsd = budgetUsd !== null ? budgetUsd - (turn.completion?.spentUsd ?? 0) : null;
  // As root (as CI runs) claude refuses bypassPermissions unless IS_SANDBOX=1 (SPEC §9): set for this
  // node's call only — never in the engine's own environment, so no verify command or other node gets it.
  const env =
    turn.permissionMode === "bypassPermissions" ? { ...turn.modelEnv(), IS_SANDBOX: "1" } : turn.modelEnv();
  const outcome = await turn.calls.claude({
    label: turn.nodeId,
    executable: turn.executable,
    prompt: turn.prompt,
    permissionMode: turn.permissionMode,
    policy: turn.policy,
    session: { kind: session.kind, sessionId },
    ...(cliBudgetUsd !== null && cliBudgetUsd > 0 ? { budgetUsd: cliBudgetUsd } : {}),
    ...(turn.model !== undefined ? { model: turn.model } : {}),
    cwd: turn.cwd,
    // 2.1.332 offers TodoWrite only with both switches (measured; claude-stream.ts): a gate reading todos.
    env:
      turn.completion?.planTool === true
        ? { ...env, CLAUDE_CODE_ENABLE_TASKS: "false", CLAUDE_CODE_ENABLE_TODO_TOOLS: "true" }
        : env,
    timeoutMs: turn.timeoutMs,
    signal,
    ...(turn.echo ? { echo: turn.echo } : {}),
  });
  const facts = claudeFactsOf(outcome, sessionId);
  // `--resume` reports the whole session's cost: this call's is the difference (unknown if either is).
  const sessionCostUsd = facts.costUsd;
  if (session.kind === "resume") {
    const before = session.sessionCostUsd ?? null;
    facts.costUsd = sessionCostUsd !== null && before !== null ? Math.max(0, sessionCostUsd - before) : null;
  }
  const report = (f: CallFailure | null): CallReport => ({ facts, failure: f, sessionCostUsd });
  if (outcome.kind !== "completed") return report(unfinishedCall(outcome, turn.executable));
  const lost = turn.completion?.continuing === true ? lostSession(outcome) : null;
  if (lost !== null) return report(sessionLostFailure("claude", sessionId, lost));
  return report(completedFailure(outcome, facts, budgetUsd));
}

/** What claude said when `--resume` found no such session (2.1.332: `errors`, is_error, exit 1), else null. */
function lostSession(outcome: Extract<ClaudeCallOutcome, { kind: "completed" }>): string | null {
  const r = outcome.result;
  if (!r.isError) return null;
  return r.errors.find((e) => /No conversation found with session ID/i.test(e)) ?? null;
}

/** Why a claude call that reached its result event still fails the node; `null` when it does not. */
function completedFailure(
  outcome: Extract<ClaudeCallOutcome, { kind: "completed" }>,
  facts: CallFacts,
  budgetUsd: number | null,
): CallFailure | null {
  const r = outcome.result;
  // Every form the parser recognises pauses (claude-result.ts): an error result, or the notice as the reply.
  if (r.sessionLimit !== null) {
    return limitPause("session", r.sessionLimit.resetsAt ?? null);
  }
  if (r.isError && r.budgetExhausted) {
    // The CLI stopped itself at --max-budget-usd: the row names both amounts, like the post-hoc check.
    const spent = facts.costUsd !== null ? `$${facts.costUsd.toFixed(4)}` : "an unknown cost";
    const limit = budgetUsd !== null ? `$${budgetUsd.toFixed(4)}` : "its --max-budget-usd";
    return callFailure(
      "budget_exceeded",
      `exceeded budget_usd: ${spent} vs ${limit} — claude stopped at --max-budget-usd (${oneLine(r.failureDetail ?? r.subtype)})`,
    );
  }
  if (r.isError) {
    const why = r.failureDetail ?? r.subtype;
    return callFailure("run_error", `claude reported is_error (exit ${outcome.exitCode}): ${oneLine(why)}`);
  }
  if (outcome.exitCode !== 0) return callFailure("nonzero_exit", `claude exited ${outcome.exitCode}`);
  return null;
}

/**
 * The row's facts of one claude call. A call that ended without a result still shows the denials and
 * written paths its stream carried before it stopped; its cost, usage and turns are unknown (`null`).
 */
function claudeFactsOf(outcome: ClaudeCallOutcome, sessionId: string): CallFacts {
  if (outcome.kind === "completed") {
    const r = outcome.result;
    return {
      sessionId: r.sessionId,
      costUsd: r.totalCostUsd,
      usage: r.usage,
      numTurns: r.numTurns,
      denied: r.deniedToolCalls,
      writtenPaths: r.writtenPaths,
      durationMs: outcome.durationMs,
      reply: r.result ?? "",
      plan: planOfClaudeTodos(r.todos),
    };
  }
  const seen =
    outcome.kind === "timed_out"
      ? outcome.partial
      : outcome.kind === "spawn_failed"
        ? { deniedToolCalls: 0, writtenPaths: [] }
        : outcome;
  return {
    sessionId,
    costUsd: null,
    usage: null,
    numTurns: null,
    denied: seen.deniedToolCalls,
    writtenPaths: seen.writtenPaths,
    durationMs: outcome.durationMs,
    reply: "",
  };
}
