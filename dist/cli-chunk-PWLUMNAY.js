#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  MAX_VERIFY_REPEAT,
  NOTHING_SPENT,
  external_exports
} from "./cli-chunk-NJKI2YPK.js";

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
    repeat: external_exports.number().int().min(1).max(MAX_VERIFY_REPEAT).optional()
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

// src/engine/run-dir.ts
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync as existsSync2,
  mkdirSync,
  readFileSync as readFileSync2,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs";
import { hostname } from "node:os";
import { join as join2 } from "node:path";

// src/graph/file-name.ts
function nodeFileName(id) {
  return id.replaceAll("/", "~");
}

// src/engine/run-dir.ts
function liveLockHolder(runDir) {
  const path = join2(runDir, "run.lock");
  if (!existsSync2(path)) return null;
  const holder = (() => {
    try {
      return readFileSync2(path, "utf8").trim();
    } catch {
      return "";
    }
  })();
  const [pid, host] = holder.split("@");
  if (host !== hostname() || pid === void 0 || !/^\d+$/.test(pid)) return holder || "(unknown)";
  try {
    process.kill(Number(pid), 0);
    return holder;
  } catch (error) {
    return error.code === "EPERM" ? holder : null;
  }
}
var RunDirectory = class {
  /** Creates `<runsDir>/<runId>/` and its `nodes/` and `failed/` folders. */
  constructor(runsDir, runId) {
    this.runId = runId;
    this.path = join2(runsDir, runId);
    mkdirSync(join2(this.path, "nodes"), { recursive: true });
    const ignore = join2(runsDir, ".gitignore");
    if (!existsSync2(ignore))
      writeFileSync(ignore, "# written by evidence-gate: run directories stay out of git\n*\n");
    mkdirSync(join2(this.path, "failed"), { recursive: true });
  }
  runId;
  path;
  /** sha256 (hex) of the bytes this process last wrote to each JSON file, by file name. */
  #digests = /* @__PURE__ */ new Map();
  /**
   * Takes the run's lock (`run.lock`, created exclusively, holding this process's pid and host), so two
   * legs of one run never run at once (research §7.5). A lock left by a process that is gone (same host,
   * pid not running) is taken over.
   *
   * @returns `null` when taken, else why not (which process holds it).
   */
  lock() {
    const path = join2(this.path, "run.lock");
    const mine = `${process.pid}@${hostname()}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${mine}
`, { flag: "wx" });
        return null;
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
      }
      const holder = liveLockHolder(this.path);
      if (holder !== null)
        return `run ${this.runId} is in use by process ${holder} (${path}): one leg at a time`;
      rmSync(path, { force: true });
    }
    return `run ${this.runId}'s lock ${path} could not be taken`;
  }
  /** Releases the lock taken by {@link lock} (only if this process holds it). */
  unlock() {
    const path = join2(this.path, "run.lock");
    try {
      if (readFileSync2(path, "utf8").trim() === `${process.pid}@${hostname()}`) rmSync(path, { force: true });
    } catch {
    }
  }
  /** Appends one event line with a timestamp. */
  event(event) {
    appendFileSync(
      join2(this.path, "events.jsonl"),
      `${JSON.stringify({ at: (/* @__PURE__ */ new Date()).toISOString(), ...event })}
`
    );
  }
  /** Writes a JSON file atomically (temp file + rename), so a crash never leaves half a file. */
  writeJson(name, value) {
    const target = join2(this.path, name);
    const temp = `${target}.${process.pid}.tmp`;
    const text = `${JSON.stringify(value, null, 2)}
`;
    writeFileSync(temp, text);
    renameSync(temp, target);
    this.#digests.set(name, createHash("sha256").update(text, "utf8").digest("hex"));
    return target;
  }
  /**
   * The sha256 (hex) of what this process last wrote to `name` with {@link writeJson}, or `null`. The
   * action posts the digests of `state.json` and `graph.json` on the check run (out of every node's reach),
   * so a resumed leg can prove the run directory it downloaded is the one the engine wrote.
   */
  digestOf(name) {
    return this.#digests.get(name) ?? null;
  }
  /** Records the digest of a JSON file this process read and checked rather than wrote (resume's graph.json). */
  noteDigest(name, text) {
    this.#digests.set(name, createHash("sha256").update(text, "utf8").digest("hex"));
  }
  /** Writes a text file (node output, patch) and returns its path. */
  writeText(name, text) {
    const target = join2(this.path, name);
    writeFileSync(target, text);
    return target;
  }
  /** Writes a binary file (a patch need not be UTF-8) and returns its path. */
  writeBytes(name, bytes) {
    const target = join2(this.path, name);
    writeFileSync(target, bytes);
    return target;
  }
  /** Path of a node's saved output (the `{{ artifacts.ID }}` target). */
  nodeOutputPath(nodeId) {
    return join2(this.path, "nodes", `${nodeFileName(nodeId)}.out`);
  }
  /** Path of a failed node's saved reply. */
  failedOutputPath(nodeId) {
    return join2(this.path, "failed", `${nodeFileName(nodeId)}.out`);
  }
};

export {
  RUN_STATE_SCHEMA_VERSION,
  RunStateError,
  readRunState,
  closeLeg,
  approvedGateRow,
  liveLockHolder,
  RunDirectory
};
