/**
 * Stateless turn selection for the OpenAI Responses API (`POST /v1/responses`, what `codex exec` calls):
 * the same rules as the Anthropic side (select.ts), read from the request's `input` items instead of
 * `messages`. Nothing is remembered between requests, so codex's stream retries and `codex exec resume`
 * replay the right turn.
 *
 * Measured on codex-cli 0.169.0 (`-m gpt-5.5`, research/fake-model.md §4.1, §4.4):
 * - `input` opens with `developer` messages (base instructions, `<skills_instructions>`, and on a
 *   resume with another sandbox `<permissions instructions>`), then a `user` message whose `input_text`
 *   parts are context codex injects: `# AGENTS.md instructions for <dir>` (the workspace AGENTS.md) and
 *   `<environment_context>` (cwd, shell, date, workspace roots). Then the prompt, as its own `user`
 *   message with one `input_text` part, verbatim (leading `-`, whitespace and trailing newline kept).
 * - The model's output items are replayed in order, per response: an assistant `message`, then its
 *   `function_call` / `custom_tool_call` items (two parallel calls replay as call, call, output, output),
 *   then one `function_call_output` / `custom_tool_call_output` per call.
 * - A resume replays the whole thread and appends (maybe another `<environment_context>` user message and)
 *   the new prompt as a `user` message.
 *
 * Rules:
 * 1. The opening prompt is the newest `user` message holding real text: its `input_text` parts that are
 *    not injected context (a part whose trimmed text starts with `<environment_context>` or
 *    `# AGENTS.md instructions for `), joined by newlines. A context block this list does not know would
 *    become the "prompt" and fail fast with "no conversation matched", quoting it.
 * 2. The conversation is the FIRST one whose `match` substrings all occur in that text (select.ts).
 * 3. The step is the number of model responses after that message: maximal runs of model-output items
 *    (an assistant `message`, `reasoning`, or any `*_call` item) with nothing else between them. Tool
 *    outputs and user/developer messages end a run.
 */
import type { ModelScript } from "./script.js";
import { type TurnSelection, turnFor } from "./select.js";

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Trimmed starts of the `input_text` parts codex injects into `user` messages (measured, 0.169.0). */
const INJECTED_CONTEXT = ["<environment_context>", "# AGENTS.md instructions for "] as const;

function isInjectedContext(text: string): boolean {
  const head = text.trimStart();
  return INJECTED_CONTEXT.some((marker) => head.startsWith(marker));
}

function isUserMessage(item: unknown): item is Json {
  return isRecord(item) && item.role === "user" && (item.type === undefined || item.type === "message");
}

/** The real (non-injected) text of one input message's content, joined by newlines; "" when none. */
export function responsesRealTextOf(content: unknown): string {
  if (typeof content === "string") return isInjectedContext(content) ? "" : content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (part): part is { type: string; text: string } =>
        isRecord(part) &&
        (part.type === "input_text" || part.type === "text") &&
        typeof part.text === "string",
    )
    .map((part) => part.text)
    .filter((text) => !isInjectedContext(text) && text.trim() !== "")
    .join("\n");
}

/** Whether an input item is something the model produced (so it belongs to a model response). */
export function isModelOutputItem(item: unknown): boolean {
  if (!isRecord(item) || typeof item.type !== "string") return false;
  if (item.type === "message") return item.role === "assistant";
  return item.type === "reasoning" || item.type.endsWith("_call");
}

function findPrompt(input: readonly unknown[]): { index: number; text: string } | null {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (!isUserMessage(item)) continue;
    const text = responsesRealTextOf(item.content);
    if (text !== "") return { index: i, text };
  }
  return null;
}

function countResponses(input: readonly unknown[], after: number): number {
  let responses = 0;
  let inRun = false;
  for (let i = after + 1; i < input.length; i++) {
    if (isModelOutputItem(input[i])) {
      if (!inRun) responses++;
      inRun = true;
    } else {
      inRun = false;
    }
  }
  return responses;
}

/** Picks the scripted turn that answers a Responses API request with this `input`. Pure. */
export function selectResponsesTurn(script: ModelScript, input: unknown): TurnSelection {
  const list = Array.isArray(input)
    ? input
    : typeof input === "string"
      ? [{ role: "user", content: input }]
      : [];
  const prompt = findPrompt(list);
  if (prompt === null) return { kind: "no_prompt" };
  return turnFor(script, prompt.text, countResponses(list, prompt.index));
}

/** How a tool the request advertises is called: `function` → `function_call`, `custom` → `custom_tool_call`. */
export type AdvertisedToolKind = "function" | "custom";

/**
 * The callable tools a request advertises, by name. Classic models (`-m gpt-5.5`) list them in the
 * top-level `tools` (function `exec_command`, `write_stdin`, …, custom `apply_patch`); code-mode models
 * (codex's default `gpt-6.1-sol`, "responses lite") send no top-level tools but an `input` item
 * `{type:"additional_tools", tools:[{type:"namespace", tools:[{type:"custom", name:"exec"}, …]}]}`.
 * Namespaces are flattened to their members' bare names. Tools without a name (`web_search`,
 * `tool_search`) cannot be scripted and are left out.
 */
export function advertisedTools(body: Json): Map<string, AdvertisedToolKind> {
  const found = new Map<string, AdvertisedToolKind>();
  const visit = (tools: unknown) => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools.filter(isRecord)) {
      if (tool.type === "namespace") visit(tool.tools);
      else if ((tool.type === "function" || tool.type === "custom") && typeof tool.name === "string") {
        if (!found.has(tool.name)) found.set(tool.name, tool.type);
      }
    }
  };
  visit(body.tools);
  if (Array.isArray(body.input)) {
    for (const item of body.input.filter(isRecord)) if (item.type === "additional_tools") visit(item.tools);
  }
  return found;
}
