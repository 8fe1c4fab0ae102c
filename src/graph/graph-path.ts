/**
 * The `graph` input is a path **in the repository** (SPEC §10, §11): `run` reads it from the base ref through
 * the contents API, `lint` from the workspace. One normal form serves both: relative, `/`-separated, no
 * `.` or `..` segment, so the same text names the same file on either side and can never leave the
 * repository.
 */
import { posix } from "node:path";

export type GraphPath =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly problem: string };

/** `path` in normal form (`./a//b.yml` → `a/b.yml`), or why it cannot name a file in the repository. */
export function normaliseGraphPath(path: string): GraphPath {
  const refuse = (problem: string): GraphPath => ({ ok: false, problem });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(path)) return refuse("a path holds no control characters");
  if (path.includes("\\")) return refuse("use / between folders (a repository path, not a Windows path)");
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) {
    return refuse("give the path relative to the repository root, e.g. .github/evidence-gate/review.yml");
  }
  const normal = posix.normalize(path);
  if (normal === ".." || normal.startsWith("../")) {
    return refuse("the path leads out of the repository: give a file inside it");
  }
  if (normal === "." || normal.endsWith("/")) return refuse("give the path of a graph file, not a folder");
  return { ok: true, path: normal };
}
