/**
 * `agent`, `worktree` and a gate's `description` (docs/graph-format.md "agent and worktree"; Go
 * `validateAgentNames`, `validateWorktrees`, #346): what loads, what is refused, and what the loaded graph
 * carries.
 */
import { describe, expect, test } from "vitest";
import { loadGraphObject } from "../../src/graph/load.js";
import { agent, gate, graphOf, issuesOf } from "./graph-fixtures.js";

function loaded(...nodes: Record<string, unknown>[]) {
  const result = loadGraphObject(graphOf(...nodes), "g.yaml");
  if (!result.ok) throw new Error(result.issues.map((issue) => issue.reason).join("\n"));
  return result.graph;
}

describe("worktree", () => {
  test("with cwd is refused: the worktree is where the node runs", () => {
    expect(issuesOf(graphOf(agent("dev", { worktree: "lane", cwd: "pkg" })))).toEqual([
      'invalid graph: node "dev": worktree and cwd are exclusive: the worktree "lane" is where this node runs; remove cwd (or worktree)',
    ]);
  });

  test.each(["../x", "a/b", ".hidden", "a b"])(
    "a name that is not one path element (%j) is refused",
    (name) => {
      expect(issuesOf(graphOf(agent("dev", { worktree: name })))).toEqual([
        `invalid graph: node "dev": worktree ${JSON.stringify(name)} must be one path element — letters, digits, ".", "_" or "-", starting with a letter or digit — since it names a directory and a branch`,
      ]);
    },
  );

  test.each(["a..b", "lane.", "lane.lock"])(
    "a name git refuses as a branch name's end (%j) is refused",
    (name) => {
      expect(issuesOf(graphOf(agent("dev", { worktree: name })))).toEqual([
        `invalid graph: node "dev": worktree ${JSON.stringify(name)} cannot end a git branch name (it holds "..", or ends with "." or ".lock"), and its branch is evidence-gate/<run id>/NAME: rename it`,
      ]);
    },
  );

  test("nodes sharing a name share it; a gate in the lane may name it too; empty means none", () => {
    const graph = loaded(
      agent("dev", { worktree: "lane" }),
      gate("approve", { depends_on: ["dev"], worktree: "lane" }),
      agent("pr", { depends_on: ["approve"], worktree: "lane" }),
      agent("other", { worktree: "", cwd: "docs" }),
    );
    expect(graph.nodes.map((node) => node.worktree)).toEqual(["lane", "lane", "lane", null]);
  });
});

describe("agent", () => {
  test("is carried on the loaded node; an empty agent is none", () => {
    const graph = loaded(agent("review", { agent: "code-reviewer" }), agent("plain", { agent: "" }));
    expect(graph.nodes.map((node) => node.agent)).toEqual(["code-reviewer", null]);
  });

  test("surrounding whitespace and a blank name are refused (claude would not resolve them)", () => {
    expect(issuesOf(graphOf(agent("a", { agent: " reviewer " }), agent("b", { agent: "  " })))).toEqual([
      'invalid graph: node "a": agent " reviewer " has surrounding whitespace, which claude would not resolve',
      'invalid graph: node "b": agent is only whitespace: name a subagent, or write agent: "" (none)',
    ]);
  });

  test("a gate runs no subagent", () => {
    expect(issuesOf(graphOf(agent("a"), gate("g", { depends_on: ["a"], agent: "x" })))).toEqual([
      'invalid graph: node "g": a gate spawns no process, so it may not set agent; remove it or make this an agent node',
    ]);
  });
});

describe("description", () => {
  test("is a gate's, carried on the loaded node, its placeholders judged like a prompt's", () => {
    const graph = loaded(
      agent("a"),
      gate("g", { depends_on: ["a"], description: "Approve {{ artifacts.a }}." }),
    );
    expect(graph.nodes_by_id.get("g")?.description).toBe("Approve {{ artifacts.a }}.");
    expect(graph.nodes_by_id.get("a")?.description).toBeNull();
    expect(issuesOf(graphOf(agent("a"), gate("g", { description: "Read {{ artifacts.a }}" })))).toEqual([
      'invalid graph: node "g": description: {{ artifacts.a }} names "a", which is not an ancestor of this node — its output may not exist when this node starts; add it to depends_on (directly or through a parent)',
    ]);
  });

  test("on an agent node it is refused", () => {
    expect(issuesOf(graphOf(agent("a", { description: "approve it" })))).toEqual([
      'invalid graph: node "a": description is what a person reads when deciding a gate, so it is valid only on type: gate (this node is type: agent, the Go CLI\'s type: claude-run)',
    ]);
  });
});
