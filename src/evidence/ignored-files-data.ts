/**
 * The git-ignored files' fingerprint as JSON-safe data and back: the run directory's
 * `ignored-baseline.json`, which `resume` reads so a resumed leg compares against the same baseline.
 */
import { type IgnoredFiles, STAT_FIELDS } from "./ignored-fingerprint.js";

/** {@link IgnoredFiles} as JSON-safe data (`ignored-baseline.json` in the run directory; `resume` reads it). */
export type IgnoredFilesData =
  | {
      readonly kind: "fingerprint";
      readonly hash: string;
      readonly files: number;
      /** The latin1 path strings of `entries.paths`. */
      readonly paths: readonly string[];
      /** `entries.stats` as plain numbers. */
      readonly stats: readonly number[];
    }
  | { readonly kind: "unknown"; readonly reason: string; readonly overBound: boolean };

/** Converts a fingerprint to JSON-safe data, losslessly. */
export function ignoredFilesToData(files: IgnoredFiles): IgnoredFilesData {
  if (files.kind === "unknown") return files;
  return {
    kind: "fingerprint",
    hash: files.hash,
    files: files.files,
    paths: files.entries.paths,
    stats: Array.from(files.entries.stats),
  };
}

/**
 * Reads a fingerprint back from {@link ignoredFilesToData}'s output. Anything malformed becomes an
 * `unknown` fingerprint naming why, so a resumed leg never compares against a made-up baseline.
 */
export function ignoredFilesFromData(data: unknown): IgnoredFiles {
  const d = data as Partial<Record<string, unknown>> | null;
  if (d?.kind === "unknown" && typeof d.reason === "string") {
    return { kind: "unknown", reason: d.reason, overBound: d.overBound === true };
  }
  if (
    d?.kind === "fingerprint" &&
    typeof d.hash === "string" &&
    typeof d.files === "number" &&
    Array.isArray(d.paths) &&
    d.paths.every((p) => typeof p === "string") &&
    Array.isArray(d.stats) &&
    d.stats.every((n) => typeof n === "number") &&
    d.stats.length === d.paths.length * STAT_FIELDS
  ) {
    return {
      kind: "fingerprint",
      hash: d.hash,
      files: d.files,
      entries: { paths: d.paths as string[], stats: Float64Array.from(d.stats as number[]) },
    };
  }
  return {
    kind: "unknown",
    reason: "the saved baseline of the run's git-ignored files could not be read",
    overBound: false,
  };
}
