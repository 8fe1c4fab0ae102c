/**
 * The decision posted with the ledger (SPEC §6 table, §10): the check run's conclusion and the run's
 * outcome, with the words that say why. This module decides how the run ended (its vocabulary is in
 * `conclusion-types.ts`, re-exported here);
 * a completed run's rows are judged in `judge-completed-run.ts` (and `judge-verified-sinks.ts`), the
 * failures they record in `judge-failures.ts`.
 */
import { unreachable } from "../core/unreachable.js";
import type { Conclusion, ConclusionInput, RunEnd } from "./conclusion-types.js";
import { judgeCompletedRun } from "./judge-completed-run.js";
import { judgeFailures } from "./judge-failures.js";

// The vocabulary is defined in conclusion-types.ts; importers of the decision find it here too.
export type {
  CheckConclusion,
  Conclusion,
  ConclusionInput,
  ConclusionRule,
  RunEnd,
  RunOutcome,
} from "./conclusion-types.js";

/**
 * The conclusion of a run that ended before any node ran (a refusal, a usage error, a cancel or an
 * abandoned run, as seen by the post step): `end` alone decides it; there are no rows or sinks to judge.
 */
export function decideEndWithoutRows(end: Exclude<RunEnd, { kind: "completed" }>): Conclusion {
  return decideConclusion({
    rows: [],
    sinks: [],
    gateSinks: [],
    buildEvidence: { kind: "none-detected" },
    postedCommitTree: null,
    requireEvidence: false,
    end,
  });
}

/**
 * The check run conclusion and run outcome of a finished run — SPEC §6's table, row by row.
 *
 * A node is judged by its executions: a FAIL row counts unless it is marked `superseded` and a later row of
 * the same node exists; a node whose last row is not a PASS did not pass. A verify evidence that did not
 * pass counts as a failed verification even on a row that claims PASS. `success` needs every node PASS,
 * at least one non-gate sink, every non-gate sink `PASS (verified)`, every such sink's evidence tree
 * equal to `postedCommitTree`, every such sink's verify run with its git-ignored files unchanged
 * since the run started (`ignoredFiles` absent counts as unchanged: the caller did not measure), and no
 * change of the nodes' touching what defines the verify command (`changedFiles.verifyDefinition` empty).
 */
export function decideConclusion(input: ConclusionInput): Conclusion {
  const { end } = input;
  switch (end.kind) {
    case "completed":
      return judgeCompletedRun(input);
    case "refused":
      return {
        conclusion: "action_required",
        outcome: "refused",
        rule: "refused",
        title: refusalTitle(end.reason),
        reason: `${end.message} Nothing ran and nothing was spent.`,
      };
    case "usage-error":
      return {
        conclusion: "action_required",
        outcome: "usage-error",
        rule: "usage-error",
        title: "Usage error: nothing ran",
        reason: `${end.message} Nothing ran.`,
      };
    case "plan-refused":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "plan-refused",
        title: "Failed: the plan was refused twice",
        reason: `The planner's graph broke the planned-node rules after one repair: ${end.refusals.join("; ")}. No node ran.`,
      };
    case "planning-failed":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "planning-failed",
        title: "Failed: planning failed (no usable plan)",
        reason: `Planning failed: ${end.message.replace(/\.$/, "")}.${credentialHint(end.message)} No node ran.`,
      };
    case "setup-failed":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "setup-failed",
        title: "Failed: the model CLI could not be installed",
        reason: `${end.message} Nothing ran and nothing was spent. This is the runner's environment (the network, the npm registry), not your inputs: run the job again once the registry is reachable, or give the runner a tool cache that holds the CLI.`,
      };
    case "engine-error":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "engine-error",
        title: "Failed: engine error",
        reason: `The engine stopped with an error: ${end.message}`,
      };
    case "paused":
      return decidePaused(input, end);
    case "cancelled":
      return {
        conclusion: "cancelled",
        outcome: "cancelled",
        rule: "cancelled",
        title: "Cancelled",
        reason:
          "The run was cancelled (the workflow was cancelled, or the CLI was interrupted) before it finished; the ledger's rows are what had finished.",
      };
    case "abandoned":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "abandoned",
        title: "Failed: the run was abandoned",
        reason:
          "The run ended without finishing its check run (the main step died); the ledger's rows are what had finished.",
      };
    case "timed-out":
      return {
        conclusion: "timed_out",
        outcome: "timed-out",
        rule: "timed-out",
        title: `Timed out after ${end.limit}`,
        reason: `The run reached its time bound (${end.setting} ${end.limit}) and was stopped: every running node's processes were killed; the ledger's rows are what had finished.`,
      };
    default:
      return unreachable(end);
  }
}

/**
 * A sentence naming the model credential when a planner failure reads like the model API refusing it
 * (claude 2.1.332: "Invalid API key · Please run /login"; an HTTP 401 / `authentication_error`), else "".
 */
function credentialHint(message: string): string {
  return /invalid api key|please run \/login|authentication_error|\b401\b|unauthorized/i.test(message)
    ? " The model API refused the credential: check the model key (the CLI: ANTHROPIC_API_KEY, OPENAI_API_KEY; the action: anthropic-api-key, claude-code-oauth-token, openai-api-key)."
    : "";
}

function refusalTitle(reason: Extract<RunEnd, { kind: "refused" }>["reason"]): string {
  switch (reason) {
    case "build-evidence":
      return "Refused: this repository builds, and no verify command was given";
    case "no-credential":
      return "Refused: no model credential and no verify command";
    case "unsupported-trigger":
      return "Refused: unsupported trigger";
    case "head-moved":
      return "Refused: the pull request's head moved";
    case "checkout-not-head":
      return "Refused: the checkout is not the commit the event names";
    case "fork-unapproved":
      return "Refused: a fork's pull request needs a writer's approval at its head, and no verify command was given";
    default:
      return unreachable(reason);
  }
}

function decidePaused(input: ConclusionInput, end: Extract<RunEnd, { kind: "paused" }>): Conclusion {
  // A FAIL already recorded is final whatever the pause waits for: approving a gate cannot make it green.
  const failed = judgeFailures(input.rows);
  if (failed !== null) return failed;
  switch (end.reason) {
    case "gate":
      return {
        conclusion: "action_required",
        outcome: "paused",
        rule: "paused",
        title: `Paused at gate ${end.nodeId}`,
        reason: `The run is waiting for a person to approve or reject gate "${end.nodeId}"; resume the run with the decision.`,
      };
    case "session-limit":
      return {
        conclusion: "action_required",
        outcome: "paused",
        rule: "paused",
        title: "Paused: model session limit reached",
        reason: `Node "${end.nodeId}" hit the model's session limit; resume with --retry-failed once the limit resets to finish exactly the work that never ran.`,
      };
    default:
      return unreachable(end.reason);
  }
}
