/**
 * Reading a graph file named on the command line (`lint GRAPH`, `run GRAPH`): its text, or a usage
 * problem that names the path as given and as resolved, and what to do.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { GRAPH_FILE_MAX_BYTES } from "../core/graph-file-limit.js";

export type GraphFileRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly error: string };

/**
 * Reads the graph file at `path` (`given` is the argument as typed), or says why not: a directory, a file
 * that is not regular (a FIFO or a device such as /dev/zero, which would block or never end), or one over
 * {@link GRAPH_FILE_MAX_BYTES} is refused without reading more than that bound plus one byte.
 */
export function readGraphFile(path: string, given: string): GraphFileRead {
  const where = path === given ? JSON.stringify(given) : `${JSON.stringify(given)} (${path})`;
  try {
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    const stat = statSync(path);
    if (stat.isDirectory()) {
      return { ok: false, error: `${where} is a directory: give the path of a graph file (YAML or JSON)` };
    }
    if (!stat.isFile()) return { ok: false, error: notRegular(where) };
    const fd = openSync(path, "r");
    try {
      if (!fstatSync(fd).isFile()) return { ok: false, error: notRegular(where) };
      const buffer = Buffer.alloc(GRAPH_FILE_MAX_BYTES + 1);
      let length = 0;
      while (length < buffer.length) {
        const n = readSync(fd, buffer, length, buffer.length - length, null);
        if (n === 0) break;
        length += n;
      }
      if (length > GRAPH_FILE_MAX_BYTES) {
        return {
          ok: false,
          error: `the graph file ${where} is over ${GRAPH_FILE_MAX_BYTES} bytes; a graph file may be at most ${GRAPH_FILE_MAX_BYTES} bytes (1 MiB): split it into fragments`,
        };
      }
      return { ok: true, text: buffer.subarray(0, length).toString("utf8") };
    } finally {
      closeSync(fd);
    }
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

function notRegular(where: string): string {
  return `${where} is not a regular file (a FIFO, a device or a socket): give the path of a graph file (YAML or JSON)`;
}
