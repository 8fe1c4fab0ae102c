/** `buildClaudeArgv` pinned element by element (SPEC §4, §8). */
import { describe, expect, it } from "vitest";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import { buildClaudeArgv, type ClaudeInvocation } from "../../src/runtime/claude-argv.js";

const SID = "0b9e5b8c-2f6d-4e7a-9c1d-3a5f7e9b1c2d";

/** A planned node's full five-layer ceiling. */
const PLANNED: ToolPolicy = {
  settingSources: "",
  allowedTools: ["Read", "Edit", "Bash(git *)"],
  tools: ["Read", "Edit", "Bash"],
  strictMcpConfig: true,
  disallowedTools: ["Write", "NotebookEdit", "WebFetch", "WebSearch"],
};

/** A hand-written `run` node: its own allowedTools only. */
const HAND_WRITTEN: ToolPolicy = {
  allowedTools: ["Bash(npm test)"],
  strictMcpConfig: false,
  disallowedTools: [],
};

function inv(overrides: Partial<ClaudeInvocation>): ClaudeInvocation {
  return {
    prompt: "fix the build",
    permissionMode: "dontAsk",
    policy: PLANNED,
    session: { kind: "fresh", sessionId: SID },
    ...overrides,
  };
}

describe("buildClaudeArgv", () => {
  it("emits every layer of a planned node in the pinned order", () => {
    expect(buildClaudeArgv(inv({ model: "sonnet", budgetUsd: 1.5 }))).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "dontAsk",
      "--model",
      "sonnet",
      "--max-budget-usd",
      "1.5",
      "--setting-sources",
      "",
      "--allowedTools",
      "Read,Edit,Bash(git *)",
      "--tools",
      "Read,Edit,Bash",
      "--strict-mcp-config",
      "--disallowedTools",
      "Write,NotebookEdit,WebFetch,WebSearch",
      "--session-id",
      SID,
      "--",
      "fix the build",
    ]);
  });

  it("passes a hand-written node's subagent as --agents JSON --agent NAME, after the isolation layer and before the grant", () => {
    const reviewer = {
      name: "code-reviewer-deep",
      definition: { description: "Reviews code", prompt: "You review.", tools: ["Read"], model: "sonnet" },
    };
    const argv = buildClaudeArgv(inv({ policy: { ...HAND_WRITTEN, agent: reviewer } }));
    expect(argv).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "dontAsk",
      "--agents",
      '{"code-reviewer-deep":{"description":"Reviews code","prompt":"You review.","tools":["Read"],"model":"sonnet"}}',
      "--agent",
      "code-reviewer-deep",
      "--allowedTools",
      "Bash(npm test)",
      "--session-id",
      SID,
      "--",
      "fix the build",
    ]);
    // After --setting-sources and before --allowedTools, where the Go CLI puts --agent; no tools/model: left out.
    const bare = { name: "r", definition: { description: "d", prompt: "p" } };
    const isolated = buildClaudeArgv(inv({ policy: { ...PLANNED, agent: bare } }));
    expect(isolated.slice(isolated.indexOf("--setting-sources"), isolated.indexOf("--allowedTools"))).toEqual(
      ["--setting-sources", "", "--agents", '{"r":{"description":"d","prompt":"p"}}', "--agent", "r"],
    );
  });

  it("emits no --agent when the node names none", () => {
    expect(buildClaudeArgv(inv({}))).not.toContain("--agent");
    expect(buildClaudeArgv(inv({}))).not.toContain("--agents");
  });

  it("emits only the grant for a hand-written node and resumes with --resume", () => {
    expect(
      buildClaudeArgv(
        inv({
          policy: HAND_WRITTEN,
          permissionMode: "acceptEdits",
          session: { kind: "resume", sessionId: "abc" },
        }),
      ),
    ).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Bash(npm test)",
      "--resume",
      "abc",
      "--",
      "fix the build",
    ]);
  });

  it('renders tools: [] as an empty --tools argument ("no tools at all") and omits empty lists', () => {
    const policy: ToolPolicy = {
      settingSources: "user",
      allowedTools: [],
      tools: [],
      strictMcpConfig: false,
      disallowedTools: [],
    };
    expect(buildClaudeArgv(inv({ policy, permissionMode: "plan" }))).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "plan",
      "--setting-sources",
      "user",
      "--tools",
      "",
      "--session-id",
      SID,
      "--",
      "fix the build",
    ]);
  });

  it("keeps a prompt that starts with '-' after '--' so the CLI cannot read it as an option", () => {
    const argv = buildClaudeArgv(inv({ prompt: "- fix the tests\n- then lint" }));
    expect(argv.slice(-2)).toEqual(["--", "- fix the tests\n- then lint"]);
    expect(argv.indexOf("--")).toBe(argv.length - 2);
  });

  it("renders tiny budgets without exponent notation", () => {
    const argv = buildClaudeArgv(inv({ budgetUsd: 0.0000001 }));
    expect(argv[argv.indexOf("--max-budget-usd") + 1]).toBe("0.0000001");
  });

  it("treats a non-UUID fresh session id and a non-positive budget as internal errors", () => {
    expect(() => buildClaudeArgv(inv({ session: { kind: "fresh", sessionId: "not-a-uuid" } }))).toThrow(
      /Internal error: a fresh session id must be a UUID/,
    );
    expect(() => buildClaudeArgv(inv({ budgetUsd: 0 }))).toThrow(/Internal error: budgetUsd/);
    expect(() => buildClaudeArgv(inv({ budgetUsd: Number.NaN }))).toThrow(/Internal error: budgetUsd/);
  });
});
