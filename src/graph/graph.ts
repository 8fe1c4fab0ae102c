/**
 * The loaded graph the engine runs (SPEC §3): a validated spec with every default applied, durations in
 * milliseconds, patterns compiled and the derived facts (sinks, feedback bodies) computed once.
 *
 * Field names follow the YAML (snake_case) so a graph reads the same in the file, in `graph.json` and in
 * code; derived and unit-converted fields say so in their names (`timeout_ms`, `body`). A `Graph` is only
 * ever built from a spec that passed `validateGraph`; `load.ts` is the way to get one.
 */
import { parseDuration } from "./duration.js";
import { compilePattern, type Pattern } from "./pattern.js";
import {
  GRAPH_DEFAULTS,
  type GraphSpec,
  type Handoff,
  type NodeSpec,
  type NodeType,
  type OnFail,
  type PermissionMode,
  type RetryCause,
} from "./schema.js";
import { feedbackBodyOf, sinksOf } from "./topology.js";

/** `success_check.verify` with defaults: timeout 2m, expect_exit 0, cwd `null` = the node's cwd. */
export interface VerifyCheck {
  readonly command: string;
  readonly cwd: string | null;
  readonly timeout_ms: number;
  readonly expect_exit: number;
  readonly output_matches: Pattern | null;
}

/**
 * `success_check` with defaults. All configured predicates must pass; none configured means exit zero is
 * enough (SPEC §3/§4 — the engine applies that reading; it is not folded into `exit_zero` here so the
 * ledger can still tell an exit-only pass from a declared one).
 */
export interface SuccessCheck {
  readonly exit_zero: boolean;
  readonly result_matches: Pattern | null;
  readonly verify: VerifyCheck | null;
}

/** `retry` with defaults: `{max: 0, on: []}` (never retry) when absent. Attempts = 1 + max. */
export interface RetryPolicy {
  readonly max: number;
  readonly on: readonly RetryCause[];
}

/**
 * A validated feedback arc. `body` is every node on a `depends_on` path from `rerun` to the declarer,
 * declarer included, in declaration order — what re-runs when the arc fires.
 */
export interface FeedbackArc {
  readonly rerun: string;
  readonly max: number;
  readonly body: readonly string[];
}

/**
 * The completion gate of a node (SPEC §7): a command to run (its timeout in ms, the exit it must give), or
 * "every todo item is done" (`require_plan`: a node that declared no plan fails). `max_attempts` ≥ 1.
 */
export interface CompletionGate {
  readonly verify:
    | {
        readonly kind: "command";
        readonly command: string;
        readonly timeout_ms: number;
        readonly expect_exit: number;
      }
    | { readonly kind: "todos_all_done"; readonly require_plan: boolean };
  readonly max_attempts: number;
}

/** One node with defaults applied. A gate's process fields hold their defaults and are never used. */
export interface GraphNode {
  readonly id: string;
  readonly type: NodeType;
  readonly depends_on: readonly string[];
  /** `""` for a gate. */
  readonly prompt: string;
  /** `null` (or an empty string in the file) = the run's working directory. */
  readonly cwd: string | null;
  readonly allowed_tools: readonly string[];
  readonly permission_mode: PermissionMode;
  readonly timeout_ms: number;
  readonly budget_usd: number | null;
  readonly handoff: Handoff;
  readonly success_check: SuccessCheck;
  readonly retry: RetryPolicy;
  readonly feedback: FeedbackArc | null;
  readonly completion: CompletionGate | null;
  /**
   * The Claude Code subagent the node runs as (`claude --agent NAME`), or `null` (an empty `agent:` in the
   * file is none). The codex runtime refuses a graph with one before anything runs.
   */
  readonly agent: string | null;
  /**
   * The managed git worktree the node runs in, shared by every node naming it, or `null` (the run's
   * working directory, or `cwd`). Exclusive with `cwd`. `run` refuses a graph with one in this version.
   */
  readonly worktree: string | null;
  /** A gate's description — what a person reads when deciding it — or `null`; always `null` off a gate. */
  readonly description: string | null;
}

/** A loaded, valid graph. `spec` is the parsed file (the form to snapshot as `graph.json`). */
export interface Graph {
  /** Where the graph came from, e.g. a file path or `"planner"`; for messages only. */
  readonly source: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly inputs: readonly string[];
  readonly concurrency: number;
  readonly on_fail: OnFail;
  readonly nodes: readonly GraphNode[];
  readonly nodes_by_id: ReadonlyMap<string, GraphNode>;
  /** Ids no node depends on, in declaration order (SPEC §1). */
  readonly sinks: readonly string[];
  readonly spec: GraphSpec;
}

/**
 * The attempts a node may make in all: `1 + retry.max` when `retry.on` lists a cause, else 1 — with an
 * empty `on` the node never retries whatever `max` says (docs/graph-format.md, Retries), and its rows must
 * not read "attempt 1/4".
 */
export function attemptsInAll(node: Pick<GraphNode, "retry">): number {
  return node.retry.on.length === 0 ? 1 : 1 + node.retry.max;
}

/**
 * Builds the runnable graph from a spec that `validateGraph` accepted.
 * @throws Error("Internal error: …") if the spec was not validated (a duration or pattern fails here).
 */
export function buildGraph(spec: GraphSpec, source: string): Graph {
  const specNodes = spec.nodes ?? [];
  const nodes = specNodes.map((node) => buildNode(node, specNodes));
  return {
    source,
    name: spec.name ?? null,
    version: spec.version ?? null,
    inputs: spec.inputs ?? [],
    concurrency: spec.concurrency ?? GRAPH_DEFAULTS.concurrency,
    on_fail: spec.on_fail ?? GRAPH_DEFAULTS.onFail,
    nodes,
    nodes_by_id: new Map(nodes.map((node) => [node.id, node] as const)),
    sinks: sinksOf(specNodes),
    spec,
  };
}

function buildNode(node: NodeSpec, all: readonly NodeSpec[]): GraphNode {
  const check = node.success_check;
  const verify = check?.verify;
  const arc = node.feedback;
  const completion = node.completion;
  return {
    id: node.id,
    type: node.type ?? GRAPH_DEFAULTS.type,
    depends_on: node.depends_on ?? [],
    prompt: node.prompt ?? "",
    cwd: node.cwd === undefined || node.cwd === "" ? null : node.cwd,
    allowed_tools: node.allowed_tools ?? [],
    permission_mode: node.permission_mode ?? GRAPH_DEFAULTS.permissionMode,
    timeout_ms: node.timeout === undefined ? GRAPH_DEFAULTS.nodeTimeoutMs : validMs(node.timeout),
    budget_usd: node.budget_usd ?? null,
    handoff: node.handoff ?? GRAPH_DEFAULTS.handoff,
    success_check: {
      exit_zero: check?.exit_zero ?? false,
      result_matches: check?.result_matches === undefined ? null : validPattern(check.result_matches),
      verify:
        verify === undefined
          ? null
          : {
              command: verify.command ?? "",
              cwd: verify.cwd === undefined || verify.cwd === "" ? null : verify.cwd,
              timeout_ms:
                verify.timeout === undefined ? GRAPH_DEFAULTS.verifyTimeoutMs : validMs(verify.timeout),
              expect_exit: verify.expect_exit ?? GRAPH_DEFAULTS.expectExit,
              output_matches:
                verify.output_matches === undefined ? null : validPattern(verify.output_matches),
            },
    },
    // Validation has proven every cause is in RETRY_CAUSES.
    retry: { max: node.retry?.max ?? 0, on: (node.retry?.on ?? []) as RetryCause[] },
    feedback:
      arc === undefined
        ? null
        : { rerun: arc.rerun ?? "", max: arc.max ?? 0, body: feedbackBodyOf(all, node.id) },
    completion:
      completion === undefined
        ? null
        : {
            verify:
              completion.verify?.command !== undefined
                ? {
                    kind: "command",
                    command: completion.verify.command,
                    timeout_ms:
                      completion.verify.timeout === undefined
                        ? GRAPH_DEFAULTS.verifyTimeoutMs
                        : validMs(completion.verify.timeout),
                    expect_exit: completion.verify.expect_exit ?? GRAPH_DEFAULTS.expectExit,
                  }
                : { kind: "todos_all_done", require_plan: completion.verify?.require_plan === true },
            max_attempts: completion.max_attempts ?? 0,
          },
    agent: emptyAsNull(node.agent),
    worktree: emptyAsNull(node.worktree),
    description: node.description ?? null,
  };
}

/** `""` (the Go CLI's "not set") and absence both as `null`. */
function emptyAsNull(text: string | undefined): string | null {
  return text === undefined || text === "" ? null : text;
}

function validMs(text: string): number {
  const parsed = parseDuration(text);
  if (!parsed.ok)
    throw new Error(`Internal error: unvalidated duration reached buildGraph: ${parsed.message}`);
  return parsed.ms;
}

function validPattern(source: string): Pattern {
  const compiled = compilePattern(source);
  if (!compiled.ok)
    throw new Error(`Internal error: unvalidated pattern reached buildGraph: ${compiled.message}`);
  return compiled.pattern;
}
