/**
 * The vocabulary of the decision posted with the ledger (SPEC §6 table, §10): the check run's conclusion,
 * the run's outcome, the rule that decided them, how a run ended and what the decision reads. Kept apart from
 * `conclusion.ts`, which decides, so the judges that decide a completed run's rows (`judge-*.ts`) name these
 * types without importing the module that calls them (no import circle; `import-layers.test.ts`).
 */
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { ChangedFiles } from "../core/changed-files-record.js";
import type { LedgerRow } from "../core/ledger-row.js";
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
