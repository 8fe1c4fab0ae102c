/**
 * What becomes of the nodes' changes when a run ends (SPEC §10, ADR 0008): committed with `--commit` (and,
 * for the action's push, published to the pull request's branch) only when the evidence would stand on
 * that commit, else saved as `patch.diff` with a redacted preview in the ledger. `finish-run.ts` then
 * judges the run on the commit this leaves posted.
 */
import type { LedgerRow } from "../core/ledger-row.js";
import { commitWorkingTree, treePatch, type WorkingTreePatch, workingTreePatch } from "../evidence/patch.js";
import type { Conclusion, RunEnd } from "../ledger/conclusion.js";
import type { PatchSummary } from "../ledger/ledger.js";
import type { RunFrame } from "./run-frame.js";

/** What the nodes' changes are judged on. */
export interface NodesChangesInput {
  readonly rows: readonly LedgerRow[];
  readonly end: RunEnd;
  /** The working tree as the leg left it; `null` when it could not be read (then no change is known). */
  readonly finalTree: string | null;
  /** The run's conclusion were `postedCommitTree` the posted commit's tree (`decideConclusion`). */
  readonly judge: (postedCommitTree: string | null) => Conclusion;
}

/** The commit the check run is posted on: the starting commit, or the nodes' commit once made (and published). */
export interface PostedCommit {
  readonly sha: string;
  readonly tree: string;
  /** Says what the commit is, for the ledger ("the nodes' changes, committed by --commit"); `""` for the start. */
  readonly note: string;
}

/** Where the nodes' changes went. */
export interface NodesChanges {
  readonly posted: PostedCommit;
  /** The action's push was refused, and why (the run then fails: rule `push-refused`); else `null`. */
  readonly publishRefused: string | null;
  /** The ledger's patch section, when the changes were saved as `patch.diff` rather than posted. */
  readonly patch?: PatchSummary;
}

/**
 * Commits the nodes' changes when the run earned it (see {@link commitIfEvidenceStands}), else saves them
 * as `patch.diff`. Nothing changed (or the tree cannot be read): the starting commit stays posted.
 *
 * @throws git errors (internal errors).
 */
export async function settleNodesChanges(frame: RunFrame, input: NodesChangesInput): Promise<NodesChanges> {
  const { start } = frame;
  const unposted: PostedCommit = { sha: start.sha, tree: start.tree, note: "" };
  if (input.finalTree === null || input.finalTree === start.tree)
    return { posted: unposted, publishRefused: null };
  // The nodes' changes, diffed once: checked for secrets before a --commit, saved when not committed.
  const nodesPatch = await workingTreePatch(frame.repoDir, start.sha, frame.gitContext);
  const attempt = await commitIfEvidenceStands(frame, { ...input, finalTree: input.finalTree, nodesPatch });
  if (attempt.posted !== null) return { posted: attempt.posted, publishRefused: null };
  return {
    posted: unposted,
    publishRefused: attempt.publishRefused,
    patch: savePatch(frame, nodesPatch, attempt.notCommittedBecause),
  };
}

/** A run whose working tree differs from its starting commit, with the patch between them. */
interface ChangedRun extends NodesChangesInput {
  readonly finalTree: string;
  readonly nodesPatch: WorkingTreePatch;
}

/** A commit made (and published, for a push), or why the changes stay uncommitted. */
type CommitAttempt =
  | { readonly posted: PostedCommit }
  | {
      readonly posted: null;
      readonly publishRefused: string | null;
      /** Set when `--commit` was asked, every node passed, and the changes still stay uncommitted. */
      readonly notCommittedBecause?: string;
    };

/**
 * `--commit` commits only a completed run whose every node passed, whose changes hold no known secret,
 * and whose evidence would stand on that commit — judged as if it were committed, so ignored files or
 * outside writes the build used, submodule or `.gitattributes` gaps keep it uncommitted. A commit that
 * will be published (the action's push) needs `success` on that very tree: a neutral run's unverified
 * changes are never pushed to a PR branch (ADR 0008). What is committed is the sinks' one evidence tree
 * when they share it, else the working tree.
 */
async function commitIfEvidenceStands(frame: RunFrame, run: ChangedRun): Promise<CommitAttempt> {
  const { redactor } = frame;
  // --commit never puts a failed run's changes on the branch: they stay in patch.diff for a person to judge.
  // Judged by each node's last execution: a retry or feedback round that then passed does not count against it.
  const lastRows = [...new Map(run.rows.map((r) => [r.nodeId, r])).values()];
  const everyRowPassed = lastRows.length > 0 && lastRows.every((r) => r.verdict === "PASS");
  // Each sink's last execution (a superseded attempt's tree is no evidence of the end state).
  const sinkTrees = new Set(
    lastRows.filter((r) => r.sink && r.verify?.evidenceTree).map((r) => r.verify!.evidenceTree!),
  );
  const verifiedTree = sinkTrees.size === 1 ? [...sinkTrees][0]! : undefined;
  // What is judged is what would be committed, and only that: never a fresh `git add -A` of whatever the
  // working tree holds by then (a retry's superseded sink rows leave no one verified tree).
  const judgedTree = verifiedTree ?? run.finalTree;
  const wouldBe = run.judge(judgedTree).conclusion;
  // The secret check reads the changes of that very tree.
  const changesHoldSecret = redactor.contains(
    judgedTree === run.nodesPatch.tree
      ? run.nodesPatch.diff
      : await treePatch(frame.repoDir, frame.start.sha, judgedTree, frame.gitContext),
  );
  const publish = frame.commit?.publish;
  const evidenceStands =
    publish !== undefined ? wouldBe === "success" : wouldBe === "success" || wouldBe === "neutral";
  if (
    frame.commit === null ||
    run.end.kind !== "completed" ||
    !everyRowPassed ||
    changesHoldSecret ||
    !evidenceStands
  ) {
    const because =
      frame.commit !== null && everyRowPassed && !evidenceStands
        ? publish !== undefined
          ? `push mode pushes only changes verified on the pushed tree (a success), and this run's evidence would end ${wouldBe}`
          : `its evidence would end ${wouldBe}`
        : undefined;
    return {
      posted: null,
      publishRefused: null,
      ...(because !== undefined ? { notCommittedBecause: because } : {}),
    };
  }
  const committed = await commitWorkingTree(frame.repoDir, {
    ...frame.gitContext,
    tree: judgedTree,
    message: `evidence-gate: ${redactor.text(firstLine(frame.commit.message))}`,
    trailer: `Evidence-Gate-Run: ${frame.runId}`,
    // The changes are a diff from the starting commit: onto it, or not at all (issue 17 item 4).
    parent: frame.start.sha,
  });
  if (committed === null) return { posted: null, publishRefused: null };
  if (typeof committed === "object") {
    const from = frame.start.sha.slice(0, 7);
    return {
      posted: null,
      publishRefused: null,
      notCommittedBecause: `HEAD moved while the run ran (from ${from} to ${committed.head?.slice(0, 7) ?? "no commit"}: another run's --commit, or a commit made meanwhile), and the nodes' changes were made on ${from}`,
    };
  }
  const sha = committed;
  const tree = judgedTree;
  if (publish === undefined)
    return { posted: { sha, tree, note: "the nodes' changes, committed by --commit" } };
  const published = await publish({ sha, tree });
  if (published.kind === "published") return { posted: { sha, tree, note: published.note } };
  return {
    posted: null,
    publishRefused: published.reason,
    notCommittedBecause: `the push was refused: ${published.reason}`,
  };
}

/**
 * Writes `patch.diff` and returns the ledger's patch section. The file is the nodes' content byte for
 * byte and is left as is (a redacted patch would not apply); the ledger's preview (first 4,000
 * characters) is redacted, and says so when the patch holds a known secret.
 */
function savePatch(
  frame: RunFrame,
  p: WorkingTreePatch,
  notCommittedBecause: string | undefined,
): PatchSummary {
  const { redactor } = frame;
  const path = frame.dir.writeBytes("patch.diff", p.diffBytes);
  return {
    path,
    bytes: p.diffBytes.length,
    preview: redactor.text(p.diff).slice(0, 4000),
    ...(redactor.contains(p.diff) ? { holdsSecret: true as const } : {}),
    ...(notCommittedBecause !== undefined ? { notCommittedBecause } : {}),
  };
}

/** The commit message's first line, at most 72 characters. */
function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 72);
}
