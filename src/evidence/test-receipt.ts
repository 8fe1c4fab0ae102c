/**
 * A verify's test receipt (issue 25 item 1; SPEC §7b): what its tests did, from report files it wrote
 * (`test-reports`) or, failing that, from the summary lines of the runners it ran. Pure: the kept output
 * and the reports read in, one {@link TestReceipt} out. "No receipt" when nothing is recognised — a
 * build-only command — and whenever the output the engine kept was cut in a way that could hide a
 * summary: a count is never a guess.
 */
import { RECEIPT_MAX_NAMES, type TestReceipt } from "../core/ledger-row.js";
import { outputLines, type RunnerSummary, readRunnerSummaries } from "./runner-summaries.js";
import type { ReportCounts } from "./test-reports.js";

/**
 * The output the engine kept for reading a receipt: all of it (`droppedBytes: 0`, all in `head`), or its
 * first and last parts with the bytes between them dropped (`core/byte-windows.ts`). The tail then
 * starts at a character, not a line: its first line may be the end of a longer one.
 */
export interface KeptOutput {
  readonly head: string;
  readonly tail: string;
  readonly droppedBytes: number;
}

/**
 * The receipt the output shows. Uncut output: every runner's summaries, summed. Cut output (bytes
 * dropped between head and tail): only one final summary line in the kept tail — a summary in the
 * dropped middle cannot be ruled out otherwise — and never a tally spread through the output (`go test
 * -v`, cargo's per-binary lines, Maven's per-module results): a cut tally is no receipt. The tail's first
 * line, up to and including its first `\n`, is not read: it may be the end of a line cut in the middle
 * (` 2 passed in 0.50s` of `1 failed, 2 passed in 0.50s`).
 */
export function receiptFromOutput(output: KeptOutput): TestReceipt {
  if (output.droppedBytes === 0) {
    const found = readRunnerSummaries(outputLines(output.head));
    if (found.length === 0)
      return { kind: "none", reason: "no test runner's summary was recognised in the output" };
    return sumSummaries(found, true);
  }
  const cut = `the output was cut (${output.droppedBytes} bytes in the middle not kept)`;
  const inHead = readRunnerSummaries(outputLines(output.head));
  const newline = output.tail.indexOf("\n");
  const inTail = readRunnerSummaries(outputLines(newline < 0 ? "" : output.tail.slice(newline + 1)));
  if (inHead.length === 0 && inTail.length === 0) {
    return { kind: "none", reason: `no test runner's summary was recognised in the kept output; ${cut}` };
  }
  if (inHead.length > 0 || inTail.length !== 1 || inTail[0]!.spread) {
    return {
      kind: "none",
      reason: `${cut}, so a test runner's summary or counted lines may be missing: the counts would be a guess`,
    };
  }
  // The failing names printed before the summary may be in the dropped middle.
  return sumSummaries(inTail, false);
}

/** One receipt summing `summaries` (output order kept for the runner names). */
function sumSummaries(summaries: readonly RunnerSummary[], whole: boolean): TestReceipt {
  const passed = total(summaries, (s) => s.passed);
  const failed = total(summaries, (s) => s.failed);
  const names = [...new Set(summaries.flatMap((s) => s.failedNames))];
  return {
    kind: "counts",
    runners: [...new Set([...summaries].sort((a, b) => a.line - b.line).map((s) => s.runner))],
    source: "output",
    ran: passed + failed,
    passed,
    failed,
    skipped: total(summaries, (s) => s.skipped),
    failedNames: names.slice(0, RECEIPT_MAX_NAMES),
    failedNamesComplete:
      names.length >= failed && names.length <= RECEIPT_MAX_NAMES && (whole || failed === 0),
  };
}

/** The sum of `count` over `summaries` (a count of tests, as the summaries' fields are). */
function total(summaries: readonly RunnerSummary[], count: (summary: RunnerSummary) => number): number {
  return summaries.reduce((sum, summary) => sum + count(summary), 0);
}

/** Report files the command wrote, each read (`test-reports.ts`) or not, with its path. */
export interface ReportsRead {
  /** The `test-reports` patterns, as given (named in the reason when nothing was read). */
  readonly patterns: readonly string[];
  readonly files: readonly {
    readonly path: string;
    readonly reading:
      | { readonly ok: true; readonly counts: ReportCounts }
      | { readonly ok: false; readonly reason: string };
  }[];
  /** Files that matched but were not written by this command (older than its start), or were refused (symlinks). */
  readonly passedOver: readonly { readonly path: string; readonly reason: string }[];
  /**
   * Why the search for report files stopped before it had looked everywhere the patterns reach (too many
   * directory entries, too deep, too many files), when it did: the files read are then not all of them.
   */
  readonly truncated?: string;
}

/** The most report files a receipt names. */
const NAMED_FILES = 10;

/**
 * The receipt of a verify: from its report files when any was read, else from its output. A report file
 * that matched and could not be read, or a search for them that stopped early (`truncated`), makes no
 * receipt (its reason is given): a partial count is a guess.
 */
export function decideReceipt(output: KeptOutput, reports: ReportsRead | null): TestReceipt {
  if (reports === null) return receiptFromOutput(output);
  if (reports.truncated !== undefined) {
    return {
      kind: "none",
      reason: `the search for test report files (${reports.patterns.join(", ")}) stopped early: ${reports.truncated}; counts from the files found would be partial`,
    };
  }
  const unreadable = reports.files.find((file) => !file.reading.ok);
  if (unreadable !== undefined && !unreadable.reading.ok) {
    return { kind: "none", reason: `test report ${unreadable.path}: ${unreadable.reading.reason}` };
  }
  const read = reports.files.flatMap((file) =>
    file.reading.ok ? [{ path: file.path, counts: file.reading.counts }] : [],
  );
  if (read.length > 0) {
    const passed = read.reduce((sum, file) => sum + file.counts.passed, 0);
    const failed = read.reduce((sum, file) => sum + file.counts.failed, 0);
    const names = [...new Set(read.flatMap((file) => file.counts.failedNames))];
    const named = read.reduce((sum, file) => sum + file.counts.failedNamed, 0);
    return {
      kind: "counts",
      runners: [...new Set(read.map((file) => file.counts.format))],
      source: "reports",
      files: read.slice(0, NAMED_FILES).map((file) => file.path),
      ran: passed + failed,
      passed,
      failed,
      skipped: read.reduce((sum, file) => sum + file.counts.skipped, 0),
      failedNames: names.slice(0, RECEIPT_MAX_NAMES),
      failedNamesComplete: named >= failed && names.length <= RECEIPT_MAX_NAMES && names.length >= failed,
    };
  }
  const fromOutput = receiptFromOutput(output);
  if (fromOutput.kind === "counts") return fromOutput;
  const over = reports.passedOver.slice(0, 3).map((file) => `${file.path}: ${file.reason}`);
  return {
    kind: "none",
    reason: `no report file the command wrote matched test-reports (${reports.patterns.join(", ")})${over.length > 0 ? `; passed over ${over.join("; ")}` : ""}, and ${fromOutput.reason}`,
  };
}
