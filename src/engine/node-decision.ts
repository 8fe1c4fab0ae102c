/**
 * What one execution of a node decides (SPEC §4 "Failure"): the settlement (`node-settlement.ts`)
 * returns one {@link Settlement}, the scheduler (`scheduler.ts`) acts on it. Outcomes are data: a retry
 * carries the next attempt's input, a feedback arc its round and payload, an exhausted arc says so.
 */
import type { FailRow, LedgerRow, PassRow } from "../core/ledger-row.js";
import type { FeedbackArc } from "../graph/graph.js";
import type { NodeFields } from "./agent-node.js";
import type { CompletionProgress } from "./completion-progress.js";
import type { RetryInfo } from "./leg-hooks.js";

/** What one execution of a node starts from. */
export interface ExecutionInput {
  /** 1-based; the node has `1 + retry.max` attempts. */
  readonly attempt: number;
  /** The feedback round it runs in (0 = none; SPEC §3 `feedback`). */
  readonly round: number;
  /**
   * From the second attempt on: the fields interpolated for the first (interpolation runs once per node
   * run), and the reply this attempt quotes (`null`: none).
   */
  readonly carried?: { readonly fields: NodeFields; readonly quoted: string | null };
  /**
   * A node with a completion gate whose check failed (SPEC §7): the attempt to run next and what it
   * continues (the session, the reasons, what was spent). Absent on the gate's first attempt.
   */
  readonly completion?: CompletionProgress;
}

/**
 * Run the next attempt: the scheduler announces it, then starts `next` unless the run stopped. A `retry`
 * (`info.kind`) starts a fresh session; a `completion` attempt continues the node's own session.
 */
export interface RetrySettlement {
  readonly kind: "retry";
  /** The attempt's FAIL, recorded superseded (the retry replaces it). */
  readonly row: FailRow;
  readonly info: Extract<RetryInfo, { kind: "retry" | "completion" }>;
  /** The `node_retried` event's sentence. */
  readonly detail: string;
  readonly next: ExecutionInput;
}

/** Fire the node's feedback arc: re-run `arc.body` in `round` with `payload` as `{{ feedback.ID }}`. */
export interface FeedbackSettlement {
  readonly kind: "feedback";
  readonly row: FailRow;
  readonly judged: boolean;
  readonly arc: FeedbackArc;
  /** The round about to run (1-based, at most `arc.max`). */
  readonly round: number;
  readonly payload: string;
  /** The `node_retried` event's sentence. */
  readonly detail: string;
}

/** The node's FAIL stands. `row` is `null` only for an internal error before any row; `exhausted`: the arc ran out. */
export interface FailedSettlement {
  readonly kind: "failed";
  readonly row: LedgerRow | null;
  /** The failure was a judgment: a `--retry-failed` leg quotes its reply (research §6.4). */
  readonly judged: boolean;
  /** The node's feedback arc has no rounds left: its latest row says so when the failure is recorded. */
  readonly exhausted?: FeedbackArc;
}

/** A decision that ends the node's run in this leg (everything but `retry` and `feedback`). */
export type FinalSettlement =
  | { readonly kind: "passed"; readonly row: PassRow; readonly reply: string }
  | FailedSettlement
  /** `row` is `null` when the run stopped before the node's first spawn. */
  | { readonly kind: "cancelled"; readonly row: LedgerRow | null }
  | { readonly kind: "paused"; readonly row: LedgerRow; readonly resetsAt: string | null };

/** What one execution decided (see the module comment). */
export type Settlement = FinalSettlement | RetrySettlement | FeedbackSettlement;
