/**
 * What changed among the git-ignored files between two fingerprints (ADR 0003, amendment 2026-11-29): the
 * comparison a verify's evidence records against the run's baseline, and the baseline the next verify is
 * compared with once a verify's own build outputs are accepted.
 */
import {
  fingerprintOf,
  type IgnoredFiles,
  STAT_FIELDS,
  sameStats,
  walkEntries,
} from "./ignored-fingerprint.js";

/** Example paths kept on a verify's evidence when its ignored files changed. */
export const MAX_CHANGE_EXAMPLES = 10;

/** One changed path (display form, UTF-8 decoded) and how it changed since the baseline. */
export interface IgnoredFileChange {
  readonly path: string;
  readonly change: "modified" | "added" | "removed";
}

export type IgnoredFilesComparison =
  | { readonly kind: "unchanged" }
  | {
      readonly kind: "changed";
      /** How many paths differ, or `null` when it is not known (the listing went over the bound). */
      readonly total: number | null;
      /** Up to `maxExamples` of them, in path order. */
      readonly examples: readonly IgnoredFileChange[];
      /** Said instead of (or besides) examples, e.g. "more than 500000 git-ignored files now". */
      readonly note?: string;
    }
  | { readonly kind: "unknown"; readonly reason: string };

/**
 * Compares `current` with `baseline`. An unknown baseline gives `unknown`; a current listing over the
 * bound after a baseline that was within it is `changed` (files were added), not `unknown`.
 */
export function compareIgnoredFiles(
  baseline: IgnoredFiles,
  current: IgnoredFiles,
  maxExamples: number = MAX_CHANGE_EXAMPLES,
): IgnoredFilesComparison {
  if (baseline.kind === "unknown") return { kind: "unknown", reason: baseline.reason };
  if (current.kind === "unknown") {
    if (current.overBound) {
      return {
        kind: "changed",
        total: null,
        examples: [],
        note: `${current.reason}, against ${baseline.files} at the baseline`,
      };
    }
    return { kind: "unknown", reason: current.reason };
  }
  if (current.hash === baseline.hash) return { kind: "unchanged" };
  const examples: IgnoredFileChange[] = [];
  let total = 0;
  walkEntries(baseline.entries, current.entries, (path, before, after) => {
    if (
      before !== null &&
      after !== null &&
      sameStats(baseline.entries.stats, before, current.entries.stats, after)
    )
      return;
    total++;
    if (examples.length < maxExamples) {
      examples.push({
        path: displayPath(path),
        change: before === null ? "added" : after === null ? "removed" : "modified",
      });
    }
  });
  // Equal entries with unequal hashes cannot happen; say so rather than claim a change with no path.
  if (total === 0) return { kind: "unchanged" };
  return { kind: "changed", total, examples };
}

/**
 * The baseline for the next verify after one verify ran: `baseline`, with the changes the verify itself
 * made (between `before` and `after`) accepted — so its build outputs (`dist/`, `coverage/`) do not count
 * against the next sink, while a change that was already there before it ran (a node's) still does.
 *
 * A path the verify did not touch keeps its baseline entry; a path it touched takes its `after` entry.
 * When any of the three is unknown, `baseline` is returned unchanged (fails safe: the next verify then
 * sees the build outputs as changes).
 */
export function acceptVerifyChanges(
  baseline: IgnoredFiles,
  before: IgnoredFiles,
  after: IgnoredFiles,
): IgnoredFiles {
  if (baseline.kind !== "fingerprint" || before.kind !== "fingerprint" || after.kind !== "fingerprint")
    return baseline;
  if (before.hash === after.hash) return baseline;
  // Paths present in any of the three, in order; the result holds what the merge says for each.
  const touched = new Map<string, number | null>(); // path → index in `after`, or null when removed
  walkEntries(before.entries, after.entries, (path, b, a) => {
    if (b !== null && a !== null && sameStats(before.entries.stats, b, after.entries.stats, a)) return;
    touched.set(path, a);
  });
  const paths: string[] = [];
  const values: number[] = [];
  const push = (path: string, stats: Float64Array, index: number): void => {
    paths.push(path);
    for (let f = 0; f < STAT_FIELDS; f++) values.push(stats[index * STAT_FIELDS + f]!);
  };
  const base = baseline.entries;
  const afterEntries = after.entries;
  const touchedPaths = [...touched.keys()].sort();
  let i = 0;
  let t = 0;
  while (i < base.paths.length || t < touchedPaths.length) {
    const p = base.paths[i];
    const q = touchedPaths[t];
    if (q === undefined || (p !== undefined && p < q)) {
      push(p!, base.stats, i++);
    } else {
      const index = touched.get(q)!;
      if (index !== null) push(q, afterEntries.stats, index);
      if (p === q) i++;
      t++;
    }
  }
  return fingerprintOf({ paths, stats: Float64Array.from(values) });
}

/** A latin1-held path (one character per byte of git's path) as the UTF-8 text it is. */
function displayPath(latin1: string): string {
  return Buffer.from(latin1, "latin1").toString("utf8");
}
