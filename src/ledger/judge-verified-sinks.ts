/**
 * What the evidence of a run whose every non-gate sink passed `verified` covers (SPEC §6): `success` needs
 * every such sink's verify to have run on the posted commit's tree, and on nothing the tree does not hold.
 *
 * Checked in this order, the first that applies deciding:
 * 0. a sink that ran in a managed worktree (`worktree:`): its verify ran on that worktree's files, which are
 *    on its branch — not the main working tree, not the posted commit: `action_required`, before the rest,
 *    which compare with the main working tree's start and would misname the difference;
 * 0b. the policy's `require-tests: true` (ADR 0016): a sink's verify without a test receipt or that ran
 *    no test is `failure`;
 * 1. the nodes changed what defines the verify command — a `package.json`'s scripts or test-runner keys,
 *    a build or test-runner definition file, a file the command names, a test file deleted, renamed or
 *    given a skip marker, what the tests compare against (a fixture, snapshot or golden file, a data file a
 *    test names) (`changedFiles.verifyDefinition`, `evidence/verify-definition.ts`):
 *    `action_required`, because a passing verify then says only that the changed definition passed (a
 *    `"test": "true"` passes on anything), and before the tree rules, so it never falls to a `neutral`;
 * 2. bytes beyond the evidence tree — git-ignored files changed since the run started, files written
 *    outside the repository, bytes the tree does not hold (dirty submodules, `.gitattributes`
 *    conversions, tracked files the verify command itself changed while it ran): `action_required`, before the tree rules, because a tree equal to the commit's says
 *    nothing about them and must not fall to a `neutral` (which satisfies branch protection);
 * 2b. the test receipts (ADR 0016): a recognised runner that ran no test, or that reported failing tests
 *    while the command exited as expected, is `action_required` — after rules 1 and 2, whose reasons say
 *    why (a node that skipped the failing test through an ignored config file is named as such), and
 *    before the tree rules, so "ran no test" never falls to a `neutral` (which satisfies branch protection);
 * 3. the trees — unknown (`neutral`), different per sink or not the posted commit's (`action_required`);
 * 4. git-ignored files that could not be compared (`neutral`);
 * 5. otherwise `success`.
 *
 * A rule that is not `success` keeps `--commit` and the action's push from committing the changes
 * (`engine/nodes-changes.ts` judges the run as if committed): they are saved as `patch.diff` instead.
 */
import type { LedgerRow } from "../core/ledger-row.js";
import { describeIgnoredChanges, describeOutsideWrites, evidenceGapParts, receiptWords } from "./cells.js";
import type { Conclusion, ConclusionInput } from "./conclusion-types.js";
import { countNodes, PATCH_NOT_ON_COMMIT } from "./conclusion-words.js";
import { neutralOrFailure } from "./require-evidence.js";

/** A completed run whose every non-gate sink passed `verified`. */
export interface VerifiedSinks {
  readonly input: ConclusionInput;
  /** Each node's last row. */
  readonly last: ReadonlyMap<string, LedgerRow>;
  /** The non-gate sinks, every one `PASS (verified)`, in graph order; at least one. */
  readonly verified: readonly string[];
}

/** The conclusion of a run whose every non-gate sink is verified (see the module docstring for the order). */
export function judgeVerifiedSinks(sinks: VerifiedSinks): Conclusion {
  const { input, last, verified } = sinks;
  const inWorktree = verified.flatMap((id) => {
    const tree = last.get(id)?.worktree;
    return tree === undefined ? [] : [`sink "${id}": worktree ${tree.name}, branch ${tree.branch}`];
  });
  if (inWorktree.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-in-worktree",
      title: "Verified, but in a worktree: the evidence is for a branch, not this commit",
      reason: `Every sink was verified, but ${inWorktree.length === 1 ? "a sink" : "sinks"} ran in a managed worktree (${inWorktree.join("; ")}): the verify command ran on that branch's files, not on the main working tree or this commit. Merge the branch (or check it out) and verify it, or re-run with the sinks in the main working tree.`,
    };
  }
  const required = judgeReceipts(sinks, "required");
  if (required !== null) return required;
  const trees = verified.map((id) => last.get(id)?.verify?.evidenceTree ?? null);
  const offCommit =
    input.postedCommitTree !== null && trees.some((tree) => tree !== null && tree !== input.postedCommitTree);
  const definition = verifyDefinitionChanged(input, offCommit);
  if (definition !== null) return definition;
  const beyond = bytesBeyondTheTree(sinks, offCommit);
  if (beyond !== null) return beyond;
  const observed = judgeReceipts(sinks, "observed");
  if (observed !== null) return observed;
  if (input.postedCommitTree === null || trees.some((tree) => tree === null)) {
    return neutralOrFailure(input.requireEvidence, {
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
      reason: `Every sink was verified, but ${PATCH_NOT_ON_COMMIT}: the tree the verify command ran on differs from this commit's tree (files changed during the run, or uncommitted before it, or sinks that verified different trees). ${offCommitAdvice(input.rows)}`,
    };
  }
  const ignoredUnknown = verified.filter((id) => last.get(id)?.verify?.ignoredFiles === "unknown");
  if (ignoredUnknown.length > 0) {
    const why = [
      ...new Set(ignoredUnknown.map((id) => last.get(id)?.verify?.ignoredFilesReason ?? "unknown reason")),
    ].join("; ");
    return neutralOrFailure(input.requireEvidence, {
      rule: "verified-ignored-files-unknown",
      title: `Verified, but the git-ignored files could not be compared (${countNodes(last.size)} passed)`,
      reason: `Every sink was verified on this commit's tree, but the git-ignored files the verify command may read could not be compared with the run's start (${why}), so the evidence cannot be shown to rest on this commit alone.`,
    });
  }
  const executions = input.rows.length;
  return {
    conclusion: "success",
    outcome: "passed",
    rule: "verified-on-commit",
    title: `Verified: ${countNodes(last.size)} passed, ${verified.length} ${verified.length === 1 ? "sink" : "sinks"} verified on this commit`,
    reason: `Every node passed (${executions} ${executions === 1 ? "execution" : "executions"}) and the engine ran the verify command of every non-gate sink on this commit's tree.`,
  };
}

/** The label of a `verify` run's one row (`VERIFY_NODE_LABEL` in src/engine/verify-run.ts, SPEC §10). */
const VERIFY_RUN_LABEL = "verify (engine)";

/**
 * The fix the `verified-off-commit` reason names, for the run that was judged: a `verify` run (its one row
 * is labelled "verify (engine)") has no `--commit`, so it is told to commit or stash the uncommitted changes
 * and verify again; a graph run is told to commit the patch and verify that commit — `run`/`auto --commit`
 * does both only when HEAD stays put during the run (else it refuses and the patch is left for the user).
 */
function offCommitAdvice(rows: ConclusionInput["rows"]): string {
  if (rows.length > 0 && rows.every((row) => row.label === VERIFY_RUN_LABEL)) {
    return "Commit (or stash) the uncommitted changes and run `evidence-gate verify` again, so the verify command runs on this commit's tree.";
  }
  return "Commit the patch and verify that commit (`evidence-gate run --commit` or `auto --commit` does both when HEAD does not move during the run; the action's push: true pushes it), or re-run on a commit that contains it.";
}

/** Most flagged changes the reason names (the ledger's changed-files section lists more). */
const FLAGGED_NAMED = 10;

/**
 * The `action_required` of a run whose nodes changed what defines the verify command (rule
 * `verify-definition-changed`), or `null` when no change of theirs touches it. `offCommit` adds that the
 * evidence is not on the posted commit either.
 */
function verifyDefinitionChanged(input: ConclusionInput, offCommit: boolean): Conclusion | null {
  const record = input.changedFiles;
  if (record === undefined || record.verifyDefinition.length === 0) return null;
  const named = record.verifyDefinition
    .slice(0, FLAGGED_NAMED)
    .map((change) => `${change.path}: ${change.detail}`);
  const more = record.flaggedTotal - named.length;
  const list = `${named.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
  const data = record.verifyDefinition.some((c) => c.kind === "test-data" || c.kind === "named-by-test");
  return {
    conclusion: "action_required",
    outcome: "passed",
    rule: "verify-definition-changed",
    title: data
      ? "Verified, but the nodes changed what the tests compare against"
      : "Verified, but the nodes changed what the verify command runs",
    reason:
      `Every sink's verify passed, but the nodes changed what defines it (${list}). ` +
      'A passing verify then shows only that the changed definition passes, not that the build and tests it ran before still pass (a script replaced by "true" passes on anything). ' +
      (data
        ? "A test's data (a fixture, snapshot, golden file, or a file a test reads) changed too: a test then passes when its expected values were changed to match the code, not the code fixed. "
        : "") +
      "A reviewer must read these changes and confirm they keep every build step and test running (no script emptied or pointed elsewhere, no test deleted, renamed away or skipped, no expected value changed to match the code), then verify again; --commit and the action's push leave such changes uncommitted (patch.diff)." +
      (offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : ""),
  };
}

/**
 * The `action_required` of a verify that ran on bytes its evidence tree does not cover — changed git-ignored
 * files, writes outside the repository (any row, any node), bytes the tree does not hold — or `null`.
 * `offCommit` adds that the evidence is not on the posted commit either.
 */
function bytesBeyondTheTree(sinks: VerifiedSinks, offCommit: boolean): Conclusion | null {
  const { input, last, verified } = sinks;
  const besides = offCommit ? ` Besides, ${PATCH_NOT_ON_COMMIT}.` : "";
  const ignoredChanged = verified.filter((id) => last.get(id)?.verify?.ignoredFiles === "changed");
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
        besides +
        (outside !== null ? ` ${outsideSentence}` : ""),
    };
  }
  // The verify may have passed only because of the files written outside.
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
        besides,
    };
  }
  const gaps = verified.flatMap((id) => {
    const parts = evidenceGapParts(last.get(id)?.verify);
    return parts.length === 0 ? [] : [`sink "${id}": ${parts.join("; ")}`];
  });
  if (gaps.length === 0) return null;
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
      "commit it, and re-run. For files the verify command changed while it ran: make the command leave " +
      "tracked files alone (`npm ci`, not `npm install`; no formatter or snapshot update in the verify) or " +
      "commit what it writes, and re-run. Or undo the edits and re-run." +
      besides,
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
 * The receipts rules (ADR 0016; SPEC §6 "a recognised test runner reports that the verify command ran no
 * test"), or `null` when every verified sink's receipt makes evidence. A sink's row says which. `which`:
 * `required` judges only the policy's `require-tests` (rule 0b, `failure`); `observed` only what the
 * receipts show (rule 2b, `action_required`).
 */
function judgeReceipts(sinks: VerifiedSinks, which: "required" | "observed"): Conclusion | null {
  const { last, verified } = sinks;
  const required: string[] = [];
  const noTest: string[] = [];
  const failing: string[] = [];
  for (const id of verified) {
    const verify = last.get(id)?.verify;
    const receipt = verify?.receipt;
    if (
      verify?.testsRequired === true &&
      (receipt === undefined || receipt.kind === "none" || receipt.ran === 0)
    ) {
      required.push(
        `sink "${id}": ${receipt === undefined || receipt.kind === "none" ? `no test receipt (${receipt?.reason ?? "none recorded"})` : receiptWords(receipt)}`,
      );
    } else if (receipt?.kind === "counts" && receipt.ran === 0) {
      noTest.push(`sink "${id}": ${receiptWords(receipt)}`);
    } else if (receipt?.kind === "counts" && receipt.failed > 0 && verify?.expectExit === 0) {
      // A verify that expects a non-zero exit (`expect_exit: 1`: "this test must fail") wants failures.
      failing.push(`sink "${id}": ${receiptWords(receipt)}`);
    }
  }
  if (which === "required") {
    if (required.length === 0) return null;
    return {
      conclusion: "failure",
      outcome: "failed",
      rule: "tests-required",
      title: "Failed (require-tests): a verify ran no test the engine could see",
      reason: `The maintainers' policy file (.github/evidence-gate.yml) sets require-tests: true, and ${required.join("; ")}. A verify counts as evidence only when a recognised test runner (or a test report the command wrote, test-reports) shows at least one test ran. Make the verify command run the tests, or name the report files it writes in test-reports.`,
    };
  }
  if (noTest.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-no-test",
      title: "Verified, but the verify command ran no test",
      reason: `The verify command exited as expected, but its test runner reported that no test ran (${noTest.join("; ")}): test files moved, a filter that matches nothing, or a runner pointed at the wrong folder all look like this, and a command that tests nothing is no evidence that the change works. Make the command run the tests and verify again.`,
    };
  }
  if (failing.length > 0) {
    return {
      conclusion: "action_required",
      outcome: "passed",
      rule: "verified-failing-tests",
      title: "Verified, but the test runner reported failing tests",
      reason: `The verify command exited as expected, but its test runner reported failing tests (${failing.join("; ")}): the command ignores its tests' result (an "|| true", a runner told not to fail). Fix the tests, or make the command fail when they fail, and verify again.`,
    };
  }
  return null;
}
