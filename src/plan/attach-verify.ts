/**
 * Attaching the operator's verify command to a validated plan (SPEC §5; seed 003).
 *
 * Trusted code, never the planner, puts `success_check.verify` on every non-gate sink — a node no other
 * node depends on — so the engine itself runs the build after the plan's final work and judges the exit
 * code. Interior nodes get nothing: one command on every node would be the run's one piece of evidence
 * sampled many times, and would call a node `verified` for work it was not asked to do.
 *
 * With `repair-attempts: N` (N > 0; SPEC §7, issue 13 item 5) the command becomes each sink's completion
 * gate instead (`completion: {verify: {command, timeout}, max_attempts: N + 1}`): a red build is fed back
 * into the sink's own session up to N times before the sink fails `incomplete`.
 */
import { formatDuration } from "../graph/duration.js";
import type { PlannedSpec } from "./planned-rules.js";

export interface AttachVerifyOptions {
  /** The verify timeout (input `verify-timeout`), in milliseconds; written as a Go duration. */
  readonly timeoutMs: number;
  /**
   * Input `repair-attempts` / `--repair-attempts`: how many times a failing build is fed back to a sink
   * (an integer ≥ 0; default 0 = off: the command is the sink's `success_check.verify`).
   */
  readonly repairAttempts?: number;
}

/** Ids no other node lists in `depends_on`, in node order. */
export function sinkIds(spec: Pick<PlannedSpec, "nodes">): string[] {
  const depended = new Set(spec.nodes.flatMap((node) => node.depends_on ?? []));
  return spec.nodes.filter((node) => !depended.has(node.id)).map((node) => node.id);
}

/**
 * Mutates `spec` in place: every non-gate sink gets `success_check.verify = {command, timeout}` (its
 * other `success_check` fields are kept), or with `repairAttempts` > 0 the completion gate of that command.
 * Returns the ids it attached to, in node order.
 *
 * Throws (a broken invariant, not a user error) on an empty command, a non-positive timeout, or a sink
 * that already carries a verify: the planned-spec validator refuses a planner-written one, so a second
 * attach means trusted code ran twice. Also throws on a `repairAttempts` that is not an integer ≥ 0.
 */
export function attachVerifyCommand(
  spec: PlannedSpec,
  command: string,
  options: AttachVerifyOptions,
): string[] {
  if (command.trim().length === 0) {
    throw new Error(
      "Internal error: an empty verify command would pass every time; it must be refused earlier",
    );
  }
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs < 1) {
    throw new Error(`Internal error: verify timeout must be at least 1 ms, got ${options.timeoutMs}`);
  }
  const repairs = options.repairAttempts ?? 0;
  if (!Number.isInteger(repairs) || repairs < 0) {
    throw new Error(`Internal error: repair attempts must be an integer >= 0, got ${repairs}`);
  }
  const timeout = formatDuration(options.timeoutMs);
  const sinks = new Set(sinkIds(spec));
  const attached: string[] = [];
  for (const node of spec.nodes) {
    if (!sinks.has(node.id) || (node as { type?: unknown }).type === "gate") continue;
    if (node.success_check?.verify !== undefined || node.completion !== undefined) {
      throw new Error(`Internal error: node ${JSON.stringify(node.id)} already carries a verify command`);
    }
    if (repairs > 0) node.completion = { verify: { command, timeout }, max_attempts: repairs + 1 };
    else node.success_check = { ...node.success_check, verify: { command, timeout } };
    attached.push(node.id);
  }
  return attached;
}
