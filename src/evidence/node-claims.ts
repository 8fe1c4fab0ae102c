/**
 * The node's claim beside what the engine observed (issue 25 item 4). A sink node's final reply is read for
 * claims about the build and the tests with a fixed, documented set of patterns; each claim is then set
 * beside the verify command's result (and its test receipt, when there is one). A contradiction — "all
 * tests pass" over a failed verify, "12 tests pass" over a receipt of 11 passing — is named on the row and
 * in the check run's summary. It never changes a verdict: the observation is the verdict.
 *
 * Why: a model writes "20/21 integration tests pass (1 pre-existing flaky timeout)" when an assertion had
 * failed (issue 25, from claude-code #22507); the reader of a PASS or FAIL should see what the node said
 * next to what happened, not have to open the transcript.
 *
 * The patterns (case-insensitive, English; README "What a PASS means" documents the set):
 * - `tests-pass`: "all (the) (N) tests pass/passed/are passing/succeed", "tests (now) pass", "tests are
 *   (all) passing/green", "test suite passes".
 * - `tests-count`: "N/M tests pass", "N of M tests pass", "N out of M tests pass", "N tests pass(ed)",
 *   "N passing" (mocha's and vitest's own words, when the node quotes them).
 * - `build-succeeds`: "build succeeds/succeeded/passes/passed/is green/is passing", "builds successfully",
 *   "compiles (successfully|cleanly|without errors)".
 * - `fixed`: "(I|I've|I have) fixed", "is/are now fixed", "fixes the bug/issue/failing test", "the fix
 *   works".
 * A claim preceded within its sentence by a negation ("not", "n't", "no longer", "never", "fail to") is
 * not a claim of success and is ignored. Only the reply's last 16 KiB are read (a final summary sits at
 * the end; the bound keeps the scan linear and small).
 */

import type { RowClaim, VerifyEvidence } from "../core/ledger-row.js";

/** A claim the node's reply made, with the words that made it (at most 160 characters, one line). */
export type NodeClaim =
  | { readonly kind: "tests-pass"; readonly quote: string }
  | {
      readonly kind: "tests-count";
      /** How many tests the node said pass. */
      readonly passed: number;
      /** Out of how many, when it said ("20/21"); `null`: not said. */
      readonly total: number | null;
      readonly quote: string;
    }
  | { readonly kind: "build-succeeds"; readonly quote: string }
  | { readonly kind: "fixed"; readonly quote: string };

/** What the engine observed for the same node: its verify command's outcome and, if read, its receipt. */
export interface ClaimObservation {
  /** The verify command's outcome (`VerifyEvidence.outcome`). */
  readonly outcome: "passed" | "failed" | "timed_out" | "spawn_failed";
  /** The exit code, `null` when the command did not exit by itself. */
  readonly exitCode: number | null;
  /** The test receipt's counts, when one was read (`null`: no receipt). */
  readonly tests: { readonly run: number; readonly passed: number; readonly failed: number } | null;
}

/** A claim set against the observation: `contradiction` is the one-line reason, `null` when they agree. */
export interface CheckedClaim {
  readonly claim: NodeClaim;
  readonly contradiction: string | null;
}

/**
 * The claims of `reply` set beside `verify` as a row records them (`RowBase.claims`), or `undefined` when
 * no verify ran or the reply claims nothing. The verify's test receipt, when one was read, gives the
 * counts a claimed count is checked against.
 */
export function claimsForRow(reply: string, verify: VerifyEvidence | undefined): RowClaim[] | undefined {
  if (verify === undefined) return undefined;
  const claims = readNodeClaims(reply);
  if (claims.length === 0) return undefined;
  const receipt = verify.receipt;
  const tests =
    receipt?.kind === "counts" ? { run: receipt.ran, passed: receipt.passed, failed: receipt.failed } : null;
  return checkClaims(claims, { outcome: verify.outcome, exitCode: verify.exitCode, tests }).map(
    ({ claim, contradiction }) => ({ ...claim, contradiction }),
  );
}

/**
 * {@link claimsForRow} as a field to spread into a row: `{ claims }`, or `{}` when there are none. Every
 * row a verify judges takes it so — an agent node's own verify (`engine/agent-node.ts`) and each
 * completion-gate attempt's check (`engine/completion-judge.ts`): its own reply against its own result.
 */
export function claimsField(
  reply: string,
  verify: VerifyEvidence | undefined,
): { readonly claims?: RowClaim[] } {
  const claims = claimsForRow(reply, verify);
  return claims !== undefined ? { claims } : {};
}

/** How much of the reply's end is read, in UTF-16 code units. */
export const CLAIM_SCAN_CHARS = 16 * 1024;

/** The longest quote kept per claim, in characters. */
const QUOTE_CHARS = 160;

const TESTS_WORD = "(?:unit |integration |e2e |end-to-end |regression )?tests?";
const PASS_WORD = "(?:pass(?:es|ed)?|are (?:all )?passing|succeed(?:s|ed)?|are (?:all )?green)";

/** The fixed patterns, in the order a sentence is tried. Each is linear (no nested quantifiers). */
const PATTERNS: readonly { readonly kind: NodeClaim["kind"]; readonly re: RegExp }[] = [
  {
    kind: "tests-count",
    re: new RegExp(
      `\\b(\\d{1,6})\\s*(?:/|of|out of)\\s*(\\d{1,6})\\s+(?:(?:the )?${TESTS_WORD}\\s+)?(?:${PASS_WORD}|passing)\\b`,
      "i",
    ),
  },
  { kind: "tests-count", re: new RegExp(`\\b(\\d{1,6})\\s+${TESTS_WORD}\\s+${PASS_WORD}\\b`, "i") },
  { kind: "tests-count", re: /\b(\d{1,6}) passing\b/i },
  {
    kind: "tests-pass",
    re: new RegExp(
      `\\b(?:all (?:of )?(?:the )?(?:\\d{1,6} )?${TESTS_WORD}\\s+(?:now |still )?${PASS_WORD}|${TESTS_WORD}\\s+(?:now |all )?${PASS_WORD}|test suite (?:now )?(?:pass(?:es|ed)?|is (?:green|passing)))\\b`,
      "i",
    ),
  },
  {
    kind: "build-succeeds",
    re: /\b(?:build (?:now )?(?:succeeds|succeeded|passes|passed|is green|is passing|is successful)|builds (?:successfully|cleanly)|compiles (?:successfully|cleanly|without errors))\b/i,
  },
  {
    kind: "fixed",
    re: /\b(?:i(?:'ve| have)? fixed|(?:is|are) now fixed|fix(?:es|ed)? the (?:bug|issue|failing tests?|regression)|the fix works)\b/i,
  },
];

/** Words that, earlier in the same sentence, turn a match into something other than a claim of success. */
const NEGATION =
  /\b(?:not|no longer|never|fails? to|failed to|cannot|can't|won't|didn't|doesn't|don't|isn't|aren't)\b|n't\b/i;

/**
 * Reads the claims a node's final reply makes about its build and tests (the fixed set above).
 *
 * @param reply the node's final reply as the CLI returned it (any length; only the last
 *   {@link CLAIM_SCAN_CHARS} are read)
 * @returns the claims in reply order, at most one per kind (the last one made: a final summary wins over
 *   an earlier progress note); empty when the reply claims nothing
 */
export function readNodeClaims(reply: string): NodeClaim[] {
  const text = reply.length > CLAIM_SCAN_CHARS ? reply.slice(reply.length - CLAIM_SCAN_CHARS) : reply;
  const found = new Map<NodeClaim["kind"], { at: number; claim: NodeClaim }>();
  let offset = 0;
  for (const sentence of text.split(/(?<=[.!?;\n])/)) {
    // A count and "tests pass" in one phrase ("12 tests pass") are one claim: the count, the more exact.
    const inSentence = new Set<NodeClaim["kind"]>();
    for (const { kind, re } of PATTERNS) {
      if (inSentence.has(kind) || (kind === "tests-pass" && inSentence.has("tests-count"))) continue;
      const m = re.exec(sentence);
      if (m === null) continue;
      if (NEGATION.test(sentence.slice(0, m.index)) || NEGATION.test(m[0])) continue;
      const quote = oneLine(sentence);
      const claim: NodeClaim =
        kind === "tests-count"
          ? {
              kind,
              passed: Number(m[1]),
              total: m[2] !== undefined ? Number(m[2]) : null,
              quote,
            }
          : { kind, quote };
      found.set(kind, { at: offset, claim });
      inSentence.add(kind);
    }
    offset += sentence.length;
  }
  return [...found.values()].sort((a, b) => a.at - b.at).map((f) => f.claim);
}

/**
 * Sets each claim beside the observation (issue 25 item 4). A claim of success (`tests-pass`,
 * `build-succeeds`, `fixed`, or a count with every test passing) over a verify that did not pass is a
 * contradiction; a count of passing tests other than the receipt's is one too ("claimed 12 passing;
 * the receipt shows 11"). With no receipt, a count is compared with nothing but the outcome.
 *
 * @returns one entry per claim, in the same order
 */
export function checkClaims(claims: readonly NodeClaim[], seen: ClaimObservation): CheckedClaim[] {
  const failedWords =
    seen.outcome === "timed_out"
      ? "the verify command timed out"
      : seen.outcome === "spawn_failed"
        ? "the verify command could not start"
        : `the verify command failed (exit ${seen.exitCode ?? "none"})`;
  return claims.map((claim) => {
    if (claim.kind === "tests-count") {
      if (seen.tests !== null && claim.passed !== seen.tests.passed) {
        return {
          claim,
          contradiction: `claimed ${claim.passed} passing test${claim.passed === 1 ? "" : "s"}; the receipt shows ${seen.tests.passed} passed of ${seen.tests.run}`,
        };
      }
      const claimsAll = claim.total === null || claim.total === claim.passed;
      if (claimsAll && seen.outcome !== "passed") {
        return { claim, contradiction: `claimed ${claim.passed} passing tests; ${failedWords}` };
      }
      return { claim, contradiction: null };
    }
    if (seen.outcome !== "passed") {
      const what =
        claim.kind === "tests-pass"
          ? "claimed the tests pass"
          : claim.kind === "build-succeeds"
            ? "claimed the build succeeds"
            : "claimed a fix";
      return { claim, contradiction: `${what}; ${failedWords}` };
    }
    if ((claim.kind === "tests-pass" || claim.kind === "fixed") && seen.tests?.run === 0) {
      return {
        claim,
        contradiction: `${claim.kind === "fixed" ? "claimed a fix" : "claimed the tests pass"}; the receipt shows no test ran`,
      };
    }
    if (claim.kind === "tests-pass" && seen.tests !== null && seen.tests.failed > 0) {
      return {
        claim,
        contradiction: `claimed the tests pass; the receipt shows ${seen.tests.failed} failed`,
      };
    }
    return { claim, contradiction: null };
  });
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS - 1)}…` : line;
}
