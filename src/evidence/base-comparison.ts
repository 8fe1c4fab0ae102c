/**
 * The base beside the head (issue 25 item 3; ADR 0017): what a verify's result on the head and the same
 * command's result on the base commit say together. Pure: two evidences in, one {@link BaseComparison} out.
 * The comparison labels the head's result; it never changes it (the head's evidence is the verdict).
 */
import {
  type BaseComparison,
  type BaseRunEvidence,
  RECEIPT_MAX_NAMES,
  type VerifyEvidence,
} from "../core/ledger-row.js";

/** The base commit a comparison is about, and how it was chosen (`BaseComparison.chosenAs`). */
export interface BaseCommit {
  readonly commit: string;
  readonly chosenAs: string;
}

/**
 * Classifies a head run against its base run (ADR 0017):
 * - the base run could not start (`spawn_failed`): `not_compared` — nothing is known about the base;
 * - failed (or timed out) on the base, passed on the head: `fixed`, with the tests the base's receipt names
 *   as failing that the head's receipt does not name (`fixedTests`);
 * - passed on both: `passes_on_both`; failed on both: `fails_on_both` (pre-existing, still not green);
 * - passed on the base, failed on the head: `introduced`.
 *
 * Whatever the verdict, a head receipt that counts fewer tests run than the base's sets `fewerTests`.
 */
export function compareWithBase(
  head: VerifyEvidence,
  base: BaseRunEvidence,
  commit: BaseCommit,
): BaseComparison {
  const common = { commit: commit.commit, chosenAs: commit.chosenAs, verify: base };
  if (base.outcome === "spawn_failed") {
    return {
      ...common,
      verdict: "not_compared",
      reason: `the command could not start on the base (exit code unknown)`,
    };
  }
  const headPassed = head.outcome === "passed";
  const basePassed = base.outcome === "passed";
  const verdict = headPassed
    ? basePassed
      ? "passes_on_both"
      : "fixed"
    : basePassed
      ? "introduced"
      : "fails_on_both";
  const fixedTests = verdict === "fixed" ? testsNowPassing(head, base) : undefined;
  const fewer = fewerTests(head, base);
  return {
    ...common,
    verdict,
    ...(fixedTests !== undefined && fixedTests.length > 0 ? { fixedTests } : {}),
    ...(fewer !== undefined ? { fewerTests: fewer } : {}),
  };
}

/**
 * The tests the base's receipt names as failing that the head's does not: the ones the change made pass.
 * `undefined` when the base's receipt names none. A head with no receipt cannot be compared by name: the
 * base's names are given as they are (the head's exit code passed).
 */
function testsNowPassing(head: VerifyEvidence, base: BaseRunEvidence): string[] | undefined {
  const baseReceipt = base.receipt;
  if (baseReceipt?.kind !== "counts" || baseReceipt.failedNames.length === 0) return undefined;
  const stillFailing = new Set(head.receipt?.kind === "counts" ? head.receipt.failedNames : []);
  return baseReceipt.failedNames.filter((name) => !stillFailing.has(name)).slice(0, RECEIPT_MAX_NAMES);
}

/** `{base, head}` test counts when both receipts counted and the head ran fewer; else `undefined`. */
function fewerTests(
  head: VerifyEvidence,
  base: BaseRunEvidence,
): { readonly base: number; readonly head: number } | undefined {
  if (head.receipt?.kind !== "counts" || base.receipt?.kind !== "counts") return undefined;
  return head.receipt.ran < base.receipt.ran ? { base: base.receipt.ran, head: head.receipt.ran } : undefined;
}

/** A comparison that could not be made (no base commit, no worktree): `not_compared` with `reason`. */
export function notCompared(commit: string | null, chosenAs: string, reason: string): BaseComparison {
  return { commit, chosenAs, verdict: "not_compared", reason };
}
