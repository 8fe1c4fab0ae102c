/**
 * `state.json`: the settled state of one run (SPEC §4 "State"; research/oh-my-graph.md §7.3). Written
 * atomically (temp file + rename) when the run starts and after every terminal node, gate decision and
 * pause, so a crash at any moment leaves valid JSON describing every node that finished. `resume` rebuilds
 * the run from this file and `graph.json`, never from the graph file (which may have changed since).
 *
 * The file is also read back from a downloaded workflow artifact (action input `resume-run-id`), so it
 * is parsed with zod as data, never trusted for its shape.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { BuildEvidenceAnswer } from "../core/build-evidence-answer.js";
import {
  type LedgerRow,
  MAX_VERIFY_REPEAT,
  NOTHING_SPENT,
  type PassRow,
  type TokenUsage,
} from "../core/ledger-row.js";
import type { PlanningCall, PlanSection } from "../ledger/ledger.js";
import type { ToolPolicy } from "../policy/tool-policy.js";

/** Bumped whenever a field's meaning changes; `resume` refuses any other version. */
export const RUN_STATE_SCHEMA_VERSION = 2;

/** Where a node stands after the latest leg. */
export type NodeStatus =
  | "passed"
  | "failed"
  | "skipped"
  | "cancelled"
  | "waiting"
  | "limited"
  /** An execution was under way when this state was written (a crash leaves it so; resume re-runs it). */
  | "running";

/** One node's settled record. */
export interface NodeRecord {
  readonly status: NodeStatus;
  /** The session of its latest execution (the one a `handoff: session` child resumes). */
  readonly session_id: string | null;
  /** Executions so far (retries, feedback rounds and legs included). */
  readonly executions: number;
  /** The latest failure was a judgment (its reply is quoted by a `--retry-failed` retry; research §6.4). */
  readonly judged?: boolean;
  /** Feedback rounds this node's arc has fired (declarers only). */
  readonly feedback_rounds?: number;
  /**
   * Codex only: the cumulative token usage of the thread in `session_id` after its latest execution
   * (codex counts per thread, `codex-usage.ts`), so a `handoff: session` child that resumes the thread
   * records only its own share. Absent: claude, or codex reported no usage.
   */
  readonly thread_usage?: TokenUsage;
  /**
   * Claude: the session's cumulative cost after the latest execution (claude reports the whole session's
   * cost on `--resume`), so a `handoff: session` child records only its own. `null`: not reported.
   */
  readonly session_cost_usd?: number | null;
  /**
   * A node with a completion gate whose check failed and that has an attempt to make: written before that
   * attempt spawns, so a resumed leg continues it (SPEC §7). Absent once the node passed, and on every
   * node without a gate.
   */
  readonly completion?: CompletionRecord;
}

/** Where a node's completion gate stands between attempts (`completion-progress.ts`). Money USD, time ms. */
export interface CompletionRecord {
  /** The feedback round of the node's run it belongs to (a later round starts the gate again). */
  readonly round: number;
  /** The attempt to run next (2 … `max_attempts`; `max_attempts + 1`: none left). */
  readonly attempt: number;
  /** The session or thread every attempt continues. */
  readonly session_id: string;
  /** Each failed attempt's one-line reason, in order. */
  readonly reasons: readonly string[];
  /** The last failed attempt's report, fed back to the next attempt. */
  readonly feedback: string;
  readonly spent_usd: number | null;
  readonly elapsed_ms: number;
  /** Claude: the session's cumulative cost after the last attempt (`null`: not reported). */
  readonly session_cost_usd?: number | null;
  /** Codex: the thread's cumulative usage after the last attempt. */
  readonly thread_usage?: TokenUsage;
  /** The latest plan declared (first items kept; counts over all). */
  readonly plan?: {
    readonly items: readonly { readonly text: string; readonly done: boolean }[];
    readonly total: number;
    readonly open: number;
  };
  /** Codex: the `CODEX_HOME` the thread lives in. */
  readonly codex_home?: string;
}

/** A gate's decision. `approved`/`rejected` record who decided and the head SHA they decided on. */
export interface GateRecord {
  readonly status: "waiting" | "approved" | "rejected";
  readonly by?: string;
  readonly head_sha?: string;
  readonly at?: string;
}

/** Why the latest leg stopped without finishing (exit 2 / `action_required`). */
export interface PauseRecord {
  readonly reason: "gate" | "session-limit";
  readonly node: string;
  /** Session limit only: the reset time as the CLI wrote it. */
  readonly resets_at?: string | null;
}

/** One process's part of the run (SPEC §1 "leg"). */
export interface LegRecord {
  readonly started_at: string;
  /** `fresh`, or the resume action: `approve GATE`, `reject GATE`, `retry-failed`. */
  readonly kind: string;
  readonly finished_at?: string;
  readonly outcome?: string;
}

/** The whole of `state.json`. Field names are snake_case like the graph file. */
export interface RunState {
  readonly schema_version: typeof RUN_STATE_SCHEMA_VERSION;
  readonly run_id: string;
  readonly mode: "auto" | "run";
  readonly goal?: string;
  /** Where the hand-written graph came from (a path, `base ref main: .github/graph.yml`). */
  readonly graph_source?: string;
  /** Which CLI every agent node of the run spawns; a resumed leg keeps it (SPEC §4). */
  readonly runtime: "claude" | "codex";
  readonly model?: string;
  /**
   * The KEYS of the run's `codex-config` pairs, in order (never the values: a provider setting may carry a
   * secret). A resumed leg must be given pairs for these keys again (`resume-run.ts`).
   */
  readonly codex_config_keys?: readonly string[];
  /** `--input` values of a hand-written run (resume takes them from here, never from flags). */
  readonly inputs: Readonly<Record<string, string>>;
  readonly build_evidence: BuildEvidenceAnswer;
  readonly starting_commit: { readonly sha: string; readonly tree: string; readonly description: string };
  /**
   * The working tree was the starting commit's tree when the run began (no uncommitted edits): a resumed
   * leg may `--commit` only then, or it would commit someone's edits as the nodes' work. Absent: unknown.
   */
  readonly start_clean?: boolean;
  /**
   * The working tree (`evidenceTree`) when the latest leg ended: a resumed leg starts only on the same
   * files, so an edit made while the run waited (or nodes' changes that went missing) cannot ride along
   * under the approval. `null`: could not be read. Absent: the leg did not end (a crash).
   */
  readonly leg_end_tree?: string | null;
  /** Absolute paths: the repository root and the directory nodes run in by default. */
  readonly repo_dir: string;
  readonly work_dir: string;
  readonly concurrency: number;
  readonly on_fail: "halt" | "continue";
  /** The verify timeout, `verify-env` names and `verify-repeat` of the first leg (a resumed leg keeps them). */
  readonly verify: {
    readonly timeout_ms: number;
    readonly env: readonly string[];
    readonly repeat?: number;
  };
  /** Base-branch policy: `require-evidence` and where it was read. */
  readonly policy?: {
    readonly require_evidence: boolean;
    /** `require-tests: true` (ADR 0016); absent: false. */
    readonly require_tests?: boolean;
    /** `test-reports` patterns (issue 25); absent: none. */
    readonly test_reports?: readonly string[];
    readonly source?: string;
  };
  /** Every node's tool policy, fixed at the first leg; a resumed leg uses these verbatim (SPEC §8). */
  readonly tool_policies: Readonly<Record<string, ToolPolicy>>;
  readonly planning_calls: readonly PlanningCall[];
  /** The ledger's plan section, as the first leg wrote it (a resumed leg reports the same plan). */
  readonly plan: PlanSection | null;
  /** Every execution of every node, in order, across legs (the ledger's rows). */
  readonly rows: readonly LedgerRow[];
  readonly nodes: Readonly<Record<string, NodeRecord>>;
  readonly gates: Readonly<Record<string, GateRecord>>;
  readonly paused: PauseRecord | null;
  readonly legs: readonly LegRecord[];
}

const usage = z
  .object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadInputTokens: z.number().optional(),
    cacheCreationInputTokens: z.number().optional(),
  })
  .nullable();

// Rows are the engine's own output; the schema checks what resume reads and keeps the rest as data.
const rowSchema = z
  .object({
    nodeId: z.string(),
    verdict: z.enum(["PASS", "FAIL", "SKIPPED", "PAUSED"]),
    sessionId: z.string().nullable(),
    costUsd: z.number().nullable(),
    durationMs: z.number(),
    deniedToolCalls: z.number(),
    usage,
    numTurns: z.number().nullable(),
    sink: z.boolean(),
    detail: z.string(),
  })
  .passthrough();

const policySchema = z.object({
  settingSources: z.string().optional(),
  allowedTools: z.array(z.string()),
  tools: z.array(z.string()).optional(),
  strictMcpConfig: z.boolean(),
  disallowedTools: z.array(z.string()),
  agent: z
    .object({
      name: z.string(),
      definition: z.object({
        description: z.string(),
        prompt: z.string(),
        tools: z.array(z.string()).optional(),
        model: z.string().optional(),
      }),
    })
    .optional(),
});

const signal = z.object({ file: z.string(), ecosystem: z.string(), suggestion: z.string() });

const stateSchema = z.object({
  schema_version: z.literal(RUN_STATE_SCHEMA_VERSION),
  run_id: z.string(),
  mode: z.enum(["auto", "run"]),
  goal: z.string().optional(),
  graph_source: z.string().optional(),
  runtime: z.enum(["claude", "codex"]),
  model: z.string().optional(),
  codex_config_keys: z.array(z.string()).optional(),
  inputs: z.record(z.string(), z.string()),
  build_evidence: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("attached"), command: z.string(), declaredBy: z.enum(["input", "policy"]) }),
    z.object({ kind: z.literal("declared"), signals: z.array(signal) }),
    z.object({ kind: z.literal("none-detected") }),
    z.object({
      kind: z.literal("graph"),
      verifiedSinks: z.array(z.string()),
      unverifiedSinks: z.array(z.string()),
    }),
  ]),
  starting_commit: z.object({ sha: z.string(), tree: z.string(), description: z.string() }),
  start_clean: z.boolean().optional(),
  leg_end_tree: z.string().nullable().optional(),
  repo_dir: z.string(),
  work_dir: z.string(),
  concurrency: z.number().int().min(1),
  on_fail: z.enum(["halt", "continue"]),
  verify: z.object({
    timeout_ms: z.number().int().positive(),
    env: z.array(z.string()),
    repeat: z.number().int().min(1).max(MAX_VERIFY_REPEAT).optional(),
  }),
  policy: z
    .object({
      require_evidence: z.boolean(),
      require_tests: z.boolean().optional(),
      test_reports: z.array(z.string()).optional(),
      source: z.string().optional(),
    })
    .optional(),
  tool_policies: z.record(z.string(), policySchema),
  planning_calls: z.array(z.object({ costUsd: z.number().nullable(), usage })),
  // The engine's own rendering input; kept as data (renderers bound and escape every string they print).
  plan: z.record(z.string(), z.unknown()).nullable(),
  rows: z.array(rowSchema),
  nodes: z.record(
    z.string(),
    z.object({
      status: z.enum(["passed", "failed", "skipped", "cancelled", "waiting", "limited", "running"]),
      session_id: z.string().nullable(),
      executions: z.number().int().min(0),
      judged: z.boolean().optional(),
      feedback_rounds: z.number().int().min(0).optional(),
      thread_usage: usage.unwrap().optional(),
      session_cost_usd: z.number().nullable().optional(),
      completion: z
        .object({
          round: z.number().int().min(0),
          attempt: z.number().int().min(1),
          session_id: z.string(),
          reasons: z.array(z.string()),
          feedback: z.string(),
          spent_usd: z.number().nullable(),
          elapsed_ms: z.number().min(0),
          session_cost_usd: z.number().nullable().optional(),
          thread_usage: usage.unwrap().optional(),
          plan: z
            .object({
              items: z.array(z.object({ text: z.string(), done: z.boolean() })),
              total: z.number().int().min(0),
              open: z.number().int().min(0),
            })
            .optional(),
          codex_home: z.string().optional(),
        })
        .optional(),
    }),
  ),
  gates: z.record(
    z.string(),
    z.object({
      status: z.enum(["waiting", "approved", "rejected"]),
      by: z.string().optional(),
      head_sha: z.string().optional(),
      at: z.string().optional(),
    }),
  ),
  paused: z
    .object({
      reason: z.enum(["gate", "session-limit"]),
      node: z.string(),
      resets_at: z.string().nullable().optional(),
    })
    .nullable(),
  legs: z.array(
    z.object({
      started_at: z.string(),
      kind: z.string(),
      finished_at: z.string().optional(),
      outcome: z.string().optional(),
    }),
  ),
});

/** Why a run directory cannot be resumed; the message names the file and the fix. */
export class RunStateError extends Error {
  override readonly name = "RunStateError";
}

/**
 * Reads and validates `<runDir>/state.json`.
 *
 * @throws RunStateError when the file is missing, is not JSON, has another schema version or a field
 *   of the wrong shape (the message names the first problem).
 */
export function readRunState(runDir: string): RunState {
  const path = join(runDir, "state.json");
  if (!existsSync(path)) {
    throw new RunStateError(
      `${path} does not exist: the run directory holds no state (was the run refused, or is this the wrong run id?)`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new RunStateError(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const version = (data as { schema_version?: unknown } | null)?.schema_version;
  if (version !== RUN_STATE_SCHEMA_VERSION) {
    throw new RunStateError(
      `${path} has schema_version ${JSON.stringify(version)}; this evidence-gate reads ${RUN_STATE_SCHEMA_VERSION}: re-run the graph instead of resuming it`,
    );
  }
  const parsed = stateSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunStateError(
      `${path} is not a valid run state: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "unknown problem"}`,
    );
  }
  return parsed.data as unknown as RunState;
}

/** The legs with the latest one closed: when it finished and how (`completed`, `paused`, `cancelled`, …). */
export function closeLeg(legs: readonly LegRecord[], end: { readonly kind: string }): LegRecord[] {
  const closed = [...legs];
  const last = closed[closed.length - 1];
  if (last !== undefined && last.finished_at === undefined)
    closed[closed.length - 1] = { ...last, finished_at: new Date().toISOString(), outcome: end.kind };
  return closed;
}

/** The approval row of a gate a person released (SPEC §6: `PASS (approved)`, who and which head SHA). */
export function approvedGateRow(gate: string, by: string, headSha: string, sink: boolean): PassRow {
  return {
    nodeId: gate,
    verdict: "PASS",
    qualifier: "approved",
    approvedBy: { login: by, headSha },
    ...NOTHING_SPENT,
    sink,
    // Who and which head are on `approvedBy`, which every renderer prints beside the verdict.
    detail: "gate approved",
  };
}
