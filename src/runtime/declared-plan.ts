/**
 * The plan an agent declared during one model call (SPEC §7, `todos: all_done`), runtime-neutral: claude's
 * `TodoWrite` items (`pending` / `in_progress` / `completed`) and codex's `todo_list` items (`completed:
 * true/false`) both become {@link PlanItem}s, of which only `done` ones are closed. The agent turn
 * (`claude-turn.ts`, `codex-turn.ts`) reads it from the stream; the engine's completion gate judges it.
 */
import { clip } from "../core/clip.js";

/** One item of a plan the agent declared, runtime-neutral. */
export interface PlanItem {
  readonly text: string;
  readonly done: boolean;
}

/**
 * A declared plan as the gate keeps it: the first {@link PLAN_ITEMS_KEPT} items (texts at
 * {@link PLAN_TEXT_CHARS} characters), and how many items there were and how many were open, counted over
 * all of them — so a kept plan judges the same as the whole one.
 */
export interface DeclaredPlan {
  readonly items: readonly PlanItem[];
  readonly total: number;
  readonly open: number;
}

/** Items of a plan kept (and persisted); the counts cover every item. */
export const PLAN_ITEMS_KEPT = 200;
/** Characters of an item's text kept. */
export const PLAN_TEXT_CHARS = 300;

/** The plan of `items` (each already judged open or done). */
export function declaredPlan(items: readonly PlanItem[]): DeclaredPlan {
  return {
    items: items
      .slice(0, PLAN_ITEMS_KEPT)
      .map((item) => ({ text: clip(item.text, PLAN_TEXT_CHARS), done: item.done })),
    total: items.length,
    open: items.filter((item) => !item.done).length,
  };
}

/** The claude `TodoWrite` plan: only `completed` closes an item. */
export function planOfClaudeTodos(
  todos: readonly { readonly text: string; readonly status: string }[] | null,
): DeclaredPlan | null {
  return todos === null
    ? null
    : declaredPlan(todos.map((todo) => ({ text: todo.text, done: todo.status === "completed" })));
}

/** The codex `todo_list` plan: `completed: true` closes an item. */
export function planOfCodexTodos(
  todos: readonly { readonly text: string; readonly completed: boolean }[] | null,
): DeclaredPlan | null {
  return todos === null
    ? null
    : declaredPlan(todos.map((todo) => ({ text: todo.text, done: todo.completed })));
}
