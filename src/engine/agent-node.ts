/**
 * The lifecycle of one agent node (SPEC §4), in order: interpolate → spawn the CLI → parse its output →
 * cheap predicates (`exit_zero`, `result_matches`) → the verify command (only if the node did not crash
 * and the cheap predicates passed) → save output → record PASS/FAIL with its qualifier.
 */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { qualifierFor } from "../evidence/qualifier.js";
import type { VerifyQueue } from "../evidence/verify.js";
import { type Pattern, searchPattern } from "../graph/pattern.js";
import { ignoredFilesWords, outsideWritesWords, verifyExitWords } from "../ledger/cells.js";
import type { FailCause, LedgerRow, TokenUsage, VerifyEvidence } from "../ledger/model.js";
import { unreachable } from "../ledger/unreachable.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ClaudePermissionMode } from "../runtime/claude-argv.js";
import { type ClaudeCallOutcome, invokeClaude } from "./invoke-claude.js";
import { outsideWrites } from "./outside-writes.js";
import type { RunDirectory } from "./run-dir.js";

/** What the engine needs to run one agent node; built from the graph by the caller. */
export interface AgentNodeSpec {
  readonly id: string;
  readonly prompt: string;
  readonly permissionMode: ClaudePermissionMode;
  readonly policy: ToolPolicy;
  readonly timeoutMs: number;
  readonly cwd: string;
  /** The repository root (git work tree): a file the model writes outside it is recorded on the row. */
  readonly repoRoot: string;
  readonly sink: boolean;
  readonly exitZero: boolean;
  /** RE2 pattern searched over the raw reply (Go `MatchString` semantics). */
  readonly resultMatches: Pattern | null;
  readonly verify: {
    readonly command: string;
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly expectExit: number;
    /** `output_matches`: RE2 pattern searched over the command's full combined output. */
    readonly outputMatches?: Pattern | null;
  } | null;
  /**
   * `fresh` (default): a new session whose id is minted here. `resume`: continue that session with
   * `--resume` (`handoff: session`, SPEC §4); the row's session is the one the CLI reports.
   */
  readonly session?: { readonly kind: "fresh" } | { readonly kind: "resume"; readonly sessionId: string };
  /** The node's `budget_usd` (USD, > 0): `--max-budget-usd` plus a post-hoc check of the reported cost. */
  readonly budgetUsd?: number | null;
}

/** Run-wide settings every node shares. */
export interface NodeContext {
  readonly claudeExecutable: string;
  readonly model?: string;
  /** Builds the model child's environment for one call (fresh HOME per CLI in the action). */
  readonly modelEnv: (nodeId: string) => Readonly<Record<string, string>>;
  readonly runDir: RunDirectory;
  readonly verifyQueue: VerifyQueue;
  readonly echo?: { readonly write: (text: string) => void; readonly fenceWorkflowCommands: boolean };
  /** Called once the session id is minted, before the spawn. */
  readonly onStarted?: (nodeId: string, sessionId: string) => void;
  readonly onVerifying?: (nodeId: string, command: string) => void;
}

/** A finished node: its ledger row and the reply text (for artifacts). */
export interface AgentNodeResult {
  readonly row: LedgerRow;
  readonly reply: string;
  /**
   * The failure was a judgment about the node's work — its reply did not match `result_matches`, or its
   * verify command ran and said no — so a retry may quote the reply (research §6.4, ADR 0020). False for
   * a pass and for every infrastructure failure (spawn, timeout, crash, budget, a verify that could not run).
   */
  readonly judged: boolean;
  /**
   * Set when the CLI failed with "hit your session limit" (SPEC §4): the run pauses rather than fails.
   * `resetsAt` is the reset time as the CLI wrote it (never parsed), `null` when it gave none.
   */
  readonly sessionLimit: { readonly resetsAt: string | null } | null;
}

interface CallFacts {
  sessionId: string | null;
  costUsd: number | null;
  usage: TokenUsage | null;
  numTurns: number | null;
  denied: number;
  /** The paths the model's file-writing tool calls named (relative ones against the node's cwd). */
  writtenPaths: readonly string[];
  durationMs: number;
  reply: string;
}

function factsOf(outcome: ClaudeCallOutcome, sessionId: string): CallFacts {
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
    };
  }
  // A call that ended without a result still shows the denials its stream carried before it stopped.
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

/** Runs one agent node and returns its ledger row. Never throws for the node's own failures. */
export async function runAgentNode(
  spec: AgentNodeSpec,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<AgentNodeResult> {
  const session = spec.session ?? { kind: "fresh" };
  const sessionId = session.kind === "resume" ? session.sessionId : randomUUID();
  ctx.onStarted?.(spec.id, sessionId);
  const budgetUsd = spec.budgetUsd ?? null;
  const outcome = await invokeClaude({
    executable: ctx.claudeExecutable,
    prompt: spec.prompt,
    permissionMode: spec.permissionMode,
    policy: spec.policy,
    session: { kind: session.kind, sessionId },
    ...(budgetUsd !== null ? { budgetUsd } : {}),
    ...(ctx.model !== undefined ? { model: ctx.model } : {}),
    cwd: spec.cwd,
    env: ctx.modelEnv(spec.id),
    timeoutMs: spec.timeoutMs,
    signal,
    ...(ctx.echo ? { echo: ctx.echo } : {}),
  });
  const facts = factsOf(outcome, sessionId);
  // Writes outside the repository escape the evidence tree: recorded on the row whatever its verdict.
  const outside = outsideWrites(facts.writtenPaths, { cwd: spec.cwd, repoRoot: spec.repoRoot });
  const outsideWords = outsideWritesWords(outside);
  const base = {
    nodeId: spec.id,
    sessionId: facts.sessionId,
    costUsd: facts.costUsd,
    durationMs: facts.durationMs,
    deniedToolCalls: facts.denied,
    usage: facts.usage,
    numTurns: facts.numTurns,
    sink: spec.sink,
    ...(outside !== undefined ? { outsideWrites: outside } : {}),
  };
  const fail = (
    cause: FailCause,
    detail: string,
    verify?: VerifyEvidence,
    judged = false,
    sessionLimit: AgentNodeResult["sessionLimit"] = null,
  ): AgentNodeResult => {
    writeFileSync(ctx.runDir.failedOutputPath(spec.id), facts.reply);
    return {
      row: {
        ...base,
        verdict: "FAIL",
        cause,
        detail: outsideWords !== null ? `${detail}; ${outsideWords}` : detail,
        ...(verify ? { verify } : {}),
        // A session-limit pause is not the node's failure: a later leg re-runs the node (SPEC §4).
        ...(sessionLimit !== null ? { superseded: true } : {}),
      },
      reply: facts.reply,
      judged,
      sessionLimit,
    };
  };

  switch (outcome.kind) {
    case "spawn_failed":
      return fail("run_error", `could not start ${ctx.claudeExecutable}: ${outcome.message}`);
    case "cancelled":
      return fail("cancelled", "cancelled");
    case "timed_out":
      return fail("timeout", `killed after its timeout of ${Math.round(outcome.timeoutMs / 1000)}s`);
    case "no_result":
      return fail(
        "output_error",
        `${outcome.reason}${outcome.stderrTail ? ` — stderr: ${lastLine(outcome.stderrTail)}` : ""}`,
      );
    case "completed":
      break;
    default:
      return unreachable(outcome);
  }
  const r = outcome.result;
  if (r.isError && r.sessionLimit !== null) {
    const resetsAt = r.sessionLimit.resetsAt ?? null;
    return fail(
      "run_error",
      `paused: the model's session limit was reached${resetsAt !== null ? ` (resets ${resetsAt})` : ""}; resume with --retry-failed`,
      undefined,
      false,
      { resetsAt },
    );
  }
  if (r.isError && r.budgetExhausted) {
    // The CLI stopped itself at --max-budget-usd: the row names both amounts, like the post-hoc check.
    const spent = facts.costUsd !== null ? `$${facts.costUsd.toFixed(4)}` : "an unknown cost";
    const limit = budgetUsd !== null ? `$${budgetUsd.toFixed(4)}` : "its --max-budget-usd";
    return fail(
      "budget_exceeded",
      `exceeded budget_usd: ${spent} vs ${limit} — claude stopped at --max-budget-usd (${oneLine(r.failureDetail ?? r.subtype)})`,
    );
  }
  if (r.isError) {
    const why = r.failureDetail ?? r.subtype;
    return fail("run_error", `claude reported is_error (exit ${outcome.exitCode}): ${oneLine(why)}`);
  }
  if (outcome.exitCode !== 0) {
    return fail("nonzero_exit", `claude exited ${outcome.exitCode}`);
  }
  const reply = r.result ?? "";
  if (spec.resultMatches && !searchPattern(spec.resultMatches, reply)) {
    return fail(
      "result_mismatch",
      `reply does not match /${spec.resultMatches.source}/: ${oneLine(reply).slice(0, 200)}`,
      undefined,
      true,
    );
  }
  let verify: VerifyEvidence | undefined;
  if (spec.verify) {
    const stopped = `cancelled before its verify command \`${spec.verify.command}\` finished`;
    if (signal.aborted) return fail("cancelled", stopped);
    ctx.onVerifying?.(spec.id, spec.verify.command);
    // The node's signal reaches the verify too: `on_fail: halt` and a cancelled run stop a running build
    // (SPEC §4), instead of waiting for it and then recording a PASS for a halted sibling.
    verify = await ctx.verifyQueue.run({
      nodeId: spec.id,
      command: spec.verify.command,
      cwd: spec.verify.cwd,
      timeoutMs: spec.verify.timeoutMs,
      expectExit: spec.verify.expectExit,
      outputMatches: spec.verify.outputMatches ?? null,
      signal,
    });
    // A build stopped by the signal is not evidence about the tree either way: the row says cancelled.
    if (verify.outcome !== "passed" && signal.aborted) return fail("cancelled", stopped);
    if (verify.outcome !== "passed") {
      const detail = `verify \`${verify.command}\` ${verifyExitWords(verify)}`;
      // Only a command that ran and said no is a judgment; one that timed out or could not start is not.
      return fail("verify_failed", detail, verify, verify.outcome === "failed");
    }
  }
  writeFileSync(ctx.runDir.nodeOutputPath(spec.id), reply);
  // Post-hoc budget check (research §5.8): the output is kept, the node fails. Strictly greater.
  if (budgetUsd !== null && facts.costUsd !== null && facts.costUsd > budgetUsd) {
    return fail(
      "budget_exceeded",
      `exceeded budget_usd: $${facts.costUsd.toFixed(4)} vs $${budgetUsd.toFixed(4)} (over by $${(facts.costUsd - budgetUsd).toFixed(4)})`,
      verify,
    );
  }
  const qualifier = qualifierFor({
    gateApproved: false,
    verifyRan: verify ? { passed: true } : null,
    resultMatchesChecked: spec.resultMatches !== null,
    exitZeroChecked: spec.exitZero,
  });
  // The row stays PASS (verified) — the command did pass — but says when it ran on changed ignored files.
  const ignored = ignoredFilesWords(verify);
  const detail = verify
    ? `verify \`${verify.command}\` exited ${verify.exitCode}${verify.reusedFrom ? ` (result reused from "${verify.reusedFrom}": same tree, same command)` : ""}${ignored !== null ? `; ${ignored}` : ""}`
    : spec.resultMatches
      ? `reply matched /${spec.resultMatches.source}/`
      : "exited 0";
  return {
    row: {
      ...base,
      verdict: "PASS",
      qualifier,
      detail: outsideWords !== null ? `${detail}; ${outsideWords}` : detail,
      ...(verify ? { verify } : {}),
    },
    reply,
    judged: false,
    sessionLimit: null,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return oneLine(lines[lines.length - 1] ?? "");
}
