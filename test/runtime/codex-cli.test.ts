/**
 * The Codex runtime against the REAL codex CLI (pinned devDependency `@openai/codex@0.169.0`), offline:
 * argv from `buildCodexArgv` (with `codexConfigFor(server.url)` as the `codex-config` pairs), stdout
 * through the JSONL parser, the model played by the scripted model server's `POST /v1/responses` on
 * loopback. Every run gets a fresh CODEX_HOME (= HOME) and workspace. Timings are printed at the end
 * (never asserted).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { buildCodexArgv, type CodexInvocation } from "../../src/runtime/codex-argv.js";
import type { CodexCompleted, CodexOutcome } from "../../src/runtime/codex-stream.js";
import { codexConfigFor, type ModelServer, type RecordedRequest } from "../support/model-server/index.js";
import { realCliRig } from "./real-cli.js";
import { type CodexRun, type CodexScratch, makeCodexScratch, runCodex } from "./real-codex.js";

/** A planned node's ceiling: on Codex only layer 1 renders (the four isolation items). */
const ISOLATED: ToolPolicy = {
  settingSources: "",
  allowedTools: [],
  strictMcpConfig: true,
  disallowedTools: [],
};
/** A hand-written node: no isolation. */
const LOADED: ToolPolicy = { allowedTools: [], strictMcpConfig: false, disallowedTools: [] };

interface Ctx {
  readonly server: ModelServer;
  readonly scratch: CodexScratch;
}

const { setup, timed } = realCliRig("codex", makeCodexScratch);

async function run(
  name: string,
  ctx: Ctx,
  inv: Partial<CodexInvocation> & Pick<CodexInvocation, "prompt">,
): Promise<CodexRun> {
  const argv = buildCodexArgv({
    permissionMode: "dontAsk",
    policy: ISOLATED,
    session: { kind: "fresh" },
    config: codexConfigFor(ctx.server.url),
    ...inv,
  });
  return timed(name, await runCodex({ server: ctx.server, scratch: ctx.scratch, argv }));
}

function completed(r: CodexRun): CodexCompleted {
  const outcome: CodexOutcome = r.outcome;
  if (outcome.kind !== "completed") {
    throw new Error(`expected a terminal event, got ${JSON.stringify(outcome)}\nstderr: ${r.stderr}`);
  }
  return outcome;
}

/** The `input` items a recorded Responses request carried. */
function inputOf(request: RecordedRequest | undefined): Record<string, unknown>[] {
  const body = request?.body as { input?: Record<string, unknown>[] } | undefined;
  return body?.input ?? [];
}

/** The tool outputs (`function_call_output` / `custom_tool_call_output`) codex sent back, in order. */
function toolOutputsOf(request: RecordedRequest | undefined): string[] {
  return inputOf(request)
    .filter((item) => typeof item.type === "string" && item.type.endsWith("_call_output"))
    .map((item) => String(item.output));
}

describe("real codex CLI against the scripted model server (/v1/responses)", () => {
  it("(a) a text turn: thread id, reply and usage parsed; the server saw one request of that thread", async () => {
    const ctx = await setup({
      conversations: [{ name: "hello", match: "say hello", turns: [{ text: "Hello!" }] }],
    });
    const r = await run("text-only", ctx, { prompt: "Please say hello." });
    const out = completed(r);
    expect(r.exitCode).toBe(0);
    expect(out).toMatchObject({
      isError: false,
      reply: "Hello!",
      agentMessages: 1,
      usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 0, reasoningOutputTokens: 0 },
      costUsd: null,
      commands: [],
      warnings: [],
      errors: [],
    });
    expect(out.threadId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(ctx.server.requests).toHaveLength(1);
    expect(ctx.server.requests[0]).toMatchObject({
      api: "openai",
      conversation: "hello",
      step: 0,
      sessionId: out.threadId,
      promptText: "Please say hello.",
      stream: true,
      status: 200,
      body: { model: "gpt-5.5", stream: true },
    });
  });

  it("(b) workspace-write: a scripted shell call and an apply_patch really write in the workspace", async () => {
    const ctx = await setup((scratch) => ({
      conversations: [
        {
          name: "write",
          match: "make the files",
          turns: [
            { text: "Writing.", tool_calls: [{ name: "exec_command", input: { cmd: "echo hi > out.txt" } }] },
            {
              tool_calls: [
                {
                  name: "apply_patch",
                  input: {
                    input: `*** Begin Patch\n*** Add File: ${join(scratch.workspace, "p.txt")}\n+patched\n*** End Patch\n`,
                  },
                },
              ],
            },
            { text: "Wrote out.txt and p.txt." },
          ],
        },
      ],
    }));
    const r = await run("exec_command + apply_patch, workspace-write", ctx, {
      prompt: "Please make the files.",
    });
    const out = completed(r);
    const { workspace } = ctx.scratch;
    expect(r.exitCode).toBe(0);
    expect(readFileSync(join(workspace, "out.txt"), "utf8")).toBe("hi\n");
    expect(readFileSync(join(workspace, "p.txt"), "utf8")).toBe("patched\n");
    expect(out).toMatchObject({ isError: false, reply: "Wrote out.txt and p.txt.", agentMessages: 2 });
    expect(out.commands).toEqual([
      {
        id: expect.any(String),
        command: expect.stringMatching(/-lc 'echo hi > out.txt'$/),
        exitCode: 0,
        status: "completed",
      },
    ]);
    expect(out.writtenPaths).toEqual([join(workspace, "p.txt")]);
    expect(ctx.server.requests.map((q) => [q.conversation, q.step, q.status])).toEqual([
      ["write", 0, 200],
      ["write", 1, 200],
      ["write", 2, 200],
    ]);
    expect(toolOutputsOf(ctx.server.requests[1])[0]).toMatch(/Process exited with code 0/);
    expect(toolOutputsOf(ctx.server.requests[2])[1]).toMatch(/Success\. Updated the following files:/);
  });

  it("(c) read-only (plan): the scripted write is blocked; codex reports it to the model only", async () => {
    const ctx = await setup((scratch) => ({
      conversations: [
        {
          name: "blocked",
          match: "make the files",
          turns: [
            { tool_calls: [{ name: "exec_command", input: { cmd: "echo hi > out.txt" } }] },
            {
              tool_calls: [
                {
                  name: "apply_patch",
                  input: {
                    input: `*** Begin Patch\n*** Add File: ${join(scratch.workspace, "p.txt")}\n+x\n*** End Patch\n`,
                  },
                },
              ],
            },
            { text: "I could not write." },
          ],
        },
      ],
    }));
    const r = await run("blocked write, read-only", ctx, {
      prompt: "Please make the files.",
      permissionMode: "plan",
    });
    const out = completed(r);
    expect(existsSync(join(ctx.scratch.workspace, "out.txt"))).toBe(false);
    expect(existsSync(join(ctx.scratch.workspace, "p.txt"))).toBe(false);
    // Measured: exit 0 and no file_change item. The blocked shell command USUALLY leaves no command_execution
    // item at all (fake-model.md §4.5), but in about one full-suite run in five (2 CPUs, other CLIs running)
    // codex 0.169.0 printed it as a `failed` item with exit code 1. Either way nothing succeeded, and the
    // refusal reaches the model as the tool output.
    expect(r.exitCode).toBe(0);
    expect(out).toMatchObject({
      isError: false,
      reply: "I could not write.",
      fileChanges: [],
      writtenPaths: [],
    });
    expect(out.commands.map((c) => [c.status, c.exitCode])).toEqual(
      out.commands.length === 0 ? [] : [["failed", 1]],
    );
    expect(toolOutputsOf(ctx.server.requests[1])[0]).toMatch(
      /Process exited with code 1[\s\S]*Read-only file system/,
    );
    expect(toolOutputsOf(ctx.server.requests[2])[1]).toMatch(
      /patch rejected: writing is blocked by read-only sandbox/,
    );
  });

  it("(d) an error turn: turn.failed is a failure (exit code 1 measured), one request with retries off", async () => {
    const ctx = await setup({
      conversations: [
        { match: "outage", turns: [{ error: { status: 400, message: "scripted bad request" } }] },
      ],
    });
    const r = await run("error turn (400)", ctx, { prompt: "Trigger the outage." });
    const out = completed(r);
    expect(r.exitCode).toBe(1);
    expect(out).toMatchObject({ isError: true, reply: null, usage: null, costUsd: null });
    expect(out.failureDetail).toContain("scripted bad request");
    expect(ctx.server.requests.map((q) => q.status)).toEqual([400]);
  });

  it("(e) resume THREAD_ID continues the thread: the server sees the first leg's history", async () => {
    const ctx = await setup({
      conversations: [
        {
          name: "first",
          match: "first task",
          turns: [{ text: "First done.", usage: { input_tokens: 1000, output_tokens: 7 } }],
        },
        {
          name: "second",
          match: "second task",
          turns: [
            {
              tool_calls: [{ name: "exec_command", input: { cmd: "echo two > two.txt" } }],
              usage: { input_tokens: 40, output_tokens: 2 },
            },
            { text: "Second done.", usage: { input_tokens: 10, output_tokens: 3 } },
          ],
        },
      ],
    });
    const first = completed(
      await run("resume: leg 1", ctx, { prompt: "Do the first task.", permissionMode: "plan" }),
    );
    const second = completed(
      await run("resume: leg 2", ctx, {
        prompt: "- now the second task",
        session: { kind: "resume", threadId: first.threadId },
      }),
    );
    expect(second).toMatchObject({ isError: false, threadId: first.threadId, reply: "Second done." });
    // turn.completed usage is cumulative for the thread: 1000 + 40 + 10 input tokens.
    expect(second.usage).toMatchObject({ inputTokens: 1050, outputTokens: 12 });
    expect(ctx.server.requests.map((q) => [q.conversation, q.step, q.sessionId])).toEqual([
      ["first", 0, first.threadId],
      ["second", 0, first.threadId],
      ["second", 1, first.threadId],
    ]);
    const history = JSON.stringify(inputOf(ctx.server.requests[1]));
    expect(history).toContain("Do the first task.");
    expect(history).toContain("First done.");
    // The prompt starting with "-" arrived verbatim after `--`; the sandbox is not persisted in the thread:
    // leg 1 ran read-only, leg 2 got workspace-write from its own flags and could write.
    expect(ctx.server.requests[1]?.promptText).toBe("- now the second task");
    expect(readFileSync(join(ctx.scratch.workspace, "two.txt"), "utf8")).toBe("two\n");
  });

  it("layer 1: an isolated node does not see the workspace AGENTS.md; a hand-written one does", async () => {
    const ctx = await setup((scratch) => {
      writeFileSync(join(scratch.workspace, "AGENTS.md"), "AGENTS_MARK: always answer in French.\n");
      return { conversations: [{ match: "hello", turns: [{ text: "Bonjour." }] }] };
    });
    completed(await run("isolated (AGENTS.md dropped)", ctx, { prompt: "hello" }));
    completed(await run("not isolated (AGENTS.md loaded)", ctx, { prompt: "hello", policy: LOADED }));
    const [isolated, loaded] = ctx.server.requests.map((q) => JSON.stringify(inputOf(q)));
    expect(isolated).not.toContain("AGENTS_MARK");
    expect(loaded).toContain("AGENTS_MARK");
    // the injected AGENTS.md block is context, not the prompt
    expect(ctx.server.requests.map((q) => q.promptText)).toEqual(["hello", "hello"]);
  });
});
