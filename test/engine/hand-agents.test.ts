/**
 * `agent: NAME` on a hand-written claude node (issue 15 item 3; docs/graph-format.md "agent and worktree"):
 * the definition is read from `.claude/agents/NAME.md` as committed at HEAD — never the working tree —
 * and passed to the real claude CLI as `--agents … --agent NAME`; what cannot be used is refused before
 * anything runs, naming the path and the fix.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseAgentDefinition } from "../../src/policy/agent-definition.js";
import { makeTempRepo } from "../support/temp-repo.js";
import { graphHarnessPerTest, readState, rowWords } from "./graph-harness.js";

const harness = graphHarnessPerTest();

const REVIEWER = [
  "---",
  "name: reviewer",
  "description: Reviews the diff",
  "tools: Read, Grep",
  "---",
  "AGENT-PROMPT-COMMITTED: you review diffs and answer LGTM.",
  "",
].join("\n");

const GRAPH = [
  "nodes:",
  "  - id: review",
  "    prompt: Review the change please.",
  "    agent: reviewer",
  "    allowed_tools: [Read, Grep, Bash(git diff *)]",
  "",
].join("\n");

describe("agent on a hand-written claude node", () => {
  test("the committed definition reaches claude: its prompt is the request's system prompt, its tools the session's, and state.json keeps it", async () => {
    const h = await harness({
      makeRepo: () =>
        makeTempRepo({
          commit: true,
          files: { "README.md": "hi\n", ".claude/agents/reviewer.md": REVIEWER },
        }),
      script: () => ({
        conversations: [{ name: "review", match: "Review the change", turns: [{ text: "LGTM" }] }],
      }),
    });
    // An uncommitted edit is never read: HEAD's copy is what runs.
    await h.repo.write(".claude/agents/reviewer.md", REVIEWER.replace("COMMITTED", "WORKING-TREE"));
    const { ledger, runDir } = await h.run(GRAPH);
    expect(rowWords(ledger.rows)).toEqual(["review PASS (exit-only)"]);
    const requests = h.server.requests.filter((r) => r.conversation === "review");
    expect(requests).toHaveLength(1);
    const body = requests[0]?.body as { system?: unknown; tools?: { name: string }[] };
    expect(JSON.stringify(body.system)).toContain("AGENT-PROMPT-COMMITTED");
    expect(JSON.stringify(body.system)).not.toContain("WORKING-TREE");
    expect(
      (body.tools ?? []).map((t) => t.name).filter((n) => n === "Read" || n === "Grep" || n === "Bash"),
    ).toEqual(["Read", "Grep"]);
    expect(readState(runDir).tool_policies.review?.agent).toEqual({
      name: "reviewer",
      definition: {
        description: "Reviews the diff",
        prompt: "AGENT-PROMPT-COMMITTED: you review diffs and answer LGTM.",
        tools: ["Read", "Grep"],
      },
    });
  });

  test("refused before anything runs: a missing file, tools wider than allowed_tools, an unpassed field", async () => {
    const h = await harness({
      makeRepo: () =>
        makeTempRepo({
          commit: true,
          files: {
            "README.md": "hi\n",
            ".claude/agents/wide.md": "---\ndescription: d\ntools: Read, Write\n---\nbody\n",
            ".claude/agents/hooked.md": "---\ndescription: d\npermissionMode: bypassPermissions\n---\nbody\n",
          },
        }),
      script: () => ({ conversations: [] }),
    });
    // Written but never committed: missing at HEAD.
    await h.repo.write(".claude/agents/reviewer.md", REVIEWER);
    const graph = [
      "nodes:",
      "  - { id: a, prompt: p, agent: reviewer, allowed_tools: [Read] }",
      "  - { id: b, prompt: p, agent: wide, allowed_tools: [Read, Bash(npm test)] }",
      "  - { id: c, prompt: p, agent: hooked, allowed_tools: [Read] }",
      "",
    ].join("\n");
    const result = await h.runRaw(graph);
    expect(result.kind).toBe("usage_error");
    const message = result.kind === "usage_error" ? result.message : "";
    expect(message.split("\n")).toEqual([
      "graph.yml: the subagents its nodes name cannot be used:",
      '- agent "reviewer": no file .claude/agents/reviewer.md at HEAD. A subagent is read from .claude/agents/reviewer.md in the repository\'s trusted tree (the CLI: the committed HEAD; the action: the base ref), never from ~/.claude or uncommitted files: commit the definition there, or remove agent: from the node',
      '- agent "hooked": .claude/agents/hooked.md at HEAD: front-matter field "permissionMode" is not passed by this version (only name, description, tools and model; color is ignored): remove it, or remove agent: from the node',
      '- node "b" (agent "wide"): its tools "Write" are not among the node\'s allowed_tools (Read, Bash(npm test)): a subagent may not widen what the node declares (refused, not intersected); add them to allowed_tools, or drop them from the agent\'s tools',
      "Nothing was run.",
    ]);
    expect(h.server.requests).toEqual([]);
    expect(existsSync(join(h.runsDir))).toBe(false);
  });
});

describe("parseAgentDefinition", () => {
  test("reads the front matter (tools as a list or a string) and the body; color is ignored", () => {
    expect(
      parseAgentDefinition(
        "r",
        "---\nname: r\ndescription: ' D '\ntools: [Read]\nmodel: sonnet\ncolor: blue\n---\n\nBody.\n",
      ),
    ).toEqual({
      ok: true,
      definition: { description: "D", prompt: "Body.", tools: ["Read"], model: "sonnet" },
    });
  });

  test("names every problem of the file", () => {
    expect(parseAgentDefinition("r", "no front matter")).toEqual({
      ok: false,
      reasons: [
        "it has no YAML front matter: start the file with a --- line, name: and description:, then ---",
      ],
    });
    expect(parseAgentDefinition("r", "---\nname: other\ntools: 3\n---\n")).toEqual({
      ok: false,
      reasons: [
        'name: says "other", but the file is r.md — they must agree',
        "description: is missing or empty — claude needs one",
        'tools: must be a comma-separated string ("Read, Grep") or a list of tool names',
        "its body is empty — the body after the front matter is the subagent's prompt",
      ],
    });
  });
});
