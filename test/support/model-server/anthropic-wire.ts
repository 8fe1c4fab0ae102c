/**
 * Anthropic Messages API wire shapes for one scripted turn (research/fake-model.md §2.3): the streaming
 * SSE event sequence, the non-streaming Message JSON the CLI falls back to, and the error body.
 * Pure functions; the HTTP server writes what they return.
 */
import { randomBytes } from "node:crypto";
import { DEFAULT_USAGE, type ScriptedTurn } from "./script.js";

export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "tool_use";
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    };

export interface AssistantMessage {
  readonly id: string;
  readonly type: "message";
  readonly role: "assistant";
  readonly model: string;
  readonly content: readonly ContentBlock[];
  readonly stop_reason: "tool_use" | "end_turn";
  readonly stop_sequence: null;
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_creation_input_tokens: number;
    readonly cache_read_input_tokens: number;
  };
}

function randomId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("hex")}`;
}

/** The complete assistant message a (non-error) turn answers with. Tool ids are random, so unique. */
export function assistantMessage(turn: ScriptedTurn, model: string): AssistantMessage {
  const content: ContentBlock[] = [];
  if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
  for (const call of turn.tool_calls ?? []) {
    content.push({ type: "tool_use", id: randomId("toolu_scripted_"), name: call.name, input: call.input });
  }
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    id: randomId("msg_scripted_"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: turn.tool_calls !== undefined ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function sseEvent(name: string, data: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}

/** Splits a string in two non-empty halves when possible (the CLI must concatenate deltas). */
function halves(value: string): string[] {
  if (value.length < 2) return [value];
  const middle = Math.floor(value.length / 2);
  return [value.slice(0, middle), value.slice(middle)];
}

/**
 * The SSE events for one message: message_start, ping, per block content_block_start / _delta… / _stop
 * (`text_delta` for text, `input_json_delta` for tool input, split in two to exercise concatenation),
 * message_delta (stop_reason + output usage), message_stop.
 */
export function sseEvents(message: AssistantMessage): string[] {
  const events: string[] = [];
  events.push(
    sseEvent("message_start", {
      message: { ...message, content: [], stop_reason: null, stop_sequence: null },
    }),
  );
  events.push(sseEvent("ping", {}));
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(sseEvent("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const text of halves(block.text)) {
        events.push(sseEvent("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else {
      events.push(
        sseEvent("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      for (const partial_json of halves(JSON.stringify(block.input))) {
        events.push(
          sseEvent("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }),
        );
      }
    }
    events.push(sseEvent("content_block_stop", { index }));
  });
  events.push(
    sseEvent("message_delta", {
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: message.usage.output_tokens },
    }),
  );
  events.push(sseEvent("message_stop", {}));
  return events;
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The Anthropic error body `{type:"error", error:{type, message}}` for an HTTP status (`typeOverride`: another `error.type`). */
export function errorBody(status: number, message: string, typeOverride?: string): string {
  const type = typeOverride ?? ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return JSON.stringify({ type: "error", error: { type, message } });
}
