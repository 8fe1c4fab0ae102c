import { describe, expect, test } from "vitest";
import { type Graph, loadGraphObject, loadGraphText } from "../../src/graph/load.js";
import { searchPattern } from "../../src/graph/pattern.js";
import { formatIssue } from "../../src/graph/validate.js";
import { agent, graphOf, issuesOf } from "./graph-fixtures.js";

const REVIEW_YAML = `
name: review-pr
version: 1
inputs: [task]
concurrency: 2
on_fail: continue
nodes:
  - id: code
    type: claude-run
    prompt: |
      Implement {{ inputs.task }}.
    allowed_tools: [Read, Edit, "Bash(git *)"]
    permission_mode: acceptEdits
    timeout: 1h30m
    budget_usd: 2.5
    success_check:
      exit_zero: true
      result_matches: "^DONE"
      verify:
        command: npm test
        timeout: 5m
        output_matches: "passed"
    retry:
      max: 1
      on: [nonzero_exit, verify_failed]
  - id: review
    depends_on: [code]
    prompt: "Review {{ artifacts.code }}"
    feedback: { rerun: code, max: 2 }
  - id: approve
    type: gate
    depends_on: [review]
`;

function loaded(text: string, source = "graph.yaml"): Graph {
  const result = loadGraphText(text, source);
  if (!result.ok)
    throw new Error(`expected the graph to load:\n${result.issues.map(formatIssue).join("\n")}`);
  return result.graph;
}

function textIssues(text: string): string[] {
  const result = loadGraphText(text, "graph.yaml");
  return result.ok ? [] : result.issues.map(formatIssue);
}

describe("a graph file loads from YAML or JSON into a normalised graph", () => {
  test("YAML and JSON spellings of the same graph load to the same graph", () => {
    const fromYaml = loaded(REVIEW_YAML);
    const fromJson = loaded(JSON.stringify(fromYaml.spec), "graph.json");
    expect(fromJson.spec).toEqual(fromYaml.spec);
    expect(fromJson.nodes.map((node) => node.id)).toEqual(["code", "review", "approve"]);
  });

  test("declared values are kept, durations become milliseconds and patterns are compiled", () => {
    const graph = loaded(REVIEW_YAML);
    expect(graph).toMatchObject({
      source: "graph.yaml",
      name: "review-pr",
      version: "1",
      inputs: ["task"],
      concurrency: 2,
      on_fail: "continue",
    });
    const code = graph.nodes_by_id.get("code");
    expect(code).toMatchObject({
      type: "agent",
      prompt: "Implement {{ inputs.task }}.\n",
      allowed_tools: ["Read", "Edit", "Bash(git *)"],
      permission_mode: "acceptEdits",
      timeout_ms: 5_400_000,
      budget_usd: 2.5,
      retry: { max: 1, on: ["nonzero_exit", "verify_failed"] },
    });
    expect(code?.success_check.exit_zero).toBe(true);
    expect(code?.success_check.verify).toMatchObject({
      command: "npm test",
      timeout_ms: 300_000,
      expect_exit: 0,
    });
    const resultPattern = code?.success_check.result_matches;
    expect(resultPattern?.source).toBe("^DONE");
    expect(resultPattern && searchPattern(resultPattern, "DONE: shipped")).toBe(true);
    expect(resultPattern && searchPattern(resultPattern, "not DONE")).toBe(false);
    expect(graph.nodes_by_id.get("review")?.feedback).toEqual({
      rerun: "code",
      max: 2,
      body: ["code", "review"],
    });
  });

  test("defaults apply to what a file leaves out", () => {
    const graph = loaded(
      "nodes:\n  - id: only\n    prompt: hi\n    success_check:\n      verify:\n        command: make\n",
    );
    expect(graph).toMatchObject({ name: null, version: null, inputs: [], concurrency: 4, on_fail: "halt" });
    expect(graph.nodes[0]).toMatchObject({
      type: "agent",
      depends_on: [],
      cwd: null,
      allowed_tools: [],
      permission_mode: "dontAsk",
      timeout_ms: 20 * 60_000,
      budget_usd: null,
      handoff: "artifact",
      retry: { max: 0, on: [] },
      feedback: null,
      completion: null,
      success_check: {
        exit_zero: false,
        result_matches: null,
        verify: { command: "make", cwd: null, timeout_ms: 120_000, expect_exit: 0, output_matches: null },
      },
    });
  });

  test("the spec records only what was written, so rules about what a node carries can ask it", () => {
    const graph = loaded("nodes:\n  - id: only\n    prompt: hi\n");
    expect(graph.spec).toEqual({ nodes: [{ id: "only", prompt: "hi" }] });
  });

  test("sinks are the nodes nothing depends on", () => {
    expect(loaded(REVIEW_YAML).sinks).toEqual(["approve"]);
    const fanOut = loadGraphObject(
      graphOf(agent("a"), agent("b", { depends_on: ["a"] }), agent("c", { depends_on: ["a"] })),
      "x",
    );
    expect(fanOut.ok && fanOut.graph.sinks).toEqual(["b", "c"]);
  });

  test("type: claude-run, the Go spelling, is read as agent", () => {
    const graph = loaded("nodes:\n  - id: a\n    type: claude-run\n    prompt: hi\n");
    expect(graph.nodes[0]?.type).toBe("agent");
    expect(graph.spec.nodes?.[0]?.type).toBe("agent");
  });

  test("a numeric version is kept as the text written", () => {
    expect(loaded("version: 1.10\nnodes: [{id: a, prompt: hi}]\n").version).toBe("1.10");
    expect(loaded('{"version": 2, "nodes": [{"id": "a", "prompt": "hi"}]}').version).toBe("2");
    expect(loaded("version: v0.1\nnodes: [{id: a, prompt: hi}]\n").version).toBe("v0.1");
  });

  test("an empty YAML value is an absent field", () => {
    const graph = loaded("nodes:\n  - id: a\n    prompt: hi\n    depends_on:\n    success_check:\n");
    expect(graph.nodes[0]?.depends_on).toEqual([]);
    expect(graph.nodes[0]?.success_check.verify).toBeNull();
  });

  test("the planner's already-parsed JSON loads through loadGraphObject", () => {
    const result = loadGraphObject({ nodes: [{ id: "a", prompt: "hi", cwd: null }] }, "planner reply");
    expect(result.ok && result.graph.source).toBe("planner reply");
  });
});

describe("shape errors name the field", () => {
  test("an unknown node field is refused, naming it and the known fields", () => {
    expect(issuesOf(graphOf(agent("a", { promt: "typo" })))).toEqual([
      'invalid graph: node "a": unknown field "promt" (known fields: id, type, depends_on, prompt, cwd, ' +
        "allowed_tools, permission_mode, timeout, budget_usd, handoff, success_check, retry, feedback, completion, agent, worktree, description)",
    ]);
  });

  test("an unknown nested field is refused with its full path", () => {
    expect(
      issuesOf(graphOf(agent("a", { success_check: { verify: { command: "make", timout: "1m" } } }))),
    ).toEqual([
      'invalid graph: node "a": unknown field "success_check.verify.timout" (known fields: command, cwd, timeout, ' +
        "expect_exit, output_matches)",
    ]);
  });

  test("an unknown top-level field is refused, naming it", () => {
    expect(issuesOf({ nodes: [agent("a")], edges: [] })).toEqual([
      'invalid graph: unknown field "edges" (known fields: name, version, inputs, concurrency, on_fail, nodes)',
    ]);
  });

  test("a fragment citation in already-spliced data says where fragments are spliced", () => {
    expect(issuesOf(graphOf(agent("a", { use: "e2e-verify" }))).join("\n")).toContain(
      'invalid graph: node "a": unknown field "use"; use:/with: cite a fragment file, which is spliced only ' +
        "when a graph file is loaded with the fragments/ folder beside it",
    );
  });

  test("a __proto__ key is an unknown field, not a prototype", () => {
    const issues = textIssues('{"nodes": [{"id": "a", "prompt": "hi", "__proto__": {"type": "gate"}}]}');
    expect(issues[0]).toContain('invalid graph: node "a": unknown field "__proto__"');
  });

  test.each([
    [{ budget_usd: "5" }, 'field "budget_usd" must be a number (got "5")'],
    [{ depends_on: "a" }, 'field "depends_on" must be a list (got "a")'],
    [{ retry: { max: 1.5 } }, 'field "retry.max" must be a whole number (got 1.5)'],
    [
      { success_check: { exit_zero: "yes" } },
      'field "success_check.exit_zero" must be true or false (got "yes")',
    ],
    [
      { permission_mode: "yolo" },
      'field "permission_mode" must be one of: acceptEdits, auto, bypassPermissions, dontAsk, manual, plan (got "yolo")',
    ],
    [{ handoff: "memory" }, 'field "handoff" must be one of: artifact, session (got "memory")'],
    [{ timeout: true }, 'field "timeout" must be a string or a number (got true)'],
  ])("a mistyped node field is refused: %j", (fields, reason) => {
    expect(issuesOf(graphOf(agent("a", fields)))).toContain(`invalid graph: node "a": ${reason}`);
  });

  test("an unknown type is refused, listing the valid ones", () => {
    expect(issuesOf(graphOf(agent("a", { type: "shell" })))).toContain(
      'invalid graph: node "a": field "type" must be one of: agent, claude-run, gate (got "shell")',
    );
  });

  test("an unknown on_fail is refused", () => {
    expect(issuesOf({ on_fail: "ignore", nodes: [agent("a")] })).toEqual([
      'invalid graph: field "on_fail" must be one of: halt, continue (got "ignore")',
    ]);
  });

  test("a node without an id, or with a non-string id, is located by index", () => {
    expect(issuesOf(graphOf(agent("a"), { prompt: "x" }, { id: 7, prompt: "y" }))).toEqual([
      'invalid graph: missing required field "nodes[1].id"',
      'invalid graph: field "nodes[2].id" must be a string (got 7)',
    ]);
  });

  test("a node that is not a mapping is refused", () => {
    expect(issuesOf({ nodes: [agent("a"), "b"] })).toEqual([
      'invalid graph: nodes[1] must be a mapping (got "b")',
    ]);
  });

  test("a file that is not a mapping, or is empty, is refused", () => {
    expect(textIssues("- id: a\n")).toEqual([
      "invalid graph: a graph must be a mapping with a nodes list (got a list)",
    ]);
    expect(textIssues("")).toEqual(["invalid graph: graph.yaml is empty: a graph needs a nodes list"]);
  });
});

describe("YAML problems are load errors naming the file", () => {
  test("a syntax error is refused with its line and column, and no dangling colon", () => {
    expect(textIssues("nodes:\n  - id: a\n    prompt: [unclosed\n")).toEqual([
      "invalid graph: cannot parse graph.yaml as YAML: Flow sequence in block collection must be sufficiently " +
        "indented and end with a ] at line 4, column 1",
    ]);
  });

  test("a duplicate key is refused rather than silently overwritten", () => {
    const issues = textIssues("nodes:\n  - id: a\n    prompt: one\n    prompt: two\n");
    expect(issues).toEqual([
      "invalid graph: cannot parse graph.yaml as YAML: Map keys must be unique at line 4, column 5",
    ]);
  });

  test("tabs used as indentation name the line", () => {
    expect(textIssues("nodes:\n\t- id: a\n")).toEqual([
      "invalid graph: cannot parse graph.yaml as YAML: Tabs are not allowed as indentation at line 2, column 1",
    ]);
  });

  test("several YAML documents in one file: counted, located, and no word of the library's API", () => {
    const two = textIssues("nodes: [{id: a, prompt: hi}]\n---\nnodes: []\n");
    expect(two).toEqual([
      "invalid graph: graph.yaml holds 2 YAML documents; a graph file holds one (the second starts at line 2, " +
        "column 1): remove the --- line and what follows, or split the file",
    ]);
    const three = textIssues("name: x\nnodes: []\n---\nnodes: []\n---\nnodes: []\n");
    expect(three).toHaveLength(1);
    expect(three[0]).toContain("graph.yaml holds 3 YAML documents; a graph file holds one");
    expect(three[0]).toContain("at line 3, column 1");
    for (const issue of [...two, ...three]) expect(issue).not.toMatch(/parseAllDocuments|please use/);
  });

  test("a leading --- is one document, not two", () => {
    expect(textIssues("---\nnodes: [{id: a, prompt: hi}]\n")).toEqual([]);
  });

  test("a !!binary value is called binary data, not a mapping", () => {
    const issues = textIssues("nodes:\n  - id: a\n    prompt: !!binary aGVsbG8=\n");
    expect(issues[0]).toBe(
      'invalid graph: node "a": field "prompt" must be a string (got binary data (a !!binary value))',
    );
    expect(issues.join("\n")).not.toContain("mapping");
    expect(textIssues("!!binary aGVsbG8=\n")).toEqual([
      "invalid graph: a graph must be a mapping with a nodes list (got binary data)",
    ]);
  });
});

describe("lint sees every issue at once", () => {
  test("a graph with five distinct errors reports all five", () => {
    const text = `
nodes:
  - id: build
    prompt: build it
    timeout: soon
    allowed_tool: [Read]
  - id: test
    depends_on: [biuld]
    prompt: test it
    retry: { max: 1, on: [flaky] }
  - id: review
    depends_on: [test]
    prompt: review
    success_check: { result_matches: "(a)\\\\1" }
`;
    expect(textIssues(text)).toEqual([
      'invalid graph: node "build": unknown field "allowed_tool" (known fields: id, type, depends_on, prompt, cwd, ' +
        "allowed_tools, permission_mode, timeout, budget_usd, handoff, success_check, retry, feedback, completion, agent, worktree, description)",
      'invalid graph: node "test": depends_on unknown node "biuld"',
      'invalid graph: node "build": timeout: invalid duration "soon": "soon" has no number (want a Go duration like ' +
        "90s, 45m, 1h30m, 1.5h, 500ms)",
      'invalid graph: node "test": retry.on: unknown cause "flaky" (want one of: nonzero_exit, run_error, timeout, ' +
        "output_error, budget_exceeded, verify_failed, result_mismatch)",
      'invalid graph: node "review": success_check.result_matches: invalid regex "(a)\\\\1": error parsing regexp: ' +
        "invalid escape sequence: `\\1`",
    ]);
  });

  test("a shape error in one node does not hide semantic errors elsewhere", () => {
    const issues = issuesOf(
      graphOf(
        agent("a", { budget_usd: "lots" }),
        agent("b", { depends_on: ["b"] }),
        agent("c", { prompt: "" }),
      ),
    );
    expect(issues).toEqual([
      'invalid graph: node "a": field "budget_usd" must be a number (got "lots")',
      'invalid graph: node "b": node depends on itself',
      'invalid graph: node "c": an agent node needs a non-empty prompt — it is all the CLI is told',
    ]);
  });
});

describe("YAML merge keys (<<:), as the Go CLI's YAML library reads them (issue 26)", () => {
  const merged = `
nodes:
  - &base
    id: a
    prompt: one
    allowed_tools: [Read]
    timeout: 5m
  - <<: *base
    id: b
    depends_on: [a]
    prompt: two
`;

  test("a node merges another's fields; its own keys win", () => {
    const loaded = loadGraphText(merged, "graph.yaml");
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join("\n"));
    const b = loaded.graph.nodes_by_id.get("b")!;
    expect(b.allowed_tools).toEqual(["Read"]);
    expect(b.timeout_ms).toBe(300_000);
    expect(b.prompt).toBe("two");
    expect(b.depends_on).toEqual(["a"]);
  });

  test("a list of merged mappings: the earlier one wins, as YAML's merge key says", () => {
    const text = `
nodes:
  - &one { id: a, prompt: one, timeout: 1m }
  - &two { id: c, prompt: two, timeout: 2m, allowed_tools: [Grep] }
  - { <<: [*one, *two], id: b }
`;
    const loaded = loadGraphText(text, "graph.yaml");
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join("\n"));
    const b = loaded.graph.nodes_by_id.get("b")!;
    expect([b.prompt, b.timeout_ms, b.allowed_tools]).toEqual(["one", 60_000, ["Grep"]]);
  });

  // A Go-CLI user's trial (issue 26): the Go CLI ignores a top-level key it does not know, so a graph may
  // keep its shared node settings in one (`defaults: &defaults …`) and merge them with `<<: *defaults`.
  // Here that key is an unknown field like any other; the refusal says so and shows where the anchor goes.
  test("a top-level mapping kept only for its anchor is refused with the place the anchor can go instead", () => {
    const holder = `
defaults: &defaults
  timeout: 10m
  allowed_tools: [Read]
nodes:
  - <<: *defaults
    id: a
    prompt: one
`;
    const loaded = loadGraphText(holder, "graph.yaml");
    expect(loaded.ok).toBe(false);
    const issues = loaded.ok ? [] : loaded.issues.map(formatIssue);
    expect(issues).toEqual([
      'invalid graph: unknown field "defaults"; the Go CLI ignores a top-level key it does not know, so a ' +
        "file may keep a YAML anchor there, but here every key must be a field: anchor the mapping where it " +
        "is first merged instead (`- <<: &defaults {…}` in the first node, `<<: *defaults` in the others) " +
        "(known fields: name, version, inputs, concurrency, on_fail, nodes)",
    ]);
    // The rewrite the message proposes loads, with the same merged fields.
    const moved = `
nodes:
  - <<: &defaults { timeout: 10m, allowed_tools: [Read] }
    id: a
    prompt: one
  - <<: *defaults
    id: b
    prompt: two
`;
    const rewritten = loadGraphText(moved, "graph.yaml");
    if (!rewritten.ok) throw new Error(rewritten.issues.map(formatIssue).join("\n"));
    const b = rewritten.graph.nodes_by_id.get("b")!;
    expect([b.timeout_ms, b.allowed_tools]).toEqual([600_000, ["Read"]]);
  });

  test("an unknown top-level key holding a scalar or a list gets no anchor hint", () => {
    expect(issuesOf({ nodes: [agent("a")], edges: [] })[0]).not.toContain("anchor");
  });
});
