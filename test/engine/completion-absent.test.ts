/**
 * Rule 1 of the completion gate (SPEC §7; seed 002): a graph that declares no `completion` behaves
 * byte-identically to the engine before the gate existed — the same argv and environment for every model
 * CLI call, the same `events.jsonl`, the same rows. The golden files under
 * `test/fixtures/completion-absent/` were captured from the engine BEFORE the completion gate was written
 * (run with `UPDATE_GOLDEN=1` to capture; a missing golden fails). Real CLIs against the scripted model
 * server, on both runtimes; a recording wrapper is the run's executable (it writes its argv and
 * environment, then execs the real CLI).
 *
 * What varies from run to run is normalised and nothing else: temp paths, the server's port, run ids,
 * session / thread ids, timestamps and durations.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { CODEX_BIN } from "../runtime/real-codex.js";
import type { ModelScript } from "../support/model-server/index.js";
import { graphHarnessPerTest, readState } from "./graph-harness.js";
import { recordedCalls, recordingWrapper } from "./recording-cli.js";
import { RUNTIMES, shellCall } from "./runtime-harness.js";

const GOLDEN_DIR = new URL("../fixtures/completion-absent/", import.meta.url);

const start = graphHarnessPerTest();

/** Two nodes: a tool call, a verify, a judged retry, a session handoff and a budget. */
const GRAPH = `
name: golden
nodes:
  - id: survey
    prompt: golden survey the repository
    allowed_tools: [Bash]
    success_check:
      verify: { command: "test -f README.md" }
  - id: fix
    depends_on: [survey]
    prompt: golden fix the repository
    budget_usd: 5
    success_check: { result_matches: "^DONE$", exit_zero: true }
    retry: { max: 1, on: [result_mismatch] }
`;

function script(runtime: "claude" | "codex"): ModelScript {
  return {
    conversations: [
      {
        name: "survey",
        match: "golden survey",
        turns: [{ tool_calls: [shellCall(runtime, "echo surveyed")] }, { text: "surveyed" }],
      },
      { name: "fix-retry", match: ["golden fix", "RETRY"], turns: [{ text: "DONE" }] },
      { name: "fix", match: "golden fix", turns: [{ text: "not yet" }] },
    ],
  };
}

/** Replaces what varies between runs with stable placeholders. */
function normaliser(replacements: readonly (readonly [string, string])[]): (value: unknown) => unknown {
  const text = (s: string): string => {
    let out = s;
    for (const [from, to] of replacements) out = out.replaceAll(from, to);
    return out
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
      .replace(/\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, "<run-id>")
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
      .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")
      .replace(/(\/homes\/[A-Za-z0-9_.-]+-)[A-Za-z0-9]{6}/g, "$1<rand>")
      .replace(/\b[0-9a-f]{40}\b/g, "<sha>")
      .replace(/nonce=[0-9a-f]+/g, "nonce=<nonce>");
  };
  const walk = (value: unknown, key = ""): unknown => {
    if (/durationMs|duration_ms|^at$|_at$|receivedAt|answeredAt/.test(key) && value !== null)
      return "<varies>";
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value !== null && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return (value) => walk(value);
}

describe.each(RUNTIMES)("a graph without completion on %s", (runtime) => {
  test("spawns the same argv and environment and writes the same event log and rows as before the gate existed", async () => {
    const h = await start({ runtime, script: () => script(runtime) });
    const executable = recordingWrapper(h.scratch, runtime === "claude" ? CLAUDE_BIN : CODEX_BIN);
    const run = await h.run(GRAPH, { executable });
    const normalise = normaliser([
      [h.scratch, "<scratch>"],
      [h.repo.dir, "<repo>"],
      [process.execPath, "<node>"],
      [process.env.PATH ?? "", "<PATH>"],
    ]);
    const events = readFileSync(join(run.runDir, "events.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as unknown);
    const observed = normalise({
      calls: recordedCalls(h.scratch),
      events,
      rows: readState(run.runDir).rows,
      nodes: readState(run.runDir).nodes,
    });
    const golden = new URL(`${runtime}.json`, GOLDEN_DIR);
    if (process.env.UPDATE_GOLDEN === "1") {
      mkdirSync(GOLDEN_DIR, { recursive: true });
      writeFileSync(golden, `${JSON.stringify(observed, null, 2)}\n`);
    }
    expect(existsSync(golden), `no golden ${golden.pathname}: capture it with UPDATE_GOLDEN=1`).toBe(true);
    // The run itself did what the graph says (so the golden is of a meaningful run).
    expect(run.ledger.rows.map((r) => `${r.nodeId} ${r.verdict}`)).toEqual([
      "survey PASS",
      "fix FAIL",
      "fix PASS",
    ]);
    expect(observed).toEqual(JSON.parse(readFileSync(golden, "utf8")));
  });
});
