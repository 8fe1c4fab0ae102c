/**
 * The `lint` findings about what a graph will cost and what its run can conclude, and about text that is
 * sent as written though it was meant as a placeholder. See `lint.ts` for the list and its order.
 *
 * Each function reads a loaded {@link Graph} (defaults applied, feedback bodies computed) and returns the
 * reasons in the order they are reported; none throws.
 */
import type { Graph, GraphNode } from "./graph.js";
import { hasEngineRunCheck, hasTodosGate } from "./node-checks.js";
import { lookalikePlaceholdersIn, placeholdersIn } from "./placeholders.js";
import { type NodeSpec, RETRY_CAUSES } from "./schema.js";
import { ancestorsOf } from "./topology.js";
import { templatedFields } from "./validate-placeholders.js";

/** `retry.max` or `feedback.max` above this earns an advisory naming the worst-case executions. */
export const SPEND_ADVISORY_ABOVE = 10;

const NEUTRAL_AT_BEST =
  "so the run's conclusion can be neutral at best (failure under the policy file's require-evidence: true)";

/** A finding with its advisory kind (the kinds are listed in `lint.ts`). */
export interface KindedReason<K extends string> {
  readonly kind: K;
  readonly reason: string;
}

// ---- look-alike placeholders ---------------------------------------------------------------------------

/**
 * `{{ input.file }}`, `{{ nodes.a.output }}`, `{{ bogus }}`: text that reads like a placeholder in a
 * namespace that is none of the three, so the run sends it as written. Each distinct token is reported
 * once per field, with the placeholder it most likely meant when one can be told.
 */
export function lookalikeAdvice(graph: Graph, spec: NodeSpec): string[] {
  // Built only for a node that has a look-alike (linear in the graph per such node, not per node).
  let producers: Set<string> | undefined;
  const inputs = new Set(graph.inputs);
  const reasons: string[] = [];
  for (const [field, template] of templatedFields(spec)) {
    const seen = new Set<string>();
    for (const ref of lookalikePlaceholdersIn(template)) {
      if (seen.has(ref.token)) continue;
      seen.add(ref.token);
      const how = field === "prompt" ? "sent to the model" : "used";
      producers ??= new Set(
        graph.nodes.filter((n) => n.type !== "gate" && n.id !== spec.id).map((n) => n.id),
      );
      const meant = likelyMeant(ref.namespace, ref.path, ref.filter, producers, inputs);
      const hint =
        ref.namespace === "self"
          ? "the Go CLI's self namespace ({{ self.previous }}, {{ self.timeout }}) is not supported in this version"
          : meant === null
            ? "placeholders are {{ inputs.NAME }}, {{ artifacts.ID }}, {{ artifacts.ID | inline }} and " +
              "{{ feedback.ID }}"
            : `did you mean ${meant}?`;
      const literal = `{ { ${ref.token.slice(2, -2).trim()} } }`;
      reasons.push(
        `${field}: ${ref.token} looks like a placeholder but its namespace ${JSON.stringify(ref.namespace)} ` +
          `is not inputs, artifacts or feedback, so it is ${how} literally; ${hint} (to keep the braces ` +
          `literally, write ${literal})`,
      );
    }
  }
  return reasons;
}

const NAMESPACES = ["inputs", "artifacts", "feedback"] as const;

/**
 * The placeholder a look-alike most likely meant: the namespace differing only in case or a missing or
 * extra `s` (`{{ Input.file }}` → `{{ inputs.file }}`); else a node id among its words
 * (`{{ nodes.a.output }}`, `{{ a.output }}` → `{{ artifacts.a | inline }}`, the node's reply); else a
 * declared input name (`{{ file }}` → `{{ inputs.file }}`). `null` when none fits.
 */
function likelyMeant(
  namespace: string,
  path: readonly string[],
  filter: string | null,
  producers: ReadonlySet<string>,
  inputs: ReadonlySet<string>,
): string | null {
  const lower = namespace.toLowerCase();
  const valid = NAMESPACES.find((ns) => lower === ns || `${lower}s` === ns || lower === `${ns}s`);
  if (valid !== undefined) {
    if (path.length === 0) {
      return valid === "inputs"
        ? "{{ inputs.NAME }}"
        : valid === "artifacts"
          ? "{{ artifacts.ID }}"
          : "{{ feedback.ID }}";
    }
    return `{{ ${valid}.${path.join(".")}${filter !== null ? ` | ${filter}` : ""} }}`;
  }
  const words = [namespace, ...path];
  const node = words.find((word) => producers.has(word));
  if (node !== undefined)
    return `{{ artifacts.${node} | inline }} (its reply; {{ artifacts.${node} }} is its file's path)`;
  const input = words.find((word) => inputs.has(word));
  if (input !== undefined) return `{{ inputs.${input} }}`;
  return null;
}

// ---- sinks ---------------------------------------------------------------------------------------------

/** Kinds of {@link sinkAdvice}. */
export type SinkAdviceKind = "only-gate-sinks" | "unverified-sink";

/**
 * Sinks whose run can never conclude `success` (SPEC §6: success needs an engine-run verify on every
 * sink that is not a gate): each agent sink without an engine-run check ({@link hasEngineRunCheck}: a
 * completion command counts, a `todos: all_done` gate does not and the advice says so), or — when every
 * sink is a gate — the first gate sink, for the whole graph. Keyed by the node the advice is reported on.
 */
export function sinkAdvice(graph: Graph): Map<string, KindedReason<SinkAdviceKind>[]> {
  const advice = new Map<string, KindedReason<SinkAdviceKind>[]>();
  const sinks = graph.sinks.flatMap((id) => {
    const node = graph.nodes_by_id.get(id);
    return node === undefined ? [] : [node];
  });
  const agentSinks = sinks.filter((node) => node.type !== "gate");
  const [firstGate] = sinks;
  if (agentSinks.length === 0 && firstGate !== undefined) {
    const gates = sinks.map((node) => JSON.stringify(node.id)).join(", ");
    const reason = graph.nodes.every((node) => node.type === "gate")
      ? `the graph has only gates: nothing runs and nothing is verified, ${NEUTRAL_AT_BEST}; add an agent ` +
        "node after the gates with success_check.verify running a command that checks the work"
      : `every sink of the graph is a gate (${gates}) and a person's approval is not build evidence, ` +
        `${NEUTRAL_AT_BEST}; add an agent node after ${sinks.length === 1 ? "the gate" : "the gates"} with ` +
        "success_check.verify running a command " +
        "that checks the work";
    advice.set(firstGate.id, [{ kind: "only-gate-sinks", reason }]);
    return advice;
  }
  for (const node of agentSinks) {
    if (hasEngineRunCheck(node)) continue;
    const reason = hasTodosGate(node)
      ? "is a sink (no node depends on it) whose only check is completion todos: all_done, which reads the " +
        "plan the model declared about its own work, not an engine-run verify: success needs an engine-run " +
        `verify on every sink that is not a gate, ${NEUTRAL_AT_BEST}; add success_check.verify (or make ` +
        "completion.verify a command) that checks the work (the test suite, a build)"
      : "is a sink (no node depends on it) without success_check.verify: success needs an engine-run verify " +
        `on every sink that is not a gate, ${NEUTRAL_AT_BEST}; add success_check.verify to it with a ` +
        "command that checks the work (the test suite, a build)";
    advice.set(node.id, [{ kind: "unverified-sink", reason }]);
  }
  return advice;
}

// ---- retries and feedback ------------------------------------------------------------------------------

/** Kinds of {@link spendAdvice}. */
export type SpendAdviceKind = "retry-never-fires" | "costly-retry" | "costly-feedback";

/**
 * `retry.max` with no cause in `retry.on` (it never retries), and `retry.max` or `feedback.max` above
 * {@link SPEND_ADVISORY_ABOVE}, naming the worst-case number of executions.
 */
export function spendAdvice(graph: Graph, node: GraphNode): KindedReason<SpendAdviceKind>[] {
  const found: KindedReason<SpendAdviceKind>[] = [];
  const { max, on } = node.retry;
  if (max > 0 && on.length === 0) {
    found.push({
      kind: "retry-never-fires",
      reason:
        `retry.max is ${max} but retry.on lists no cause, so it never retries; list the causes to retry on ` +
        `(${RETRY_CAUSES.join(", ")}), or remove retry`,
    });
  } else if (max > SPEND_ADVISORY_ABOVE) {
    // Bodies are disjoint, so at most one arc re-runs this node (its declarer's included).
    const owner = graph.nodes.find((n) => n.feedback?.body.includes(node.id) === true);
    const rounds = owner?.feedback?.max ?? 0;
    // Retries happen in every run of the feedback arc that re-runs this node.
    const times =
      rounds === 0
        ? `1 + ${max} = ${1 + max} times`
        : `(1 + ${max}) × (1 + ${rounds}) = ${(1 + max) * (1 + rounds)} times (its retries in each of the ` +
          `${1 + rounds} runs of ${JSON.stringify(owner?.id)}'s feedback arc)`;
    found.push({
      kind: "costly-retry",
      reason:
        `retry.max is ${max}, so this node may run up to ${times}, each a paid model call; lower retry.max ` +
        `to ${SPEND_ADVISORY_ABOVE} or fewer`,
    });
  }
  const arc = node.feedback;
  if (arc !== null && arc.max > SPEND_ADVISORY_ABOVE) {
    const rounds = 1 + arc.max;
    const plain = rounds * arc.body.length;
    const withRetries =
      rounds *
      arc.body.reduce((sum, id) => {
        const member = graph.nodes_by_id.get(id);
        const retries = member !== undefined && member.retry.on.length > 0 ? member.retry.max : 0;
        return sum + 1 + retries;
      }, 0);
    const body = arc.body.map((id) => JSON.stringify(id)).join(", ");
    found.push({
      kind: "costly-feedback",
      reason:
        `feedback.max is ${arc.max}, so the arc may run its body (${body}) ${rounds} times: up to ` +
        `(1 + ${arc.max}) × ${arc.body.length} = ${plain} executions` +
        (withRetries > plain ? ` (${withRetries} with the body's retries)` : "") +
        `, each a paid model call; lower feedback.max to ${SPEND_ADVISORY_ABOVE} or fewer`,
    });
  }
  return found;
}

// ---- fields this version loads but does not run --------------------------------------------------------

/** Kinds of {@link notRunAdvice}, and {@link worktreeAdvice}'s. */
export type NotRunKind = "description-not-shown" | "worktree-unverified" | "session-across-worktrees";

/**
 * Fields that load (so a graph written for the Go CLI lints) but that this version does not act on: it
 * does not print a gate's `description` at the pause. (`agent` runs: `run` reads `.claude/agents/NAME.md`
 * from the trusted tree, `engine/hand-agents.ts`, which lint does not read; `worktree` runs too, and
 * {@link worktreeAdvice} says what its changes reach.)
 */
export function notRunAdvice(node: GraphNode): KindedReason<NotRunKind>[] {
  const found: KindedReason<NotRunKind>[] = [];
  if (node.description !== null) {
    found.push({
      kind: "description-not-shown",
      reason:
        "has a description, which this version keeps in graph.json but does not print when the run pauses " +
        "at the gate: say what the approver should read in the gate's upstream reply or the PR instead",
    });
  }
  return found;
}

// ---- worktrees and the evidence ------------------------------------------------------------------------

/**
 * `worktree-unverified`: an agent node running in a managed worktree whose changes no verify checks. Its
 * edits are committed on the worktree's branch (`evidence-gate/<run id>/NAME`), never in the main working
 * tree, so the verifies of the nodes there — the sinks' evidence — do not run on them. They reach a
 * verify only through a sink with `success_check.verify` in the same worktree that is the node itself or
 * depends on it. Gates run nothing, so they get none.
 *
 * `session-across-worktrees`: `handoff: session` whose parent runs in another worktree (or the main working
 * tree): claude keeps a conversation under the folder it ran in, and `--resume` looks only there
 * (anthropics/claude-code#5768), so the child's resume would fail.
 */
export function worktreeAdvice(
  graph: Graph,
  node: GraphNode,
): KindedReason<"worktree-unverified" | "session-across-worktrees">[] {
  if (node.type === "gate") return [];
  const parent = node.handoff === "session" ? graph.nodes_by_id.get(node.depends_on[0] ?? "") : undefined;
  const across: KindedReason<"session-across-worktrees">[] =
    parent !== undefined && parent.worktree !== node.worktree
      ? [
          {
            kind: "session-across-worktrees",
            reason:
              `has handoff: session, but its parent ${JSON.stringify(parent.id)} runs in ${placeOf(parent)} and ` +
              `it runs in ${placeOf(node)}: claude finds a conversation to resume only from the folder it ran ` +
              "in, so the resume fails (No conversation found); put both in the same worktree, or use " +
              "handoff: artifact",
          },
        ]
      : [];
  if (node.worktree === null) return across;
  const reached = graph.sinks.some((id) => {
    const sink = graph.nodes_by_id.get(id);
    return (
      sink !== undefined &&
      sink.type !== "gate" &&
      sink.worktree === node.worktree &&
      sink.success_check.verify !== null &&
      (sink.id === node.id ||
        ancestorsOf(
          graph.nodes.map(({ id, depends_on }) => ({ id, depends_on })),
          sink.id,
        ).has(node.id))
    );
  });
  if (reached) return across;
  const name = node.worktree;
  const reason =
    `runs in worktree ${JSON.stringify(name)}: its changes are committed on the branch ` +
    `evidence-gate/<run id>/${name}, not in the main working tree, and no sink with success_check.verify ` +
    `in worktree ${JSON.stringify(name)} is this node or depends on it, so no verify of the run checks ` +
    "them (the sinks verify other files) and the run's evidence says nothing about them; add a sink " +
    `after it with worktree: ${name} and success_check.verify, or merge the branch and verify it yourself`;
  return [{ kind: "worktree-unverified", reason }, ...across];
}

/** `worktree "NAME"`, or `the main working tree`. */
function placeOf(node: GraphNode): string {
  return node.worktree === null ? "the main working tree" : `worktree ${JSON.stringify(node.worktree)}`;
}

/**
 * True when some prompt in the body of `declarer`'s feedback arc quotes `{{ feedback.DECLARER }}` (Go ADR
 * 0028); false for a blind arc, whose rounds repeat the same prompts. False when `declarer` has no arc.
 */
export function arcQuotesItsPayload(graph: Graph, declarer: GraphNode): boolean {
  const arc = declarer.feedback;
  if (arc === null) return false;
  return arc.body.some((id) =>
    placeholdersIn(graph.nodes_by_id.get(id)?.prompt ?? "").some(
      (ref) => ref.namespace === "feedback" && ref.name === declarer.id && ref.problem === null,
    ),
  );
}
