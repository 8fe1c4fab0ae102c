/**
 * The Codex runtime's own behaviour at engine level (SPEC §4 "Codex CLI", §6, §8; research/oh-my-graph.md
 * §4.5, §5.3–§5.8), and the documented Codex answer to each Claude-only feature:
 *
 * - `turn.failed` fails the node even on exit 0; a completed turn without an agent message is
 *   `output_error`; a non-zero exit after `turn.completed` is `nonzero_exit` (the fake CLI plays these:
 *   the real codex exits 1 on every failure measured and always answers with a message);
 * - a node timeout kills codex's whole process tree (the real CLI, with a shell command it started);
 * - the model's usage limit pauses the run (test/e2e/cli-codex.test.ts; the classifier: codex-stream.test.ts);
 * - `budget_usd` is a warning naming the timeout that still bounds the node, and is not enforced as USD;
 * - `allowed_tools` is not enforced; the sandbox from `permission_mode` binds (read-only blocks a write);
 * - a `handoff: session` chain of three records each call's own tokens from codex's cumulative counts;
 * - run options are checked before anything runs (model, codex-config, the executable);
 * - a resumed leg keeps the first leg's runtime.
 *
 * The real pinned `codex` (0.169.0) talks to the scripted model server's OpenAI side; each call gets a
 * fresh CODEX_HOME (graph-harness.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runHandWritten } from "../../src/engine/hand-run.js";
import { resumeRun } from "../../src/engine/resume-run.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { handWrittenDisclosure } from "../../src/policy/disclosure.js";
import { eventually, killLeftovers } from "../proc/process-probe.js";
import {
  asFail,
  type Execution,
  type GraphHarness,
  type GraphHarnessOptions,
  readState,
  requestsOf,
  rowWords,
  startGraphHarness,
} from "./graph-harness.js";
import { pidsWithCommandLine, shellCall } from "./runtime-harness.js";

/** Bounds a wait in a broken test; never asserted as a duration. */
const BOUND_MS = 20_000;

const harnesses: GraphHarness[] = [];
let leftovers: number[] = [];
afterEach(async () => {
  killLeftovers(leftovers);
  leftovers = [];
  for (const h of harnesses.splice(0)) await h.cleanup();
});

async function codex(script: GraphHarnessOptions["script"] = () => ({ conversations: [] })) {
  const h = await startGraphHarness({ runtime: "codex", script });
  harnesses.push(h);
  return h;
}

const THREAD = "01a229b5-40c4-7922-94ad-e4ea52cb9e9d";

/** The fake CLI (graph-harness.ts) printing `lines` (codex JSONL) on stdout, then exiting with `exitCode`. */
function printing(lines: readonly Record<string, unknown>[], exitCode: number): Execution {
  return { steps: lines.map((json) => ({ json })), exitCode };
}

const ONE_NODE = `
name: one
nodes:
  - id: fix
    prompt: "FIX-MARK: fix the bug."
    allowed_tools: [Read, Edit]
`;

describe("what a codex turn means for the node", () => {
  test("turn.failed is FAIL run_error even when codex exits 0", async () => {
    const h = await codex();
    const played = printing(
      [
        { type: "thread.started", thread_id: THREAD },
        { type: "turn.started" },
        { type: "error", message: "stream disconnected" },
        { type: "turn.failed", error: { message: "the model refused the request" } },
      ],
      0,
    );
    const { ledger } = await h.run(ONE_NODE, { executions: { fix: [played] } });
    expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error"]);
    const row = asFail(ledger.rows[0]);
    expect(row.detail).toBe("codex reported turn.failed (exit 0): the model refused the request");
    expect(row).toMatchObject({ sessionId: THREAD, costUsd: null, usage: null });
    expect(ledger.conclusion).toMatchObject({ conclusion: "failure" });
  });

  test("a completed turn with no agent message is FAIL output_error; a non-zero exit after turn.completed is nonzero_exit", async () => {
    const h = await codex();
    const completed = {
      type: "turn.completed",
      usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 2, reasoning_output_tokens: 1 },
    };
    const silent = printing([{ type: "thread.started", thread_id: THREAD }, completed], 0);
    const first = await h.run(ONE_NODE, { executions: { fix: [silent] } });
    expect(rowWords(first.ledger.rows)).toEqual(["fix FAIL output_error"]);
    expect(asFail(first.ledger.rows[0]).detail).toMatch(/without an agent message/);
    // Usage still shows, split the ledger's way: uncached input, cache reads beside it.
    expect(first.ledger.rows[0]!.usage).toEqual({ inputTokens: 6, outputTokens: 2, cacheReadInputTokens: 4 });

    const exit3 = printing(
      [
        { type: "thread.started", thread_id: THREAD },
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "done" } },
        completed,
      ],
      3,
    );
    // A node's executions are counted across the harness's runs: this is fix's second.
    const second = await h.run(ONE_NODE, { executions: { fix: [silent, exit3] } });
    expect(rowWords(second.ledger.rows)).toEqual(["fix FAIL nonzero_exit"]);
    expect(asFail(second.ledger.rows[0]).detail).toBe("codex exited 3");
  });

  test("no output at all (codex could not start its home) is FAIL output_error naming stderr", async () => {
    const h = await codex();
    const { ledger } = await h.run(ONE_NODE, {
      executions: { fix: [{ steps: [{ stderr: "Error finding codex home" }], exitCode: 1 }] },
    });
    const row = asFail(ledger.rows[0]);
    expect(row.cause).toBe("output_error");
    expect(row.detail).toBe(
      "codex produced no usable result (empty_output): codex produced no output — stderr: Error finding codex home",
    );
  });
});

describe("timeout (SPEC §4: kill the whole process group)", () => {
  test("a node past its timeout is FAIL timeout, and codex and the command it started are gone", async () => {
    // A marker no other process carries: the sleeper's argument.
    const seconds = `${600 + Math.floor(Math.random() * 1000)}.25`;
    const h = await codex(() => ({
      conversations: [
        {
          name: "hang",
          match: "HANG-MARK",
          turns: [
            { tool_calls: [shellCall("codex", `sleep ${seconds}`)] },
            // Never reached in time: codex waits for the command, then for this answer.
            { text: "done", delay_ms: 120_000 },
          ],
        },
      ],
    }));
    const started = Date.now();
    const run = h.run(`
name: hang
nodes:
  - id: hang
    prompt: "HANG-MARK: run the long job."
    allowed_tools: [Bash]
    timeout: 4s
`);
    // The process tree existed: codex (launcher and native binary) and the shell command it started.
    const seen = await eventually(() => pidsWithCommandLine(`sleep ${seconds}`).length > 0, BOUND_MS);
    expect(seen, "codex never started the command").toBe(true);
    const tree = [...pidsWithCommandLine(`sleep ${seconds}`), ...pidsWithCommandLine("HANG-MARK")];
    leftovers.push(...tree);
    expect(pidsWithCommandLine("HANG-MARK").length).toBeGreaterThan(0);
    const { ledger } = await run;
    expect(rowWords(ledger.rows)).toEqual(["hang FAIL timeout"]);
    const row = asFail(ledger.rows[0]);
    expect(row.detail).toContain("timeout of 4s");
    expect(row).toMatchObject({ costUsd: null, usage: null });
    expect(row.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      await eventually(
        () =>
          pidsWithCommandLine(`sleep ${seconds}`).length === 0 &&
          pidsWithCommandLine("HANG-MARK").length === 0,
        BOUND_MS,
      ),
      `still running: ${JSON.stringify(tree)}`,
    ).toBe(true);
    // Bounded by the timeout, not by the 120 s turn (a broken kill would wait for it).
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});

describe("on_fail: halt (SPEC §4)", () => {
  test("a failure cancels a running codex sibling: its row says so and its process is gone", async () => {
    const h = await codex(() => ({
      conversations: [
        // Answers only after the halt: the sibling is mid-turn when it is cancelled.
        { name: "slow", match: "SLOW-MARK", turns: [{ text: "done", delay_ms: 120_000 }] },
        // Fails only after a while, so the slow sibling's codex has started and sent its request by then
        // (without the delay the halt could cancel it before it ever reached the model: nothing to kill).
        {
          name: "broken",
          match: "BROKEN-MARK",
          turns: [{ error: { status: 400, message: "bad request" }, delay_ms: 8_000 }],
        },
      ],
    }));
    const run = h.run(`
name: halt
nodes:
  - id: slow
    prompt: "SLOW-MARK: take your time."
    allowed_tools: [Read]
  - id: broken
    prompt: "BROKEN-MARK: fail."
    allowed_tools: [Read]
`);
    // Both in flight before the failure lands (the broken one answers after 8 s; wait for slow's request).
    expect(await eventually(() => requestsOf(h.server.requests, "slow").length === 1, BOUND_MS)).toBe(true);
    leftovers.push(...pidsWithCommandLine("SLOW-MARK"));
    const { ledger } = await run;
    expect(rowWords(ledger.rows)).toEqual(["slow FAIL cancelled", "broken FAIL run_error"]);
    expect(asFail(ledger.rows[0]).detail).toBe('cancelled: "broken" failed and on_fail is halt');
    expect(ledger.rows[0]!.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await eventually(() => pidsWithCommandLine("SLOW-MARK").length === 0, BOUND_MS)).toBe(true);
  });
});

describe("Claude-only features get their documented Codex behaviour", () => {
  test("budget_usd: a warning naming the timeout that still bounds the node; not enforced as USD", async () => {
    const h = await codex(() => ({
      conversations: [
        {
          name: "summarise",
          match: "SUMMARISE-MARK",
          turns: [{ text: "A long summary.", usage: { input_tokens: 900_000, output_tokens: 100_000 } }],
        },
        { name: "translate", match: "TRANSLATE-MARK", turns: [{ text: "Traduit." }] },
      ],
    }));
    const { ledger, warnings } = await h.run(`
name: budget
nodes:
  - id: summarise
    prompt: "SUMMARISE-MARK: summarise the repository history."
    allowed_tools: [Read]
    budget_usd: 0.01
  - id: translate
    prompt: "TRANSLATE-MARK: translate the README."
    allowed_tools: [Read]
    budget_usd: 0.05
    timeout: 5m
`);
    expect(warnings).toEqual([
      'node "summarise": budget_usd 0.01 is not enforced on the codex runtime (codex reports no USD cost, so every codex row\'s cost is unknown); what bounds this node is its timeout of 20m (the default)',
      'node "translate": budget_usd 0.05 is not enforced on the codex runtime (codex reports no USD cost, so every codex row\'s cost is unknown); what bounds this node is its timeout of 5m',
    ]);
    expect(ledger.plan.warnings).toEqual(warnings);
    // A million tokens would be far over $0.01 on claude; codex reports no USD, so nothing is over budget.
    expect(rowWords(ledger.rows)).toEqual(["summarise PASS (exit-only)", "translate PASS (exit-only)"]);
    expect(ledger.rows[0]).toMatchObject({
      costUsd: null,
      usage: { inputTokens: 900_000, outputTokens: 100_000 },
    });
    expect(renderLedgerMarkdown(ledger)).toContain(
      `**Warnings:**\n- node "summarise": budget\\_usd 0.01 is not enforced`,
    );
    expect(renderLedgerText(ledger)).toContain('Warning: node "translate": budget_usd 0.05 is not enforced');
    // The JSON ledger (the artifact, read back as untrusted data) keeps them.
    const parsed = parseLedgerJson(renderLedgerJson(ledger));
    expect(parsed.ok && parsed.ledger.plan.warnings).toEqual(warnings);
  });

  test("allowed_tools is not enforced on codex; the sandbox binds: permission_mode plan (read-only) blocks a write, the default (workspace-write) allows it", async () => {
    const h = await codex((repo) => ({
      conversations: [
        {
          name: "blocked",
          match: "BLOCKED-MARK",
          turns: [
            { tool_calls: [shellCall("codex", "echo hi > blocked.txt")] },
            {
              tool_calls: [
                {
                  name: "apply_patch",
                  input: {
                    input: `*** Begin Patch\n*** Add File: ${join(repo.dir, "patched.txt")}\n+x\n*** End Patch\n`,
                  },
                },
              ],
            },
            { text: "I could not write." },
          ],
        },
        {
          name: "allowed",
          match: "ALLOWED-MARK",
          turns: [{ tool_calls: [shellCall("codex", "echo hi > written.txt")] }, { text: "Wrote it." }],
        },
      ],
    }));
    const { ledger } = await h.run(`
name: sandbox
on_fail: continue
nodes:
  - id: look
    prompt: "BLOCKED-MARK: make the files."
    # A Write grant means nothing to codex: plan → --sandbox read-only decides.
    allowed_tools: [Read, Write, Bash]
    permission_mode: plan
  - id: write
    prompt: "ALLOWED-MARK: make the file."
    # No Write or Bash grant, yet workspace-write lets the shell write in the working directory.
    allowed_tools: [Read]
`);
    expect(rowWords(ledger.rows)).toEqual(["look PASS (exit-only)", "write PASS (exit-only)"]);
    expect(existsSync(join(h.repo.dir, "blocked.txt"))).toBe(false);
    expect(existsSync(join(h.repo.dir, "patched.txt"))).toBe(false);
    expect(readFileSync(join(h.repo.dir, "written.txt"), "utf8")).toBe("hi\n");
    // The refusals reached the model as tool output (measured wording, codex-cli 0.169.0).
    const blocked = requestsOf(h.server.requests, "blocked");
    expect(JSON.stringify(blocked[1]?.body)).toMatch(/Read-only file system/);
    expect(JSON.stringify(blocked[2]?.body)).toMatch(/writing is blocked by read-only sandbox/);
    // Codex shows no permission denials: the DENIED column is 0, and the disclosure says what binds.
    expect(ledger.rows.map((r) => r.deniedToolCalls)).toEqual([0, 0]);
    expect(ledger.plan.disclosure).toBe(handWrittenDisclosure("cli", "codex"));
    expect(ledger.plan.disclosure).toMatch(/allowed_tools is not enforced/);
  });
});

describe("handoff: session on codex", () => {
  test("a chain of three resumes one thread; each row carries its own call's tokens, not the thread's running total", async () => {
    const h = await codex(() => ({
      conversations: [
        {
          name: "a",
          match: "STEP-A",
          turns: [{ text: "a done", usage: { input_tokens: 1000, output_tokens: 100 } }],
        },
        {
          name: "b",
          match: "STEP-B",
          turns: [{ text: "b done", usage: { input_tokens: 50, output_tokens: 5 } }],
        },
        {
          name: "c",
          match: "STEP-C",
          turns: [{ text: "c done", usage: { input_tokens: 7, output_tokens: 3 } }],
        },
      ],
    }));
    const { ledger, runDir } = await h.run(`
name: chain
nodes:
  - id: a
    prompt: "STEP-A: start."
    allowed_tools: [Read]
  - id: b
    depends_on: [a]
    handoff: session
    prompt: "STEP-B: go on."
    allowed_tools: [Read]
  - id: c
    depends_on: [b]
    handoff: session
    prompt: "STEP-C: finish."
    allowed_tools: [Read]
`);
    expect(rowWords(ledger.rows)).toEqual(["a PASS (exit-only)", "b PASS (exit-only)", "c PASS (exit-only)"]);
    const thread = ledger.rows[0]!.sessionId;
    expect(ledger.rows.map((r) => r.sessionId)).toEqual([thread, thread, thread]);
    expect(ledger.rows.map((r) => [r.usage?.inputTokens, r.usage?.outputTokens])).toEqual([
      [1000, 100],
      [50, 5],
      [7, 3],
    ]);
    expect(ledger.totals.tokens).toMatchObject({ inputTokens: 1057, outputTokens: 108 });
    const state = readState(runDir);
    expect([state.nodes.a, state.nodes.b, state.nodes.c].map((n) => n?.thread_usage?.inputTokens)).toEqual([
      1000, 1050, 1057,
    ]);
    // c saw a's and b's turns: one thread, resumed twice.
    expect(JSON.stringify(requestsOf(h.server.requests, "c")[0]?.body)).toMatch(/STEP-A[\s\S]*STEP-B/);
  });
});

describe("checked before anything runs", () => {
  test("a bad model, a bad codex-config pair, codex-config on claude and a missing codex are usage errors; nothing is spawned", async () => {
    const h = await codex();
    const base = {
      graphText: ONE_NODE,
      graphSource: "graph.yml",
      inputs: {},
      repoDir: h.repo.dir,
      continueOnFail: false,
      verifyEnv: [],
      commit: false,
      runsDir: h.runsDir,
      surface: "cli" as const,
      claudeExecutable: "claude",
      modelEnv: () => ({}),
      baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      knownSecrets: [],
    };
    const before = h.server.requests.length;
    expect(await runHandWritten({ ...base, runtime: "codex", model: "-x" })).toEqual({
      kind: "usage_error",
      message: 'model: a codex model must be non-empty and not start with "-" (got "-x"). Nothing was run.',
    });
    expect(await runHandWritten({ ...base, runtime: "codex", codexConfig: ["not a pair"] })).toMatchObject({
      kind: "usage_error",
      message: expect.stringMatching(/^codex-config entry 1: expected KEY=VALUE/),
    });
    expect(await runHandWritten({ ...base, runtime: "claude", codexConfig: ['model="x"'] })).toMatchObject({
      kind: "usage_error",
      message: expect.stringMatching(/^codex-config applies only to the codex runtime/),
    });
    expect(
      await runHandWritten({ ...base, runtime: "codex", codexExecutable: join(h.scratch, "no-codex") }),
    ).toMatchObject({
      kind: "usage_error",
      message: expect.stringMatching(/^the codex CLI was not found: /),
    });
    expect(h.server.requests.length).toBe(before);
  });
});

describe("resume keeps the first leg's runtime", () => {
  test("--retry-failed re-runs the failed node on codex with its judged reply quoted; --runtime claude is refused", async () => {
    const h = await codex(() => ({
      conversations: [
        {
          name: "fix-retry",
          match: ["FIX-MARK", "previous-attempt-reply"],
          turns: [{ text: "FIXED: done" }],
        },
        { name: "fix", match: "FIX-MARK", turns: [{ text: "not yet" }] },
      ],
    }));
    const first = await h.run(`
name: resumable
nodes:
  - id: fix
    prompt: "FIX-MARK: fix the bug."
    allowed_tools: [Read, Edit]
    success_check: { result_matches: "^FIXED" }
`);
    expect(rowWords(first.ledger.rows)).toEqual(["fix FAIL result_mismatch"]);
    expect(readState(first.runDir).runtime).toBe("codex");

    const refused = await resumeRun({
      runsDir: h.runsDir,
      runId: first.runId,
      action: { kind: "retry-failed" },
      runtime: "claude",
      commit: false,
      surface: "cli",
      claudeExecutable: "claude",
      modelEnv: () => ({}),
      baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      knownSecrets: [],
    });
    expect(refused).toEqual({
      kind: "usage_error",
      message: `run ${first.runId} uses runtime "codex"; it cannot be resumed with runtime "claude" (a resumed leg keeps the first leg's runtime). Nothing was run.`,
    });

    const second = await h.resume(first.runId, { kind: "retry-failed" });
    expect(rowWords(second.ledger.rows)).toEqual([
      "fix FAIL result_mismatch superseded",
      "fix PASS (self-reported)",
    ]);
    expect(second.ledger.runtime).toBe("codex");
    const [retry] = requestsOf(h.server.requests, "fix-retry");
    expect(retry?.promptText).toContain("<<<DATA previous-attempt-reply");
    expect(retry?.promptText).toContain("not yet");
    expect(second.ledger.rows.every((r) => r.costUsd === null)).toBe(true);
    expect(readState(second.runDir).legs.map((l) => l.kind)).toEqual(["fresh", "retry-failed"]);
  });
});

test("the codex disclosure of a hand-written run names the sandbox per permission mode", () => {
  expect(handWrittenDisclosure("cli", "codex")).toBe(
    "Hand-written graph on Codex: no tool ceiling applies, and allowed_tools is not enforced (codex has no " +
      "per-tool grammar). Each node runs in the sandbox its permission_mode maps to — plan: read-only; " +
      "bypassPermissions: danger-full-access (no sandbox); any other mode: workspace-write (it writes only in " +
      'its working directory and the temp directories, with no network) — with approval_policy="never", and ' +
      "with your configuration loaded (config.toml, the repository's rules and AGENTS.md files, MCP servers); " +
      "the graph's authors chose these modes.",
  );
  expect(handWrittenDisclosure("action", "codex")).toContain(
    "In this action each CLI runs with a fresh HOME and CODEX_HOME",
  );
  expect(handWrittenDisclosure("cli")).toBe(handWrittenDisclosure("cli", "claude"));
});
