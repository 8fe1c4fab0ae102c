/**
 * Stateless turn selection (research/fake-model.md §7): everything is derived from the request's
 * `messages`, so retries, the CLI's non-streaming fallback and `--resume` replay the right turn.
 *
 * 1. The opening prompt is the newest `user` message holding real text: a text block that is not a
 *    `<system-reminder>` (the CLI prepends one to the first prompt and may append them to tool results).
 *    Messages holding only `tool_result` blocks are tool output, not a prompt.
 * 2. The conversation is the FIRST one whose `match` substrings all occur in that prompt text.
 * 3. The step is the number of assistant turns after that user message. Consecutive assistant
 *    messages (no user message between them) count as one turn.
 */
import type { ModelScript, ScriptedConversation, ScriptedTurn } from "./script.js";

export type TurnSelection =
  | {
      readonly kind: "turn";
      readonly conversation: ScriptedConversation;
      readonly conversationName: string;
      readonly promptText: string;
      readonly step: number;
      readonly turn: ScriptedTurn;
    }
  | { readonly kind: "no_prompt" }
  | { readonly kind: "unmatched"; readonly promptText: string; readonly step: number }
  | {
      readonly kind: "exhausted";
      readonly conversationName: string;
      readonly promptText: string;
      readonly step: number;
      readonly turnCount: number;
    };

interface PromptPosition {
  readonly index: number;
  readonly text: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSystemReminder(text: string): boolean {
  return text.trimStart().startsWith("<system-reminder>");
}

/** The real (non-reminder) text of one message's content, joined by newlines; "" when there is none. */
export function realTextOf(content: unknown): string {
  if (typeof content === "string") return isSystemReminder(content) ? "" : content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (block): block is { type: "text"; text: string } =>
        isRecord(block) && block.type === "text" && typeof block.text === "string",
    )
    .map((block) => block.text)
    .filter((text) => !isSystemReminder(text) && text.trim() !== "")
    .join("\n");
}

function findPrompt(messages: readonly unknown[]): PromptPosition | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!isRecord(message) || message.role !== "user") continue;
    const text = realTextOf(message.content);
    if (text !== "") return { index: i, text };
  }
  return null;
}

function countAssistantTurns(messages: readonly unknown[], after: number): number {
  let turns = 0;
  let previousWasAssistant = false;
  for (let i = after + 1; i < messages.length; i++) {
    const message = messages[i];
    const role = isRecord(message) ? message.role : undefined;
    if (role === "assistant") {
      if (!previousWasAssistant) turns++;
      previousWasAssistant = true;
    } else if (role === "user") {
      previousWasAssistant = false;
    }
  }
  return turns;
}

/** A conversation's display name: its `name`, else `#<index>`. */
export function conversationName(script: ModelScript, conversation: ScriptedConversation): string {
  return conversation.name ?? `#${script.conversations.indexOf(conversation)}`;
}

function matches(conversation: ScriptedConversation, promptText: string): boolean {
  const needles = typeof conversation.match === "string" ? [conversation.match] : conversation.match;
  return needles.every((needle) => promptText.includes(needle));
}

/**
 * The turn a request plays once its opening prompt and step are known: the first conversation whose
 * `match` substrings all occur in `promptText`, then its `turns[step]`. Pure; shared by both wire APIs
 * (`selectTurn` here, `selectResponsesTurn` in openai-select.ts).
 */
export function turnFor(script: ModelScript, promptText: string, step: number): TurnSelection {
  const conversation = script.conversations.find((c) => matches(c, promptText));
  if (conversation === undefined) return { kind: "unmatched", promptText, step };
  const name = conversationName(script, conversation);
  const turn = conversation.turns[step];
  if (turn === undefined) {
    return {
      kind: "exhausted",
      conversationName: name,
      promptText,
      step,
      turnCount: conversation.turns.length,
    };
  }
  return { kind: "turn", conversation, conversationName: name, promptText, step, turn };
}

/** Picks the scripted turn that answers an Anthropic request with these `messages`. Pure. */
export function selectTurn(script: ModelScript, messages: unknown): TurnSelection {
  const list = Array.isArray(messages) ? messages : [];
  const prompt = findPrompt(list);
  if (prompt === null) return { kind: "no_prompt" };
  return turnFor(script, prompt.text, countAssistantTurns(list, prompt.index));
}
