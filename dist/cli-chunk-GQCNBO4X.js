#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);

// src/cli/graph-file.ts
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

// src/core/graph-file-limit.ts
var GRAPH_FILE_MAX_BYTES = 1024 * 1024;

// src/cli/graph-file.ts
function readGraphFile(path, given) {
  const where = path === given ? JSON.stringify(given) : `${JSON.stringify(given)} (${path})`;
  try {
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
          error: `the graph file ${where} is over ${GRAPH_FILE_MAX_BYTES} bytes; a graph file may be at most ${GRAPH_FILE_MAX_BYTES} bytes (1 MiB): split it into fragments`
        };
      }
      return { ok: true, text: buffer.subarray(0, length).toString("utf8") };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = error.code;
    if (code === "ENOENT") {
      return {
        ok: false,
        error: `no graph file at ${where}: check the path (it is relative to the current directory)`
      };
    }
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `cannot read the graph file ${where}: ${why}` };
  }
}
function notRegular(where) {
  return `${where} is not a regular file (a FIFO, a device or a socket): give the path of a graph file (YAML or JSON)`;
}

export {
  readGraphFile
};
