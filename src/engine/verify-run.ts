/**
 * `verify` (SPEC §10): the smallest gate. No model runs: the engine runs the operator's verify command once
 * on the checked-out tree (evidence tree taken just before it, the verify child environment of SPEC §9),
 * and the ledger has one row — node id `verify`, labelled "verify (engine)" — `PASS (verified)` or FAIL
 * (`verify_failed`, with the command, its exit code and the output tail). The ending (conclusion, ledger,
 * `ledger.json`) is `finish-run.ts`'s, as for every run, so a verify run is judged and posted like any run.
 *
 * It is what the action runs for `mode: verify`, and for a pull request without a model credential (a fork,
 * Dependabot) when a verify command is given; the CLI's `evidence-gate verify` calls it too.
 */

import { type LedgerRow, NOTHING_SPENT, type VerifyEvidence } from "../core/ledger-row.js";
import { runTimedOut, stopWords } from "../core/run-timeout.js";
import { shownCommand } from "../core/shown-command.js";
import { BaseVerifier } from "../evidence/base-verify.js";
import { type RunVerifyOptions, receiptSettingsOf, runVerify } from "../evidence/verify.js";
import { emptyVerifyCommandProblem } from "../evidence/verify-choice.js";
import { verifyExitWords } from "../ledger/cells.js";
import type { RunEnd } from "../ledger/conclusion.js";
import type { PlanSection } from "../ledger/ledger.js";
import { verifyOnlyDisclosure } from "../policy/disclosure.js";
import { handBackBeforeEngineReads } from "../proc/hand-back.js";
import { finishRun, type GraphOutline, snapshotLedger } from "./finish-run.js";
import { openFreshRun, planPolicy, prepareFreshRepository, type RecordedPolicy } from "./fresh-run.js";
import type { FinishedLeg } from "./leg.js";
import { runEndOfAbort } from "./run-end.js";
import type { EngineRunBase, ModelCliOptions, PullRequestContext } from "./run-options.js";

/** The node id of the one row, and its label (SPEC §10). */
export const VERIFY_NODE_ID = "verify";
export const VERIFY_NODE_LABEL = "verify (engine)";

/**
 * Everything `verify` needs, parsed and checked by the entry point. Times in ms. No model runs, so the
 * model-CLI options and `commit` of {@link EngineRunBase} do not apply.
 */
export interface VerifyRunOptions
  extends Omit<EngineRunBase, keyof ModelCliOptions | "commit" | "publish" | "indexOverlay"> {
  /** The command line (`/bin/sh -e -c`), from the workflow / CLI flag or the base branch's policy file. */
  readonly verifyCmd: string;
  /** Who gave the command: recorded as the build-evidence answer `attached` (SPEC §5). */
  readonly declaredBy: "input" | "policy";
  /** The checked-out repository root (git work tree). */
  readonly repoDir: string;
  /** Sub-directory the command runs in (input `working-directory`, flag `--working-directory`). */
  readonly workingDirectory?: string;
  readonly verifyTimeoutMs: number;
  /** Variable names passed through to the command (input `verify-env`). */
  readonly verifyEnv: readonly string[];
  /** The PR head and base (action): a test merge commit is described as "the merge of <head> into <base>". */
  readonly pr?: PullRequestContext;
  /** CLI `--sha`: the head the check is posted on when HEAD is a merge of it. */
  readonly postedHeadSha?: string;
  /** Base-branch policy: `require-evidence` and where it was read (the plan section names it). */
  readonly policy?: RecordedPolicy;
}

export type VerifyRunResult = { readonly kind: "usage_error"; readonly message: string } | FinishedLeg;

/** The one-row outline the ending judges: `verify` is the run's only node and its only sink. */
const OUTLINE: GraphOutline = { sinks: [VERIFY_NODE_ID], nodes: [{ id: VERIFY_NODE_ID, type: "engine" }] };

/**
 * Runs the verify command once and writes the ledger. A command that runs nothing (blank, or only `#`
 * comments: `verifyCommandRunsNothing`, the check `auto` makes), a working directory outside the
 * repository, or a folder that is not a git repository with a commit is a usage error (nothing ran).
 * Rejects only on internal errors.
 */
export async function runVerifyOnly(o: VerifyRunOptions): Promise<VerifyRunResult> {
  const empty = emptyVerifyCommandProblem(o.verifyCmd, {
    surface: o.surface,
    declaredBy: o.declaredBy,
    ...(o.policy?.source !== undefined ? { policySource: o.policy.source } : {}),
  });
  if (empty !== null) return { kind: "usage_error", message: `${empty} Nothing was run.` };
  // No model runs and nothing is committed: git snapshots the tree as it is (no `indexOverlay`).
  const gitContext = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  const prepared = await prepareFreshRepository(o, { commit: false, gitContext });
  if (!prepared.ok) return { kind: "usage_error", message: prepared.message };
  const { repo } = prepared;

  const answer = { kind: "attached" as const, command: o.verifyCmd, declaredBy: o.declaredBy };
  const frame = openFreshRun(o, {
    mode: "verify",
    leg: "fresh",
    runtime: "claude",
    repo,
    gitContext,
    // The ledger names the PR head it is about: `mode: report` and the bot refuse a ledger without it.
    ...(o.pr ? { headSha: o.pr.headSha } : {}),
    answer,
    requireEvidence: o.policy?.requireEvidence === true,
    commit: null,
    // The ledger names the head it is about, as auto/run do: `mode: report` posts a fork's verify-only run
    // only when the ledger's headSha is the workflow_run event's.
    ...(o.pr ? { headSha: o.pr.headSha } : {}),
  });
  const { dir, redactor } = frame;
  const plan: PlanSection = {
    buildEvidence: answer,
    sinkCommands: [{ nodeId: VERIFY_NODE_ID, command: o.verifyCmd }],
    disclosure: verifyOnlyDisclosure(),
    nodes: [{ id: VERIFY_NODE_ID, dependsOn: [], allowedTools: [], sink: true }],
    planningCostUsd: 0,
    ...planPolicy(o.policy),
  };
  await o.hooks?.onRunStarted?.(frame.runId, dir.path);
  await o.hooks?.onPlan?.(redactor.deep(plan));
  await o.hooks?.onProgress?.(snapshotLedger(frame, { plan, rows: [], calls: [] }), "plan");

  dir.event({ type: "node_verifying", node: VERIFY_NODE_ID, command: o.verifyCmd });
  const verifyOptions: RunVerifyOptions = {
    command: o.verifyCmd,
    cwd: repo.workDir,
    timeoutMs: o.verifyTimeoutMs,
    expectExit: 0,
    env: o.baseEnv,
    passThrough: o.verifyEnv,
    knownSecrets: o.knownSecrets,
    ...(o.verifyRepeat !== undefined ? { repeat: o.verifyRepeat } : {}),
    receipts: receiptSettingsOf(o.policy, o.testReports),
    // No node runs beside it: what the command made is handed back before the engine's git re-reads it.
    beforeReread: () => handBackBeforeEngineReads([repo.workDir]),
    ...(o.echo ? { echo: o.echo } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  };
  const evidence = await withBase(o, frame, verifyOptions, await runVerify(verifyOptions));
  const cancelled = o.signal?.aborted === true && evidence.outcome !== "passed";
  const common = {
    nodeId: VERIFY_NODE_ID,
    label: VERIFY_NODE_LABEL,
    ...NOTHING_SPENT,
    durationMs: evidence.durationMs,
    sink: true,
    verify: evidence,
  };
  const row: LedgerRow =
    evidence.outcome === "passed"
      ? {
          ...common,
          verdict: "PASS",
          qualifier: "verified",
          detail: `the engine ran \`${shownCommand(o.verifyCmd)}\`: ${verifyExitWords(evidence)}`,
        }
      : {
          ...common,
          verdict: "FAIL",
          cause: cancelled ? "cancelled" : "verify_failed",
          detail:
            runTimedOut(o.signal) !== null
              ? `verify \`${shownCommand(o.verifyCmd)}\` stopped: ${stopWords(o.signal)}`
              : `verify \`${shownCommand(o.verifyCmd)}\` ${verifyExitWords(evidence)}`,
        };
  dir.event(
    row.verdict === "PASS"
      ? { type: "node_passed", node: VERIFY_NODE_ID, qualifier: "verified" }
      : { type: "node_failed", node: VERIFY_NODE_ID, cause: row.cause, detail: row.detail },
  );
  const end: RunEnd = cancelled ? runEndOfAbort(o.signal) : { kind: "completed" };
  const finished = await finishRun(frame, { graph: OUTLINE, rows: [row], plan, calls: [], end });
  return { kind: "finished", ...finished, runDir: dir.path, warnings: [] };
}

/**
 * `verify-base` (ADR 0017): the head's evidence with the base's run beside it (`evidence/base-verify.ts`),
 * its worktree removed before the ledger is written; the evidence as it is when `verify-base` is off or the
 * head run was cancelled.
 */
async function withBase(
  o: VerifyRunOptions,
  frame: { readonly repoDir: string; readonly start: { readonly sha: string } },
  options: RunVerifyOptions,
  head: VerifyEvidence,
): Promise<VerifyEvidence> {
  if (o.verifyBase === undefined || o.signal?.aborted === true) return head;
  const verifier = new BaseVerifier({
    repoDir: frame.repoDir,
    startCommit: frame.start.sha,
    setting: o.verifyBase,
    baseEnv: o.baseEnv,
    knownSecrets: o.knownSecrets,
    runVerify,
  });
  try {
    return { ...head, base: await verifier.compare(options, head) };
  } finally {
    await verifier.close();
  }
}
