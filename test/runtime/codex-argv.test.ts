/** `buildCodexArgv` pinned element by element (SPEC §4, §8, §10; oh-my-graph §5.3). */
import { describe, expect, it } from "vitest";
import type { ToolPolicy } from "../../src/policy/tool-policy.js";
import type { PermissionMode } from "../../src/runtime/claude-argv.js";
import {
  buildCodexArgv,
  type CodexInvocation,
  codexPromptProblem,
  codexSandboxFor,
  parseCodexConfig,
} from "../../src/runtime/codex-argv.js";

const TID = "01a229b5-40c4-7922-94ad-e4ea52cb9e9d";

/** A planned node's ceiling: layer 1 set, so the four isolation items render. */
const PLANNED: ToolPolicy = {
  settingSources: "",
  allowedTools: ["Read", "Edit", "Bash(git *)"],
  tools: ["Read", "Edit", "Bash"],
  strictMcpConfig: true,
  disallowedTools: ["Write", "WebFetch"],
};

/** A hand-written node (or `accept-loaded-user-config`): no layer 1. */
const HAND_WRITTEN: ToolPolicy = {
  allowedTools: ["Bash(npm test)"],
  strictMcpConfig: false,
  disallowedTools: [],
};

const GATEWAY = [
  'model_provider="gw"',
  'model_providers.gw.base_url="https://gw.example/v1"',
  'model_providers.gw.env_key="OPENAI_API_KEY"',
];

function inv(overrides: Partial<CodexInvocation>): CodexInvocation {
  return {
    prompt: "fix the build",
    permissionMode: "dontAsk",
    policy: PLANNED,
    session: { kind: "fresh" },
    ...overrides,
  };
}

const HEAD = ["exec", "--json", "--color", "never", "--skip-git-repo-check"];
const ISOLATION = [
  "--ignore-user-config",
  "--ignore-rules",
  "--config",
  "project_doc_max_bytes=0",
  "--config",
  "mcp_servers={}",
];

describe("buildCodexArgv", () => {
  it("emits every item of a planned node in the pinned order", () => {
    expect(buildCodexArgv(inv({ model: "gpt-5.5", config: GATEWAY }))).toEqual([
      "exec",
      "--json",
      "--color",
      "never",
      "--skip-git-repo-check",
      "-m",
      "gpt-5.5",
      "-c",
      'model_provider="gw"',
      "-c",
      'model_providers.gw.base_url="https://gw.example/v1"',
      "-c",
      'model_providers.gw.env_key="OPENAI_API_KEY"',
      "--sandbox",
      "workspace-write",
      "--config",
      'approval_policy="never"',
      "--ignore-user-config",
      "--ignore-rules",
      "--config",
      "project_doc_max_bytes=0",
      "--config",
      "mcp_servers={}",
      "--",
      "fix the build",
    ]);
  });

  it("drops exactly the four isolation items without layer 1, and keeps sandbox, approval and codex-config", () => {
    expect(buildCodexArgv(inv({ policy: HAND_WRITTEN, config: GATEWAY }))).toEqual([
      ...HEAD,
      ...GATEWAY.flatMap((pair) => ["-c", pair]),
      "--sandbox",
      "workspace-write",
      "--config",
      'approval_policy="never"',
      "--",
      "fix the build",
    ]);
  });

  it("renders only layer 1 of the policy: tools, grants and denies have no codex argv", () => {
    const bare = buildCodexArgv(
      inv({ policy: { ...PLANNED, allowedTools: [], tools: [], disallowedTools: [] } }),
    );
    expect(buildCodexArgv(inv({}))).toEqual(bare);
    expect(bare.join(" ")).not.toMatch(/Read|Edit|Bash|Write|WebFetch/);
  });

  it("minimal fresh call: no -m, no -c, default sandbox for dontAsk", () => {
    expect(buildCodexArgv(inv({ policy: HAND_WRITTEN }))).toEqual([
      ...HEAD,
      "--sandbox",
      "workspace-write",
      "--config",
      'approval_policy="never"',
      "--",
      "fix the build",
    ]);
  });

  it("resumes a thread: every flag stays on exec, before `resume THREAD_ID -- PROMPT`", () => {
    expect(
      buildCodexArgv(inv({ session: { kind: "resume", threadId: TID }, permissionMode: "plan" })),
    ).toEqual([
      ...HEAD,
      "--sandbox",
      "read-only",
      "--config",
      'approval_policy="never"',
      ...ISOLATION,
      "resume",
      TID,
      "--",
      "fix the build",
    ]);
  });

  it("puts approval_policy and the sandbox on every node, whatever the mode", () => {
    for (const mode of ["acceptEdits", "auto", "bypassPermissions", "dontAsk", "manual", "plan"] as const) {
      const argv = buildCodexArgv(inv({ permissionMode: mode, policy: HAND_WRITTEN }));
      expect(argv.slice(5, 9)).toEqual([
        "--sandbox",
        codexSandboxFor(mode),
        "--config",
        'approval_policy="never"',
      ]);
    }
  });

  it("keeps the operator's pairs before the engine's boundary, so the boundary wins a conflicting key", () => {
    const argv = buildCodexArgv(
      inv({
        config: [
          'approval_policy="on-request"',
          'mcp_servers.x.command="/bin/sh"',
          "project_doc_max_bytes=9",
        ],
      }),
    );
    const last = (value: string) => argv.lastIndexOf(value);
    expect(last('approval_policy="never"')).toBeGreaterThan(last('approval_policy="on-request"'));
    expect(last("mcp_servers={}")).toBeGreaterThan(last('mcp_servers.x.command="/bin/sh"'));
    expect(last("project_doc_max_bytes=0")).toBeGreaterThan(last("project_doc_max_bytes=9"));
  });

  it("passes prompts that look like flags verbatim after --", () => {
    for (const prompt of ["- fix the tests", "--help", "-m", "", "  padded\n", "resume"]) {
      const argv = buildCodexArgv(inv({ prompt }));
      expect(argv.slice(-2)).toEqual(["--", prompt]);
    }
  });

  it("refuses the prompt `-` (codex would read stdin) and says why", () => {
    expect(codexPromptProblem("-")).toMatch(/stdin/);
    expect(codexPromptProblem("- ")).toBeNull();
    expect(codexPromptProblem("--")).toBeNull();
    expect(() => buildCodexArgv(inv({ prompt: "-" }))).toThrow(/Internal error: .*stdin/);
  });

  it("throws on broken invariants: non-UUID thread id, flag-like or empty model, malformed pair", () => {
    expect(() => buildCodexArgv(inv({ session: { kind: "resume", threadId: "--last" } }))).toThrow(
      'Internal error: a codex thread id must be a UUID, got "--last"',
    );
    expect(() => buildCodexArgv(inv({ model: "-x" }))).toThrow(/Internal error: a codex model/);
    expect(() => buildCodexArgv(inv({ model: "" }))).toThrow(/Internal error: a codex model/);
    for (const pair of ["no-equals", "-c=1", " model=1", "a b=1", "#x=1", "a=1\nb=2"]) {
      expect(() => buildCodexArgv(inv({ config: [pair] })), pair).toThrow(
        /Internal error: not a codex-config/,
      );
    }
  });
});

describe("codexSandboxFor (SPEC §8)", () => {
  it("maps plan → read-only, bypassPermissions → danger-full-access, everything else → workspace-write", () => {
    const table: Record<PermissionMode, string> = {
      plan: "read-only",
      bypassPermissions: "danger-full-access",
      acceptEdits: "workspace-write",
      auto: "workspace-write",
      dontAsk: "workspace-write",
      manual: "workspace-write",
    };
    for (const [mode, sandbox] of Object.entries(table)) {
      expect(codexSandboxFor(mode as PermissionMode), mode).toBe(sandbox);
    }
  });
});

describe("parseCodexConfig (SPEC §10 codex-config)", () => {
  it("reads KEY=VALUE lines, trimming, skipping blanks and # comments, keeping the value verbatim", () => {
    expect(
      parseCodexConfig(
        [
          "# gateway",
          '  model_provider="gw"  ',
          "",
          'model_providers."my-gw".base_url = "https://gw.example/v1?a=b"',
          "model_providers.gw.request_max_retries=0\r",
          "tools.update_plan={enabled=true}",
        ].join("\n"),
      ),
    ).toEqual({
      ok: true,
      pairs: [
        'model_provider="gw"',
        'model_providers."my-gw".base_url="https://gw.example/v1?a=b"',
        "model_providers.gw.request_max_retries=0",
        "tools.update_plan={enabled=true}",
      ],
    });
  });

  it("reports every bad line with its number", () => {
    expect(parseCodexConfig('model="x"\nno equals sign\n=1\n-flag=1\nbad key=1')).toEqual({
      ok: false,
      issues: [
        'codex-config line 2: expected KEY=VALUE, got "no equals sign"',
        'codex-config line 3: "" is not a config key (a dotted path such as model_providers.gw.base_url)',
        'codex-config line 4: "-flag" is not a config key (a dotted path such as model_providers.gw.base_url)',
        'codex-config line 5: "bad key" is not a config key (a dotted path such as model_providers.gw.base_url)',
      ],
    });
  });

  it("an empty input is no pairs", () => {
    expect(parseCodexConfig("")).toEqual({ ok: true, pairs: [] });
    expect(parseCodexConfig("\n  \n# only a comment\n")).toEqual({ ok: true, pairs: [] });
  });
});
