import { describe, expect, it } from "vitest";
import {
  bareToolNames,
  handWrittenPolicy,
  loadedUserConfigOf,
  plannedNodePolicies,
  plannedNodePolicy,
  plannerPolicy,
} from "../../src/policy/ceiling.js";

const DECLARATION = ["Read", "Bash(git *)", "Bash(ls *)", "Edit"];

describe("the planned-node ceiling (SPEC §8, five layers)", () => {
  const policy = plannedNodePolicy(DECLARATION, { loadedUserConfig: false });

  it("layer 1: loads no settings (settingSources is the empty string)", () => {
    expect(policy.settingSources).toBe("");
    expect(Object.hasOwn(policy, "settingSources")).toBe(true);
  });

  it("layer 2: grants exactly the node's declaration, as written", () => {
    expect(policy.allowedTools).toEqual(["Read", "Bash(git *)", "Bash(ls *)", "Edit"]);
  });

  it("layer 3: narrows the tool set to the declaration's bare names, deduplicated in order", () => {
    expect(policy.tools).toEqual(["Read", "Bash", "Edit"]);
  });

  it("layer 4: closes MCP (strict MCP config on)", () => {
    expect(policy.strictMcpConfig).toBe(true);
  });

  it("layer 5: denies every deniable tool the node did not declare by bare name", () => {
    expect(policy.disallowedTools).toEqual([
      "Write",
      "MultiEdit",
      "NotebookEdit",
      "WebFetch",
      "WebSearch",
      "Task",
      "Agent",
    ]);
  });

  it("has exactly the five layers and no other field", () => {
    expect(Object.keys(policy).sort()).toEqual([
      "allowedTools",
      "disallowedTools",
      "settingSources",
      "strictMcpConfig",
      "tools",
    ]);
  });

  it("denies all nine deniable tools to a read-only node", () => {
    expect(plannedNodePolicy(["Read", "Grep"], { loadedUserConfig: false }).disallowedTools).toEqual([
      "Bash",
      "Edit",
      "Write",
      "MultiEdit",
      "NotebookEdit",
      "WebFetch",
      "WebSearch",
      "Task",
      "Agent",
    ]);
  });

  it("does not alias the caller's array", () => {
    const declaration = ["Read"];
    const built = plannedNodePolicy(declaration, { loadedUserConfig: false });
    declaration.push("Write");
    expect(built.allowedTools).toEqual(["Read"]);
  });

  it('refuses an empty declaration as a broken invariant, since --tools "" would mean no tools', () => {
    expect(() => plannedNodePolicy([], { loadedUserConfig: false })).toThrow(/Internal error/);
  });
});

describe("the loaded-user-config opt-in moves layers 1 and 4 and nothing else", () => {
  const isolated = plannedNodePolicy(DECLARATION, { loadedUserConfig: false });
  const loaded = plannedNodePolicy(DECLARATION, { loadedUserConfig: true });

  it("layer 1 off: settingSources is absent, not empty", () => {
    expect(loaded.settingSources).toBeUndefined();
    expect(Object.hasOwn(loaded, "settingSources")).toBe(false);
    expect(JSON.stringify(loaded)).not.toContain("settingSources");
  });

  it("layer 4 off: strict MCP config is false", () => {
    expect(loaded.strictMcpConfig).toBe(false);
  });

  it("layers 2, 3 and 5 are byte-identical to the isolated node's", () => {
    expect(JSON.stringify(loaded.allowedTools)).toBe(JSON.stringify(isolated.allowedTools));
    expect(JSON.stringify(loaded.tools)).toBe(JSON.stringify(isolated.tools));
    expect(JSON.stringify(loaded.disallowedTools)).toBe(JSON.stringify(isolated.disallowedTools));
  });
});

describe("the planner's stance", () => {
  const policy = plannerPolicy();

  it("is not settings-isolated: it may read the repository's own CLAUDE.md and project settings", () => {
    expect(Object.hasOwn(policy, "settingSources")).toBe(false);
  });

  it("denies all nine deniable tools, grants nothing and does not narrow the read tools away", () => {
    expect(policy.disallowedTools).toEqual([
      "Bash",
      "Edit",
      "Write",
      "MultiEdit",
      "NotebookEdit",
      "WebFetch",
      "WebSearch",
      "Task",
      "Agent",
    ]);
    expect(policy.allowedTools).toEqual([]);
    expect(policy.tools).toBeUndefined();
  });

  it("closes MCP: reading fenced PR text needs no MCP server", () => {
    expect(policy.strictMcpConfig).toBe(true);
  });
});

describe("a hand-written node's policy", () => {
  it("carries only its own allowed_tools, no other layer", () => {
    expect(handWrittenPolicy({ allowed_tools: ["Bash", "WebFetch"] })).toEqual({
      allowedTools: ["Bash", "WebFetch"],
    });
  });

  it("is an empty grant when the node declares none", () => {
    expect(handWrittenPolicy({})).toEqual({ allowedTools: [] });
  });
});

describe("bareToolNames", () => {
  it("keeps the first occurrence of each bare name", () => {
    expect(bareToolNames(["Bash(ls *)", "Read", "Bash(git *)", "Read"])).toEqual(["Bash", "Read"]);
  });
});

describe("the opt-in is read from the policies spawned, not from a flag", () => {
  const nodes = [
    { id: "edit", allowed_tools: ["Read", "Edit"] },
    { id: "check", allowed_tools: ["Read", "Bash(git *)"] },
  ];

  it("builds one policy per planned node, keyed by id", () => {
    const policies = plannedNodePolicies(nodes, { loadedUserConfig: false });
    expect(Object.keys(policies)).toEqual(["edit", "check"]);
    expect(policies.check?.tools).toEqual(["Read", "Bash"]);
  });

  it("reports isolated policies as not loaded and opted-in policies as loaded", () => {
    expect(loadedUserConfigOf(plannedNodePolicies(nodes, { loadedUserConfig: false }))).toBe(false);
    expect(loadedUserConfigOf(plannedNodePolicies(nodes, { loadedUserConfig: true }))).toBe(true);
  });

  it("survives a JSON round trip through state.json", () => {
    const restored = JSON.parse(JSON.stringify(plannedNodePolicies(nodes, { loadedUserConfig: true })));
    expect(loadedUserConfigOf(restored)).toBe(true);
  });

  it("is undefined for a run with no planned policies (a hand-written run)", () => {
    expect(loadedUserConfigOf({})).toBeUndefined();
  });

  it("refuses policies that disagree, because the opt-in is run-wide", () => {
    const mixed = {
      a: plannedNodePolicy(["Read"], { loadedUserConfig: false }),
      b: plannedNodePolicy(["Read"], { loadedUserConfig: true }),
    };
    expect(() => loadedUserConfigOf(mixed)).toThrow(/Internal error/);
  });
});
