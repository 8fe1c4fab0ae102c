/**
 * The run-wide runtime checks (`runtime-setup.ts`): what is a usage error before anything runs, which
 * executable a run spawns, and the warnings codex gives for what it cannot enforce.
 */
import { describe, expect, it } from "vitest";
import {
  executableFor,
  missingCliProblem,
  runtimeOptionsProblem,
  runtimeWarnings,
} from "../../src/engine/runtime-setup.js";
import { loadGraphText } from "../../src/graph/load.js";
import { codexHomeOf } from "../../src/runtime/codex-turn.js";

function graph(text: string) {
  const loaded = loadGraphText(text, "graph.yml");
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.graph;
}

const BUDGETS = graph(`
name: budgets
nodes:
  - id: a
    prompt: "a"
    budget_usd: 0.5
  - id: b
    prompt: "b"
  - id: gate
    type: gate
    depends_on: [a, b]
  - id: c
    depends_on: [gate]
    prompt: "c"
    budget_usd: 2
    timeout: 1h30m
`);

describe("runtimeWarnings", () => {
  it("codex: one warning per node with budget_usd, naming the timeout that bounds it (default or its own)", () => {
    expect(runtimeWarnings("codex", BUDGETS)).toEqual([
      'node "a": budget_usd 0.5 is not enforced on the codex runtime (codex reports no USD cost, so every codex row\'s cost is unknown); what bounds this node is its timeout of 20m (the default)',
      'node "c": budget_usd 2 is not enforced on the codex runtime (codex reports no USD cost, so every codex row\'s cost is unknown); what bounds this node is its timeout of 1h30m',
    ]);
  });

  it("claude: none (budget_usd is --max-budget-usd plus the post-hoc check there)", () => {
    expect(runtimeWarnings("claude", BUDGETS)).toEqual([]);
  });
});

describe("runtimeOptionsProblem", () => {
  it("accepts codex with a model and well-formed pairs, and claude without codex-config", () => {
    expect(
      runtimeOptionsProblem("codex", { model: "gpt-5.5", codexConfig: ['model_provider="gw"'] }),
    ).toBeNull();
    expect(runtimeOptionsProblem("claude", { model: "opus", codexConfig: [] })).toBeNull();
  });

  it("refuses a codex model -m cannot take, naming the option", () => {
    expect(runtimeOptionsProblem("codex", { model: "" })).toMatch(/^model: a codex model must be non-empty/);
  });

  it("refuses every bad codex-config entry, numbered, in one message", () => {
    expect(runtimeOptionsProblem("codex", { codexConfig: ['model="x"', "nope", "-c=x"] })).toBe(
      'codex-config entry 2: expected KEY=VALUE, got "nope"; codex-config entry 3: "-c" is not a config key (a dotted path such as model_providers.gw.base_url). Nothing was run.',
    );
  });

  it("refuses a codex-config key off the allowlist, naming the entry, the key and the reason", () => {
    const problem = runtimeOptionsProblem("codex", {
      codexConfig: [
        'model_provider="gw"',
        'sandbox_workspace_write.writable_roots=["/opt"]',
        "features.x=true",
      ],
    });
    expect(problem).toMatch(
      /^codex-config entry 2: "sandbox_workspace_write\.writable_roots" is not allowed: codex-config may only configure the model provider; .*; codex-config entry 3: "features\.x" is not allowed: .*a feature may only be turned off.*\. Nothing was run\.$/,
    );
  });

  it("refuses codex-config on a claude run (it would silently do nothing)", () => {
    expect(runtimeOptionsProblem("claude", { codexConfig: ["a=1"] })).toMatch(
      /^codex-config applies only to the codex runtime/,
    );
  });
});

describe("executables", () => {
  it("a run spawns its runtime's executable; codex defaults to `codex` on PATH", () => {
    expect(executableFor("claude", { claudeExecutable: "/x/claude" })).toBe("/x/claude");
    expect(executableFor("codex", { claudeExecutable: "/x/claude" })).toBe("codex");
    expect(executableFor("codex", { claudeExecutable: "c", codexExecutable: "/y/codex" })).toBe("/y/codex");
  });

  it("a missing CLI is named with how to install it", () => {
    expect(missingCliProblem("codex", "codex", { PATH: "/nonexistent" })).toBe(
      'the codex CLI was not found: "codex" is not an executable on PATH. Install @openai/codex or give the path of the codex executable; nothing was run',
    );
    expect(missingCliProblem("claude", "/no/claude", { PATH: "/nonexistent" })).toMatch(
      /^the claude CLI was not found: "\/no\/claude" is not an executable\. Install @anthropic-ai\/claude-code/,
    );
  });

  it("codexHomeOf: CODEX_HOME, else $HOME/.codex, else null", () => {
    expect(codexHomeOf({ CODEX_HOME: "/h/c", HOME: "/h" })).toBe("/h/c");
    expect(codexHomeOf({ HOME: "/h" })).toBe("/h/.codex");
    expect(codexHomeOf({})).toBeNull();
  });
});
