#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  NOTHING_SPENT
} from "./cli-chunk-UYHXKTBK.js";
import {
  external_exports
} from "./cli-chunk-BUEDCLXK.js";

// src/engine/run-state.ts
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
var RUN_STATE_SCHEMA_VERSION = 2;
var usage = external_exports.object({
  inputTokens: external_exports.number(),
  outputTokens: external_exports.number(),
  cacheReadInputTokens: external_exports.number().optional(),
  cacheCreationInputTokens: external_exports.number().optional()
}).nullable();
var rowSchema = external_exports.object({
  nodeId: external_exports.string(),
  verdict: external_exports.enum(["PASS", "FAIL", "SKIPPED", "PAUSED"]),
  sessionId: external_exports.string().nullable(),
  costUsd: external_exports.number().nullable(),
  durationMs: external_exports.number(),
  deniedToolCalls: external_exports.number(),
  usage,
  numTurns: external_exports.number().nullable(),
  sink: external_exports.boolean(),
  detail: external_exports.string()
}).passthrough();
var policySchema = external_exports.object({
  settingSources: external_exports.string().optional(),
  allowedTools: external_exports.array(external_exports.string()),
  tools: external_exports.array(external_exports.string()).optional(),
  strictMcpConfig: external_exports.boolean(),
  disallowedTools: external_exports.array(external_exports.string()),
  agent: external_exports.object({
    name: external_exports.string(),
    definition: external_exports.object({
      description: external_exports.string(),
      prompt: external_exports.string(),
      tools: external_exports.array(external_exports.string()).optional(),
      model: external_exports.string().optional()
    })
  }).optional()
});
var signal = external_exports.object({ file: external_exports.string(), ecosystem: external_exports.string(), suggestion: external_exports.string() });
var stateSchema = external_exports.object({
  schema_version: external_exports.literal(RUN_STATE_SCHEMA_VERSION),
  run_id: external_exports.string(),
  mode: external_exports.enum(["auto", "run"]),
  goal: external_exports.string().optional(),
  graph_source: external_exports.string().optional(),
  runtime: external_exports.enum(["claude", "codex"]),
  model: external_exports.string().optional(),
  codex_config_keys: external_exports.array(external_exports.string()).optional(),
  inputs: external_exports.record(external_exports.string(), external_exports.string()),
  build_evidence: external_exports.discriminatedUnion("kind", [
    external_exports.object({ kind: external_exports.literal("attached"), command: external_exports.string(), declaredBy: external_exports.enum(["input", "policy"]) }),
    external_exports.object({ kind: external_exports.literal("declared"), signals: external_exports.array(signal) }),
    external_exports.object({ kind: external_exports.literal("none-detected") }),
    external_exports.object({
      kind: external_exports.literal("graph"),
      verifiedSinks: external_exports.array(external_exports.string()),
      unverifiedSinks: external_exports.array(external_exports.string())
    })
  ]),
  starting_commit: external_exports.object({ sha: external_exports.string(), tree: external_exports.string(), description: external_exports.string() }),
  start_clean: external_exports.boolean().optional(),
  leg_end_tree: external_exports.string().nullable().optional(),
  repo_dir: external_exports.string(),
  work_dir: external_exports.string(),
  concurrency: external_exports.number().int().min(1),
  on_fail: external_exports.enum(["halt", "continue"]),
  verify: external_exports.object({
    timeout_ms: external_exports.number().int().positive(),
    env: external_exports.array(external_exports.string()),
    repeat: external_exports.number().int().min(1).max(10).optional()
  }),
  policy: external_exports.object({
    require_evidence: external_exports.boolean(),
    require_tests: external_exports.boolean().optional(),
    test_reports: external_exports.array(external_exports.string()).optional(),
    source: external_exports.string().optional()
  }).optional(),
  tool_policies: external_exports.record(external_exports.string(), policySchema),
  planning_calls: external_exports.array(external_exports.object({ costUsd: external_exports.number().nullable(), usage })),
  // The engine's own rendering input; kept as data (renderers bound and escape every string they print).
  plan: external_exports.record(external_exports.string(), external_exports.unknown()).nullable(),
  rows: external_exports.array(rowSchema),
  nodes: external_exports.record(
    external_exports.string(),
    external_exports.object({
      status: external_exports.enum(["passed", "failed", "skipped", "cancelled", "waiting", "limited", "running"]),
      session_id: external_exports.string().nullable(),
      executions: external_exports.number().int().min(0),
      judged: external_exports.boolean().optional(),
      feedback_rounds: external_exports.number().int().min(0).optional(),
      thread_usage: usage.unwrap().optional(),
      session_cost_usd: external_exports.number().nullable().optional(),
      completion: external_exports.object({
        round: external_exports.number().int().min(0),
        attempt: external_exports.number().int().min(1),
        session_id: external_exports.string(),
        reasons: external_exports.array(external_exports.string()),
        feedback: external_exports.string(),
        spent_usd: external_exports.number().nullable(),
        elapsed_ms: external_exports.number().min(0),
        session_cost_usd: external_exports.number().nullable().optional(),
        thread_usage: usage.unwrap().optional(),
        plan: external_exports.object({
          items: external_exports.array(external_exports.object({ text: external_exports.string(), done: external_exports.boolean() })),
          total: external_exports.number().int().min(0),
          open: external_exports.number().int().min(0)
        }).optional(),
        codex_home: external_exports.string().optional()
      }).optional()
    })
  ),
  gates: external_exports.record(
    external_exports.string(),
    external_exports.object({
      status: external_exports.enum(["waiting", "approved", "rejected"]),
      by: external_exports.string().optional(),
      head_sha: external_exports.string().optional(),
      at: external_exports.string().optional()
    })
  ),
  paused: external_exports.object({
    reason: external_exports.enum(["gate", "session-limit"]),
    node: external_exports.string(),
    resets_at: external_exports.string().nullable().optional()
  }).nullable(),
  legs: external_exports.array(
    external_exports.object({
      started_at: external_exports.string(),
      kind: external_exports.string(),
      finished_at: external_exports.string().optional(),
      outcome: external_exports.string().optional()
    })
  )
});
var RunStateError = class extends Error {
  name = "RunStateError";
};
function readRunState(runDir) {
  const path = join(runDir, "state.json");
  if (!existsSync(path)) {
    throw new RunStateError(
      `${path} does not exist: the run directory holds no state (was the run refused, or is this the wrong run id?)`
    );
  }
  let data;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new RunStateError(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`
    );
  }
  const version = data?.schema_version;
  if (version !== RUN_STATE_SCHEMA_VERSION) {
    throw new RunStateError(
      `${path} has schema_version ${JSON.stringify(version)}; this evidence-gate reads ${RUN_STATE_SCHEMA_VERSION}: re-run the graph instead of resuming it`
    );
  }
  const parsed = stateSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunStateError(
      `${path} is not a valid run state: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "unknown problem"}`
    );
  }
  return parsed.data;
}
function closeLeg(legs, end) {
  const closed = [...legs];
  const last = closed[closed.length - 1];
  if (last !== void 0 && last.finished_at === void 0)
    closed[closed.length - 1] = { ...last, finished_at: (/* @__PURE__ */ new Date()).toISOString(), outcome: end.kind };
  return closed;
}
function approvedGateRow(gate, by, headSha, sink) {
  return {
    nodeId: gate,
    verdict: "PASS",
    qualifier: "approved",
    approvedBy: { login: by, headSha },
    ...NOTHING_SPENT,
    sink,
    // Who and which head are on `approvedBy`, which every renderer prints beside the verdict.
    detail: "gate approved"
  };
}

export {
  RUN_STATE_SCHEMA_VERSION,
  RunStateError,
  readRunState,
  closeLeg,
  approvedGateRow
};
