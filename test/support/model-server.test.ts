/**
 * The scripted model server on its own: script validation, stateless selection, the exact SSE sequence,
 * the non-streaming fallback, refusals, recording and `delay_ms` (one real-CLI run goes through a
 * delayed turn; the other real-CLI tests are in test/runtime/claude-cli.test.ts).
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { buildClaudeArgv } from "../../src/runtime/claude-argv.js";
import { makeScratch, runClaude } from "../runtime/real-claude.js";
import {
  claudeEnvFor,
  MAX_DELAY_MS,
  type ModelScript,
  ModelScriptError,
  type ModelServer,
  type RecordedRequest,
  selectTurn,
  startModelServer,
  validateModelScript,
} from "./model-server/index.js";
import { parseSse, postJson, serversPerTest } from "./model-server-testing.js";

const SCRIPT: ModelScript = {
  conversations: [
    {
      name: "edit",
      match: ["fix", "hello.txt"],
      turns: [
        { text: "Reading first.", tool_calls: [{ name: "Read", input: { file_path: "/w/hello.txt" } }] },
        { text: "All done.", usage: { input_tokens: 7, output_tokens: 3 } },
      ],
    },
    { match: "broken", turns: [{ error: { status: 500, message: "scripted outage" } }] },
    { name: "catch-all", match: "", turns: [{ text: "fallback" }] },
  ],
};

const start = serversPerTest(SCRIPT);

function post(server: ModelServer, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return postJson(server, "/v1/messages?beta=true", body, headers);
}

const firstPrompt = (text: string) => [
  {
    role: "user",
    content: [
      { type: "text", text: "<system-reminder>\nctx fix hello.txt\n</system-reminder>" },
      { type: "text", text },
    ],
  },
];

describe("validateModelScript", () => {
  it("accepts the documented shapes", () => {
    expect(validateModelScript(SCRIPT)).toEqual({ ok: true, script: SCRIPT });
  });

  it("collects every issue with its path", () => {
    const result = validateModelScript({
      conversations: [
        {
          match: 3,
          turns: [
            { text: "early end" },
            { tool_calls: [{ name: "", input: [] }], usage: { input_tokens: -1, output_tokens: 2 } },
            { error: { status: 200, message: "x", type: "", resets_at: 1.5 }, text: "y" },
            {},
          ],
          extra: true,
        },
      ],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      'conversations[0]: unknown key "extra" (allowed: name, match, turns)',
      "conversations[0].match: must be a string or an array of strings",
      "conversations[0].turns[0]: only the last turn may end without tool_calls (a text-only or error turn ends the exchange, so later turns would never be played)",
      'conversations[0].turns[1].tool_calls[0].name: must be a non-empty string (a tool name such as "Bash" or "Read")',
      "conversations[0].turns[1].tool_calls[0].input: must be an object",
      "conversations[0].turns[1].usage.input_tokens: must be an integer >= 0",
      "conversations[0].turns[2].error.status: must be an HTTP error status 400-599, got 200",
      "conversations[0].turns[2].error.type: must be a non-empty string (the error body's error.type)",
      "conversations[0].turns[2].error.resets_at: must be an integer number of Unix seconds",
      "conversations[0].turns[2]: an error turn takes no text, tool_calls or usage",
      "conversations[0].turns[2]: only the last turn may end without tool_calls (a text-only or error turn ends the exchange, so later turns would never be played)",
      "conversations[0].turns[3]: needs text, tool_calls or error",
    ]);
  });

  it("refuses a non-object and an empty conversation list", () => {
    expect(validateModelScript(null)).toEqual({
      ok: false,
      issues: ["script: must be an object {conversations: [...]}"],
    });
    expect(validateModelScript({ conversations: [] })).toEqual({
      ok: false,
      issues: ["script.conversations: must be a non-empty array"],
    });
  });

  it("makes startModelServer reject with every issue in the message", async () => {
    const bad = { conversations: [{ match: "x", turns: [] }] } as unknown as ModelScript;
    await expect(startModelServer({ script: bad })).rejects.toThrow(ModelScriptError);
    await expect(startModelServer({ script: bad })).rejects.toThrow(
      /conversations\[0\]\.turns: must be a non-empty array/,
    );
  });
});

describe("selectTurn (stateless)", () => {
  it("ignores system reminders and picks the first conversation whose substrings all occur", () => {
    // The reminder mentions "fix hello.txt" but is not prompt text; the prompt only says "fix".
    const sel = selectTurn(SCRIPT, firstPrompt("please fix it"));
    expect(sel).toMatchObject({ kind: "turn", conversationName: "catch-all", step: 0 });
    expect(selectTurn(SCRIPT, firstPrompt("fix hello.txt now"))).toMatchObject({
      kind: "turn",
      conversationName: "edit",
      promptText: "fix hello.txt now",
      step: 0,
    });
  });

  it("counts assistant turns after the prompt, skipping tool-result-only user messages", () => {
    const messages = [
      { role: "user", content: "fix hello.txt" },
      { role: "system", content: "# Environment" },
      { role: "assistant", content: [{ type: "text", text: "Reading first." }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "hello" }] },
    ];
    expect(selectTurn(SCRIPT, messages)).toMatchObject({ kind: "turn", conversationName: "edit", step: 1 });
  });

  it("restarts at step 0 on a newer prompt (a resumed session)", () => {
    const messages = [
      { role: "user", content: "fix hello.txt" },
      { role: "assistant", content: [{ type: "text", text: "All done." }] },
      { role: "user", content: [{ type: "text", text: "now something broken" }] },
    ];
    expect(selectTurn(SCRIPT, messages)).toMatchObject({
      kind: "turn",
      step: 0,
      promptText: "now something broken",
    });
  });

  it("reports exhaustion, no match and no prompt", () => {
    const exhausted = [
      { role: "user", content: "fix hello.txt" },
      { role: "assistant", content: "a" },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "" }] },
      { role: "assistant", content: "b" },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "u", content: "" }] },
    ];
    expect(selectTurn(SCRIPT, exhausted)).toMatchObject({ kind: "exhausted", step: 2, turnCount: 2 });
    const strict: ModelScript = { conversations: [{ match: "zzz", turns: [{ text: "x" }] }] };
    expect(selectTurn(strict, firstPrompt("hello"))).toEqual({
      kind: "unmatched",
      promptText: "hello",
      step: 0,
    });
    expect(selectTurn(SCRIPT, [])).toEqual({ kind: "no_prompt" });
  });
});

describe("startModelServer", () => {
  it("streams the exact SSE sequence for text + tool_use and records the request", async () => {
    const server = await start();
    const response = await post(
      server,
      { model: "claude-opus-5-5", stream: true, messages: firstPrompt("fix hello.txt") },
      { "x-claude-code-session-id": "sess-1" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await response.text());
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const start0 = events[0]!.data.message as Record<string, unknown>;
    expect(start0).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-opus-5-5",
      content: [],
      stop_reason: null,
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    expect(events[2]!.data).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    const text = events
      .slice(3, 5)
      .map((e) => (e.data.delta as { type: string; text: string }).text)
      .join("");
    expect(text).toBe("Reading first.");
    const toolStart = events[6]!.data.content_block as Record<string, unknown>;
    expect(toolStart).toMatchObject({ type: "tool_use", name: "Read", input: {} });
    expect(toolStart.id).toMatch(/^toolu_/);
    const json = events
      .slice(7, 9)
      .map((e) => {
        const delta = e.data.delta as { type: string; partial_json: string };
        expect(delta.type).toBe("input_json_delta");
        return delta.partial_json;
      })
      .join("");
    expect(JSON.parse(json)).toEqual({ file_path: "/w/hello.txt" });
    expect(events[10]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 20 },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      conversation: "edit",
      step: 0,
      sessionId: "sess-1",
      promptText: "fix hello.txt",
      stream: true,
      status: 200,
    });
  });

  it("answers stream:false with one Message JSON ending end_turn with the scripted usage", async () => {
    const server = await start();
    const messages = [
      { role: "user", content: "fix hello.txt" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "hello" }] },
    ];
    const response = await post(server, { model: "m", stream: false, messages });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "text", text: "All done." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 7, output_tokens: 3 },
    });
    expect(server.requests[0]).toMatchObject({
      conversation: "edit",
      step: 1,
      stream: false,
      sessionId: null,
    });
  });

  it("answers a scripted error with its status and an Anthropic error body", async () => {
    const server = await start();
    const response = await post(server, { stream: true, messages: firstPrompt("this is broken") });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "api_error", message: "scripted outage" },
    });
    expect(server.requests[0]).toMatchObject({ conversation: "#1", status: 500 });
  });

  it("refuses an unmatched prompt with 400 naming the first 200 characters", async () => {
    const server = await start({ conversations: [{ match: "never", turns: [{ text: "x" }] }] });
    const prompt = `${"a".repeat(250)}`;
    const response = await post(server, { stream: true, messages: firstPrompt(prompt) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toBe(
      `scripted model server: no conversation matched the prompt "${"a".repeat(200)}…"`,
    );
    expect(server.requests[0]).toMatchObject({ conversation: null, step: 0, status: 400 });
  });

  it("refuses a request past the last turn instead of repeating one", async () => {
    const server = await start({ conversations: [{ name: "one", match: "", turns: [{ text: "x" }] }] });
    const messages = [
      { role: "user", content: "go" },
      { role: "assistant", content: "x" },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "" }] },
    ];
    const response = await post(server, { stream: true, messages });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'scripted model server: conversation "one" has 1 turn(s) but the CLI asked for turn 2 (step 1) of the prompt "go"',
    );
  });

  it("answers the connectivity probe, 404s other routes and records neither", async () => {
    const server = await start();
    expect((await fetch(`${server.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    const other = await fetch(`${server.url}/v1/models`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { type: string }).type).toBe("error");
    const notJson = await fetch(`${server.url}/v1/messages`, { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ conversation: null, step: null, body: "{nope" });
  });

  it("listens on loopback only", async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

/** Polls until the server has recorded a request whose prompt contains `needle` (turn selected). */
async function recorded(server: ModelServer, needle: string): Promise<RecordedRequest> {
  for (;;) {
    const found = server.requests.find((r) => r.promptText?.includes(needle));
    if (found !== undefined) return found;
    await sleep(5);
  }
}

/** The recorded request for `needle` once its answer has started (`answeredAt` set). */
function answered(server: ModelServer, needle: string): RecordedRequest & { answeredAt: number } {
  const found = server.requests.find((r) => r.promptText?.includes(needle));
  if (found?.answeredAt == null) throw new Error(`no answered request for ${needle}`);
  return found as RecordedRequest & { answeredAt: number };
}

describe("delay_ms", () => {
  const DELAYED: ModelScript = {
    conversations: [
      { name: "slow", match: "slow", turns: [{ text: "slow answer", delay_ms: 1200 }] },
      { name: "quick", match: "quick", turns: [{ text: "quick answer", delay_ms: 300 }] },
      {
        name: "late-error",
        match: "late error",
        turns: [{ error: { status: 529, message: "busy" }, delay_ms: 200 }],
      },
      {
        name: "late-tool",
        match: "late tool",
        turns: [{ tool_calls: [{ name: "Read", input: { file_path: "/x" } }], delay_ms: 0 }, { text: "ok" }],
      },
    ],
  };

  it("is accepted on every turn kind, from 0 to MAX_DELAY_MS", () => {
    expect(validateModelScript(DELAYED).ok).toBe(true);
    expect(MAX_DELAY_MS).toBe(600_000);
    const edge: ModelScript = {
      conversations: [{ match: "", turns: [{ text: "x", delay_ms: MAX_DELAY_MS }] }],
    };
    expect(validateModelScript(edge).ok).toBe(true);
  });

  it("refuses a value that is not an integer 0-600000, naming the JSON path", () => {
    const bad = [-1, 1.5, 600_001, "10", null, Number.NaN];
    const result = validateModelScript({
      conversations: [
        {
          match: "",
          turns: bad.map((delay_ms) => ({ tool_calls: [{ name: "Read", input: {} }], delay_ms })),
        },
        { match: "", turns: [{ delay_ms: 5 }] },
      ],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const expected = ["-1", "1.5", "600001", '"10"', "null", "NaN"].map(
      (got, t) =>
        `conversations[0].turns[${t}].delay_ms: must be an integer number of milliseconds 0-600000, got ${got}`,
    );
    expect(result.issues).toEqual([
      ...expected,
      "conversations[1].turns[0]: needs text, tool_calls or error",
    ]);
  });

  it("holds back the first SSE byte until delay_ms after arrival, recording receivedAt and answeredAt", async () => {
    const server = await start(DELAYED);
    const pending = post(server, { stream: true, messages: firstPrompt("quick one") }).then((response) => ({
      response,
      headersAt: Date.now(),
    }));
    const inFlight = await recorded(server, "quick");
    expect(inFlight).toMatchObject({ conversation: "quick", status: 200, answeredAt: null });
    const { response, headersAt } = await pending;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(parseSse(await response.text()).at(-1)?.event).toBe("message_stop");
    const entry = answered(server, "quick");
    expect(entry.answeredAt - entry.receivedAt).toBeGreaterThanOrEqual(300);
    expect(headersAt).toBeGreaterThanOrEqual(entry.answeredAt);
  });

  it("delays an error turn and a non-streaming answer too; 0 means no delay", async () => {
    const server = await start(DELAYED);
    const error = await post(server, { stream: false, messages: firstPrompt("a late error") });
    expect(error.status).toBe(529);
    const entry = answered(server, "late error");
    expect(entry.answeredAt - entry.receivedAt).toBeGreaterThanOrEqual(200);
    const tool = await post(server, { stream: false, messages: firstPrompt("late tool") });
    expect(((await tool.json()) as { stop_reason: string }).stop_reason).toBe("tool_use");
    expect(answered(server, "late tool").answeredAt).not.toBeNull();
  });

  it("delays concurrent requests side by side, not one after the other", async () => {
    const server = await start(DELAYED);
    const slow = post(server, { stream: true, messages: firstPrompt("slow one") }).then((r) => r.text());
    await recorded(server, "slow");
    const quick = post(server, { stream: true, messages: firstPrompt("quick one") }).then((r) => r.text());
    await Promise.all([slow, quick]);
    const s = answered(server, "slow");
    const q = answered(server, "quick");
    // The second request arrived while the first was still being delayed…
    expect(q.receivedAt).toBeLessThan(s.answeredAt);
    // …and was answered before it: its shorter delay ran alongside, not queued behind the first.
    expect(q.answeredAt).toBeLessThan(s.answeredAt);
    expect(s.answeredAt - s.receivedAt).toBeGreaterThanOrEqual(1200);
    expect(q.answeredAt - q.receivedAt).toBeGreaterThanOrEqual(300);
  });

  it("survives a client that disconnects during the delay and keeps serving", async () => {
    const server = await start(DELAYED);
    const controller = new AbortController();
    const aborted = fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stream: true, messages: firstPrompt("quick, then gone") }),
      signal: controller.signal,
    });
    const entry = await recorded(server, "then gone");
    controller.abort();
    await expect(aborted).rejects.toThrow(/abort/i);
    // Wait past the deadline the abandoned answer would have had.
    await sleep(Math.max(0, entry.receivedAt + 300 + 50 - Date.now()));
    expect(entry.answeredAt).toBeNull();
    const next = await post(server, { stream: false, messages: firstPrompt("quick again") });
    expect(next.status).toBe(200);
    expect(server.requests).toHaveLength(2);
  });

  it("the real claude CLI waits through a delayed turn and completes normally", async () => {
    const server = await start({
      conversations: [
        { name: "delayed", match: "say hello slowly", turns: [{ text: "Hello, late.", delay_ms: 1500 }] },
      ],
    });
    const scratch = makeScratch();
    try {
      const sessionId = randomUUID();
      const argv = buildClaudeArgv({
        prompt: "Please say hello slowly.",
        permissionMode: "dontAsk",
        policy: {
          settingSources: "",
          allowedTools: ["Read"],
          tools: ["Read"],
          strictMcpConfig: true,
          disallowedTools: [],
        },
        session: { kind: "fresh", sessionId },
      });
      const run = await runClaude({ server, scratch, argv });
      expect(run.exitCode).toBe(0);
      expect(run.outcome).toMatchObject({
        kind: "completed",
        isError: false,
        result: "Hello, late.",
        sessionId,
      });
      expect(server.requests).toHaveLength(1);
      const entry = answered(server, "say hello slowly");
      expect(entry).toMatchObject({ conversation: "delayed", stream: true, status: 200, sessionId });
      expect(entry.answeredAt - entry.receivedAt).toBeGreaterThanOrEqual(1500);
    } finally {
      scratch.cleanup();
    }
  });
});

describe("claudeEnvFor", () => {
  it("points the CLI at the server with a fresh HOME and no retries", () => {
    expect(claudeEnvFor("http://127.0.0.1:9", "/tmp/h")).toEqual({
      HOME: "/tmp/h",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      ANTHROPIC_API_KEY: "scripted-test-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
      DISABLE_AUTOUPDATER: "1",
    });
  });
});
