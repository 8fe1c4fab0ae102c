import { describe, expect, test } from "vitest";
import { formatAdvisory, type LintOptions, lintGraph } from "../../src/graph/lint.js";
import { loadGraphText } from "../../src/graph/load.js";
import { formatIssue } from "../../src/graph/validate.js";
import { agent, gate, graphOf, type RawNode } from "./graph-fixtures.js";

/** An agent node with a tool and a verify command, so only the finding under test can fire. */
function checked(id: string, extra: RawNode = {}): RawNode {
  return agent(id, { allowed_tools: ["Read"], success_check: { verify: { command: "npm test" } }, ...extra });
}

function lint(graph: unknown, options: LintOptions = {}) {
  return lintGraph(JSON.stringify(graph), "g.yaml", options);
}

/** Formatted advisories of one kind; fails the test on any error. */
function advice(graph: unknown, kind: string, options: LintOptions = {}): string[] {
  const result = lint(graph, options);
  expect(result.errors.map(formatIssue)).toEqual([]);
  return result.advisories.filter((advisory) => advisory.kind === kind).map(formatAdvisory);
}

const NEUTRAL =
  "so the run's conclusion can be neutral at best (failure under the policy file's require-evidence: true)";

describe("unknown-placeholder: {{ … }} that reads like a placeholder outside the three namespaces", () => {
  const lookalike = (token: string, ns: string, hint: string, literal: string, field = "prompt") =>
    `advisory: node "b": ${field}: ${token} looks like a placeholder but its namespace ${JSON.stringify(ns)} is ` +
    `not inputs, artifacts or feedback, so it is ${field === "prompt" ? "sent to the model" : "used"} literally; ` +
    `${hint} (to keep the braces literally, write ${literal})`;
  const LIST =
    "placeholders are {{ inputs.NAME }}, {{ artifacts.ID }}, {{ artifacts.ID | inline }} and {{ feedback.ID }}";
  const graphWith = (prompt: string, extra: RawNode = {}) => ({
    inputs: ["file"],
    nodes: [checked("a"), checked("b", { depends_on: ["a"], prompt, ...extra })],
  });

  test.each([
    ["{{ input.file }}", "input", "did you mean {{ inputs.file }}?", "{ { input.file } }"],
    ["{{ Inputs.file }}", "Inputs", "did you mean {{ inputs.file }}?", "{ { Inputs.file } }"],
    ["{{INPUTS.file}}", "INPUTS", "did you mean {{ inputs.file }}?", "{ { INPUTS.file } }"],
    [
      "{{ artifact.a | inline }}",
      "artifact",
      "did you mean {{ artifacts.a | inline }}?",
      "{ { artifact.a | inline } }",
    ],
    ["{{ Feedbacks.b }}", "Feedbacks", "did you mean {{ feedback.b }}?", "{ { Feedbacks.b } }"],
    ["{{ input }}", "input", "did you mean {{ inputs.NAME }}?", "{ { input } }"],
    [
      "{{ nodes.a.output }}",
      "nodes",
      "did you mean {{ artifacts.a | inline }} (its reply; {{ artifacts.a }} is its file's path)?",
      "{ { nodes.a.output } }",
    ],
    [
      "{{ a.output }}",
      "a",
      "did you mean {{ artifacts.a | inline }} (its reply; {{ artifacts.a }} is its file's path)?",
      "{ { a.output } }",
    ],
    ["{{ file }}", "file", "did you mean {{ inputs.file }}?", "{ { file } }"],
    ["{{ bogus }}", "bogus", LIST, "{ { bogus } }"],
    ["{{ artifactsDir }}", "artifactsDir", LIST, "{ { artifactsDir } }"],
  ])("%s fires, naming the namespace and the likely placeholder", (token, ns, hint, literal) => {
    expect(
      advice(graphWith(`Read ${token} and fix it.`), "unknown-placeholder", { inputs: ["file"] }),
    ).toEqual([lookalike(token, ns, hint, literal)]);
  });

  test("the text is indeed sent as written: the graph loads and its prompt keeps the token", () => {
    const loaded = loadGraphText(JSON.stringify(graphWith("Read {{ input.file }}.")), "g.yaml");
    expect(loaded.ok && loaded.graph.nodes_by_id.get("b")?.prompt).toBe("Read {{ input.file }}.");
  });

  test("cwd and the verify command are checked too, each token once per field", () => {
    const graph = graphWith("{{ bogus }} and {{ bogus }}", {
      cwd: "{{ input.dir }}",
      success_check: { verify: { command: "test -f {{ input.file }}" } },
    });
    expect(advice(graph, "unknown-placeholder", { inputs: ["file"] })).toEqual([
      lookalike("{{ bogus }}", "bogus", LIST, "{ { bogus } }"),
      lookalike("{{ input.dir }}", "input", "did you mean {{ inputs.dir }}?", "{ { input.dir } }", "cwd"),
      lookalike(
        "{{ input.file }}",
        "input",
        "did you mean {{ inputs.file }}?",
        "{ { input.file } }",
        "success_check.verify.command",
      ),
    ]);
  });

  test.each([
    "{{ inputs.file }} {{ artifacts.a }} {{ artifacts.a | inline }}",
    "{ { input.file } } — the literal spelling",
    `GitHub writes \${{ github.sha }} and \${{ secrets.TOKEN }}`,
    "Go templates: {{ .Name }}, {{ range .Items }}, {{ 1 + 2 }}, {{ }}",
    'a JSON object: {{"a": 1}}',
  ])("%j is silent", (prompt) => {
    expect(advice(graphWith(prompt), "unknown-placeholder", { inputs: ["file"] })).toEqual([]);
  });

  test("a node id is suggested only for another agent node, never the node itself or a gate", () => {
    const graph = {
      nodes: [
        checked("a"),
        gate("ok", { depends_on: ["a"] }),
        checked("b", { depends_on: ["ok"], prompt: "{{ b.output }} {{ ok.output }}" }),
      ],
    };
    expect(advice(graph, "unknown-placeholder")).toEqual([
      lookalike("{{ b.output }}", "b", LIST, "{ { b.output } }"),
      lookalike("{{ ok.output }}", "ok", LIST, "{ { ok.output } }"),
    ]);
  });
});

describe("cwd errors: absolute, or climbing out of the run's working directory", () => {
  const REFUSED = 'the run fails the node with "… is outside the repository"';
  const absolute = (field: string, path: string) =>
    `invalid graph: node "a": ${field} ${JSON.stringify(path)} is an absolute path; write it relative to the ` +
    `run's working directory — a node works inside the repository (${REFUSED} otherwise), and an absolute ` +
    "path ties the graph to one machine's folders";
  const climbs = (field: string, path: string, resolved: string, base?: string) =>
    `invalid graph: node "a": ${field} ${JSON.stringify(path)} climbs out of the run's working directory ` +
    `(${base === undefined ? "" : `joined to the node's cwd ${JSON.stringify(base)}, `}it resolves to ` +
    `${JSON.stringify(resolved)}) — a node works inside the repository, and ${REFUSED}; name a folder inside ` +
    "the working directory";
  const errors = (extra: RawNode) => lint(graphOf(checked("a", extra))).errors.map(formatIssue);
  const verifyCwd = (cwd: string, nodeCwd?: string) => ({
    ...(nodeCwd !== undefined ? { cwd: nodeCwd } : {}),
    success_check: { verify: { command: "npm test", cwd } },
  });

  test.each([
    ["/srv/app", absolute("cwd", "/srv/app")],
    ["C:\\work\\app", absolute("cwd", "C:\\work\\app")],
    ["..", climbs("cwd", "..", "..")],
    ["../sibling", climbs("cwd", "../sibling", "../sibling")],
    ["packages/../../x", climbs("cwd", "packages/../../x", "../x")],
  ])("cwd %j is an error", (cwd, error) => {
    expect(errors({ cwd })).toEqual([error]);
  });

  test.each(["packages/api", "./packages/api", "packages/../docs", ".", ""])("cwd %j is fine", (cwd) => {
    expect(errors({ cwd })).toEqual([]);
  });

  test("verify.cwd is judged joined to the node's cwd", () => {
    expect(errors(verifyCwd("../..", "packages/api"))).toEqual([]);
    expect(errors(verifyCwd("../../..", "packages/api"))).toEqual([
      climbs("success_check.verify.cwd", "../../..", "..", "packages/api"),
    ]);
    expect(errors(verifyCwd(".."))).toEqual([climbs("success_check.verify.cwd", "..", "..")]);
    expect(errors(verifyCwd("/tmp", "packages/api"))).toEqual([absolute("success_check.verify.cwd", "/tmp")]);
  });

  test("a cwd that is already refused is not reported again through its verify.cwd", () => {
    expect(errors(verifyCwd("sub", ".."))).toEqual([climbs("cwd", "..", "..")]);
  });

  test("a placeholder in cwd skips the check until the run fills it in", () => {
    expect(errors({ cwd: "{{ inputs.dir }}/.." })).toEqual([]);
    expect(errors(verifyCwd("../..", "{{ inputs.dir }}"))).toEqual([]);
    expect(errors(verifyCwd("/abs", "{{ inputs.dir }}"))).toEqual([
      absolute("success_check.verify.cwd", "/abs"),
    ]);
  });

  test("they are lint errors (lint exits 1) and come with the graph's advisories; the graph still loads", () => {
    const graph = graphOf(checked("a", { cwd: "..", prompt: "Reply PASS or FAIL." }));
    expect(loadGraphText(JSON.stringify(graph), "g.yaml").ok).toBe(true);
    const result = lint(graph);
    expect(result.errors.map(formatIssue)).toEqual([climbs("cwd", "..", "..")]);
    expect(result.advisories.map((advisory) => advisory.kind)).toEqual(["unchecked-verdict"]);
  });
});

describe("unverified-sink / only-gate-sinks: a run that can conclude neutral at best", () => {
  const UNVERIFIED =
    "is a sink (no node depends on it) without success_check.verify: success needs an engine-run verify on " +
    `every sink that is not a gate, ${NEUTRAL}; add success_check.verify to it with a command that checks ` +
    "the work (the test suite, a build)";

  test("each agent sink without a verify command gets one, whichever other sinks are verified", () => {
    const graph = graphOf(
      agent("plan", { allowed_tools: ["Read"] }),
      checked("build", { depends_on: ["plan"] }),
      agent("docs", { depends_on: ["plan"], allowed_tools: ["Read"] }),
      agent("notes", { depends_on: ["plan"], allowed_tools: ["Read"] }),
    );
    expect(advice(graph, "unverified-sink")).toEqual([
      `advisory: node "docs": ${UNVERIFIED}`,
      `advisory: node "notes": ${UNVERIFIED}`,
    ]);
  });

  test("a verify command on a node that is not a sink does not count", () => {
    const graph = graphOf(
      checked("build"),
      agent("review", { depends_on: ["build"], allowed_tools: ["Read"] }),
    );
    expect(advice(graph, "unverified-sink")).toEqual([`advisory: node "review": ${UNVERIFIED}`]);
  });

  test("a completion command is engine-run evidence (its PASS is PASS (verified)); a todos gate is the model's plan", () => {
    const graph = graphOf(
      agent("plan", { allowed_tools: ["Read"] }),
      agent("fix", {
        depends_on: ["plan"],
        allowed_tools: ["Read"],
        completion: { verify: { command: "npm test", expect_exit: 0 }, max_attempts: 3 },
      }),
      agent("tidy", {
        depends_on: ["plan"],
        allowed_tools: ["Read"],
        completion: { verify: { todos: "all_done" }, max_attempts: 2 },
      }),
    );
    expect(advice(graph, "unverified-sink")).toEqual([
      'advisory: node "tidy": is a sink (no node depends on it) whose only check is completion todos: ' +
        "all_done, which reads the plan the model declared about its own work, not an engine-run verify: " +
        `success needs an engine-run verify on every sink that is not a gate, ${NEUTRAL}; add ` +
        "success_check.verify (or make completion.verify a command) that checks the work (the test suite, a " +
        "build)",
    ]);
  });

  test("every sink verified: silent", () => {
    const graph = graphOf(
      checked("a"),
      checked("b", { depends_on: ["a"] }),
      checked("c", { depends_on: ["a"] }),
    );
    expect(lint(graph).advisories).toEqual([]);
  });

  test("every sink a gate: one advisory, on the first gate sink, naming them all", () => {
    const graph = graphOf(
      checked("a"),
      gate("ship", { depends_on: ["a"] }),
      gate("announce", { depends_on: ["a"] }),
    );
    expect(lint(graph).advisories.map(formatAdvisory)).toEqual([
      'advisory: node "ship": every sink of the graph is a gate ("ship", "announce") and a person\'s approval ' +
        `is not build evidence, ${NEUTRAL}; add an agent node after the gates with success_check.verify ` +
        "running a command that checks the work",
    ]);
  });

  test("a graph of gates only says so", () => {
    const graph = graphOf(gate("first"), gate("second", { depends_on: ["first"] }));
    expect(lint(graph).advisories.map(formatAdvisory)).toEqual([
      `advisory: node "second": the graph has only gates: nothing runs and nothing is verified, ${NEUTRAL}; ` +
        "add an agent node after the gates with success_check.verify running a command that checks the work",
    ]);
  });

  test("a gate followed by a verified agent sink: silent", () => {
    const graph = graphOf(
      checked("a"),
      gate("ok", { depends_on: ["a"] }),
      checked("b", { depends_on: ["ok"] }),
    );
    expect(lint(graph).advisories).toEqual([]);
  });
});

describe("retry and feedback bounds", () => {
  const CAUSES =
    "nonzero_exit, run_error, timeout, output_error, budget_exceeded, verify_failed, result_mismatch";

  test.each([
    ["on: []", { max: 2, on: [] }],
    ["on absent", { max: 2 }],
  ])("retry.max > 0 with %s never retries (the engine retries only listed causes)", (_what, retry) => {
    expect(advice(graphOf(checked("a", { retry })), "retry-never-fires")).toEqual([
      `advisory: node "a": retry.max is 2 but retry.on lists no cause, so it never retries; list the causes to ` +
        `retry on (${CAUSES}), or remove retry`,
    ]);
  });

  test("retry.max 0, or a listed cause: silent", () => {
    expect(lint(graphOf(checked("a", { retry: { max: 0 } }))).advisories).toEqual([]);
    expect(lint(graphOf(checked("a", { retry: { max: 3, on: ["timeout"] } }))).advisories).toEqual([]);
  });

  test("retry.max above 10 names the worst-case runs; 10 is silent", () => {
    expect(advice(graphOf(checked("a", { retry: { max: 11, on: ["timeout"] } })), "costly-retry")).toEqual([
      'advisory: node "a": retry.max is 11, so this node may run up to 1 + 11 = 12 times, each a paid model ' +
        "call; lower retry.max to 10 or fewer",
    ]);
    expect(lint(graphOf(checked("a", { retry: { max: 10, on: ["timeout"] } }))).advisories).toEqual([]);
  });

  test("a costly retry inside a feedback body multiplies by the arc's runs", () => {
    const graph = graphOf(
      checked("code", { prompt: "fix {{ feedback.review }}", retry: { max: 20, on: ["nonzero_exit"] } }),
      checked("review", { depends_on: ["code"], feedback: { rerun: "code", max: 2 } }),
    );
    expect(advice(graph, "costly-retry")).toEqual([
      'advisory: node "code": retry.max is 20, so this node may run up to (1 + 20) × (1 + 2) = 63 times (its ' +
        'retries in each of the 3 runs of "review"\'s feedback arc), each a paid model call; lower retry.max to ' +
        "10 or fewer",
    ]);
  });

  test("feedback.max above 10 names the worst-case executions of the body, retries included", () => {
    const body = (max: number, retry: RawNode = {}) =>
      graphOf(
        checked("code", { prompt: "fix {{ feedback.review }}", ...retry }),
        checked("test", { depends_on: ["code"] }),
        checked("review", { depends_on: ["test"], feedback: { rerun: "code", max } }),
      );
    expect(advice(body(11), "costly-feedback")).toEqual([
      'advisory: node "review": feedback.max is 11, so the arc may run its body ("code", "test", "review") 12 ' +
        "times: up to (1 + 11) × 3 = 36 executions, each a paid model call; lower feedback.max to 10 or fewer",
    ]);
    expect(advice(body(11, { retry: { max: 2, on: ["timeout"] } }), "costly-feedback")).toEqual([
      'advisory: node "review": feedback.max is 11, so the arc may run its body ("code", "test", "review") 12 ' +
        "times: up to (1 + 11) × 3 = 36 executions (60 with the body's retries), each a paid model call; " +
        "lower feedback.max to 10 or fewer",
    ]);
    // A retry that never fires adds nothing to the worst case.
    expect(advice(body(11, { retry: { max: 2 } }), "costly-feedback")[0]).not.toContain(
      "with the body's retries",
    );
    expect(lint(body(10)).advisories).toEqual([]);
  });
});
