#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  readGraphFile
} from "./cli-chunk-GQCNBO4X.js";
import {
  cwdIssues,
  placedNodesOf
} from "./cli-chunk-QZOVEDA3.js";
import {
  arcQuotesItsPayload,
  feedbackReach,
  hasEngineRunCheck,
  hasTodosGate,
  lookalikeAdvice,
  notRunAdvice,
  sessionAdvice,
  sinkAdvice,
  spendAdvice,
  worktreeAdvice
} from "./cli-chunk-IMFOU6ZW.js";
import {
  VERIFY_TIMEOUT,
  formatIssue,
  formatSplice,
  fragmentsBeside,
  gatherFragments,
  judgeGraphObject,
  placeholdersIn,
  readGraphText,
  templatedFields,
  uniqueIssues
} from "./cli-chunk-FMDVH7O5.js";
import {
  inputFlags,
  onePositional,
  parseFlags,
  parseOrExit,
  refuseUsage
} from "./cli-chunk-OU6P7TWF.js";
import "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/lint-command.ts
import { resolve } from "node:path";

// src/graph/lint-verdicts.ts
var REPLY_VERBS = [
  "reply",
  "respond",
  "answer",
  "output",
  "print",
  "say",
  "write",
  "end",
  "start",
  "begin",
  "finish",
  "conclude",
  "return",
  "emit"
];
var FILLERS = [
  "with",
  "only",
  "exactly",
  "just",
  "the",
  "a",
  "an",
  "one",
  "of",
  "word",
  "token",
  "line",
  "single",
  "literal",
  "verdict",
  "either",
  "your",
  "reply",
  "response",
  "answer",
  "message",
  "first",
  "last",
  "final",
  "on",
  "its",
  "own",
  "by",
  "saying",
  "bare",
  "uppercase"
];
var PASSING_VERDICTS = [
  "PASS",
  "PASSED",
  "APPROVE",
  "APPROVED",
  "LGTM",
  "DONE",
  "OK",
  "YES",
  "ACCEPT",
  "ACCEPTED",
  "GO",
  "SHIP",
  "MERGED",
  "APPLIED",
  "COMPLETE",
  "COMPLETED",
  "SUCCESS",
  "READY"
];
var OTHER_VERDICTS = [
  "FAIL",
  "FAILED",
  "FAILURE",
  "REJECT",
  "REJECTED",
  "NO",
  "BLOCK",
  "BLOCKED",
  "HOLD",
  "WITHHELD",
  "CHANGES_REQUESTED",
  "VERDICT"
];
var VERDICT = `(?:${[...PASSING_VERDICTS, ...OTHER_VERDICTS].join("|")})(?![\\w-])`;
var VERB = REPLY_VERBS.map(
  (verb) => `[${verb[0]?.toUpperCase()}${verb[0]}]${verb.slice(1)}|${verb.toUpperCase()}`
).join("|");
var QUOTE = "[\"'`*\u201C\u2018]{0,3}";
var GAP = "[\\s,:]";
var DEMAND = new RegExp(
  `\\b(?:${VERB})\\b(?:${GAP}{1,6}(?:${FILLERS.join("|")})\\b){0,8}${GAP}{0,6}${QUOTE}(${VERDICT})(?:${QUOTE}\\s{0,6}(?:or|,|/|\\|)\\s{0,6}${QUOTE}(?:${VERDICT})){0,8}`,
  "g"
);
var VERDICT_WORD = new RegExp(`\\b${VERDICT}`, "g");
function verdictTokensIn(prompt) {
  const tokens = [];
  for (const demand of prompt.matchAll(DEMAND)) {
    const tail = demand[0].slice(demand[0].indexOf(demand[1] ?? ""));
    for (const [word] of tail.matchAll(VERDICT_WORD)) if (!tokens.includes(word)) tokens.push(word);
  }
  return tokens;
}
function uncheckedVerdict(node) {
  if (node.success_check.result_matches !== null) return null;
  const tokens = verdictTokensIn(node.prompt);
  if (tokens.length === 0) return null;
  const passing = tokens.find((token) => PASSING_VERDICTS.includes(token));
  const fix = passing === void 0 ? "add success_check.result_matches with a pattern only the passing verdict matches, anchored with ^" : `add success_check.result_matches: '^[*_\`\\s]*${passing}' \u2014 anchored, so "did not ${passing}" does not match`;
  return `the prompt demands a verdict (${tokens.join(", ")}) but success_check has no result_matches, so the node passes whatever verdict it gives; ${fix}`;
}

// src/graph/lint.ts
var CLI_INPUT_HOW = (name) => `pass --input ${name}=VALUE`;
function lintGraph(text, source, options = {}) {
  const { inputs, giveInput, ...loadOptions } = options;
  const read = readGraphText(text, source);
  if (!read.ok) return { errors: read.issues, advisories: [], splices: [] };
  const judged = judgeGraphObject(read.data, source, loadOptions);
  const fragmentAdvice = judged.notes.map(
    ({ nodeId, reason }) => ({ nodeId, kind: "unreferenced-substitution", reason })
  );
  return {
    errors: uniqueIssues([...judged.issues, ...cwdIssues(placedNodesOf(judged.data))]),
    advisories: judged.graph === null ? [] : [
      ...fragmentAdvice,
      ...graphAdvisories(judged.graph, {
        inputs: inputs ?? [],
        ...giveInput !== void 0 ? { giveInput } : {}
      })
    ],
    splices: judged.splices
  };
}
async function lintGraphFile(text, source, fragments, options = {}) {
  const read = readGraphText(text, source);
  if (!read.ok) return { errors: read.issues, advisories: [], splices: [] };
  const library = await gatherFragments(read.data, fragments);
  return lintGraph(text, source, { ...options, fragments: library });
}
function formatAdvisory(advisory) {
  return `advisory: node ${JSON.stringify(advisory.nodeId)}: ${advisory.reason}`;
}
function graphAdvisories(graph, options) {
  const given = new Set(options.inputs);
  const giveInput = options.giveInput ?? CLI_INPUT_HOW;
  const declared = new Set(graph.inputs);
  const specs = new Map((graph.spec.nodes ?? []).map((spec) => [spec.id, spec]));
  const sinks = sinkAdvice(graph);
  const reach = feedbackReach(graph);
  const advisories = [];
  for (const node of graph.nodes) {
    const spec = specs.get(node.id);
    const add = (kind, reason) => {
      advisories.push({ nodeId: node.id, kind, reason });
    };
    if (node.type !== "gate" && spec !== void 0) {
      for (const reason of unresolvedInputs(spec, given, declared, giveInput))
        add("unresolved-input", reason);
      for (const reason of lookalikeAdvice(graph, spec)) add("unknown-placeholder", reason);
    }
    for (const { kind, reason } of [...worktreeAdvice(graph, node), ...notRunAdvice(node)]) add(kind, reason);
    if (node.type !== "gate" && spec !== void 0) {
      const verdict = uncheckedVerdict(node);
      if (verdict !== null) add("unchecked-verdict", verdict);
      if (node.success_check.result_matches !== null && !node.success_check.exit_zero && node.success_check.verify === null) {
        add(
          "exit-code-unchecked",
          "success_check.result_matches is set without exit_zero: true; the Go CLI does not check the exit code then, so this graph can pass a crashed run there (evidence-gate fails any non-zero exit either way); add exit_zero: true to success_check"
        );
      }
      for (const reason of splicedVerifyText(spec)) add("verify-splices-model-output", reason);
      for (const reason of unquotedFeedback(graph, node.id)) add("feedback-not-quoted", reason);
      for (const found of reach) if (found.declarer === node.id) add("feedback-reach", found.reason);
      for (const { kind, reason } of sessionAdvice(graph, node)) add(kind, reason);
      for (const { kind, reason } of spendAdvice(graph, node)) add(kind, reason);
      if (spec.allowed_tools === void 0 && !hasEngineRunCheck(node)) {
        add(
          "no-tools-no-verify",
          hasTodosGate(node) ? `declares neither allowed_tools nor success_check.verify, so what it may do is left to permission_mode ${node.permission_mode} and nothing but its own reply and the plan it declared (completion todos: all_done) judges it; list the tools it needs in allowed_tools, or add success_check.verify (or make completion.verify a command) that checks its work` : `declares neither allowed_tools nor success_check.verify, so what it may do is left to permission_mode ${node.permission_mode} and nothing but its own reply judges it; list the tools it needs in allowed_tools, or add success_check.verify with a command that checks its work`
        );
      }
    }
    for (const { kind, reason } of sinks.get(node.id) ?? []) add(kind, reason);
  }
  return advisories;
}
function unresolvedInputs(spec, given, declared, giveInput) {
  const reasons = [];
  const seen = /* @__PURE__ */ new Set();
  for (const [field, template] of templatedFields(spec)) {
    for (const ref of placeholdersIn(template)) {
      if (ref.namespace !== "inputs" || ref.problem !== null || given.has(ref.name)) continue;
      const key = `${field}\0${ref.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const pass = giveInput(ref.name);
      reasons.push(
        declared.has(ref.name) ? `${field}: {{ inputs.${ref.name} }} is declared in inputs: but no value was given, so run refuses to start without it; ${pass}` : `${field}: {{ inputs.${ref.name} }} names an input that is neither declared in inputs: nor given, so run refuses to start without it; ${pass} (and declare it under inputs: to document it)`
      );
    }
  }
  return reasons;
}
var CHECK_FIELDS = /* @__PURE__ */ new Set([
  "success_check.verify.command",
  "success_check.verify.cwd",
  "completion.verify.command"
]);
function splicedVerifyText(spec) {
  const reasons = [];
  for (const [field, template] of templatedFields(spec)) {
    if (!CHECK_FIELDS.has(field)) continue;
    for (const ref of placeholdersIn(template)) {
      if (ref.problem !== null) continue;
      if (ref.namespace === "artifacts" && ref.inline) {
        reasons.push(
          `${field} splices model-written text into the check with ${ref.token}, so the model decides what the check runs (and can make it pass); use the file's path {{ artifacts.${ref.name} }} and read it in the command`
        );
      } else if (ref.namespace === "feedback") {
        reasons.push(
          `${field} splices model-written text into the check with ${ref.token}, so the model decides what the check runs (and can make it pass); remove it and check the work itself`
        );
      }
    }
  }
  return reasons;
}
function unquotedFeedback(graph, targetId) {
  const reasons = [];
  for (const declarer of graph.nodes) {
    const arc = declarer.feedback;
    if (arc === null || arc.rerun !== targetId || arcQuotesItsPayload(graph, declarer)) continue;
    const token = `{{ feedback.${declarer.id} }}`;
    reasons.push(
      `re-run by the feedback arc of ${JSON.stringify(declarer.id)}, but no prompt in that arc's body quotes ${token}, so each round repeats the same prompts \u2014 twice the money, same result; paste ${token} into the prompt of ${JSON.stringify(targetId)}`
    );
  }
  return reasons;
}

// src/cli/lint-command.ts
var LINT_USAGE = `usage: evidence-gate lint GRAPH [--input NAME=VALUE]... [--verify-timeout D] [--json]

  GRAPH                 the graph file (YAML or JSON) to check, with the fragments its use: nodes
                        cite (fragments/NAME.yaml beside it); nothing runs, nothing is billed
  --input NAME=VALUE    an input the run would be given (repeatable); a {{ inputs.NAME }} with no
                        --input is reported as an advisory
  --verify-timeout D    the largest success_check.verify.timeout the graph may declare, as for
                        run --verify-timeout (default 10m)
  --json                print {graph, errors, advisories} as JSON instead of lines

Exit: 0 no errors (advisories alone pass), 1 errors found, 64 usage error.
`;
function parseLintFlags(argv) {
  return parseFlags(
    argv,
    { input: { type: "string", multiple: true }, ...VERIFY_TIMEOUT.options, json: { type: "boolean" } },
    true,
    (f, errors) => {
      const graph = onePositional(f, errors, {
        missing: "lint needs the graph file to check: evidence-gate lint GRAPH",
        extra: (others) => `lint checks one graph file; also got ${others}: lint them one at a time`
      });
      const inputs = inputFlags(f.list("input"), errors);
      const timeout = VERIFY_TIMEOUT.read(f, errors);
      return { graph, inputs, ...timeout, json: f.bool("json") };
    }
  );
}
async function runCliLint(argv, io) {
  const parsed = parseOrExit(argv, io, "lint", LINT_USAGE, parseLintFlags);
  if ("exit" in parsed) return parsed.exit;
  const { graph, inputs, json, verifyTimeoutMs } = parsed.flags;
  const path = resolve(io.cwd, graph);
  const read = readGraphFile(path, graph);
  if (!read.ok) return refuseUsage(io, "lint", [read.error]);
  const { errors, advisories, splices } = await lintGraphFile(
    read.text,
    graph,
    fragmentsBeside(path, graph),
    {
      inputs: Object.keys(inputs),
      ...verifyTimeoutMs !== void 0 ? { verifyTimeoutCeilingMs: verifyTimeoutMs } : {}
    }
  );
  io.out.write(
    json ? renderJson(graph, errors, advisories, splices) : renderLines(errors, advisories, splices)
  );
  return errors.length > 0 ? EXIT.failed : EXIT.passed;
}
function renderLines(errors, advisories, splices) {
  const lines = [...splices.map(formatSplice), ...errors.map(formatIssue), ...advisories.map(formatAdvisory)];
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  lines.push(
    `${count(errors.length, "error", "errors")}, ${count(advisories.length, "advisory", "advisories")}`
  );
  return `${lines.join("\n")}
`;
}
function renderJson(graph, errors, advisories, splices) {
  const report = {
    graph,
    fragments: splices.map((splice) => ({ ...splice, text: formatSplice(splice) })),
    errors: errors.map((issue) => ({ ...issue, text: formatIssue(issue) })),
    advisories: advisories.map((advisory) => ({ ...advisory, text: formatAdvisory(advisory) }))
  };
  return `${JSON.stringify(report, null, 2)}
`;
}
export {
  LINT_USAGE,
  parseLintFlags,
  runCliLint
};
