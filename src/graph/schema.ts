/**
 * The graph file's shape (SPEC §3), compatible with the Go CLI's YAML so existing graphs load unchanged.
 *
 * These schemas judge **shape** only: types, closed sets that are part of the shape (`type`, `handoff`,
 * `permission_mode`, `on_fail`) and unknown fields (every object is strict; an unknown field is an error
 * naming it). Value rules — durations, patterns, counts, ranges, retry causes, references between nodes —
 * live in `validate.ts`, so one pass can report all of them with reasons written for graph authors.
 *
 * The parsed {@link GraphSpec} keeps the YAML's snake_case field names and records only what was written:
 * absent fields stay absent (the planner's rules ask what a node *carries*), and defaults are applied
 * when the validated spec becomes a `Graph` (`graph.ts`), from {@link GRAPH_DEFAULTS}. Two normalisations
 * happen here: `type: claude-run` (the Go spelling) becomes `agent`, and a numeric `version` becomes a
 * string.
 *
 * `use:` and `with:` (fragment citations) are not node fields: they are spliced away before this schema
 * judges a graph file (`resolve-fragments.ts`), so data that still carries them — a planner's reply, a
 * graph loaded without its fragments — is refused here as unknown fields.
 */
import { z } from "zod";

/** Permission modes a node may request (SPEC §3). Closed set. */
export const PERMISSION_MODES = [
  "acceptEdits",
  "auto",
  "bypassPermissions",
  "dontAsk",
  "manual",
  "plan",
] as const;
/** One of {@link PERMISSION_MODES}. */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Failure causes `retry.on` may list (SPEC §3; Go `graph.Cause*` plus `timeout`). Closed set. */
export const RETRY_CAUSES = [
  "nonzero_exit",
  "run_error",
  "timeout",
  "output_error",
  "budget_exceeded",
  "verify_failed",
  "result_mismatch",
] as const;
/** One of {@link RETRY_CAUSES}. */
export type RetryCause = (typeof RETRY_CAUSES)[number];

/** `agent` spawns a CLI; `gate` waits for a person and spawns nothing (SPEC §1). */
export type NodeType = "agent" | "gate";
/** How a node receives its parent's work (SPEC §3). */
export type Handoff = "artifact" | "session";
/** What the run does after a node fails for good (SPEC §3, §4). */
export type OnFail = "halt" | "continue";

/**
 * Defaults applied when a validated spec becomes a `Graph` (SPEC §3). Durations are milliseconds.
 * `concurrencyCap` is the largest `concurrency` a graph may declare; `verifyTimeoutCeilingMs` is the
 * default ceiling on `success_check.verify.timeout` (configurable per load).
 */
export const GRAPH_DEFAULTS = {
  concurrency: 4,
  concurrencyCap: 10,
  onFail: "halt",
  type: "agent",
  handoff: "artifact",
  permissionMode: "dontAsk",
  nodeTimeoutMs: 20 * 60_000,
  verifyTimeoutMs: 2 * 60_000,
  verifyTimeoutCeilingMs: 10 * 60_000,
  expectExit: 0,
} as const satisfies {
  concurrency: number;
  concurrencyCap: number;
  onFail: OnFail;
  type: NodeType;
  handoff: Handoff;
  permissionMode: PermissionMode;
  nodeTimeoutMs: number;
  verifyTimeoutMs: number;
  verifyTimeoutCeilingMs: number;
  expectExit: number;
};

// A duration is a Go duration string; a bare YAML number (`timeout: 90`) is kept as text so validation
// can say "missing unit" instead of a type error.
const durationText = z.union([z.string(), z.number()]).transform((value) => String(value));

/** `success_check.verify`: a shell command the engine runs and judges by exit code (SPEC §3, §5). */
export const VerifySpecSchema = z.strictObject({
  command: z.string().optional(),
  cwd: z.string().optional(),
  timeout: durationText.optional(),
  expect_exit: z.number().int().optional(),
  output_matches: z.string().optional(),
});

/** `success_check`: all configured predicates must pass (SPEC §3, §4). */
export const SuccessCheckSpecSchema = z.strictObject({
  exit_zero: z.boolean().optional(),
  result_matches: z.string().optional(),
  verify: VerifySpecSchema.optional(),
});

/** `retry`: up to `max` more attempts when the failure cause is listed in `on` (SPEC §3, §4). */
export const RetrySpecSchema = z.strictObject({
  max: z.number().int().optional(),
  on: z.array(z.string()).optional(),
});

/** `feedback`: a bounded re-run arc back to the ancestor `rerun` (SPEC §3; Go ADR 0010). */
export const FeedbackSpecSchema = z.strictObject({
  rerun: z.string().optional(),
  max: z.number().int().optional(),
});

/**
 * `completion.verify`: exactly one of a command (with its own `timeout` and `expect_exit`, like
 * `success_check.verify`) or `todos: all_done` (with `require_plan`: no declared plan fails) (SPEC §7).
 */
export const CompletionVerifySpecSchema = z.strictObject({
  command: z.string().optional(),
  timeout: durationText.optional(),
  expect_exit: z.number().int().optional(),
  todos: z.string().optional(),
  require_plan: z.boolean().optional(),
});

/** `completion`: the same-session completion gate (SPEC §7; `completion-gate.ts` runs it). */
export const CompletionSpecSchema = z.strictObject({
  verify: CompletionVerifySpecSchema.optional(),
  max_attempts: z.number().int().optional(),
});

/** One node as written (SPEC §3). `type: claude-run` is read as `agent`. */
export const NodeSpecSchema = z.strictObject({
  id: z.string(),
  type: z
    .enum(["agent", "claude-run", "gate"])
    .transform((type): NodeType => (type === "gate" ? "gate" : "agent"))
    .optional(),
  depends_on: z.array(z.string()).optional(),
  prompt: z.string().optional(),
  cwd: z.string().optional(),
  allowed_tools: z.array(z.string()).optional(),
  permission_mode: z.enum(PERMISSION_MODES).optional(),
  timeout: durationText.optional(),
  budget_usd: z.number().optional(),
  handoff: z.enum(["artifact", "session"]).optional(),
  success_check: SuccessCheckSpecSchema.optional(),
  retry: RetrySpecSchema.optional(),
  feedback: FeedbackSpecSchema.optional(),
  completion: CompletionSpecSchema.optional(),
  /** A Claude Code subagent to run the node as (`claude --agent NAME`); claude runtime only. */
  agent: z.string().optional(),
  /** A managed git worktree the node runs in, shared by every node naming it; exclusive with `cwd`. */
  worktree: z.string().optional(),
  /** What a person reads when deciding a gate; gates only. */
  description: z.string().optional(),
});

/** A whole graph file as written (SPEC §3). `version` may be written as a number; it is kept as text. */
export const GraphSpecSchema = z.strictObject({
  name: z.string().optional(),
  version: z
    .union([z.string(), z.number()])
    .transform((value) => String(value))
    .optional(),
  inputs: z.array(z.string()).optional(),
  concurrency: z.number().int().optional(),
  on_fail: z.enum(["halt", "continue"]).optional(),
  nodes: z.array(NodeSpecSchema).optional(),
});

/** A parsed graph file: snake_case fields as in YAML, absent fields absent. */
export type GraphSpec = z.output<typeof GraphSpecSchema>;
/** A parsed node. */
export type NodeSpec = z.output<typeof NodeSpecSchema>;
/** A parsed `success_check`. */
export type SuccessCheckSpec = z.output<typeof SuccessCheckSpecSchema>;
/** A parsed `success_check.verify`. */
export type VerifySpec = z.output<typeof VerifySpecSchema>;
/** A parsed `retry`. */
export type RetrySpec = z.output<typeof RetrySpecSchema>;
/** A parsed `feedback`. */
export type FeedbackSpec = z.output<typeof FeedbackSpecSchema>;
/** A parsed `completion`. */
export type CompletionSpec = z.output<typeof CompletionSpecSchema>;

/**
 * The fields each object in a graph file may carry, keyed by where the object sits relative to its node
 * (`""` = the node itself) or, under {@link GRAPH_FIELDS}, the top level. Used to list the known fields
 * when an unknown one is refused.
 */
export const NODE_OBJECT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "": Object.keys(NodeSpecSchema.shape),
  success_check: Object.keys(SuccessCheckSpecSchema.shape),
  "success_check.verify": Object.keys(VerifySpecSchema.shape),
  retry: Object.keys(RetrySpecSchema.shape),
  feedback: Object.keys(FeedbackSpecSchema.shape),
  completion: Object.keys(CompletionSpecSchema.shape),
  "completion.verify": Object.keys(CompletionVerifySpecSchema.shape),
};

/** The top-level fields of a graph file. */
export const GRAPH_FIELDS: readonly string[] = Object.keys(GraphSpecSchema.shape);
