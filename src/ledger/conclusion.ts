/**
 * The decision posted with the ledger (SPEC §6 table, §10): the check run's conclusion and the run's
 * outcome, with the words that say why. This module holds the vocabulary and decides how the run ended;
 * a completed run's rows are judged in `judge-completed-run.ts` (and `judge-verified-sinks.ts`), the
 * failures they record in `judge-failures.ts`.
 */
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { ChangedFiles } from "../core/changed-files-record.js";
import type { LedgerRow } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import { judgeCompletedRun } from "./judge-completed-run.js";
import { judgeFailures } from "./judge-failures.js";

/** A check run's conclusion (GitHub's closed set, the subset SPEC §6 uses). */
export type CheckConclusion =
  | "success"
  | "neutral"
  | "action_required"
  | "failure"
  | "cancelled"
  | "timed_out";

/** The action's `outcome` output and the CLI's exit-code family (SPEC §10). */
export type RunOutcome =
  | "passed"
  | "failed"
  | "refused"
  | "paused"
  | "cancelled"
  | "timed-out"
  | "usage-error";

/** Which row of the SPEC §6 table decided the conclusion. Renderers and tests read it; users read `reason`. */
export type ConclusionRule =
  | "verified-on-commit"
  | "verified-off-commit"
  /** Every sink verified, but not on one tree: no single set of files passed every sink's verify. */
  | "verified-different-trees"
  | "verified-tree-unknown"
  /** Every sink verified, but a verify ran with git-ignored files changed since the run started. */
  | "verified-ignored-files-changed"
  /** Every sink verified, but a verify's git-ignored files could not be compared with the run start's. */
  | "verified-ignored-files-unknown"
  /** Every sink verified, but a verify ran on bytes its evidence tree does not hold (dirty submodules, .gitattributes conversions). */
  | "verified-bytes-not-in-tree"
  /** Every sink verified, but a node wrote files outside the repository (no evidence tree covers them). */
  | "verified-outside-writes"
  /** Every sink verified, but a sink ran in a managed worktree: its evidence is that branch's files, not the main working tree's. */
  | "verified-in-worktree"
  /** Every sink verified, but the nodes changed what defines the verify command (its scripts, build files, test files). */
  | "verify-definition-changed"
  /** Every sink verified, but a recognised test runner reported that a sink's verify ran no test (ADR 0016). */
  | "verified-no-test"
  /** Every sink verified (exit code as expected), but a sink's test runner reported failing tests. */
  | "verified-failing-tests"
  /** The policy's `require-tests: true`, and a sink's verify has no receipt or ran no test (ADR 0016). */
  | "tests-required"
  | "no-engine-evidence"
  | "partially-verified"
  | "only-gate-sinks"
  | "node-failed"
  | "sink-verify-failed"
  | "node-did-not-run"
  | "plan-refused"
  /** The planner call failed or gave no usable plan (no JSON plan in its reply): not repairable. */
  | "planning-failed"
  /** The model CLI could not be set up (its npm install failed): the runner's environment, not the inputs. */
  | "setup-failed"
  | "engine-error"
  /** Every node passed and the changes were verified, but the action's push of them was refused (SPEC §10). */
  | "push-refused"
  /**
   * Posted by `mode: report` or the App only: the ledger's step would have passed (outcome `passed` or
   * `paused`), but GitHub reports the workflow run that uploaded it failed, cancelled or timed out (issue 22
   * item 2).
   */
  | "workflow-run-not-success"
  | "refused"
  | "usage-error"
  | "paused"
  | "cancelled"
  | "abandoned"
  | "timed-out";

/** The decision posted with the ledger: the check run's conclusion, the run's outcome and their words. */
export interface Conclusion {
  readonly conclusion: CheckConclusion;
  readonly outcome: RunOutcome;
  readonly rule: ConclusionRule;
  /** One line, plain text (no Markdown); renderers clamp it to the check run title limit. */
  readonly title: string;
  /** Plain-text sentences saying why, and what to change when something must change. */
  readonly reason: string;
}

/** How the run ended, before its rows are judged. Only `completed` is decided by the rows. */
export type RunEnd =
  | { readonly kind: "completed" }
  /**
   * Nothing ran: build evidence refusal (§5), no model credential and no verify command, unsupported trigger,
   * the pull request's head moved after the run was decided on it (a comment command's `@sha`, §9), a
   * `pull_request` checkout that is neither the event's head nor GitHub's merge of it (§9), or a
   * fork's pull request that no writer approved at its head (its model key is not used) and no verify command.
   */
  | {
      readonly kind: "refused";
      readonly reason:
        | "build-evidence"
        | "no-credential"
        | "unsupported-trigger"
        | "head-moved"
        | "checkout-not-head"
        | "fork-unapproved";
      readonly message: string;
    }
  | { readonly kind: "usage-error"; readonly message: string }
  /** The planner's spec was refused, repaired once, and refused again (§8). */
  | { readonly kind: "plan-refused"; readonly refusals: readonly string[] }
  /**
   * The planner call failed, timed out or gave a reply with no plan in it (an unparseable reply, a model API
   * that refused the credential): a planning failure (README "Conclusions"), not the engine's error.
   */
  | { readonly kind: "planning-failed"; readonly message: string }
  /**
   * The model CLI could not be set up before the first model call (the action's npm install of the pinned
   * `claude` / `codex` failed): the runner's environment failed, not the operator's inputs.
   */
  | { readonly kind: "setup-failed"; readonly message: string }
  | { readonly kind: "engine-error"; readonly message: string }
  | { readonly kind: "paused"; readonly reason: "gate" | "session-limit"; readonly nodeId: string }
  /** The workflow was cancelled. */
  | { readonly kind: "cancelled" }
  /** The post step found the check run still in progress: the main step died without finishing it. */
  | { readonly kind: "abandoned" }
  /**
   * The engine stopped the run at its own time bound (the action's `timeout-minutes`, the CLI's
   * `--timeout`): `limit` as given (`"2s"`, `"340 min"`), `setting` what set it.
   */
  | { readonly kind: "timed-out"; readonly limit: string; readonly setting: string };

export interface ConclusionInput {
  /** Every row in execution order (retries, feedback rounds and resume legs included). */
  readonly rows: readonly LedgerRow[];
  /** Every sink of the graph, gates included. */
  readonly sinks: readonly string[];
  /** The sinks that are gates (a subset of `sinks`): a person's approval, never build evidence. */
  readonly gateSinks: readonly string[];
  readonly buildEvidence: BuildEvidenceAnswer;
  /** The tree of the commit the check run is posted on (the starting commit, or the pushed one). */
  readonly postedCommitTree: string | null;
  /** The base branch policy's `require-evidence: true`: every `neutral` becomes `failure`. */
  readonly requireEvidence: boolean;
  readonly end: RunEnd;
  /**
   * The files the nodes changed, with the changes that touch what defines the verify command (rule
   * `verify-definition-changed`). Absent: nothing changed, or not measured (`mode: verify`, a ledger
   * written before the record existed).
   */
  readonly changedFiles?: ChangedFiles;
}

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
        reason: `Planning failed: ${end.message}.${credentialHint(end.message)} No node ran.`,
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
