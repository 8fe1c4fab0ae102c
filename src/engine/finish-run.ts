/**
 * The end of every run, whatever its mode (`auto`, `run`, a resumed leg): the final evidence tree, the
 * nodes' changes (committed with `--commit` when the evidence would stand on that commit, else saved as
 * `patch.diff`), the conclusion (SPEC §6 table) and the redacted ledger written to `ledger.json`.
 */
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import type { LedgerRow } from "../core/ledger-row.js";
import type { Redactor } from "../core/redact.js";
import { evidenceTree, type IndexOverlay } from "../evidence/evidence-tree.js";
import { commitWorkingTree, type HeadMoved, workingTreePatch } from "../evidence/patch.js";
import type { Graph } from "../graph/graph.js";
import { type Conclusion, decideConclusion, type RunEnd } from "../ledger/conclusion.js";
import { computeTotals, type Ledger, type PlanningCall, type PlanSection } from "../ledger/ledger.js";
import type { RedactingRunDirectory } from "./redacting-run-dir.js";

/** A written ledger, and the digests of the run state it rests on (see `RunDirectory.digestOf`). */
export interface FinishedRun {
  readonly ledger: Ledger;
  readonly ledgerPath: string;
  /** sha256 (hex) of `state.json` and `graph.json` as this process last wrote (or checked) them. */
  readonly digests: { readonly state: string | null; readonly graph: string | null };
}

/** The run-wide facts every ending needs. */
export interface RunFrame {
  readonly runId: string;
  readonly mode: Ledger["mode"];
  readonly goal?: string;
  readonly runtime: "claude" | "codex";
  readonly model?: string;
  readonly repoDir: string;
  readonly gitContext: {
    readonly baseEnv: Readonly<Record<string, string | undefined>>;
    readonly knownSecrets: readonly string[];
    /** See `AutoRunOptions.indexOverlay`: every evidence tree and the patch go through it. */
    readonly indexOverlay?: IndexOverlay;
  };
  readonly start: { readonly sha: string; readonly tree: string; readonly description: string };
  /** The pull request's head commit the run is about (the ledger's `headSha`), when one was given. */
  readonly headSha?: string;
  readonly answer: BuildEvidenceAnswer;
  readonly requireEvidence: boolean;
  /**
   * Commit the nodes' changes when the run ends (CLI `--commit`, the action's `push`), with this first line.
   * With `publish` (the action's push, SPEC §10) the commit is made only when the run would conclude
   * `success` on it — every node passed and every non-gate sink verified that very tree (ADR 0008) — and it
   * becomes the posted commit only once `publish` says it is on the branch.
   */
  readonly commit: { readonly message: string; readonly publish?: PublishCommit } | null;
  readonly redactor: Redactor;
  readonly dir: RedactingRunDirectory;
  readonly startedAt: string;
}

/** What {@link PublishCommit} did: on the branch (and how to name it), or refused with the reason. */
export type PublishResult =
  | {
      readonly kind: "published";
      /** Says where the commit went, for the ledger ("the nodes' verified changes, pushed to feature"). */
      readonly note: string;
    }
  | { readonly kind: "refused"; readonly reason: string };

/**
 * Puts the run's commit where the check run will be posted (the action pushes it to the PR branch). Called
 * once, after the commit was made; never throws for a refusal (it returns one), only for internal errors.
 */
export type PublishCommit = (commit: {
  readonly sha: string;
  readonly tree: string;
}) => Promise<PublishResult>;

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
    ...(frame.goal !== undefined ? { goal: frame.goal } : {}),
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
 * a known secret, or changes whose evidence would not stand on that commit (judged as if committed).
 *
 * @returns the redacted ledger and the path of `ledger.json`.
 */
export async function finishRun(frame: RunFrame, input: FinishInput): Promise<FinishedRun> {
  const { redactor, dir, start, gitContext, repoDir } = frame;
  const sinks = input.graph ? input.graph.sinks : [];
  const gateSinks = input.graph
    ? input.graph.nodes.filter((n) => n.type === "gate" && sinks.includes(n.id)).map((n) => n.id)
    : [];
  let postedTree: string | null = start.tree;
  let postedSha = start.sha;
  let patch: Ledger["patch"];
  const finalTree = input.finalTree !== undefined ? input.finalTree : await workingTreeOrNull(frame);
  const changed = finalTree !== null && finalTree !== start.tree;
  let commitNote = "";
  // --commit never puts a failed run's changes on the branch: they stay in patch.diff for a person to judge.
  // Judged by each node's last execution: a retry or feedback round that then passed does not count against it.
  const lastRows = [...new Map(input.rows.map((r) => [r.nodeId, r])).values()];
  const everyRowPassed = lastRows.length > 0 && lastRows.every((r) => r.verdict === "PASS");
  // The nodes' changes, diffed once: checked for secrets before a --commit, saved when not committed.
  const nodesPatch = changed ? await workingTreePatch(repoDir, start.sha, gitContext) : null;
  const changesHoldSecret = nodesPatch !== null && redactor.contains(nodesPatch.diff);
  // Commit what was verified: the sinks' one evidence tree when they share it, else the working tree.
  const sinkTrees = new Set(
    input.rows.filter((r) => r.sink && r.verify?.evidenceTree).map((r) => r.verify!.evidenceTree!),
  );
  const verifiedTree = sinkTrees.size === 1 ? [...sinkTrees][0]! : undefined;
  const judge = (postedCommitTree: string | null) =>
    decideConclusion({
      rows: input.rows,
      sinks,
      gateSinks,
      buildEvidence: frame.answer,
      postedCommitTree,
      requireEvidence: frame.requireEvidence,
      end: input.end,
    });
  // --commit also never commits a run whose evidence would not stand on that commit (ignored files or
  // outside writes the build used, submodule or .gitattributes gaps): judged as if it were committed.
  // A commit that will be published (the action's push) needs more: verified evidence on that very tree —
  // a neutral run's unverified changes are never pushed to a PR branch (ADR 0008).
  const wouldBe = judge(verifiedTree ?? finalTree).conclusion;
  const publish = frame.commit?.publish;
  const evidenceStands =
    publish !== undefined ? wouldBe === "success" : wouldBe === "success" || wouldBe === "neutral";
  let publishRefused: string | null = null;
  let headMoved: HeadMoved | null = null;
  if (
    changed &&
    frame.commit !== null &&
    input.end.kind === "completed" &&
    everyRowPassed &&
    !changesHoldSecret &&
    evidenceStands
  ) {
    const committed = await commitWorkingTree(repoDir, {
      ...gitContext,
      ...(verifiedTree !== undefined ? { tree: verifiedTree } : {}),
      message: `evidence-gate: ${redactor.text(firstLine(frame.commit.message))}`,
      trailer: `Evidence-Gate-Run: ${frame.runId}`,
      // The changes are a diff from the starting commit: onto it, or not at all (issue 17 item 4).
      parent: start.sha,
    });
    if (committed !== null && typeof committed === "object") headMoved = committed;
    const sha = typeof committed === "string" ? committed : null;
    const tree = verifiedTree ?? finalTree;
    if (sha !== null && publish !== undefined) {
      const published = await publish({ sha, tree: tree! });
      if (published.kind === "published") {
        postedSha = sha;
        postedTree = tree;
        commitNote = published.note;
      } else {
        publishRefused = published.reason;
      }
    } else if (sha !== null) {
      postedSha = sha;
      postedTree = tree;
      commitNote = "the nodes' changes, committed by --commit";
    }
  }
  if (changed && postedSha === start.sha) {
    const p = nodesPatch!;
    // patch.diff is the nodes' content byte for byte and is left as is (a redacted patch would not apply);
    // the ledger's preview is redacted, and says so when the patch holds a known secret.
    const path = dir.writeBytes("patch.diff", p.diffBytes);
    const notCommittedBecause =
      publishRefused !== null
        ? `the push was refused: ${publishRefused}`
        : headMoved !== null
          ? `HEAD moved while the run ran (from ${start.sha.slice(0, 7)} to ${headMoved.head?.slice(0, 7) ?? "no commit"}: another run's --commit, or a commit made meanwhile), and the nodes' changes were made on ${start.sha.slice(0, 7)}`
          : frame.commit !== null && everyRowPassed && !evidenceStands
            ? publish !== undefined
              ? `push mode pushes only changes verified on the pushed tree (a success), and this run's evidence would end ${wouldBe}`
              : `its evidence would end ${wouldBe}`
            : undefined;
    patch = {
      path,
      bytes: p.diffBytes.length,
      preview: redactor.text(p.diff).slice(0, 4000),
      ...(redactor.contains(p.diff) ? { holdsSecret: true as const } : {}),
      ...(notCommittedBecause !== undefined ? { notCommittedBecause } : {}),
    };
  }
  // A refused push fails the run: its verified changes are not on the branch the check run speaks for.
  const decided = publishRefused !== null ? pushRefused(publishRefused) : judge(postedTree);
  const unredacted: Ledger = {
    ...unconcluded(frame, input),
    conclusion: decided,
    finishedAt: new Date().toISOString(),
    ...(postedSha !== start.sha && postedTree !== null
      ? {
          postedCommit: {
            sha: postedSha,
            tree: postedTree,
            description: `${postedSha.slice(0, 7)} (${commitNote})`,
          },
        }
      : {}),
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
    digests: { state: dir.digestOf("state.json"), graph: dir.digestOf("graph.json") },
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

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 72);
}

/** The repository's working tree (`evidenceTree`), or `null` when it cannot be read. */
export async function workingTreeOrNull(
  frame: Pick<RunFrame, "repoDir" | "gitContext">,
): Promise<string | null> {
  try {
    return await evidenceTree(frame.repoDir, frame.gitContext);
  } catch {
    return null;
  }
}
