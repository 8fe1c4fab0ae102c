/**
 * The `item.*` events of a `codex exec --json` stream (`item.started` / `item.updated` /
 * `item.completed`, the latest state of each item id wins; shapes in `codex-stream.ts`'s module comment):
 * the reply, commands, apply_patch file changes, the todo list and non-fatal warnings. Every collection is
 * bounded (`MAX_TRACKED` items, 10,000; texts at `RECORD_TEXT_CHARS`, 4096 characters; warnings keep the
 * most recent), so millions of events cost constant memory.
 */
import { BoundedMap, RecentList, recordText } from "./bounded-records.js";
import { isRecord, type Json, stringOrNull } from "./json-lines.js";
import { MAX_TRACKED } from "./jsonl-reader.js";

/** One `command_execution` item, in its latest state. */
export interface CodexCommand {
  readonly id: string;
  /** As codex ran it, e.g. `/bin/bash -lc 'echo hi > out.txt'` (at most 4096 characters). */
  readonly command: string;
  /** null while running (or when the process was killed mid-command). */
  readonly exitCode: number | null;
  /** `in_progress`, `completed` (exit 0) or `failed` (non-zero exit), as printed. */
  readonly status: string;
}

/** One change of a `file_change` item (apply_patch). */
export interface CodexFileChange {
  /** Absolute (codex resolves relative patch paths against the workdir). */
  readonly path: string;
  /** `add`, `update` or `delete`, as printed. */
  readonly kind: string;
  /** The item's latest status: `in_progress`, `completed`, `failed`, … */
  readonly status: string;
}

export interface CodexTodo {
  readonly text: string;
  readonly completed: boolean;
}

/** What the items showed (the item part of `CodexActivity`). */
export interface CodexItemActivity {
  /** The last completed `agent_message`'s text; null when there was none. */
  readonly reply: string | null;
  /** Present only when `reply` was cut to its first and last 4 MiB: the bytes dropped between them. */
  readonly replyDroppedBytes?: number;
  readonly agentMessages: number;
  /** `command_execution` items in first-seen order; `commands.length` is the count. */
  readonly commands: readonly CodexCommand[];
  readonly fileChanges: readonly CodexFileChange[];
  /** Paths of `fileChanges` whose item did not end `failed`/`declined`, first-seen order, deduplicated. */
  readonly writtenPaths: readonly string[];
  /** The latest `todo_list`; null when the model never made a plan. */
  readonly todos: readonly CodexTodo[] | null;
  /** `item.completed` items of type `error` (non-fatal warnings), in order. */
  readonly warnings: readonly string[];
}

const NOT_WRITTEN = new Set(["failed", "declined"]);

interface FileChangeItem {
  readonly changes: readonly { readonly path: string; readonly kind: string }[];
  readonly status: string;
}

/** The item tracker of one call's stream. */
export class CodexItems {
  private reply: { readonly text: string; readonly droppedBytes: number } | null = null;
  private agentMessages = 0;
  private todos: CodexTodo[] | null = null;
  private readonly commands = new BoundedMap<string, CodexCommand>();
  private readonly fileChanges = new BoundedMap<string, FileChangeItem>();
  /** Changes kept over all file-change items (at most `MAX_TRACKED`). */
  private changesKept = 0;
  private readonly warnings = new RecentList<string>();

  /**
   * One item in its state now (`completed`: from `item.completed`). `replyDroppedBytes`: what the line's
   * bounds cut from the item's `text` (path `/item/text`).
   */
  read(item: Json, completed: boolean, replyDroppedBytes: number): void {
    const id = stringOrNull(item.id) ?? `(no id ${this.commands.size + this.fileChanges.size})`;
    const status = stringOrNull(item.status) ?? (completed ? "completed" : "in_progress");
    switch (item.type) {
      case "agent_message":
        if (completed && typeof item.text === "string") {
          this.reply = { text: item.text, droppedBytes: replyDroppedBytes };
          this.agentMessages++;
        }
        return;
      case "command_execution":
        this.commands.set(id, {
          id,
          command: recordText(stringOrNull(item.command) ?? ""),
          exitCode: typeof item.exit_code === "number" ? item.exit_code : null,
          status,
        });
        return;
      case "file_change":
        this.readFileChange(id, item, status);
        return;
      case "todo_list":
        if (Array.isArray(item.items)) {
          this.todos = item.items
            .filter(isRecord)
            .slice(0, MAX_TRACKED)
            .map((todo) => ({
              text: recordText(stringOrNull(todo.text) ?? ""),
              completed: todo.completed === true,
            }));
        }
        return;
      case "error":
        if (completed) this.warnings.push(recordText(stringOrNull(item.message) ?? JSON.stringify(item)));
        return;
      default:
        return; // reasoning, mcp_tool_call, web_search: nothing the engine needs
    }
  }

  activity(): CodexItemActivity {
    const changes: CodexFileChange[] = [];
    const written = new Set<string>();
    for (const { changes: list, status } of this.fileChanges.values()) {
      for (const change of list) {
        changes.push({ ...change, status });
        if (!NOT_WRITTEN.has(status)) written.add(change.path);
      }
    }
    return {
      reply: this.reply?.text ?? null,
      ...(this.reply !== null && this.reply.droppedBytes > 0
        ? { replyDroppedBytes: this.reply.droppedBytes }
        : {}),
      agentMessages: this.agentMessages,
      commands: [...this.commands.values()],
      fileChanges: changes,
      writtenPaths: [...written],
      todos: this.todos,
      warnings: this.warnings.toArray(),
    };
  }

  private readFileChange(id: string, item: Json, status: string): void {
    const earlier = this.fileChanges.get(id)?.changes.length ?? 0;
    const room = MAX_TRACKED - (this.changesKept - earlier);
    const changes = Array.isArray(item.changes)
      ? item.changes
          .filter(isRecord)
          .filter((change) => typeof change.path === "string" && change.path !== "")
          .slice(0, room)
          .map((change) => ({ path: change.path as string, kind: stringOrNull(change.kind) ?? "unknown" }))
      : [];
    if (this.fileChanges.set(id, { changes, status })) this.changesKept += changes.length - earlier;
  }
}
