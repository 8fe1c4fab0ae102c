import { describe, expect, it } from "vitest";
import { ceilingDisclosure } from "../../src/policy/disclosure.js";

// Whole literals, on purpose: a disclosure test that matches a prefix is how a sentence loses its second half.
const CLI = {
  claudeIsolated:
    "Planned nodes run isolated: no user, project or local settings load for them, so no standing permission " +
    "grant widens a declared scope such as Bash(git *), and your CLAUDE.md, hooks and MCP servers are not " +
    "available to them. A declared scope is a command prefix, not a sandbox: a Bash(git …) grant is narrowed by " +
    "deny rules for git's known ways to run programs, write files or reach the network. SECURITY.md lists what " +
    "this isolation does not cover.",
  claudeLoaded:
    "Planned nodes run with your configuration (--accept-loaded-user-config): user, project and local settings " +
    "load, and with them your CLAUDE.md, hooks and MCP servers. Standing permission grants in those settings load " +
    "too, so a declared scope such as Bash(git *) is a declaration again, not a limit: a call those settings " +
    "allow will run. Each node's --tools set and deny list still bind, and enterprise or managed policy is " +
    "neither dropped nor widened by this choice. Agent mapping and skill activation stay off: this project " +
    "stages no agent or skill definition for a planned node, and a plan can neither name an agent nor grant " +
    "the Skill tool, so agents and skills your settings define load but no planned node is given them.",
  codexIsolated:
    "Planned Codex nodes run isolated: they ignore your user configuration (config.toml), the repository's rules, " +
    "project instructions such as AGENTS.md, and MCP servers. Not dropped: your own AGENTS.md in CODEX_HOME " +
    "(~/.codex/AGENTS.md by default) still reaches them, because codex's isolation flags leave that file in. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line either way.',
  codexLoaded:
    "Planned Codex nodes run with your configuration (--accept-loaded-user-config): user configuration " +
    "(config.toml), the repository's rules and AGENTS.md files, and the MCP servers they declare all load. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line, so this choice widens neither.',
};

const ACTION = {
  claudeIsolated:
    "Planned nodes run isolated: no user, project or local settings load for them, so no standing permission " +
    "grant widens a declared scope such as Bash(git *), and the operator's CLAUDE.md, hooks and MCP servers " +
    "are not available to them. In this action each CLI runs with a fresh HOME, so the operator's configuration " +
    "is the base branch's project files only. A declared scope is a command prefix, not a sandbox: a Bash(git …) " +
    "grant is narrowed by deny rules for git's known ways to run programs, write files or reach the network. " +
    "SECURITY.md lists what this isolation does not cover.",
  claudeLoaded:
    "Planned nodes run with the operator's configuration (accept-loaded-user-config: true): user, project and " +
    "local settings load, and with them the operator's CLAUDE.md, hooks and MCP servers. In this action each CLI " +
    "runs with a fresh HOME, so the operator's configuration is the base branch's project files only. Standing " +
    "permission grants in those settings load too, so a declared scope such as Bash(git *) is a declaration " +
    "again, not a limit: a call those settings allow will run. Each node's --tools set and deny list still " +
    "bind, and enterprise or managed policy is neither dropped nor widened by this choice. Agent mapping and " +
    "skill activation stay off: this project stages no agent or skill definition for a planned node, and a " +
    "plan can neither name an agent nor grant the Skill tool, so agents and skills your settings define load " +
    "but no planned node is given them.",
  codexIsolated:
    "Planned Codex nodes run isolated: they ignore the operator's user configuration (config.toml), the " +
    "repository's rules, project instructions such as AGENTS.md, and MCP servers. In this action each CLI runs " +
    "with a fresh HOME and CODEX_HOME, so the operator's configuration is the base branch's project files only. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line either way.',
  codexLoaded:
    "Planned Codex nodes run with the operator's configuration (accept-loaded-user-config: true): user " +
    "configuration (config.toml), the repository's rules and AGENTS.md files, and the MCP servers they declare " +
    "all load. In this action each CLI runs with a fresh HOME and CODEX_HOME, so the operator's configuration is " +
    "the base branch's project files only. " +
    "Codex has no per-tool grammar, so a node's allowed_tools are checked and recorded but not enforced; its " +
    "sandbox binds instead: workspace-write (it writes only in its working directory and the temp directories, " +
    "with no network), or read-only for permission_mode plan. " +
    'Each node\'s sandbox and approval_policy="never" are on its command line, so this choice widens neither.',
};

describe("the ceiling disclosure on the CLI says one thing per runtime and opt-in, in full", () => {
  it("claude, isolated: settings do not load, so no grant widens Bash(git *), a prefix narrowed by git deny rules; CLAUDE.md, hooks and MCP are unavailable", () => {
    expect(ceilingDisclosure({ runtime: "claude", loadedUserConfig: false, surface: "cli" })).toBe(
      CLI.claudeIsolated,
    );
  });

  it("claude, loaded: settings and standing grants load, so Bash(git *) is a request; --tools and deny list bind", () => {
    expect(ceilingDisclosure({ runtime: "claude", loadedUserConfig: true, surface: "cli" })).toBe(
      CLI.claudeLoaded,
    );
  });

  it("codex, isolated: user config, rules, AGENTS.md and MCP are ignored; sandbox stays", () => {
    expect(ceilingDisclosure({ runtime: "codex", loadedUserConfig: false, surface: "cli" })).toBe(
      CLI.codexIsolated,
    );
  });

  it("codex, loaded: user config, rules, AGENTS.md and MCP load; sandbox and approval policy are not widened", () => {
    expect(ceilingDisclosure({ runtime: "codex", loadedUserConfig: true, surface: "cli" })).toBe(
      CLI.codexLoaded,
    );
  });
});

describe("the ceiling disclosure in the action names the base branch's files as the operator's configuration", () => {
  it("claude, isolated: fresh HOME, so the operator's configuration is the base branch's files; still not loaded", () => {
    expect(ceilingDisclosure({ runtime: "claude", loadedUserConfig: false, surface: "action" })).toBe(
      ACTION.claudeIsolated,
    );
  });

  it("claude, loaded: the base branch's settings and their grants load; --tools and deny list bind", () => {
    expect(ceilingDisclosure({ runtime: "claude", loadedUserConfig: true, surface: "action" })).toBe(
      ACTION.claudeLoaded,
    );
  });

  it("codex, isolated: fresh HOME and CODEX_HOME; rules, AGENTS.md and MCP ignored; sandbox stays", () => {
    expect(ceilingDisclosure({ runtime: "codex", loadedUserConfig: false, surface: "action" })).toBe(
      ACTION.codexIsolated,
    );
  });

  it("codex, loaded: the base branch's rules and AGENTS.md load; sandbox and approval policy not widened", () => {
    expect(ceilingDisclosure({ runtime: "codex", loadedUserConfig: true, surface: "action" })).toBe(
      ACTION.codexLoaded,
    );
  });
});

describe("the disclosure slot", () => {
  const all = [...Object.values(CLI), ...Object.values(ACTION)];

  it("is exactly one paragraph on one line in every case", () => {
    for (const text of all) expect(text).not.toMatch(/\n/);
  });

  it("never says both: no isolated paragraph mentions the opt-in, and every loaded one does", () => {
    for (const surface of ["cli", "action"] as const) {
      for (const runtime of ["claude", "codex"] as const) {
        const isolated = ceilingDisclosure({ runtime, loadedUserConfig: false, surface });
        const loaded = ceilingDisclosure({ runtime, loadedUserConfig: true, surface });
        expect(isolated).toMatch(/run isolated/);
        expect(isolated).not.toMatch(/accept-loaded-user-config/);
        expect(loaded).toMatch(/accept-loaded-user-config/);
        expect(loaded).not.toMatch(/isolated/);
      }
    }
  });

  it("never says neither: eight distinct, non-empty paragraphs", () => {
    expect(new Set(all).size).toBe(8);
    for (const text of all) expect(text.length).toBeGreaterThan(100);
  });
});
