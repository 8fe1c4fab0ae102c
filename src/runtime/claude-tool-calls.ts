/**
 * What a `claude` stream says about the model's tool calls, read event by event while the process runs
 * (so a call killed before its result still reports them): permission denials, calls to unavailable
 * tools, and the files the file-writing tools named. The rules are in `claude-stream.ts`'s module
 * comment. Each set of tracked calls is bounded (`MAX_TRACKED`, 10,000 calls): calls beyond it are not
 * tracked, so past that many the counts stop growing.
 */
import { BoundedMap, BoundedSet } from "./bounded-records.js";
import { isRecord, type Json } from "./json-lines.js";

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
