/**
 * Extracts a downloaded artifact zip (an earlier run's directory, for `mode: resume`) without trusting it.
 * The zip came from a workflow run and is untrusted data (SPEC §2: "the artifact validated as untrusted
 * data"), so:
 *
 * - every entry name must be a plain relative path: no absolute path, drive letter, backslash, control
 *   character, empty, `.` or `..` segment (a "zip slip" entry is refused, not cleaned up);
 * - only regular files and folders: a symlink or any other special entry is refused (a symlink could point a
 *   later write, or a later read of `state.json`, anywhere on the runner);
 * - at most {@link ArchiveLimits.maxEntries} entries and {@link ArchiveLimits.maxTotalBytes} bytes
 *   uncompressed, counted from the declared sizes before anything is inflated; yauzl's `validateEntrySizes`
 *   then holds each entry to its declared size while it inflates (a zip bomb stops at the limit);
 * - files are created exclusively (`wx`), mode 0644 whatever the archive says;
 * - everything lands in a fresh sibling folder first, renamed to `target` only when the whole archive was
 *   extracted: a refused archive leaves nothing behind.
 *
 * Parsing is yauzl's (https://github.com/thejoshwolfe/yauzl), which reads the central directory and
 * supports ZIP64 and data descriptors, as `@actions/artifact`'s uploads use.
 */
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { type Entry, fromBufferPromise } from "yauzl";

export interface ArchiveLimits {
  readonly maxEntries: number;
  /** Sum of the entries' uncompressed sizes. */
  readonly maxTotalBytes: number;
}

/** Limits for a run directory: 20 000 entries, 256 MiB uncompressed. */
export const RUN_ARCHIVE_LIMITS: ArchiveLimits = { maxEntries: 20_000, maxTotalBytes: 256 * 1024 * 1024 };

/** The archive was refused: an unsafe entry, a broken zip, or over a limit. Nothing was left on disk. */
export class UnsafeArchiveError extends Error {
  override readonly name = "UnsafeArchiveError";
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** `version made by` high byte 3: the external attributes carry a Unix mode (APPNOTE 4.4.2). */
const MADE_BY_UNIX = 3;

/** Why an entry cannot be extracted, or `null` when it is a plain relative file or folder. */
export function archiveEntryProblem(entry: {
  readonly fileName: string;
  readonly versionMadeBy: number;
  readonly externalFileAttributes: number;
}): string | null {
  const name = entry.fileName;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (name === "" || /[\u0000-\u001f\u007f]/.test(name))
    return "an empty name or one with control characters";
  if (name.includes("\\")) return "a backslash in the name";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "an absolute path";
  const segments = (name.endsWith("/") ? name.slice(0, -1) : name).split("/");
  if (segments.some((s) => s === "..")) return "a `..` segment (it would land outside the folder)";
  if (segments.some((s) => s === "" || s === ".")) return "an empty or `.` segment";
  if (entry.versionMadeBy >>> 8 === MADE_BY_UNIX) {
    const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
    if (type === S_IFLNK) return "a symbolic link";
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
      return `a special file (mode ${type.toString(8)})`;
    if (type === S_IFDIR && !name.endsWith("/")) return "a folder entry whose name does not end in /";
  }
  return null;
}

/**
 * Extracts `zip` into `target` (which must not exist yet; its parent is created).
 * @returns how many files and bytes were written.
 * @throws {UnsafeArchiveError} when any entry is refused or a limit is passed; `target` is then absent.
 */
export async function extractArtifactZip(
  zip: Buffer,
  target: string,
  limits: ArchiveLimits = RUN_ARCHIVE_LIMITS,
): Promise<{ readonly files: number; readonly bytes: number }> {
  if (existsSync(target)) throw new Error(`Internal error: ${target} exists already`);
  mkdirSync(dirname(target), { recursive: true });
  const staging = mkdtempSync(join(dirname(target), `.${basename(target)}.extract-`));
  try {
    const counted = await extractInto(zip, staging, limits);
    renameSync(staging, target);
    return counted;
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (error instanceof UnsafeArchiveError) throw error;
    throw new UnsafeArchiveError(
      `the archive could not be extracted: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function extractInto(
  zip: Buffer,
  root: string,
  limits: ArchiveLimits,
): Promise<{ files: number; bytes: number }> {
  const zipfile = await fromBufferPromise(zip, {
    decodeStrings: true,
    strictFileNames: true,
    validateEntrySizes: true,
  });
  if (zipfile.entryCount > limits.maxEntries) {
    zipfile.close();
    throw new UnsafeArchiveError(
      `the archive holds ${zipfile.entryCount} entries; at most ${limits.maxEntries} are extracted`,
    );
  }
  let files = 0;
  let bytes = 0;
  for await (const entry of zipfile.eachEntry()) {
    const problem = archiveEntryProblem(entry);
    if (problem !== null) {
      zipfile.close();
      throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.fileName)} is refused: ${problem}`);
    }
    const path = join(root, ...entry.fileName.split("/").filter((s) => s !== ""));
    const inside = relative(root, path);
    if (inside === "" || inside.startsWith(`..${sep}`) || inside === "..") {
      zipfile.close();
      throw new UnsafeArchiveError(
        `entry ${JSON.stringify(entry.fileName)} is refused: it leaves the folder`,
      );
    }
    if (entry.fileName.endsWith("/")) {
      mkdirSync(path, { recursive: true });
      continue;
    }
    bytes += entry.uncompressedSize;
    if (bytes > limits.maxTotalBytes) {
      zipfile.close();
      throw new UnsafeArchiveError(
        `the archive holds more than ${limits.maxTotalBytes} bytes uncompressed; refused`,
      );
    }
    await writeEntry(zipfile, entry, path);
    files += 1;
  }
  return { files, bytes };
}

async function writeEntry(
  zipfile: Awaited<ReturnType<typeof fromBufferPromise>>,
  entry: Entry,
  path: string,
): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const stream = await zipfile.openReadStreamPromise(entry);
  // `wx`: a second entry of the same name (or anything already there) is an error, never an overwrite.
  await pipeline(stream, createWriteStream(path, { flags: "wx", mode: 0o644 }));
}
