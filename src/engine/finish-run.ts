/**
 * The end of every run, whatever its mode (`auto`, `run`, a resumed leg): the final evidence tree, the
 * nodes' changes (listed in the changed-files record; committed with `--commit` when the evidence would
 * stand on that commit, else saved as `patch.diff`), the conclusion (SPEC §6 table) and the redacted
 * ledger written to `ledger.json`.
 */
import type { ChangedFiles } from "../core/changed-files-record.js";
import type { LedgerRow } from "../core/ledger-row.js";
import { changedFilesRecord } from "../evidence/changed-files.js";
import { evidenceTree } from "../evidence/evidence-tree.js";
import type { Graph } from "../graph/graph.js";
import { type Conclusion, decideConclusion, type RunEnd } from "../ledger/conclusion.js";
import { computeTotals, type Ledger, type PlanningCall, type PlanSection } from "../ledger/ledger.js";
import { fitLedgerText } from "../ledger/render-json.js";
import { handBackPrCodeFiles } from "../proc/hand-back.js";
import { IGNORED_BASELINE_FILE } from "./graph-run.js";
import { settleNodesChanges } from "./nodes-changes.js";
import type { RunFrame } from "./run-frame.js";

/** A written ledger, and the digests of the run state it rests on (see `RunDirectory.digestOf`). */
export interface FinishedRun {
  readonly ledger: Ledger;
  readonly ledgerPath: string;
  /** sha256 (hex) of `state.json` and `graph.json` as this process last wrote (or checked) them. */
  readonly digests: {
    readonly state: string | null;
    readonly graph: string | null;
    /** `ignored-baseline.json`, which a resumed leg compares its verifies' git-ignored files with. */
    readonly ignored: string | null;
  };
}

/**
 * What the ending reads of the graph: its sinks and which nodes are gates. A `Graph` is one; `mode: verify`
 * passes its one engine row's outline (`verify-run.ts`) without a graph file.
 */
export type GraphOutline = Pick<Graph, "sinks"> & {
  readonly nodes: readonly { readonly id: string; readonly type: string }[];
};

export interface FinishInput {
  /** The working tree as the leg left it, when the caller already took it (`null`: could not be read). */
  readonly finalTree?: string | null;
  readonly graph: GraphOutline | null;
  readonly rows: readonly LedgerRow[];
  readonly plan: PlanSection;
  readonly calls: readonly PlanningCall[];
  readonly end: RunEnd;
}

/** An in-progress ledger (`conclusion: null`) for progress updates. Redacted. */
export function snapshotLedger(frame: RunFrame, input: Omit<FinishInput, "graph" | "end">): Ledger {
  return frame.redactor.deep(unconcluded(frame, input));
}

/** The ledger of the run so far, not yet concluded (not redacted): what a snapshot and the end share. */
function unconcluded(frame: RunFrame, input: Omit<FinishInput, "graph" | "end">): Ledger {
  return {
    schemaVersion: 1,
    runId: frame.runId,
    mode: frame.mode,
    // A goal longer than a ledger field holds is cut with a marker, so the ledger reads back.
    ...(frame.goal !== undefined ? { goal: fitLedgerText(frame.goal) } : {}),
    runtime: frame.runtime,
    ...(frame.model !== undefined ? { model: frame.model } : {}),
    plan: input.plan,
    rows: input.rows,
    totals: computeTotals(input.rows, input.calls),
    conclusion: null,
    startedAt: frame.startedAt,
    finishedAt: null,
    startingCommit: frame.start,
    ...(frame.headSha !== undefined ? { headSha: frame.headSha.toLowerCase() } : {}),
    evidenceTree: evidenceTreeOf(input.rows),
  };
}

/**
 * Decides and writes the ledger of a run that ended (or paused). `--commit` never commits a failed run,
 * a known secret, or changes whose evidence would not stand on that commit (judged as if committed;
 * `nodes-changes.ts`). Releases the run's lock: another leg may take the run then.
 *
 * @returns the redacted ledger, the path of `ledger.json`, and the digests of the state it rests on.
 */
export async function finishRun(frame: RunFrame, input: FinishInput): Promise<FinishedRun> {
  const { redactor, dir, start } = frame;
  const sinks = input.graph ? input.graph.sinks : [];
  const gateSinks = input.graph
    ? input.graph.nodes.filter((n) => n.type === "gate" && sinks.includes(n.id)).map((n) => n.id)
    : [];
  const finalTree = input.finalTree !== undefined ? input.finalTree : await workingTreeOrNull(frame);
  const changedFiles = await changedFilesOf(frame, input.rows, finalTree);
  const judge = (postedCommitTree: string | null) =>
    decideConclusion({
      rows: input.rows,
      sinks,
      gateSinks,
      buildEvidence: frame.answer,
      postedCommitTree,
      requireEvidence: frame.requireEvidence,
      end: input.end,
      ...(changedFiles !== null ? { changedFiles } : {}),
    });
  const changes = await settleNodesChanges(frame, { rows: input.rows, end: input.end, finalTree, judge });
  const { posted, publishRefused, patch } = changes;
  // A refused push fails the run: its verified changes are not on the branch the check run speaks for.
  const decided = publishRefused !== null ? pushRefused(publishRefused) : judge(posted.tree);
  const unredacted: Ledger = {
    ...unconcluded(frame, input),
    conclusion: decided,
    finishedAt: new Date().toISOString(),
    ...(posted.sha !== start.sha
      ? {
          postedCommit: {
            sha: posted.sha,
            tree: posted.tree,
            description: `${posted.sha.slice(0, 7)} (${posted.note})`,
          },
        }
      : {}),
    ...(changedFiles !== null ? { changedFiles } : {}),
    ...(patch ? { patch } : {}),
  };
  const ledger = redactor.deep(unredacted);
  const ledgerPath = dir.writeJson("ledger.json", ledger);
  dir.event({ type: "run_finished", outcome: decided.outcome, conclusion: decided.conclusion });
  // The leg is over: another leg may take the run now.
  dir.unlock();
  return {
    ledger,
    ledgerPath,
    digests: {
      state: dir.digestOf("state.json"),
      graph: dir.digestOf("graph.json"),
      ignored: dir.digestOf(IGNORED_BASELINE_FILE),
    },
  };
}

/**
 * The evidence tree of the run: the one tree every sink verify ran on; `null` when none ran, or when the
 * sinks verified different trees (then no single tree is the run's evidence; the ledger lists them).
 */
export function evidenceTreeOf(rows: readonly LedgerRow[]): string | null {
  const trees = new Set(
    rows.flatMap((row) => (row.sink && row.verify?.evidenceTree ? [row.verify.evidenceTree] : [])),
  );
  return trees.size === 1 ? [...trees][0]! : null;
}

/**
 * The files the nodes changed (the starting commit's tree against `finalTree`) and which of them touch what
 * defines the verify command; `null` when nothing changed, the final tree is unknown, or no node ran
 * (`mode: verify`: the engine's own row changes nothing, so a dirty start is not the nodes' doing).
 *
 * @throws git errors (internal errors).
 */
async function changedFilesOf(
  frame: RunFrame,
  rows: readonly LedgerRow[],
  finalTree: string | null,
): Promise<ChangedFiles | null> {
  if (frame.mode === "verify" || finalTree === null || finalTree === frame.start.tree) return null;
  const verifyCommands = rows.flatMap((row) =>
    row.verify !== undefined ? [{ command: row.verify.command, cwd: row.verify.cwd }] : [],
  );
  return changedFilesRecord(
    frame.repoDir,
    { baseTree: frame.start.tree, finalTree, verifyCommands },
    frame.gitContext,
  );
}

/** The conclusion of a run whose verified commit could not be published (rule `push-refused`). */
function pushRefused(reason: string): Conclusion {
  return {
    conclusion: "failure",
    outcome: "failed",
    rule: "push-refused",
    title: "Failed: the push to the pull request branch was refused",
    reason: `Every node passed and the changes were verified, but pushing them was refused: ${reason}. The verified changes are not on the branch: they are in patch.diff (run-directory artifact). If the branch moved while the run ran, run again on the new head.`,
  };
}

/**
 * The repository's working tree as the leg leaves it (`evidenceTree`), or `null` when it cannot be read.
 * No PR code runs any more by then: with the separate user, its processes are killed and the files it made
 * become the engine's user's first (`handBackPrCodeFiles`), so the engine's git can read and commit them.
 */
export async function workingTreeOrNull(
  frame: Pick<RunFrame, "repoDir" | "gitContext">,
): Promise<string | null> {
  handBackPrCodeFiles([frame.repoDir]);
  try {
    return await evidenceTree(frame.repoDir, frame.gitContext);
  } catch {
    return null;
  }
}
