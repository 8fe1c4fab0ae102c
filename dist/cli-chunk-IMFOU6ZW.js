#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  RETRY_CAUSES,
  ancestorsOf,
  feedbackBodyOf,
  lookalikePlaceholdersIn,
  placeholdersIn,
  templatedFields,
  validateGraph
} from "./cli-chunk-FMDVH7O5.js";

// src/graph/lint-arcs.ts
function feedbackReach(graph) {
  const topology = topologyOf(graph);
  const found = [];
  for (const node of graph.nodes) {
    const arc = node.feedback;
    if (arc === null || arc.body.length === 0) continue;
    const upstream = ancestorsOf(topology, arc.rerun);
    const outside = node.depends_on.filter(
      (parent) => !arc.body.includes(parent) && !upstream.has(parent) && graph.nodes_by_id.get(parent) !== void 0 && graph.nodes_by_id.get(parent)?.type !== "gate"
    );
    if (outside.length === 0) continue;
    const suggestion = coveringTarget(graph, topology, node, outside);
    const fix = suggestion === null ? "no single rerun target covers every producer and still validates, so the fix is structural: put the producers on one path below a shared ancestor, or give each its own reviewer" : `consider rerun: ${suggestion} \u2014 its body covers every producer this node depends on and still validates`;
    for (const producer of outside) {
      found.push({
        declarer: node.id,
        rerun: arc.rerun,
        producer,
        suggestion,
        reason: `feedback re-runs ${JSON.stringify(arc.rerun)}, whose body {${arc.body.join(", ")}} leaves out producer ${JSON.stringify(producer)}, which is not upstream of the arc either: a defect this node finds in ${JSON.stringify(producer)}'s output cannot be repaired \u2014 each round re-judges the same artifact until the rounds are spent (this reads depends_on, not what the prompt judges: ignore it if ${JSON.stringify(producer)} is only stable context); ${fix}`
      });
    }
  }
  return found;
}
function sessionAdvice(graph, node) {
  if (node.type === "gate" || node.handoff !== "session") return [];
  const found = [];
  const parent = graph.nodes_by_id.get(node.depends_on[0] ?? "");
  const cwd = (n) => (n.cwd ?? "").trim();
  if (parent !== void 0 && parent.worktree === node.worktree && cwd(parent) !== cwd(node)) {
    const place = (n) => cwd(n) === "" ? "the run's working directory" : `cwd ${JSON.stringify(cwd(n))}`;
    found.push({
      kind: "session-across-cwd",
      reason: `has handoff: session, but runs in ${place(node)} while its parent ${JSON.stringify(parent.id)} ran in ${place(parent)}: claude finds a conversation to resume only under the folder it ran in, so the resume fails or starts cold; give both the same cwd, or use handoff: artifact`
    });
  }
  if (node.retry.max > 0 && node.retry.on.length > 0) {
    found.push({
      kind: "session-retry-cold",
      reason: "has handoff: session and retry: a retried attempt starts a fresh session, not its parent's, so it sees only its own prompt (and the failed reply it quotes); make the prompt work cold, or drop retry"
    });
  }
  return found;
}
function topologyOf(graph) {
  return graph.nodes.map(({ id, depends_on, feedback }) => ({
    id,
    depends_on,
    ...feedback !== null ? { feedback: { rerun: feedback.rerun } } : {}
  }));
}
function coveringTarget(graph, topology, declarer, producers) {
  const current = declarer.feedback?.rerun ?? "";
  const order = graph.nodes.map((n) => n.id);
  let best = null;
  for (const candidate of order.filter((id) => ancestorsOf(topology, declarer.id).has(id))) {
    const aimed = topology.map((n) => n.id === declarer.id ? { ...n, feedback: { rerun: candidate } } : n);
    const body = feedbackBodyOf(aimed, declarer.id);
    if (!body.includes(current) || !producers.every((p) => body.includes(p))) continue;
    if (best !== null && body.length >= best.size) continue;
    if (validateGraph(withRerun(graph.spec, declarer.id, candidate)).length > 0) continue;
    best = { id: candidate, size: body.length };
  }
  return best?.id ?? null;
}
function withRerun(spec, declarer, rerun) {
  return {
    ...spec,
    nodes: (spec.nodes ?? []).map(
      (n) => n.id === declarer && n.feedback !== void 0 ? { ...n, feedback: { ...n.feedback, rerun } } : n
    )
  };
}

// src/graph/node-checks.ts
function engineRunCommandOf(node) {
  if (node.success_check.verify !== null) return node.success_check.verify.command;
  return node.completion?.verify.kind === "command" ? node.completion.verify.command : null;
}
function hasEngineRunCheck(node) {
  return engineRunCommandOf(node) !== null;
}
function hasTodosGate(node) {
  return node.completion?.verify.kind === "todos_all_done";
}

// src/graph/lint-rules.ts
var SPEND_ADVISORY_ABOVE = 10;
var NEUTRAL_AT_BEST = "so the run's conclusion can be neutral at best (failure under the policy file's require-evidence: true)";
function lookalikeAdvice(graph, spec) {
  let producers;
  const inputs = new Set(graph.inputs);
  const reasons = [];
  for (const [field, template] of templatedFields(spec)) {
    const seen = /* @__PURE__ */ new Set();
    for (const ref of lookalikePlaceholdersIn(template)) {
      if (seen.has(ref.token)) continue;
      seen.add(ref.token);
      const how = field === "prompt" ? "sent to the model" : "used";
      producers ??= new Set(
        graph.nodes.filter((n) => n.type !== "gate" && n.id !== spec.id).map((n) => n.id)
      );
      const meant = likelyMeant(ref.namespace, ref.path, ref.filter, producers, inputs);
      const hint = ref.namespace === "self" ? "the Go CLI's self namespace ({{ self.previous }}, {{ self.timeout }}) is not supported in this version" : meant === null ? "placeholders are {{ inputs.NAME }}, {{ artifacts.ID }}, {{ artifacts.ID | inline }} and {{ feedback.ID }}" : `did you mean ${meant}?`;
      const literal = `{ { ${ref.token.slice(2, -2).trim()} } }`;
      reasons.push(
        `${field}: ${ref.token} looks like a placeholder but its namespace ${JSON.stringify(ref.namespace)} is not inputs, artifacts or feedback, so it is ${how} literally; ${hint} (to keep the braces literally, write ${literal})`
      );
    }
  }
  return reasons;
}
var NAMESPACES = ["inputs", "artifacts", "feedback"];
function likelyMeant(namespace, path, filter, producers, inputs) {
  const lower = namespace.toLowerCase();
  const valid = NAMESPACES.find((ns) => lower === ns || `${lower}s` === ns || lower === `${ns}s`);
  if (valid !== void 0) {
    if (path.length === 0) {
      return valid === "inputs" ? "{{ inputs.NAME }}" : valid === "artifacts" ? "{{ artifacts.ID }}" : "{{ feedback.ID }}";
    }
    return `{{ ${valid}.${path.join(".")}${filter !== null ? ` | ${filter}` : ""} }}`;
  }
  const words = [namespace, ...path];
  const node = words.find((word) => producers.has(word));
  if (node !== void 0)
    return `{{ artifacts.${node} | inline }} (its reply; {{ artifacts.${node} }} is its file's path)`;
  const input = words.find((word) => inputs.has(word));
  if (input !== void 0) return `{{ inputs.${input} }}`;
  return null;
}
function sinkAdvice(graph) {
  const advice = /* @__PURE__ */ new Map();
  const sinks = graph.sinks.flatMap((id) => {
    const node = graph.nodes_by_id.get(id);
    return node === void 0 ? [] : [node];
  });
  const agentSinks = sinks.filter((node) => node.type !== "gate");
  const [firstGate] = sinks;
  if (agentSinks.length === 0 && firstGate !== void 0) {
    const gates = sinks.map((node) => JSON.stringify(node.id)).join(", ");
    const reason = graph.nodes.every((node) => node.type === "gate") ? `the graph has only gates: nothing runs and nothing is verified, ${NEUTRAL_AT_BEST}; add an agent node after the gates with success_check.verify running a command that checks the work` : `every sink of the graph is a gate (${gates}) and a person's approval is not build evidence, ${NEUTRAL_AT_BEST}; add an agent node after ${sinks.length === 1 ? "the gate" : "the gates"} with success_check.verify running a command that checks the work`;
    advice.set(firstGate.id, [{ kind: "only-gate-sinks", reason }]);
    return advice;
  }
  for (const node of agentSinks) {
    if (hasEngineRunCheck(node)) continue;
    const reason = hasTodosGate(node) ? `is a sink (no node depends on it) whose only check is completion todos: all_done, which reads the plan the model declared about its own work, not an engine-run verify: success needs an engine-run verify on every sink that is not a gate, ${NEUTRAL_AT_BEST}; add success_check.verify (or make completion.verify a command) that checks the work (the test suite, a build)` : `is a sink (no node depends on it) without success_check.verify: success needs an engine-run verify on every sink that is not a gate, ${NEUTRAL_AT_BEST}; add success_check.verify to it with a command that checks the work (the test suite, a build)`;
    advice.set(node.id, [{ kind: "unverified-sink", reason }]);
  }
  return advice;
}
function spendAdvice(graph, node) {
  const found = [];
  const { max, on } = node.retry;
  if (max > 0 && on.length === 0) {
    found.push({
      kind: "retry-never-fires",
      reason: `retry.max is ${max} but retry.on lists no cause, so it never retries; list the causes to retry on (${RETRY_CAUSES.join(", ")}), or remove retry`
    });
  } else if (max > SPEND_ADVISORY_ABOVE) {
    const owner = graph.nodes.find((n) => n.feedback?.body.includes(node.id) === true);
    const rounds = owner?.feedback?.max ?? 0;
    const times = rounds === 0 ? `1 + ${max} = ${1 + max} times` : `(1 + ${max}) \xD7 (1 + ${rounds}) = ${(1 + max) * (1 + rounds)} times (its retries in each of the ${1 + rounds} runs of ${JSON.stringify(owner?.id)}'s feedback arc)`;
    found.push({
      kind: "costly-retry",
      reason: `retry.max is ${max}, so this node may run up to ${times}, each a paid model call; lower retry.max to ${SPEND_ADVISORY_ABOVE} or fewer`
    });
  }
  const arc = node.feedback;
  if (arc !== null && arc.max > SPEND_ADVISORY_ABOVE) {
    const rounds = 1 + arc.max;
    const plain = rounds * arc.body.length;
    const withRetries = rounds * arc.body.reduce((sum, id) => {
      const member = graph.nodes_by_id.get(id);
      const retries = member !== void 0 && member.retry.on.length > 0 ? member.retry.max : 0;
      return sum + 1 + retries;
    }, 0);
    const body = arc.body.map((id) => JSON.stringify(id)).join(", ");
    found.push({
      kind: "costly-feedback",
      reason: `feedback.max is ${arc.max}, so the arc may run its body (${body}) ${rounds} times: up to (1 + ${arc.max}) \xD7 ${arc.body.length} = ${plain} executions` + (withRetries > plain ? ` (${withRetries} with the body's retries)` : "") + `, each a paid model call; lower feedback.max to ${SPEND_ADVISORY_ABOVE} or fewer`
    });
  }
  return found;
}
function notRunAdvice(node) {
  const found = [];
  if (node.description !== null) {
    found.push({
      kind: "description-not-shown",
      reason: "has a description, which this version keeps in graph.json but does not print when the run pauses at the gate: say what the approver should read in the gate's upstream reply or the PR instead"
    });
  }
  return found;
}
function worktreeAdvice(graph, node) {
  if (node.type === "gate") return [];
  const parent = node.handoff === "session" ? graph.nodes_by_id.get(node.depends_on[0] ?? "") : void 0;
  const across = parent !== void 0 && parent.worktree !== node.worktree ? [
    {
      kind: "session-across-worktrees",
      reason: `has handoff: session, but its parent ${JSON.stringify(parent.id)} runs in ${placeOf(parent)} and it runs in ${placeOf(node)}: claude finds a conversation to resume only from the folder it ran in, so the resume fails (No conversation found); put both in the same worktree, or use handoff: artifact`
    }
  ] : [];
  if (node.worktree === null) return across;
  const reached = graph.sinks.some((id) => {
    const sink = graph.nodes_by_id.get(id);
    return sink !== void 0 && sink.type !== "gate" && sink.worktree === node.worktree && sink.success_check.verify !== null && (sink.id === node.id || ancestorsOf(
      graph.nodes.map(({ id: id2, depends_on }) => ({ id: id2, depends_on })),
      sink.id
    ).has(node.id));
  });
  if (reached) return across;
  const name = node.worktree;
  const reason = `runs in worktree ${JSON.stringify(name)}: its changes are committed on the branch evidence-gate/<run id>/${name}, not in the main working tree, and no sink with success_check.verify in worktree ${JSON.stringify(name)} is this node or depends on it, so no verify of the run checks them (the sinks verify other files) and the run's evidence says nothing about them; add a sink after it with worktree: ${name} and success_check.verify, or merge the branch and verify it yourself`;
  return [{ kind: "worktree-unverified", reason }, ...across];
}
function placeOf(node) {
  return node.worktree === null ? "the main working tree" : `worktree ${JSON.stringify(node.worktree)}`;
}
function arcQuotesItsPayload(graph, declarer) {
  const arc = declarer.feedback;
  if (arc === null) return false;
  return arc.body.some(
    (id) => placeholdersIn(graph.nodes_by_id.get(id)?.prompt ?? "").some(
      (ref) => ref.namespace === "feedback" && ref.name === declarer.id && ref.problem === null
    )
  );
}

export {
  feedbackReach,
  sessionAdvice,
  engineRunCommandOf,
  hasEngineRunCheck,
  hasTodosGate,
  lookalikeAdvice,
  sinkAdvice,
  spendAdvice,
  notRunAdvice,
  worktreeAdvice,
  arcQuotesItsPayload
};
