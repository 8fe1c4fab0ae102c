/**
 * The engine hooks every running mode gives (SPEC §6): one log line per node event, worded as the CLI
 * words them (src/progress/node-lines.ts) but without the free-text detail (the ledger printed at the end
 * shows it, fenced from the runner's workflow-command parser), and the in-progress ledger posted to the
 * check run — the plan at once, then as nodes finish, at most one update per 10 s
 * ({@link CheckRunReporter}'s throttle; the final completion is never throttled).
 */
import type { LedgerRow } from "../core/ledger-row.js";
import type { RetryInfo } from "../engine/leg-hooks.js";
import type { CheckRunReporter } from "../github/check-run-reporter.js";
import type { Ledger, PlanSection } from "../ledger/ledger.js";
import { NodeLines, nodeLine, pauseLine } from "../progress/node-lines.js";
import type { Runner } from "./runner.js";

/** Hooks that fit `runAuto`, `runHandWritten` and `resumeRun` alike. */
export interface ProgressHooks {
  readonly onPlan: (plan: PlanSection) => void;
  readonly onNodeStarted: (
    nodeId: string,
    info?: { readonly attempt: number; readonly round: number },
  ) => void;
  readonly onNodeVerifying: (nodeId: string, command: string) => void;
  readonly onNodeRetried: (nodeId: string, info: RetryInfo) => void;
  readonly onNodeFinished: (row: LedgerRow) => void;
  readonly onGatePaused: (gate: string) => void;
  readonly onSessionLimit: (nodeId: string, resetsAt: string | null) => void;
  readonly onProgress: (ledger: Ledger, kind: "plan" | "node") => Promise<void>;
}

/** `reporter` may have no check run yet (a resume creates it when its leg starts): progress then waits. */
export function progressHooks(runner: Runner, reporter: CheckRunReporter): ProgressHooks {
  const lines = new NodeLines();
  return {
    onPlan: (plan) => {
      runner.info(`plan: ${plan.nodes.map((n) => n.id).join(", ")}`);
      // The disclosure slot, before any node runs (a resumed leg's too: seed 001 §2.7). Engine text only.
      runner.info(`tool ceiling: ${plan.disclosure}`);
      // What the runtime will not enforce (a codex node's budget_usd): an annotation, before anything runs.
      for (const warning of plan.warnings ?? []) runner.warning(warning);
    },
    onNodeStarted: (id, info) => runner.info(lines.started(id, info)),
    onNodeVerifying: (id, command) => runner.info(lines.verifying(id, command)),
    onNodeRetried: (id, info) => runner.info(lines.retried(id, info)),
    onNodeFinished: (row) => runner.info(nodeLine(row, { detail: false })),
    onGatePaused: (gate) =>
      runner.info(pauseLine({ kind: "gate", gate }, "the run pauses for a person's decision")),
    onSessionLimit: (nodeId, resetsAt) =>
      runner.info(pauseLine({ kind: "session-limit", nodeId, resetsAt }, "the run pauses")),
    onProgress: async (ledger, kind) => {
      await reporter.progress(ledger, kind === "plan");
    },
  };
}
