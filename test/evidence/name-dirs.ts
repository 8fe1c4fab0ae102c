/**
 * Temp directories holding given names, for the build-signal scans (which read names only, so every
 * file is empty). Each test file calls {@link removeNameDirs} after each test.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** A temp directory holding the given names (a trailing `/` makes a directory). Contents are never read. */
export async function dirWith(names: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "evidence-gate-signals-"));
  made.push(dir);
  for (const name of names) {
    if (name.endsWith("/")) await mkdir(join(dir, name), { recursive: true });
    else {
      await mkdir(join(dir, name, ".."), { recursive: true });
      await writeFile(join(dir, name), "");
    }
  }
  return dir;
}

/** Removes every directory {@link dirWith} made. */
export async function removeNameDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}
