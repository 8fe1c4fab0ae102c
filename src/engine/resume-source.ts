/**
 * The run a `resume` continues, read back from its run directory (SPEC §4; research/oh-my-graph.md §7.6):
 * `state.json` (parsed as data, `run-state.ts`) and `graph.json` as the first leg wrote it — never the
 * graph file, which may have changed since. A run directory can come from a downloaded workflow artifact,
 * so nothing in it is trusted for its shape.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isRunId, type RunId } from "../core/run-id.js";
import type { Graph } from "../graph/graph.js";
import { formatIssue } from "../graph/issue.js";
import { loadGraphObject } from "../graph/load.js";
import { type RunState, RunStateError, readRunState } from "./run-state.js";

/** A run read back: its id and directory, its state, and its graph with the text it was read from. */
export interface ResumableRun {
  readonly kind: "read";
  readonly runId: RunId;
  /** `<runsDir>/<run id>`. */
  readonly path: string;
  readonly state: RunState;
  readonly graph: Graph;
  /** `graph.json` as read (its digest is the one the action posted). */
  readonly graphText: string;
}

/**
 * Reads run `runId` under `runsDir`. The graph is re-validated with the recorded verify timeout as the
 * ceiling (at least SPEC §3's default 10 min).
 *
 * @returns the run, or a usage error naming what is wrong (a bad id, no such run, an unreadable state
 *   file, a missing, unparsable or invalid `graph.json`).
 * @throws file-system errors other than those (internal errors).
 */
export function readResumableRun(
  runsDir: string,
  runId: string,
): ResumableRun | { readonly kind: "usage_error"; readonly message: string } {
  if (!isRunId(runId)) {
    return {
      kind: "usage_error",
      message: `${JSON.stringify(runId)} is not a run id (YYYYMMDD-HHMMSS-xxxxxx): give the id the run printed`,
    };
  }
  const path = join(runsDir, runId);
  if (!existsSync(path)) {
    return {
      kind: "usage_error",
      message: `no run ${runId} under ${runsDir}: check the run id and --runs-dir (the folder the run was started with)`,
    };
  }
  let state: RunState;
  try {
    state = readRunState(path);
  } catch (error) {
    if (error instanceof RunStateError) return { kind: "usage_error", message: error.message };
    throw error;
  }
  const graphPath = join(path, "graph.json");
  if (!existsSync(graphPath))
    return { kind: "usage_error", message: `${graphPath} does not exist: this run has no graph to resume` };
  let spec: unknown;
  const graphText = readFileSync(graphPath, "utf8");
  try {
    spec = JSON.parse(graphText);
  } catch (error) {
    return {
      kind: "usage_error",
      message: `${graphPath} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const loaded = loadGraphObject(spec, graphPath, {
    verifyTimeoutCeilingMs: Math.max(state.verify.timeout_ms, 10 * 60_000),
  });
  if (!loaded.ok) {
    return {
      kind: "usage_error",
      message: `${graphPath} does not load:\n${loaded.issues.map(formatIssue).join("\n")}`,
    };
  }
  return { kind: "read", runId: runId as RunId, path, state, graph: loaded.graph, graphText };
}
