/**
 * The engine hooks every running mode gives (SPEC §6): one log line per transition, and the in-progress
 * ledger posted to the check run — the plan at once, then as nodes finish, at most one update per 10 s
 * ({@link CheckRunReporter}'s throttle; the final completion is never throttled).
 */
import * as core from "@actions/core";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import type { Ledger, PlanSection } from "../ledger/ledger.js";
import type { LedgerRow } from "../ledger/model.js";

/** Hooks that fit `runAuto`, `runHandWritten` and `resumeRun` alike. */
export interface ProgressHooks {
  readonly onPlan: (plan: PlanSection) => void;
  readonly onNodeStarted: (nodeId: string) => void;
  readonly onNodeVerifying: (nodeId: string, command: string) => void;
  readonly onNodeFinished: (row: LedgerRow) => void;
  readonly onGatePaused: (gate: string) => void;
  readonly onSessionLimit: (nodeId: string, resetsAt: string | null) => void;
  readonly onProgress: (ledger: Ledger, kind: "plan" | "node") => Promise<void>;
}

/** `reporter` may have no check run yet (a resume creates it when its leg starts): progress then waits. */
export function progressHooks(reporter: CheckRunReporter): ProgressHooks {
  return {
    onPlan: (plan) => core.info(`plan: ${plan.nodes.map((n) => n.id).join(", ")}`),
    onNodeStarted: (id) => core.info(`node ${id} started`),
    onNodeVerifying: (id, command) => core.info(`node ${id}: the engine runs the verify command: ${command}`),
    onNodeFinished: (row) =>
      core.info(
        `node ${row.nodeId}: ${row.verdict}${row.verdict === "PASS" ? ` (${row.qualifier})` : row.verdict === "FAIL" ? ` ${row.cause}` : ""}`,
      ),
    onGatePaused: (gate) => core.info(`gate ${gate}: the run pauses for a person's decision`),
    onSessionLimit: (id, resetsAt) =>
      core.info(
        `node ${id} hit the model's session limit${resetsAt ? ` (resets at ${resetsAt})` : ""}: the run pauses`,
      ),
    onProgress: async (ledger, kind) => {
      await reporter.progress(ledger, kind === "plan");
    },
  };
}
