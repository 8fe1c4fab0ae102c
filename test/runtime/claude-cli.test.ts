/**
 * The runtime against the REAL claude CLI (pinned devDependency), offline: argv from `buildClaudeArgv`,
 * stdout through the stream parser, the model played by the scripted model server on loopback.
 * Every run gets a fresh HOME and workspace. Timings are printed at the end (never asserted).
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { buildClaudeArgv, type ClaudeInvocation } from "../../src/runtime/claude-argv.js";
import type { ClaudeCompleted, ClaudeOutcome } from "../../src/runtime/claude-stream.js";
import type { ModelServer } from "../support/model-server/index.js";
import { type ClaudeRun, makeScratch, runClaude, type Scratch } from "./real-claude.js";
import { realCliRig } from "./real-cli.js";

/** The planned-node ceiling with Read and Edit declared (SPEC §8). */
const READ_EDIT: ToolPolicy = {
  settingSources: "",
  allowedTools: ["Read", "Edit"],
  tools: ["Read", "Edit"],
  strictMcpConfig: true,
  disallowedTools: ["Bash", "Write", "NotebookEdit", "WebFetch", "WebSearch"],
};

/** Isolation plus a scoped Bash grant and nothing narrowed. */
const GIT_ONLY: ToolPolicy = {
  settingSources: "",
  allowedTools: ["Read", "Bash(git *)"],
  strictMcpConfig: true,
  disallowedTools: [],
};

/** A fresh scratch HOME + workspace and a server playing `script` (which may name workspace paths). */
const { setup, timed } = realCliRig("claude", makeScratch);

async function run(
  name: string,
  ctx: { server: ModelServer; scratch: Scratch },
  inv: Partial<ClaudeInvocation> & Pick<ClaudeInvocation, "prompt">,
): Promise<ClaudeRun & { sessionId: string }> {
  const sessionId = inv.session?.sessionId ?? randomUUID();
  const argv = buildClaudeArgv({
    permissionMode: "dontAsk",
    policy: READ_EDIT,
    session: { kind: "fresh", sessionId },
    ...inv,
  });
  return { ...timed(name, await runClaude({ server: ctx.server, scratch: ctx.scratch, argv })), sessionId };
}

function completed(outcome: ClaudeOutcome, stderr = ""): ClaudeCompleted {
  if (outcome.kind !== "completed") {
    throw new Error(`expected a result event, got ${JSON.stringify(outcome)}\nstderr: ${stderr}`);
  }
  return outcome;
}

describe("real claude CLI against the scripted model server", () => {
  it("text-only turn: result parsed, cost > 0, our --session-id used and sent as a header", async () => {
    const ctx = await setup({
      conversations: [{ name: "hello", match: "say hello", turns: [{ text: "Hello!" }] }],
    });
    const r = await run("text-only", ctx, { prompt: "Please say hello." });
    const out = completed(r.outcome, r.stderr);
    expect(r.exitCode).toBe(0);
    expect(out).toMatchObject({
      isError: false,
      subtype: "success",
      result: "Hello!",
      numTurns: 1,
      sessionId: r.sessionId,
    });
    expect(out.totalCostUsd).toBeGreaterThan(0);
    expect(out.usage).toMatchObject({ inputTokens: 100, outputTokens: 20 });
    expect(out.init?.sessionId).toBe(r.sessionId);
    expect(out.init?.tools).toEqual(["Edit", "Read"]);
    expect(ctx.server.requests).toHaveLength(1);
    expect(ctx.server.requests[0]).toMatchObject({
      conversation: "hello",
      step: 0,
      sessionId: r.sessionId,
      promptText: "Please say hello.",
      stream: true,
    });
  });

  it("tool turns: the CLI really edits the file (Read, then Edit, under dontAsk and the full ceiling)", async () => {
    let file = "";
    const ctx = await setup((scratch) => {
      file = join(scratch.workspace, "hello.txt");
      writeFileSync(file, "hello world\n");
      return {
        conversations: [
          {
            name: "edit",
            match: "hello.txt",
            turns: [
              { text: "Reading it first.", tool_calls: [{ name: "Read", input: { file_path: file } }] },
              {
                tool_calls: [
                  { name: "Edit", input: { file_path: file, old_string: "world", new_string: "evidence" } },
                ],
              },
              { text: "Replaced world with evidence." },
            ],
          },
        ],
      };
    });
    const { server } = ctx;
    const r = await run("read + edit (3 model turns)", ctx, { prompt: "Fix hello.txt." });
    const out = completed(r.outcome, r.stderr);
    expect(readFileSync(file, "utf8")).toBe("hello evidence\n");
    expect(r.exitCode).toBe(0);
    expect(out).toMatchObject({
      isError: false,
      result: "Replaced world with evidence.",
      numTurns: 3,
      deniedToolCalls: 0,
      unavailableToolCalls: 0,
    });
    expect(server.requests.map((q) => [q.conversation, q.step])).toEqual([
      ["edit", 0],
      ["edit", 1],
      ["edit", 2],
    ]);
    expect(new Set(server.requests.map((q) => q.sessionId))).toEqual(new Set([r.sessionId]));
  });

  it("Edit without a prior Read also works on 2.1.332 (measured; scripts still Read first)", async () => {
    let file = "";
    const ctx = await setup((scratch) => {
      file = join(scratch.workspace, "notes.txt");
      writeFileSync(file, "alpha\n");
      return {
        conversations: [
          {
            match: "notes",
            turns: [
              {
                tool_calls: [
                  { name: "Edit", input: { file_path: file, old_string: "alpha", new_string: "beta" } },
                ],
              },
              { text: "ok" },
            ],
          },
        ],
      };
    });
    const r = await run("edit without read", ctx, { prompt: "Edit notes." });
    expect(completed(r.outcome, r.stderr)).toMatchObject({ isError: false, deniedToolCalls: 0 });
    expect(readFileSync(file, "utf8")).toBe("beta\n");
  });

  it("a denied call: Bash touch under --allowedTools Read,Bash(git *) in dontAsk is not run and is counted", async () => {
    const ctx = await setup({
      conversations: [
        {
          name: "touch",
          match: "make the file",
          turns: [
            {
              tool_calls: [
                { name: "Bash", input: { command: "touch x", description: "Create x" } },
                { name: "Bash", input: { command: "git init -q repo", description: "Create a repo" } },
              ],
            },
            { text: "I could not create x." },
          ],
        },
      ],
    });
    const r = await run("denied Bash + allowed git (2 calls)", ctx, {
      prompt: "Please make the file.",
      policy: GIT_ONLY,
    });
    const out = completed(r.outcome, r.stderr);
    expect(existsSync(join(ctx.scratch.workspace, "x"))).toBe(false);
    // Positive control: the scoped grant, comma-joined with Read, does let git run.
    expect(existsSync(join(ctx.scratch.workspace, "repo", ".git"))).toBe(true);
    expect(r.exitCode).toBe(0);
    expect(out).toMatchObject({ isError: false, deniedToolCalls: 1, unavailableToolCalls: 0 });
    expect(out.permissionDenials).toEqual([
      {
        toolName: "Bash",
        toolUseId: expect.any(String),
        toolInput: { command: "touch x", description: "Create x" },
      },
    ]);
    // The denial reason the model got back is in the second request's tool_result.
    expect(JSON.stringify(ctx.server.requests[1]?.body)).toContain("don't ask mode");
  });

  it("a call to a tool removed by --tools is unavailable, not denied, and does not run", async () => {
    const ctx = await setup({
      conversations: [
        {
          match: "make the file",
          turns: [
            { tool_calls: [{ name: "Bash", input: { command: "touch x" } }] },
            { text: "No Bash here." },
          ],
        },
      ],
    });
    const r = await run("removed tool", ctx, { prompt: "Please make the file." });
    const out = completed(r.outcome, r.stderr);
    expect(existsSync(join(ctx.scratch.workspace, "x"))).toBe(false);
    expect(out).toMatchObject({
      isError: false,
      deniedToolCalls: 0,
      unavailableToolCalls: 1,
      permissionDenials: [],
    });
  });

  it("an HTTP 500 turn: completed with isError, exit code 1, one request (CLAUDE_CODE_MAX_RETRIES=0)", async () => {
    const ctx = await setup({
      conversations: [{ match: "outage", turns: [{ error: { status: 500, message: "scripted outage" } }] }],
    });
    const r = await run("HTTP 500", ctx, { prompt: "Simulate an outage." });
    const out = completed(r.outcome, r.stderr);
    expect(r.exitCode).toBe(1);
    expect(out).toMatchObject({
      isError: true,
      apiErrorStatus: 500,
      terminalReason: "api_error",
      sessionId: r.sessionId,
    });
    expect(out.failureDetail).toContain("API Error: 500 scripted outage");
    expect(ctx.server.requests).toHaveLength(1);
  });

  it("--max-budget-usd exhausted: isError, budgetExhausted, exit code 1", async () => {
    const ctx = await setup({
      conversations: [
        {
          match: "spend",
          turns: [
            { tool_calls: [{ name: "Read", input: { file_path: "/etc/hostname" } }] },
            { text: "done" },
          ],
        },
      ],
    });
    const r = await run("budget exhausted", ctx, { prompt: "Please spend money.", budgetUsd: 0.0001 });
    const out = completed(r.outcome, r.stderr);
    expect(r.exitCode).toBe(1);
    expect(out).toMatchObject({ isError: true, subtype: "error_max_budget_usd", budgetExhausted: true });
  });

  it("an unmatched prompt fails fast with the server's message in the result", async () => {
    const ctx = await setup({ conversations: [{ match: "something else", turns: [{ text: "x" }] }] });
    const r = await run("unmatched prompt (400 + CLI downgrade retries)", ctx, {
      prompt: "An unscripted prompt.",
    });
    const out = completed(r.outcome, r.stderr);
    expect(r.exitCode).toBe(1);
    expect(out.isError).toBe(true);
    expect(out.result).toContain(
      'scripted model server: no conversation matched the prompt "An unscripted prompt."',
    );
    expect(ctx.server.requests.every((q) => q.conversation === null && q.status === 400)).toBe(true);
    // The CLI retries a 400 while dropping betas, whatever CLAUDE_CODE_MAX_RETRIES says (fake-model.md §2.4).
    expect(ctx.server.requests.length).toBeGreaterThanOrEqual(1);
    expect(r.durationMs).toBeLessThan(30_000);
  });

  it("a prompt starting with '-' reaches the model verbatim (argv puts it after '--')", async () => {
    const ctx = await setup({ conversations: [{ match: "- fix the tests", turns: [{ text: "ok" }] }] });
    const r = await run("prompt starting with '-'", ctx, { prompt: "- fix the tests\n- then lint" });
    expect(r.stderr).toBe("");
    expect(completed(r.outcome, r.stderr)).toMatchObject({ isError: false, result: "ok" });
    expect(ctx.server.requests[0]?.promptText).toBe("- fix the tests\n- then lint");
  });

  it("--resume replays the session; the new prompt selects its own conversation from step 0", async () => {
    const ctx = await setup({
      conversations: [
        { name: "first", match: "first task", turns: [{ text: "First done." }] },
        { name: "second", match: "second task", turns: [{ text: "Second done." }] },
      ],
    });
    const first = await run("resume: fresh leg", ctx, { prompt: "Do the first task." });
    expect(completed(first.outcome, first.stderr).result).toBe("First done.");
    const second = await run("resume: resumed leg", ctx, {
      prompt: "Now the second task.",
      session: { kind: "resume", sessionId: first.sessionId },
    });
    const out = completed(second.outcome, second.stderr);
    expect(out).toMatchObject({ isError: false, result: "Second done.", sessionId: first.sessionId });
    const resumed = ctx.server.requests[1];
    expect(resumed).toMatchObject({ conversation: "second", step: 0, sessionId: first.sessionId });
    // The replayed history carries the first exchange.
    expect(JSON.stringify(resumed?.body)).toContain("First done.");
  });
});
