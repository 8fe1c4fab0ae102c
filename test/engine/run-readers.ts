/**
 * Reading what an engine run left (its ledger rows, `events.jsonl`, `state.json`), for the engine's tests
 * through either harness: the model port (./port-harness.ts) or the real CLIs (./graph-harness.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FailRow, LedgerRow, PassRow } from "../../src/core/ledger-row.js";
import type { AutoRunOptions } from "../../src/engine/auto-run.js";
import type { HandRunResult } from "../../src/engine/hand-run.js";
import type { ResumeResult } from "../../src/engine/resume-run.js";
import type { RunState } from "../../src/engine/run-state.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { Runtime } from "../../src/policy/disclosure.js";

/** A run that finished: its ledger, run directory, id and warnings. */
export interface FinishedRun {
  readonly ledger: Ledger;
  readonly runDir: string;
  readonly runId: string;
  /** The run's warnings (e.g. codex's `budget_usd` warning; runtime-setup.ts). */
  readonly warnings: readonly string[];
}

/** The finished run of `result`; throws naming `what` ("the run", "the leg") when it did not finish. */
export function finishedRun(result: HandRunResult | ResumeResult, what: string): FinishedRun {
  if (result.kind !== "finished") throw new Error(`${what} did not finish: ${JSON.stringify(result)}`);
  return {
    ledger: result.ledger,
    runDir: result.runDir,
    runId: result.ledger.runId,
    warnings: result.warnings,
  };
}

/** The `runAuto` options an engine test does not care about: no verify, accept none, halt, 4 at once. */
export function autoDefaults(repoDir: string, runtime: Runtime) {
  return {
    repoDir,
    verifyTimeoutMs: 120_000,
    verifyEnv: [],
    acceptNoBuildEvidence: false,
    acceptLoadedUserConfig: false,
    concurrency: 4,
    onFail: "halt",
    plannerTimeoutMs: 60_000,
    runtime,
  } satisfies Partial<AutoRunOptions>;
}

/** One line of `events.jsonl`. */
export interface EventLine {
  readonly at: string;
  readonly type: string;
  readonly node?: string;
  readonly [key: string]: unknown;
}

export function readEvents(runDir: string): EventLine[] {
  const path = join(runDir, "events.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as EventLine);
}

/** The index in `events` of the first event of `type` for `node` (after `from`); -1 when none. */
export function eventIndex(events: readonly EventLine[], type: string, node: string, from = 0): number {
  return events.findIndex((e, i) => i >= from && e.type === type && e.node === node);
}

export function readState(runDir: string): RunState {
  return JSON.parse(readFileSync(join(runDir, "state.json"), "utf8")) as RunState;
}

/** `node VERDICT (qualifier)|cause[ superseded]|resets` per row, in ledger order. */
export function rowWords(rows: readonly LedgerRow[]): string[] {
  return rows.map((row) =>
    row.verdict === "PASS"
      ? `${row.nodeId} PASS (${row.qualifier})`
      : row.verdict === "FAIL"
        ? `${row.nodeId} FAIL ${row.cause}${row.superseded === true ? " superseded" : ""}`
        : row.verdict === "PAUSED"
          ? `${row.nodeId} PAUSED ${row.pause}${row.resetsAt !== null ? `, resets ${row.resetsAt}` : ""}`
          : `${row.nodeId} SKIPPED`,
  );
}

/** The rows of `node`, in order. */
export function rowsOf(rows: readonly LedgerRow[], node: string): LedgerRow[] {
  return rows.filter((row) => row.nodeId === node);
}

export function asPass(row: LedgerRow | undefined): PassRow {
  if (row?.verdict !== "PASS") throw new Error(`expected a PASS row, got ${JSON.stringify(row)}`);
  return row;
}

export function asFail(row: LedgerRow | undefined): FailRow {
  if (row?.verdict !== "FAIL") throw new Error(`expected a FAIL row, got ${JSON.stringify(row)}`);
  return row;
}
