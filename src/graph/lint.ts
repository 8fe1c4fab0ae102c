/**
 * `lint` (SPEC §3; Go `lint` and its advisory sweeps, oh-my-graph research §2.10): every load error, plus
 * advisories — graphs that load and run, but spend money on a result nothing checks or that cannot be
 * reached. An advisory never stops a run; each one says what to change.
 *
 * Errors are every class of problem at once (SPEC §3: "`lint` prints all of them, not just the first"):
 * the loader's — YAML syntax (which stops everything else: nothing can be judged), shape, then the semantic
 * rules (ids, `depends_on`, cycles, placeholders, durations, patterns, feedback arcs) judged on what
 * survives the shape check — and the `cwd` errors of `cwd-rules.ts`, judged on the file as written: an
 * absolute `cwd` or `success_check.verify.cwd`, or one climbing out of the run's working directory, which
 * the run would refuse ("outside the repository") only once the node is reached. So a graph with an
 * unknown field still has its cycles named, and a node whose own fields are broken still has its `cwd`
 * judged.
 *
 * Advisories are computed only when the graph loads: on a graph with load errors, ancestry and feedback
 * bodies may rest on unknown ids or cycles, so advice drawn from them could be wrong; fix the errors, lint
 * again. The advisories, in the order a node reports them:
 * 1. `unresolved-input` — `{{ inputs.X }}` with no `--input X=…`: `run` refuses to start without it.
 *    (`{{ artifacts.ID }}` naming anything but a non-gate ancestor is already a load error, see
 *    `validate-placeholders.ts`, so no advisory repeats it.)
 * 2. `unknown-placeholder` — `{{ input.file }}`, `{{ nodes.a.output }}`, `{{ bogus }}`: reads like a
 *    placeholder, but its namespace is none of the three, so it is sent as written.
 * 3. `worktree-unverified` — a worktree node whose changes no verified sink in that worktree covers
 *    (`worktreeAdvice`); `description-not-shown` — a gate's description is not printed at the pause
 *    (`notRunAdvice`, gates too).
 * 4. `unchecked-verdict` — the prompt demands a verdict token but there is no `result_matches`
 *    (detector: {@link verdictTokensIn}).
 * 5. `verify-splices-model-output` — `{{ artifacts.ID | inline }}` or `{{ feedback.ID }}` in a verify or
 *    completion command (or the verify cwd): model-written text decides what the check runs.
 * 6. `feedback-not-quoted` — a feedback arc whose body's prompts never quote `{{ feedback.DECLARER }}`;
 *    reported on the rerun target, where the token belongs (Go ADR 0028).
 *    `feedback-reach` — a fan-in declarer whose arc cannot re-run one of its producers, with the rerun
 *    target that would (`lint-arcs.ts`, Go `LintFeedbackReach`); `session-across-cwd` — `handoff: session`
 *    in another `cwd` than its parent; `session-retry-cold` — `handoff: session` with retries, which start
 *    fresh (Go `handoff.LintSessions`).
 * 7. `retry-never-fires` — `retry.max` > 0 with no cause in `retry.on`; `costly-retry` /
 *    `costly-feedback` — `retry.max` / `feedback.max` above 10, with the worst-case executions.
 * 8. `no-tools-no-verify` — an agent node declaring neither `allowed_tools` nor an engine-run check
 *    (`success_check.verify`, or a `completion.verify` command: `hasEngineRunCheck`). A `todos: all_done`
 *    gate is the model's own plan, so it does not silence the advisory, which names it.
 * 9. `unverified-sink` — an agent sink without an engine-run check (as in 8); `only-gate-sinks` — every
 *    sink is a gate (reported on the first). Either way the run can conclude `neutral` at best.
 *
 * 0. Before every node's: `unreferenced-substitution` — a fragment's declared substitution point its body
 *    never references (Go `FragmentAdvisory`), on the fragment's first citing node.
 *
 * 10. `exit-code-unchecked` — `result_matches` without `exit_zero: true` nor a `verify` command (which
 *    decides the node by its own exit code; issue 17 item 9). The Go CLI this ports does not
 *    check the exit code then (research §2.3), so a graph shared with it can pass a crashed run there; this
 *    engine fails every non-zero exit (`nonzero_exit`) whatever `exit_zero` says, and the advisory says so.
 */

import { cwdIssues, placedNodesOf } from "./cwd-rules.js";
import { type FragmentSource, gatherFragments } from "./fragment-source.js";
import type { Graph } from "./graph.js";
import type { GraphIssue } from "./issue.js";
import { feedbackReach, type SessionAdviceKind, sessionAdvice } from "./lint-arcs.js";
import {
  arcQuotesItsPayload,
  lookalikeAdvice,
  type NotRunKind,
  notRunAdvice,
  type SinkAdviceKind,
  type SpendAdviceKind,
  sinkAdvice,
  spendAdvice,
  worktreeAdvice,
} from "./lint-rules.js";
import { uncheckedVerdict } from "./lint-verdicts.js";
import {
  type FragmentSplice,
  judgeGraphObject,
  type LoadOptions,
  readGraphText,
  uniqueIssues,
} from "./load.js";
import { hasEngineRunCheck, hasTodosGate } from "./node-checks.js";
import { placeholdersIn } from "./placeholders.js";
import type { NodeSpec } from "./schema.js";
import { templatedFields } from "./validate-placeholders.js";

export { verdictTokensIn } from "./lint-verdicts.js";

/** What an advisory is about; stable, for `--json` consumers. */
export type AdvisoryKind =
  | "unresolved-input"
  | "unknown-placeholder"
  | NotRunKind
  | "unchecked-verdict"
  | "verify-splices-model-output"
  | "feedback-not-quoted"
  | "feedback-reach"
  | SessionAdviceKind
  | "unreferenced-substitution"
  | SpendAdviceKind
  | "no-tools-no-verify"
  | SinkAdviceKind
  | "exit-code-unchecked";

/** A finding that does not stop a run. `reason` says what is wrong and what to change. */
export interface Advisory {
  readonly nodeId: string;
  readonly kind: AdvisoryKind;
  readonly reason: string;
}

/** Lint options: load options plus the input names the run would be given (`--input NAME=…`). */
export interface LintOptions extends LoadOptions {
  readonly inputs?: readonly string[];
  /**
   * How the reader gives input NAME a value, for the `unresolved-input` advice: the CLI's
   * `--input NAME=VALUE` by default ({@link CLI_INPUT_HOW}); the action's lint names its `inputs` input.
   */
  readonly giveInput?: (name: string) => string;
}

/** The CLI's way to give a graph input a value: `pass --input NAME=VALUE`. */
export const CLI_INPUT_HOW = (name: string): string => `pass --input ${name}=VALUE`;

/**
 * Every error (the loader's, then the `cwd` errors) and, when the graph loads, every advisory.
 */
export interface LintResult {
  readonly errors: readonly GraphIssue[];
  readonly advisories: readonly Advisory[];
  /** Every `use:` resolved, for the splice disclosure (`formatSplice`); `[]` without fragments. */
  readonly splices: readonly FragmentSplice[];
}

/**
 * Lints graph file text: judges it (YAML or JSON) with every rule and, if it loads, computes the
 * advisories.
 *
 * @param source where the text came from (a path), used in messages.
 * @returns `errors`: what `loadGraphText` reports (syntax; or shape, then semantic), followed by the `cwd`
 *   errors of every node whose `cwd` fields can be read ({@link cwdIssues}), without repeats — only a
 *   YAML syntax error stops the rest; `advisories`: empty whenever the graph does not load. Never throws
 *   on bad input.
 */
export function lintGraph(text: string, source: string, options: LintOptions = {}): LintResult {
  const { inputs, giveInput, ...loadOptions } = options;
  const read = readGraphText(text, source);
  if (!read.ok) return { errors: read.issues, advisories: [], splices: [] };
  const judged = judgeGraphObject(read.data, source, loadOptions);
  const fragmentAdvice = judged.notes.map(
    ({ nodeId, reason }): Advisory => ({ nodeId, kind: "unreferenced-substitution", reason }),
  );
  return {
    errors: uniqueIssues([...judged.issues, ...cwdIssues(placedNodesOf(judged.data))]),
    advisories:
      judged.graph === null
        ? []
        : [
            ...fragmentAdvice,
            ...graphAdvisories(judged.graph, {
              inputs: inputs ?? [],
              ...(giveInput !== undefined ? { giveInput } : {}),
            }),
          ],
    splices: judged.splices,
  };
}

/**
 * Lints a graph FILE as `run` would load it: with the fragments its `use:` nodes cite, read through
 * `fragments` (the CLI: `fragments/NAME.yaml` beside the file), so errors and advisories are about the
 * spliced graph — spliced nodes are named by their spliced ids (`lane/dev`). See {@link lintGraph}.
 */
export async function lintGraphFile(
  text: string,
  source: string,
  fragments: FragmentSource,
  options: Omit<LintOptions, "fragments"> = {},
): Promise<LintResult> {
  const read = readGraphText(text, source);
  if (!read.ok) return { errors: read.issues, advisories: [], splices: [] };
  const library = await gatherFragments(read.data, fragments);
  return lintGraph(text, source, { ...options, fragments: library });
}

/** Renders an advisory: `advisory: node "review": REASON` (the id JSON-quoted, as in `formatIssue`). */
export function formatAdvisory(advisory: Advisory): string {
  return `advisory: node ${JSON.stringify(advisory.nodeId)}: ${advisory.reason}`;
}

/**
 * The advisories of a loaded graph, by node in declaration order, each node's in the order of the module
 * docstring. `inputs` are the names the run will be given. A gate spawns nothing, so it gets only the
 * graph's `only-gate-sinks` advice.
 */
export function graphAdvisories(
  graph: Graph,
  options: { readonly inputs: readonly string[]; readonly giveInput?: (name: string) => string },
): Advisory[] {
  const given = new Set(options.inputs);
  const giveInput = options.giveInput ?? CLI_INPUT_HOW;
  const declared = new Set(graph.inputs);
  const specs = new Map((graph.spec.nodes ?? []).map((spec) => [spec.id, spec] as const));
  const sinks = sinkAdvice(graph);
  const reach = feedbackReach(graph);
  const advisories: Advisory[] = [];
  for (const node of graph.nodes) {
    const spec = specs.get(node.id);
    const add = (kind: AdvisoryKind, reason: string): void => {
      advisories.push({ nodeId: node.id, kind, reason });
    };
    if (node.type !== "gate" && spec !== undefined) {
      for (const reason of unresolvedInputs(spec, given, declared, giveInput))
        add("unresolved-input", reason);
      for (const reason of lookalikeAdvice(graph, spec)) add("unknown-placeholder", reason);
    }
    for (const { kind, reason } of [...worktreeAdvice(graph, node), ...notRunAdvice(node)]) add(kind, reason);
    if (node.type !== "gate" && spec !== undefined) {
      const verdict = uncheckedVerdict(node);
      if (verdict !== null) add("unchecked-verdict", verdict);
      // A verify command decides the node by its own exit code: the reply's exit code is then not the check.
      if (
        node.success_check.result_matches !== null &&
        !node.success_check.exit_zero &&
        node.success_check.verify === null
      ) {
        add(
          "exit-code-unchecked",
          "success_check.result_matches is set without exit_zero: true; the Go CLI does not check the exit code " +
            "then, so this graph can pass a crashed run there (evidence-gate fails any non-zero exit either way); " +
            "add exit_zero: true to success_check",
        );
      }
      for (const reason of splicedVerifyText(spec)) add("verify-splices-model-output", reason);
      for (const reason of unquotedFeedback(graph, node.id)) add("feedback-not-quoted", reason);
      for (const found of reach) if (found.declarer === node.id) add("feedback-reach", found.reason);
      for (const { kind, reason } of sessionAdvice(graph, node)) add(kind, reason);
      for (const { kind, reason } of spendAdvice(graph, node)) add(kind, reason);
      // A completion command is engine-run like success_check.verify; a todos gate is the model's own plan.
      if (spec.allowed_tools === undefined && !hasEngineRunCheck(node)) {
        add(
          "no-tools-no-verify",
          hasTodosGate(node)
            ? "declares neither allowed_tools nor success_check.verify, so what it may do is left to " +
                `permission_mode ${node.permission_mode} and nothing but its own reply and the plan it declared ` +
                "(completion todos: all_done) judges it; list the tools it needs in allowed_tools, or add " +
                "success_check.verify (or make completion.verify a command) that checks its work"
            : `declares neither allowed_tools nor success_check.verify, so what it may do is left to permission_mode ` +
                `${node.permission_mode} and nothing but its own reply judges it; list the tools it needs in ` +
                "allowed_tools, or add success_check.verify with a command that checks its work",
        );
      }
    }
    for (const { kind, reason } of sinks.get(node.id) ?? []) add(kind, reason);
  }
  return advisories;
}

function unresolvedInputs(
  spec: NodeSpec,
  given: Set<string>,
  declared: Set<string>,
  giveInput: (name: string) => string,
): string[] {
  const reasons: string[] = [];
  const seen = new Set<string>();
  for (const [field, template] of templatedFields(spec)) {
    for (const ref of placeholdersIn(template)) {
      if (ref.namespace !== "inputs" || ref.problem !== null || given.has(ref.name)) continue;
      const key = `${field}\u0000${ref.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const pass = giveInput(ref.name);
      reasons.push(
        declared.has(ref.name)
          ? `${field}: {{ inputs.${ref.name} }} is declared in inputs: but no value was given, so run ` +
              `refuses to start without it; ${pass}`
          : `${field}: {{ inputs.${ref.name} }} names an input that is neither declared in inputs: nor given, ` +
              `so run refuses to start without it; ${pass} (and declare it under inputs: to document it)`,
      );
    }
  }
  return reasons;
}

// Fields whose text becomes part of a check the engine runs; model-written text there steers the check.
const CHECK_FIELDS = new Set([
  "success_check.verify.command",
  "success_check.verify.cwd",
  "completion.verify.command",
]);

function splicedVerifyText(spec: NodeSpec): string[] {
  const reasons: string[] = [];
  for (const [field, template] of templatedFields(spec)) {
    if (!CHECK_FIELDS.has(field)) continue;
    for (const ref of placeholdersIn(template)) {
      if (ref.problem !== null) continue;
      if (ref.namespace === "artifacts" && ref.inline) {
        reasons.push(
          `${field} splices model-written text into the check with ${ref.token}, so the model decides what ` +
            `the check runs (and can make it pass); use the file's path {{ artifacts.${ref.name} }} and read ` +
            "it in the command",
        );
      } else if (ref.namespace === "feedback") {
        reasons.push(
          `${field} splices model-written text into the check with ${ref.token}, so the model decides what ` +
            "the check runs (and can make it pass); remove it and check the work itself",
        );
      }
    }
  }
  return reasons;
}

/** Advice for node `targetId` as the rerun target of arcs whose bodies never quote their payload. */
function unquotedFeedback(graph: Graph, targetId: string): string[] {
  const reasons: string[] = [];
  for (const declarer of graph.nodes) {
    const arc = declarer.feedback;
    if (arc === null || arc.rerun !== targetId || arcQuotesItsPayload(graph, declarer)) continue;
    const token = `{{ feedback.${declarer.id} }}`;
    reasons.push(
      `re-run by the feedback arc of ${JSON.stringify(declarer.id)}, but no prompt in that arc's body quotes ` +
        `${token}, so each round repeats the same prompts — twice the money, same result; paste ${token} ` +
        `into the prompt of ${JSON.stringify(targetId)}`,
    );
  }
  return reasons;
}
