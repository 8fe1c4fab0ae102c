/**
 * What a `claude` stream says about the model's tool calls, read event by event while the process runs
 * (so a call killed before its result still reports them): permission denials, calls to unavailable
 * tools, the files the file-writing tools named, and the latest plan a `TodoWrite` call declared. The
 * rules are in `claude-stream.ts`'s module comment. Each set of tracked calls is bounded (`MAX_TRACKED`,
 * 10,000 calls): calls beyond it are not tracked, so past that many the counts stop growing; of the
 * `TodoWrite` calls only the most recent `TODO_CALLS_KEPT` are kept, each list at `MAX_TRACKED` items.
 */
import { BoundedMap, BoundedSet, RecentList, recordText } from "./bounded-records.js";
import { isRecord, type Json } from "./json-lines.js";
import { MAX_TRACKED } from "./jsonl-reader.js";

/** One item of a `TodoWrite` plan (`input.todos[]`): its text and status as the model declared them. */
export interface ClaudeTodo {
  /** `content`, at most 4096 characters. */
  readonly text: string;
  /** `pending`, `in_progress` or `completed` as written (anything else is kept verbatim). */
  readonly status: string;
}

/** `TodoWrite` calls kept, most recent last: the latest one a denial or error did not void is the plan. */
const TODO_CALLS_KEPT = 64;

/** What the stream said about tool calls, also known when no result arrived. */
export interface ClaudeToolCallCounts {
  /** Distinct tool calls refused by a permission decision (see the module comment). */
  readonly deniedToolCalls: number;
  /** Calls to tools that were not available at all (removed by `--tools` / bare `--disallowedTools`). */
  readonly unavailableToolCalls: number;
  /**
   * The paths the model's file-writing tool calls named (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`),
   * as given (absolute or relative to the CLI's cwd), first-seen order, without the calls the stream shows
   * did not run (see the module comment).
   */
  readonly writtenPaths: readonly string[];
}

const UNAVAILABLE_TOOL = /No such tool available/;
/** The CLI's file-writing tools and the input field that names the file. */
const FILE_WRITING_TOOLS: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isRecord)
    .map((block) => (typeof block.text === "string" ? block.text : ""))
    .join("\n");
}

/** The tool-call tracker of one call's stream. */
export class ClaudeToolCalls {
  private readonly deniedIds = new BoundedSet<string>();
  private readonly unavailableIds = new BoundedSet<string>();
  private readonly erroredIds = new BoundedSet<string>();
  /** File-writing calls in the order seen: tool_use id (or a synthetic one) → path. */
  private readonly writeCalls = new BoundedMap<string, string>();
  /** `TodoWrite` calls in the order seen (the most recent {@link TODO_CALLS_KEPT}). */
  private readonly todoCalls = new RecentList<{ readonly id: string; readonly todos: ClaudeTodo[] }>(
    TODO_CALLS_KEPT,
  );

  /** A call refused by a permission decision (`system/permission_denied`, `permission_denials`). */
  denied(toolUseId: string): void {
    this.deniedIds.add(toolUseId);
  }

  /** A `user` event: `tool_result_meta` decisions, and tool results that are errors. */
  readUserEvent(event: Json): void {
    const meta = event.tool_result_meta;
    if (Array.isArray(meta)) {
      for (const entry of meta.filter(isRecord)) {
        const decision = isRecord(entry.permission_decision) ? entry.permission_decision.decision : undefined;
        if (decision === "reject" && typeof entry.id === "string") this.deniedIds.add(entry.id);
      }
    }
    const content = isRecord(event.message) ? event.message.content : undefined;
    if (!Array.isArray(content)) return;
    for (const block of content.filter(isRecord)) {
      if (block.type !== "tool_result" || block.is_error !== true || typeof block.tool_use_id !== "string") {
        continue;
      }
      this.erroredIds.add(block.tool_use_id);
      if (UNAVAILABLE_TOOL.test(toolResultText(block.content))) this.unavailableIds.add(block.tool_use_id);
    }
  }

  /** An `assistant` event: the file-writing `tool_use` blocks and the paths they name. */
  readAssistantEvent(event: Json): void {
    const content = isRecord(event.message) ? event.message.content : undefined;
    if (!Array.isArray(content)) return;
    for (const block of content.filter(isRecord)) {
      if (block.type !== "tool_use" || typeof block.name !== "string") continue;
      if (block.name === "TodoWrite") this.readTodoWrite(block);
      const field = Object.hasOwn(FILE_WRITING_TOOLS, block.name)
        ? FILE_WRITING_TOOLS[block.name]
        : undefined;
      if (field === undefined || !isRecord(block.input)) continue;
      const path = block.input[field];
      if (typeof path !== "string" || path === "") continue;
      const id = typeof block.id === "string" ? block.id : `(no id ${this.writeCalls.size})`;
      if (!this.writeCalls.has(id)) this.writeCalls.set(id, path);
    }
  }

  /**
   * The plan of the latest `TodoWrite` call the stream does not show voided (denied, unavailable, or an
   * `is_error` result); `null` when the model declared none.
   */
  latestTodos(): readonly ClaudeTodo[] | null {
    const calls = this.todoCalls.toArray();
    for (let i = calls.length - 1; i >= 0; i--) {
      const call = calls[i];
      if (call === undefined) continue;
      const voided =
        this.deniedIds.has(call.id) || this.unavailableIds.has(call.id) || this.erroredIds.has(call.id);
      if (!voided) return call.todos;
    }
    return null;
  }

  private readTodoWrite(block: Json): void {
    const input = block.input;
    if (!isRecord(input) || !Array.isArray(input.todos)) return;
    const id = typeof block.id === "string" ? block.id : `(no id todo ${this.todoCalls.toArray().length})`;
    const todos = input.todos
      .filter(isRecord)
      .slice(0, MAX_TRACKED)
      .map((todo) => ({
        text: recordText(
          typeof todo.content === "string" ? todo.content : JSON.stringify(todo.content ?? ""),
        ),
        status: typeof todo.status === "string" ? todo.status : "pending",
      }));
    this.todoCalls.push({ id, todos });
  }

  counts(): ClaudeToolCallCounts {
    return {
      deniedToolCalls: this.deniedIds.size,
      unavailableToolCalls: [...this.unavailableIds].filter((id) => !this.deniedIds.has(id)).length,
      writtenPaths: this.writtenPaths(),
    };
  }

  private writtenPaths(): string[] {
    const paths = new Set<string>();
    for (const [id, path] of this.writeCalls) {
      if (this.deniedIds.has(id) || this.unavailableIds.has(id) || this.erroredIds.has(id)) continue;
      paths.add(path);
    }
    return [...paths];
  }
}
