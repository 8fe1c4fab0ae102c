import { describe, expect, test } from "vitest";
import { formatIssue } from "../../src/graph/validate.js";
import { agent, gate, graphOf, issuesOf } from "./graph-fixtures.js";

describe('issues render as `invalid graph: node "ID": REASON`', () => {
  test("a node issue names the node; a graph issue names none", () => {
    expect(formatIssue({ nodeId: "build", reason: "broken" })).toBe('invalid graph: node "build": broken');
    expect(formatIssue({ nodeId: null, reason: "graph has no nodes" })).toBe(
      "invalid graph: graph has no nodes",
    );
  });

  test("a valid graph has no issues", () => {
    expect(issuesOf(graphOf(agent("a"), agent("b", { depends_on: ["a"] })))).toEqual([]);
  });
});

describe("ids are unique, non-empty, one safe path element", () => {
  test("an empty id is refused and located by index", () => {
    expect(issuesOf(graphOf(agent("a"), agent("  ")))).toContain("invalid graph: nodes[1] has an empty id");
  });

  test("a duplicate id is refused, naming both places", () => {
    expect(issuesOf(graphOf(agent("a"), agent("a")))).toContain(
      'invalid graph: node "a": duplicate node id (nodes[0] and nodes[1])',
    );
  });

  test.each(["../x", "a b", ".hidden", "-x", "_x", "é", "a/", "/a", "a//b", "a/../b"])(
    "unsafe id %j is refused",
    (id) => {
      expect(issuesOf(graphOf(agent(id)))).toEqual([
        `invalid graph: node ${JSON.stringify(id)}: node id ${JSON.stringify(id)} must be one path element: ` +
          'letters, digits, ".", "_" or "-", starting with a letter or digit',
      ]);
    },
  );

  test.each(["a", "A1", "0x", "build.step_1-a"])("safe id %j is accepted", (id) => {
    expect(issuesOf(graphOf(agent(id)))).toEqual([]);
  });

  // SPEC §3: ids minted by fragment splicing (USING/INNER, nested TOP/MID/INNER) contain "/", and a run's
  // graph.json holds them; as data they load (a graph FILE writing one is refused by the splicer).
  test.each(["lane/dev", "top/mid/inner"])("spliced id %j is accepted as already-spliced data", (id) => {
    expect(issuesOf(graphOf(agent(id)))).toEqual([]);
  });
});

describe("depends_on names other, existing nodes, without cycles", () => {
  test("an unknown dependency is refused, naming it", () => {
    expect(issuesOf(graphOf(agent("a"), agent("b", { depends_on: ["tset"] })))).toEqual([
      'invalid graph: node "b": depends_on unknown node "tset"',
    ]);
  });

  test("a self-dependency is refused", () => {
    expect(issuesOf(graphOf(agent("a", { depends_on: ["a"] })))).toEqual([
      'invalid graph: node "a": node depends on itself',
    ]);
  });

  test("a dependency listed twice is refused", () => {
    expect(issuesOf(graphOf(agent("a"), agent("b", { depends_on: ["a", "a"] })))).toEqual([
      'invalid graph: node "b": depends_on lists "a" more than once',
    ]);
  });

  test("a cycle is refused and named node by node", () => {
    const issues = issuesOf(
      graphOf(
        agent("a", { depends_on: ["c"] }),
        agent("b", { depends_on: ["a"] }),
        agent("c", { depends_on: ["b"] }),
      ),
    );
    expect(issues).toEqual(['invalid graph: node "a": dependency cycle: a -> c -> b -> a']);
  });

  test("every separate cycle is reported", () => {
    const issues = issuesOf(
      graphOf(
        agent("a", { depends_on: ["b"] }),
        agent("b", { depends_on: ["a"] }),
        agent("c", { depends_on: ["d"] }),
        agent("d", { depends_on: ["c"] }),
      ),
    );
    expect(issues).toEqual([
      'invalid graph: node "a": dependency cycle: a -> b -> a',
      'invalid graph: node "c": dependency cycle: c -> d -> c',
    ]);
  });
});

describe("handoff: session continues exactly one non-gate parent", () => {
  test("a root session node is refused", () => {
    expect(issuesOf(graphOf(agent("a", { handoff: "session" })))).toEqual([
      'invalid graph: node "a": handoff: session needs exactly one parent whose session it continues (has 0); ' +
        "use handoff: artifact for a root node or a fan-in",
    ]);
  });

  test("a fan-in session node is refused", () => {
    const issues = issuesOf(
      graphOf(agent("a"), agent("b"), agent("c", { handoff: "session", depends_on: ["a", "b"] })),
    );
    expect(issues).toEqual([
      'invalid graph: node "c": handoff: session needs exactly one parent whose session it continues (has 2); ' +
        "use handoff: artifact for a root node or a fan-in",
    ]);
  });

  test("a session node whose parent is a gate is refused", () => {
    expect(issuesOf(graphOf(gate("ok"), agent("b", { handoff: "session", depends_on: ["ok"] })))).toEqual([
      'invalid graph: node "b": handoff: session with gate parent "ok" — a gate records no session to continue; ' +
        "use handoff: artifact",
    ]);
  });

  test("a session node with one agent parent is accepted", () => {
    expect(issuesOf(graphOf(agent("a"), agent("b", { handoff: "session", depends_on: ["a"] })))).toEqual([]);
  });
});

describe("agent and gate nodes carry what they can use", () => {
  test.each([{}, { prompt: "" }, { prompt: " \n " }])(
    "an agent node without a prompt is refused (%j)",
    (fields) => {
      expect(issuesOf(graphOf({ id: "a", ...fields }))).toEqual([
        'invalid graph: node "a": an agent node needs a non-empty prompt — it is all the CLI is told',
      ]);
    },
  );

  test.each([
    ["prompt", "review this"],
    ["cwd", "sub"],
    ["allowed_tools", ["Read"]],
    ["permission_mode", "plan"],
    ["timeout", "5m"],
    ["budget_usd", 1],
    ["retry", { max: 1, on: ["nonzero_exit"] }],
    ["completion", { verify: { command: "true" }, max_attempts: 1 }],
  ])("a gate may not set %s", (field, value) => {
    expect(issuesOf(graphOf(agent("a"), gate("ok", { depends_on: ["a"], [field]: value })))).toEqual([
      `invalid graph: node "ok": a gate spawns no process, so it may not set ${field}; ` +
        "remove it or make this an agent node",
    ]);
  });

  test("a gate may not set a success check", () => {
    expect(issuesOf(graphOf(gate("ok", { success_check: { exit_zero: true } })))).toEqual([
      'invalid graph: node "ok": a gate may not set success_check: a person\'s approval is its only check',
    ]);
  });

  test("a gate may not set handoff: session", () => {
    expect(issuesOf(graphOf(agent("a"), gate("ok", { depends_on: ["a"], handoff: "session" })))).toEqual([
      'invalid graph: node "ok": a gate has no session to continue, so it may not set handoff: session',
    ]);
  });

  test("a gate as the Go CLI writes it (handoff: artifact, empty success_check) is accepted", () => {
    expect(
      issuesOf(
        graphOf(agent("a"), gate("ok", { depends_on: ["a"], handoff: "artifact", success_check: {} })),
      ),
    ).toEqual([]);
  });

  test.each([
    [["Read", ""], "allowed_tools has an empty entry"],
    [[" Read"], 'allowed_tools entry " Read" has surrounding whitespace'],
  ])("allowed_tools %j is refused", (tools, reason) => {
    expect(issuesOf(graphOf(agent("a", { allowed_tools: tools })))).toEqual([
      `invalid graph: node "a": ${reason}`,
    ]);
  });
});

describe("durations are Go durations, positive, and verify stays under its ceiling", () => {
  test.each([
    ["5 minutes", 'timeout: invalid duration "5 minutes": unknown unit " minutes"'],
    ["90", 'timeout: invalid duration "90": missing unit after "90"'],
    ["0", 'timeout "0" must be positive'],
    ["-5m", 'timeout "-5m" must be positive'],
  ])("node timeout %j is refused", (timeout, reason) => {
    const issues = issuesOf(graphOf(agent("a", { timeout })));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(`invalid graph: node "a": ${reason}`);
  });

  test("a node timeout has no ceiling", () => {
    expect(issuesOf(graphOf(agent("a", { timeout: "3h" })))).toEqual([]);
  });

  test.each([
    ["soon", 'success_check.verify.timeout: invalid duration "soon"'],
    ["0s", 'success_check.verify.timeout "0s" must be positive'],
    [
      "11m",
      "success_check.verify.timeout 11m exceeds the 10m ceiling — a verify command runs on its node's critical " +
        "path; split long work into its own node",
    ],
  ])("verify timeout %j is refused", (timeout, reason) => {
    const issues = issuesOf(
      graphOf(agent("a", { success_check: { verify: { command: "make test", timeout } } })),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(`invalid graph: node "a": ${reason}`);
  });

  test("a verify timeout exactly at the ceiling is accepted", () => {
    expect(
      issuesOf(graphOf(agent("a", { success_check: { verify: { command: "make", timeout: "10m" } } }))),
    ).toEqual([]);
  });

  test("the verify ceiling is a parameter of loading", () => {
    const graph = graphOf(agent("a", { success_check: { verify: { command: "make", timeout: "1m" } } }));
    expect(issuesOf(graph, { verifyTimeoutCeilingMs: 30_000 })).toEqual([
      'invalid graph: node "a": success_check.verify.timeout 1m exceeds the 30s ceiling — a verify command runs ' +
        "on its node's critical path; split long work into its own node",
    ]);
    expect(issuesOf(graph, { verifyTimeoutCeilingMs: 60_000 })).toEqual([]);
  });
});

describe("success_check is runnable", () => {
  test.each([{}, { command: "" }, { command: "   " }])(
    "a verify without a command is refused (%j)",
    (verify) => {
      expect(issuesOf(graphOf(agent("a", { success_check: { verify } })))).toEqual([
        'invalid graph: node "a": success_check.verify needs a command — a verify step with nothing to run would ' +
          "pass every time",
      ]);
    },
  );

  test.each(["# TODO: add tests", "\n  # run the suite\n\n#later\n"])(
    "a verify command of only # comments runs nothing, so it is refused (%j)",
    (command) => {
      expect(issuesOf(graphOf(agent("a", { success_check: { verify: { command } } })))).toEqual([
        'invalid graph: node "a": success_check.verify.command is only # comments — it runs nothing and would ' +
          "pass every time; give the command that checks the work",
      ]);
    },
  );

  test("a verify command with a comment and a command is accepted", () => {
    const command = "# the suite\nnpm test # all of it";
    expect(issuesOf(graphOf(agent("a", { success_check: { verify: { command } } })))).toEqual([]);
  });

  test.each([
    ["result_matches", { result_matches: "(DONE" }],
    ["verify.output_matches", { verify: { command: "make", output_matches: "(DONE" } }],
  ])("a bad %s regex is refused", (field, check) => {
    expect(issuesOf(graphOf(agent("a", { success_check: check })))).toEqual([
      `invalid graph: node "a": success_check.${field}: invalid regex "(DONE": error parsing regexp: ` +
        "missing closing ): `(DONE`",
    ]);
  });

  test("a backreference is refused at load, because RE2 refuses it", () => {
    const issues = issuesOf(graphOf(agent("a", { success_check: { result_matches: "(a)\\1" } })));
    expect(issues).toEqual([
      'invalid graph: node "a": success_check.result_matches: invalid regex "(a)\\\\1": error parsing regexp: ' +
        "invalid escape sequence: `\\1`",
    ]);
  });

  test.each([-1, 256])("expect_exit %d is not an exit status", (code) => {
    expect(
      issuesOf(graphOf(agent("a", { success_check: { verify: { command: "make", expect_exit: code } } }))),
    ).toEqual([
      `invalid graph: node "a": success_check.verify.expect_exit must be an exit status from 0 to 255 (got ${code})`,
    ]);
  });
});

describe("retry and budgets", () => {
  test("an unknown retry cause is refused, listing the valid ones", () => {
    expect(issuesOf(graphOf(agent("a", { retry: { max: 1, on: ["nonzero-exit"] } })))).toEqual([
      'invalid graph: node "a": retry.on: unknown cause "nonzero-exit" (want one of: nonzero_exit, run_error, ' +
        "timeout, output_error, budget_exceeded, verify_failed, result_mismatch)",
    ]);
  });

  test("every known retry cause is accepted", () => {
    const on = [
      "nonzero_exit",
      "run_error",
      "timeout",
      "output_error",
      "budget_exceeded",
      "verify_failed",
      "result_mismatch",
    ];
    expect(issuesOf(graphOf(agent("a", { retry: { max: 2, on } })))).toEqual([]);
  });

  test("a negative retry.max is refused; zero is accepted", () => {
    expect(issuesOf(graphOf(agent("a", { retry: { max: -1, on: ["timeout"] } })))).toEqual([
      'invalid graph: node "a": retry.max must be >= 0 (got -1)',
    ]);
    expect(issuesOf(graphOf(agent("a", { retry: { max: 0, on: ["timeout"] } })))).toEqual([]);
  });

  test.each([0, -2])("budget_usd %d is refused", (budget) => {
    expect(issuesOf(graphOf(agent("a", { budget_usd: budget })))).toEqual([
      `invalid graph: node "a": budget_usd must be a positive number of US dollars (got ${budget})`,
    ]);
  });
});

describe("the graph level", () => {
  test.each([0, 11, -1])("concurrency %d is refused", (concurrency) => {
    expect(issuesOf({ concurrency, nodes: [agent("a")] })).toEqual([
      `invalid graph: concurrency must be from 1 to 10 (got ${concurrency})`,
    ]);
  });

  test.each([1, 10])("concurrency %d is accepted", (concurrency) => {
    expect(issuesOf({ concurrency, nodes: [agent("a")] })).toEqual([]);
  });

  test("a graph without nodes is refused", () => {
    expect(issuesOf({ name: "empty" })).toEqual(["invalid graph: graph has no nodes"]);
    expect(issuesOf({ name: "empty", nodes: [] })).toEqual(["invalid graph: graph has no nodes"]);
  });

  test("an input listed twice or one no placeholder can name is refused", () => {
    expect(issuesOf({ inputs: ["task", "task", "my task"], nodes: [agent("a")] })).toEqual([
      'invalid graph: input "task" is listed more than once',
      'invalid graph: input name "my task" cannot be referenced as {{ inputs.NAME }}: use letters, digits, ".", ' +
        '"_", "-" or "/"',
    ]);
  });
});

describe("feedback arcs are bounded, point backward and own a closed body", () => {
  const loop = (reviewExtra: Record<string, unknown> = {}) => [
    agent("code"),
    agent("test", { depends_on: ["code"] }),
    agent("review", { depends_on: ["test"], feedback: { rerun: "code", max: 2 }, ...reviewExtra }),
  ];

  test("a well-formed arc is accepted", () => {
    expect(issuesOf(graphOf(...loop()))).toEqual([]);
  });

  test.each([
    [{ rerun: "code" }, "nothing"],
    [{ rerun: "code", max: 0 }, "0"],
    [{ rerun: "code", max: -1 }, "-1"],
  ])("feedback.max must be declared and >= 1 (%j)", (feedback, got) => {
    expect(issuesOf(graphOf(...loop({ feedback })))).toEqual([
      `invalid graph: node "review": feedback.max must be declared and >= 1 (got ${got}) — a feedback loop has ` +
        "no default bound",
    ]);
  });

  test("feedback without rerun is refused", () => {
    expect(issuesOf(graphOf(...loop({ feedback: { max: 1 } })))).toEqual([
      'invalid graph: node "review": feedback needs rerun: the depends_on ancestor the re-run starts from',
    ]);
  });

  test("feedback.rerun naming an unknown node is refused", () => {
    expect(issuesOf(graphOf(...loop({ feedback: { rerun: "cod", max: 1 } })))).toEqual([
      'invalid graph: node "review": feedback.rerun names unknown node "cod"',
    ]);
  });

  test.each([
    ["itself", "review"],
    ["a sibling", "docs"],
    ["a descendant (a forward arc)", "ship"],
  ])("feedback.rerun naming %s is refused: it must be a proper ancestor", (_what, rerun) => {
    const nodes = [
      ...loop({ feedback: { rerun, max: 1 } }),
      agent("docs"),
      agent("ship", { depends_on: ["review"] }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      `invalid graph: node "review": feedback.rerun "${rerun}" is not a proper depends_on ancestor of this node — ` +
        "a feedback arc points strictly backward along an existing depends_on path",
    ]);
  });

  test.each(["test", "code"])(
    "a node outside the loop depending on body node %j is a side exit",
    (member) => {
      const nodes = [...loop(), agent("docs", { depends_on: [member] })];
      expect(issuesOf(graphOf(...nodes))).toEqual([
        `invalid graph: node "review": feedback body has a side exit: "docs" depends on body node "${member}" but is ` +
          'outside the loop, so it would see whichever round wrote last; make it depend on "review" instead',
      ]);
    },
  );

  test("the declarer's own dependents may sit outside the loop", () => {
    expect(issuesOf(graphOf(...loop(), agent("ship", { depends_on: ["review"] })))).toEqual([]);
  });

  test("a gate inside the body is refused", () => {
    const nodes = [
      agent("code"),
      gate("ok", { depends_on: ["code"] }),
      agent("review", { depends_on: ["ok"], feedback: { rerun: "code", max: 1 } }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "review": feedback body contains gate "ok" — a later round would replay an approval ' +
        "nobody gave for it",
    ]);
  });

  test("overlapping bodies are refused", () => {
    const nodes = [
      agent("code"),
      agent("test", { depends_on: ["code"], feedback: { rerun: "code", max: 1 } }),
      agent("review", { depends_on: ["test"], feedback: { rerun: "code", max: 1 } }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "review": feedback bodies must be disjoint: "code" is already in the body of "test"\'s arc',
      'invalid graph: node "review": feedback bodies must be disjoint: "test" is already in the body of "test"\'s arc',
    ]);
  });

  test("two arcs with disjoint bodies are accepted", () => {
    const nodes = [
      agent("code"),
      agent("test", { depends_on: ["code"], feedback: { rerun: "code", max: 1 } }),
      agent("docs", { depends_on: ["test"] }),
      agent("review", { depends_on: ["docs"], feedback: { rerun: "docs", max: 1 } }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([]);
  });

  test("a body node continuing the session of a parent outside the body is refused", () => {
    const nodes = [
      agent("plan"),
      agent("code", { depends_on: ["plan"], handoff: "session" }),
      agent("review", { depends_on: ["code"], feedback: { rerun: "code", max: 1 } }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "review": feedback body node "code" has handoff: session with parent "plan" outside the ' +
        "body — a later round would continue a session an earlier round already continued",
    ]);
  });

  test("a body node continuing the session of a parent inside the body is accepted", () => {
    const nodes = [
      agent("code"),
      agent("test", { depends_on: ["code"], handoff: "session" }),
      agent("review", { depends_on: ["test"], feedback: { rerun: "code", max: 1 } }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([]);
  });

  test("a gate may not declare feedback", () => {
    expect(
      issuesOf(graphOf(agent("a"), gate("ok", { depends_on: ["a"], feedback: { rerun: "a", max: 1 } }))),
    ).toEqual([
      'invalid graph: node "ok": a gate spawns no process, so it may not set feedback; remove it or make this an ' +
        "agent node",
    ]);
  });
});

describe("placeholders that can be judged from the file", () => {
  test("{{ artifacts.ID }} naming a node that is not an ancestor is refused", () => {
    const nodes = [agent("a"), agent("b", { prompt: "read {{ artifacts.c }}" }), agent("c")];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "b": prompt: {{ artifacts.c }} names "c", which is not an ancestor of this node — its ' +
        "output may not exist when this node starts; add it to depends_on (directly or through a parent)",
    ]);
  });

  test("{{ artifacts.ID }} naming a transitive ancestor is accepted, in every interpolated field", () => {
    const nodes = [
      agent("a"),
      agent("b", { depends_on: ["a"] }),
      agent("c", {
        depends_on: ["b"],
        prompt: "use {{ artifacts.a | inline }}",
        cwd: "{{ inputs.dir }}",
        success_check: { verify: { command: "test -s {{ artifacts.a }}", cwd: "{{ artifacts.b }}" } },
      }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([]);
  });

  test("{{ artifacts.ID }} naming an unknown node or a gate is refused", () => {
    const nodes = [
      gate("ok"),
      agent("b", {
        depends_on: ["ok"],
        success_check: { verify: { command: "cat {{ artifacts.nope }} {{ artifacts.ok }}" } },
      }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "b": success_check.verify.command: {{ artifacts.nope }} names unknown node "nope"',
      'invalid graph: node "b": success_check.verify.command: {{ artifacts.ok }} names gate "ok", which saves no output',
    ]);
  });

  test("{{ feedback.ID }} outside the arc's body is refused", () => {
    const nodes = [
      agent("code", { prompt: "fix: {{ feedback.review }}" }),
      agent("review", { depends_on: ["code"], feedback: { rerun: "code", max: 1 } }),
      agent("ship", { depends_on: ["review"], prompt: "ship despite {{ feedback.review }}" }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "ship": prompt: {{ feedback.review }} is only meaningful inside the body of "review"\'s ' +
        "feedback arc — here it would always be empty",
    ]);
  });

  test("{{ feedback.ID }} naming a node with no arc is refused", () => {
    expect(issuesOf(graphOf(agent("a", { prompt: "{{ feedback.a }}" })))).toEqual([
      'invalid graph: node "a": prompt: {{ feedback.a }} names "a", which declares no feedback arc — it could never resolve',
    ]);
  });

  test("{{ feedback.ID | inline }} inside the body is refused: feedback tokens take no filter", () => {
    const nodes = [
      agent("code", { prompt: "fix: {{ feedback.review | inline }}" }),
      agent("review", { depends_on: ["code"], feedback: { rerun: "code", max: 1 } }),
    ];
    expect(issuesOf(graphOf(...nodes))).toEqual([
      'invalid graph: node "code": prompt: {{ feedback.review | inline }} cannot resolve: feedback placeholders take ' +
        "no filter; write {{ feedback.review }}",
    ]);
  });

  test("a placeholder with a bad filter is refused at load", () => {
    expect(
      issuesOf(graphOf(agent("a"), agent("b", { depends_on: ["a"], prompt: "{{ artifacts.a | raw }}" }))),
    ).toEqual([
      'invalid graph: node "b": prompt: {{ artifacts.a | raw }} cannot resolve: unknown filter "raw"; the only ' +
        "filter is | inline",
    ]);
  });

  test("unknown inputs are not a load error: their values come with the run", () => {
    expect(issuesOf(graphOf(agent("a", { prompt: "{{ inputs.anything }} {{ foo }}" })))).toEqual([]);
  });
});

describe("completion gates are bounded and check something (SPEC §7)", () => {
  test.each([
    [{ verify: { command: "make test" } }, "nothing"],
    [{ verify: { command: "make test" }, max_attempts: 0 }, "0"],
  ])("completion.max_attempts is required and >= 1 (%j)", (completion, got) => {
    expect(issuesOf(graphOf(agent("a", { completion })))).toEqual([
      `invalid graph: node "a": completion.max_attempts must be declared and >= 1 (got ${got}) — there is no default`,
    ]);
  });

  test.each([
    [{ max_attempts: 2 }, "completion needs a verify: { command: … } or { todos: all_done }"],
    [{ verify: {}, max_attempts: 2 }, "completion.verify must set exactly one of command or todos: all_done"],
    [
      { verify: { command: "make", todos: "all_done" }, max_attempts: 2 },
      "completion.verify must set exactly one of command or todos: all_done",
    ],
    [{ verify: { todos: "some" }, max_attempts: 2 }, 'completion.verify.todos must be all_done (got "some")'],
    [
      { verify: { command: " " }, max_attempts: 2 },
      "completion.verify.command is empty — a completion check with nothing to run would pass every time",
    ],
    [
      { verify: { command: "# later" }, max_attempts: 2 },
      "completion.verify.command is only # comments — it runs nothing and would pass every time; give the " +
        "command that checks the work",
    ],
  ])("completion %j is refused", (completion, reason) => {
    expect(issuesOf(graphOf(agent("a", { completion })))).toEqual([`invalid graph: node "a": ${reason}`]);
  });

  test.each([
    [
      { command: "make test", timeout: "11m" },
      "completion.verify.timeout 11m exceeds the 10m ceiling — a verify command runs on its node's critical " +
        "path; split long work into its own node",
    ],
    [{ command: "make test", timeout: "0s" }, 'completion.verify.timeout "0s" must be positive'],
    [{ command: "make test", timeout: "5" }, "completion.verify.timeout: "],
    [
      { command: "make test", expect_exit: 256 },
      "completion.verify.expect_exit must be an exit status from 0 to 255 (got 256)",
    ],
    [
      { todos: "all_done", timeout: "1m" },
      "completion.verify.timeout and expect_exit belong to a command; todos: all_done runs nothing",
    ],
    [
      { command: "make test", require_plan: true },
      "completion.verify.require_plan belongs to todos: all_done; a command has no plan to require",
    ],
  ])("completion verify %j is refused with a reason naming the field", (verify, reason) => {
    const issues = issuesOf(graphOf(agent("a", { completion: { verify, max_attempts: 2 } })));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(`invalid graph: node "a": ${reason}`);
  });

  test("a fractional max_attempts is a load error before anything runs", () => {
    const issues = issuesOf(
      graphOf(agent("a", { completion: { verify: { command: "make" }, max_attempts: 1.5 } })),
    );
    expect(issues.join("\n")).toMatch(/completion\.max_attempts/);
  });

  test.each([
    { command: "make test" },
    { command: "make test", timeout: "5m", expect_exit: 1 },
    { todos: "all_done" },
    { todos: "all_done", require_plan: true },
  ])("completion verify %j is accepted", (verify) => {
    expect(issuesOf(graphOf(agent("a", { completion: { verify, max_attempts: 3 } })))).toEqual([]);
  });
});
