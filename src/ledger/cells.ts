import { isGitHubLogin } from "../core/github-login.js";
import {
  type BaseComparison,
  type IgnoredFilesChanges,
  isWaitingGate,
  type LedgerRow,
  type OutsideWrites,
  type RowClaim,
  type TestReceipt,
  type VerifyEvidence,
} from "../core/ledger-row.js";
import { unreachable } from "../core/unreachable.js";
import type { Conclusion } from "./conclusion-types.js";
import type { GoalCycleAssessment, GoalLoopSection, TokenTotals, UsdTotal } from "./ledger.js";

/**
 * The words of one ledger cell, shared by the text and Markdown renderers so both print the same thing.
 * Plain text; each renderer escapes for its own format.
 */

/**
 * `PASS (verified)`, `FAIL verify_failed`, `SKIPPED`, `WAITING` for a gate that waits for a person
 * (`isWaitingGate`), `PAUSED session limit, resets 5:30pm (UTC)`. Every PASS carries its qualifier
 * (seed 003); a PAUSED row its reset time when the CLI named one.
 */
export function verdictLabel(row: LedgerRow): string {
  switch (row.verdict) {
    case "PASS":
      return `PASS (${row.qualifier})`;
    case "FAIL":
      return `FAIL ${row.cause}`;
    case "SKIPPED":
      return isWaitingGate(row) ? "WAITING" : "SKIPPED";
    case "PAUSED":
      return `PAUSED session limit${row.resetsAt !== null ? `, resets ${row.resetsAt}` : ""}`;
    default:
      return unreachable(row);
  }
}

export function nodeLabel(row: LedgerRow): string {
  return row.label ?? row.nodeId;
}

/**
 * Eight characters of the session id, or `-`: its first eight, except for a time-ordered UUID (version 7,
 * which codex's thread ids are) whose first eight are a timestamp shared by every thread of a run — there the
 * last eight, which differ.
 */
export function shortSession(sessionId: string | null): string {
  if (sessionId === null || sessionId === "") return "-";
  return /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(sessionId) ? sessionId.slice(-8) : sessionId.slice(0, 8);
}

/**
 * The runtime words of a ledger's header (`claude`, `codex (gpt-5.5)`), or `null` for `mode: verify`, which
 * runs no model.
 */
export function runtimeWords(ledger: {
  readonly mode: string;
  readonly runtime: string;
  readonly model?: string;
}): string | null {
  if (ledger.mode === "verify") return null;
  return ledger.model === undefined ? ledger.runtime : `${ledger.runtime} (${ledger.model})`;
}

/** `$0.0123`, or `unknown` — never `$0` for a call that reported no USD. */
export function formatUsd(usd: number | null): string {
  return usd === null || !Number.isFinite(usd) ? "unknown" : `$${usd.toFixed(4)}`;
}

/** `$0.0123`, or `unknown (known subtotal $0.0100; 2 calls without USD)`. */
export function formatUsdTotal(total: UsdTotal): string {
  if (total.kind === "known") return formatUsd(total.usd);
  const calls = `${total.unknownCalls} ${total.unknownCalls === 1 ? "call" : "calls"} without USD`;
  return `unknown (known subtotal ${formatUsd(total.knownUsd)}; ${calls})`;
}

/** `850ms`, `6.4s`, `2m03s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, "0")}m`;
  return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}

/**
 * Who approved a gate, as a reader should see it: `@octocat` for a GitHub login (a button, a comment
 * command, `--by octocat`), as recorded otherwise (`root (local user)`: the CLI's default approver).
 */
export function approverWords(login: string): string {
  return isGitHubLogin(login.replace(/\[bot\]$/, "")) ? `@${login}` : login;
}

/** The detail column: the row's own detail plus what its structured fields say (approval, supersession, skip). */
export function rowDetail(row: LedgerRow): string {
  const parts = [row.detail];
  if (row.verdict === "PASS" && row.approvedBy !== undefined) {
    parts.push(`approved by ${approverWords(row.approvedBy.login)} at ${row.approvedBy.headSha.slice(0, 7)}`);
  }
  if (row.verdict === "FAIL" && row.superseded === true) parts.push("superseded by a later attempt");
  if (row.verdict === "SKIPPED" && row.reason !== "") parts.push(row.reason);
  // The engine already writes it into the detail; a row from elsewhere gets it here.
  const ignored = ignoredFilesWords(row.verify);
  if (ignored !== null && !row.detail.includes(ignored)) parts.push(ignored);
  const gaps = evidenceGapWords(row.verify, DETAIL_PATHS);
  if (gaps !== null && !row.detail.includes(gaps)) parts.push(gaps);
  const outside = outsideWritesWords(row.outsideWrites);
  if (outside !== null && !row.detail.includes(outside)) parts.push(outside);
  if (row.worktree !== undefined) parts.push(worktreeWords(row.worktree));
  for (const claim of row.claims ?? []) parts.push(claimWords(claim));
  const receipt = row.verify?.receipt;
  if (receipt !== undefined && row.verify?.reusedFrom === undefined) {
    const words = receiptWords(receipt);
    if (!row.detail.includes(words)) parts.push(words);
  }
  if (row.verify?.base !== undefined) parts.push(baseWords(row.verify.base));
  return parts.filter((part) => part !== "").join("; ");
}

/** The base commit as the words name it: `base 1a2b3c4 (the pull request's base)`. */
function baseCommitWords(base: BaseComparison): string {
  return base.commit === null
    ? `the base (${base.chosenAs})`
    : `base ${base.commit.slice(0, 7)} (${base.chosenAs})`;
}

/**
 * `verify-base` in words (issue 25 item 3; ADR 0017), for the detail column and the summary:
 * `fails on base 1a2b3c4 (…), passes on head: fixed (now passing: test a)`, `passes on base … and on head`,
 * `fails on base … too: pre-existing, still not green`, `passes on base …, fails on head: introduced`, or
 * `not compared with the base: REASON`; then the base run's receipt, and the fewer-tests flag.
 */
export function baseWords(base: BaseComparison): string {
  const at = baseCommitWords(base);
  const names = (base.fixedTests ?? []).slice(0, RECEIPT_NAMES_SHOWN);
  const more = (base.fixedTests?.length ?? 0) > names.length ? ", …" : "";
  const verdict = ((): string => {
    switch (base.verdict) {
      case "fixed":
        return `fails on ${at}, passes on head: fixed${names.length > 0 ? ` (now passing: ${names.join(", ")}${more})` : ""}`;
      case "passes_on_both":
        return `passes on ${at} and on head`;
      case "fails_on_both":
        return `fails on ${at} too: pre-existing, still not green`;
      case "introduced":
        return `passes on ${at}, fails on head: introduced by the change`;
      case "not_compared":
        return `not compared with ${at}: ${base.reason ?? "the base did not run"}`;
      default:
        return unreachable(base.verdict);
    }
  })();
  const receipt = base.verify?.receipt;
  const parts = [
    verdict,
    ...(receipt !== undefined ? [`base run: ${receiptWords(receipt)}`] : []),
    ...(base.fewerTests !== undefined
      ? [
          `the head ran fewer tests than the base (${base.fewerTests.head} against ${base.fewerTests.base}): look at which went`,
        ]
      : []),
  ];
  return parts.join("; ");
}

/** How many failing tests' names a receipt's words name (the JSON keeps up to `RECEIPT_MAX_NAMES`). */
const RECEIPT_NAMES_SHOWN = 5;

/**
 * A verify's test receipt in words (issue 25; ADR 0016): `ran 12 tests: 11 passed, 1 failed (test_x),
 * 2 skipped, per pytest`, `ran no test (3 skipped), per node:test`, or `no test receipt: REASON`.
 */
export function receiptWords(receipt: TestReceipt): string {
  if (receipt.kind === "none") return `no test receipt: ${receipt.reason}`;
  const from =
    receipt.source === "reports"
      ? `${receipt.runners.join(", ")} report${(receipt.files?.length ?? 0) === 1 ? "" : "s"} ${(receipt.files ?? []).join(", ")}`
      : receipt.runners.join(", ");
  const skipped = receipt.skipped > 0 ? `${receipt.skipped} skipped` : null;
  if (receipt.ran === 0) return `ran no test${skipped !== null ? ` (${skipped})` : ""}, per ${from}`;
  const shown = receipt.failedNames
    .slice(0, RECEIPT_NAMES_SHOWN)
    .map((name) => (name.length > 120 ? `${name.slice(0, 119)}…` : name));
  const more = receipt.failedNames.length > shown.length || !receipt.failedNamesComplete;
  const names = receipt.failed > 0 && shown.length > 0 ? ` (${shown.join(", ")}${more ? ", …" : ""})` : "";
  const parts = [
    `${receipt.passed} passed`,
    ...(receipt.failed > 0 ? [`${receipt.failed} failed${names}`] : []),
    ...(skipped !== null ? [skipped] : []),
  ];
  return `ran ${receipt.ran} ${receipt.ran === 1 ? "test" : "tests"}: ${parts.join(", ")}, per ${from}`;
}

/**
 * A node's claim beside the observation, as the detail column shows it (issue 25 item 4):
 * `the node said "All 12 tests pass." — contradicted: the verify command failed (exit 1)`, or
 * `… — agrees with what the engine observed`. The quote is model text: renderers escape it as data.
 */
export function claimWords(claim: RowClaim): string {
  const said = `the node said "${claim.quote}"`;
  return claim.contradiction !== null
    ? `${said} — contradicted: ${claim.contradiction}`
    : `${said} — agrees with what the engine observed`;
}

/**
 * What a row run in a managed worktree says in the detail column: where it ran, and that its changes are
 * on the branch, not in the main working tree's evidence.
 */
export function worktreeWords(worktree: NonNullable<LedgerRow["worktree"]>): string {
  return `ran in worktree ${worktree.name}: its changes are on branch ${worktree.branch}, not in the main working tree`;
}

/** How many changed paths a detail cell names (the conclusion's reason names up to 10). */
const DETAIL_PATHS = 3;

/**
 * What a verify's git-ignored files say in the detail column: nothing when unchanged or not measured,
 * else that the command ran on ignored files that are on no commit (changed) or could not be compared.
 */
export function ignoredFilesWords(verify: VerifyEvidence | undefined): string | null {
  if (verify === undefined) return null;
  switch (verify.ignoredFiles) {
    case undefined:
    case "unchanged":
      return null;
    case "changed":
      return `git-ignored files changed since the run started, on no commit: ${describeIgnoredChanges(verify.ignoredFilesChanges, DETAIL_PATHS)}`;
    case "unknown":
      return `git-ignored files not compared: ${verify.ignoredFilesReason ?? "unknown reason"}`;
    default:
      return unreachable(verify.ignoredFiles);
  }
}

/**
 * What a verify ran on that its evidence tree does not hold (dirty submodules, files a .gitattributes
 * conversion folds back to the committed blob); `null` when nothing, or not measured.
 */
export function evidenceGapWords(verify: VerifyEvidence | undefined, shown = 10): string | null {
  const parts = evidenceGapParts(verify, shown);
  return parts.length > 0 ? `verify ran on bytes the evidence tree does not hold: ${parts.join("; ")}` : null;
}

/** {@link evidenceGapWords} without its lead-in: one phrase per kind of gap, none when nothing. */
export function evidenceGapParts(verify: VerifyEvidence | undefined, shown = 10): string[] {
  if (verify === undefined) return [];
  const clip = (path: string): string => (path.length > 200 ? `…${path.slice(-199)}` : path);
  const parts: string[] = [];
  const submodules = verify.dirtySubmodules ?? [];
  if (submodules.length > 0) {
    const named = submodules.slice(0, shown).map(clip);
    const rest = submodules.length - named.length;
    parts.push(
      `submodule content on no commit in ${named.join(", ")}${rest > 0 ? `, ${rest} more` : ""} (modified, untracked or unrecorded commits)`,
    );
  }
  const files = verify.unrepresentedFiles;
  if (files !== undefined) {
    const named = files.examples.slice(0, shown).map(clip);
    const rest = files.total !== null ? files.total - named.length : 0;
    const list = [
      ...named,
      ...(rest > 0 ? [`${rest} more`] : []),
      ...(files.note !== undefined ? [files.note] : []),
    ];
    parts.push(
      `files whose edits a .gitattributes conversion hides from it: ${list.length > 0 ? list.join(", ") : "(no path recorded)"}`,
    );
  }
  const changed = verify.changedWhileRunning;
  if (changed !== undefined) {
    const named = changed.examples.slice(0, shown).map(clip);
    const rest = changed.total !== null ? changed.total - named.length : 0;
    const list = [
      ...named,
      ...(rest > 0 ? [`${rest} more`] : []),
      ...(changed.note !== undefined ? [changed.note] : []),
    ];
    parts.push(
      `files of the tree the command itself changed or removed while it ran: ${list.length > 0 ? list.join(", ") : "(no path recorded)"}`,
    );
  }
  return parts;
}

/** `a.js (modified), b.js (added), 3 more` — the changed ignored paths, at most `shown` named. */
export function describeIgnoredChanges(changes: IgnoredFilesChanges | undefined, shown = 10): string {
  if (changes === undefined) return "(no path recorded)";
  const clip = (path: string): string => (path.length > 200 ? `…${path.slice(-199)}` : path);
  const named = changes.examples.slice(0, shown).map((c) => `${clip(c.path)} (${c.change})`);
  const rest = changes.total !== null ? changes.total - named.length : 0;
  const parts = [...named];
  if (rest > 0) parts.push(`${rest} more`);
  if (changes.note !== undefined) parts.push(changes.note);
  return parts.length > 0 ? parts.join(", ") : "(no path recorded)";
}

/** What a row's writes outside the repository say in the detail column; `null` when there were none. */
export function outsideWritesWords(writes: OutsideWrites | undefined): string | null {
  if (writes === undefined) return null;
  return `wrote outside the repository (not in the evidence tree): ${describeOutsideWrites(writes, DETAIL_PATHS)}`;
}

/** `/srv/x/a.js, /tmp/b.js, 3 more` — the paths written outside the repository, at most `shown` named. */
export function describeOutsideWrites(writes: OutsideWrites, shown = 10): string {
  const clip = (path: string): string => (path.length > 200 ? `…${path.slice(-199)}` : path);
  const named = writes.paths.slice(0, shown).map(clip);
  const rest = writes.total - named.length;
  const parts = rest > 0 ? [...named, `${rest} more`] : named;
  return parts.length > 0 ? parts.join(", ") : "(no path recorded)";
}

/**
 * `exited 1 (expected 0)`, `exited 0 but its output did not match /^ok$/`, `timed out`, `could not be
 * started`; with `output_matches`, a pass says the output matched, and a search of a truncated output
 * says so.
 */
export function verifyExitWords(verify: VerifyEvidence): string {
  const words = singleRunWords(verify);
  const repeat = verify.repeat;
  if (repeat === undefined) return words;
  if (repeat.passed === repeat.runs) return `${words} in each of ${repeat.runs} runs on the same tree`;
  if (repeat.passed === 0) return `${words}; it passed none of ${repeat.runs} runs on the same tree`;
  return `flaky: passed ${repeat.passed} of ${repeat.runs} runs on the same tree (a flaky result is not a pass); the first failing run ${words}`;
}

/** {@link verifyExitWords} for one run. */
function singleRunWords(verify: VerifyEvidence): string {
  const matches = verify.outputMatches;
  const truncated =
    matches?.truncated === true
      ? " (only its first and last 8 MiB were searched; the output was longer)"
      : "";
  switch (verify.outcome) {
    case "passed":
      return matches !== undefined
        ? `exited ${verify.exitCode ?? "?"} (expected ${verify.expectExit}) and its output matched /${patternWords(matches.pattern)}/${truncated}`
        : `exited ${verify.exitCode ?? "?"} (expected ${verify.expectExit})`;
    case "failed":
      // The exit code was right, so the output is why it failed.
      if (matches !== undefined && !matches.matched && verify.exitCode === verify.expectExit) {
        return `exited ${verify.exitCode} but its output did not match /${patternWords(matches.pattern)}/${truncated}`;
      }
      return `exited ${verify.exitCode ?? "without a code"} (expected ${verify.expectExit})`;
    case "timed_out":
      return `timed out after ${formatDuration(verify.durationMs)} (no exit code)`;
    case "spawn_failed":
      return "could not be started (no exit code)";
    default:
      return unreachable(verify.outcome);
  }
}

/** An `output_matches` pattern as the ledger quotes it: one line, at most 120 characters. */
function patternWords(source: string): string {
  const flat = source.replace(/\r?\n/g, "\\n");
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** The claims the observation contradicts, with their rows, in row order: each is named in the summary. */
export function contradictedClaims(
  rows: readonly LedgerRow[],
): { readonly row: LedgerRow; readonly claim: RowClaim }[] {
  return rows.flatMap((row) =>
    (row.claims ?? []).filter((claim) => claim.contradiction !== null).map((claim) => ({ row, claim })),
  );
}

/** The rows whose verify command ran and did not pass: each gets a detail block under the table. */
export function failedVerifications(
  rows: readonly LedgerRow[],
): { readonly row: LedgerRow; readonly verify: VerifyEvidence }[] {
  const failed: { row: LedgerRow; verify: VerifyEvidence }[] = [];
  for (const row of rows) {
    if (row.verify !== undefined && row.verify.outcome !== "passed") failed.push({ row, verify: row.verify });
  }
  return failed;
}

/** The heading word of a conclusion, or `in progress`. */
export function conclusionLabel(conclusion: Conclusion | null): string {
  return conclusion === null ? "in progress" : conclusion.conclusion;
}

/** `input 1200, output 300, cache read 0, cache write 0 (1 call reported no usage)`. */
export function tokenWords(tokens: TokenTotals): string {
  const words = `input ${tokens.inputTokens}, output ${tokens.outputTokens}, cache read ${tokens.cacheReadInputTokens}, cache write ${tokens.cacheCreationInputTokens}`;
  if (tokens.callsWithoutUsage === 0) return words;
  const calls = tokens.callsWithoutUsage === 1 ? "1 call" : `${tokens.callsWithoutUsage} calls`;
  return `${words} (${calls} reported no usage)`;
}

/**
 * The goal loop's whole spend (`Ledger.goalLoop`, SPEC §7): every cycle's run total plus every assessor
 * call; one call or run without USD makes it `unknown`, the known part kept.
 */
export function goalLoopTotal(section: GoalLoopSection): UsdTotal {
  let knownUsd = 0;
  let unknownCalls = 0;
  for (const cycle of section.cycles) {
    if (cycle.total.kind === "known") knownUsd += cycle.total.usd;
    else {
      knownUsd += cycle.total.knownUsd;
      unknownCalls += cycle.total.unknownCalls;
    }
    const { assessment } = cycle;
    if (assessment.kind === "not_assessed") continue;
    if (assessment.costUsd === null || !Number.isFinite(assessment.costUsd)) unknownCalls += 1;
    else knownUsd += assessment.costUsd;
  }
  return unknownCalls === 0 ? { kind: "known", usd: knownUsd } : { kind: "unknown", knownUsd, unknownCalls };
}

/**
 * What a goal loop's ledger totals cover, in words (plain text, no model text): `(the whole goal loop: 2
 * cycles with their planner, nodes and assessor calls; each cycle's run cost is in its section)`.
 */
export function loopTotalsWords(section: GoalLoopSection): string {
  const n = section.cycles.length;
  return `(the whole goal loop: ${n} ${n === 1 ? "cycle" : "cycles"} with their planner, nodes and assessor calls; each cycle's run cost is in its section)`;
}

/**
 * The assessor's verdict on one cycle in words, the model's text cut to `maxChars` characters each
 * (`null`: whole) and flattened to one line; plain text, each renderer escapes it.
 */
export function assessmentWords(assessment: GoalCycleAssessment, maxChars: number | null): string {
  const cut = (text: string): string => oneLineCut(text, maxChars);
  switch (assessment.kind) {
    case "not_assessed":
      return "not assessed";
    case "failed":
      return `no verdict (${cut(assessment.reason)}); assessor cost ${formatUsd(assessment.costUsd)}`;
    case "assessed": {
      const verdict = assessment.goalMet ? "goal met" : "goal not met";
      const remaining = assessment.remaining.trim() === "" ? "" : `; remaining: ${cut(assessment.remaining)}`;
      const retried = assessment.startRetries === undefined ? "" : `; ${assessment.startRetries}`;
      return `${verdict}${remaining}; evidence: ${cut(assessment.evidence)}; assessor cost ${formatUsd(assessment.costUsd)}${retried}`;
    }
    default:
      return unreachable(assessment);
  }
}

/** The model's text of one field (a cycle's `remainingIn`), flattened to one line and cut to `maxChars`. */
export function oneLineCut(text: string, maxChars: number | null): string {
  const flat = [...text.replace(/\s+/g, " ").trim()];
  return maxChars === null || flat.length <= maxChars
    ? flat.join("")
    : `${flat.slice(0, maxChars - 1).join("")}…`;
}
