/**
 * The lifecycle of one agent node (SPEC §4), in order: spawn the CLI → parse its output → cheap
 * predicates (`exit_zero`, `result_matches`) → the verify command (only if the node did not crash and the
 * cheap predicates passed) → save output → the PASS/FAIL row with its qualifier. Interpolation comes
 * before (the interpolate step, below), recording after (`node-settlement.ts`).
 *
 * Runtime-neutral: the "spawn and parse" step is the run's runtime's agent turn (`ModelRuntime.agentTurn`:
 * `runtime/claude-turn.ts` runs `claude -p`, `runtime/codex-turn.ts` runs `codex exec`), made through the
 * model calls the run was handed (`NodeContext.calls`; default the real CLIs) and folded into the same
 * `CallReport`; everything after it is shared, and this file never asks which runtime it is. What differs
 * on codex (the thread as session, unknown cost, `--sandbox`, `turn.failed`, the usage limit) is said
 * where it is done, in `codex-turn.ts` and `codex-argv.ts`.
 *
 * One module, read top to bottom: what the engine hands a node (its spec and the run-wide context), the
 * interpolate step (its fields, directories checked), then the call and the checks ({@link runAgentNode}).
 */

import { existsSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type {
  FailCause,
  LedgerRow,
  PassRow,
  RowClaim,
  TokenUsage,
  VerifyEvidence,
} from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import { claimsField } from "../evidence/node-claims.js";
import { qualifierFor } from "../evidence/qualifier.js";
import type { VerifyQueue } from "../evidence/verify.js";
import type { GraphNode } from "../graph/graph.js";
import { type Pattern, searchPattern } from "../graph/pattern.js";
import { type InterpolationContext, interpolate } from "../graph/placeholders.js";
import { ignoredFilesWords, outsideWritesWords, verifyExitWords } from "../ledger/cells.js";
import type { Runtime } from "../policy/disclosure.js";
import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ChildEcho } from "../proc/child-output.js";
import { type AgentTurn, type CallReport, type CompletionCall, oneLine } from "../runtime/agent-turn.js";
import type { ClaudePermissionMode } from "../runtime/claude-argv.js";
import type { DeclaredPlan } from "../runtime/declared-plan.js";
import { MODEL_CALLS, type ModelCalls } from "../runtime/model-calls.js";
import type { ResumedSession } from "../runtime/model-runtime.js";
import { runtimeFor } from "../runtime/runtime-for.js";
import { liesInRepository, outsideWrites } from "./outside-writes.js";
import type { RunDirectory } from "./run-dir.js";
import type { ModelEnvBuilder } from "./runtime-setup.js";

/* ──
 * What the engine hands the lifecycle of one agent node (SPEC §4): the node's own settings, already
 * interpolated ({@link AgentNodeSpec}), and the run-wide settings every node shares ({@link NodeContext}).
 * {@link runAgentNode} runs it; the caller (`node-settlement.ts`) builds it from the graph.
 */

/** What the engine needs to run one agent node; built from the graph by the caller. Times in ms. */
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
   * `fresh` (default): a new session (claude: its id is minted here; codex: codex mints the thread id).
   * `resume`: continue that session (`--resume ID` / `exec … resume ID`; `handoff: session`, SPEC §4); the
   * row's session is the one the CLI reports.
   */
  readonly session?: { readonly kind: "fresh" } | ResumedSession;
  /**
   * The node's `budget_usd` (USD, > 0). Claude: `--max-budget-usd` plus a post-hoc check of the reported
   * cost. Codex: ignored (codex reports no USD; the run warned at start, `runtimeWarnings`).
   */
  readonly budgetUsd?: number | null;
  /** Set for a node with a completion gate (SPEC §7): what this attempt needs beyond an ordinary call. */
  readonly completion?: CompletionCall;
}

/** What one completion-gate attempt asks of its call (re-exported from `runtime/agent-turn.ts`). */
export type { CompletionCall };

/** The verify runner a node needs: the run-wide queue (`VerifyQueue`), or a scripted one in unit tests. */
export type NodeVerifier = Pick<VerifyQueue, "run">;

/** Run-wide settings every node shares. */
export interface NodeContext {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  readonly claudeExecutable: string;
  /** Path or name of the `codex` executable (default `codex`); used when `runtime` is `codex`. */
  readonly codexExecutable?: string;
  /**
   * The operator's `codex-config` pairs (`KEY=VALUE`, already checked with `parseCodexConfig`), passed as
   * `-c PAIR` on every codex call, before (so never over) the engine's own boundary flags (SPEC §10).
   */
  readonly codexConfig?: readonly string[];
  /** `--model` (claude) / `-m` (codex). */
  readonly model?: string;
  /** Builds the model child's environment for one call (fresh HOME per CLI in the action). */
  readonly modelEnv: ModelEnvBuilder;
  readonly runDir: RunDirectory;
  readonly verifyQueue: NodeVerifier;
  /** The model calls the run was handed; default `MODEL_CALLS` (`runtime/model-calls.ts`): the real CLIs. */
  readonly calls?: ModelCalls;
  readonly echo?: ChildEcho;
  /**
   * Called once before the spawn with the session id when it is known then: minted (claude), resumed
   * (either runtime), or `null` for a fresh codex thread (its id arrives with `onSession`).
   */
  readonly onStarted?: (nodeId: string, sessionId: string | null) => void;
  /** Codex, fresh thread: called once `thread.started` arrives, while the process still runs. */
  readonly onSession?: (nodeId: string, sessionId: string) => void;
  readonly onVerifying?: (nodeId: string, command: string) => void;
}

/* ──
 * The interpolate step of a node's lifecycle (SPEC §3 "Placeholders", §4): its prompt, cwd, verify command,
 * verify cwd and completion command with `{{ inputs.NAME }}`, `{{ artifacts.ID }}`, `{{ artifacts.ID | inline }}` and
 * `{{ feedback.ID }}` resolved, and the two directories checked to be folders inside the repository.
 * A field that cannot be resolved, or a directory that cannot be a node's, fails the node with a
 * `run_error` and no retry (research/oh-my-graph.md §2.4) — nothing is spawned.
 */

/** A node's fields as its executions use them: resolved text and absolute directories. Times in ms. */
export interface NodeFields {
  readonly prompt: string;
  /** The node's directory: `cwd` resolved against the run's working directory (that directory if unset). */
  readonly cwd: string;
  /** `success_check.verify` with its command resolved and its cwd resolved against {@link cwd}. */
  readonly verify: AgentNodeSpec["verify"];
  /** `completion.verify.command` resolved (it runs in {@link cwd}); absent when the node's gate has none. */
  readonly completionCommand?: string;
}

/** The fields, or why the node cannot run (the FAIL row's detail, naming the field). */
export type NodeFieldsResult =
  | { readonly ok: true; readonly fields: NodeFields }
  | { readonly ok: false; readonly detail: string };

/** Where a node runs: the repository root (git work tree) and the run's working directory inside it. */
export interface NodeDirectories {
  readonly repoDir: string;
  readonly workDir: string;
}

/**
 * Resolves `node`'s fields against `values` and checks its directories.
 *
 * In the verify and completion commands every substituted value is one shell word, single-quoted ({@link shellQuote}): an
 * input value or a model's reply (`| inline`, `{{ feedback.ID }}`) cannot add shell syntax to the command
 * the engine runs as its evidence (`a; touch /tmp/x` stays the argument `'a; touch /tmp/x'`).
 *
 * @returns the fields, or the first problem in the order prompt, cwd, verify command, verify cwd, then
 *   the node's directory, then the verify's directory.
 */
export function nodeFields(
  node: GraphNode,
  values: InterpolationContext,
  dirs: NodeDirectories,
): NodeFieldsResult {
  const verify = node.success_check.verify;
  const quoted = shellWords(values);
  const texts = {
    prompt: interpolated("prompt", node.prompt, values),
    cwd: node.cwd === null ? null : interpolated("cwd", node.cwd, values),
    verifyCommand: verify ? interpolated("success_check.verify.command", verify.command, quoted) : null,
    verifyCwd: verify?.cwd != null ? interpolated("success_check.verify.cwd", verify.cwd, values) : null,
    completionCommand:
      node.completion?.verify.kind === "command"
        ? interpolated("completion.verify.command", node.completion.verify.command, quoted)
        : null,
  };
  const failure = Object.values(texts).find((v): v is Unresolved => v !== null && typeof v === "object");
  if (failure !== undefined) return { ok: false, detail: failure.error };
  const resolved = texts as { readonly [K in keyof typeof texts]: Exclude<(typeof texts)[K], Unresolved> };
  const cwd = resolved.cwd === null ? dirs.workDir : resolve(dirs.workDir, resolved.cwd);
  const verifyCwd = resolved.verifyCwd === null ? cwd : resolve(cwd, resolved.verifyCwd);
  const problem =
    directoryProblem(cwd, dirs.repoDir, "cwd") ??
    (verify ? directoryProblem(verifyCwd, dirs.repoDir, "success_check.verify.cwd") : null);
  if (problem !== null) return { ok: false, detail: problem };
  return {
    ok: true,
    fields: {
      prompt: resolved.prompt,
      cwd,
      verify:
        verify && resolved.verifyCommand !== null
          ? {
              command: resolved.verifyCommand,
              cwd: verifyCwd,
              timeoutMs: verify.timeout_ms,
              expectExit: verify.expect_exit,
              outputMatches: verify.output_matches,
            }
          : null,
      ...(resolved.completionCommand !== null ? { completionCommand: resolved.completionCommand } : {}),
    },
  };
}

/** `value` as one POSIX shell word: single-quoted, each `'` written `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** A field whose placeholders did not resolve: the message names the field. */
interface Unresolved {
  readonly error: string;
}

function interpolated(what: string, template: string, ctx: InterpolationContext): string | Unresolved {
  const result = interpolate(template, ctx);
  return result.ok ? result.text : { error: `${what}: ${result.message}` };
}

/** `values` with every value one shell word. */
function shellWords(values: InterpolationContext): InterpolationContext {
  const quote = (value: string | undefined): string | undefined =>
    value === undefined ? undefined : shellQuote(value);
  return {
    inputs: Object.fromEntries(Object.entries(values.inputs).map(([k, v]) => [k, shellQuote(v)])),
    artifactPath: (ref) => quote(values.artifactPath(ref)),
    readArtifact: (ref) => quote(values.readArtifact(ref)),
    feedback: (ref) => quote(values.feedback(ref)),
  };
}

/** Why `dir` cannot be a node's directory (missing, not a folder, outside the repository); `null` if fine. */
function directoryProblem(dir: string, repoDir: string, field: string): string | null {
  if (!liesInRepository(dir, { cwd: repoDir, repoRoot: repoDir })) {
    return `${field} ${dir} is outside the repository ${repoDir}: a node runs inside the repository whose tree is the evidence`;
  }
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return `${field} ${dir} is not a folder`;
  return null;
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
   * Set when the CLI failed at the model's limit — claude's "hit your session limit", codex's "hit your
   * usage limit" (SPEC §4): the run pauses rather than fails.
   * `resetsAt` is the reset time as the CLI wrote it (never parsed), `null` when it gave none.
   */
  readonly sessionLimit: { readonly resetsAt: string | null } | null;
  /**
   * Codex, when the call reached a thread: the thread's cumulative usage after it (`null` when codex
   * reported none, e.g. `turn.failed`) and the `CODEX_HOME` it lives in, for a child that resumes it.
   */
  readonly codexThread?: { readonly usage: TokenUsage | null; readonly home: string | null };
  /** Claude: the session's cumulative cost after this call, as reported (`null`: not reported). */
  readonly sessionCostUsd?: number | null;
  /** The latest plan the call declared (a completion gate's `todos: all_done` reads it); absent: none. */
  readonly plan?: DeclaredPlan;
  /** A continuing completion attempt whose session the CLI no longer found (never replaced; SPEC §7). */
  readonly sessionLost?: true;
}

/** The agent turn of `spec` with the run-wide settings of `ctx` (the runtime resolves the executable). */
function turnOf(spec: AgentNodeSpec, ctx: NodeContext): AgentTurn {
  const runtime = runtimeFor(ctx.runtime ?? "claude");
  return {
    nodeId: spec.id,
    prompt: spec.prompt,
    permissionMode: spec.permissionMode,
    policy: spec.policy,
    cwd: spec.cwd,
    timeoutMs: spec.timeoutMs,
    session: spec.session ?? { kind: "fresh" },
    budgetUsd: spec.budgetUsd ?? null,
    ...(spec.completion !== undefined ? { completion: spec.completion } : {}),
    executable: runtime.executable(ctx),
    ...(ctx.codexConfig !== undefined ? { codexConfig: ctx.codexConfig } : {}),
    ...(ctx.model !== undefined ? { model: ctx.model } : {}),
    modelEnv: () => ctx.modelEnv(spec.id, runtime.name),
    calls: ctx.calls ?? MODEL_CALLS,
    ...(ctx.echo ? { echo: ctx.echo } : {}),
    ...(ctx.onStarted ? { onStarted: (id: string | null) => ctx.onStarted?.(spec.id, id) } : {}),
    ...(ctx.onSession ? { onSession: (id: string) => ctx.onSession?.(spec.id, id) } : {}),
  };
}

/**
 * Runs one agent node and returns its ledger row. A FAIL saves the reply to `failed/ID.out`, a PASS to
 * `nodes/ID.out` (a post-hoc budget failure keeps it there too). Costs in USD, durations in ms.
 *
 * @returns the row, the reply and what the engine decides on (judged, session limit, session/thread);
 *   never rejects for the node's own failures.
 */
export async function runAgentNode(
  spec: AgentNodeSpec,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<AgentNodeResult> {
  const call = await runtimeFor(ctx.runtime ?? "claude").agentTurn(turnOf(spec, ctx), signal);
  const rows = new RowMaker(spec, ctx, call);
  if (call.failure !== null) {
    const f = call.failure;
    if (f.sessionLimit !== null) return rows.paused(f.sessionLimit.resetsAt);
    return rows.fail(f.cause, f.detail, {
      ...(f.sessionLost === true ? { sessionLost: true } : {}),
    });
  }
  const reply = call.facts.reply;
  if (spec.resultMatches && !searchPattern(spec.resultMatches, reply)) {
    return rows.fail(
      "result_mismatch",
      `reply does not match /${spec.resultMatches.source}/: ${oneLine(reply).slice(0, 200)}`,
      { judged: true },
    );
  }
  let verify: VerifyEvidence | undefined;
  if (spec.verify) {
    const verified = await runVerifyStep(spec, spec.verify, ctx, signal);
    if (verified.kind === "failed") return rows.fail(verified.cause, verified.detail, verified);
    verify = verified.evidence;
  }
  writeFileSync(ctx.runDir.nodeOutputPath(spec.id), reply);
  // Post-hoc budget check (research §5.8): the output is kept, the node fails. Strictly greater. A
  // completion attempt counts what the node's earlier attempts spent too (SPEC §7: the budget binds them all).
  const budgetUsd = spec.budgetUsd ?? null;
  const spentBefore = spec.completion?.spentUsd ?? 0;
  const costUsd = call.facts.costUsd === null ? null : call.facts.costUsd + spentBefore;
  if (budgetUsd !== null && costUsd !== null && costUsd > budgetUsd) {
    const across = spentBefore > 0 ? " across its completion attempts" : "";
    return rows.fail(
      "budget_exceeded",
      `exceeded budget_usd${across}: $${costUsd.toFixed(4)} vs $${budgetUsd.toFixed(4)} (over by $${(costUsd - budgetUsd).toFixed(4)})`,
      verify ? { verify } : {},
    );
  }
  return rows.pass(verify);
}

/** How the verify step ended: its passing evidence, or why the node fails (cancelled, or verify_failed). */
type VerifyStep =
  | { readonly kind: "passed"; readonly evidence: VerifyEvidence }
  | {
      readonly kind: "failed";
      readonly cause: FailCause;
      readonly detail: string;
      readonly verify?: VerifyEvidence;
      readonly judged: boolean;
    };

/**
 * Runs the node's verify command through `ctx.verifyQueue`. The node's signal reaches the verify too:
 * `on_fail: halt` and a cancelled run stop a running build (SPEC §4), instead of waiting for it and then
 * recording a PASS for a halted sibling; a build stopped so is not evidence either way (`cancelled`).
 */
async function runVerifyStep(
  spec: AgentNodeSpec,
  check: NonNullable<AgentNodeSpec["verify"]>,
  ctx: NodeContext,
  signal: AbortSignal,
): Promise<VerifyStep> {
  const stopped = `cancelled before its verify command \`${shownCommand(check.command)}\` finished`;
  if (signal.aborted) return { kind: "failed", cause: "cancelled", detail: stopped, judged: false };
  ctx.onVerifying?.(spec.id, check.command);
  const verify = await ctx.verifyQueue.run({
    nodeId: spec.id,
    command: check.command,
    cwd: check.cwd,
    timeoutMs: check.timeoutMs,
    expectExit: check.expectExit,
    outputMatches: check.outputMatches ?? null,
    signal,
  });
  if (verify.outcome === "passed") return { kind: "passed", evidence: verify };
  if (signal.aborted) return { kind: "failed", cause: "cancelled", detail: stopped, judged: false };
  return {
    kind: "failed",
    cause: "verify_failed",
    detail: `verify \`${shownCommand(verify.command)}\` ${verifyExitWords(verify)}`,
    verify,
    // Only a command that ran and said no is a judgment; one that timed out or could not start is not.
    judged: verify.outcome === "failed",
  };
}

/** Builds the node's row from its call: the fields every row shares, then PASS or FAIL. */
class RowMaker {
  readonly #base: Omit<PassRow, "verdict" | "qualifier" | "detail">;
  readonly #outsideWords: string | null;
  readonly #extras: Pick<AgentNodeResult, "codexThread" | "sessionCostUsd" | "plan">;

  constructor(
    private readonly spec: AgentNodeSpec,
    private readonly ctx: NodeContext,
    private readonly call: CallReport,
  ) {
    const facts = call.facts;
    // Writes outside the repository escape the evidence tree: recorded on the row whatever its verdict.
    const outside = outsideWrites(facts.writtenPaths, { cwd: spec.cwd, repoRoot: spec.repoRoot });
    this.#outsideWords = outsideWritesWords(outside);
    this.#base = {
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
    this.#extras = {
      ...(call.codexThread !== undefined ? { codexThread: call.codexThread } : {}),
      ...(call.sessionCostUsd !== undefined ? { sessionCostUsd: call.sessionCostUsd } : {}),
      ...(facts.plan != null ? { plan: facts.plan } : {}),
    };
  }

  /** A FAIL: the reply is saved to `failed/ID.out`. */
  fail(
    cause: FailCause,
    detail: string,
    more: {
      readonly verify?: VerifyEvidence;
      readonly judged?: boolean;
      readonly sessionLost?: true;
    },
  ): AgentNodeResult {
    writeFileSync(this.ctx.runDir.failedOutputPath(this.spec.id), this.call.facts.reply);
    return {
      row: {
        ...this.#base,
        verdict: "FAIL",
        cause,
        detail: this.#withOutside(detail),
        ...(more.verify ? { verify: more.verify, ...this.#claims(more.verify) } : {}),
      },
      reply: this.call.facts.reply,
      judged: more.judged ?? false,
      sessionLimit: null,
      ...(more.sessionLost === true ? { sessionLost: true } : {}),
      ...this.#extras,
    };
  }

  /**
   * A PAUSED row (SPEC §4): the model's session limit stopped the call; the reply is saved to
   * `failed/ID.out` like a failure's, and a later leg (`resume --retry-failed`) runs the node again.
   */
  paused(resetsAt: string | null): AgentNodeResult {
    writeFileSync(this.ctx.runDir.failedOutputPath(this.spec.id), this.call.facts.reply);
    return {
      row: {
        ...this.#base,
        verdict: "PAUSED",
        pause: "session_limit",
        resetsAt,
        detail: this.#withOutside(
          "the model's session limit was reached: the run pauses; resume with --retry-failed after the reset",
        ),
      },
      reply: this.call.facts.reply,
      judged: false,
      sessionLimit: { resetsAt },
      ...this.#extras,
    };
  }

  /** A PASS with its one qualifier (SPEC §6), computed from the checks that ran. */
  pass(verify: VerifyEvidence | undefined): AgentNodeResult {
    const spec = this.spec;
    const qualifier = qualifierFor({
      gateApproved: false,
      verifyRan: verify ? { passed: true } : null,
      resultMatchesChecked: spec.resultMatches !== null,
      exitZeroChecked: spec.exitZero,
    });
    // The row stays PASS (verified) — the command did pass — but says when it ran on changed ignored files.
    const ignored = ignoredFilesWords(verify);
    const detail = verify
      ? `verify \`${shownCommand(verify.command)}\` exited ${verify.exitCode}${verify.repeat !== undefined ? ` in each of ${verify.repeat.runs} runs on the same tree` : ""}${verify.reusedFrom ? ` (result reused from "${verify.reusedFrom}": same tree, same command)` : ""}${ignored !== null ? `; ${ignored}` : ""}`
      : spec.resultMatches
        ? `reply matched /${spec.resultMatches.source}/`
        : "exited 0";
    return {
      row: {
        ...this.#base,
        verdict: "PASS",
        qualifier,
        detail: this.#withOutside(detail),
        ...(verify ? { verify, ...this.#claims(verify) } : {}),
      },
      reply: this.call.facts.reply,
      judged: false,
      sessionLimit: null,
      ...this.#extras,
    };
  }

  /** The reply's claims beside the verify's result (issue 25 item 4), as a spreadable row field. */
  #claims(verify: VerifyEvidence): { readonly claims?: RowClaim[] } {
    return claimsField(this.call.facts.reply, verify);
  }

  #withOutside(detail: string): string {
    return this.#outsideWords !== null ? `${detail}; ${this.#outsideWords}` : detail;
  }
}
