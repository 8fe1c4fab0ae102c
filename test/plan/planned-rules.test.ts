import { describe, expect, it } from "vitest";
import { MAX_PLANNED_NODES, validatePlannedSpec } from "../../src/plan/planned-rules.js";
import { DEFAULT_PLANNED_ALLOWLIST } from "../../src/policy/allowlist.js";

const ALLOWLIST_TEXT = "Read, Glob, Grep, Edit, Write, Bash(git *), Bash(ls *), Bash(cat *), Bash(grep *)";
const PASS_PATTERN = "^[*_`\\s]*PASS[*_`\\s]*$";

function validate(plan: unknown, allowlist: readonly string[] = DEFAULT_PLANNED_ALLOWLIST) {
  return validatePlannedSpec(plan, { allowlist });
}

function refusalsOf(plan: unknown): string[] {
  const result = validate(plan);
  return result.ok ? [] : result.refusals;
}

/** A valid one-node plan whose node carries `overrides` (an `undefined` value deletes the field). */
function oneNode(overrides: Record<string, unknown>): unknown {
  const node: Record<string, unknown> = {
    id: "edit",
    prompt: "Fix the typo in README.md.",
    allowed_tools: ["Read", "Edit"],
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete node[key];
    else node[key] = value;
  }
  return { name: "fix-typo", version: "1", nodes: [node] };
}

const TWO_NODES = {
  name: "fix-typo",
  version: "1",
  nodes: [
    { id: "edit", prompt: "Fix the typo in README.md.", allowed_tools: ["Read", "Edit"], timeout: "30m" },
    {
      id: "check",
      depends_on: ["edit"],
      prompt: "Read {{ artifacts.edit | inline }} and confirm README.md changed. Reply exactly PASS.",
      allowed_tools: ["Read", "Bash(git *)"],
      handoff: "artifact",
      success_check: { exit_zero: true, result_matches: PASS_PATTERN },
    },
  ],
};

describe("a valid plan", () => {
  it("passes with a two-node plan and comes back with only the allowed fields", () => {
    expect(validate(TWO_NODES)).toEqual({ ok: true, spec: TWO_NODES });
  });

  it("is returned as a fresh object, not the planner's", () => {
    const result = validate(TWO_NODES);
    expect(result.ok && result.spec !== TWO_NODES && result.spec.nodes[0] !== TWO_NODES.nodes[0]).toBe(true);
  });

  it('normalises a numeric version 1 to the string "1"', () => {
    const result = validate({ ...TWO_NODES, version: 1 });
    expect(result.ok && result.spec.version).toBe("1");
  });

  it("reads a null field as absent, as the graph loader does", () => {
    const result = validate(oneNode({ depends_on: null, cwd: null }));
    expect(result).toEqual({
      ok: true,
      spec: {
        name: "fix-typo",
        version: "1",
        nodes: [{ id: "edit", prompt: "Fix the typo in README.md.", allowed_tools: ["Read", "Edit"] }],
      },
    });
  });

  it("accepts a tool the base-branch policy added to the allowlist", () => {
    const result = validate(oneNode({ allowed_tools: ["Bash(npm test)"] }), [
      ...DEFAULT_PLANNED_ALLOWLIST,
      "Bash(npm test)",
    ]);
    expect(result.ok).toBe(true);
  });
});

describe("graph-level refusals", () => {
  it("refuses a reply that is not one JSON object", () => {
    expect(refusalsOf([TWO_NODES])).toEqual(["the plan must be one JSON object"]);
  });

  it("refuses a plan with no nodes", () => {
    expect(refusalsOf({ name: "x", version: "1", nodes: [] })).toEqual(["the plan has no nodes"]);
    expect(refusalsOf({ name: "x", version: "1" })).toEqual(["the plan has no nodes"]);
  });

  it("refuses nodes that are not a list", () => {
    expect(refusalsOf({ name: "x", version: "1", nodes: { edit: {} } })).toEqual([
      "nodes must be a list of node objects",
    ]);
  });

  it(`refuses more than ${MAX_PLANNED_NODES} nodes`, () => {
    const nodes = Array.from({ length: 7 }, (_, i) => ({
      id: `n${i}`,
      prompt: "p",
      allowed_tools: ["Read"],
    }));
    expect(refusalsOf({ name: "x", version: "1", nodes })).toEqual([
      "the plan has 7 nodes; a plan has at most 6",
    ]);
  });

  it('refuses a version other than "1"', () => {
    expect(refusalsOf({ ...TWO_NODES, version: "2" })).toEqual(['version must be "1", not "2"']);
  });

  it("refuses an empty name", () => {
    expect(refusalsOf({ ...TWO_NODES, name: " " })).toEqual(["name must be a non-empty string"]);
  });

  it("refuses the operator's top-level settings, each with its reason", () => {
    expect(refusalsOf({ ...TWO_NODES, inputs: ["x"], concurrency: 10, on_fail: "continue" })).toEqual([
      "inputs: the operator names inputs at launch; a plan only uses them as {{ inputs.NAME }}",
      "concurrency: the operator sets concurrency at launch, not the plan",
      "on_fail: whether a failure halts the run is the operator's decision, not the plan's",
    ]);
  });

  it("refuses an unknown top-level field, naming it and the allowed ones", () => {
    expect(refusalsOf({ ...TWO_NODES, model: "opus" })).toEqual([
      '"model" is not a plan field (a plan has only name, version, nodes)',
    ]);
  });

  it("refuses a __proto__ key as a field instead of letting it set a prototype", () => {
    const plan = JSON.parse(
      JSON.stringify(TWO_NODES).replace('{"name"', '{"__proto__":{"polluted":true},"name"'),
    );
    expect(refusalsOf(plan)).toEqual([
      '"__proto__" is not a plan field (a plan has only name, version, nodes)',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("per-node refusals", () => {
  it("refuses success_check.verify: a planned node never carries a shell command", () => {
    expect(refusalsOf(oneNode({ success_check: { exit_zero: true, verify: { command: "true" } } }))).toEqual([
      'node "edit": success_check.verify: a planned node never carries a shell command — the engine attaches the operator\'s verify command itself',
    ]);
  });

  it("refuses an unknown success_check field, naming the allowed ones", () => {
    expect(refusalsOf(oneNode({ success_check: { output_matches: "ok" } }))).toEqual([
      'node "edit": success_check."output_matches" is not allowed (a planned success_check has only exit_zero, result_matches)',
    ]);
  });

  it("refuses a success_check that is not an object", () => {
    expect(refusalsOf(oneNode({ success_check: "exit_zero" }))).toEqual([
      'node "edit": success_check must be an object',
    ]);
  });

  it("refuses cwd", () => {
    expect(refusalsOf(oneNode({ cwd: "." }))).toEqual([
      'node "edit": cwd: a planned node always runs in the run\'s working directory; leave cwd out',
    ]);
  });

  it("refuses type: gate, because auto mode never pauses for a person", () => {
    expect(refusalsOf(oneNode({ type: "gate" }))).toEqual([
      'node "edit": type gate: auto mode never pauses for a person, so a planned node cannot be a gate',
    ]);
  });

  it("refuses any other type, because planned nodes are always agent nodes", () => {
    expect(refusalsOf(oneNode({ type: "claude-run" }))).toEqual([
      'node "edit": type "claude-run": planned nodes are always agent nodes; leave type out',
    ]);
  });

  it("refuses permission_mode: bypassPermissions", () => {
    expect(refusalsOf(oneNode({ permission_mode: "bypassPermissions" }))).toEqual([
      'node "edit": permission_mode bypassPermissions is never granted to a planned node',
    ]);
  });

  it("refuses any other permission_mode, because the engine sets it", () => {
    expect(refusalsOf(oneNode({ permission_mode: "acceptEdits" }))).toEqual([
      'node "edit": permission_mode "acceptEdits": the engine sets a planned node\'s permission mode; leave it out',
    ]);
  });

  it("refuses agent", () => {
    expect(refusalsOf(oneNode({ agent: "reviewer" }))).toEqual([
      'node "edit": agent: a plan never chooses a subagent definition for a node it wrote',
    ]);
  });

  it("refuses budget_usd", () => {
    expect(refusalsOf(oneNode({ budget_usd: 5 }))).toEqual([
      'node "edit": budget_usd: planned nodes carry no budget; a timeout is their hang guard',
    ]);
  });

  it("accepts retry and feedback up to 3 (SPEC §8), and keeps them in the spec", () => {
    const plan = {
      name: "fix",
      version: "1",
      nodes: [
        {
          id: "edit",
          prompt: "Fix it. Reviewer said: {{ feedback.check }}",
          allowed_tools: ["Read", "Edit"],
          retry: { max: 3, on: ["nonzero_exit"] },
        },
        {
          id: "check",
          depends_on: ["edit"],
          prompt: "Check {{ artifacts.edit }}. Reply exactly PASS.",
          allowed_tools: ["Read"],
          success_check: { exit_zero: true, result_matches: PASS_PATTERN },
          retry: { max: 1, on: ["verify_failed"] },
          feedback: { rerun: "edit", max: 3 },
        },
      ],
    };
    expect(validate(plan)).toEqual({ ok: true, spec: plan });
  });

  it("refuses retry.max and feedback.max over 3, saying why", () => {
    const plan = {
      name: "fix",
      version: "1",
      nodes: [
        {
          id: "edit",
          prompt: "Fix it: {{ feedback.check }}",
          allowed_tools: ["Edit"],
          retry: { max: 4, on: ["timeout"] },
        },
        {
          id: "check",
          depends_on: ["edit"],
          prompt: "p",
          allowed_tools: ["Read"],
          feedback: { rerun: "edit", max: 5 },
        },
      ],
    };
    expect(refusalsOf(plan)).toEqual([
      'node "edit": retry.max 4 is over 3, the most a plan may ask for (each retry is paid for and may run the operator\'s verify command again)',
      'node "check": feedback.max 5 is over 3, the most a plan may ask for (each round is paid for and may run the operator\'s verify command again)',
    ]);
  });

  it("refuses a retry or feedback that is not an object, and a retry cause outside the closed set", () => {
    expect(refusalsOf(oneNode({ retry: 2, feedback: "edit" }))).toEqual([
      'node "edit": retry must be an object',
      'node "edit": feedback must be an object',
    ]);
    expect(refusalsOf(oneNode({ retry: { max: 1, on: ["flaky"] } }))).toEqual([
      expect.stringContaining('node "edit": retry.on'),
    ]);
  });

  it("refuses a feedback arc whose body never quotes {{ feedback.DECLARER }} (Go validatePlannedFeedbackQuoting)", () => {
    const plan = {
      name: "fix",
      version: "1",
      nodes: [
        { id: "edit", prompt: "Fix it.", allowed_tools: ["Edit"] },
        {
          id: "check",
          depends_on: ["edit"],
          prompt: "p",
          allowed_tools: ["Read"],
          feedback: { rerun: "edit", max: 2 },
        },
      ],
    };
    expect(refusalsOf(plan)).toEqual([
      'the feedback arc of "check" (rerun "edit") never quotes its payload: a round would repeat the same prompts; put {{ feedback.check }} in the prompt of the rerun target',
    ]);
  });

  it("refuses an arc that cannot re-run a producer when another target would (Go validatePlannedFeedbackReach)", () => {
    const plan = {
      name: "fix",
      version: "1",
      nodes: [
        { id: "spec", prompt: "Write the spec.", allowed_tools: ["Write"] },
        { id: "a", depends_on: ["spec"], prompt: "Do a. {{ feedback.review }}", allowed_tools: ["Edit"] },
        { id: "b", depends_on: ["spec"], prompt: "Do b.", allowed_tools: ["Edit"] },
        {
          id: "review",
          depends_on: ["a", "b"],
          prompt: "Judge a and b.",
          allowed_tools: ["Read"],
          feedback: { rerun: "a", max: 2 },
        },
      ],
    };
    expect(refusalsOf(plan)).toEqual([
      'node "review": its feedback arc re-runs "a" but not producer "b", so a defect found there could never be repaired; use rerun "spec", whose body covers every producer it depends on',
    ]);
    const fixed = {
      ...plan,
      nodes: plan.nodes.map((n) => (n.id === "review" ? { ...n, feedback: { rerun: "spec", max: 2 } } : n)),
    };
    expect(validate(fixed).ok).toBe(true);
  });

  it("a feedback arc on itself is refused by the graph module's rule", () => {
    expect(refusalsOf(oneNode({ feedback: { rerun: "edit", max: 1 } }))).toEqual([
      expect.stringContaining('feedback.rerun "edit" is not a proper depends_on ancestor'),
    ]);
  });

  it("refuses completion as not yet supported for planned nodes", () => {
    expect(refusalsOf(oneNode({ completion: { max_attempts: 1 } }))).toEqual([
      'node "edit": completion: not yet supported for planned nodes; the operator\'s repair-attempts input gives the sinks a completion gate',
    ]);
  });

  it("refuses worktree, fragment citations and a gate description, each with its reason", () => {
    expect(refusalsOf(oneNode({ worktree: "w", use: "frag", with: {}, description: "approve?" }))).toEqual([
      'node "edit": worktree: managed worktrees are for hand-written graphs (their creation is not a tool call, so no ceiling sees it); a planned node always runs in the run\'s working tree',
      'node "edit": use: fragments are for hand-written graphs, spliced when the graph file is loaded; a plan spells every node out',
      'node "edit": with: fragments are for hand-written graphs, spliced when the graph file is loaded; a plan spells every node out',
      'node "edit": description: description is what a person reads when deciding a gate, and a planned node is never a gate',
    ]);
  });

  it('refuses a spliced-looking id: only fragment splicing writes a "/"', () => {
    const refusals = refusalsOf({ nodes: [{ id: "lane/dev", prompt: "p", allowed_tools: ["Read"] }] });
    expect(refusals).toEqual([
      'node "lane/dev": an id cannot contain "/" (it is reserved for ids minted by fragment splicing)',
    ]);
  });

  it("refuses an unknown node field, naming it and the allowed ones", () => {
    expect(refusalsOf(oneNode({ model: "opus" }))).toEqual([
      'node "edit": "model" is not a planned-node field (a planned node has only id, depends_on, prompt, allowed_tools, handoff, timeout, success_check, retry, feedback)',
    ]);
  });

  it("refuses handoff: session as not yet supported", () => {
    expect(refusalsOf(oneNode({ handoff: "session" }))).toEqual([
      'node "edit": handoff session: not yet supported for planned nodes; hand work over as an artifact with {{ artifacts.ID }}',
    ]);
  });

  it("refuses any other handoff value", () => {
    expect(refusalsOf(oneNode({ handoff: "pipe" }))).toEqual([
      'node "edit": handoff "pipe" is not allowed; a planned node hands off by artifact',
    ]);
  });

  it("refuses an empty prompt", () => {
    expect(refusalsOf(oneNode({ prompt: "  \n" }))).toEqual([
      'node "edit": prompt is empty; a planned node needs a self-contained prompt',
    ]);
  });

  it("refuses a missing prompt with the same reason", () => {
    expect(refusalsOf(oneNode({ prompt: undefined }))).toEqual([
      'node "edit": prompt is empty; a planned node needs a self-contained prompt',
    ]);
  });

  it('refuses an id containing "/", once', () => {
    expect(refusalsOf(oneNode({ id: "lint/fix" }))).toEqual([
      'node "lint/fix": an id cannot contain "/" (it is reserved for ids minted by fragment splicing)',
    ]);
  });

  it("refuses a missing id, locating the node by index", () => {
    expect(refusalsOf(oneNode({ id: undefined }))).toEqual(["nodes[0]: id must be a non-empty string"]);
  });

  it("refuses a node that is not an object", () => {
    expect(refusalsOf({ name: "x", version: "1", nodes: [...TWO_NODES.nodes, "step three"] })).toEqual([
      "nodes[2] must be an object",
    ]);
  });

  it("refuses a missing allowed_tools", () => {
    expect(refusalsOf(oneNode({ allowed_tools: undefined }))).toEqual([
      'node "edit": allowed_tools is missing; every planned node needs an explicit least-privilege tool list',
    ]);
  });

  it("refuses an empty allowed_tools", () => {
    expect(refusalsOf(oneNode({ allowed_tools: [] }))).toEqual([
      'node "edit": allowed_tools must be a non-empty list; every planned node needs an explicit least-privilege tool list',
    ]);
  });

  it("refuses a non-string tool entry", () => {
    expect(refusalsOf(oneNode({ allowed_tools: ["Read", 7] }))).toEqual([
      'node "edit": allowed_tools entry "7" is not a tool name',
    ]);
  });

  it("refuses a tool outside the allowlist, naming the tool and the list", () => {
    expect(refusalsOf(oneNode({ allowed_tools: ["Read", "Bash(npm test)"] }))).toEqual([
      `node "edit": tool "Bash(npm test)" is not on the planned-node allowlist (${ALLOWLIST_TEXT})`,
    ]);
  });

  it("refuses Bash(*) by name, saying it grants every shell command", () => {
    expect(refusalsOf(oneNode({ allowed_tools: ["Bash(*)"] }))).toEqual([
      `node "edit": tool "Bash(*)" is not on the planned-node allowlist (${ALLOWLIST_TEXT}): Bash(*) grants every shell command, exactly like bare Bash; grant a scoped form such as Bash(git *)`,
    ]);
  });

  it("refuses bare Bash, web tools and MCP tools with their reasons", () => {
    expect(refusalsOf(oneNode({ allowed_tools: ["Bash", "WebFetch", "mcp__gh__push"] }))).toEqual([
      `node "edit": tool "Bash" is not on the planned-node allowlist (${ALLOWLIST_TEXT}): bare Bash grants every shell command; grant a scoped form such as Bash(git *)`,
      `node "edit": tool "WebFetch" is not on the planned-node allowlist (${ALLOWLIST_TEXT}): WebFetch reaches the network; web tools are never granted to a planned node`,
      `node "edit": tool "mcp__gh__push" is not on the planned-node allowlist (${ALLOWLIST_TEXT}): MCP tools are never granted to a planned node: its MCP configuration is closed (strict MCP config)`,
    ]);
  });

  it("matches the allowlist exactly: a near-miss spelling is refused", () => {
    expect(refusalsOf(oneNode({ allowed_tools: ["Bash(git:*)"] }))).toEqual([
      `node "edit": tool "Bash(git:*)" is not on the planned-node allowlist (${ALLOWLIST_TEXT})`,
    ]);
  });

  it("quotes planner-chosen text safely and bounded, so a refusal stays one line", () => {
    const [refusal] = refusalsOf(oneNode({ [`evil\n${"x".repeat(200)}`]: 1 }));
    expect(refusal).toBe(
      `node "edit": "evil\\n${"x".repeat(75)}…" is not a planned-node field (a planned node has only id, depends_on, prompt, allowed_tools, handoff, timeout, success_check, retry, feedback)`,
    );
  });
});

describe("collecting every refusal", () => {
  it("reports Bash(*) and success_check.verify in one reply both", () => {
    const refusals = refusalsOf(
      oneNode({
        allowed_tools: ["Read", "Bash(*)"],
        success_check: { exit_zero: true, verify: { command: "true" } },
      }),
    );
    expect(refusals).toEqual([
      `node "edit": tool "Bash(*)" is not on the planned-node allowlist (${ALLOWLIST_TEXT}): Bash(*) grants every shell command, exactly like bare Bash; grant a scoped form such as Bash(git *)`,
      'node "edit": success_check.verify: a planned node never carries a shell command — the engine attaches the operator\'s verify command itself',
    ]);
  });

  it("lists graph-level refusals first, then each node in order, then the structural findings", () => {
    const plan = {
      name: "x",
      version: "1",
      on_fail: "continue",
      nodes: [
        { id: "a", prompt: "p", allowed_tools: ["Read"], depends_on: ["b"] },
        { id: "b", prompt: "p", allowed_tools: ["Read"], depends_on: ["a"], cwd: "/" },
        { id: "c", prompt: "p", allowed_tools: ["Read"], depends_on: ["ghost"] },
      ],
    };
    expect(refusalsOf(plan)).toEqual([
      "on_fail: whether a failure halts the run is the operator's decision, not the plan's",
      'node "b": cwd: a planned node always runs in the run\'s working directory; leave cwd out',
      'node "c": depends_on unknown node "ghost"',
      'node "a": dependency cycle: a -> b -> a',
    ]);
  });

  it("folds the graph module's checks of allowed fields in: durations, patterns, placeholders, duplicate ids", () => {
    const plan = {
      name: "x",
      version: "1",
      nodes: [
        {
          id: "a",
          prompt: "p",
          allowed_tools: ["Read"],
          timeout: "5 minutes",
          success_check: { result_matches: "(a" },
        },
        { id: "a", prompt: "use {{ artifacts.z }}", allowed_tools: ["Read"] },
      ],
    };
    expect(refusalsOf(plan)).toEqual([
      'node "a": duplicate node id (nodes[0] and nodes[1])',
      'node "a": timeout: invalid duration "5 minutes": unknown unit " minutes" (want a Go duration like 90s, 45m, 1h30m, 1.5h, 500ms)',
      'node "a": success_check.result_matches: invalid regex "(a": error parsing regexp: missing closing ): `(a`',
      'node "a": prompt: {{ artifacts.z }} names unknown node "z"',
    ]);
  });

  it("reports each problem once: a refused field is not reported again by the graph module", () => {
    const refusals = refusalsOf(
      oneNode({ id: "x/y", prompt: "", allowed_tools: [" Read"], handoff: "session", cwd: 3 }),
    );
    expect(refusals).toEqual([
      'node "x/y": an id cannot contain "/" (it is reserved for ids minted by fragment splicing)',
      'node "x/y": cwd: a planned node always runs in the run\'s working directory; leave cwd out',
      'node "x/y": prompt is empty; a planned node needs a self-contained prompt',
      `node "x/y": tool " Read" is not on the planned-node allowlist (${ALLOWLIST_TEXT})`,
      'node "x/y": handoff session: not yet supported for planned nodes; hand work over as an artifact with {{ artifacts.ID }}',
    ]);
  });
});
