/**
 * Which check decides a node's PASS, as `lint`, the plan section and the build-evidence line read it
 * (SPEC §5–§7). An engine-run check is a command the engine itself runs: `success_check.verify`, or a
 * completion gate whose `verify` is a command (SPEC §7: a PASS through it is `PASS (verified)` with the
 * command's evidence). A `todos: all_done` gate is not one: it reads the plan the model declared about its
 * own work (seed 002, ADR 0018 Q1: a structural check; its PASS is `self-reported`).
 */
import type { GraphNode } from "./graph.js";

/**
 * The command the engine runs to decide the node: `success_check.verify.command` when it has one (it runs
 * first, and the completion gate runs only after it passed), else its completion command, else `null`.
 */
export function engineRunCommandOf(node: GraphNode): string | null {
  if (node.success_check.verify !== null) return node.success_check.verify.command;
  return node.completion?.verify.kind === "command" ? node.completion.verify.command : null;
}

/** Whether a command the engine runs decides the node's PASS ({@link engineRunCommandOf} is not null). */
export function hasEngineRunCheck(node: GraphNode): boolean {
  return engineRunCommandOf(node) !== null;
}

/** `true` when the node's completion gate is `todos: all_done` (the model's own plan decides it). */
export function hasTodosGate(node: GraphNode): boolean {
  return node.completion?.verify.kind === "todos_all_done";
}
