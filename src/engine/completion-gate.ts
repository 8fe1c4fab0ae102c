/**
 * The completion check of one attempt (SPEC §7; seed 002): the check the engine runs after an attempt
 * that would have passed, answering only pass or fail with a reason — the engine never interprets it
 * (rule 3), and it can never wait for a person (rule 6: a command runs with stdin closed and a hard
 * timeout, through the run-wide verify queue; a plan is judged from what the stream already showed).
 *
 * - `command`: the engine runs it in the node's directory and judges its exit code (`expect_exit`), with
 *   the evidence of any verify (evidence tree, output tail). A command that timed out or could not start
 *   is `could_not_run`: an infrastructure fault, not a judgment — nothing is fed back to the agent, since
 *   it cannot fix the engine's command runner (research/toolnexus.md §2 rule 6).
 * - `todos: all_done`: the latest plan the agent declared across all the node's attempts (so an attempt
 *   that declares nothing cannot escape an earlier open item) passes only when every item is completed;
 *   no plan passes unless `require_plan`. Structural only: items are counted, never read for meaning.
 */

import type { VerifyEvidence } from "../core/ledger-row.js";
import { shownCommand } from "../core/shown-command.js";
import type { CompletionGate } from "../graph/graph.js";
import { verifyExitWords } from "../ledger/cells.js";
import type { DeclaredPlan } from "../runtime/declared-plan.js";
import type { NodeVerifier } from "./agent-node.js";
import { commandReport, NO_PLAN_REPORT, openItemsReport, openItemsSummary } from "./completion-prompt.js";

/** What the check said. `summary` is one line (rows, `stoppedBy`); `report` is what the agent is told. */
export type CompletionCheck =
  | { readonly kind: "passed"; readonly summary: string; readonly verify?: VerifyEvidence }
  | {
      readonly kind: "failed";
      readonly summary: string;
      readonly report: string;
      readonly verify?: VerifyEvidence;
    }
  | { readonly kind: "could_not_run"; readonly summary: string; readonly verify: VerifyEvidence }
  /** The run was halted or cancelled while the command ran: not evidence either way. */
  | { readonly kind: "cancelled" };

/** Where the check runs. */
export interface CompletionCheckContext {
  readonly nodeId: string;
  /** The node's directory (the command's cwd). */
  readonly cwd: string;
  /** `completion.verify.command` with its placeholders resolved (a command gate). */
  readonly command?: string;
  readonly verifier: NodeVerifier;
  readonly onVerifying?: (nodeId: string, command: string) => void;
}

/**
 * Runs `gate`'s check for the attempt that just ended; `plan` is the latest plan declared across the
 * node's attempts. Never rejects for the command's own failures.
 */
export async function runCompletionCheck(
  gate: CompletionGate,
  plan: DeclaredPlan | null,
  ctx: CompletionCheckContext,
  signal: AbortSignal,
): Promise<CompletionCheck> {
  const check = gate.verify;
  if (check.kind === "todos_all_done") return judgePlan(plan, check.require_plan);
  if (signal.aborted) return { kind: "cancelled" };
  const command = ctx.command ?? check.command;
  ctx.onVerifying?.(ctx.nodeId, command);
  const verify = await ctx.verifier.run({
    nodeId: ctx.nodeId,
    command,
    cwd: ctx.cwd,
    timeoutMs: check.timeout_ms,
    expectExit: check.expect_exit,
    outputMatches: null,
    signal,
  });
  if (verify.outcome === "passed")
    return { kind: "passed", summary: `\`${shownCommand(command)}\` exited ${verify.exitCode}`, verify };
  if (signal.aborted) return { kind: "cancelled" };
  const summary = `\`${shownCommand(command)}\` ${verifyExitWords(verify)}`;
  if (verify.outcome !== "failed") return { kind: "could_not_run", summary, verify };
  return { kind: "failed", summary, report: commandReport(verify), verify };
}

/** `todos: all_done`: every item of the latest plan completed; no plan passes unless it is required. */
export function judgePlan(plan: DeclaredPlan | null, requirePlan: boolean): CompletionCheck {
  if (plan === null || plan.total === 0) {
    return requirePlan
      ? { kind: "failed", summary: "no plan declared (require_plan: true)", report: NO_PLAN_REPORT }
      : { kind: "passed", summary: "no plan declared (require_plan is false)" };
  }
  if (plan.open === 0) return { kind: "passed", summary: `all ${plan.total} plan items completed` };
  return { kind: "failed", summary: openItemsSummary(plan), report: openItemsReport(plan) };
}
