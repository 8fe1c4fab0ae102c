import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { FailRow, LedgerRow } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import { describeIgnoredChanges, describeOutsideWrites, evidenceGapParts, verifyExitWords } from "./cells.js";

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
  | "no-engine-evidence"
  | "partially-verified"
  | "only-gate-sinks"
  | "node-failed"
  | "sink-verify-failed"
  | "node-did-not-run"
  | "plan-refused"
  | "engine-error"
  /** Every node passed and the changes were verified, but the action's push of them was refused (SPEC §10). */
  | "push-refused"
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
   * or the pull request's head moved after the run was decided on it (a comment command's `@sha`, §9).
   */
  | {
      readonly kind: "refused";
      readonly reason: "build-evidence" | "no-credential" | "unsupported-trigger" | "head-moved";
      readonly message: string;
    }
  | { readonly kind: "usage-error"; readonly message: string }
  /** The planner's spec was refused, repaired once, and refused again (§8). */
  | { readonly kind: "plan-refused"; readonly refusals: readonly string[] }
  | { readonly kind: "engine-error"; readonly message: string }
  | { readonly kind: "paused"; readonly reason: "gate" | "session-limit"; readonly nodeId: string }
  /** The workflow was cancelled. */
  | { readonly kind: "cancelled" }
  /** The post step found the check run still in progress: the main step died without finishing it. */
  | { readonly kind: "abandoned" }
  /** The engine stopped the run at the action's own `timeout-minutes`. */
  | { readonly kind: "timed-out"; readonly limitMinutes: number };

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
}

const PATCH_NOT_ON_COMMIT = "the evidence is for a patch that is not on this commit";

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
 * equal to `postedCommitTree`, and every such sink's verify run with its git-ignored files unchanged
 * since the run started (`ignoredFiles` absent counts as unchanged: the caller did not measure).
 */
export function decideConclusion(input: ConclusionInput): Conclusion {
  const { end } = input;
  switch (end.kind) {
    case "completed":
      return judgeRows(input);
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
          "The run was cancelled (the workflow was cancelled, or the CLI was interrupted) before it finished; the rows below are what had finished.",
      };
    case "abandoned":
      return {
        conclusion: "failure",
        outcome: "failed",
        rule: "abandoned",
        title: "Failed: the run was abandoned",
        reason:
          "The run ended without finishing its check run (the main step died); the rows below are what had finished.",
      };
    case "timed-out":
      return {
        conclusion: "timed_out",
        outcome: "timed-out",
        rule: "timed-out",
        title: `Timed out after ${end.limitMinutes} min`,
        reason: `The run exceeded timeout-minutes (${end.limitMinutes}) and was stopped; the rows below are what had finished.`,
      };
    default:
      return unreachable(end);
  }
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

function judgeRows(input: ConclusionInput): Conclusion {
  const failed = judgeFailures(input.rows);
  if (failed !== null) return failed;

  const last = lastRowByNode(input.rows);
  const notPassed = [...new Set([...last.keys(), ...input.sinks])].filter(
    (id) => last.get(id)?.verdict !== "PASS",
  );
  if (notPassed.length > 0) {
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "node-did-not-run",
      title: `Failed: ${countNodes(notPassed.length)} did not run`,
      reason: `The run ended without a PASS for ${quoteList(notPassed)}; a run that did not finish its graph cannot pass.`,
    };
  }

  const gates = new Set(input.gateSinks);
  const checkedSinks = input.sinks.filter((id) => !gates.has(id));
  const executions = input.rows.length;
  if (checkedSinks.length === 0) {
    return neutralOr(input.requireEvidence, {
      rule: "only-gate-sinks",
      title: `Unverified: every sink is a gate (${countNodes(last.size)} passed)`,
      reason:
        "Every sink of the graph is a gate: a person's approval, not build evidence. Nothing was verified.",
    });
  }

  const verified = checkedSinks.filter((id) => {
    const row = last.get(id);
    return row?.verdict === "PASS" && row.qualifier === "verified";
  });
  if (verified.length === 0) {
    return neutralOr(input.requireEvidence, {
      rule: "no-engine-evidence",
      title: `Unverified: ${countNodes(last.size)} passed with no build evidence`,
      reason: `${noEvidenceReason(input.buildEvidence)} Every PASS below is the model's, about its own work.`,
    });
  }
  if (verified.length < checkedSinks.length) {
    const unverified = checkedSinks.filter((id) => !verified.includes(id));
    return neutralOr(input.requireEvidence, {
      rule: "partially-verified",
      title: `Partly verified: ${verified.length} of ${checkedSinks.length} sinks verified`,
      reason: `Sinks ${quoteList(unverified)} passed without an engine-run verify command; success needs every non-gate sink verified.`,
    });
  }

  const trees = verified.map((id) => last.get(id)?.verify?.evidenceTree ?? null);
  const offCommit =
    input.postedCommitTree !== null && trees.some((tree) => tree !== null && tree !== input.postedCommitTree);
  // Before the tree rules: a verify that ran on changed ignored files is never evidence for a commit,
  // whatever its tree, and must not fall to a `neutral` (which satisfies branch protection).
  const ignoredChanged = verified.filter((id) => last.get(id)?.verify?.ignoredFiles === "changed");
  // Any row, any node (not only sinks): a file written outside the repository is in no evidence tree.
  const outside = outsideWritesOf(input.rows);
  const outsideSentence =
    outside === null
      ? ""
      : `A node wrote outside the repository; the evidence tree does not cover those files (${outside}).`;
  if (ignoredChanged.length > 0) {
    const which = ignoredChanged
      .map((id) => `sink "${id}": ${describeIgnoredChanges(last.get(id)?.verify?.ignoredFilesChanges)}`)
      .join("; ");
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-ignored-files-changed",
      title: "Verified, but git-ignored files changed",
      reason:
        `Every sink was verified, but the verify command ran with git-ignored files changed since the run started (${which}). ` +
        "The evidence covers git-ignored files that are on no commit, so this commit may not pass on a fresh clone. " +
        "Undo those changes, or make them in tracked files, and re-run." +
        (offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : "") +
        (outside !== null ? ` ${outsideSentence}` : ""),
    };
  }
  // Before the tree rules too: the verify may have passed only because of those files.
  if (outside !== null) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-outside-writes",
      title: "Verified, but a node wrote outside the repository",
      reason:
        `Every sink was verified, but ${outsideSentence.charAt(0).toLowerCase()}${outsideSentence.slice(1)} ` +
        "The verify command may pass only because of them, so this commit may not pass on a fresh clone. " +
        "Undo those writes, or make the change inside the repository, and re-run." +
        (offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : ""),
    };
  }
  // Before the tree rules too: a tree equal to the commit's says nothing about bytes it does not hold.
  const gaps = verified.flatMap((id) => {
    const parts = evidenceGapParts(last.get(id)?.verify);
    return parts.length === 0 ? [] : [`sink "${id}": ${parts.join("; ")}`];
  });
  if (gaps.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-bytes-not-in-tree",
      title: "Verified, but on bytes the evidence tree does not hold",
      reason:
        `Every sink was verified, but the verify ran on bytes the evidence tree does not hold: ${gaps.join("; ")}. ` +
        "The tree recorded for the verify is not what the command ran on, so this commit may not pass on a fresh clone. " +
        "For a submodule: commit (and push) its changes and record them in the superproject. For a file a " +
        ".gitattributes conversion hides: write it in the form the conversion produces (or fix the attribute), " +
        "commit it, and re-run. Or undo the edits and re-run." +
        (offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : ""),
    };
  }
  if (input.postedCommitTree === null || trees.some((tree) => tree === null)) {
    return neutralOr(input.requireEvidence, {
      rule: "verified-tree-unknown",
      title: `Verified, but the tree is unknown (${countNodes(last.size)} passed)`,
      reason:
        "Every sink was verified, but the verified tree could not be compared with the posted commit's tree, so the evidence cannot be tied to this commit.",
    });
  }
  const distinctTrees = [...new Set(trees.filter((tree): tree is string => tree !== null))];
  if (distinctTrees.length > 1) {
    const which = verified
      .map((id) => `sink "${id}": ${(last.get(id)?.verify?.evidenceTree ?? "unknown").slice(0, 12)}`)
      .join("; ");
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-different-trees",
      title: "Verified, but the sinks verified different trees",
      reason: `Each sink's verify passed on the files it saw, but the sinks saw different files (${which}): nodes changed files between the verifies, so no single tree passed every sink's verify and the final files were not verified as a whole. Do not push the patch as it is; re-run so that every sink verifies the same files.`,
    };
  }
  if (offCommit) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-off-commit",
      title: "Verified, but not on this commit",
      reason: `Every sink was verified, but ${PATCH_NOT_ON_COMMIT}: the tree the verify command ran on differs from this commit's tree (files changed during the run, or uncommitted before it, or sinks that verified different trees). Push the patch, or re-run on a commit that contains it.`,
    };
  }
  const ignoredUnknown = verified.filter((id) => last.get(id)?.verify?.ignoredFiles === "unknown");
  if (ignoredUnknown.length > 0) {
    const why = [
      ...new Set(ignoredUnknown.map((id) => last.get(id)?.verify?.ignoredFilesReason ?? "unknown reason")),
    ].join("; ");
    return neutralOr(input.requireEvidence, {
      rule: "verified-ignored-files-unknown",
      title: `Verified, but the git-ignored files could not be compared (${countNodes(last.size)} passed)`,
      reason: `Every sink was verified on this commit's tree, but the git-ignored files the verify command may read could not be compared with the run's start (${why}), so the evidence cannot be shown to rest on this commit alone.`,
    });
  }
  return {
    conclusion: "success",
    outcome: "passed",
    rule: "verified-on-commit",
    title: `Verified: ${countNodes(last.size)} passed, ${verified.length} ${verified.length === 1 ? "sink" : "sinks"} verified on this commit`,
    reason: `Every node passed (${executions} ${executions === 1 ? "execution" : "executions"}) and the engine ran the verify command of every non-gate sink on this commit's tree.`,
  };
}

/** The `failure` of any counted FAIL or any verify evidence that did not pass; `null` when there is none. */
function judgeFailures(rows: readonly LedgerRow[]): Conclusion | null {
  const failedVerifies = rows.filter(
    (row, i) => row.verify !== undefined && row.verify.outcome !== "passed" && counts(rows, i),
  );
  const failedSinkVerifies = failedVerifies.filter((row) => row.sink);
  if (failedSinkVerifies.length > 0) {
    const first = failedSinkVerifies[0]!;
    const verify = first.verify!;
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "sink-verify-failed",
      title: `Failed: sink ${first.nodeId} failed its verify command`,
      reason: `The engine ran "${verify.command}" for sink "${first.nodeId}" and it ${verifyExitWords(verify)}. A sink that fails its verification fails the run.`,
    };
  }
  const failedRows = rows.filter((row, i): row is FailRow => row.verdict === "FAIL" && counts(rows, i));
  const failedIds = [...new Set([...failedRows, ...failedVerifies].map((row) => row.nodeId))];
  if (failedIds.length === 0) return null;
  const causes = [...new Set(failedRows.map((row) => row.cause))];
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: "node-failed",
    title:
      failedIds.length === 1
        ? `Failed: node ${failedIds[0]} failed`
        : `Failed: ${failedIds.length} nodes failed`,
    reason: `${quoteList(failedIds)} failed${causes.length > 0 ? ` (${causes.join(", ")})` : ""}. Any node FAIL fails the run.`,
  };
}

/** `node "a": /srv/x/b.js, /tmp/c.js; node "d": …` for every row with outside writes; `null` when none. */
function outsideWritesOf(rows: readonly LedgerRow[]): string | null {
  const named = rows
    .filter((row) => row.outsideWrites !== undefined && row.outsideWrites.total > 0)
    .map((row) => `node "${row.nodeId}": ${describeOutsideWrites(row.outsideWrites!)}`);
  return named.length > 0 ? [...new Set(named)].join("; ") : null;
}

/**
 * Whether row `i` decides the run. A later execution of the same node replaces a PASS or SKIPPED row, and
 * a FAIL row only when the engine marked it `superseded`: an unexplained FAIL always counts.
 */
function counts(rows: readonly LedgerRow[], i: number): boolean {
  const row = rows[i]!;
  const replaceable = row.verdict !== "FAIL" || row.superseded === true;
  return !(replaceable && hasLaterRow(rows, i));
}

function hasLaterRow(rows: readonly LedgerRow[], i: number): boolean {
  const nodeId = rows[i]!.nodeId;
  return rows.slice(i + 1).some((later) => later.nodeId === nodeId);
}

function lastRowByNode(rows: readonly LedgerRow[]): Map<string, LedgerRow> {
  const last = new Map<string, LedgerRow>();
  for (const row of rows) last.set(row.nodeId, row);
  return last;
}

function neutralOr(
  requireEvidence: boolean,
  decision: { rule: ConclusionRule; title: string; reason: string },
): Conclusion {
  if (!requireEvidence) return { conclusion: "neutral", outcome: "passed", ...decision };
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: decision.rule,
    title: `Failed (require-evidence): ${decision.title}`,
    reason: `${decision.reason} The maintainers' policy file (.github/evidence-gate.yml) sets require-evidence: true, so a run without engine-run evidence on every non-gate sink fails.`,
  };
}

function noEvidenceReason(answer: BuildEvidenceAnswer): string {
  switch (answer.kind) {
    case "declared":
      return `The operator declared no build evidence (accept-no-build-evidence) although ${answer.signals.map((s) => s.file).join(", ")} ${answer.signals.length === 1 ? "says" : "say"} this repository builds.`;
    case "none-detected":
      return "No build signal was detected and no verify command was given.";
    case "attached":
      return `A verify command ("${answer.command}") was attached, but no sink was verified with it.`;
    case "graph":
      return answer.verifiedSinks.length === 0
        ? "No sink of the hand-written graph has a success_check.verify command, so the engine ran no build."
        : "The hand-written graph's verify commands did not verify any sink.";
    default:
      return unreachable(answer);
  }
}

function countNodes(n: number): string {
  return `${n} ${n === 1 ? "node" : "nodes"}`;
}

function quoteList(ids: readonly string[]): string {
  return ids.map((id) => `"${id}"`).join(", ");
}
