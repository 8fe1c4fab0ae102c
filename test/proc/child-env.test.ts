/**
 * Child environments (SPEC §9; research/security.md §4.1–4.2). Every case starts from a runner-like
 * environment: what GitHub's runner puts into our Node process (inputs as `INPUT_<NAME>` with dashes
 * kept, runtime tokens, file-command paths) plus what a workflow's `env:` commonly adds.
 */
import { describe, expect, it } from "vitest";
import { buildChildEnv, type ChildKind } from "../../src/proc/child-env.js";

const ANTHROPIC_KEY = "sk-ant-api03-test-key-value";
const GITHUB_TOKEN = "ghs_testInstallationToken0123456789";

/** What the runner and a typical workflow hand our Node process. */
function runnerEnv(): Record<string, string> {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: "/home/runner",
    LANG: "C.UTF-8",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_REPOSITORY: "octo/widgets",
    GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
    RUNNER_TEMP: "/home/runner/work/_temp",
    // Tokens a workflow's env: often carries.
    GITHUB_TOKEN,
    GH_TOKEN: GITHUB_TOKEN,
    // Runner service credentials and URLs.
    ACTIONS_RUNTIME_TOKEN: "runtime-token",
    ACTIONS_RUNTIME_URL: "https://pipelines.actions.githubusercontent.com/abc/",
    ACTIONS_RESULTS_URL: "https://results-receiver.actions.githubusercontent.com/",
    ACTIONS_CACHE_URL: "https://artifactcache.actions.githubusercontent.com/abc/",
    ACTIONS_ID_TOKEN_REQUEST_URL: "https://pipelines.actions.githubusercontent.com/oidc",
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: "oidc-request-token",
    // Action inputs: the runner upper-cases the name and keeps dashes.
    "INPUT_ANTHROPIC-API-KEY": ANTHROPIC_KEY,
    "INPUT_GITHUB-TOKEN": GITHUB_TOKEN,
    INPUT_VERIFY: "npm test",
    "INPUT_VERIFY-ENV": "NPM_TOKEN",
    // File commands.
    GITHUB_ENV: "/home/runner/work/_temp/_runner_file_commands/set_env_1",
    GITHUB_OUTPUT: "/home/runner/work/_temp/_runner_file_commands/set_output_1",
    GITHUB_PATH: "/home/runner/work/_temp/_runner_file_commands/add_path_1",
    GITHUB_STATE: "/home/runner/work/_temp/_runner_file_commands/save_state_1",
    GITHUB_STEP_SUMMARY: "/home/runner/work/_temp/_runner_file_commands/step_summary_1",
    // Model credentials and provider settings.
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: "https://api.anthropic.com",
    CLAUDE_CODE_OAUTH_TOKEN: "claude-oauth-token",
    CLAUDE_CODE_USE_BEDROCK: "1",
    OPENAI_API_KEY: "sk-openai-test",
    OPENAI_BASE_URL: "https://api.openai.com/v1",
    CODEX_HOME: "/home/runner/.codex",
  };
}

const CHILD_KINDS: readonly { readonly name: string; readonly child: ChildKind }[] = [
  { name: "claude model CLI", child: { kind: "model", runtime: "claude" } },
  { name: "codex model CLI", child: { kind: "model", runtime: "codex" } },
  { name: "verify command", child: { kind: "verify" } },
  { name: "git", child: { kind: "git" } },
];

/** Dropped for every child, whatever its kind (SPEC §9 "No child gets"). */
const NEVER_FOR_ANY_CHILD = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_RUNTIME_URL",
  "ACTIONS_RESULTS_URL",
  "ACTIONS_CACHE_URL",
  "ACTIONS_ID_TOKEN_REQUEST_URL",
  "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
  "INPUT_ANTHROPIC-API-KEY",
  "INPUT_GITHUB-TOKEN",
  "INPUT_VERIFY",
  "INPUT_VERIFY-ENV",
  "GITHUB_ENV",
  "GITHUB_OUTPUT",
  "GITHUB_PATH",
  "GITHUB_STATE",
  "GITHUB_STEP_SUMMARY",
];

describe("every child kind", () => {
  for (const { name, child } of CHILD_KINDS) {
    it(`the ${name} gets no GitHub token, runner service token, action input or file-command path`, () => {
      const env = buildChildEnv({ base: runnerEnv(), child });
      for (const dropped of NEVER_FOR_ANY_CHILD) expect(env, dropped).not.toHaveProperty([dropped]);
      // Harmless runner metadata still reaches the child: the scrub is a denylist, not an empty env.
      expect(env).toMatchObject({
        PATH: "/usr/local/bin:/usr/bin:/bin",
        CI: "true",
        GITHUB_SHA: expect.any(String),
      });
    });

    it(`the ${name} gets no variable whose value equals a known secret, whatever its name`, () => {
      const base = { ...runnerEnv(), MY_COPY_OF_THE_KEY: "hunter2-secret-value", UNRELATED: "fine" };
      const env = buildChildEnv({ base, child, knownSecrets: ["hunter2-secret-value"] });
      expect(env).not.toHaveProperty(["MY_COPY_OF_THE_KEY"]);
      expect(env.UNRELATED).toBe("fine");
    });

    it(`the ${name} drops lower- and mixed-case spellings of forbidden names`, () => {
      const base = {
        github_token: "x",
        Gh_Token: "x",
        "input_anthropic-api-key": "x",
        Input_Verify: "x",
        github_output: "x",
        Actions_Runtime_Token: "x",
        kept_lower_case: "y",
      };
      const env = buildChildEnv({ base, child });
      expect(env).toEqual({ kept_lower_case: "y" });
    });
  }
});

describe("the verify command and git", () => {
  for (const child of [{ kind: "verify" }, { kind: "git" }] as const) {
    it(`${child.kind} gets no model credential, provider setting or model CLI home`, () => {
      const env = buildChildEnv({ base: runnerEnv(), child });
      for (const dropped of [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "CODEX_HOME",
      ]) {
        expect(env, dropped).not.toHaveProperty([dropped]);
      }
    });
  }
});

describe("the model CLIs", () => {
  it("the claude CLI keeps its own provider settings and loses codex's", () => {
    const env = buildChildEnv({ base: runnerEnv(), child: { kind: "model", runtime: "claude" } });
    expect(env.ANTHROPIC_BASE_URL).toBe("https://api.anthropic.com");
    expect(env.CLAUDE_CODE_USE_BEDROCK).toBe("1");
    expect(env).not.toHaveProperty(["OPENAI_API_KEY"]);
    expect(env).not.toHaveProperty(["OPENAI_BASE_URL"]);
    expect(env).not.toHaveProperty(["CODEX_HOME"]);
  });

  it("the codex CLI keeps its own provider settings and loses claude's", () => {
    const env = buildChildEnv({ base: runnerEnv(), child: { kind: "model", runtime: "codex" } });
    expect(env.OPENAI_BASE_URL).toBe("https://api.openai.com/v1");
    expect(env.CODEX_HOME).toBe("/home/runner/.codex");
    for (const dropped of [
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_BASE_URL",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "CLAUDE_CODE_USE_BEDROCK",
    ]) {
      expect(env, dropped).not.toHaveProperty([dropped]);
    }
  });

  it("the model credential reaches the model CLI through set even when its value is a known secret", () => {
    const env = buildChildEnv({
      base: runnerEnv(),
      child: { kind: "model", runtime: "claude" },
      knownSecrets: [ANTHROPIC_KEY, GITHUB_TOKEN],
      set: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, HOME: "/tmp/eg-home" },
    });
    expect(env.ANTHROPIC_API_KEY).toBe(ANTHROPIC_KEY);
    expect(env.HOME).toBe("/tmp/eg-home");
    // …and only there: no inherited variable carries either secret.
    const carriers = Object.entries(env).filter(([, v]) => v === ANTHROPIC_KEY || v === GITHUB_TOKEN);
    expect(carriers.map(([k]) => k)).toEqual(["ANTHROPIC_API_KEY"]);
  });
});

describe("passThrough (input verify-env)", () => {
  it("keeps a named registry token that a rule would otherwise drop", () => {
    const base = { ...runnerEnv(), NPM_TOKEN: "npm_registryToken123" };
    const without = buildChildEnv({
      base,
      child: { kind: "verify" },
      knownSecrets: ["npm_registryToken123"],
    });
    expect(without).not.toHaveProperty(["NPM_TOKEN"]);
    const withIt = buildChildEnv({
      base,
      child: { kind: "verify" },
      knownSecrets: ["npm_registryToken123"],
      passThrough: ["NPM_TOKEN"],
    });
    expect(withIt.NPM_TOKEN).toBe("npm_registryToken123");
  });

  it("matches names case-insensitively", () => {
    const base = { NPM_TOKEN: "npm_registryToken123" };
    const env = buildChildEnv({
      base,
      child: { kind: "verify" },
      knownSecrets: ["npm_registryToken123"],
      passThrough: ["npm_token"],
    });
    expect(env.NPM_TOKEN).toBe("npm_registryToken123");
  });

  it("can never pass an action input or a file-command path, in any spelling", () => {
    const never = [
      "INPUT_ANTHROPIC-API-KEY",
      "INPUT_GITHUB-TOKEN",
      "input_verify",
      "GITHUB_ENV",
      "GITHUB_OUTPUT",
      "github_output",
      "GITHUB_PATH",
      "GITHUB_STATE",
      "GITHUB_STEP_SUMMARY",
    ];
    const base = { ...runnerEnv(), input_verify: "npm test", github_output: "/tmp/out" };
    for (const { child } of CHILD_KINDS) {
      const env = buildChildEnv({ base, child, passThrough: never });
      for (const name of never) expect(env, `${child.kind}: ${name}`).not.toHaveProperty([name]);
    }
  });

  it("passes nothing that is not in the base environment", () => {
    const env = buildChildEnv({
      base: { PATH: "/bin" },
      child: { kind: "verify" },
      passThrough: ["NPM_TOKEN"],
    });
    expect(env).toEqual({ PATH: "/bin" });
  });
});

describe("building the environment", () => {
  it("set wins over the base environment and over every drop rule", () => {
    const env = buildChildEnv({
      base: { ...runnerEnv(), HOME: "/home/runner", GIT_TERMINAL_PROMPT: "1" },
      child: { kind: "git" },
      knownSecrets: ["/tmp/fresh-home"],
      set: { HOME: "/tmp/fresh-home", GIT_TERMINAL_PROMPT: "0", CODEX_HOME: "/tmp/codex-home" },
    });
    expect(env.HOME).toBe("/tmp/fresh-home");
    expect(env.GIT_TERMINAL_PROMPT).toBe("0");
    expect(env.CODEX_HOME).toBe("/tmp/codex-home");
  });

  it("never mutates the base environment and returns a fresh object", () => {
    const base = Object.freeze(runnerEnv());
    const snapshot = { ...base };
    const env = buildChildEnv({
      base,
      child: { kind: "verify" },
      knownSecrets: [ANTHROPIC_KEY],
      set: { HOME: "/tmp/h" },
    });
    expect(base).toEqual(snapshot);
    expect(env).not.toBe(base);
    env.EXTRA = "1";
    expect(base).not.toHaveProperty(["EXTRA"]);
  });

  it("leaves out variables whose value is undefined, as process.env may hold", () => {
    const env = buildChildEnv({ base: { PATH: "/bin", UNSET: undefined }, child: { kind: "verify" } });
    expect(env).toEqual({ PATH: "/bin" });
  });

  it("an empty known secret drops nothing", () => {
    const env = buildChildEnv({
      base: { PATH: "/bin", EMPTY: "" },
      child: { kind: "verify" },
      knownSecrets: [""],
    });
    expect(env).toEqual({ PATH: "/bin", EMPTY: "" });
  });
});
