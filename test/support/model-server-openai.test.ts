/**
 * The scripted model server's OpenAI side (`POST /v1/responses`, for codex): stateless selection from the
 * request's `input` items, tool advertisement, the SSE sequence, refusals, error bodies, recording, delays,
 * and the codex environment/config. The real codex CLI runs against it in test/runtime/codex-cli.test.ts;
 * the shapes below are the ones codex-cli 0.169.0 sent (research/fake-model.md §4).
 */
import { describe, expect, it } from "vitest";
import {
  advertisedTools,
  codexConfigFor,
  codexEnvFor,
  isModelOutputItem,
  type ModelScript,
  type ModelServer,
  SCRIPTED_API_KEY,
  selectResponsesTurn,
} from "./model-server/index.js";
import { parseSse, postJson, serversPerTest } from "./model-server-testing.js";

const SCRIPT: ModelScript = {
  conversations: [
    {
      name: "write",
      match: ["make", "out.txt"],
      turns: [
        { text: "Writing.", tool_calls: [{ name: "exec_command", input: { cmd: "echo hi > out.txt" } }] },
        { tool_calls: [{ name: "apply_patch", input: { input: "*** Begin Patch\n*** End Patch\n" } }] },
        { text: "All done.", usage: { input_tokens: 7, output_tokens: 3 } },
      ],
    },
    {
      name: "claude-names",
      match: "use Bash",
      turns: [{ tool_calls: [{ name: "Bash", input: { command: "ls" } }] }, { text: "x" }],
    },
    {
      name: "bad-custom",
      match: "bad patch",
      turns: [{ tool_calls: [{ name: "apply_patch", input: { patch: "x" } }] }, { text: "x" }],
    },
    { match: "broken", turns: [{ error: { status: 503, message: "scripted outage" } }] },
    { name: "slow", match: "take your time", turns: [{ text: "eventually", delay_ms: 300 }] },
    {
      name: "limited",
      match: "over the limit",
      turns: [
        { error: { status: 429, message: "limit", type: "usage_limit_reached", resets_at: 1_800_000_000 } },
      ],
    },
    { name: "catch-all", match: "", turns: [{ text: "fallback" }] },
  ],
};

/** The tools codex 0.169.0 advertises for `-m gpt-5.5` (abridged: names and kinds as measured). */
const CLASSIC_TOOLS = [
  {
    type: "function",
    name: "exec_command",
    parameters: { type: "object", properties: { cmd: { type: "string" } } },
  },
  { type: "function", name: "write_stdin", parameters: { type: "object", properties: {} } },
  { type: "custom", name: "apply_patch", format: { type: "grammar" } },
  { type: "web_search" },
];

const developer = (text: string) => ({
  type: "message",
  role: "developer",
  content: [{ type: "input_text", text }],
});
const user = (...texts: string[]) => ({
  type: "message",
  role: "user",
  content: texts.map((text) => ({ type: "input_text", text })),
});
const assistant = (text: string) => ({
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }],
});
const call = (id: string) => ({ type: "function_call", name: "exec_command", arguments: "{}", call_id: id });
const output = (id: string) => ({
  type: "function_call_output",
  call_id: id,
  output: "Process exited with code 0",
});

/** The opening of a codex request: base instructions, injected context, then the prompt. */
const opening = (prompt: string) => [
  developer("You are Codex, a coding agent…"),
  developer("<skills_instructions>\n## Skills\n…"),
  user(
    "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nmake out.txt\n</INSTRUCTIONS>",
    "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
  ),
  user(prompt),
];

const start = serversPerTest(SCRIPT);

function post(server: ModelServer, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return postJson(server, "/v1/responses", body, headers);
}

describe("selectResponsesTurn (stateless)", () => {
  it("skips injected context (AGENTS.md, environment_context) and developer messages", () => {
    const selection = selectResponsesTurn(SCRIPT, opening("Please make out.txt"));
    expect(selection).toMatchObject({
      kind: "turn",
      conversationName: "write",
      step: 0,
      promptText: "Please make out.txt",
    });
  });

  it("counts model responses after the prompt: parallel calls and their outputs are one step", () => {
    const input = [
      ...opening("Please make out.txt"),
      assistant("Writing."),
      call("a"),
      call("b"),
      output("a"),
      output("b"),
    ];
    expect(selectResponsesTurn(SCRIPT, input)).toMatchObject({ kind: "turn", step: 1 });
    expect(
      selectResponsesTurn(SCRIPT, [
        ...input,
        { type: "custom_tool_call", call_id: "c" },
        { type: "custom_tool_call_output", call_id: "c" },
      ]),
    ).toMatchObject({ step: 2 });
  });

  it("restarts at step 0 on a newer prompt (a resumed thread), even after injected context", () => {
    const input = [
      ...opening("Please make out.txt"),
      assistant("All done."),
      developer("<permissions instructions>\n…"),
      user("<environment_context>\n  <current_date>2026-11-29</current_date>\n</environment_context>"),
      user("now take your time"),
    ];
    expect(selectResponsesTurn(SCRIPT, input)).toMatchObject({
      kind: "turn",
      conversationName: "slow",
      step: 0,
    });
  });

  it("reports exhaustion, no match and no prompt; a string input is the prompt", () => {
    const past = [
      ...opening("make out.txt"),
      assistant("a"),
      call("a"),
      output("a"),
      call("b"),
      output("b"),
      assistant("c"),
    ];
    expect(selectResponsesTurn(SCRIPT, past)).toMatchObject({ kind: "exhausted", step: 3, turnCount: 3 });
    const narrow: ModelScript = { conversations: [{ match: "only this", turns: [{ text: "x" }] }] };
    expect(selectResponsesTurn(narrow, opening("something else"))).toEqual({
      kind: "unmatched",
      promptText: "something else",
      step: 0,
    });
    expect(
      selectResponsesTurn(SCRIPT, [developer("only instructions"), user("<environment_context>x")]),
    ).toEqual({ kind: "no_prompt" });
    expect(selectResponsesTurn(SCRIPT, "make out.txt")).toMatchObject({
      kind: "turn",
      conversationName: "write",
    });
  });

  it("knows model output items from everything else", () => {
    expect(
      [assistant("x"), call("a"), { type: "custom_tool_call" }, { type: "reasoning" }].every(
        isModelOutputItem,
      ),
    ).toBe(true);
    expect(
      [user("x"), developer("x"), output("a"), { type: "custom_tool_call_output" }, null].some(
        isModelOutputItem,
      ),
    ).toBe(false);
  });
});

describe("advertisedTools", () => {
  it("reads classic top-level tools and code-mode additional_tools namespaces", () => {
    expect([...advertisedTools({ tools: CLASSIC_TOOLS })]).toEqual([
      ["exec_command", "function"],
      ["write_stdin", "function"],
      ["apply_patch", "custom"],
    ]);
    const codeMode = {
      input: [
        {
          type: "additional_tools",
          role: "developer",
          tools: [
            {
              type: "namespace",
              name: "functions",
              tools: [
                { type: "custom", name: "exec" },
                { type: "function", name: "wait" },
              ],
            },
          ],
        },
      ],
    };
    expect([...advertisedTools(codeMode)]).toEqual([
      ["exec", "custom"],
      ["wait", "function"],
    ]);
  });
});

describe("POST /v1/responses", () => {
  it("streams the Responses SSE sequence for text + function call, and records the request", async () => {
    const server = await start();
    const response = await post(
      server,
      { model: "gpt-5.5", stream: true, tools: CLASSIC_TOOLS, input: opening("Please make out.txt") },
      { "session-id": "01a229b5-40c4-7922-94ad-e4ea52cb9e9d" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await response.text());
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    const text = events.filter((e) => e.event === "response.output_text.delta").map((e) => e.data.delta);
    expect(text.join("")).toBe("Writing.");
    const args = events
      .filter((e) => e.event === "response.function_call_arguments.delta")
      .map((e) => e.data.delta);
    expect(args.join("")).toBe('{"cmd":"echo hi > out.txt"}');
    const done = events.filter((e) => e.event === "response.output_item.done").map((e) => e.data.item);
    expect(done).toEqual([
      {
        type: "message",
        id: expect.stringMatching(/^msg_scripted_/),
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Writing.", annotations: [] }],
      },
      {
        type: "function_call",
        id: expect.stringMatching(/^fc_scripted_/),
        status: "completed",
        call_id: expect.stringMatching(/^call_scripted_[0-9a-f]{24}$/),
        name: "exec_command",
        arguments: '{"cmd":"echo hi > out.txt"}',
      },
    ]);
    const completed = events.at(-1)?.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({
      object: "response",
      status: "completed",
      model: "gpt-5.5",
      output: done,
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 120,
      },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      api: "openai",
      conversation: "write",
      step: 0,
      sessionId: "01a229b5-40c4-7922-94ad-e4ea52cb9e9d",
      promptText: "Please make out.txt",
      stream: true,
      status: 200,
    });
    expect(server.requests[0]?.answeredAt).toBeGreaterThanOrEqual(server.requests[0]?.receivedAt ?? Infinity);
  });

  it("plays a custom tool (apply_patch) as custom_tool_call with the raw input text", async () => {
    const server = await start();
    const input = [...opening("Please make out.txt"), assistant("Writing."), call("a"), output("a")];
    const events = parseSse(await (await post(server, { stream: true, tools: CLASSIC_TOOLS, input })).text());
    expect(events.map((e) => e.event)).toContain("response.custom_tool_call_input.delta");
    const item = events.find((e) => e.event === "response.output_item.done")?.data.item;
    expect(item).toMatchObject({
      type: "custom_tool_call",
      name: "apply_patch",
      input: "*** Begin Patch\n*** End Patch\n",
    });
    expect(server.requests[0]).toMatchObject({ conversation: "write", step: 1 });
  });

  it("answers stream:false with one Response JSON carrying the scripted usage", async () => {
    const server = await start();
    const input = [
      ...opening("make out.txt"),
      assistant("a"),
      call("a"),
      output("a"),
      { type: "custom_tool_call", call_id: "c" },
      { type: "custom_tool_call_output", call_id: "c" },
    ];
    const response = await post(server, { model: "m", stream: false, tools: CLASSIC_TOOLS, input });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject({
      object: "response",
      status: "completed",
      model: "m",
      output: [{ type: "message", content: [{ text: "All done." }] }],
      usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 },
    });
  });

  it("refuses a tool the request does not advertise (e.g. a claude name), naming what is advertised", async () => {
    const server = await start();
    const response = await post(server, { stream: true, tools: CLASSIC_TOOLS, input: opening("use Bash") });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message:
          'scripted model server: conversations[1].turns[0].tool_calls[0] (conversation "claude-names", step 0) calls "Bash", which this request does not advertise (advertised: exec_command, write_stdin, apply_patch)',
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    });
    expect(server.requests[0]).toMatchObject({
      api: "openai",
      conversation: "claude-names",
      step: 0,
      status: 400,
    });
  });

  it("refuses a custom tool call whose input is not {input: string}", async () => {
    const server = await start();
    const response = await post(server, { stream: true, tools: CLASSIC_TOOLS, input: opening("bad patch") });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^scripted model server: conversations\[2\]\.turns\[0\]\.tool_calls\[0\] \(conversation "bad-custom", step 0\) calls "apply_patch", a custom \(freeform\) tool: script its raw text as input: \{"input": "<text>"\}$/,
    );
  });

  it("answers a scripted error with its status and an OpenAI error body", async () => {
    const server = await start();
    const response = await post(server, { stream: true, input: opening("broken") });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: { message: "scripted outage", type: "server_error", param: null, code: null },
    });
    expect(server.requests[0]).toMatchObject({ conversation: "#3", status: 503 });
    // A scripted type replaces the status's; resets_at joins the error object (codex's usage limit).
    const limited = await post(server, { stream: true, input: opening("over the limit") });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      error: {
        message: "limit",
        type: "usage_limit_reached",
        param: null,
        code: "rate_limit_exceeded",
        resets_at: 1_800_000_000,
      },
    });
  });

  it("refuses unmatched prompts, exhausted conversations, no prompt and non-JSON with 400", async () => {
    const narrow = await start({ conversations: [{ name: "one", match: "go", turns: [{ text: "x" }] }] });
    const unmatched = await post(narrow, { stream: true, input: opening("stop") });
    expect(unmatched.status).toBe(400);
    expect(((await unmatched.json()) as { error: { message: string } }).error.message).toBe(
      'scripted model server: no conversation matched the prompt "stop"',
    );
    const exhausted = await post(narrow, { stream: true, input: [...opening("go"), assistant("x")] });
    expect(((await exhausted.json()) as { error: { message: string } }).error.message).toBe(
      'scripted model server: conversation "one" has 1 turn(s) but the CLI asked for turn 2 (step 1) of the prompt "go"',
    );
    expect((await post(narrow, { stream: true, input: [developer("x")] })).status).toBe(400);
    const notJson = await fetch(`${narrow.url}/v1/responses`, { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    expect(narrow.requests.map((q) => [q.api, q.conversation, q.step, q.status])).toEqual([
      ["openai", null, 0, 400],
      ["openai", "one", 1, 400],
      ["openai", null, null, 400],
      ["openai", null, null, 400],
    ]);
  });

  it("holds back the first SSE byte for delay_ms, recording receivedAt and answeredAt", async () => {
    const server = await start();
    const started = Date.now();
    const response = await post(server, { stream: true, input: opening("take your time") });
    await response.text();
    const q = server.requests[0];
    expect(q?.conversation).toBe("slow");
    expect((q?.answeredAt ?? 0) - (q?.receivedAt ?? 0)).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it("serves both wire APIs from one server and one script, recording which one each request used", async () => {
    const server = await start();
    await (await post(server, { stream: true, input: opening("hello codex") })).text();
    const anthropic = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-claude-code-session-id": "sid" },
      body: JSON.stringify({ stream: false, messages: [{ role: "user", content: "hello claude" }] }),
    });
    expect(((await anthropic.json()) as { content: { text: string }[] }).content[0]?.text).toBe("fallback");
    expect(server.requests.map((q) => [q.api, q.conversation, q.sessionId])).toEqual([
      ["openai", "catch-all", null],
      ["anthropic", "catch-all", "sid"],
    ]);
  });
});

describe("codexEnvFor / codexConfigFor", () => {
  it("env: CODEX_HOME = HOME, a dummy OPENAI_API_KEY, the server's host exempt from proxies", () => {
    expect(codexEnvFor("http://127.0.0.1:4321", "/tmp/ch")).toEqual({
      HOME: "/tmp/ch",
      CODEX_HOME: "/tmp/ch",
      OPENAI_API_KEY: SCRIPTED_API_KEY,
      NO_PROXY: "127.0.0.1",
      no_proxy: "127.0.0.1",
    });
  });

  it("config: a custom responses provider at <url>/v1, no retries, gpt-5.5, plugins and analytics off", () => {
    expect(codexConfigFor("http://127.0.0.1:4321/")).toEqual([
      'model_provider="scripted"',
      'model_providers.scripted.name="scripted model server"',
      'model_providers.scripted.base_url="http://127.0.0.1:4321/v1"',
      'model_providers.scripted.env_key="OPENAI_API_KEY"',
      'model_providers.scripted.wire_api="responses"',
      "model_providers.scripted.request_max_retries=0",
      "model_providers.scripted.stream_max_retries=0",
      'model="gpt-5.5"',
      "features.plugins=false",
      "analytics.enabled=false",
    ]);
  });
});
