/**
 * The engine's own stat caches for evidence trees (`evidence-tree.ts`).
 *
 * `git add -A` trusts an index entry whose stat data matches its file and does not read the file. The
 * repository's own index is written by whoever ran in the checkout: pull-request code that wrote an entry
 * with an edited file's stat data and the committed blob's id (no git command needed; the format is
 * documented, gitformat-index(5)) made the evidence tree name the committed blob while the edit ran, and
 * the run said "verified on this commit" (found 2026-12-06; so since the tree was first seeded from the
 * repository's index). So an evidence tree never starts from that index: it starts from `HEAD`'s entries
 * (no stat data: every file is read once) or from the index of the last tree the engine took of the same
 * work tree, kept here, in this process's memory.
 *
 * Git compares times to the second (it is built without nanosecond times here), and an mtime can be set
 * by anyone who can write the file: an edit made in the same second as the file's previous change, with
 * its mtime put back, leaves every compared field as it was. Git's own racy-clean rule looks at mtimes
 * only. So before a seed is kept, every entry whose ctime (which no unprivileged process can set) falls in
 * the second the seed was read in, or later, is smudged as git smudges a racily clean entry: its size set
 * to 0, so the next tree reads that file again.
 */
import { createHash } from "node:crypto";
import { readFile, rm, stat, utimes, writeFile } from "node:fs/promises";

/** How many work trees' seeds {@link SeedIndexes} keeps (a long-lived process may take many checkouts). */
const SEEDS_KEPT = 32;
/** How many bytes of seeds it keeps in all: about 100 bytes an entry, so a 100 000-file tree's is ~10 MB. */
const SEED_BYTES_KEPT = 256 * 1024 * 1024;

/** ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 bytes each): before the object id. */
const STAT_BYTES = 40;
/** Where an entry's ctime seconds and size lie (gitformat-index(5)). */
const CTIME_SECONDS_AT = 0;
const MODE_AT = 24;
const SIZE_AT = 36;
/** An entry's 16-bit flags: an extended-flags word follows (version 3 and later). */
const EXTENDED = 0x4000;

/**
 * The index at `indexFile` (written by git, version 2 or 3, SHA-1 or SHA-256 object ids) with every entry
 * whose ctime second is `sinceSecond` or later smudged (size 0), checksum redone; `null` when the file is
 * not such an index (another version, a split index, a checksum that does not match), which is then not
 * kept.
 */
export function smudgedSince(bytes: Buffer, sinceSecond: number): Buffer | null {
  const checked = checksummedBody(bytes);
  if (checked === null) return null;
  const body = Buffer.from(checked.body);
  const read = walkEntries(body, checked.idLength, (start) => {
    if (body.readUInt32BE(start + CTIME_SECONDS_AT) >= sinceSecond) body.writeUInt32BE(0, start + SIZE_AT);
  });
  if (!read) return null;
  return Buffer.concat([body, createHash(checked.algorithm).update(body).digest()]);
}

/** An index entry's mode of a gitlink (a submodule's commit). */
const GITLINK_MODE = 0o160000;

/**
 * The paths (`/`-separated, as in the index) of the gitlinks (submodules) of a git-written index (version 2
 * or 3, checksum checked); `null` when the file is not such an index.
 */
export function gitlinkPaths(bytes: Buffer): string[] | null {
  const checked = checksummedBody(bytes);
  if (checked === null) return null;
  const paths: string[] = [];
  const { body } = checked;
  const read = walkEntries(body, checked.idLength, (start, pathAt, end) => {
    if ((body.readUInt32BE(start + MODE_AT) & 0o170000) === GITLINK_MODE) {
      paths.push(body.toString("utf8", pathAt, end));
    }
  });
  return read ? paths : null;
}

/** An index's bytes without its trailing checksum, when the checksum (SHA-1, else SHA-256) matches. */
function checksummedBody(
  bytes: Buffer,
): { readonly body: Buffer; readonly idLength: number; readonly algorithm: "sha1" | "sha256" } | null {
  for (const [algorithm, idLength] of [
    ["sha1", 20],
    ["sha256", 32],
  ] as const) {
    if (bytes.length < 12 + idLength) continue;
    const body = bytes.subarray(0, bytes.length - idLength);
    if (
      createHash(algorithm)
        .update(body)
        .digest()
        .equals(bytes.subarray(bytes.length - idLength))
    ) {
      return { body, idLength, algorithm };
    }
  }
  return null;
}

/**
 * Walks the entries of a checksummed index body (versions 2 and 3), calling `visit` with each entry's
 * offset and where its path starts and ends; false when it is not one this reads to the byte.
 */
function walkEntries(
  body: Buffer,
  idLength: number,
  visit: (start: number, pathAt: number, end: number) => void,
): boolean {
  if (body.toString("latin1", 0, 4) !== "DIRC") return false;
  const version = body.readUInt32BE(4);
  if (version !== 2 && version !== 3) return false;
  const count = body.readUInt32BE(8);
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    const flagsAt = start + STAT_BYTES + idLength;
    if (flagsAt + 2 > body.length) return false;
    const flags = body.readUInt16BE(flagsAt);
    let pathAt = flagsAt + 2;
    if ((flags & EXTENDED) !== 0) {
      if (version < 3) return false;
      pathAt += 2;
    }
    const end = body.indexOf(0, pathAt);
    if (end <= pathAt) return false;
    // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
    at = start + ((end - start + 8) & ~7);
    if (at > body.length) return false;
    visit(start, pathAt, end);
  }
  while (at < body.length) {
    if (at + 8 > body.length) return false;
    // A split index keeps entries in a shared file this one only links to.
    if (body.toString("latin1", at, at + 4) === "link") return false;
    at += 8 + body.readUInt32BE(at + 4);
  }
  return at === body.length;
}

/** A kept seed: the index's bytes (smudged) and the mtime (ms) of the index git wrote them from. */
interface KeptSeed {
  readonly bytes: Buffer;
  readonly mtimeMs: number;
}

/**
 * The seeds, by key (the trusted git directory, if any, and the work tree's top directory), most recently
 * used last, in this process's memory: no file of them exists for pull-request code running as the
 * engine's own user (the CLI, the action without `isolate-user`) to rewrite. (A first version kept them in
 * a 0700 folder; an attack on it set "assume unchanged" in a kept seed, and the next tree named the
 * committed blob.) At most {@link SEEDS_KEPT} seeds and {@link SEED_BYTES_KEPT} bytes are kept.
 */
class SeedIndexes {
  readonly #seeds = new Map<string, KeptSeed>();
  #bytes = 0;

  /** The kept seed of `key`, or `null`. */
  get(key: string): KeptSeed | null {
    const seed = this.#seeds.get(key);
    if (seed === undefined) return null;
    this.#seeds.delete(key);
    this.#seeds.set(key, seed);
    return seed;
  }

  /**
   * Keeps `indexFile` (git-written by an `add -A` that began in second `readSince`) as `key`'s seed,
   * smudged ({@link smudgedSince}). A seed that cannot be kept is no error: the next tree starts from
   * `HEAD` and reads every file.
   */
  async keep(key: string, indexFile: string, readSince: number): Promise<void> {
    this.#drop(key);
    try {
      const [bytes, written] = await Promise.all([readFile(indexFile), stat(indexFile)]);
      const smudged = smudgedSince(bytes, readSince);
      if (smudged === null || smudged.length > SEED_BYTES_KEPT) return;
      this.#seeds.set(key, { bytes: smudged, mtimeMs: written.mtimeMs });
      this.#bytes += smudged.length;
      while (this.#seeds.size > SEEDS_KEPT || this.#bytes > SEED_BYTES_KEPT) {
        this.#drop(this.#seeds.keys().next().value as string);
      }
    } catch {
      this.#drop(key);
    }
  }

  #drop(key: string): void {
    const seed = this.#seeds.get(key);
    if (seed === undefined) return;
    this.#seeds.delete(key);
    this.#bytes -= seed.bytes.length;
  }
}

/** This process's seeds. */
export const seedIndexes = new SeedIndexes();

/**
 * Writes a kept seed to `indexFile` and dates it a second before the index it was kept from. Git trusts an
 * entry's stat data only when the entry is older than the index file itself (the "racy-clean" rule,
 * Documentation/technical/racy-git.txt); a file with a fresh mtime would make a same-size edit made in the
 * same second as the seed's write look clean. Backdated, every entry git would re-check on the original is
 * re-checked on the copy.
 *
 * @returns false when there is no seed (the caller starts from `HEAD`).
 */
export async function copySeed(seed: KeptSeed | null, indexFile: string): Promise<boolean> {
  if (seed === null) return false;
  try {
    await writeFile(indexFile, seed.bytes, { mode: 0o600 });
    const backdated = new Date(seed.mtimeMs - 1000);
    await utimes(indexFile, backdated, backdated);
    return true;
  } catch {
    await rm(indexFile, { force: true });
    return false;
  }
}
