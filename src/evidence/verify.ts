/**
 * Engine-run verify commands (SPEC §5, §6, §9; seed 003): the engine takes the evidence tree, runs the
 * operator's command through the exec seam with the verify child environment, and judges its exit code
 * (and, with `output_matches`, its combined output, bounded: `verify-output.ts`).
 *
 * A verify that could not run (timeout, spawn failure, cancellation, killed by a signal) is never a pass.
 * Attached verifies are serialised run-wide ({@link VerifyQueue}) because concurrent builds interfere
 * (oh-my-graph §6.6), and two sinks with the same evidence tree and command reuse the first result
 * ({@link VerifyCache}) — the run's evidence is not re-bought per sink.
 */

import { isAbsolute, relative } from "node:path";
import type { BaseComparison, VerifyEvidence } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import type { Pattern } from "../graph/pattern.js";
import { buildChildEnv } from "../proc/child-env.js";
import { currentChildIdentity } from "../proc/child-identity.js";
import { handBackBeforeEngineReads } from "../proc/hand-back.js";
import { type ProcessResult, type RunProcessOptions, runProcess } from "../proc/run-process.js";
import { trustedCommand } from "../proc/trusted-tools.js";
import type { GitContext, IndexOverlay } from "./evidence-tree.js";
import { acceptVerifyChanges, type IgnoredFiles, ignoredFilesFingerprint } from "./ignored-files.js";
import { decideReceipt } from "./test-receipt.js";
import { readTestReportFiles } from "./test-report-files.js";
import { VerifyCache, verifyCacheKey } from "./verify-cache.js";
import { VerifyOutput } from "./verify-output.js";
import {
  changedWhileRunning,
  type IgnoredFilesCheck,
  ranOnTheTreeAlone,
  snapshotBeforeVerify,
} from "./verify-snapshot.js";

export interface RunVerifyOptions {
  /** A shell command line, run with `/bin/sh -c`. Never from a planner. */
  readonly command: string;
  /** The node's working directory. */
  readonly cwd: string;
  readonly timeoutMs: number;
  /** The exit code that counts as a pass (default 0 in the graph). */
  readonly expectExit: number;
  /** The environment to scrub, usually `process.env`; the verify child-env rules apply (SPEC §9). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Input `verify-env`: names the build needs passed through anyway. */
  readonly passThrough: readonly string[];
  readonly knownSecrets: readonly string[];
  /** Rewrites the evidence tree's snapshot (the action's agent-configuration swap; `GitContext`). */
  readonly indexOverlay?: IndexOverlay;
  /** Echo the output to the log, fenced from workflow commands. */
  readonly echo?: RunProcessOptions["echo"];
  /** Abort to kill the command's process group (run halted); the verify then fails, never passes. */
  readonly signal?: AbortSignal;
  /** Reuse an earlier sink's result for the same tree and command, and record this one for later sinks. */
  readonly reuse?: { readonly cache: VerifyCache; readonly nodeId: string };
  /**
   * Fingerprint the git-ignored files just before the command runs and compare them with `baseline`
   * (taken when the run started); the evidence then carries `ignoredFiles`. Absent: not measured.
   */
  readonly ignoredFiles?: IgnoredFilesCheck;
  /**
   * The graph's `success_check.verify.output_matches` (SPEC §3 "Patterns"; compiled at load): searched
   * once, when the command ends, over its full combined stdout+stderr (bounded by
   * {@link OUTPUT_MATCHES_CAP_BYTES}), with Go `MatchString` semantics. The command then passes only when
   * its exit code is `expectExit` AND the pattern matches; the evidence carries `outputMatches`. Absent:
   * the exit code alone decides, and the output is not buffered beyond the 4 KiB tail.
   */
  readonly outputMatches?: Pattern;
  /**
   * `verify-repeat` (input, `--verify-repeat`, policy key; issue 25 item 5): run the command this many
   * times (1–10) on the same working tree, one after another; mixed results are flaky, never a pass
   * ({@link combineRepeats}). Absent or 1: once.
   */
  readonly repeat?: number;
  /** How the test receipt is read, and whether the policy requires one (issue 25); default: from the output. */
  readonly receipts?: ReceiptSettings;
  /**
   * Called once the command has exited, before the engine's git reads the working tree again to see whether
   * the command changed the tree it verified (`changedWhileRunning`): hands the separate user's files back
   * where the engine could not read them otherwise (`handBackBeforeEngineReads`). Must not throw.
   */
  readonly beforeReread?: () => void;
}

/**
 * The run's test-receipt settings (issue 25 items 1 and 2): the `test-reports` patterns (report files the
 * command writes, read after it ends; relative to its directory) and the policy's `require-tests: true`,
 * recorded on each evidence as `testsRequired`.
 */
export interface ReceiptSettings {
  readonly reports?: readonly string[];
  readonly requireTests?: boolean;
}

/**
 * The receipt settings of a run's policy (`require-tests`, `test-reports`; absent: defaults), with the
 * `test-reports` patterns the workflow or the CLI gives (input `test-reports`, `--test-reports`) added.
 */
export function receiptSettingsOf(
  policy: { readonly requireTests?: boolean; readonly testReports?: readonly string[] } | undefined,
  given: readonly string[] = [],
): ReceiptSettings {
  const reports = [...new Set([...(policy?.testReports ?? []), ...given])];
  return {
    ...(reports.length > 0 ? { reports } : {}),
    ...(policy?.requireTests === true ? { requireTests: true } : {}),
  };
}

/**
 * Runs one verify command and judges it.
 *
 * The evidence tree is taken immediately before the command runs (outputs it writes afterwards are not
 * part of it). When the directory is not a git work tree the command still runs and `evidenceTree` is
 * `null`, with the reason noted at the top of the tail.
 *
 * @returns the evidence; never rejects for the command's own failure.
 */
export async function runVerify(options: RunVerifyOptions): Promise<VerifyEvidence> {
  return (await measureAndRun(options)).evidence;
}

/** {@link runVerify}, also returning the ignored-files fingerprint taken before the command and whether it ran. */
async function measureAndRun(options: RunVerifyOptions): Promise<{
  readonly evidence: VerifyEvidence;
  readonly before: IgnoredFiles | null;
  readonly ran: boolean;
}> {
  const gitContext: GitContext = {
    baseEnv: options.env,
    knownSecrets: options.knownSecrets,
    ...(options.indexOverlay !== undefined ? { indexOverlay: options.indexOverlay } : {}),
  };
  const snapshot = await snapshotBeforeVerify(options.cwd, gitContext, options.ignoredFiles);
  const { tree, before } = snapshot;
  const key = tree !== null ? verifyCacheKey(options, tree) : null;
  if (options.reuse && key !== null && ranOnTheTreeAlone({ ...snapshot.gaps, ...snapshot.ignored })) {
    const earlier = options.reuse.cache.lookup(key);
    if (earlier !== undefined && ranOnTheTreeAlone(earlier.evidence)) {
      return {
        evidence: { ...earlier.evidence, ...snapshot.ignored, reusedFrom: earlier.nodeId },
        before,
        ran: false,
      };
    }
  }

  const runs: VerifyEvidence[] = [];
  const wanted = Math.max(1, Math.floor(options.repeat ?? 1));
  for (let run = 1; run <= wanted; run++) {
    runs.push(await runOnce(options, snapshot, tree));
    // A cancelled run stops; a command that cannot start will not start the next time either.
    if (options.signal?.aborted === true || runs[runs.length - 1]?.outcome === "spawn_failed") break;
  }
  const combined = wanted === 1 ? runs[0]! : combineRepeats(runs);
  // A pass is about the tree it started from only if the command left that tree as it was.
  options.beforeReread?.();
  const changed =
    combined.outcome === "passed" && tree !== null
      ? await changedWhileRunning(options.cwd, tree, gitContext)
      : null;
  const evidence: VerifyEvidence =
    changed !== null ? { ...combined, changedWhileRunning: changed } : combined;
  // Only a judged result is evidence about the tree; a command that could not run is tried again.
  if (options.reuse && key !== null && (evidence.outcome === "passed" || evidence.outcome === "failed")) {
    options.reuse.cache.record(key, options.reuse.nodeId, evidence);
  }
  return { evidence, before, ran: true };
}

/**
 * One run of the command on the tree `snapshot` described: spawned as PR code (the separate user when
 * the run has one), judged by its exit code and `output_matches`.
 */
async function runOnce(
  options: RunVerifyOptions,
  snapshot: Awaited<ReturnType<typeof snapshotBeforeVerify>>,
  tree: string | null,
): Promise<VerifyEvidence> {
  const output = new VerifyOutput(options.outputMatches);
  const identity = currentChildIdentity();
  const startedAtMs = Date.now();
  // `sh -e -c`: a multi-line (or `;`-joined) verify command stops at its first failing command, as a
  // workflow's `run:` step does; otherwise only the last line's exit code would count.
  const result = await runProcess({
    command: trustedCommand("sh", "/bin/sh"),
    args: ["-e", "-c", options.command],
    cwd: options.cwd,
    // PR code: run as the separate user when the run has one, and nothing it starts outlives it.
    prCode: true,
    env: buildChildEnv({
      base: options.env,
      child: { kind: "verify" },
      passThrough: options.passThrough,
      knownSecrets: options.knownSecrets,
      // As the separate user, the build's home is that user's own (the runner's is not writable for it).
      ...(identity !== null ? { set: { HOME: identity.home } } : {}),
    }),
    timeoutMs: options.timeoutMs,
    // Both streams arrive here as runs of whole lines, interleaved in arrival order; the seam's own
    // per-stream tails are not used, so keep them small.
    tailBytes: 1024,
    onOutput: (piece) => output.piece(piece),
    ...(options.echo !== undefined ? { echo: options.echo } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });

  // The pattern searches whatever output arrived, once, whatever the outcome; only an `exited` result can
  // pass on it.
  const outputMatches = output.judge();
  // A receipt is read only from a command that ran to its end; one killed or timed out has none.
  const reports = options.receipts?.reports ?? [];
  const receipt =
    result.kind === "exited"
      ? decideReceipt(
          output.keptForReceipt(),
          reports.length > 0 ? await readTestReportFiles(options.cwd, reports, startedAtMs) : null,
        )
      : undefined;
  const judged = judgeResult(result, {
    base: {
      command: options.command,
      cwd: options.cwd,
      expectExit: options.expectExit,
      durationMs: result.durationMs,
      evidenceTree: tree,
      ...snapshot.gaps,
      ...snapshot.ignored,
      ...(outputMatches !== undefined ? { outputMatches } : {}),
    },
    tail: (note) => output.evidenceTail(snapshot.treeNote, outputMatches, withLeftBehind(note, result)),
  });
  return {
    ...judged,
    ...(receipt !== undefined ? { receipt } : {}),
    ...(options.receipts?.requireTests === true ? { testsRequired: true as const } : {}),
  };
}

/**
 * The evidence of `verify-repeat` runs of one command on one tree (issue 25 item 5): every run passed —
 * the last run's evidence; any did not — the first that did not, so its exit code and output are the ones
 * shown. `repeat` records how many ran and passed: some but not all is flaky, and flaky is never a pass
 * (`outcome` is the failing run's). Durations are summed (ms). The receipt is the worst any run had (a run
 * that exits 0 can still report a failing test, ADR 0016): the first with a failed test, else the first
 * that ran none, else the first with no receipt, else the shown run's.
 */
export function combineRepeats(runs: readonly VerifyEvidence[]): VerifyEvidence {
  const passed = runs.filter((run) => run.outcome === "passed").length;
  const shown = runs.find((run) => run.outcome !== "passed") ?? runs[runs.length - 1];
  if (shown === undefined) throw new Error("combineRepeats: no run to combine");
  const receipts = runs.flatMap((run) => (run.receipt !== undefined ? [run.receipt] : []));
  const receipt =
    receipts.find((r) => r.kind === "counts" && r.failed > 0) ??
    receipts.find((r) => r.kind === "counts" && r.ran === 0) ??
    receipts.find((r) => r.kind === "none") ??
    shown.receipt;
  return {
    ...shown,
    ...(receipt !== undefined ? { receipt } : {}),
    durationMs: runs.reduce((sum, run) => sum + run.durationMs, 0),
    repeat: { runs: runs.length, passed },
  };
}

/**
 * `note`, followed by the line saying how many processes the command left running were killed when it
 * ended (SECURITY.md: nothing PR code starts outlives its step), when there were any.
 */
function withLeftBehind(note: string | null, result: ProcessResult): string | null {
  const left = result.kind === "spawn_failed" ? 0 : (result.leftBehind ?? 0);
  if (left === 0) return note;
  const line = `[evidence-gate] ${left} process${left === 1 ? "" : "es"} the command left running (background, setsid or double-forked) ${left === 1 ? "was" : "were"} killed when it ended`;
  return note === null ? line : `${note}\n${line}`;
}

/** The evidence fields every outcome shares. */
type EvidenceBase = Omit<VerifyEvidence, "exitCode" | "outcome" | "outputTail">;

/**
 * The evidence of a settled command: `passed` only for an `exited` result with the expected exit code
 * and, with `output_matches`, a match; every result that could not finish is `failed`, `timed_out` or
 * `spawn_failed` with a note saying why (SPEC §6: never a silent pass).
 */
function judgeResult(
  result: ProcessResult,
  parts: { readonly base: EvidenceBase; readonly tail: (note: string | null) => string },
): VerifyEvidence {
  const { base, tail } = parts;
  switch (result.kind) {
    case "exited":
      return {
        ...base,
        exitCode: result.exitCode,
        outcome:
          result.exitCode === base.expectExit && base.outputMatches?.matched !== false ? "passed" : "failed",
        outputTail: tail(null),
      };
    case "signalled":
      return {
        ...base,
        exitCode: null,
        outcome: "failed",
        outputTail: tail(`[evidence-gate] the command was killed by ${result.signal}`),
      };
    case "cancelled":
      return {
        ...base,
        exitCode: null,
        outcome: "failed",
        outputTail: tail("[evidence-gate] the command was cancelled (the run stopped) before it finished"),
      };
    case "timed_out":
      return {
        ...base,
        exitCode: null,
        outcome: "timed_out",
        outputTail: tail(
          `[evidence-gate] timed out after ${result.timeoutMs} ms; its process group was killed`,
        ),
      };
    case "spawn_failed":
      return {
        ...base,
        exitCode: null,
        outcome: "spawn_failed",
        outputTail: tail(`[evidence-gate] the command could not start: ${result.message}`),
      };
    default:
      return unreachable(result);
  }
}

/** Run-wide verify settings: the environment every verify of the run is built from (SPEC §9). */
export interface VerifyRunSettings {
  /** The environment to scrub, usually `process.env`. */
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  /** Input `verify-env`. */
  readonly passThrough: readonly string[];
  readonly knownSecrets: readonly string[];
  /** Rewrites every evidence tree's snapshot (`RunVerifyOptions.indexOverlay`). */
  readonly indexOverlay?: IndexOverlay;
  readonly echo?: RunProcessOptions["echo"];
  /** Share results with another queue; default a fresh cache per queue (per run). */
  readonly cache?: VerifyCache;
  /**
   * Compare every verify's git-ignored files with this baseline (the run start's fingerprint). The queue
   * moves the baseline on after a verify to accept the files that verify itself wrote, when no node's
   * model work overlapped it (see {@link VerifyQueue.nodeWorking}). A verify whose `cwd` lies in one of
   * its `exclude` folders (the run directory: a node's managed worktree) runs on another working tree,
   * whose git-ignored files this baseline does not describe: its evidence says `ignoredFiles: "unknown"`
   * (why, in `ignoredFilesReason`) and the baseline does not move.
   */
  readonly ignoredFiles?: IgnoredFilesCheck;
  /**
   * The working trees (absolute; the repository) whose files the separate user made are handed back to the
   * engine's user before each verify's snapshot and before the re-fingerprint after it, when no node's model
   * work runs then (`handBackBeforeEngineReads`: only where the engine is not root). When a node's work
   * does run, nothing is handed back (its processes must not be killed), and a file the user made 0600
   * leaves the evidence tree unknown: never a false success. Default: none.
   */
  readonly handBack?: readonly string[];
  /** `verify-repeat`: every verify of the run runs this many times ({@link RunVerifyOptions.repeat}). */
  readonly repeat?: number;
  /** The run's test-receipt settings ({@link ReceiptSettings}); default: read from the output, not required. */
  readonly receipts?: ReceiptSettings;
  /**
   * `verify-base` (issue 25 item 3; ADR 0017): after each verify, the same command on the base commit
   * (`base-verify.ts`), recorded on the evidence as `base`. Absent: off.
   */
  readonly base?: BaseRunner;
}

/**
 * Runs a verify's twin on the base commit and classifies the head's result against it (`BaseVerifier` in
 * `base-verify.ts`). Never rejects for the base's own trouble (that is `not_compared`).
 */
export interface BaseRunner {
  compare(options: RunVerifyOptions, head: VerifyEvidence): Promise<BaseComparison>;
}

/** One sink's verify, as the engine asks for it. */
export interface SinkVerifyRequest {
  readonly nodeId: string;
  readonly command: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly expectExit: number;
  /** The node's `success_check.verify.output_matches` (`null` or absent: none); see {@link RunVerifyOptions.outputMatches}. */
  readonly outputMatches?: Pattern | null;
  readonly signal?: AbortSignal;
}

/**
 * The run's verifier: runs verify commands one at a time, in the order they were asked for (concurrent
 * builds interfere), and reuses a judged result for the same evidence tree and command.
 */
export class VerifyQueue {
  private last: Promise<unknown> = Promise.resolve();
  private readonly cache: VerifyCache;
  /** The baseline the next verify's git-ignored files are compared with. */
  private ignoredBaseline: IgnoredFiles | null;
  /** Nodes whose model work is running now, and how many ever started (to see overlap with a verify). */
  private working = 0;
  private workStarts = 0;

  constructor(private readonly settings: VerifyRunSettings) {
    this.cache = settings.cache ?? new VerifyCache();
    this.ignoredBaseline = settings.ignoredFiles?.baseline ?? null;
  }

  /**
   * Marks a node's own (model) work as running; call the returned function, once or more, when it ends
   * (before the node's verify is queued). A verify that no node's work overlapped may move the
   * ignored-files baseline on past the files it wrote itself; otherwise the baseline stays.
   */
  nodeWorking(): () => void {
    this.working++;
    this.workStarts++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.working--;
    };
  }

  /**
   * The baseline the next verify's git-ignored files will be compared with (moved on past the files earlier
   * verifies wrote); `null` when the queue does not measure them. Saved at the end of a leg for `resume`.
   */
  get currentIgnoredBaseline(): IgnoredFiles | null {
    return this.ignoredBaseline;
  }

  /**
   * Queues one sink's verify; it starts when every verify queued before it has settled. With `verify-base`
   * the base's twin runs next, in the same turn, and its comparison is the evidence's `base`.
   */
  run(request: SinkVerifyRequest): Promise<VerifyEvidence> {
    return this.exclusive(async () => {
      const { evidence, common } = await this.runHead(request);
      const base = this.settings.base;
      // A stopped run does not start the base's twin: its result would be a cancellation, not a base.
      if (base === undefined || request.signal?.aborted === true) return evidence;
      return { ...evidence, base: await base.compare(common, evidence) };
    });
  }

  /** One sink's verify on the head (see {@link run}), with the options it ran with. */
  private async runHead(
    request: SinkVerifyRequest,
  ): Promise<{ readonly evidence: VerifyEvidence; readonly common: RunVerifyOptions }> {
    const baseline = this.ignoredBaseline;
    const quietAtStart = this.working === 0;
    const startsAtStart = this.workStarts;
    const exclude = this.settings.ignoredFiles?.exclude;
    const runsDir = this.settings.ignoredFiles?.excludeRunDirectoriesUnder;
    const elsewhere = (exclude ?? []).find((folder) => isInside(request.cwd, folder));
    // What the user made so far is readable for the engine's git (the snapshot), when no PR code runs.
    const handBack = (): void => {
      if (this.working === 0 && this.settings.handBack !== undefined)
        handBackBeforeEngineReads(this.settings.handBack);
    };
    handBack();
    const common: RunVerifyOptions = {
      command: request.command,
      cwd: request.cwd,
      timeoutMs: request.timeoutMs,
      expectExit: request.expectExit,
      env: this.settings.baseEnv,
      passThrough: this.settings.passThrough,
      knownSecrets: this.settings.knownSecrets,
      ...(this.settings.indexOverlay !== undefined ? { indexOverlay: this.settings.indexOverlay } : {}),
      ...(this.settings.echo !== undefined ? { echo: this.settings.echo } : {}),
      ...(request.signal !== undefined ? { signal: request.signal } : {}),
      ...(request.outputMatches != null ? { outputMatches: request.outputMatches } : {}),
      ...(this.settings.repeat !== undefined ? { repeat: this.settings.repeat } : {}),
      ...(this.settings.receipts !== undefined ? { receipts: this.settings.receipts } : {}),
      beforeReread: handBack,
    };
    if (baseline !== null && elsewhere !== undefined) {
      // Not reused, nor kept for reuse: the same tree there is not the same evidence (other ignored files).
      const measured = await measureAndRun(common);
      return {
        common,
        evidence: {
          ...measured.evidence,
          ignoredFiles: "unknown",
          ignoredFilesReason: `the command ran in ${request.cwd}, a working tree of its own inside the run directory (a managed worktree), whose git-ignored files the run's baseline (the main working tree's) does not describe`,
        },
      };
    }
    const measured = await measureAndRun({
      ...common,
      reuse: { cache: this.cache, nodeId: request.nodeId },
      ...(baseline !== null
        ? {
            ignoredFiles: {
              baseline,
              ...(exclude ? { exclude } : {}),
              ...(runsDir !== undefined ? { excludeRunDirectoriesUnder: runsDir } : {}),
            },
          }
        : {}),
    });
    // Re-baseline: a second sink's verify would otherwise see the first verify's own ignored outputs
    // (dist/, coverage/, caches) as changes. Accept exactly the paths this verify changed — a change a
    // node made before it ran stays a change for every later sink — and only when no node's model work
    // ran during the verify, since a node's edit in that window cannot be told from the build's. When
    // that is not so the baseline stays, and a later sink's verify may report build outputs as "changed
    // since the run started": never a false success, at worst an action_required to look at.
    const quiet = quietAtStart && this.working === 0 && this.workStarts === startsAtStart;
    if (baseline !== null && measured.ran && measured.before !== null && quiet) {
      handBack();
      const after = await ignoredFilesFingerprint(request.cwd, {
        baseEnv: this.settings.baseEnv,
        knownSecrets: this.settings.knownSecrets,
        ...(exclude !== undefined ? { exclude } : {}),
        ...(runsDir !== undefined ? { excludeRunDirectoriesUnder: runsDir } : {}),
      });
      if (this.working === 0 && this.workStarts === startsAtStart) {
        this.ignoredBaseline = acceptVerifyChanges(baseline, measured.before, after);
      }
    }
    return { evidence: measured.evidence, common };
  }

  /** Runs `task` when every task queued before it has settled (the queue's mutex, for other work). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const next = this.last.then(task, task);
    this.last = next.catch(() => undefined);
    return next;
  }
}

/** Whether `path` is `folder` or lies under it (both absolute; compared as written). */
function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
