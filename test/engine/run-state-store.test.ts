/**
 * The run's `state.json` store (src/engine/run-state-store.ts; issue 16, B1): `saveSoon` coalesces the
 * saves of one window into one atomic write that lands by itself, `flush` writes a pending save at once,
 * `save` writes now. Real files in a temp run directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRedactor } from "../../src/core/redact.js";
import { mintRunId } from "../../src/core/run-id.js";
import { RedactingRunDirectory } from "../../src/engine/redacting-run-dir.js";
import { RUN_STATE_SCHEMA_VERSION, type RunState } from "../../src/engine/run-state.js";
import { RunStateStore, STATE_COALESCE_MS } from "../../src/engine/run-state-store.js";
import { eventually } from "../proc/process-probe.js";

let scratch = "";
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "eg-state-store-"));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

function store(): { store: RunStateStore; file: string; onDisk: () => RunState } {
  const dir = new RedactingRunDirectory(join(scratch, "runs"), mintRunId(), createRedactor([]));
  const initial: RunState = {
    schema_version: RUN_STATE_SCHEMA_VERSION,
    run_id: dir.runId,
    mode: "run",
    runtime: "claude",
    inputs: {},
    build_evidence: { kind: "none-detected" },
    starting_commit: { sha: "0".repeat(40), tree: "1".repeat(40), description: "test" },
    repo_dir: scratch,
    work_dir: scratch,
    concurrency: 1,
    on_fail: "halt",
    verify: { timeout_ms: 120_000, env: [] },
    tool_policies: {},
    planning_calls: [],
    plan: null,
    rows: [],
    nodes: {},
    gates: {},
    paused: null,
    legs: [{ started_at: "2026-01-01T00:00:00.000Z", kind: "fresh" }],
  };
  const file = join(dir.path, "state.json");
  return {
    store: new RunStateStore(dir, initial),
    file,
    onDisk: () => JSON.parse(readFileSync(file, "utf8")) as RunState,
  };
}

describe("RunStateStore", () => {
  it("saveSoon writes nothing at once; flush writes every change made since, in one file", () => {
    const s = store();
    s.store.patchNode("a", { status: "passed" });
    s.store.saveSoon();
    s.store.patchNode("b", { status: "running" });
    s.store.saveSoon();
    expect(existsSync(s.file)).toBe(false);

    s.store.flush();

    expect(s.onDisk().nodes).toMatchObject({ a: { status: "passed" }, b: { status: "running" } });
  });

  it("a pending saveSoon lands by itself once its window passes, with the changes made meanwhile", async () => {
    const s = store();
    s.store.patchNode("a", { status: "passed" });
    s.store.saveSoon();
    s.store.patchNode("b", { status: "failed" });

    // Bounded wait for the outcome only (many windows), not a timing assertion.
    expect(await eventually(() => existsSync(s.file), STATE_COALESCE_MS * 50)).toBe(true);
    expect(s.onDisk().nodes).toMatchObject({ a: { status: "passed" }, b: { status: "failed" } });
  });

  it("save writes at once and cancels the pending write; flush with nothing pending writes nothing", () => {
    const s = store();
    s.store.saveSoon();
    s.store.patchNode("a", { status: "passed" });
    s.store.save();
    expect(s.onDisk().nodes).toMatchObject({ a: { status: "passed" } });

    rmSync(s.file);
    s.store.flush();

    expect(existsSync(s.file)).toBe(false);
  });
});
