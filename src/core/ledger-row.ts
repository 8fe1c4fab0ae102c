/**
 * The ledger model: one row per node execution, plus the run-level plan section and totals (SPEC §6).
 * Pure data; renderers in this folder turn it into text, Markdown and JSON.
 */

/** How a PASS was reached, strongest first (SPEC §6; seed 003). Closed set. */
export type Qualifier = "approved" | "verified" | "self-reported" | "exit-only";

/** Why a node failed (SPEC §6). Closed set. `cancelled` marks a sibling stopped by `on_fail: halt`. */
export type FailCause =
  | "verify_failed"
  | "result_mismatch"
  | "nonzero_exit"
  | "timeout"
  | "run_error"
  | "output_error"
  | "budget_exceeded"
  | "incomplete"
  | "cancelled"
  /** A gate a person rejected (`resume --reject`): its subtree is pruned and the run fails. */
  | "rejected";

/**
 * The most runs `verify-repeat` may ask for (input, flag, policy key), and so the most a row's
 * `repeat.runs` can be: ten builds on one tree is already a lot.
 */
export const MAX_VERIFY_REPEAT = 10;

/** A verify command the engine ran, with its evidence (SPEC §5, §6). Output tail is bounded (≤ 4 KiB). */
export interface VerifyEvidence {
  readonly command: string;
  readonly cwd: string;
  /** Exit code, or `null` when the command could not run / was killed (see `outcome`). */
  readonly exitCode: number | null;
  readonly expectExit: number;
  readonly outcome: "passed" | "failed" | "timed_out" | "spawn_failed";
  readonly durationMs: number;
  readonly outputTail: string;
  /** `git write-tree` hash of the working tree immediately before the command ran. */
  readonly evidenceTree: string | null;
  /** Set when this result was reused from another sink with the same tree and command. */
  readonly reusedFrom?: string;
  /**
   * The git-ignored files just before the command ran, against the run's baseline (taken when the run
   * started; ADR 0003 amendment): `changed` means the command ran on ignored files that are on no commit.
   * Absent when the caller did not measure them (hand-written rows, other modes): counts as `unchanged`.
   */
  readonly ignoredFiles?: "unchanged" | "changed" | "unknown";
  /** With `ignoredFiles: "changed"`: how many paths differ (`null` = not known) and up to 10 of them. */
  readonly ignoredFilesChanges?: IgnoredFilesChanges;
  /** With `ignoredFiles: "unknown"`: why they could not be compared. */
  readonly ignoredFilesReason?: string;
  /**
   * Submodule paths (at most 10) that had new commits, modified tracked content or untracked content just
   * before the command ran: bytes it ran on that the evidence tree (which holds only the gitlink) does not
   * (ADR 0003, amendment 2026-11-29, 2). Absent: none, or not measured.
   */
  readonly dirtySubmodules?: readonly string[];
  /**
   * Files whose working-tree bytes were not what checking out the evidence tree would produce (a
   * .gitattributes conversion folded an edit back to the committed blob), or `total: null` when that could
   * not be checked. Absent: none, or not measured.
   */
  readonly unrepresentedFiles?: UnrepresentedFiles;
  /**
   * Files of the evidence tree that were changed or removed while the command ran (it rewrote what it was
   * verifying: a test's expected data, a lock file, generated sources), compared once it exited as expected;
   * `total: null` when that could not be compared (`note` says why). The command's later steps ran on
   * bytes the recorded tree does not hold. Files it added are not listed (build outputs). Absent: none, or
   * not measured (a verify that did not pass, or a reused result).
   */
  readonly changedWhileRunning?: UnrepresentedFiles;
  /**
   * The graph's `success_check.verify.output_matches` and whether it matched the command's full combined
   * stdout+stderr (SPEC §3 "Patterns": RE2, Go `MatchString` search). `pattern` is its source as written;
   * `truncated: true` when the output went over the collector's bound (16 MiB) and only its first and last
   * 8 MiB were searched. An exit code as expected with `matched: false` is `outcome: "failed"`. Absent: the
   * node has no `output_matches` (the exit code alone decides).
   */
  readonly outputMatches?: {
    readonly pattern: string;
    readonly matched: boolean;
    readonly truncated?: true;
  };
  /**
   * `verify-repeat` (issue 25 item 5): how many times the command ran on this tree and how many of those
   * passed. `0 < passed < runs` is flaky, and `outcome` is then the first failing run's: never a pass.
   * Absent: it ran once.
   */
  readonly repeat?: { readonly runs: number; readonly passed: number };
  /**
   * What the command's tests did, as its test runner reported it (issue 25 item 1; SPEC §7b): counts read
   * from report files the command wrote (JUnit XML, TAP) or from a recognised runner's summary lines in
   * its output, or `kind: "none"` when nothing was recognised (a build-only command). Absent: a ledger
   * written before receipts existed, or a verify that could not run (timed out, could not start).
   */
  readonly receipt?: TestReceipt;
  /**
   * Set when the maintainers' policy `require-tests: true` applied to this verify: it is evidence only
   * with a receipt that ran at least one test (`ledger/judge-verified-sinks.ts`). Absent: not required.
   */
  readonly testsRequired?: true;
  /**
   * `verify-base` (issue 25 item 3; ADR 0017): the same command run on the base commit, in a worktree of its
   * own, and what the two results say together. Never a verdict: the head's result is the evidence. Absent:
   * `verify-base` was off (or the ledger predates it).
   */
  readonly base?: BaseComparison;
}

/**
 * What the head and the base say together (ADR 0017): `fixed` (fails on base, passes on head),
 * `passes_on_both`, `fails_on_both` (pre-existing: the head is still not green), `introduced` (passes on
 * base, fails on head), or `not_compared` (the base could not be run: why in {@link BaseComparison.reason}).
 */
export type BaseVerdict = "fixed" | "passes_on_both" | "fails_on_both" | "introduced" | "not_compared";

/** A verify's evidence on the base commit: a {@link VerifyEvidence} without a base of its own. */
export type BaseRunEvidence = Omit<VerifyEvidence, "base">;

/** The base run of one verify and its classification against the head's (ADR 0017). */
export interface BaseComparison {
  /** The base commit (40 hex), or `null` when it could not be resolved. */
  readonly commit: string | null;
  /** How the commit was chosen: `the pull request's base`, `the merge-base with main`, `the start commit's first parent`. */
  readonly chosenAs: string;
  readonly verdict: BaseVerdict;
  /** With `not_compared`: why (the commit is not in the repository, the worktree could not be made, …). */
  readonly reason?: string;
  /** The base run's evidence (its own evidence tree, exit code, receipt); absent when it did not run. */
  readonly verify?: BaseRunEvidence;
  /**
   * With `fixed`: the tests the base's receipt names as failing that the head's receipt does not (at most
   * {@link RECEIPT_MAX_NAMES}); absent when a receipt has no names.
   */
  readonly fixedTests?: readonly string[];
  /** Set when the head's receipt counts fewer tests run than the base's: a flag, never a verdict by itself. */
  readonly fewerTests?: { readonly base: number; readonly head: number };
}

/**
 * A verify command's test receipt (issue 25 item 1): what its tests did, as the runner reported it — never
 * a guess. `counts` when a runner's report or summary was read; `none` when nothing was recognised.
 */
export type TestReceipt = TestCounts | NoTestReceipt;

/**
 * The counts of one verify (summed over every summary or report read). `ran` is `passed + failed`: a
 * skipped (or todo, or pending) test is not a test that ran. `ran: 0` is "ran no test", which never makes
 * evidence (ADR 0016).
 */
export interface TestCounts {
  readonly kind: "counts";
  /** The runners (or report formats) read, e.g. `["pytest"]`, `["junit-xml"]`; at least one. */
  readonly runners: readonly string[];
  /** Where the counts were read: the command's output, or report files it wrote. */
  readonly source: "output" | "reports";
  /** With `source: "reports"`: the files read (relative to the command's directory; at most 10). */
  readonly files?: readonly string[];
  readonly ran: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** The failing tests' names as the runner printed them (at most {@link RECEIPT_MAX_NAMES}). */
  readonly failedNames: readonly string[];
  /** `false` when the runner reported failures whose names were not all read (cut output, more than kept). */
  readonly failedNamesComplete: boolean;
}

/** No receipt: no report file was found and no runner's summary was recognised (or it was cut off). */
export interface NoTestReceipt {
  readonly kind: "none";
  /** Why, in a few words (e.g. "no test runner's summary was recognised in the output"). */
  readonly reason: string;
}

/** The most failing-test names a receipt keeps. */
export const RECEIPT_MAX_NAMES = 20;

/** Files the evidence tree does not represent: how many (`null` = not known), up to 10 of them, and why not known. */
export interface UnrepresentedFiles {
  readonly total: number | null;
  readonly examples: readonly string[];
  readonly note?: string;
}

/** The git-ignored paths that changed, were added or were removed since the baseline. */
export interface IgnoredFilesChanges {
  readonly total: number | null;
  readonly examples: readonly {
    readonly path: string;
    readonly change: "modified" | "added" | "removed";
  }[];
  /** Said besides the examples, e.g. that the listing went over its bound. */
  readonly note?: string;
}

/** Paths written outside the repository: how many, and up to 10 of them (absolute, symlinks resolved). */
export interface OutsideWrites {
  readonly total: number;
  readonly paths: readonly string[];
}

/** Token usage summed over one CLI call. Absent fields mean the CLI did not report them. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheCreationInputTokens?: number;
}

/**
 * The call fields of a row no CLI call stands behind — a gate's decision, a node that failed before its CLI
 * started, a node that never ran: no session, and nothing spent (`0`, not `unknown`: no call lacked USD).
 * `computeTotals` counts such a row as no call.
 */
export const NOTHING_SPENT = {
  sessionId: null,
  costUsd: 0,
  durationMs: 0,
  deniedToolCalls: 0,
  usage: null,
  numTurns: null,
} as const;

/** One ledger row: one node execution. `costUsd: null` renders as `unknown`, never `$0`. */
export type LedgerRow = PassRow | FailRow | SkippedRow | PausedRow;

interface RowBase {
  readonly nodeId: string;
  /** Display label, e.g. "verify (engine)"; defaults to `nodeId`. */
  readonly label?: string;
  readonly sessionId: string | null;
  readonly costUsd: number | null;
  readonly durationMs: number;
  readonly deniedToolCalls: number;
  readonly usage: TokenUsage | null;
  readonly numTurns: number | null;
  /** True when this node is a sink of the graph. */
  readonly sink: boolean;
  readonly verify?: VerifyEvidence;
  /**
   * Files the node's model wrote (by its `Write`/`Edit`/`MultiEdit`/`NotebookEdit` tool calls) outside the
   * repository, which no evidence tree covers. Absent when there were none (or the row is not a node's).
   */
  readonly outsideWrites?: OutsideWrites;
  /**
   * Set on every execution of a node with a completion gate (SPEC §7): which attempt this row is (1-based,
   * of `maxAttempts`) and what its check said — `passed`, `failed` (fed back, or the last), `not_run` (the
   * attempt failed before the check: a crash, a timeout, a budget stop, a lost session), `could_not_run`
   * (the check's command timed out or could not start: nothing is fed back). `reason`: the check's reason.
   */
  readonly completion?: CompletionAttempt;
  /**
   * The managed git worktree the node ran in (graph field `worktree`): its name and the branch its changes
   * are committed on at the end of the leg. Those changes are not in the main working tree, so not in the
   * evidence tree of any verify run there, the final tree or `patch.diff`. Absent: the main working tree.
   */
  readonly worktree?: { readonly name: string; readonly branch: string };
  /**
   * What the node's final reply claimed about the build and tests, each beside what the engine observed
   * (issue 25 item 4; `evidence/node-claims.ts` holds the fixed patterns). Set on a row whose verify
   * command ran and whose reply made a claim; never changes the verdict. Absent: no claim, or no verify.
   */
  readonly claims?: readonly RowClaim[];
  /** Free text shown in the detail column. */
  readonly detail: string;
}

/**
 * One claim a node's reply made and whether the observation contradicts it. `kind`: `tests-pass` ("all
 * tests pass"), `tests-count` ("20/21 tests pass": `passed`, `total` or `null`), `build-succeeds`,
 * `fixed`. `quote`: the sentence that made it (one line, at most 160 characters; model text, shown as
 * data). `contradiction`: why the observation disagrees, `null` when it does not.
 */
export interface RowClaim {
  readonly kind: "tests-pass" | "tests-count" | "build-succeeds" | "fixed";
  readonly quote: string;
  readonly passed?: number;
  readonly total?: number | null;
  readonly contradiction: string | null;
}

/** One attempt of a node's completion gate, as its row records it (see `RowBase.completion`). */
export interface CompletionAttempt {
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly check: "passed" | "failed" | "not_run" | "could_not_run";
  readonly reason?: string;
}

export interface PassRow extends RowBase {
  readonly verdict: "PASS";
  readonly qualifier: Qualifier;
  /** For `approved`: who released the gate and the head SHA they approved. */
  readonly approvedBy?: { readonly login: string; readonly headSha: string };
}

export interface FailRow extends RowBase {
  readonly verdict: "FAIL";
  readonly cause: FailCause;
  /**
   * True when a later execution of the same node replaced this one (a retry, a feedback round, a
   * completion attempt, `resume --retry-failed`). Such a row is shown but does not decide the run — and
   * only when a later row of the same node really exists; otherwise it still counts (conclusion.ts).
   */
  readonly superseded?: boolean;
  /**
   * What stopped a node whose completion gate did not pass (SPEC §7): `completion.verify failed N×: REASON`
   * when its attempts ran out, `budget_usd …` / `timeout …` when a limit stopped further attempts, `session
   * lost` when the CLI no longer found the session to continue. Absent on every other row.
   */
  readonly stoppedBy?: string;
}

/**
 * The `reason` of the SKIPPED row of a gate that waits for a person's decision (written by the scheduler).
 * Renderers label that row `WAITING`, not `SKIPPED`: the gate was reached, not passed over (issue 17 item 9).
 */
export const GATE_WAITING_REASON = "waiting for a person to approve or reject this gate";

/** Whether `row` is a gate waiting for a person's decision ({@link GATE_WAITING_REASON}). */
export function isWaitingGate(row: LedgerRow): boolean {
  return row.verdict === "SKIPPED" && row.reason === GATE_WAITING_REASON;
}

/**
 * A node execution the model's session limit stopped (SPEC §4: a pause, not a failure): the run pauses
 * (exit 2, `action_required`) and `resume --retry-failed` runs the node again in a later leg. Rendered
 * `PAUSED session limit, resets RESETS_AT` (or without the reset when the CLI named none). Never counted
 * as a failure by the conclusion.
 */
export interface PausedRow extends RowBase {
  readonly verdict: "PAUSED";
  /** What paused it; closed set (only the model's session limit pauses a node today). */
  readonly pause: "session_limit";
  /** The reset time as the CLI wrote it (e.g. `5:30pm (Europe/Paris)`), never parsed; `null` when it gave none. */
  readonly resetsAt: string | null;
}

/** A node that never ran because an ancestor failed or the run halted, or a gate that waits. */
export interface SkippedRow extends RowBase {
  readonly verdict: "SKIPPED";
  readonly reason: string;
}
