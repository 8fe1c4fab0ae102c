/**
 * The progress callbacks of one leg (`executeGraph`), and why a failed execution runs again. The CLI
 * prints them as lines (`src/progress/`), the action posts check-run updates from them.
 */
import type { FailCause, LedgerRow } from "../core/ledger-row.js";

/** Progress callbacks of one leg; each may be async (the action posts check-run updates from them). */
export interface GraphRunHooks {
  /**
   * An execution started: its session (minted, or the parent's for a session handoff; `null` for a fresh
   * codex thread, whose id codex mints and prints once it runs), attempt and round.
   */
  readonly onNodeStarted?: (
    nodeId: string,
    info: {
      readonly sessionId: string | null;
      readonly attempt: number;
      readonly round: number;
      /** A node with a completion gate: its completion attempt (SPEC §7). */
      readonly completionAttempt?: number;
    },
  ) => void;
  /** Codex: a fresh thread's id, once codex printed it (the execution's `onNodeStarted` had `null`). */
  readonly onNodeSession?: (nodeId: string, sessionId: string) => void;
  readonly onNodeVerifying?: (nodeId: string, command: string) => void;
  /** A failed execution will be re-run: a retry of the node, or a feedback round re-running its body. */
  readonly onNodeRetried?: (nodeId: string, info: RetryInfo) => void;
  /** Every recorded execution (superseded ones included), already redacted. */
  readonly onNodeFinished?: (row: LedgerRow) => void | Promise<void>;
  readonly onGatePaused?: (gate: string) => void;
  readonly onSessionLimit?: (nodeId: string, resetsAt: string | null) => void;
  /** The executions so far, in ledger order, after each recorded execution. */
  readonly onRows?: (rows: readonly LedgerRow[]) => void | Promise<void>;
}

/** Why a failed execution runs again. */
export type RetryInfo =
  | {
      readonly kind: "retry";
      readonly cause: FailCause;
      /** The attempt about to run (2-based) and the node's attempts in all (1 + `retry.max`). */
      readonly attempt: number;
      readonly maxAttempts: number;
      readonly judged: boolean;
    }
  | {
      readonly kind: "feedback";
      readonly cause: FailCause;
      readonly round: number;
      readonly max: number;
      readonly rerun: string;
    }
  /** The node's completion check failed (SPEC §7): `attempt` of `maxAttempts` continues its session. */
  | {
      readonly kind: "completion";
      readonly attempt: number;
      readonly maxAttempts: number;
      /** The failed check's one-line reason. */
      readonly reason: string;
    };
