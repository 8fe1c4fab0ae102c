/**
 * Which of the files a node's model wrote lie outside the repository (the evidence tree and the
 * ignored-files fingerprint cover the repository only). The paths come from the model's file-writing tool
 * calls (`ClaudeToolCallCounts.writtenPaths`), not from the filesystem: a write made by another route
 * (a tool's side effect, a shell command) is not seen here.
 */
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { OutsideWrites } from "../core/ledger-row.js";

/** How many paths a row keeps (the total is kept too). */
export const OUTSIDE_WRITES_KEPT = 10;

/**
 * The written paths outside `repoRoot`, each resolved against `cwd` and then through the real path of its
 * nearest existing ancestor (so a symlink inside the repository that points out of it counts as outside).
 * A path that cannot be placed (`~…`, a dangling symlink, an unreadable ancestor) counts as outside: fail
 * safe. Returns `undefined` when every path is inside.
 */
export function outsideWrites(
  paths: readonly string[],
  where: { readonly cwd: string; readonly repoRoot: string },
): OutsideWrites | undefined {
  const root = realOrSelf(resolve(where.repoRoot));
  const outside = new Set<string>();
  for (const path of paths) {
    const placed = placePath(path, where.cwd);
    if (placed === null) {
      outside.add(path);
      continue;
    }
    if (!inside(root, placed)) outside.add(placed);
  }
  if (outside.size === 0) return undefined;
  return { total: outside.size, paths: [...outside].slice(0, OUTSIDE_WRITES_KEPT) };
}

/**
 * True when `path` (resolved against `cwd`, then through real paths, as {@link outsideWrites} does) lies in
 * `repoRoot` or is it. A path that cannot be placed is not inside. Used for the run's working directory too,
 * so a symlink out of the repository never takes a run (or its verify) elsewhere.
 */
export function liesInRepository(
  path: string,
  where: { readonly cwd: string; readonly repoRoot: string },
): boolean {
  const placed = placePath(path, where.cwd);
  return placed !== null && inside(realOrSelf(resolve(where.repoRoot)), placed);
}

/** The real absolute path `path` names, or `null` when it cannot be known. */
function placePath(path: string, cwd: string): string | null {
  // The CLI expands `~` itself; where it points is not known here.
  if (path === "~" || path.startsWith("~/") || path.startsWith(`~${sep}`)) return null;
  const absolute = resolve(cwd, path);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    if (exists(current)) {
      try {
        return rest.length === 0 ? realpathSync(current) : join(realpathSync(current), ...rest);
      } catch {
        return null; // a dangling symlink or an unreadable ancestor
      }
    }
    const parent = dirname(current);
    if (parent === current) return null;
    rest.unshift(basename(current));
    current = parent;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
