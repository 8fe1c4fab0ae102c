import type { BuildEvidenceAnswer } from "../../src/core/build-evidence-answer.js";
import type { FailRow, LedgerRow, PassRow, SkippedRow, VerifyEvidence } from "../../src/core/ledger-row.js";
import { type ConclusionInput, decideConclusion, type RunEnd } from "../../src/ledger/conclusion.js";
import { computeTotals, type Ledger, type PlanningCall, type PlanSection } from "../../src/ledger/ledger.js";

/** Row builders with neutral defaults; each test overrides only what its rule is about. */
type RowDefaults = Omit<PassRow, "verdict" | "qualifier">;

function base(nodeId: string): RowDefaults {
  return {
    nodeId,
    sessionId: "0b7c1e2a-5d4f-4e3a-9c8b-7a6f5e4d3c2b",
    costUsd: 0.0123,
    durationMs: 6400,
    deniedToolCalls: 0,
    usage: { inputTokens: 1200, outputTokens: 300 },
    numTurns: 3,
    sink: false,
    detail: "exited 0",
  };
}

export function pass(nodeId: string, fields: Partial<PassRow> = {}): PassRow {
  return { ...base(nodeId), verdict: "PASS", qualifier: "exit-only", ...fields };
}

export function fail(nodeId: string, fields: Partial<FailRow> = {}): FailRow {
  return { ...base(nodeId), verdict: "FAIL", cause: "nonzero_exit", detail: "exited 1", ...fields };
}

export function skipped(nodeId: string, fields: Partial<SkippedRow> = {}): SkippedRow {
  return {
    ...base(nodeId),
    verdict: "SKIPPED",
    reason: "an ancestor failed",
    costUsd: null,
    usage: null,
    ...fields,
  };
}

export const STARTING_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
export const OTHER_TREE = "9f2e1d0c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e";

export function verifyEvidence(fields: Partial<VerifyEvidence> = {}): VerifyEvidence {
  return {
    command: "npm test",
    cwd: ".",
    exitCode: 0,
    expectExit: 0,
    outcome: "passed",
    durationMs: 12_300,
    outputTail: "Tests: 42 passed\n",
    evidenceTree: STARTING_TREE,
    ...fields,
  };
}

export function verifiedSink(nodeId: string, verify: Partial<VerifyEvidence> = {}): PassRow {
  return pass(nodeId, {
    qualifier: "verified",
    sink: true,
    verify: verifyEvidence(verify),
    detail: "verify `npm test` exited 0",
  });
}

export const ATTACHED: BuildEvidenceAnswer = { kind: "attached", command: "npm test", declaredBy: "input" };
export const DECLARED: BuildEvidenceAnswer = {
  kind: "declared",
  signals: [{ file: "package.json", ecosystem: "Node.js (npm)", suggestion: "npm test" }],
};
export const NONE_DETECTED: BuildEvidenceAnswer = { kind: "none-detected" };

const ISOLATION_DISCLOSURE =
  "Planned nodes ran isolated from user configuration: no user or project settings, no MCP servers, and only the tools each node declared.";

interface FixtureSpec {
  readonly runId: string;
  readonly runtime: Ledger["runtime"];
  readonly goal: string;
  readonly buildEvidence: BuildEvidenceAnswer;
  readonly nodes: PlanSection["nodes"];
  readonly rows: readonly LedgerRow[];
  readonly planningCalls: readonly PlanningCall[];
  readonly evidenceTree: string | null;
  readonly end?: RunEnd;
  readonly patch?: Ledger["patch"];
  readonly changedFiles?: Ledger["changedFiles"];
}

/** The plan's nodes of a two-node run: `write` (Write) feeding the sink `check` (Read). */
export const WRITE_CHECK_NODES: FixtureSpec["nodes"] = [
  { id: "write", dependsOn: [], allowedTools: ["Write"], sink: false },
  { id: "check", dependsOn: ["write"], allowedTools: ["Read"], sink: true },
];

/** A ledger assembled the way the engine assembles one: totals and conclusion computed, never typed in. */
export function fixtureLedger(spec: FixtureSpec): Ledger {
  const sinks = spec.nodes.filter((node) => node.sink).map((node) => node.id);
  const gateSinks = spec.nodes.filter((node) => node.sink && node.type === "gate").map((node) => node.id);
  const sinkCommands =
    spec.buildEvidence.kind === "attached"
      ? sinks.filter((id) => !gateSinks.includes(id)).map((nodeId) => ({ nodeId, command: "npm test" }))
      : [];
  return {
    schemaVersion: 1,
    runId: spec.runId,
    mode: "auto",
    goal: spec.goal,
    runtime: spec.runtime,
    plan: {
      buildEvidence: spec.buildEvidence,
      sinkCommands,
      disclosure: ISOLATION_DISCLOSURE,
      nodes: spec.nodes,
      planningCostUsd: spec.planningCalls[0]?.costUsd ?? null,
    },
    rows: spec.rows,
    totals: computeTotals(spec.rows, spec.planningCalls),
    conclusion: decideConclusion({
      rows: spec.rows,
      sinks,
      gateSinks,
      buildEvidence: spec.buildEvidence,
      postedCommitTree: STARTING_TREE,
      requireEvidence: false,
      end: spec.end ?? { kind: "completed" },
      ...(spec.changedFiles === undefined ? {} : { changedFiles: spec.changedFiles }),
    }),
    startedAt: "2026-05-01T12:00:00.000Z",
    finishedAt: "2026-05-01T12:04:31.000Z",
    startingCommit: {
      sha: "abc1234def5678abc1234def5678abc1234def56",
      tree: STARTING_TREE,
      description: "the merge of abc1234 into main",
    },
    evidenceTree: spec.evidenceTree,
    ...(spec.changedFiles === undefined ? {} : { changedFiles: spec.changedFiles }),
    ...(spec.patch === undefined ? {} : { patch: spec.patch }),
  };
}

/** success: an interior `exit-only` node and a sink `PASS (verified)` on the posted commit's tree. */
export const SUCCESS_LEDGER = fixtureLedger({
  runId: "20260501-120000-a1b2c3",
  runtime: "claude",
  goal: "Add a --json flag to the report command",
  buildEvidence: ATTACHED,
  nodes: [
    { id: "critique", dependsOn: [], allowedTools: ["Read", "Grep"], sink: false },
    { id: "write", dependsOn: ["critique"], allowedTools: ["Read", "Edit", "Bash(git *)"], sink: true },
  ],
  rows: [
    pass("critique", { costUsd: 0.0034, sessionId: "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d" }),
    verifiedSink("write"),
  ],
  planningCalls: [{ costUsd: 0.0089, usage: { inputTokens: 900, outputTokens: 120 } }],
  evidenceTree: STARTING_TREE,
});

/** failure: the sink's verify command exited 1; Codex reports no USD, so cost is unknown. */
export const FAILURE_LEDGER = fixtureLedger({
  runId: "20260501-130000-d4e5f6",
  runtime: "codex",
  goal: "Fix the flaky date parser",
  buildEvidence: ATTACHED,
  nodes: [
    { id: "implement", dependsOn: [], allowedTools: ["Read", "Edit"], sink: false },
    { id: "build", dependsOn: ["implement"], allowedTools: ["Read"], sink: true },
  ],
  rows: [
    pass("implement", {
      qualifier: "self-reported",
      costUsd: null,
      detail: "reply matched /^APPLIED/ | 2 files changed",
    }),
    fail("build", {
      cause: "verify_failed",
      sink: true,
      costUsd: null,
      deniedToolCalls: 2,
      detail: "verify `npm test` exited 1 (expected 0)",
      verify: verifyEvidence({
        exitCode: 1,
        outcome: "failed",
        outputTail:
          "FAIL src/date.test.ts\n  expected ```2026-05-01``` | got `2026-04-30`\nTests: 1 failed, 41 passed\n",
      }),
    }),
  ],
  planningCalls: [{ costUsd: null, usage: { inputTokens: 800, outputTokens: 100 } }],
  evidenceTree: STARTING_TREE,
});

/** neutral: no build signal, no verify command — every PASS is the model's own. */
export const NEUTRAL_LEDGER = fixtureLedger({
  runId: "20260501-140000-0a0b0c",
  runtime: "claude",
  goal: "Summarise this repository",
  buildEvidence: NONE_DETECTED,
  nodes: [{ id: "summarise", dependsOn: [], allowedTools: ["Read", "Glob"], sink: true }],
  rows: [pass("summarise", { qualifier: "self-reported", sink: true, detail: "reply matched /^SUMMARY/" })],
  planningCalls: [{ costUsd: 0.0021, usage: { inputTokens: 400, outputTokens: 60 } }],
  evidenceTree: null,
});

/**
 * A completed, fully verified run (an interior PASS and a sink `PASS (verified)` on the posted tree) as
 * conclusion input; `fields` override any part. The base every conclusion-rule test starts from.
 */
export function verifiedRunInput(fields: Partial<ConclusionInput> = {}): ConclusionInput {
  return {
    rows: [pass("write"), verifiedSink("check")],
    sinks: ["check"],
    gateSinks: [],
    buildEvidence: ATTACHED,
    postedCommitTree: STARTING_TREE,
    requireEvidence: false,
    end: { kind: "completed" },
    ...fields,
  };
}
