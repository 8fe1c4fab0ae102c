/**
 * Where a node's completion gate stands between its attempts (SPEC §7; seed 002): the attempt about to
 * run, the session every attempt continues, what the failed attempts said, what they spent, and the latest
 * plan the agent declared. The scheduler carries it from one attempt to the next (`ExecutionInput`), and
 * `state.json` keeps it on the node's record before the next attempt spawns, so a run killed after
 * attempt k resumes at attempt k+1 in the same session with the same reasons (research/toolnexus.md §2.1
 * "Crash or restart").
 *
 * Plans are runtime-neutral (`runtime/declared-plan.ts`).
 */

import { clip } from "../core/clip.js";
import type { TokenUsage } from "../core/ledger-row.js";
import type { DeclaredPlan } from "../runtime/declared-plan.js";
import type { CompletionRecord } from "./run-state.js";

/** Characters of one attempt's one-line reason kept (rows, `stoppedBy`, `state.json`). */
export const REASON_CHARS = 300;

/** What the next attempt of a node's completion gate starts from. Money in USD, time in ms. */
export interface CompletionProgress {
  /** The attempt about to run (2 … `max_attempts`; `max_attempts + 1` = none left). */
  readonly attempt: number;
  /** The session (claude) or thread (codex) every attempt continues: the first attempt's. */
  readonly sessionId: string;
  /** Each failed attempt's one-line reason, in order. */
  readonly reasons: readonly string[];
  /** The last failed attempt's full report (bounded): what the next attempt is told. */
  readonly feedback: string;
  /** What the attempts so far spent (`null`: one attempt's cost was unknown, as on codex). */
  readonly spentUsd: number | null;
  /** The model-CLI time the attempts so far took: the node's `timeout` binds across them. */
  readonly elapsedMs: number;
  /** The latest plan any attempt declared (`null`: none yet). */
  readonly plan: DeclaredPlan | null;
  /** Codex: the `CODEX_HOME` the thread lives in, when known. */
  readonly codexHome?: string;
  /** Claude: the session's cumulative cost after the last attempt (`null`: not reported), for this call's share. */
  readonly sessionCostUsd?: number | null;
  /** Codex: the thread's cumulative usage after the last attempt, for this call's share. */
  readonly threadUsage?: TokenUsage;
}

/** The node record's form of `progress` (snake_case, like the rest of `state.json`), for feedback round `round`. */
export function progressRecord(progress: CompletionProgress, round: number): CompletionRecord {
  return {
    round,
    attempt: progress.attempt,
    session_id: progress.sessionId,
    reasons: [...progress.reasons],
    feedback: progress.feedback,
    spent_usd: progress.spentUsd,
    elapsed_ms: progress.elapsedMs,
    ...(progress.plan !== null
      ? {
          plan: {
            items: progress.plan.items.map((i) => ({ ...i })),
            total: progress.plan.total,
            open: progress.plan.open,
          },
        }
      : {}),
    ...(progress.codexHome !== undefined ? { codex_home: progress.codexHome } : {}),
    ...(progress.sessionCostUsd !== undefined ? { session_cost_usd: progress.sessionCostUsd } : {}),
    ...(progress.threadUsage !== undefined ? { thread_usage: progress.threadUsage } : {}),
  };
}

/** The progress a node record keeps (read back by a resumed leg). */
export function progressFromRecord(record: CompletionRecord): CompletionProgress {
  return {
    attempt: record.attempt,
    sessionId: record.session_id,
    reasons: record.reasons,
    feedback: record.feedback,
    spentUsd: record.spent_usd,
    elapsedMs: record.elapsed_ms,
    plan: record.plan ?? null,
    ...(record.codex_home !== undefined ? { codexHome: record.codex_home } : {}),
    ...(record.session_cost_usd !== undefined ? { sessionCostUsd: record.session_cost_usd } : {}),
    ...(record.thread_usage !== undefined ? { threadUsage: record.thread_usage } : {}),
  };
}

/** `text` on one line, at most `chars` characters (the last one `…`). */
export function oneLineClip(text: string, chars: number = REASON_CHARS): string {
  return clip(text.replace(/\s+/g, " ").trim(), chars);
}
