/**
 * The Codex runtime's own behaviour at engine level (SPEC §4 "Codex CLI", §6, §8; research/oh-my-graph.md
 * §4.5, §5.3–§5.8), through the model port (./port-harness.ts) on codex: each call's `exec --json` stream
 * goes through the real codex parser and the real engine, in a real repository.
 *
 * - `turn.failed` fails the node even on exit 0; a completed turn without an agent message is
 *   `output_error`; a non-zero exit after `turn.completed` is `nonzero_exit`; no output at all is
 *   `output_error` naming stderr (the real codex exits 1 on every failure measured and always answers
 *   with a message, so these are played);
 * - `budget_usd` is a warning naming the timeout that still bounds the node, and is not enforced as USD;
 * - run options are checked before anything runs (model, codex-config, the executable);
 * - a resumed leg keeps the first leg's runtime;
 * - the codex disclosure of a hand-written run.
 *
 * The model's usage limit pausing the run is test/e2e/cli-codex.test.ts (the classifier:
 * codex-stream.test.ts). A timeout and a halt killing codex's process tree, the sandbox binding instead
 * of `allowed_tools`, and a session chain resumed in the real `CODEX_HOME` are
 * ./codex-runtime.real-cli.test.ts.
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runHandWritten } from "../../src/engine/hand-run.js";
import { resumeRun } from "../../src/engine/resume-run.js";
import { parseLedgerJson, renderLedgerJson } from "../../src/ledger/render-json.js";
import { renderLedgerMarkdown } from "../../src/ledger/render-markdown.js";
import { renderLedgerText } from "../../src/ledger/render-text.js";
import { handWrittenDisclosure } from "../../src/policy/disclosure.js";
import { agentMessageEvent, threadStartedEvent, turnCompletedEvent } from "../support/fake-claude/index.js";
import { portHarnessPerTest, replied, type ScriptedPlay } from "./port-harness.js";
import { asFail, readState, rowWords } from "./run-readers.js";
import { scriptedCallsByLabel } from "./scripted-calls.js";

const start = portHarnessPerTest();
const codex = (plays: Parameters<typeof start>[0]["plays"]) => start({ runtime: "codex", plays });
const reply = (text: string) => replied("codex", text);

const THREAD = "01a229b5-40c4-7922-94ad-e4ea52cb9e9d";

/** Codex printing `lines` (JSONL) on stdout, then exiting with `exitCode`. */
function printing(lines: readonly Record<string, unknown>[], exitCode: number): ScriptedPlay {
  return { lines, exitCode };
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
    const played = printing(
      [
        { type: "thread.started", thread_id: THREAD },
        { type: "turn.started" },
        { type: "error", message: "stream disconnected" },
        { type: "turn.failed", error: { message: "the model refused the request" } },
      ],
      0,
    );
    const h = await codex({ fix: [played] });
    const { ledger } = await h.run(ONE_NODE);
    expect(rowWords(ledger.rows)).toEqual(["fix FAIL run_error"]);
    const row = asFail(ledger.rows[0]);
    expect(row.detail).toBe("codex reported turn.failed (exit 0): the model refused the request");
    expect(row).toMatchObject({ sessionId: THREAD, costUsd: null, usage: null });
    expect(ledger.conclusion).toMatchObject({ conclusion: "failure" });
  });

  test("a completed turn with no agent message is FAIL output_error; a non-zero exit after turn.completed is nonzero_exit", async () => {
    const completed = {
      type: "turn.completed",
      usage: { input_tokens: 10, cached_input_tokens: 4, output_tokens: 2, reasoning_output_tokens: 1 },
    };
    const silent = printing([{ type: "thread.started", thread_id: THREAD }, completed], 0);
    const exit3 = printing(
      [
        { type: "thread.started", thread_id: THREAD },
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "done" } },
        completed,
      ],
      3,
    );
    // A node's plays are consumed across the harness's runs: the second run plays exit3.
    const h = await codex({ fix: [silent, exit3] });
    const first = await h.run(ONE_NODE);
    expect(rowWords(first.ledger.rows)).toEqual(["fix FAIL output_error"]);
    expect(asFail(first.ledger.rows[0]).detail).toMatch(/without an agent message/);
    // Usage still shows, split the ledger's way: uncached input, cache reads beside it.
    expect(first.ledger.rows[0]!.usage).toEqual({ inputTokens: 6, outputTokens: 2, cacheReadInputTokens: 4 });

    const second = await h.run(ONE_NODE);
    expect(rowWords(second.ledger.rows)).toEqual(["fix FAIL nonzero_exit"]);
    expect(asFail(second.ledger.rows[0]).detail).toBe("codex exited 3");
  });

  test("no output at all (codex could not start its home) is FAIL output_error naming stderr", async () => {
    const h = await codex({ fix: [{ lines: [], stderr: "Error finding codex home", exitCode: 1 }] });
    const { ledger } = await h.run(ONE_NODE);
    const row = asFail(ledger.rows[0]);
    expect(row.cause).toBe("output_error");
    expect(row.detail).toBe(
      "codex produced no usable result (empty_output): codex produced no output — stderr: Error finding codex home",
    );
  });
});

describe("Claude-only features get their documented Codex behaviour", () => {
  test("budget_usd: a warning naming the timeout that still bounds the node; not enforced as USD", async () => {
    const h = await codex({
      summarise: [
        {
          lines: [
            threadStartedEvent(),
            agentMessageEvent("A long summary."),
            turnCompletedEvent({ inputTokens: 900_000, outputTokens: 100_000 }),
          ],
        },
      ],
      translate: [reply("Traduit.")],
    });
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
});

/** Run options for a direct engine call whose model calls, if any were made, fail (none are scripted). */
function unscriptedOptions(runsDir: string) {
  const scripted = scriptedCallsByLabel({});
  return {
    scripted,
    options: {
      commit: false,
      runsDir,
      surface: "cli" as const,
      claudeExecutable: "claude",
      modelCalls: scripted.calls,
      modelEnv: () => ({}),
      baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      knownSecrets: [],
    },
  };
}

describe("checked before anything runs", () => {
  test("a bad model, a bad codex-config pair, codex-config on claude and a missing codex are usage errors; nothing is spawned", async () => {
    const h = await codex({});
    const { scripted, options } = unscriptedOptions(h.runsDir);
    const base = {
      graphText: ONE_NODE,
      graphSource: "graph.yml",
      inputs: {},
      repoDir: h.repo.dir,
      continueOnFail: false,
      verifyEnv: [],
      ...options,
    };
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
    expect([...scripted.claude, ...scripted.codex]).toEqual([]);
    expect(scripted.unscripted).toEqual([]);
  });
});

describe("resume keeps the first leg's runtime", () => {
  test("--retry-failed re-runs the failed node on codex with its judged reply quoted; --runtime claude is refused", async () => {
    const h = await codex({ fix: [reply("not yet"), reply("FIXED: done")] });
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

    const { scripted, options } = unscriptedOptions(h.runsDir);
    const refused = await resumeRun({
      runId: first.runId,
      action: { kind: "retry-failed" },
      runtime: "claude",
      ...options,
    });
    expect(refused).toEqual({
      kind: "usage_error",
      message: `run ${first.runId} uses runtime "codex"; it cannot be resumed with runtime "claude" (a resumed leg keeps the first leg's runtime). Nothing was run.`,
    });
    expect([...scripted.claude, ...scripted.codex]).toEqual([]);

    const second = await h.resume(first.runId, { kind: "retry-failed" });
    expect(rowWords(second.ledger.rows)).toEqual([
      "fix FAIL result_mismatch superseded",
      "fix PASS (self-reported)",
    ]);
    expect(second.ledger.runtime).toBe("codex");
    const retry = h.callsOf("fix")[1];
    expect(retry?.prompt).toContain("FIX-MARK");
    expect(retry?.prompt).toContain("<<<DATA previous-attempt-reply");
    expect(retry?.prompt).toContain("not yet");
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
