/**
 * The largest graph file read, in bytes: 1 MiB (a graph is a few KiB; GitHub's contents API inlines up to
 * 1 MB). The one limit for every reader of a graph file — the action's base-ref and workspace reads, and
 * the CLI's `lint`/`resolve`/`run GRAPH`.
 */
export const GRAPH_FILE_MAX_BYTES = 1024 * 1024;
