/**
 * The node lifecycle (SPEC §4, §6): spawn → parse → cheap predicates → verify → save output → PASS/FAIL
 * with its qualifier, driven through the real exec seam with a scripted fake `claude` executable
 * (test/support/fake-claude/ says why a fake: the real CLI cannot be made to emit `is_error: true` with
 * exit 0, hang on demand or print garbage; it is exercised in test/runtime/claude-cli.test.ts). What is
 * runtime-neutral runs through the fake in its claude mode or its codex mode (codex's `exec --json`
 * stream): verify gating (its plays include each runtime's error on exit 0) and stderr fencing run on both
 * runtimes; cancel during verify and the saved replies (plain replies, whose stream each runtime's parser
 * is tested on in test/runtime/claude-stream.test.ts and codex-stream.test.ts) run on ONE runtime each,
 * claude or codex in turn ({@link describeEachBehaviourOnce}). Verify
 * commands are real shell commands in real temp git repositories. Timeouts only bound a broken test;
 * nothing asserts how long anything took.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FailRow, LedgerRow, PassRow } from "../../src/core/ledger-row.js";
import { mintRunId } from "../../src/core/run-id.js";
import type { AgentNodeSpec } from "../../src/engine/agent-node.js";
import { type AgentNodeResult, runAgentNode } from "../../src/engine/agent-node.js";
import { RunDirectory } from "../../src/engine/run-dir.js";
import { VerifyQueue } from "../../src/evidence/verify.js";
import { compilePattern, type Pattern } from "../../src/graph/pattern.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { eventually, killLeftovers, processIsGone } from "../proc/process-probe.js";
import {
  agentMessageEvent,
  answeredScenario,
  type FakeScenario,
  fakeClaudeEnv,
  fakeClaudeExecutable,
  initEvent,
  readFakeReport,
  resultEvent,
  startEvent,
} from "../support/fake-claude/index.js";
import { hermeticGitEnv, makeHelloRepo, type TempRepo } from "../support/temp-repo.js";
import { describeEachBehaviourOnce } from "./runtime-harness.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Bounds a wait in a broken test; never asserted as a duration. */
const BOUND_MS = 20_000;

let scratch: string;
let runDir: RunDirectory;
let recordedPids: number[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "eg-agent-node-"));
  runDir = new RunDirectory(join(scratch, "runs"), mintRunId());
});
afterEach(async () => {
  killLeftovers(recordedPids);
  recordedPids = [];
  for (const cleanup of cleanups.splice(0)) await cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

function pattern(source: string): Pattern {
  const compiled = compilePattern(source);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.pattern;
}

async function tempRepo(): Promise<TempRepo> {
  const repo = await makeHelloRepo();
  cleanups.push(() => repo.cleanup());
  return repo;
}

interface NodeRun {
  readonly done: Promise<AgentNodeResult>;
  readonly reportFile: string;
  /** `onStarted` calls, with whether the fake had already started when each was made. */
  readonly started: { nodeId: string; sessionId: string | null; fakeHadStarted: boolean }[];
  readonly verifying: string[];
  readonly echoed: string[];
}

interface StartOptions {
  readonly spec?: Partial<AgentNodeSpec>;
  readonly executable?: string;
  readonly signal?: AbortSignal;
  readonly fence?: boolean;
  /** The run's runtime (default claude); the fake plays the scenario in that runtime's stream. */
  readonly runtime?: Runtime;
  /** The run's `verify-repeat` (default: once). */
  readonly repeat?: number;
}

let scenarioCount = 0;

/** Starts one agent node whose `claude` (or, with `runtime: codex`, `codex`) is the fake playing `scenario`. */
function startNode(scenario: FakeScenario, options: StartOptions = {}): NodeRun {
  const name = `scenario-${++scenarioCount}`;
  const reportFile = join(scratch, `${name}.report.json`);
  const runtime = options.runtime ?? "claude";
  const env = fakeClaudeEnv(scratch, name, { ...scenario, runtime, reportFile });
  const started: NodeRun["started"] = [];
  const verifying: string[] = [];
  const echoed: string[] = [];
  const spec: AgentNodeSpec = {
    id: "fix",
    prompt: "- fix the failing test",
    permissionMode: "dontAsk",
    policy: { allowedTools: ["Read"], strictMcpConfig: false, disallowedTools: [] },
    timeoutMs: 60_000,
    cwd: scratch,
    repoRoot: scratch,
    sink: true,
    exitZero: false,
    resultMatches: null,
    verify: null,
    ...options.spec,
  };
  const done = runAgentNode(
    spec,
    {
      runtime,
      claudeExecutable: options.executable ?? fakeClaudeExecutable(),
      codexExecutable: options.executable ?? fakeClaudeExecutable(),
      modelEnv: () => env,
      runDir,
      verifyQueue: new VerifyQueue({
        baseEnv: hermeticGitEnv,
        passThrough: [],
        knownSecrets: [],
        ...(options.repeat !== undefined ? { repeat: options.repeat } : {}),
      }),
      ...(options.fence !== undefined
        ? { echo: { write: (text: string) => echoed.push(text), fenceWorkflowCommands: options.fence } }
        : {}),
      onStarted: (nodeId, sessionId) =>
        started.push({ nodeId, sessionId, fakeHadStarted: existsSync(reportFile) }),
      onVerifying: (_nodeId, command) => verifying.push(command),
    },
    options.signal ?? new AbortController().signal,
  );
  return { done, reportFile, started, verifying, echoed };
}

async function runNode(scenario: FakeScenario, options: StartOptions = {}): Promise<LedgerRow> {
  return (await startNode(scenario, options).done).row;
}

/** Narrows a row to PASS, failing with the whole row otherwise. */
function expectPass(row: LedgerRow): PassRow {
  expect(row, JSON.stringify(row)).toMatchObject({ verdict: "PASS" });
  return row as PassRow;
}

/** Narrows a row to FAIL, failing with the whole row otherwise. */
function expectFail(row: LedgerRow): FailRow {
  expect(row, JSON.stringify(row)).toMatchObject({ verdict: "FAIL" });
  return row as FailRow;
}

/** A clean run: init, then a result with `overrides`, then `exitCode`. */
function answers(overrides: Record<string, unknown> = {}, exitCode = 0): FakeScenario {
  return { steps: [{ json: initEvent() }, { json: resultEvent(overrides) }], exitCode };
}

/** Waits until the fake reported the pid of the `sleep` it started; records both pids for cleanup. */
async function sleeperOf(run: NodeRun): Promise<{ fake: number; sleeper: number }> {
  const ready = await eventually(
    () => (readFakeReport(run.reportFile)?.sleeperPid ?? null) !== null,
    BOUND_MS,
  );
  expect(ready, "the fake never reported its sleeper").toBe(true);
  const report = readFakeReport(run.reportFile)!;
  recordedPids.push(report.pid, report.sleeperPid!);
  return { fake: report.pid, sleeper: report.sleeperPid! };
}

const HANG_WITH_SLEEPER: FakeScenario = {
  steps: [{ json: initEvent() }, { spawnSleeper: true }, { hang: true }],
};

describe("the verdict comes from the result event and the exit code", () => {
  it("is_error: true is a FAIL (run_error) even when claude exits 0 and the reply matches — never a PASS", async () => {
    const row = expectFail(
      await runNode(
        answers(
          { is_error: true, result: "VERDICT: PASS", errors: ["API Error: 500 internal server error"] },
          0,
        ),
        { spec: { resultMatches: pattern("VERDICT: PASS") } },
      ),
    );
    expect(row.cause).toBe("run_error");
    expect(row.detail).toContain("is_error");
    expect(row.detail).toContain("exit 0");
    expect(row.detail).toContain("API Error: 500");
  });

  it("is_error with subtype error_max_budget_usd is FAIL budget_exceeded", async () => {
    const row = expectFail(
      await runNode(answers({ is_error: true, subtype: "error_max_budget_usd", result: undefined }, 1)),
    );
    expect(row.cause).toBe("budget_exceeded");
  });

  it("exit 0 with is_error: false and no predicates is PASS (exit-only)", async () => {
    const row = expectPass(await runNode(answers({ result: "done" })));
    expect(row.qualifier).toBe("exit-only");
    expect(row.detail).toBe("exited 0");
  });

  it("declaring exit_zero alone earns no more than exit-only", async () => {
    const row = expectPass(await runNode(answers(), { spec: { exitZero: true } }));
    expect(row.qualifier).toBe("exit-only");
  });

  it("a matching result_matches is PASS (self-reported): the reply vouched for itself", async () => {
    const row = expectPass(
      await runNode(answers({ result: "all green\nVERDICT: PASS" }), {
        spec: { resultMatches: pattern("VERDICT: PASS") },
      }),
    );
    expect(row.qualifier).toBe("self-reported");
    expect(row.detail).toContain("VERDICT: PASS");
  });

  it("a result_matches that does not match is FAIL result_mismatch naming the pattern and the reply", async () => {
    const row = expectFail(
      await runNode(answers({ result: "VERDICT: FAIL" }), {
        spec: { resultMatches: pattern("VERDICT: PASS") },
      }),
    );
    expect(row.cause).toBe("result_mismatch");
    expect(row.detail).toContain("/VERDICT: PASS/");
    expect(row.detail).toContain("VERDICT: FAIL");
  });

  it("a non-zero exit after a clean result is FAIL nonzero_exit with the code", async () => {
    const row = expectFail(await runNode(answers({ is_error: false }, 3)));
    expect(row.cause).toBe("nonzero_exit");
    expect(row.detail).toContain("3");
  });

  it("stdout without a result event — garbage or nothing — is FAIL output_error, even on exit 0", async () => {
    const garbage = expectFail(
      await runNode({ steps: [{ stdout: "Segmentation fault (core dumped)" }, { stdout: "{not json" }] }),
    );
    expect(garbage.cause).toBe("output_error");
    expect(garbage.detail).toContain("no result event");
    expect(garbage.detail).toContain("Segmentation fault");

    const nothing = expectFail(await runNode({ steps: [] }));
    expect(nothing.cause).toBe("output_error");
    expect(nothing.detail).toContain("no output");
  });

  it("a result event without a boolean is_error is FAIL output_error, not a PASS", async () => {
    const row = expectFail(await runNode(answers({ is_error: undefined })));
    expect(row.cause).toBe("output_error");
  });

  it("a missing claude executable is FAIL run_error naming the executable", async () => {
    const missing = join(scratch, "no-such-claude");
    const row = expectFail(await runNode(answers(), { executable: missing }));
    expect(row.cause).toBe("run_error");
    expect(row.detail).toContain(missing);
  });
});

describe("a call that does not end on its own is stopped with its whole process group", () => {
  it("a hang past the node timeout is FAIL timeout, the fake and its grandchild are gone, and denials seen before still count", async () => {
    const run = startNode(
      {
        steps: [
          { json: initEvent() },
          { json: { type: "system", subtype: "permission_denied", tool_name: "Bash", tool_use_id: "tu_1" } },
          { spawnSleeper: true },
          { hang: true },
        ],
      },
      // Room for the fake to start and report its sleeper before the timeout fires.
      { spec: { timeoutMs: 3_000 } },
    );
    const row = expectFail((await run.done).row);
    expect(row.cause).toBe("timeout");
    expect(row.detail).toContain("timeout");
    expect(row.deniedToolCalls).toBe(1);
    const report = readFakeReport(run.reportFile);
    expect(report?.sleeperPid, "the fake never started its sleeper before the timeout").toEqual(
      expect.any(Number),
    );
    recordedPids.push(report!.pid, report!.sleeperPid!);
    expect(await eventually(() => processIsGone(report!.pid), BOUND_MS)).toBe(true);
    expect(await eventually(() => processIsGone(report!.sleeperPid!), BOUND_MS)).toBe(true);
  });

  it("an aborted signal is FAIL cancelled and kills the fake's process group", async () => {
    const controller = new AbortController();
    const run = startNode(HANG_WITH_SLEEPER, { signal: controller.signal });
    const pids = await sleeperOf(run);
    controller.abort();
    const row = expectFail((await run.done).row);
    expect(row.cause).toBe("cancelled");
    expect(await eventually(() => processIsGone(pids.fake), BOUND_MS)).toBe(true);
    expect(await eventually(() => processIsGone(pids.sleeper), BOUND_MS)).toBe(true);
  });

  it("a node whose signal is already aborted spawns nothing and is FAIL cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const run = startNode(answers(), { signal: controller.signal });
    const row = expectFail((await run.done).row);
    expect(row.cause).toBe("cancelled");
    expect(existsSync(run.reportFile)).toBe(false);
  });

  it("denials the stream showed before the node was stopped still count on its row", async () => {
    const controller = new AbortController();
    const run = startNode(
      {
        steps: [
          { json: initEvent() },
          { json: { type: "system", subtype: "permission_denied", tool_name: "Bash", tool_use_id: "tu_1" } },
          { json: { type: "system", subtype: "permission_denied", tool_name: "Write", tool_use_id: "tu_2" } },
          { spawnSleeper: true },
          { hang: true },
        ],
      },
      { signal: controller.signal },
    );
    await sleeperOf(run);
    controller.abort();
    const row = expectFail((await run.done).row);
    expect(row.cause).toBe("cancelled");
    expect(row.deniedToolCalls).toBe(2);
  });
});

describe("the engine's verify command decides `verified`", () => {
  it("a passing verify is PASS (verified) carrying the evidence tree it ran on", async () => {
    const repo = await tempRepo();
    const run = startNode(answers({ result: "VERDICT: PASS" }), {
      spec: {
        resultMatches: pattern("VERDICT: PASS"),
        verify: { command: "test -f README.md", cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 },
      },
    });
    const row = expectPass((await run.done).row);
    expect(row.qualifier).toBe("verified");
    expect(row.verify).toMatchObject({
      command: "test -f README.md",
      outcome: "passed",
      exitCode: 0,
      evidenceTree: await repo.git(["rev-parse", "HEAD^{tree}"]),
    });
    expect(row.detail).toContain("test -f README.md");
    expect(run.verifying).toEqual(["test -f README.md"]);
  });

  it("with verify-repeat, a PASS row says how many times the command ran on the same tree", async () => {
    const repo = await tempRepo();
    const row = expectPass(
      await runNode(answers(), {
        spec: { verify: { command: "test -f README.md", cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 } },
        repeat: 2,
      }),
    );
    expect(row.verify?.repeat).toEqual({ runs: 2, passed: 2 });
    expect(row.detail).toContain("exited 0 in each of 2 runs on the same tree");
  });

  it("a failing verify is FAIL verify_failed with the command, its exit code and its output tail", async () => {
    const repo = await tempRepo();
    const command = "echo 'error: sum is wrong'; exit 3";
    const row = expectFail(
      await runNode(answers(), {
        spec: { verify: { command, cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 } },
      }),
    );
    expect(row.cause).toBe("verify_failed");
    expect(row.verify).toMatchObject({ command, exitCode: 3, expectExit: 0, outcome: "failed" });
    expect(row.verify?.outputTail).toContain("error: sum is wrong");
    expect(row.detail).toContain(command);
    expect(row.detail).toContain("exited 3");
  });

  it("the reply's claim sits beside the verify's result: a lie is named, the truth agrees, the verdict is the observation's", async () => {
    const repo = await tempRepo();
    const lying = expectFail(
      await runNode(answers({ result: "I fixed the bug. All 12 tests pass." }), {
        spec: { verify: { command: "exit 1", cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 } },
      }),
    );
    expect(lying.cause).toBe("verify_failed");
    expect(lying.claims).toEqual([
      {
        kind: "fixed",
        quote: "I fixed the bug.",
        contradiction: "claimed a fix; the verify command failed (exit 1)",
      },
      {
        kind: "tests-count",
        passed: 12,
        total: null,
        quote: "All 12 tests pass.",
        contradiction: "claimed 12 passing tests; the verify command failed (exit 1)",
      },
    ]);
    const truthful = expectPass(
      await runNode(answers({ result: "All tests pass." }), {
        spec: { verify: { command: "true", cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 } },
      }),
    );
    expect(truthful.qualifier).toBe("verified");
    expect(truthful.claims).toEqual([{ kind: "tests-pass", quote: "All tests pass.", contradiction: null }]);
  });
});

describe("session, cost and denied tool calls on the row", () => {
  it("the session id is a UUID published before the spawn, passed as --session-id, and is the row's", async () => {
    const run = startNode(answers());
    const { row } = await run.done;
    expect(run.started).toHaveLength(1);
    const [started] = run.started;
    expect(started?.nodeId).toBe("fix");
    expect(started?.sessionId).toMatch(UUID);
    expect(started?.fakeHadStarted, "onStarted came after the spawn").toBe(false);
    const argv = readFakeReport(run.reportFile)!.argv;
    expect(argv[argv.indexOf("--session-id") + 1]).toBe(started?.sessionId);
    expect(row.sessionId).toBe(started?.sessionId);
    expect(argv.slice(-2)).toEqual(["--", "- fix the failing test"]);
  });

  it("a result without total_cost_usd leaves the row's cost null (unknown), never 0", async () => {
    const row = await runNode(answers({ total_cost_usd: undefined }));
    expect(row.costUsd).toBeNull();
  });

  it("a reported cost, usage and turn count reach the row", async () => {
    const row = await runNode(
      answers({ total_cost_usd: 0.0421, num_turns: 4, usage: { input_tokens: 1200, output_tokens: 340 } }),
    );
    expect(row).toMatchObject({
      costUsd: 0.0421,
      numTurns: 4,
      usage: { inputTokens: 1200, outputTokens: 340 },
    });
  });

  it("denied tool calls are counted once each across every permission signal in the stream", async () => {
    const row = await runNode({
      steps: [
        { json: initEvent() },
        { json: { type: "system", subtype: "permission_denied", tool_name: "Bash", tool_use_id: "tu_1" } },
        {
          json: {
            type: "user",
            message: { role: "user", content: [] },
            tool_result_meta: [{ id: "tu_2", permission_decision: { decision: "reject" } }],
          },
        },
        {
          json: resultEvent({
            permission_denials: [
              { tool_name: "Bash", tool_use_id: "tu_1", tool_input: { command: "rm -rf /" } },
              { tool_name: "Write", tool_use_id: "tu_3", tool_input: {} },
            ],
          }),
        },
      ],
    });
    expect(row.verdict).toBe("PASS");
    expect(row.deniedToolCalls).toBe(3);
  });
});

// ---- runtime-neutral: the same lifecycle whichever CLI the run spawns ------------------------------

/** An error the CLI reports in its own stream while exiting 0: claude `is_error: true`, codex `turn.failed`. */
function errorOnExitZero(runtime: Runtime, reply: string): FakeScenario {
  return runtime === "claude"
    ? answers({ is_error: true, result: reply })
    : {
        runtime,
        steps: [
          startEvent(runtime),
          { json: agentMessageEvent(reply) },
          { json: { type: "turn.failed", error: { message: "the model refused the request" } } },
        ],
      };
}

/** A clean answer with `stderr` lines printed between the runtime's first line and its answer. */
function withStderr(runtime: Runtime, lines: readonly string[]): FakeScenario {
  const [first, ...answer] = answeredScenario(runtime, "done").steps;
  return { runtime, steps: [first!, ...lines.map((stderr) => ({ stderr })), ...answer] };
}

describeEachBehaviourOnce("on %s", (runtime, once) => {
  const answered = (reply: string, exitCode = 0): FakeScenario => answeredScenario(runtime, reply, exitCode);

  describe("the engine's verify command decides `verified`", () => {
    it("the verify runs only when the node did not crash and its cheap predicates passed", async () => {
      const repo = await tempRepo();
      const marker = join(scratch, "verify-ran");
      const verify = { command: `touch '${marker}'`, cwd: repo.dir, timeoutMs: 60_000, expectExit: 0 };
      const gated = {
        "a result mismatch": { scenario: answered("VERDICT: FAIL"), cause: "result_mismatch" },
        "an error reported on exit 0": {
          scenario: errorOnExitZero(runtime, "VERDICT: PASS"),
          cause: "run_error",
        },
        "a non-zero exit": { scenario: answered("VERDICT: PASS", 1), cause: "nonzero_exit" },
        "no terminal event": { scenario: { steps: [{ stdout: "VERDICT: PASS" }] }, cause: "output_error" },
      } as const;
      for (const [label, { scenario, cause }] of Object.entries(gated)) {
        const run = startNode(scenario, {
          runtime,
          spec: { resultMatches: pattern("VERDICT: PASS"), verify },
        });
        expect(expectFail((await run.done).row).cause, label).toBe(cause);
        expect(run.verifying, label).toEqual([]);
        expect(existsSync(marker), label).toBe(false);
      }
      // The control: the same verify on a node that passed its predicates does run.
      const passing = startNode(answered("VERDICT: PASS"), {
        runtime,
        spec: { resultMatches: pattern("VERDICT: PASS"), verify },
      });
      expect(expectPass((await passing.done).row).qualifier).toBe("verified");
      expect(passing.verifying).toEqual([verify.command]);
      expect(existsSync(marker)).toBe(true);
    });

    once(
      "a node cancelled while its verify runs is FAIL cancelled, never PASS, and the build is stopped",
      async () => {
        const repo = await tempRepo();
        const pidFile = join(scratch, "verify.pid");
        const controller = new AbortController();
        const run = startNode(answered("done"), {
          runtime,
          signal: controller.signal,
          spec: {
            verify: {
              command: `echo $$ > '${pidFile}.tmp' && mv '${pidFile}.tmp' '${pidFile}' && sleep 100`,
              cwd: repo.dir,
              timeoutMs: 60_000,
              expectExit: 0,
            },
          },
        });
        expect(await eventually(() => existsSync(pidFile), BOUND_MS), "the verify never started").toBe(true);
        const shellPid = Number(readFileSync(pidFile, "utf8").trim());
        recordedPids.push(shellPid);
        controller.abort();
        const row = expectFail((await run.done).row);
        expect(row.cause).toBe("cancelled");
        expect(await eventually(() => processIsGone(shellPid), BOUND_MS)).toBe(true);
      },
    );
  });

  describe("replies are saved where the verdict says", () => {
    once("a PASS reply is saved to nodes/ID.out and nothing to failed/", async () => {
      const { row, reply } = await startNode(answered("the fix\nis in"), { runtime }).done;
      expect(row.verdict).toBe("PASS");
      expect(reply).toBe("the fix\nis in");
      expect(readFileSync(runDir.nodeOutputPath("fix"), "utf8")).toBe("the fix\nis in");
      expect(existsSync(runDir.failedOutputPath("fix"))).toBe(false);
    });

    once("a FAIL reply is saved to failed/ID.out and nothing to nodes/", async () => {
      const row = await runNode(answered("VERDICT: FAIL"), {
        runtime,
        spec: { resultMatches: pattern("VERDICT: PASS") },
      });
      expect(row.verdict).toBe("FAIL");
      expect(readFileSync(runDir.failedOutputPath("fix"), "utf8")).toBe("VERDICT: FAIL");
      expect(existsSync(runDir.nodeOutputPath("fix"))).toBe(false);
    });

    once("a spliced id with / is saved under a file name with ~", async () => {
      await runNode(answered("ok"), { runtime, spec: { id: "review/fix" } });
      expect(readFileSync(join(runDir.path, "nodes", "review~fix.out"), "utf8")).toBe("ok");
    });
  });

  describe("the CLI's stderr is echoed inside a workflow-command fence", () => {
    const noisy = withStderr(runtime, ["::add-mask::nothing", "::error::injected by a tool"]);

    it("in the action, echoed stderr sits between ::stop-commands::TOKEN and ::TOKEN::", async () => {
      const run = startNode(noisy, { runtime, fence: true });
      expect((await run.done).row.verdict).toBe("PASS");
      const [open, ...rest] = run.echoed;
      const token = /^::stop-commands::(\S+)\n$/.exec(open ?? "")?.[1];
      expect(token, `first echo was ${JSON.stringify(open)}`).toEqual(expect.any(String));
      expect(rest).toEqual(["::add-mask::nothing\n", "::error::injected by a tool\n", `::${token}::\n`]);
    });

    it("outside the action, stderr is echoed without fence markers and stdout is not echoed", async () => {
      const run = startNode(noisy, { runtime, fence: false });
      expect((await run.done).row.verdict).toBe("PASS");
      expect(run.echoed).toEqual(["::add-mask::nothing\n", "::error::injected by a tool\n"]);
    });
  });
});
