/**
 * Engine-run verify commands (SPEC §5, §6, §9; seed 003): the engine takes the evidence tree, runs the
 * operator's command through the exec seam with the verify child environment, and judges its exit code
 * (and, with `output_matches`, its full combined output).
 *
 * A verify that could not run (timeout, spawn failure, cancellation, killed by a signal) is never a pass.
 * Attached verifies are serialised run-wide ({@link VerifyQueue}) because concurrent builds interfere
 * (oh-my-graph §6.6), and two sinks with the same evidence tree and command reuse the first result
 * ({@link VerifyCache}) — the run's evidence is not re-bought per sink.
 */

import type { VerifyEvidence } from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import { type Pattern, searchPattern } from "../graph/pattern.js";
import { buildChildEnv } from "../proc/child-env.js";
import { OutputTail } from "../proc/output-tail.js";
import { type RunProcessOptions, runProcess } from "../proc/run-process.js";
import { evidenceGaps } from "./evidence-gaps.js";
import { evidenceTree, type GitContext, type IndexOverlay, workTreeRoot } from "./evidence-tree.js";
import {
  acceptVerifyChanges,
  compareIgnoredFiles,
  type IgnoredFiles,
  type IgnoredFilesComparison,
  ignoredFilesFingerprint,
} from "./ignored-files.js";

/** The output tail kept on a verify's evidence, in bytes (SPEC §6: bounded; ledger model: ≤ 4 KiB). */
export const VERIFY_TAIL_BYTES = 4096;
/** Room left for the tail's "earlier bytes not kept" marker and evidence-gate's own notes. */
const NOTE_ROOM = 256;
/**
 * The most combined stdout+stderr kept for `output_matches`, in bytes (16 MiB). Up to this much the
 * pattern searches the whole output. Beyond it the first and the last half (8 MiB each) are kept and
 * searched, joined by one `\n`; the bytes between are not, and the evidence says so
 * (`outputMatches.truncated`, and a note in the tail). Searching 16 MiB with an RE2 pattern takes
 * milliseconds to a few hundred (measured with `re2js`), and the buffer is released when the verify ends.
 */
export const OUTPUT_MATCHES_CAP_BYTES = 16 * 1024 * 1024;
/** How much of a pattern the tail's note and the ledger's words quote (characters). */
const PATTERN_QUOTE_CHARS = 120;

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
}

/** The baseline the git-ignored files of a verify are compared with, and the folders left out. */
export interface IgnoredFilesCheck {
  readonly baseline: IgnoredFiles;
  /** Absolute folders left out besides `<root>/.evidence-gate/` (the runs folder). */
  readonly exclude?: readonly string[];
  /** See `IgnoredFilesOptions.excludeRunDirectoriesUnder`: other runs' directories are left out. */
  readonly excludeRunDirectoriesUnder?: string;
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
  let tree: string | null = null;
  let treeNote: string | null = null;
  try {
    tree = await evidenceTree(options.cwd, gitContext);
  } catch (error) {
    treeNote = `[evidence-gate] no evidence tree: ${error instanceof Error ? error.message : String(error)}`;
  }
  // Bytes the command will run on that the tree does not hold: dirty submodules, and files whose
  // .gitattributes conversion folds an edit back to the committed blob (ADR 0003, amendment 2026-11-29, 2).
  const gaps: Partial<VerifyEvidence> = tree !== null ? await gapFields(options.cwd, tree, gitContext) : {};
  let before: IgnoredFiles | null = null;
  let ignored: Partial<VerifyEvidence> = {};
  if (options.ignoredFiles !== undefined) {
    before = await ignoredFilesFingerprint(options.cwd, {
      ...gitContext,
      ...(options.ignoredFiles.exclude !== undefined ? { exclude: options.ignoredFiles.exclude } : {}),
      ...(options.ignoredFiles.excludeRunDirectoriesUnder !== undefined
        ? { excludeRunDirectoriesUnder: options.ignoredFiles.excludeRunDirectoriesUnder }
        : {}),
    });
    ignored = ignoredFields(compareIgnoredFiles(options.ignoredFiles.baseline, before));
  }

  const key = tree !== null ? cacheKey(options, tree) : null;
  // A result is reused only when the ignored files are as they were for it too: the same tree with a
  // changed node_modules is not the same evidence.
  // Nor is the same tree over different submodule or converted bytes.
  const reusable =
    (ignored.ignoredFiles === undefined || ignored.ignoredFiles === "unchanged") && !hasGaps(gaps);
  if (options.reuse && key !== null && reusable) {
    const earlier = options.reuse.cache.lookup(key);
    const earlierClean =
      earlier !== undefined &&
      (earlier.evidence.ignoredFiles === undefined || earlier.evidence.ignoredFiles === "unchanged") &&
      !hasGaps(earlier.evidence);
    if (earlier !== undefined && earlierClean) {
      return {
        evidence: { ...earlier.evidence, ...ignored, reusedFrom: earlier.nodeId },
        before,
        ran: false,
      };
    }
  }

  const combined = new OutputTail(VERIFY_TAIL_BYTES - NOTE_ROOM);
  // The full output is buffered only when a pattern will search it.
  const full = options.outputMatches !== undefined ? new BoundedOutput(OUTPUT_MATCHES_CAP_BYTES) : null;
  const collect = (line: string): void => {
    const bytes = Buffer.from(`${line}\n`, "utf8");
    combined.push(bytes);
    full?.push(bytes);
  };
  // `sh -e -c`: a multi-line (or `;`-joined) verify command stops at its first failing command, as a
  // workflow's `run:` step does; otherwise only the last line's exit code would count.
  const result = await runProcess({
    command: "/bin/sh",
    args: ["-e", "-c", options.command],
    cwd: options.cwd,
    env: buildChildEnv({
      base: options.env,
      child: { kind: "verify" },
      passThrough: options.passThrough,
      knownSecrets: options.knownSecrets,
    }),
    timeoutMs: options.timeoutMs,
    // Both streams arrive here line by line, interleaved in arrival order; the seam's own per-stream tails
    // are not used, so keep them small.
    tailBytes: 1024,
    onStdoutLine: collect,
    onStderrLine: collect,
    ...(options.echo !== undefined ? { echo: options.echo } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });

  // Lines arrive without their newline and are stored with one; a stream's last line that had none is
  // flushed when the process ends (stdout's, then stderr's), so the newline stored after the very last
  // line is the collector's own when that stream's raw output did not end in one: take it back, so `$`
  // sees the end of the output as printed (`printf ok` is "ok", not "ok\n").
  if (full !== null && result.kind !== "spawn_failed" && endsWithoutNewline(result)) full.dropFinalNewline();
  // The pattern searches whatever output arrived, once, whatever the outcome; only an `exited` result can
  // pass on it.
  const outputMatches =
    options.outputMatches !== undefined && full !== null
      ? judgeOutput(options.outputMatches, full)
      : undefined;
  const matchNotes = outputMatchesNotes(outputMatches, full);
  const base = {
    command: options.command,
    cwd: options.cwd,
    expectExit: options.expectExit,
    durationMs: result.durationMs,
    evidenceTree: tree,
    ...gaps,
    ...ignored,
    ...(outputMatches !== undefined ? { outputMatches } : {}),
  };
  const tail = (note: string | null): string => boundedTail([treeNote, combined.text(), ...matchNotes, note]);
  let evidence: VerifyEvidence;
  switch (result.kind) {
    case "exited":
      evidence = {
        ...base,
        exitCode: result.exitCode,
        outcome:
          result.exitCode === options.expectExit && outputMatches?.matched !== false ? "passed" : "failed",
        outputTail: tail(null),
      };
      break;
    case "signalled":
      evidence = {
        ...base,
        exitCode: null,
        outcome: "failed",
        outputTail: tail(`[evidence-gate] the command was killed by ${result.signal}`),
      };
      break;
    case "cancelled":
      evidence = {
        ...base,
        exitCode: null,
        outcome: "failed",
        outputTail: tail("[evidence-gate] the command was cancelled (the run stopped) before it finished"),
      };
      break;
    case "timed_out":
      evidence = {
        ...base,
        exitCode: null,
        outcome: "timed_out",
        outputTail: tail(
          `[evidence-gate] timed out after ${result.timeoutMs} ms; its process group was killed`,
        ),
      };
      break;
    case "spawn_failed":
      evidence = {
        ...base,
        exitCode: null,
        outcome: "spawn_failed",
        outputTail: tail(`[evidence-gate] the command could not start: ${result.message}`),
      };
      break;
    default:
      return unreachable(result);
  }
  // Only a judged result is evidence about the tree; a command that could not run is tried again.
  if (options.reuse && key !== null && (evidence.outcome === "passed" || evidence.outcome === "failed")) {
    options.reuse.cache.record(key, options.reuse.nodeId, evidence);
  }
  return { evidence, before, ran: true };
}

/**
 * True when the last line collected had no newline of its own: a stream whose raw output does not end in
 * `\n` has its last line flushed at exit, stdout's before stderr's, so either one's unterminated end is last.
 */
function endsWithoutNewline(streams: { readonly stdoutTail: string; readonly stderrTail: string }): boolean {
  const unterminated = (tail: string): boolean => tail !== "" && !tail.endsWith("\n");
  return unterminated(streams.stderrTail) || unterminated(streams.stdoutTail);
}

/** Searches the collected output once: `{pattern, matched}`, plus `truncated: true` when bytes were dropped. */
function judgeOutput(pattern: Pattern, full: BoundedOutput): NonNullable<VerifyEvidence["outputMatches"]> {
  const matched = searchPattern(pattern, full.text());
  return { pattern: pattern.source, matched, ...(full.droppedBytes > 0 ? { truncated: true as const } : {}) };
}

/** The tail's notes about `output_matches`: what was not searched, and that the output did not match. */
function outputMatchesNotes(judged: VerifyEvidence["outputMatches"], full: BoundedOutput | null): string[] {
  if (judged === undefined || full === null) return [];
  const notes: string[] = [];
  if (judged.truncated === true) {
    const half = OUTPUT_MATCHES_CAP_BYTES / 2 / (1024 * 1024);
    notes.push(
      `[evidence-gate] output_matches searched a truncated output: the first and last ${half} MiB of ${full.totalBytes} bytes (${full.droppedBytes} bytes between them not searched)`,
    );
  }
  if (!judged.matched) {
    notes.push(`[evidence-gate] output did not match /${quotePattern(judged.pattern)}/`);
  }
  return notes;
}

/** A pattern as quoted in a note: at most {@link PATTERN_QUOTE_CHARS} characters, on one line. */
function quotePattern(source: string): string {
  const flat = source.replace(/\r?\n/g, "\\n");
  return flat.length > PATTERN_QUOTE_CHARS ? `${flat.slice(0, PATTERN_QUOTE_CHARS - 1)}…` : flat;
}

/**
 * A byte stream kept whole up to `capBytes`; beyond it, the first `floor(capBytes / 2)` bytes and the
 * most recent `capBytes - floor(capBytes / 2)` bytes, with the count of bytes dropped between them.
 * Unlike {@link OutputTail} its text carries no marker of its own, since a pattern searches it.
 */
export class BoundedOutput {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private headSize = 0;
  /** The tail's chunks are `tail[tailStart..]`; the array is compacted now and then, not on every drop. */
  private tail: Buffer[] = [];
  private tailStart = 0;
  private tailSize = 0;
  private dropped = 0;

  constructor(capBytes: number) {
    this.headCap = Math.floor(capBytes / 2);
    this.tailCap = capBytes - this.headCap;
  }

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headSize < this.headCap) {
      const take = Math.min(rest.length, this.headCap - this.headSize);
      this.head.push(rest.subarray(0, take));
      this.headSize += take;
      rest = rest.subarray(take);
      if (rest.length === 0) return;
    }
    this.tail.push(rest);
    this.tailSize += rest.length;
    // Drop from the front of the tail: whole chunks, then the front of the first one kept.
    while (this.tailSize > this.tailCap) {
      const first = this.tail[this.tailStart]!;
      const excess = this.tailSize - this.tailCap;
      if (first.length <= excess) {
        this.tailStart++;
        this.tailSize -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[this.tailStart] = first.subarray(excess);
        this.tailSize -= excess;
        this.dropped += excess;
      }
    }
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  /** Removes the last byte kept when it is a `\n` (one the collector added after a line that had none). */
  dropFinalNewline(): void {
    const inTail = this.tail.length > this.tailStart;
    const parts = inTail ? this.tail : this.head;
    const last = parts[parts.length - 1];
    if (last === undefined || last[last.length - 1] !== 0x0a) return;
    parts[parts.length - 1] = last.subarray(0, last.length - 1);
    if (inTail) this.tailSize--;
    else this.headSize--;
  }

  /** Bytes dropped between the kept head and tail (0: the text is the whole output). */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** Every byte pushed, kept or not. */
  get totalBytes(): number {
    return this.headSize + this.dropped + this.tailSize;
  }

  /**
   * The kept output as UTF-8 text. When bytes were dropped: the head, `\n`, and the tail starting on a
   * whole character (a character cut at the head's end decodes as U+FFFD).
   */
  text(): string {
    const tailChunks = this.tail.slice(this.tailStart);
    if (this.dropped === 0) return Buffer.concat([...this.head, ...tailChunks]).toString("utf8");
    let tail = Buffer.concat(tailChunks);
    let start = 0;
    while (start < tail.length && (tail[start]! & 0xc0) === 0x80) start++;
    tail = tail.subarray(start);
    return `${Buffer.concat(this.head).toString("utf8")}\n${tail.toString("utf8")}`;
  }
}

/** The evidence fields for what the evidence tree does not hold; none when it holds everything. */
async function gapFields(cwd: string, tree: string, context: GitContext): Promise<Partial<VerifyEvidence>> {
  let root: string;
  try {
    root = await workTreeRoot(cwd, context);
  } catch (error) {
    const note = `the working tree could not be compared with the evidence tree: ${error instanceof Error ? error.message : String(error)}`;
    return { unrepresentedFiles: { total: null, examples: [], note } };
  }
  const found = await evidenceGaps(root, tree, context);
  return {
    ...(found.dirtySubmodules.length > 0 ? { dirtySubmodules: found.dirtySubmodules } : {}),
    ...(found.unrepresentedFiles !== null ? { unrepresentedFiles: found.unrepresentedFiles } : {}),
  };
}

function hasGaps(evidence: Partial<VerifyEvidence>): boolean {
  return (evidence.dirtySubmodules?.length ?? 0) > 0 || evidence.unrepresentedFiles !== undefined;
}

/** The evidence fields of an ignored-files comparison. */
function ignoredFields(comparison: IgnoredFilesComparison): Partial<VerifyEvidence> {
  switch (comparison.kind) {
    case "unchanged":
      return { ignoredFiles: "unchanged" };
    case "changed":
      return {
        ignoredFiles: "changed",
        ignoredFilesChanges: {
          total: comparison.total,
          examples: comparison.examples.map((e) => ({ path: e.path, change: e.change })),
          ...(comparison.note !== undefined ? { note: comparison.note } : {}),
        },
      };
    case "unknown":
      return { ignoredFiles: "unknown", ignoredFilesReason: comparison.reason };
    default:
      return unreachable(comparison);
  }
}

/** Joins the parts and keeps at most {@link VERIFY_TAIL_BYTES} bytes, cut at a character boundary. */
function boundedTail(parts: readonly (string | null)[]): string {
  const text = parts.filter((p): p is string => p !== null && p.length > 0).join("\n");
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= VERIFY_TAIL_BYTES) return text;
  let start = bytes.length - VERIFY_TAIL_BYTES;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString("utf8");
}

/**
 * What makes two verifies the same: the evidence tree and the command (SPEC §5), plus the directory it
 * runs in, the exit code that passes and the `output_matches` pattern, without which "the same result"
 * would not follow.
 */
export interface VerifyCacheKey {
  readonly tree: string;
  readonly command: string;
  readonly cwd: string;
  readonly expectExit: number;
  /** The `output_matches` pattern's source as written in the graph; `null` when there is none. */
  readonly outputMatches: string | null;
}

function cacheKey(options: RunVerifyOptions, tree: string): VerifyCacheKey {
  return {
    tree,
    command: options.command,
    cwd: options.cwd,
    expectExit: options.expectExit,
    outputMatches: options.outputMatches?.source ?? null,
  };
}

/** Results of judged verifies in one run, so a second sink on the same tree does not re-buy them. */
export class VerifyCache {
  private readonly entries = new Map<
    string,
    { readonly nodeId: string; readonly evidence: VerifyEvidence }
  >();

  private static id(key: VerifyCacheKey): string {
    return JSON.stringify([key.tree, key.command, key.cwd, key.expectExit, key.outputMatches]);
  }

  /** The first recorded result for `key` and the node it was recorded for. */
  lookup(key: VerifyCacheKey): { readonly nodeId: string; readonly evidence: VerifyEvidence } | undefined {
    return this.entries.get(VerifyCache.id(key));
  }

  /** Records `evidence` for `key` unless a result is already recorded (the first one stands). */
  record(key: VerifyCacheKey, nodeId: string, evidence: VerifyEvidence): void {
    const id = VerifyCache.id(key);
    if (!this.entries.has(id)) this.entries.set(id, { nodeId, evidence });
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
   * model work overlapped it (see {@link VerifyQueue.nodeWorking}).
   */
  readonly ignoredFiles?: IgnoredFilesCheck;
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

  /** Queues one sink's verify; it starts when every verify queued before it has settled. */
  run(request: SinkVerifyRequest): Promise<VerifyEvidence> {
    return this.exclusive(async () => {
      const baseline = this.ignoredBaseline;
      const quietAtStart = this.working === 0;
      const startsAtStart = this.workStarts;
      const exclude = this.settings.ignoredFiles?.exclude;
      const runsDir = this.settings.ignoredFiles?.excludeRunDirectoriesUnder;
      const measured = await measureAndRun({
        command: request.command,
        cwd: request.cwd,
        timeoutMs: request.timeoutMs,
        expectExit: request.expectExit,
        env: this.settings.baseEnv,
        passThrough: this.settings.passThrough,
        knownSecrets: this.settings.knownSecrets,
        ...(this.settings.indexOverlay !== undefined ? { indexOverlay: this.settings.indexOverlay } : {}),
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
        ...(this.settings.echo !== undefined ? { echo: this.settings.echo } : {}),
        ...(request.signal !== undefined ? { signal: request.signal } : {}),
        ...(request.outputMatches != null ? { outputMatches: request.outputMatches } : {}),
      });
      // Re-baseline: a second sink's verify would otherwise see the first verify's own ignored outputs
      // (dist/, coverage/, caches) as changes. Accept exactly the paths this verify changed — a change a
      // node made before it ran stays a change for every later sink — and only when no node's model work
      // ran during the verify, since a node's edit in that window cannot be told from the build's. When
      // that is not so the baseline stays, and a later sink's verify may report build outputs as "changed
      // since the run started": never a false success, at worst an action_required to look at.
      const quiet = quietAtStart && this.working === 0 && this.workStarts === startsAtStart;
      if (baseline !== null && measured.ran && measured.before !== null && quiet) {
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
      return measured.evidence;
    });
  }

  /** Runs `task` when every task queued before it has settled (the queue's mutex, for other work). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const next = this.last.then(task, task);
    this.last = next.catch(() => undefined);
    return next;
  }
}
