/**
 * The Codex runtime's own behaviour at engine level where only the real process shows it (SPEC §4 "Codex
 * CLI", §6, §8; research/oh-my-graph.md §4.5, §5.3–§5.8):
 *
 * - a node timeout kills codex's whole process tree (the real CLI, with a shell command it started);
 * - a halt cancels a running codex sibling and its process is gone;
 * - `allowed_tools` is not enforced; the sandbox from `permission_mode` binds (read-only blocks a write);
 * - a `handoff: session` chain of three resumes one thread in the parent's `CODEX_HOME` and records each
 *   call's own tokens from codex's cumulative counts.
 *
 * The real pinned `codex` (0.169.0) talks to the scripted model server's OpenAI side; each call gets a
 * fresh CODEX_HOME (graph-harness.ts). What a codex turn means for the node, `budget_usd`'s documented
 * answer, the checks before anything runs and a resumed leg keeping its runtime are engine behaviour:
 * ./codex-runtime.test.ts, through the model port.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { handWrittenDisclosure } from "../../src/policy/disclosure.js";
import { eventually, killLeftovers } from "../proc/process-probe.js";
import {
  asFail,
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
