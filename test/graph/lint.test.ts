import { describe, expect, test } from "vitest";
import { formatAdvisory, type LintOptions, lintGraph, verdictTokensIn } from "../../src/graph/lint.js";
import { loadGraphText } from "../../src/graph/load.js";
import { formatIssue } from "../../src/graph/validate.js";
import { agent, gate, graphOf, type RawNode } from "./graph-fixtures.js";

/** An agent node that declares a tool, so only the advisory under test can fire. */
function tooled(id: string, extra: RawNode = {}): RawNode {
  return agent(id, { allowed_tools: ["Read"], ...extra });
}

/**
 * The formatted advisories of `graph` (a JSON object — JSON is YAML); fails the test if it has errors.
 * Most graphs here end in a sink without a verify command, so `unverified-sink` is left out unless the
 * test asks for every kind (it has its own tests below).
 */
function advisoriesOf(graph: unknown, options: LintOptions = {}, every = false): string[] {
  const result = lintGraph(JSON.stringify(graph), "graph.yaml", options);
  expect(result.errors.map(formatIssue)).toEqual([]);
  return result.advisories
    .filter((advisory) => every || advisory.kind !== "unverified-sink")
    .map(formatAdvisory);
}

/** The `[nodeId, kind]` of every advisory of graph file text `text`. */
function kindsOf(text: string, options: LintOptions = {}): [string, string][] {
  return lintGraph(text, "g.yaml", options).advisories.map((advisory) => [advisory.nodeId, advisory.kind]);
}

const VERIFIED = { success_check: { verify: { command: "npm test" } } };

describe("lintGraph: errors are the loader's, advisories need a graph that loads", () => {
  test("errors are exactly what loadGraphText reports, all of them, and no advisory is computed", () => {
    const text = JSON.stringify(
      graphOf(
        agent("a", { prompt: "reply PASS or FAIL about {{ inputs.task }}" }),
        agent("b", { depends_on: ["nope"], timeout: "soon" }),
      ),
    );
    const loaded = loadGraphText(text, "graph.yaml");
    const result = lintGraph(text, "graph.yaml");
    expect(loaded.ok).toBe(false);
    expect(result.errors).toEqual(loaded.ok ? [] : loaded.issues);
    expect(result.errors.map(formatIssue)).toEqual([
      'invalid graph: node "b": depends_on unknown node "nope"',
      'invalid graph: node "b": timeout: invalid duration "soon": "soon" has no number (want a Go duration like ' +
        "90s, 45m, 1h30m, 1.5h, 500ms)",
    ]);
    expect(result.advisories).toEqual([]);
  });

  test("a clean graph has neither errors nor advisories", () => {
    expect(
      lintGraph(
        JSON.stringify(graphOf(tooled("a"), tooled("b", { depends_on: ["a"], ...VERIFIED }))),
        "g.yaml",
      ),
    ).toEqual({ errors: [], advisories: [], splices: [] });
  });

  test('an advisory renders as `advisory: node "ID": REASON` and carries its kind', () => {
    expect(formatAdvisory({ nodeId: "review", kind: "unchecked-verdict", reason: "why" })).toBe(
      'advisory: node "review": why',
    );
    expect(kindsOf(JSON.stringify(graphOf(agent("a"))))).toEqual([
      ["a", "no-tools-no-verify"],
      ["a", "unverified-sink"],
    ]);
  });

  test("advisories come node by node in declaration order", () => {
    const lines = advisoriesOf(graphOf(agent("z"), agent("a", { depends_on: ["z"] })));
    expect(lines.map((line) => line.slice(0, 20))).toEqual(['advisory: node "z": ', 'advisory: node "a": ']);
  });

  test("result_matches without exit_zero earns exit-code-unchecked (the Go CLI leaves the exit code unchecked then); with exit_zero: true it does not", () => {
    expect(
      kindsOf(JSON.stringify(graphOf(tooled("a", { success_check: { result_matches: "^DONE" } })))),
    ).toEqual([
      ["a", "exit-code-unchecked"],
      ["a", "unverified-sink"],
    ]);
    expect(
      kindsOf(
        JSON.stringify(graphOf(tooled("a", { success_check: { result_matches: "^DONE", exit_zero: true } }))),
      ),
    ).toEqual([["a", "unverified-sink"]]);
  });

  test("a node whose verify command decides earns no exit-code-unchecked (issue 17 item 9)", () => {
    const verified = tooled("a", {
      success_check: { result_matches: "^DONE", verify: { command: "npm test" } },
    });
    expect(kindsOf(JSON.stringify(graphOf(verified)))).toEqual([]);
  });
});

describe("unresolved-input: {{ inputs.X }} with no --input X", () => {
  test("a declared input that is not given: run refuses to start without it", () => {
    const graph = { inputs: ["task"], nodes: [tooled("a", { prompt: "do {{ inputs.task }}" })] };
    expect(advisoriesOf(graph)).toEqual([
      'advisory: node "a": prompt: {{ inputs.task }} is declared in inputs: but no value was given, so run ' +
        "refuses to start without it; pass --input task=VALUE",
    ]);
    expect(advisoriesOf(graph, { inputs: ["task"] })).toEqual([]);
  });

  test("an input neither declared nor given: says to pass it, and that declaring it only documents it", () => {
    const graph = graphOf(tooled("a", { cwd: "{{ inputs.dir }}" }));
    expect(advisoriesOf(graph)).toEqual([
      'advisory: node "a": cwd: {{ inputs.dir }} names an input that is neither declared in inputs: nor given, ' +
        "so run refuses to start without it; pass --input dir=VALUE (and declare it under inputs: to document it)",
    ]);
    expect(advisoriesOf(graph, { inputs: ["dir"] })).toEqual([]);
  });

  test("each missing input is reported once per field, whatever the spacing of the token", () => {
    const graph = graphOf(
      tooled("a", {
        prompt: "{{ inputs.task }} then {{inputs.task}} and {{ inputs.other }}",
        success_check: { verify: { command: "grep {{ inputs.task }} log" } },
      }),
    );
    const missing =
      "names an input that is neither declared in inputs: nor given, so run refuses to start without it; " +
      "pass --input task=VALUE (and declare it under inputs: to document it)";
    expect(advisoriesOf(graph, { inputs: ["other"] })).toEqual([
      `advisory: node "a": prompt: {{ inputs.task }} ${missing}`,
      `advisory: node "a": success_check.verify.command: {{ inputs.task }} ${missing}`,
    ]);
  });

  test("{{ artifacts.ID }} naming a non-ancestor is already a load error, so lint reports it once, as an error", () => {
    const text = JSON.stringify(graphOf(tooled("a"), tooled("b", { prompt: "read {{ artifacts.a }}" })));
    expect(lintGraph(text, "g.yaml")).toEqual({
      errors: [
        {
          nodeId: "b",
          reason:
            'prompt: {{ artifacts.a }} names "a", which is not an ancestor of this node — its output may not exist ' +
            "when this node starts; add it to depends_on (directly or through a parent)",
        },
      ],
      advisories: [],
      splices: [],
    });
  });
});

describe("unchecked-verdict: a prompt demanding a verdict token with no result_matches", () => {
  const VERDICT_ADVICE =
    'advisory: node "review": the prompt demands a verdict (PASS, FAIL) but success_check has no result_matches, ' +
    "so the node passes whatever verdict it gives; add success_check.result_matches: '^[*_`\\s]*PASS' — " +
    'anchored, so "did not PASS" does not match';

  test("fires on the bad graph, naming the tokens and the anchored pattern to add", () => {
    const graph = graphOf(
      tooled("review", { prompt: "Review the diff. Reply PASS or FAIL on the first line." }),
    );
    expect(advisoriesOf(graph)).toEqual([VERDICT_ADVICE]);
  });

  test("silent once result_matches checks the reply", () => {
    const graph = graphOf(
      tooled("review", {
        prompt: "Review the diff. Reply PASS or FAIL on the first line.",
        success_check: { exit_zero: true, result_matches: "^[*_`\\s]*PASS" },
      }),
    );
    expect(advisoriesOf(graph)).toEqual([]);
  });

  test("with no passing token among the demanded ones, the advice asks for a pattern only the pass matches", () => {
    const graph = graphOf(tooled("judge", { prompt: "End your reply with VERDICT: and your reasoning." }));
    expect(advisoriesOf(graph)).toEqual([
      'advisory: node "judge": the prompt demands a verdict (VERDICT) but success_check has no result_matches, ' +
        "so the node passes whatever verdict it gives; add success_check.result_matches with a pattern only the " +
        "passing verdict matches, anchored with ^",
    ]);
  });

  test.each([
    ["Review the diff. Reply PASS or FAIL on the first line.", ["PASS", "FAIL"]],
    ["answer with APPROVED if it is fine", ["APPROVED"]],
    ["End your reply with VERDICT: followed by the reason", ["VERDICT"]],
    ["Respond with exactly one word: **LGTM** or `CHANGES_REQUESTED`", ["LGTM", "CHANGES_REQUESTED"]],
    ['Do NOT edit files. Start your reply with "PASS", "FAIL" or "BLOCKED".', ["PASS", "FAIL", "BLOCKED"]],
    ["REPLY DONE WHEN FINISHED", ["DONE"]],
    ["Print OK. Later, say YES or NO.", ["OK", "YES", "NO"]],
  ])("%j demands %j", (prompt, tokens) => {
    expect(verdictTokensIn(prompt)).toEqual(tokens);
  });

  test.each([
    "Summarise the failing tests; if the log says FAIL, fix the cause.",
    "Write the README and print a summary.",
    "reply done when finished",
    "Reply in JSON with the keys PASS_COUNT and FAIL_COUNT.",
    "The previous run printed PASS; make sure it still does.",
    "Fix the bug. Do NOT touch the tests. Tests must PASS.",
    "Reply SHIPIT when ready",
  ])("%j demands no verdict token (the detector is conservative)", (prompt) => {
    expect(verdictTokensIn(prompt)).toEqual([]);
  });
});

describe("verify-splices-model-output: model-written text inside a check's command", () => {
  const up = agent("up", { allowed_tools: ["Read"] });
  const withCheck = (check: RawNode): RawNode[] => [
    up,
    tooled("review", {
      depends_on: ["up"],
      feedback: { rerun: "up", max: 1 },
      prompt: "fix {{ feedback.review }}",
      ...check,
    }),
  ];

  test("{{ artifacts.ID | inline }} in the verify command fires, and says to pass the path instead", () => {
    const graph = graphOf(
      ...withCheck({ success_check: { verify: { command: "sh -c '{{ artifacts.up | inline }}'" } } }),
    );
    expect(advisoriesOf(graph)).toEqual([
      'advisory: node "review": success_check.verify.command splices model-written text into the check with ' +
        "{{ artifacts.up | inline }}, so the model decides what the check runs (and can make it pass); use the " +
        "file's path {{ artifacts.up }} and read it in the command",
    ]);
  });

  test("the artifact's path is silent", () => {
    const graph = graphOf(
      ...withCheck({ success_check: { verify: { command: "test -s {{ artifacts.up }}" } } }),
    );
    expect(advisoriesOf(graph)).toEqual([]);
  });

  test("{{ feedback.ID }} in the verify command fires", () => {
    const graph = graphOf(
      ...withCheck({ success_check: { verify: { command: "echo {{ feedback.review }}" } } }),
    );
    expect(advisoriesOf(graph)).toEqual([
      'advisory: node "review": success_check.verify.command splices model-written text into the check with ' +
        "{{ feedback.review }}, so the model decides what the check runs (and can make it pass); remove it and " +
        "check the work itself",
    ]);
  });

  test("the completion gate's command is a check too", () => {
    const graph = graphOf(
      ...withCheck({
        success_check: { verify: { command: "npm test" } },
        completion: { verify: { command: "{{ artifacts.up | inline }}" }, max_attempts: 1 },
      }),
    );
    expect(advisoriesOf(graph).filter((a) => !a.includes("does not run"))).toEqual([
      'advisory: node "review": completion.verify.command splices model-written text into the check with ' +
        "{{ artifacts.up | inline }}, so the model decides what the check runs (and can make it pass); use the " +
        "file's path {{ artifacts.up }} and read it in the command",
    ]);
  });

  test("model text in the prompt is what prompts are for: silent", () => {
    const graph = graphOf(...withCheck({ prompt: "{{ artifacts.up | inline }} {{ feedback.review }}" }));
    expect(advisoriesOf(graph)).toEqual([]);
  });
});

describe("feedback-not-quoted: an arc whose body never quotes its payload", () => {
  const loop = (codePrompt: string, reviewExtra: RawNode = {}): RawNode[] => [
    tooled("code", { prompt: codePrompt }),
    tooled("test", { depends_on: ["code"] }),
    tooled("review", { depends_on: ["test"], feedback: { rerun: "code", max: 2 }, ...reviewExtra }),
  ];

  test("fires on the rerun target, naming the token to paste and where", () => {
    expect(advisoriesOf(graphOf(...loop("implement it")))).toEqual([
      'advisory: node "code": re-run by the feedback arc of "review", but no prompt in that arc\'s body quotes ' +
        "{{ feedback.review }}, so each round repeats the same prompts — twice the money, same result; paste " +
        '{{ feedback.review }} into the prompt of "code"',
    ]);
  });

  test("silent once the rerun target's prompt quotes it", () => {
    expect(advisoriesOf(graphOf(...loop("implement it; reviewer said: {{ feedback.review }}")))).toEqual([]);
  });

  test("silent when another body node's prompt quotes it", () => {
    expect(
      advisoriesOf(graphOf(...loop("implement it", { prompt: "review; last round: {{ feedback.review }}" }))),
    ).toEqual([]);
  });

  test("a quote in a verify command reaches no model, so it does not count", () => {
    const nodes = loop("implement it", {
      success_check: { verify: { command: "test -n '{{ feedback.review }}'" } },
    });
    expect(kindsOf(JSON.stringify(graphOf(...nodes)))).toEqual([
      ["code", "feedback-not-quoted"],
      ["review", "verify-splices-model-output"],
    ]);
  });
});

describe("no-tools-no-verify: an agent node declaring neither allowed_tools nor success_check.verify", () => {
  test("fires, naming the permission mode it is left to", () => {
    expect(advisoriesOf(graphOf(agent("a", { permission_mode: "acceptEdits" })))).toEqual([
      'advisory: node "a": declares neither allowed_tools nor success_check.verify, so what it may do is left to ' +
        "permission_mode acceptEdits and nothing but its own reply judges it; list the tools it needs in " +
        "allowed_tools, or add success_check.verify with a command that checks its work",
    ]);
  });

  test.each([
    ["allowed_tools declared (even empty)", { allowed_tools: [] }],
    ["a verify command", { success_check: { verify: { command: "npm test" } } }],
    // The engine runs it and decides the PASS by it (SPEC §7): the node is judged by a command.
    ["a completion command", { completion: { verify: { command: "npm test" }, max_attempts: 2 } }],
  ])("silent with %s", (_what, extra) => {
    expect(advisoriesOf(graphOf(agent("a", extra)))).toEqual([]);
  });

  test("a todos: all_done gate does not silence it (the model's own plan judges the node): the advisory names it", () => {
    const node = agent("a", { completion: { verify: { todos: "all_done" }, max_attempts: 2 } });
    expect(advisoriesOf(graphOf(node))).toEqual([
      'advisory: node "a": declares neither allowed_tools nor success_check.verify, so what it may do is left ' +
        "to permission_mode dontAsk and nothing but its own reply and the plan it declared (completion " +
        "todos: all_done) judges it; list the tools it needs in allowed_tools, or add success_check.verify " +
        "(or make completion.verify a command) that checks its work",
    ]);
  });

  test("a gate spawns nothing and gets no advisory of its own", () => {
    const graph = graphOf(
      tooled("a"),
      gate("ok", { depends_on: ["a"] }),
      tooled("b", { depends_on: ["ok"], ...VERIFIED }),
    );
    expect(advisoriesOf(graph, {}, true)).toEqual([]);
  });
});
