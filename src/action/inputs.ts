/**
 * The action's inputs (`action.yml`), read once into a typed object or refused with every problem named
 * (SPEC §10, §11; house style: inputs parsed once at the edge). Inputs arrive as `INPUT_<NAME>` variables
 * with the name upper-cased and dashes kept, as the runner sets them.
 */
import { parseDuration } from "../graph/duration.js";
import { verifyEnvProblems } from "../proc/child-env.js";

export interface ActionInputs {
  readonly goal: string;
  readonly verifyCmd?: string;
  readonly verifyTimeoutMs: number;
  readonly verifyEnv: readonly string[];
  readonly acceptNoBuildEvidence: boolean;
  readonly runtime: "claude";
  readonly model?: string;
  readonly claudeVersion: string;
  readonly anthropicApiKey?: string;
  readonly claudeCodeOauthToken?: string;
  readonly githubToken: string;
  readonly checkName: string;
  readonly workingDirectory?: string;
  readonly concurrency: number;
  readonly continueOnFail: boolean;
}

export type InputsResult =
  | { readonly ok: true; readonly inputs: ActionInputs }
  | { readonly ok: false; readonly errors: readonly string[] };

/** The Claude Code version installed when `claude` is not on PATH (input `claude-version`). */
export const DEFAULT_CLAUDE_VERSION = "2.1.332";

function raw(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[`INPUT_${name.toUpperCase()}`];
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** YAML 1.2 core-schema booleans, as `core.getBooleanInput` accepts them. */
function bool(env: Readonly<Record<string, string | undefined>>, name: string, errors: string[]): boolean {
  const value = raw(env, name);
  if (value === undefined) return false;
  if (["true", "True", "TRUE"].includes(value)) return true;
  if (["false", "False", "FALSE"].includes(value)) return false;
  errors.push(`input \`${name}\` is ${JSON.stringify(value)}: use true or false`);
  return false;
}

/** Reads and checks every input. */
export function readActionInputs(env: Readonly<Record<string, string | undefined>>): InputsResult {
  const errors: string[] = [];
  const goal = raw(env, "goal");
  if (raw(env, "graph") !== undefined) {
    errors.push("input `graph` (hand-written graphs) is not supported by this version: use `goal`");
  }
  if (goal === undefined) errors.push("input `goal` is required: say what the run should achieve");
  const mode = raw(env, "mode");
  if (mode !== undefined && mode !== "auto") {
    errors.push(`input \`mode\` is ${JSON.stringify(mode)}: this version supports only auto`);
  }
  // A blank `verify-cmd` is the input's default: no command given.
  const verifyCmd = raw(env, "verify-cmd");
  const accept = bool(env, "accept-no-build-evidence", errors);
  if (verifyCmd !== undefined && accept) {
    errors.push("inputs `verify-cmd` and `accept-no-build-evidence` were both given: pass one or the other");
  }
  let verifyTimeoutMs = 10 * 60_000;
  const vt = raw(env, "verify-timeout");
  if (vt !== undefined) {
    const parsed = parseDuration(vt);
    if (parsed.ok && parsed.ms >= 1000 && parsed.ms <= 24 * 3_600_000) verifyTimeoutMs = parsed.ms;
    else if (parsed.ok)
      errors.push(`input \`verify-timeout\` ${JSON.stringify(vt)}: give a duration from 1s to 24h`);
    else errors.push(`input \`verify-timeout\`: ${parsed.message}`);
  }
  const runtime = raw(env, "runtime") ?? "claude";
  if (runtime !== "claude")
    errors.push(`input \`runtime\` is ${JSON.stringify(runtime)}: this version supports claude`);
  let concurrency = 4;
  const c = raw(env, "concurrency");
  if (c !== undefined) {
    const n = Number(c);
    if (!Number.isInteger(n) || n < 1 || n > 10)
      errors.push(`input \`concurrency\` is ${JSON.stringify(c)}: give a whole number from 1 to 10`);
    else concurrency = n;
  }
  const githubToken = raw(env, "github-token");
  if (githubToken === undefined)
    errors.push("input `github-token` is empty: leave it at its default (the workflow's github.token)");
  const continueOnFail = bool(env, "continue-on-fail", errors);
  const verifyEnv = (raw(env, "verify-env") ?? "").split(/[\s,]+/).filter((s) => s !== "");
  // The model credential and the GitHub token never reach PR code, whatever verify-env says (SPEC §9).
  errors.push(...verifyEnvProblems(verifyEnv, "input `verify-env`"));
  if (errors.length > 0) return { ok: false, errors };
  const opt = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
  return {
    ok: true,
    inputs: {
      goal: goal!,
      ...opt("verifyCmd", verifyCmd),
      verifyTimeoutMs,
      verifyEnv,
      acceptNoBuildEvidence: accept,
      runtime: "claude",
      ...opt("model", raw(env, "model")),
      claudeVersion: raw(env, "claude-version") ?? DEFAULT_CLAUDE_VERSION,
      ...opt("anthropicApiKey", raw(env, "anthropic-api-key")),
      ...opt("claudeCodeOauthToken", raw(env, "claude-code-oauth-token")),
      githubToken: githubToken!,
      checkName: raw(env, "check-name") ?? "evidence-gate",
      ...opt("workingDirectory", raw(env, "working-directory")),
      concurrency,
      continueOnFail,
    },
  };
}
