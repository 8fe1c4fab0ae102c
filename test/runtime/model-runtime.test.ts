/**
 * The model runtime port (src/runtime/model-runtime.ts; issue 24 item 1): the name lookup, and the parts of
 * a session and of its settings each runtime keeps — only its own, so a claude resume never carries a
 * codex thread's usage or home, nor a codex resume a claude session's cost. The rest of each runtime's
 * behaviour is covered where it is used (test/engine/runtime-setup.test.ts, the codex and two-runtime
 * engine tests, the action's and the CLI's end-to-end tests).
 */
import { describe, expect, it } from "vitest";
import { CLAUDE_RUNTIME } from "../../src/runtime/claude-runtime.js";
import { CODEX_RUNTIME } from "../../src/runtime/codex-runtime.js";
import { runtimeFor } from "../../src/runtime/runtime-for.js";

const USAGE = { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 2 };
const SAVED = { sessionId: "s-1", sessionCostUsd: 0.5, threadUsage: USAGE, codexHome: "/homes/x/.codex" };

describe("runtimeFor", () => {
  it("names each runtime, and an unset runtime is claude (the default)", () => {
    expect(runtimeFor("claude")).toBe(CLAUDE_RUNTIME);
    expect(runtimeFor("codex")).toBe(CODEX_RUNTIME);
    expect(runtimeFor(undefined)).toBe(CLAUDE_RUNTIME);
    expect([CLAUDE_RUNTIME.name, CODEX_RUNTIME.name]).toEqual(["claude", "codex"]);
  });
});

describe("each runtime keeps only its own part of a session", () => {
  it("claude resumes with the session's cost; codex with the thread's usage and home", () => {
    expect(CLAUDE_RUNTIME.resumedSession(SAVED)).toEqual({
      kind: "resume",
      sessionId: "s-1",
      sessionCostUsd: 0.5,
    });
    expect(CODEX_RUNTIME.resumedSession(SAVED)).toEqual({
      kind: "resume",
      sessionId: "s-1",
      threadUsage: USAGE,
      codexHome: "/homes/x/.codex",
    });
  });

  it("what was not saved is not known (null), and codex without a home resumes in the env's own", () => {
    const bare = { sessionId: "s-2" };
    expect(CLAUDE_RUNTIME.resumedSession(bare)).toStrictEqual({
      kind: "resume",
      sessionId: "s-2",
      sessionCostUsd: null,
    });
    expect(CODEX_RUNTIME.resumedSession(bare)).toStrictEqual({
      kind: "resume",
      sessionId: "s-2",
      threadUsage: null,
    });
  });

  it("a node's record keeps the thread's usage on codex only (a codex call without a thread clears it)", () => {
    expect(CLAUDE_RUNTIME.threadRecord({ usage: USAGE })).toStrictEqual({});
    expect(CODEX_RUNTIME.threadRecord({ usage: USAGE })).toStrictEqual({ thread_usage: USAGE });
    expect(CODEX_RUNTIME.threadRecord(undefined)).toStrictEqual({ thread_usage: undefined });
  });
});

describe("each runtime's settings and credentials", () => {
  it("state.json records codex-config keys on codex only, and only when there are pairs", () => {
    const pairs = ["model_provider=gw", "model_providers.gw.base_url=http://127.0.0.1:9/v1"];
    expect(CLAUDE_RUNTIME.recordedSettings(pairs)).toStrictEqual({});
    expect(CODEX_RUNTIME.recordedSettings([])).toStrictEqual({});
    expect(CODEX_RUNTIME.recordedSettings(pairs)).toStrictEqual({
      codex_config_keys: ["model_provider", "model_providers.gw.base_url"],
    });
  });

  it("the action's inputs reach only their own runtime's variables", () => {
    const inputs = { anthropicApiKey: "sk-ant", claudeCodeOauthToken: "oauth", openaiApiKey: "sk-oai" };
    expect(CLAUDE_RUNTIME.credentialsFromInputs(inputs)).toStrictEqual({
      ANTHROPIC_API_KEY: "sk-ant",
      CLAUDE_CODE_OAUTH_TOKEN: "oauth",
    });
    expect(CODEX_RUNTIME.credentialsFromInputs(inputs)).toStrictEqual({
      OPENAI_API_KEY: "sk-oai",
      CODEX_API_KEY: "sk-oai",
    });
    expect(CLAUDE_RUNTIME.missingCredentialInputs({ openaiApiKey: "sk-oai" })).toEqual([
      "anthropic-api-key",
      "claude-code-oauth-token",
    ]);
    expect(CODEX_RUNTIME.missingCredentialInputs({ anthropicApiKey: "sk-ant" })).toEqual(["openai-api-key"]);
  });
});
