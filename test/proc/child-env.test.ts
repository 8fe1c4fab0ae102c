/**
 * Child environments (SPEC §9; research/security.md §4.1–4.2). Every case starts from a runner-like
 * environment: what GitHub's runner puts into our Node process (inputs as `INPUT_<NAME>` with dashes
 * kept, runtime tokens, file-command paths) plus what a workflow's `env:` commonly adds.
 */
import { describe, expect, it } from "vitest";
import {
  buildChildEnv,
  type ChildKind,
  isSecretLikeName,
  verifyEnvProblems,
} from "../../src/proc/child-env.js";

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

describe("the secret-name and injection rules (research/security.md §4.2)", () => {
  /** What a workflow's env: or a previous step commonly adds: registry, cloud and CI credentials. */
  const SECRET_LIKE = {
    NPM_TOKEN: "npm_x",
    NODE_AUTH_TOKEN: "npm_y",
    npm_config__auth: "dXNlcjpwYXNz",
    "npm_config_//registry.npmjs.org/:_authToken": "npm_z",
    AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "aws-secret",
    AWS_SESSION_TOKEN: "aws-session",
    AWS_REGION: "eu-west-1",
    AZURE_CLIENT_SECRET: "azure-secret",
    AZURE_CLIENT_ID: "azure-client",
    GOOGLE_APPLICATION_CREDENTIALS: "/tmp/gcp.json",
    GOOGLE_GHA_CREDS_PATH: "/tmp/gha-creds.json",
    CLOUDSDK_AUTH_ACCESS_TOKEN_FILE: "/tmp/token",
    DOCKER_PASSWORD: "docker-pass",
    DOCKER_AUTH_CONFIG: "{}",
    CODECOV_TOKEN: "codecov",
    SONAR_TOKEN: "sonar",
    GITHUB_PAT: "ghp_x",
    GH_ENTERPRISE_TOKEN: "ghe_x",
    GEMINI_API_KEY: "gemini",
    SSH_PRIVATE_KEY: "-----BEGIN",
    DB_PASSWORD: "db",
    DB_PASS: "db",
    GPG_PASSPHRASE: "gpg",
    SIGNING_SECRETS: "s",
    VAULT_TOKEN: "v",
    TOKEN: "t",
    MY_SECRET_VALUE: "m",
  };
  const INJECTION = {
    NODE_OPTIONS: "--require ./evil.js",
    LD_PRELOAD: "./x.so",
    LD_LIBRARY_PATH: "./lib",
    BASH_ENV: "./evil.sh",
    ENV: "./evil.sh",
    PROMPT_COMMAND: "curl x",
    GIT_ASKPASS: "./askpass",
    GIT_SSH_COMMAND: "ssh -o ProxyCommand=x",
    PYTHONSTARTUP: "./x.py",
    PERL5OPT: "-Mx",
    RUNNER_DEBUG: "1",
    ACTIONS_STEP_DEBUG: "true",
    ACTIONS_ALLOW_UNSECURE_COMMANDS: "true",
  };
  const HARMLESS = {
    PATH: "/usr/bin:/bin",
    HOME: "/home/runner",
    PWD: "/work",
    OLDPWD: "/",
    CI: "true",
    GITHUB_SHA: "0123",
    GITHUB_EVENT_PATH: "/tmp/event.json",
    GITHUB_WORKSPACE: "/work",
    RUNNER_TEMP: "/tmp",
    KEYBOARD: "us",
    MONKEY_BUSINESS: "1",
    TOKENIZER_PARALLELISM: "false",
    SSH_AUTH_SOCK: "/tmp/agent.sock",
  };

  for (const child of [{ kind: "verify" }, { kind: "git" }] as const) {
    it(`${child.kind} gets no secret-like name, cloud credential or injection vector, and keeps the rest`, () => {
      const env = buildChildEnv({ base: { ...SECRET_LIKE, ...INJECTION, ...HARMLESS }, child });
      for (const name of [...Object.keys(SECRET_LIKE), ...Object.keys(INJECTION)]) {
        expect(env, name).not.toHaveProperty([name]);
      }
      const kept = { ...HARMLESS } as Record<string, string>;
      // An SSH agent is a credential: PR code does not get it; git (local plumbing only) does.
      if (child.kind === "verify") delete kept.SSH_AUTH_SOCK;
      expect(env).toEqual(kept);
    });
  }

  it("the model CLI gets the same rule, except its own runtime's provider variables", () => {
    const base = { ...SECRET_LIKE, ...INJECTION, ...HARMLESS, ...runnerEnv(), CLAUDE_CODE_USE_BEDROCK: "" };
    const claude = buildChildEnv({ base, child: { kind: "model", runtime: "claude" } });
    for (const name of [...Object.keys(SECRET_LIKE), ...Object.keys(INJECTION)]) {
      expect(claude, name).not.toHaveProperty([name]);
    }
    expect(claude).toMatchObject({
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: "https://api.anthropic.com",
      CLAUDE_CODE_OAUTH_TOKEN: "claude-oauth-token",
      PATH: "/usr/local/bin:/usr/bin:/bin",
    });
    const codex = buildChildEnv({ base, child: { kind: "model", runtime: "codex" } });
    expect(codex).toMatchObject({ OPENAI_API_KEY: "sk-openai-test", CODEX_HOME: "/home/runner/.codex" });
    expect(codex).not.toHaveProperty(["NPM_TOKEN"]);
    expect(codex).not.toHaveProperty(["ANTHROPIC_API_KEY"]);
  });

  it("claude on Bedrock, Vertex or Foundry keeps that provider's credentials, and only then", () => {
    const cloud = {
      AWS_ACCESS_KEY_ID: "AKIA",
      AWS_SECRET_ACCESS_KEY: "s",
      GOOGLE_APPLICATION_CREDENTIALS: "/tmp/g.json",
      CLOUDSDK_CORE_PROJECT: "p",
      AZURE_CLIENT_SECRET: "a",
    };
    const claude = { kind: "model", runtime: "claude" } as const;
    expect(buildChildEnv({ base: cloud, child: claude })).toEqual({});
    expect(buildChildEnv({ base: { ...cloud, CLAUDE_CODE_USE_BEDROCK: "1" }, child: claude })).toEqual({
      AWS_ACCESS_KEY_ID: "AKIA",
      AWS_SECRET_ACCESS_KEY: "s",
      CLAUDE_CODE_USE_BEDROCK: "1",
    });
    expect(buildChildEnv({ base: { ...cloud, CLAUDE_CODE_USE_VERTEX: "true" }, child: claude })).toEqual({
      GOOGLE_APPLICATION_CREDENTIALS: "/tmp/g.json",
      CLOUDSDK_CORE_PROJECT: "p",
      CLAUDE_CODE_USE_VERTEX: "true",
    });
    expect(buildChildEnv({ base: { ...cloud, CLAUDE_CODE_USE_FOUNDRY: "1" }, child: claude })).toEqual({
      AZURE_CLIENT_SECRET: "a",
      CLAUDE_CODE_USE_FOUNDRY: "1",
    });
    expect(buildChildEnv({ base: { ...cloud, CLAUDE_CODE_USE_BEDROCK: "0" }, child: claude })).toEqual({
      CLAUDE_CODE_USE_BEDROCK: "0",
    });
    // The verify command never gets them, whatever the switch says.
    expect(
      buildChildEnv({ base: { ...cloud, CLAUDE_CODE_USE_BEDROCK: "1" }, child: { kind: "verify" } }),
    ).toEqual({});
  });

  it("isSecretLikeName: words, not substrings", () => {
    expect(isSecretLikeName("NPM_TOKEN")).toBe(true);
    expect(isSecretLikeName("my-api-key")).toBe(true);
    expect(isSecretLikeName("Stripe.SecretKey")).toBe(true);
    expect(isSecretLikeName("STRIPE_SECRET_KEY")).toBe(true);
    expect(isSecretLikeName("KEYBOARD")).toBe(false);
    expect(isSecretLikeName("TOKENIZER_PARALLELISM")).toBe(false);
    expect(isSecretLikeName("PWD")).toBe(false);
    expect(isSecretLikeName("KEY_ID")).toBe(false);
  });
});

describe("passThrough (input verify-env)", () => {
  it("keeps a named registry token that the secret-name rule would otherwise drop", () => {
    const base = { ...runnerEnv(), NPM_TOKEN: "npm_registryToken123" };
    const without = buildChildEnv({ base, child: { kind: "verify" } });
    expect(without).not.toHaveProperty(["NPM_TOKEN"]);
    const withIt = buildChildEnv({ base, child: { kind: "verify" }, passThrough: ["NPM_TOKEN"] });
    expect(withIt.NPM_TOKEN).toBe("npm_registryToken123");
  });

  it("matches names case-insensitively", () => {
    const base = { NPM_TOKEN: "npm_registryToken123" };
    const env = buildChildEnv({ base, child: { kind: "verify" }, passThrough: ["npm_token"] });
    expect(env.NPM_TOKEN).toBe("npm_registryToken123");
  });

  it("keeps a named injection vector (a build that needs NODE_OPTIONS says so)", () => {
    const base = { NODE_OPTIONS: "--max-old-space-size=4096", LD_LIBRARY_PATH: "/opt/lib" };
    const env = buildChildEnv({ base, child: { kind: "verify" }, passThrough: ["NODE_OPTIONS"] });
    expect(env).toEqual({ NODE_OPTIONS: "--max-old-space-size=4096" });
  });

  it("never passes a variable whose value is a known secret: the GitHub token does not reach PR code under another name", () => {
    const base = { ...runnerEnv(), NODE_AUTH_TOKEN: GITHUB_TOKEN, NPM_TOKEN: "npm_registryToken123" };
    const env = buildChildEnv({
      base,
      child: { kind: "verify" },
      knownSecrets: [GITHUB_TOKEN, ANTHROPIC_KEY],
      passThrough: ["NODE_AUTH_TOKEN", "NPM_TOKEN"],
    });
    expect(env).not.toHaveProperty(["NODE_AUTH_TOKEN"]);
    expect(env.NPM_TOKEN).toBe("npm_registryToken123");
    expect(Object.values(env)).not.toContain(GITHUB_TOKEN);
    expect(Object.values(env)).not.toContain(ANTHROPIC_KEY);
  });

  it("can never pass an action input, a file-command path, the GitHub token, a runner service variable or a model credential, in any spelling", () => {
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
      "GITHUB_TOKEN",
      "GH_TOKEN",
      "ACTIONS_RUNTIME_TOKEN",
      "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
      "ANTHROPIC_API_KEY",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "OPENAI_API_KEY",
      "CODEX_HOME",
    ];
    const base = { ...runnerEnv(), input_verify: "npm test", github_output: "/tmp/out" };
    for (const child of [{ kind: "verify" }, { kind: "git" }] as const) {
      const env = buildChildEnv({ base, child, passThrough: never });
      for (const name of never) expect(env, `${child.kind}: ${name}`).not.toHaveProperty([name]);
    }
    for (const { child } of CHILD_KINDS) {
      const env = buildChildEnv({ base, child, passThrough: never });
      for (const name of never.filter((n) => !/^(ANTHROPIC|CLAUDE_CODE|OPENAI|CODEX)_/.test(n))) {
        expect(env, `${child.kind}: ${name}`).not.toHaveProperty([name]);
      }
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

describe("verifyEnvProblems (the verify-env names, checked at the edge)", () => {
  it("accepts ordinary variable names", () => {
    expect(
      verifyEnvProblems(["NPM_TOKEN", "AWS_REGION", "_private", "node_options"], "--verify-env"),
    ).toEqual([]);
  });

  it("refuses a name that is not a variable name, saying which", () => {
    expect(verifyEnvProblems(["NPM-TOKEN", "1ABC", "A B"], "--verify-env")).toEqual([
      '--verify-env names "NPM-TOKEN", which is not a variable name (letters, digits and _, not starting with a digit)',
      '--verify-env names "1ABC", which is not a variable name (letters, digits and _, not starting with a digit)',
      '--verify-env names "A B", which is not a variable name (letters, digits and _, not starting with a digit)',
    ]);
  });

  it("refuses the GitHub token, runner variables, action inputs, file-command paths and model credentials, naming the variable and why", () => {
    const refused = [
      "GITHUB_TOKEN",
      "gh_token",
      "ACTIONS_RUNTIME_TOKEN",
      "INPUT_GOAL",
      "GITHUB_ENV",
      "GITHUB_OUTPUT",
      "GITHUB_PATH",
      "GITHUB_STATE",
      "GITHUB_STEP_SUMMARY",
      "ANTHROPIC_API_KEY",
      "CLAUDE_CODE_OAUTH_TOKEN",
      "OPENAI_API_KEY",
      "CODEX_HOME",
    ];
    const problems = verifyEnvProblems(refused, "input `verify-env`");
    expect(problems).toHaveLength(refused.length);
    for (const [i, name] of refused.entries()) {
      expect(problems[i]).toContain(`input \`verify-env\` cannot pass ${name} to the verify command: `);
    }
    expect(problems[0]).toContain("the GitHub token, which never reaches PR code");
    expect(problems[4]).toContain("file-command path");
    expect(problems[9]).toContain("model credential or provider setting, which never reaches PR code");
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
