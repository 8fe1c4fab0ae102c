/**
 * OpenAI Responses API wire shapes for one scripted turn (research/fake-model.md §4.3; re-measured on
 * codex-cli 0.169.0): the output items, the streaming SSE event sequence, the non-streaming Response
 * JSON and the error body. Pure functions; the HTTP server writes what they return.
 *
 * What codex needs (fake-model.md §4.3 omission experiments): `response.output_item.done` for every item
 * (a tool call starts executing there) and a final `response.completed` carrying `usage` (without it codex
 * reports "stream disconnected before completion" and retries). The other events are what the real API
 * sends and are emitted so the client's delta handling is exercised too: text and tool arguments arrive
 * in two deltas each, and codex must not double them (test/runtime/codex-cli.test.ts checks the reply).
 */
import { randomBytes } from "node:crypto";
import type { AdvertisedToolKind } from "./openai-select.js";
import { DEFAULT_USAGE, type ScriptedTurn } from "./script.js";

export type OutputItem =
  | {
      readonly type: "message";
      readonly id: string;
      readonly role: "assistant";
      readonly status: "completed";
      readonly content: readonly [
        { readonly type: "output_text"; readonly text: string; readonly annotations: [] },
      ];
    }
  | {
      readonly type: "function_call";
      readonly id: string;
      readonly status: "completed";
      readonly call_id: string;
      readonly name: string;
      /** The scripted `input` object as a JSON string. */
      readonly arguments: string;
    }
  | {
      readonly type: "custom_tool_call";
      readonly id: string;
      readonly status: "completed";
      readonly call_id: string;
      readonly name: string;
      /** The freeform text (for `apply_patch`: the patch, `*** Begin Patch` … `*** End Patch`). */
      readonly input: string;
    };

/** Responses API usage; `input_tokens` includes the cached ones (always 0 here). */
export interface ResponsesUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: { readonly cached_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

export interface ScriptedResponse {
  readonly id: string;
  readonly object: "response";
  readonly created_at: number;
  readonly status: "completed";
  readonly model: string;
  readonly output: readonly OutputItem[];
  readonly usage: ResponsesUsage;
}

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("hex")}`;
}

/** Why a turn's tool calls cannot be played against this request (the server answers 400 with it). */
export interface ToolCallRefusal {
  readonly kind: "tool_refused";
  /** Index into the turn's `tool_calls`. */
  readonly callIndex: number;
  readonly message: string;
}

/**
 * The output items of a (non-error) turn: the text as an assistant `message`, then one call per scripted
 * tool call. A tool the request advertises as a `function` becomes a `function_call` whose `arguments`
 * are the JSON of `input`; a `custom` (freeform) one becomes a `custom_tool_call` whose `input` is the
 * string `input.input` (so `{name:"apply_patch", input:{input:"*** Begin Patch\n…"}}`). A tool the request
 * does not advertise is refused rather than sent: codex would answer it with "unsupported call: NAME" and
 * the script would quietly test nothing. Ids are random (`call_scripted_<hex>`), so unique across resumes.
 */
export function outputItems(
  turn: ScriptedTurn,
  tools: ReadonlyMap<string, AdvertisedToolKind>,
): OutputItem[] | ToolCallRefusal {
  const items: OutputItem[] = [];
  if (turn.text !== undefined) {
    items.push({
      type: "message",
      id: randomId("msg_scripted_"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: turn.text, annotations: [] }],
    });
  }
  for (const [index, call] of (turn.tool_calls ?? []).entries()) {
    const kind = tools.get(call.name);
    if (kind === undefined) {
      const names = [...tools.keys()].join(", ") || "none";
      return {
        kind: "tool_refused",
        callIndex: index,
        message: `calls "${call.name}", which this request does not advertise (advertised: ${names})`,
      };
    }
    const callId = randomId("call_scripted_");
    if (kind === "function") {
      items.push({
        type: "function_call",
        id: randomId("fc_scripted_"),
        status: "completed",
        call_id: callId,
        name: call.name,
        arguments: JSON.stringify(call.input),
      });
      continue;
    }
    const keys = Object.keys(call.input);
    const text = call.input.input;
    if (typeof text !== "string" || keys.length !== 1) {
      return {
        kind: "tool_refused",
        callIndex: index,
        message: `calls "${call.name}", a custom (freeform) tool: script its raw text as input: {"input": "<text>"}`,
      };
    }
    items.push({
      type: "custom_tool_call",
      id: randomId("ctc_scripted_"),
      status: "completed",
      call_id: callId,
      name: call.name,
      input: text,
    });
  }
  return items;
}

/** The complete Response a turn answers with (also the non-streaming body). */
export function scriptedResponse(
  turn: ScriptedTurn,
  model: string,
  output: readonly OutputItem[],
): ScriptedResponse {
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    id: randomId("resp_scripted_"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model,
    output,
    usage: {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input_tokens + usage.output_tokens,
    },
  };
}

/** Splits a string in two non-empty halves when possible (the client must concatenate deltas). */
function halves(value: string): string[] {
  if (value.length < 2) return [value];
  const middle = Math.floor(value.length / 2);
  return [value.slice(0, middle), value.slice(middle)];
}

/**
 * The SSE events for one response, each `event: <type>\ndata: {type, sequence_number, …}\n\n`:
 * `response.created`, `response.in_progress`, then per item `response.output_item.added`, its deltas
 * (message: `content_part.added`, two `output_text.delta`, `output_text.done`, `content_part.done`;
 * function call: two `function_call_arguments.delta`, `.done`; custom call: two
 * `custom_tool_call_input.delta`, `.done`), `response.output_item.done`; finally `response.completed`
 * with the usage.
 */
export function responsesSseEvents(response: ScriptedResponse): string[] {
  const events: string[] = [];
  let sequence = 0;
  const emit = (type: string, data: Record<string, unknown>) => {
    events.push(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  };
  const shell = { ...response, status: "in_progress", output: [], usage: null };
  emit("response.created", { response: shell });
  emit("response.in_progress", { response: shell });
  response.output.forEach((item, output_index) => {
    const item_id = item.id;
    switch (item.type) {
      case "message": {
        const text = item.content[0].text;
        const part = { type: "output_text", text: "", annotations: [] };
        emit("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        });
        emit("response.content_part.added", { item_id, output_index, content_index: 0, part });
        for (const delta of halves(text)) {
          emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta });
        }
        emit("response.output_text.done", { item_id, output_index, content_index: 0, text });
        emit("response.content_part.done", {
          item_id,
          output_index,
          content_index: 0,
          part: { ...part, text },
        });
        break;
      }
      case "function_call":
        emit("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", arguments: "" },
        });
        for (const delta of halves(item.arguments)) {
          emit("response.function_call_arguments.delta", { item_id, output_index, delta });
        }
        emit("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
        break;
      case "custom_tool_call":
        emit("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", input: "" },
        });
        for (const delta of halves(item.input)) {
          emit("response.custom_tool_call_input.delta", { item_id, output_index, delta });
        }
        emit("response.custom_tool_call_input.done", { item_id, output_index, input: item.input });
        break;
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit("response.completed", { response });
  return events;
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "server_error",
  503: "server_error",
};

const ERROR_CODES: Readonly<Record<number, string>> = {
  401: "invalid_api_key",
  429: "rate_limit_exceeded",
};

/**
 * The OpenAI error body `{error:{message, type, param:null, code}}` for an HTTP status; `extra.type`
 * replaces the status's type, and `extra.resets_at` (Unix seconds) is added to the error object.
 */
export function responsesErrorBody(
  status: number,
  message: string,
  extra: { readonly type?: string; readonly resets_at?: number } = {},
): string {
  const type =
    extra.type ?? ERROR_TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
  const resets = extra.resets_at !== undefined ? { resets_at: extra.resets_at } : {};
  return JSON.stringify({
    error: { message, type, param: null, code: ERROR_CODES[status] ?? null, ...resets },
  });
}
