/**
 * Test helper: what a real CLI did with the scripted model's tool calls, read from the requests the CLI
 * sent back to the scripted model server (research/fake-model.md §2.2 and §4.4). A CLI replays the whole
 * conversation on every request, so the LAST request of a run holds every call and every result; a call
 * with no result means the CLI never answered it (the call did not reach its tool loop).
 */
import type { RecordedRequest, ScriptedToolCall } from "../support/model-server/index.js";

/** One scripted tool call and what the CLI sent back for it. */
export interface ToolExchange {
  /** The call id the server minted (`toolu_scripted_…` / `call_scripted_…`). */
  readonly id: string;
  /** The tool name the model called (`Bash`, `Write`, `exec_command`, …). */
  readonly name: string;
  /** The call's input as the CLI replayed it (Anthropic: the input object; Responses: the parsed arguments). */
  readonly input: unknown;
  /** The tool result the CLI sent back, as text; null when it sent none (the call never reached a tool). */
  readonly result: string | null;
  /** Anthropic `tool_result.is_error` (false when absent); null for codex, whose outputs carry no such flag. */
  readonly isError: boolean | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `tool_result.content` as text: a string as is, an array of text blocks joined by newlines. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? null);
  return content
    .map((block) => (isRecord(block) && typeof block.text === "string" ? block.text : JSON.stringify(block)))
    .join("\n");
}

/**
 * Every `tool_use` of an Anthropic Messages request body (claude), in order, paired with its
 * `tool_result` from the same body. Pass the run's last request.
 */
export function claudeToolExchanges(request: RecordedRequest | undefined): ToolExchange[] {
  const body = request?.body;
  const messages = isRecord(body) && Array.isArray(body.messages) ? body.messages : [];
  const blocks = messages.flatMap((message) =>
    isRecord(message) && Array.isArray(message.content) ? message.content.filter(isRecord) : [],
  );
  const results = new Map<string, Record<string, unknown>>();
  for (const block of blocks) {
    if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
      results.set(block.tool_use_id, block);
    }
  }
  return blocks
    .filter((block) => block.type === "tool_use" && typeof block.id === "string")
    .map((block) => {
      const id = String(block.id);
      const result = results.get(id);
      return {
        id,
        name: String(block.name),
        input: block.input,
        result: result === undefined ? null : contentText(result.content),
        isError: result === undefined ? null : result.is_error === true,
      };
    });
}

/**
 * Every `function_call` / `custom_tool_call` item of an OpenAI Responses request body (codex), in order,
 * paired with its `*_call_output` item from the same body. Pass the run's last request.
 */
export function codexToolExchanges(request: RecordedRequest | undefined): ToolExchange[] {
  const body = request?.body;
  const items = isRecord(body) && Array.isArray(body.input) ? body.input.filter(isRecord) : [];
  const outputs = new Map<string, string>();
  for (const item of items) {
    if (
      typeof item.type === "string" &&
      item.type.endsWith("_call_output") &&
      typeof item.call_id === "string"
    ) {
      outputs.set(item.call_id, contentText(item.output));
    }
  }
  return items
    .filter(
      (item) =>
        (item.type === "function_call" || item.type === "custom_tool_call") &&
        typeof item.call_id === "string",
    )
    .map((item) => {
      const id = String(item.call_id);
      let input: unknown = item.type === "function_call" ? item.arguments : item.input;
      if (typeof input === "string" && item.type === "function_call") {
        try {
          input = JSON.parse(input);
        } catch {
          // Keep the raw text: the CLI replayed arguments that are not JSON.
        }
      }
      return { id, name: String(item.name), input, result: outputs.get(id) ?? null, isError: null };
    });
}

/** A scripted claude `Bash` call. */
export function bashCall(command: string): ScriptedToolCall {
  return { name: "Bash", input: { command } };
}
