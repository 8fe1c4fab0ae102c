/**
 * `verify-env` is checked at both edges (CLI `--verify-env`, action input `verify-env`) before anything
 * runs: a name that is not a variable name, or that names the GitHub token, a runner variable, an action
 * input, a file-command path or a model credential, is a usage error naming the variable and why
 * (SPEC §9: the model key and the GitHub token never reach PR code).
 */
import { describe, expect, it } from "vitest";
import { readActionInputs } from "../../src/action/inputs.js";
import { parseAutoFlags } from "../../src/cli/parse-auto-flags.js";

function cliErrors(verifyEnv: string): readonly string[] {
  const parsed = parseAutoFlags(["--goal", "g", "--verify-cmd", "npm test", "--verify-env", verifyEnv]);
  return parsed.ok ? [] : parsed.errors;
}

function actionErrors(verifyEnv: string): readonly string[] {
  const parsed = readActionInputs({
    INPUT_GOAL: "g",
    "INPUT_VERIFY-CMD": "npm test",
    "INPUT_GITHUB-TOKEN": "ghs_x",
    "INPUT_VERIFY-ENV": verifyEnv,
  });
  return parsed.ok ? [] : parsed.errors;
}

const FORBIDDEN: readonly [string, RegExp][] = [
  ["GITHUB_TOKEN", /GitHub token, which never reaches PR code/],
  ["GH_TOKEN", /GitHub token, which never reaches PR code/],
  ["ACTIONS_RUNTIME_TOKEN", /runner service token/],
  ["ACTIONS_ID_TOKEN_REQUEST_URL", /runner service token/],
  ["INPUT_ANTHROPIC_API_KEY", /action input/],
  ["GITHUB_ENV", /file-command path/],
  ["GITHUB_OUTPUT", /file-command path/],
  ["GITHUB_PATH", /file-command path/],
  ["GITHUB_STATE", /file-command path/],
  ["GITHUB_STEP_SUMMARY", /file-command path/],
  ["ANTHROPIC_API_KEY", /model credential or provider setting, which never reaches PR code/],
  ["ANTHROPIC_BASE_URL", /model credential or provider setting/],
  ["CLAUDE_CODE_OAUTH_TOKEN", /model credential or provider setting/],
  ["OPENAI_API_KEY", /model credential or provider setting/],
  ["CODEX_HOME", /model credential or provider setting/],
  ["github_token", /GitHub token/],
];

describe("--verify-env (CLI)", () => {
  it("accepts ordinary names, comma-separated, and keeps them in order", () => {
    const parsed = parseAutoFlags([
      "--goal",
      "g",
      "--verify-cmd",
      "t",
      "--verify-env",
      "NPM_TOKEN, AWS_REGION",
    ]);
    expect(parsed.ok && parsed.flags.verifyEnv).toEqual(["NPM_TOKEN", "AWS_REGION"]);
  });

  it.each(FORBIDDEN)("naming %s is a usage error that names it and says why", (name, why) => {
    const errors = cliErrors(`NPM_TOKEN,${name}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`--verify-env cannot pass ${name} to the verify command`);
    expect(errors[0]).toMatch(why);
  });

  it.each(["NPM-TOKEN", "1TOKEN", "A.B", "$HOME"])("%j is not a variable name: usage error", (name) => {
    const errors = cliErrors(name);
    expect(errors).toEqual([
      `--verify-env names ${JSON.stringify(name)}, which is not a variable name (letters, digits and _, not starting with a digit)`,
    ]);
  });

  it("reports every bad name, not just the first", () => {
    expect(cliErrors("GITHUB_TOKEN,ANTHROPIC_API_KEY,bad-name")).toHaveLength(3);
  });
});

describe("input verify-env (action)", () => {
  it("accepts ordinary names, comma or newline separated", () => {
    const parsed = readActionInputs({
      INPUT_GOAL: "g",
      "INPUT_GITHUB-TOKEN": "ghs_x",
      "INPUT_VERIFY-ENV": "NPM_TOKEN\nAWS_REGION, NODE_OPTIONS",
    });
    expect(parsed.ok && parsed.inputs.verifyEnv).toEqual(["NPM_TOKEN", "AWS_REGION", "NODE_OPTIONS"]);
  });

  it.each(FORBIDDEN)("naming %s is a usage error that names it and says why", (name, why) => {
    const errors = actionErrors(`NPM_TOKEN\n${name}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`input \`verify-env\` cannot pass ${name} to the verify command`);
    expect(errors[0]).toMatch(why);
  });

  it("a name that is not a variable name is a usage error", () => {
    expect(actionErrors("NPM-TOKEN")).toEqual([
      'input `verify-env` names "NPM-TOKEN", which is not a variable name (letters, digits and _, not starting with a digit)',
    ]);
  });
});
