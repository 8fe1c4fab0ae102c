/**
 * A saved run's ledger, read back from its run directory (SPEC §11: `evidence-gate ledger RUN_ID` and
 * `report RUN_ID` print or post a run again without re-running it). The rule of what can be read back:
 *
 * - the id has the run id format (`YYYYMMDD-HHMMSS-<6 hex>`) and names a folder of the runs folder;
 * - the run is not in progress: its `run.lock` is not held by a live process (a leg still running has no
 *   final ledger yet — and a `ledger.json` an earlier leg left would be stale);
 * - its `state.json`, when it has one, is of the schema version this evidence-gate reads;
 * - its `ledger.json` exists and passes the ledger's strict schema, and is concluded.
 *
 * Each refusal is a sentence naming the run, the file and the fix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isRunId } from "../core/run-id.js";
import { liveLockHolder } from "../engine/run-dir.js";
import { RUN_STATE_SCHEMA_VERSION } from "../engine/run-state.js";
import type { Ledger } from "../ledger/ledger.js";
import { parseLedgerJson } from "../ledger/render-json.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";

/** A saved run's concluded ledger: parsed, and the exact bytes of `ledger.json` (the ledger artifact). */
export interface SavedLedger {
  readonly ledger: Ledger & { readonly conclusion: NonNullable<Ledger["conclusion"]> };
  /** `ledger.json` as written by the engine (redacted), newline-terminated JSON. */
  readonly text: string;
  /** Absolute path of `ledger.json`. */
  readonly path: string;
}

/**
 * Reads run `runId`'s ledger from `<runsDir>/<runId>/ledger.json`, by the rule above.
 *
 * @returns the ledger, or why it cannot be read (a sentence naming the input and the fix).
 */
export function readSavedLedger(runsDir: string, runId: string): SavedLedger | { readonly problem: string } {
  if (!isRunId(runId)) {
    return {
      problem: `${JSON.stringify(runId)} is not a run id (YYYYMMDD-HHMMSS-<6 hex>, as \`run\` printed it)${knownRuns(runsDir)}`,
    };
  }
  const runDir = join(runsDir, runId);
  if (!existsSync(runDir) || !statSync(runDir).isDirectory()) {
    return {
      problem: `no run ${runId} in ${runsDir}: give the id a run printed (or --runs-dir where it ran)${knownRuns(runsDir)}`,
    };
  }
  const holder = liveLockHolder(runDir);
  if (holder !== null) {
    return {
      problem: `run ${runId} is still in progress (process ${holder} holds ${join(runDir, "run.lock")}): its ledger is written when it ends; wait for it, or stop it first`,
    };
  }
  const statePath = join(runDir, "state.json");
  if (existsSync(statePath)) {
    let version: unknown;
    try {
      version = (JSON.parse(readFileSync(statePath, "utf8")) as { schema_version?: unknown } | null)
        ?.schema_version;
    } catch (error) {
      return {
        problem: `${statePath} is not valid JSON (${error instanceof Error ? error.message : String(error)}): the run directory is damaged`,
      };
    }
    if (version !== RUN_STATE_SCHEMA_VERSION) {
      return {
        problem: `${statePath} has schema_version ${JSON.stringify(version)}; this evidence-gate reads ${RUN_STATE_SCHEMA_VERSION}: read the run with the evidence-gate version that wrote it`,
      };
    }
  }
  const path = join(runDir, "ledger.json");
  if (!existsSync(path)) {
    return {
      problem: `run ${runId} has no ledger (${path} does not exist): it stopped before its end (a crash or a kill); \`evidence-gate resume ${runId} --retry-failed\` finishes it`,
    };
  }
  const text = readFileSync(path, "utf8");
  const parsed = parseLedgerJson(text);
  if (!parsed.ok) {
    return {
      problem: `${path} is not a ledger this evidence-gate reads: ${parsed.issues.slice(0, 3).join("; ")}`,
    };
  }
  const { ledger } = parsed;
  if (ledger.conclusion === null) {
    return { problem: `${path} holds an unfinished ledger (no conclusion): the run did not end` };
  }
  if (ledger.runId !== runId) {
    return {
      problem: `${path} is the ledger of run ${ledger.runId}, not ${runId}: the run directory was moved`,
    };
  }
  return { ledger: { ...ledger, conclusion: ledger.conclusion }, text, path };
}

/** How `ledger` prints a saved run: the text table, the ledger JSON, or the Markdown ledger. */
export type SavedLedgerFormat = "text" | "json" | "markdown";

/**
 * The saved ledger in `format`: the fixed-width table (newline-terminated), `ledger.json`'s own bytes (so
 * `ledger --json` equals the ledger artifact), or the Markdown the check run and job summary carry.
 */
export function renderSavedLedger(saved: SavedLedger, format: SavedLedgerFormat): string {
  switch (format) {
    case "json":
      return saved.text;
    case "markdown":
      return renderLedgerMarkdown(saved.ledger);
    default:
      return `${renderLedgerText(saved.ledger)}\n`;
  }
}

/** ": runs in DIR: A, B" (the newest five), or "" when the folder has none: what a typo could have meant. */
function knownRuns(runsDir: string): string {
  let ids: string[];
  try {
    ids = readdirSync(runsDir).filter(isRunId).sort().reverse();
  } catch {
    return "";
  }
  if (ids.length === 0) return "";
  return `; runs in ${runsDir}: ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", …" : ""}`;
}
