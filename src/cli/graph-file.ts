/**
 * Reading a graph file named on the command line (`lint GRAPH`, `run GRAPH`): its text, or a usage
 * problem that names the path as given and as resolved, and what to do.
 */
import { readFileSync, statSync } from "node:fs";

export type GraphFileRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

/** Reads the graph file at `path` (`given` is the argument as typed), or says why not. */
export function readGraphFile(path: string, given: string): GraphFileRead {
  const where = path === given ? JSON.stringify(given) : `${JSON.stringify(given)} (${path})`;
  try {
    if (statSync(path).isDirectory()) {
      return { ok: false, error: `${where} is a directory: give the path of a graph file (YAML or JSON)` };
    }
    return { ok: true, text: readFileSync(path, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return {
        ok: false,
        error: `no graph file at ${where}: check the path (it is relative to the current directory)`,
      };
    }
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `cannot read the graph file ${where}: ${why}` };
  }
}
