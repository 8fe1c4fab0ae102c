/**
 * What a planned graph may contain (SPEC §8; research/oh-my-graph.md §2.2, §3.4).
 *
 * A plan is untrusted input: the planner read fenced PR text and may have been steered by it. The rules
 * below accept only the fields a planned node is allowed to carry and refuse everything else with a
 * reason a planner can act on. Every refusal is collected — graph-level first, then each node in order,
 * then the graph module's structural findings (unknown dependencies, cycles, bad patterns and durations)
 * — because the one repair call quotes them all.
 *
 * A planned node carries exactly: `id`, `depends_on`, `prompt`, `allowed_tools` (non-empty, each entry on
 * the allowlist), `handoff: artifact`, `timeout`, `success_check.exit_zero`, `success_check.result_matches`,
 * `retry` and `feedback` — each at most {@link MAX_PLANNED_REPEATS} (SPEC §8; Go `validatePlannedNodes`:
 * a `verify_failed` retry is the one lever a plan has on how often the operator's verify command runs) —
 * a feedback arc's body must quote `{{ feedback.DECLARER }}` in a prompt (Go
 * `validatePlannedFeedbackQuoting`: a blind arc repeats the same prompts at the operator's expense), and
 * must re-run every producer its declarer fans in from when some rerun target would (Go
 * `validatePlannedFeedbackReach`).
 * The verify command, a working directory, a gate, a permission mode, a subagent and a budget come only
 * from trusted code or not at all. Completion and session handoff wait until planned nodes support them.
 */
import type { Graph } from "../graph/graph.js";
import type { GraphIssue } from "../graph/issue.js";
// `null` mapping values are absent fields, as the graph module reads them (YAML's empty values).
import { feedbackReach } from "../graph/lint-arcs.js";
import { arcQuotesItsPayload } from "../graph/lint-rules.js";
import { loadGraphObject } from "../graph/load.js";
import { isRecord, withoutNulls } from "../graph/plain-data.js";
import { unscopedGrantReason } from "../policy/allowlist.js";

/** The most nodes a plan may have; the planner prompt asks for 1 to this many. */
export const MAX_PLANNED_NODES = 6;

/** The largest `retry.max` and `feedback.max` a planned node may carry (SPEC §8; the Go CLI's cap). */
export const MAX_PLANNED_REPEATS = 3;

/** A planned node after validation: only the fields a plan may carry, plus `verify` from trusted code. */
export type PlannedNode = {
  id: string;
  depends_on?: string[];
  prompt: string;
  allowed_tools: string[];
  handoff?: "artifact";
  timeout?: string;
  /** Retries of a failed attempt: `max` ≤ {@link MAX_PLANNED_REPEATS}, `on` the causes (graph module's set). */
  retry?: { max: number; on: string[] };
  /** A bounded re-run arc: `rerun` an ancestor, `max` ≤ {@link MAX_PLANNED_REPEATS}. */
  feedback?: { rerun: string; max: number };
  success_check?: {
    exit_zero?: boolean;
    result_matches?: string;
    /** Written only by `attachVerifyCommand`, never accepted from a plan. */
    verify?: { command: string; timeout: string };
  };
  /**
   * Written only by `attachVerifyCommand` under `repair-attempts` N > 0 (SPEC §7): the verify command as the
   * sink's completion gate, `max_attempts` N + 1. Never accepted from a plan.
   */
  completion?: { verify: { command: string; timeout: string }; max_attempts: number };
};

/** A validated plan, as plain JSON data (`graph.json` of the run). `version` is always `"1"`. */
export type PlannedSpec = {
  name?: string;
  version: "1";
  nodes: PlannedNode[];
};

export interface PlannedSpecOptions {
  /** The planned-node allowlist in force (default, or extended by the base-branch policy file). */
  readonly allowlist: readonly string[];
}

export type PlannedSpecResult =
  | { readonly ok: true; readonly spec: PlannedSpec }
  | { readonly ok: false; readonly refusals: string[] };

const PLAN_FIELDS = ["name", "version", "nodes"] as const;
const NODE_FIELDS = [
  "id",
  "depends_on",
  "prompt",
  "allowed_tools",
  "handoff",
  "timeout",
  "success_check",
  "retry",
  "feedback",
] as const;
const CHECK_FIELDS = ["exit_zero", "result_matches"] as const;

/** The reason a planner-written verify command is refused. */
export const VERIFY_REFUSAL =
  "a planned node never carries a shell command — the engine attaches the operator's verify command itself";

const NOT_YET = "not yet supported for planned nodes";

/** Top-level fields a plan may not set, with the reason. */
const REFUSED_PLAN_FIELDS: Readonly<Record<string, string>> = {
  inputs: "the operator names inputs at launch; a plan only uses them as {{ inputs.NAME }}",
  concurrency: "the operator sets concurrency at launch, not the plan",
  on_fail: "whether a failure halts the run is the operator's decision, not the plan's",
};

/** Node fields a planned node may not carry, with the reason. `type` and `permission_mode` depend on the value. */
const REFUSED_NODE_FIELDS: Readonly<Record<string, string>> = {
  cwd: "a planned node always runs in the run's working directory; leave cwd out",
  agent: "a plan never chooses a subagent definition for a node it wrote",
  budget_usd: "planned nodes carry no budget; a timeout is their hang guard",
  completion: `${NOT_YET}; the operator's repair-attempts input gives the sinks a completion gate`,
  worktree:
    "managed worktrees are for hand-written graphs (their creation is not a tool call, so no ceiling sees it); " +
    "a planned node always runs in the run's working tree",
  use: "fragments are for hand-written graphs, spliced when the graph file is loaded; a plan spells every node out",
  with: "fragments are for hand-written graphs, spliced when the graph file is loaded; a plan spells every node out",
  description: "description is what a person reads when deciding a gate, and a planned node is never a gate",
};

/** Planner-chosen text quoted in a refusal: JSON-quoted (no raw newlines or quotes) and bounded. */
function quote(value: unknown): string {
  const text = typeof value === "string" ? value : String(JSON.stringify(value));
  const cps = Array.from(text);
  return JSON.stringify(cps.length > 80 ? `${cps.slice(0, 80).join("")}…` : text);
}

function has(record: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(record, key);
}

function planLevelRefusals(plan: Record<string, unknown>): string[] {
  const refusals: string[] = [];
  for (const key of Object.keys(plan)) {
    if ((PLAN_FIELDS as readonly string[]).includes(key)) continue;
    const reason = Object.hasOwn(REFUSED_PLAN_FIELDS, key) ? REFUSED_PLAN_FIELDS[key] : undefined;
    refusals.push(
      reason !== undefined
        ? `${key}: ${reason}`
        : `${quote(key)} is not a plan field (a plan has only ${PLAN_FIELDS.join(", ")})`,
    );
  }
  if (has(plan, "name") && (typeof plan.name !== "string" || plan.name.trim() === "")) {
    refusals.push("name must be a non-empty string");
  }
  if (has(plan, "version") && plan.version !== "1" && plan.version !== 1) {
    refusals.push(`version must be "1", not ${quote(plan.version)}`);
  }
  if (!has(plan, "nodes") || (Array.isArray(plan.nodes) && plan.nodes.length === 0)) {
    refusals.push("the plan has no nodes");
  } else if (!Array.isArray(plan.nodes)) {
    refusals.push("nodes must be a list of node objects");
  } else if (plan.nodes.length > MAX_PLANNED_NODES) {
    refusals.push(`the plan has ${plan.nodes.length} nodes; a plan has at most ${MAX_PLANNED_NODES}`);
  }
  return refusals;
}

function fieldRefusal(key: string, value: unknown): string | undefined {
  if ((NODE_FIELDS as readonly string[]).includes(key)) return undefined;
  if (key === "type") {
    return value === "gate"
      ? "type gate: auto mode never pauses for a person, so a planned node cannot be a gate"
      : `type ${quote(value)}: planned nodes are always agent nodes; leave type out`;
  }
  if (key === "permission_mode") {
    return value === "bypassPermissions"
      ? "permission_mode bypassPermissions is never granted to a planned node"
      : `permission_mode ${quote(value)}: the engine sets a planned node's permission mode; leave it out`;
  }
  const reason = Object.hasOwn(REFUSED_NODE_FIELDS, key) ? REFUSED_NODE_FIELDS[key] : undefined;
  if (reason !== undefined) return `${key}: ${reason}`;
  return `${quote(key)} is not a planned-node field (a planned node has only ${NODE_FIELDS.join(", ")})`;
}

function successCheckRefusals(check: unknown): string[] {
  if (!isRecord(check)) return ["success_check must be an object"];
  const refusals: string[] = [];
  for (const key of Object.keys(check)) {
    if ((CHECK_FIELDS as readonly string[]).includes(key)) continue;
    refusals.push(
      key === "verify"
        ? `success_check.verify: ${VERIFY_REFUSAL}`
        : `success_check.${quote(key)} is not allowed (a planned success_check has only ${CHECK_FIELDS.join(", ")})`,
    );
  }
  return refusals;
}

function toolRefusals(tools: unknown, allowlist: readonly string[]): string[] {
  if (tools === undefined) {
    return ["allowed_tools is missing; every planned node needs an explicit least-privilege tool list"];
  }
  if (!Array.isArray(tools) || tools.length === 0) {
    return [
      "allowed_tools must be a non-empty list; every planned node needs an explicit least-privilege tool list",
    ];
  }
  const refusals: string[] = [];
  const list = allowlist.join(", ");
  for (const tool of tools) {
    if (typeof tool !== "string") {
      refusals.push(`allowed_tools entry ${quote(tool)} is not a tool name`);
      continue;
    }
    if (allowlist.includes(tool)) continue;
    const why = unscopedGrantReason(tool);
    refusals.push(
      `tool ${quote(tool)} is not on the planned-node allowlist (${list})${why === undefined ? "" : `: ${why}`}`,
    );
  }
  return refusals;
}

interface NodeReview {
  readonly refusals: string[];
  /**
   * The node reduced to the fields a plan may carry, minus any field a rule above already refused, for
   * the graph module's structural checks — so each problem is reported once. `null` when the node cannot
   * take part at all (not an object, or no usable id).
   */
  readonly projected: Record<string, unknown> | null;
  /** The id, when it was refused for containing "/" (the graph module's unsafe-id finding is then a repeat). */
  readonly slashId: string | null;
}

function reviewNode(node: unknown, index: number, allowlist: readonly string[]): NodeReview {
  if (!isRecord(node)) {
    return { refusals: [`nodes[${index}] must be an object`], projected: null, slashId: null };
  }
  const hasId = typeof node.id === "string" && node.id.trim() !== "";
  const where = hasId ? `node ${quote(node.id)}` : `nodes[${index}]`;
  const refusals: string[] = [];
  let slashId: string | null = null;
  if (!hasId) {
    refusals.push("id must be a non-empty string");
  } else if ((node.id as string).includes("/")) {
    refusals.push('an id cannot contain "/" (it is reserved for ids minted by fragment splicing)');
    slashId = node.id as string;
  }
  for (const [key, value] of Object.entries(node)) {
    const refusal = fieldRefusal(key, value);
    if (refusal !== undefined) refusals.push(refusal);
  }
  const promptOk = typeof node.prompt === "string" && node.prompt.trim() !== "";
  if (!promptOk) refusals.push("prompt is empty; a planned node needs a self-contained prompt");
  const tools = toolRefusals(node.allowed_tools, allowlist);
  refusals.push(...tools);
  const handoffOk = !has(node, "handoff") || node.handoff === "artifact";
  if (!handoffOk) {
    refusals.push(
      node.handoff === "session"
        ? `handoff session: ${NOT_YET}; hand work over as an artifact with {{ artifacts.ID }}`
        : `handoff ${quote(node.handoff)} is not allowed; a planned node hands off by artifact`,
    );
  }
  const checkRefusals = has(node, "success_check") ? successCheckRefusals(node.success_check) : [];
  refusals.push(...checkRefusals);
  for (const field of ["retry", "feedback"] as const) {
    const refusal = has(node, field) ? repeatRefusal(field, node[field]) : undefined;
    if (refusal !== undefined) refusals.push(refusal);
  }

  let projected: Record<string, unknown> | null = null;
  if (hasId) {
    projected = { id: node.id, prompt: promptOk ? node.prompt : "(refused above)" };
    if (has(node, "depends_on")) projected.depends_on = node.depends_on;
    if (has(node, "timeout")) projected.timeout = node.timeout;
    if (has(node, "handoff") && handoffOk) projected.handoff = node.handoff;
    // Over the cap is refused above, but the arc still stands for the structural checks (its tokens).
    if (isRecord(node.retry)) projected.retry = node.retry;
    if (isRecord(node.feedback)) projected.feedback = node.feedback;
    if (tools.length === 0) projected.allowed_tools = node.allowed_tools;
    if (isRecord(node.success_check)) {
      const check = node.success_check;
      const kept: Record<string, unknown> = {};
      for (const field of CHECK_FIELDS) if (has(check, field)) kept[field] = check[field];
      projected.success_check = kept;
    }
  }
  return { refusals: refusals.map((reason) => `${where}: ${reason}`), projected, slashId };
}

/** Why a planned `retry` or `feedback` is refused: not a mapping, or `max` above the cap. */
function repeatRefusal(field: "retry" | "feedback", value: unknown): string | undefined {
  if (!isRecord(value)) return `${field} must be an object`;
  const max = value.max;
  if (typeof max === "number" && max > MAX_PLANNED_REPEATS) {
    return (
      `${field}.max ${max} is over ${MAX_PLANNED_REPEATS}, the most a plan may ask for ` +
      `(${field === "retry" ? "each retry" : "each round"} is paid for and may run the operator's verify command again)`
    );
  }
  return undefined;
}

/**
 * Feedback arcs that cannot re-run a producer their declarer judges, refused when a covering rerun target
 * exists (Go `validatePlannedFeedbackReach`: a plan has no author to weigh the advisory, and the fix is
 * one edit the repair call can make). Without a covering target the shape stays lint's advice.
 */
function reachRefusals(graph: Graph): string[] {
  return feedbackReach(graph)
    .filter((found) => found.suggestion !== null)
    .map(
      (found) =>
        `node ${quote(found.declarer)}: its feedback arc re-runs ${quote(found.rerun)} but not producer ` +
        `${quote(found.producer)}, so a defect found there could never be repaired; use rerun ` +
        `${quote(found.suggestion)}, whose body covers every producer it depends on`,
    );
}

/**
 * Feedback arcs whose body never quotes `{{ feedback.DECLARER }}` in a prompt, as one refusal (Go
 * `validatePlannedFeedbackQuoting`); `[]` when every arc quotes its payload.
 */
function blindArcRefusals(graph: Graph): string[] {
  const blind = graph.nodes.filter((d) => d.feedback !== null && !arcQuotesItsPayload(graph, d));
  if (blind.length === 0) return [];
  const arcs = blind.map((d) => `${quote(d.id)} (rerun ${quote(d.feedback?.rerun)})`).join(", ");
  return [
    `the feedback arc of ${arcs} never quotes its payload: a round would repeat the same prompts; put ` +
      `${blind.map((d) => `{{ feedback.${d.id} }}`).join(", ")} in the prompt of the rerun target`,
  ];
}

function formatGraphIssue(issue: GraphIssue): string {
  return issue.nodeId === null ? issue.reason : `node ${quote(issue.nodeId)}: ${issue.reason}`;
}

/** The graph module's findings about the projected plan, minus repeats of a "/" refusal already given. */
function structuralRefusals(projected: Record<string, unknown>[], slashIds: ReadonlySet<string>): string[] {
  const loaded = loadGraphObject({ version: "1", nodes: projected }, "planner reply");
  if (loaded.ok) return [...reachRefusals(loaded.graph), ...blindArcRefusals(loaded.graph)];
  return loaded.issues
    .filter(
      (issue) =>
        !(issue.nodeId !== null && slashIds.has(issue.nodeId) && issue.reason.startsWith("node id ")),
    )
    .map(formatGraphIssue);
}

/**
 * Validates an untrusted plan object. `{ok: true, spec}` holds only the allowed fields (a fresh object;
 * `version` normalised to `"1"`). `{ok: false, refusals}` lists every reason, deduplicated, graph-level
 * first, then per node, then the graph module's structural findings (unknown dependencies, cycles, bad
 * patterns, bad durations, placeholders naming non-ancestors). Never throws for bad input.
 */
export function validatePlannedSpec(value: unknown, options: PlannedSpecOptions): PlannedSpecResult {
  const obj = withoutNulls(value);
  if (!isRecord(obj)) return { ok: false, refusals: ["the plan must be one JSON object"] };
  const refusals = planLevelRefusals(obj);
  const nodes = Array.isArray(obj.nodes) ? (obj.nodes as unknown[]) : [];
  const reviews = nodes.map((node, index) => reviewNode(node, index, options.allowlist));
  for (const review of reviews) refusals.push(...review.refusals);
  const projected = reviews.flatMap((review) => (review.projected === null ? [] : [review.projected]));
  if (projected.length > 0) {
    const slashIds = new Set(reviews.flatMap((review) => (review.slashId === null ? [] : [review.slashId])));
    refusals.push(...structuralRefusals(projected, slashIds));
  }
  if (refusals.length > 0) return { ok: false, refusals: [...new Set(refusals)] };
  return { ok: true, spec: toSpec(obj, projected) };
}

/** The accepted plan as a typed spec; only called once every rule and the graph module accepted it. */
function toSpec(plan: Record<string, unknown>, projected: readonly Record<string, unknown>[]): PlannedSpec {
  const nodes = projected.map((node): PlannedNode => {
    const out: PlannedNode = {
      id: node.id as string,
      prompt: node.prompt as string,
      allowed_tools: [...(node.allowed_tools as string[])],
    };
    if (Array.isArray(node.depends_on)) out.depends_on = [...(node.depends_on as string[])];
    if (node.handoff === "artifact") out.handoff = "artifact";
    if (typeof node.timeout === "string") out.timeout = node.timeout;
    if (isRecord(node.retry)) {
      const { max, on } = node.retry;
      out.retry = { max: typeof max === "number" ? max : 0, on: Array.isArray(on) ? on.map(String) : [] };
    }
    if (isRecord(node.feedback)) {
      out.feedback = { rerun: String(node.feedback.rerun), max: Number(node.feedback.max) };
    }
    if (isRecord(node.success_check)) {
      const check: NonNullable<PlannedNode["success_check"]> = {};
      if (typeof node.success_check.exit_zero === "boolean") check.exit_zero = node.success_check.exit_zero;
      if (typeof node.success_check.result_matches === "string") {
        check.result_matches = node.success_check.result_matches;
      }
      out.success_check = check;
    }
    return out;
  });
  return {
    ...(typeof plan.name === "string" ? { name: plan.name } : {}),
    version: "1",
    nodes,
  };
}
