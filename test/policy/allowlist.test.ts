import { describe, expect, it } from "vitest";
import {
  bareToolName,
  DEFAULT_PLANNED_ALLOWLIST,
  DENIABLE_TOOLS,
  extendAllowlist,
  unscopedGrantReason,
} from "../../src/policy/allowlist.js";

describe("the default planned-node allowlist", () => {
  it("is exactly the read tools, the edit tools and four scoped Bash entries, with no build tool", () => {
    expect(DEFAULT_PLANNED_ALLOWLIST).toEqual([
      "Read",
      "Glob",
      "Grep",
      "Edit",
      "Write",
      "Bash(git *)",
      "Bash(ls *)",
      "Bash(cat *)",
      "Bash(grep *)",
    ]);
    expect(Object.isFrozen(DEFAULT_PLANNED_ALLOWLIST)).toBe(true);
  });

  it("passes its own refusal rules, entry by entry", () => {
    for (const entry of DEFAULT_PLANNED_ALLOWLIST) expect(unscopedGrantReason(entry)).toBeUndefined();
  });
});

describe("the deniable tools", () => {
  it("are the nine bare names that can be denied, in a fixed order, never the read tools", () => {
    expect(DENIABLE_TOOLS).toEqual([
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
});

describe("bareToolName", () => {
  it("drops the scope of a declaration", () => {
    expect(bareToolName("Bash(git *)")).toBe("Bash");
    expect(bareToolName("Read")).toBe("Read");
    expect(bareToolName(" WebFetch(domain:example.com) ")).toBe("WebFetch");
  });
});

describe("extendAllowlist", () => {
  it("appends scoped policy entries after the base, once each", () => {
    const result = extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, [
      "Bash(npm test)",
      "Read",
      "Bash(npm test)",
      "MultiEdit",
    ]);
    expect(result).toEqual({
      ok: true,
      allowlist: [...DEFAULT_PLANNED_ALLOWLIST, "Bash(npm test)", "MultiEdit"],
    });
  });

  it("leaves the base unchanged when there are no extras", () => {
    expect(extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, [])).toEqual({
      ok: true,
      allowlist: DEFAULT_PLANNED_ALLOWLIST,
    });
  });

  it("refuses bare Bash, naming the scoped form to use instead", () => {
    expect(extendAllowlist([], ["Bash"])).toEqual({
      ok: false,
      refusals: [
        {
          entry: "Bash",
          reason: "bare Bash grants every shell command; grant a scoped form such as Bash(git *)",
        },
      ],
    });
  });

  it("refuses Bash(*) and its spellings as the same as bare Bash", () => {
    const result = extendAllowlist([], ["Bash(*)", "Bash(:*)", "Bash( * )"]);
    expect(result).toEqual({
      ok: false,
      refusals: [
        {
          entry: "Bash(*)",
          reason:
            "Bash(*) grants every shell command, exactly like bare Bash; grant a scoped form such as Bash(git *)",
        },
        {
          entry: "Bash(:*)",
          reason:
            "Bash(:*) grants every shell command, exactly like bare Bash; grant a scoped form such as Bash(git *)",
        },
        {
          entry: "Bash( * )",
          reason:
            "Bash( * ) grants every shell command, exactly like bare Bash; grant a scoped form such as Bash(git *)",
        },
      ],
    });
  });

  it("refuses a Bash scope whose first word runs any other command", () => {
    expect(extendAllowlist([], ["Bash(sh -c *)", "Bash(xargs *)"])).toEqual({
      ok: false,
      refusals: [
        {
          entry: "Bash(sh -c *)",
          reason: "Bash(sh -c *) starts with sh, which runs any other command, so it grants the whole shell",
        },
        {
          entry: "Bash(xargs *)",
          reason:
            "Bash(xargs *) starts with xargs, which runs any other command, so it grants the whole shell",
        },
      ],
    });
  });

  it("refuses web tools, scoped or not", () => {
    expect(extendAllowlist([], ["WebFetch", "WebSearch", "WebFetch(domain:github.com)"])).toEqual({
      ok: false,
      refusals: [
        {
          entry: "WebFetch",
          reason: "WebFetch reaches the network; web tools are never granted to a planned node",
        },
        {
          entry: "WebSearch",
          reason: "WebSearch reaches the network; web tools are never granted to a planned node",
        },
        {
          entry: "WebFetch(domain:github.com)",
          reason: "WebFetch reaches the network; web tools are never granted to a planned node",
        },
      ],
    });
  });

  it("refuses MCP tools", () => {
    expect(extendAllowlist([], ["mcp__github__create_issue"])).toEqual({
      ok: false,
      refusals: [
        {
          entry: "mcp__github__create_issue",
          reason:
            "MCP tools are never granted to a planned node: its MCP configuration is closed (strict MCP config)",
        },
      ],
    });
  });

  it("refuses Skill, which would let a plan choose local files to load", () => {
    expect(extendAllowlist([], ["Skill"])).toEqual({
      ok: false,
      refusals: [
        {
          entry: "Skill",
          reason: "Skill would let the plan choose which local skill files load into a node it wrote",
        },
      ],
    });
  });

  it("refuses malformed entries with a reason each", () => {
    const result = extendAllowlist(
      [],
      ["", " Read", "Bash(git *),Bash", "Bash(git *", "Read)", "Bash(git\n*)", "1tool"],
    );
    expect(result).toEqual({
      ok: false,
      refusals: [
        { entry: "", reason: "an allowlist entry cannot be empty" },
        { entry: " Read", reason: "an allowlist entry cannot start or end with whitespace" },
        {
          entry: "Bash(git *),Bash",
          reason:
            "an allowlist entry cannot contain a comma or a newline (the CLI would read it as two grants)",
        },
        { entry: "Bash(git *", reason: "a scoped entry must end with its closing parenthesis" },
        { entry: "Read)", reason: "an unscoped entry cannot contain a parenthesis" },
        {
          entry: "Bash(git\n*)",
          reason:
            "an allowlist entry cannot contain a comma or a newline (the CLI would read it as two grants)",
        },
        { entry: "1tool", reason: "the tool name must be a word such as Read or Bash" },
      ],
    });
  });

  it("refuses the whole extension when any entry is refused, collecting every refusal", () => {
    const result = extendAllowlist(DEFAULT_PLANNED_ALLOWLIST, ["Bash(npm test)", "Bash", "WebSearch"]);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.refusals.map((r) => r.entry)).toEqual(["Bash", "WebSearch"]);
  });
});
