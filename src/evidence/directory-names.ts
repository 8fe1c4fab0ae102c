/**
 * What a directory's top level holds, read by name only and bounded however large the directory is
 * (SPEC §5): the listing stops after {@link MAX_ENTRIES_PER_DIRECTORY} entries, and the exact names a scan
 * asks about are looked up one by one with `lstat` when the listing stopped short, so a `package.json` is
 * never missed because the directory is huge. Nothing is opened; symbolic links are not followed.
 */
import { lstat, opendir } from "node:fs/promises";
import { join } from "node:path";

/** Most directory entries read per scanned directory (SPEC §5: "bounded however large the repository is"). */
export const MAX_ENTRIES_PER_DIRECTORY = 10_000;

/** What a directory's top level holds, as far as the scan read it. */
export interface TopLevelNames {
  /** Names seen, with whether each is a directory. */
  readonly entries: ReadonlyMap<string, "file" | "dir">;
  /** Directory entries read (≤ the limit). */
  readonly read: number;
  /** True when the listing stopped at the limit with entries left unread. */
  readonly truncated: boolean;
}

/** The names one signal rule looks at. `has` answers for exact names even beyond the listing's limit. */
export interface Names {
  readonly has: (name: string, kind?: "file" | "dir") => boolean;
  /**
   * File names matching a glob with one `*` (`*.csproj`, `test_*.py`): the text before and after the star
   * at the name's start and end, at least one character between them. Sorted.
   */
  readonly matching: (glob: string) => readonly string[];
  /** Subdirectory names from the (bounded) listing, sorted. */
  readonly folders: () => readonly string[];
}

/**
 * Lists a directory's top-level names, reading at most `limit` entries. An unreadable or missing
 * directory yields no names (a scan never fails a run; oh-my-graph §6.7: "unreadable dir = no signals").
 */
export async function listTopLevelNames(
  dir: string,
  options: { readonly limit?: number } = {},
): Promise<TopLevelNames> {
  const limit = options.limit ?? MAX_ENTRIES_PER_DIRECTORY;
  const entries = new Map<string, "file" | "dir">();
  let read = 0;
  let truncated = false;
  let handle: Awaited<ReturnType<typeof opendir>>;
  try {
    handle = await opendir(dir, { bufferSize: 256 });
  } catch {
    return { entries, read, truncated };
  }
  try {
    for (;;) {
      if (read >= limit) {
        truncated = (await handle.read()) !== null;
        break;
      }
      const entry = await handle.read();
      if (entry === null) break;
      read++;
      entries.set(entry.name, entry.isDirectory() ? "dir" : "file");
    }
  } catch {
    // A directory that vanishes mid-listing: keep what was read.
  } finally {
    await handle.close().catch(() => undefined);
  }
  return { entries, read, truncated };
}

/**
 * The {@link Names} of `dir`: its bounded listing, and each of `exact` looked up by name (from the listing,
 * or with `lstat` when the listing was cut short).
 */
export async function namesIn(dir: string, exact: readonly string[]): Promise<Names> {
  const listing = await listTopLevelNames(dir);
  const found = new Map<string, "file" | "dir">();
  await Promise.all(
    exact.map(async (name) => {
      const kind = listing.entries.get(name) ?? (listing.truncated ? await kindOf(join(dir, name)) : null);
      if (kind !== null) found.set(name, kind);
    }),
  );
  const named = (kind: "file" | "dir"): string[] =>
    [...listing.entries].filter(([, k]) => k === kind).map(([name]) => name);
  return {
    has: (name, kind = "file") => found.get(name) === kind,
    matching: (glob) => {
      const star = glob.indexOf("*");
      const [head, tail] = star === -1 ? [glob, ""] : [glob.slice(0, star), glob.slice(star + 1)];
      return named("file")
        .filter((n) => n.startsWith(head) && n.endsWith(tail) && n.length > head.length + tail.length)
        .sort();
    },
    folders: () => named("dir").sort(),
  };
}

async function kindOf(path: string): Promise<"file" | "dir" | null> {
  try {
    const stats = await lstat(path);
    return stats.isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}
