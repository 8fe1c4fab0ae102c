import { describe, expect, it } from "vitest";
import {
  bareToolNames,
  handWrittenPolicy,
  loadedUserConfigOf,
  plannedNodePolicies,
  plannedNodePolicy,
  plannerPolicy,
} from "../../src/policy/ceiling.js";
import { declaresGit, GIT_DENY_RULES, gitDenyRules } from "../../src/policy/git-deny.js";

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

  it("layer 5: denies every deniable tool the node did not declare by bare name, then the git deny rules", () => {
    expect(policy.disallowedTools).toEqual([
      "Write",
      "MultiEdit",
      "NotebookEdit",
      "WebFetch",
      "WebSearch",
      "Task",
      "Agent",
      ...GIT_DENY_RULES,
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

describe("layer 5 narrows a Bash(git …) grant with scoped deny rules (Bash(git *) is a prefix grant)", () => {
  it("adds the git rules to a node declaring any Bash(git …) entry, and to no other node", () => {
    for (const declaration of [
      ["Bash(git *)"],
      ["Read", "Bash(git log *)"],
      ["Bash(git:*)"],
      [" Bash(git diff *) "],
    ]) {
      expect(declaresGit(declaration), JSON.stringify(declaration)).toBe(true);
      const denied = plannedNodePolicy(declaration, { loadedUserConfig: false }).disallowedTools;
      expect(denied.slice(-GIT_DENY_RULES.length)).toEqual([...GIT_DENY_RULES]);
    }
    for (const declaration of [["Read"], ["Bash(ls *)", "Bash(cat *)", "Bash(grep *)"], ["Bash(gitk *)"]]) {
      expect(declaresGit(declaration), JSON.stringify(declaration)).toBe(false);
      const denied = plannedNodePolicy(declaration, { loadedUserConfig: false }).disallowedTools;
      expect(denied.filter((rule) => rule.includes("("))).toEqual([]);
    }
  });

  it("denies at least the configuration, commit, ref, network and file-writing entry points", () => {
    for (const rule of [
      "Bash(git -c *)",
      "Bash(git --config-env*)",
      "Bash(git config*)",
      "Bash(git commit*)",
      "Bash(git push *)",
      "Bash(git remote*)",
      "Bash(git submodule*)",
      "Bash(git fetch*)",
      "Bash(git pull *)",
      "Bash(git am *)",
      "Bash(git apply *)",
      "Bash(git filter-*)",
      "Bash(git update*)",
      "Bash(git reset *)",
      "Bash(git checkout*)",
      "Bash(git switch *)",
      "Bash(git rebase *)",
      "Bash(git merge *)",
      "Bash(git tag *)",
      "Bash(git branch *)",
      "Bash(git stash *)",
      "Bash(git clean *)",
      "Bash(git worktree *)",
      "Bash(git * --output*)",
      "Bash(git credential*)",
    ]) {
      expect(GIT_DENY_RULES, rule).toContain(rule);
    }
  });

  it("never denies the read-only commands a planned node needs", () => {
    const readOnly = [
      "status",
      "diff",
      "log",
      "show",
      "ls-files",
      "rev-parse",
      "blame",
      "grep",
      "merge-base",
    ];
    for (const rule of GIT_DENY_RULES) {
      // `Bash(git WORD *)` denies WORD; `Bash(git WORD*)` denies every subcommand starting with WORD.
      const whole = /^Bash\(git ([a-z][\w-]*) \*\)$/.exec(rule)?.[1];
      const prefix = /^Bash\(git ([a-z][\w-]*)\*\)$/.exec(rule)?.[1];
      for (const command of readOnly) {
        if (whole !== undefined) expect(command, rule).not.toBe(whole);
        if (prefix !== undefined) expect(command.startsWith(prefix), rule).toBe(false);
      }
    }
  });

  it("keeps a rule the declaration grants word for word (a maintainers' policy file chose it)", () => {
    const rules = gitDenyRules(["Read", "Bash(git *)", "Bash(git commit*)"]);
    expect(rules).not.toContain("Bash(git commit*)");
    expect(rules).toContain("Bash(git -c *)");
    expect(rules).toHaveLength(GIT_DENY_RULES.length - 1);
  });

  it("holds no comma or newline, which the CLI would read as two entries", () => {
    for (const rule of GIT_DENY_RULES) expect(rule).not.toMatch(/[,\n]/);
    expect(new Set(GIT_DENY_RULES).size).toBe(GIT_DENY_RULES.length);
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
