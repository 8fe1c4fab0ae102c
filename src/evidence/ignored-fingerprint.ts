/**
 * The fingerprint of the git-ignored files (ADR 0003, amendment 2026-11-29) as a value: the sorted paths
 * with their `lstat` numbers, and the sha256 over them. Listing and stat-ing the files is
 * `ignored-files.ts`; comparing two fingerprints is `ignored-files-change.ts`.
 */
import { createHash } from "node:crypto";

/** lstat numbers kept per file, in this order: size, mtimeMs, ctimeMs, mode, ino. */
export const STAT_FIELDS = 5;

/**
 * The listed files: `paths` sorted by bytes, each held as a latin1 string (one character per byte of
 * git's path, so any byte sequence survives and string order is byte order); `stats[i * 5 …]` holds
 * file i's lstat numbers.
 */
export interface IgnoredEntries {
  readonly paths: readonly string[];
  readonly stats: Float64Array;
}

export type IgnoredFiles =
  | {
      readonly kind: "fingerprint";
      /** sha256 (hex) over the sorted paths and their lstat numbers. */
      readonly hash: string;
      /** How many ignored files were fingerprinted. */
      readonly files: number;
      /** Per-file data, for naming what changed; not serialised anywhere. */
      readonly entries: IgnoredEntries;
    }
  | {
      readonly kind: "unknown";
      readonly reason: string;
      /** True when git listed more than the bound (the listing was stopped). */
      readonly overBound: boolean;
    };

/** The fingerprint of `entries` (sorted): a sha256 over each path and its lstat numbers. */
export function fingerprintOf(entries: IgnoredEntries): IgnoredFiles {
  const hash = createHash("sha256");
  hash.update(`evidence-gate ignored-files v1 ${entries.paths.length}\n`);
  let chunk = "";
  for (let i = 0; i < entries.paths.length; i++) {
    const at = i * STAT_FIELDS;
    const s = entries.stats;
    chunk += `${entries.paths[i]}\0${s[at]} ${s[at + 1]} ${s[at + 2]} ${s[at + 3]} ${s[at + 4]}\n`;
    if (chunk.length > 65_536) {
      hash.update(chunk, "latin1");
      chunk = "";
    }
  }
  hash.update(chunk, "latin1");
  return { kind: "fingerprint", hash: hash.digest("hex"), files: entries.paths.length, entries };
}

/** Whether file `i` of `a` and file `j` of `b` have the same lstat numbers. */
export function sameStats(a: Float64Array, i: number, b: Float64Array, j: number): boolean {
  for (let f = 0; f < STAT_FIELDS; f++) if (a[i * STAT_FIELDS + f] !== b[j * STAT_FIELDS + f]) return false;
  return true;
}

/** Merge-walks two sorted entry lists: `visit(path, indexInA | null, indexInB | null)` per distinct path. */
export function walkEntries(
  a: IgnoredEntries,
  b: IgnoredEntries,
  visit: (path: string, i: number | null, j: number | null) => void,
): void {
  let i = 0;
  let j = 0;
  while (i < a.paths.length || j < b.paths.length) {
    const p = a.paths[i];
    const q = b.paths[j];
    if (q === undefined || (p !== undefined && p < q)) visit(p!, i++, null);
    else if (p === undefined || q < p) visit(q, null, j++);
    else {
      visit(p, i++, j++);
    }
  }
}
