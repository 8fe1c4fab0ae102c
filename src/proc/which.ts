import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * Finds an executable the way the exec seam will: an absolute/relative path is checked as is, a bare
 * name is looked up on `pathEnv`.
 *
 * @returns the resolved path, or `null` when nothing executable is found.
 */
export function findExecutable(name: string, pathEnv: string | undefined): string | null {
  const candidates =
    name.includes("/") || isAbsolute(name)
      ? [name]
      : (pathEnv ?? "")
          .split(delimiter)
          .filter(Boolean)
          .map((d) => join(d, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}
