/**
 * The action's inputs (`action.yml`), read once into a typed object or refused with every problem named
 * (SPEC §10, §11; house style: inputs parsed once at the edge). Inputs arrive as `INPUT_<NAME>` variables
 * with the name upper-cased and dashes kept, as the runner sets them.
 *
 * The mode (SPEC §10): `auto` (the default when `goal` is given), `run` (the default when `graph` is
 * given), `verify` (the verify command alone, no model), `lint`, `resume` and `report` (post a pull request
 * run's ledger artifact from a `workflow_run` workflow; it takes no `goal` or `graph`). `goal` and `graph`
 * together, or neither outside `verify`, `resume` and `report`, is a usage error.
 */
import { testReportsPatternProblem } from "../core/test-reports-pattern.js";
import { type Runtime, runtimeOptionsProblem } from "../engine/runtime-setup.js";
import { artifactModeProblem } from "../github/artifact.js";
import { parseDuration } from "../graph/duration.js";
import {
  DEFAULT_CLAUDE_VERSION,
  DEFAULT_CODEX_VERSION,
  DEFAULT_TIMEOUT_MINUTES,
  type InputsResult,
  type IsolateSetting,
  type ReportTo,
} from "../pull-request/action-inputs.js";
import { readOutputLogLimit, readPrUserCache } from "../pull-request/output-and-home-inputs.js";
import { readGoalLoop } from "../run/max-cycles.js";
import { readRepairAttempts } from "../run/repair-attempts.js";
import { readVerifyEnv, readVerifyRepeat } from "../run/request-fields.js";
import { parseCodexConfig } from "../runtime/codex-argv.js";
import { bool, raw, readMode, strayInputs } from "./mode-inputs.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `max-cost-usd` without a second cycle: it would never be checked. */
const GOAL_LOOP_REFUSAL =
  "input `max-cost-usd` is checked between cycles, and `max-cycles` is 1: set max-cycles to 2 or more, or drop it";

/**
 * Whether the workflow asked for `mode: lint`, read from the raw input before anything else is checked:
 * lint makes no API call, so it needs no token, and a usage error in it must not post a check run.
 */
export function lintRequested(env: Env): boolean {
  return raw(env, "mode") === "lint";
}

const RUNTIMES: readonly Runtime[] = ["claude", "codex"];

const ISOLATE_SETTINGS: readonly IsolateSetting[] = ["auto", "true", "false"];

/** Input `isolate-user`: `auto` (the default, also when empty), `true` or `false`; anything else an error. */
function readIsolateUser(env: Env, errors: string[]): IsolateSetting {
  const text = (raw(env, "isolate-user") ?? "auto").toLowerCase();
  const found = ISOLATE_SETTINGS.find((setting) => setting === text);
  if (found !== undefined) return found;
  errors.push(
    `input \`isolate-user\` is ${JSON.stringify(text)}: give auto (a separate user where it can be set up), true (refuse the run where it cannot) or false`,
  );
  return "auto";
}

/**
 * The `codex-config` input (SPEC §10): its `key=value` lines via `parseCodexConfig`; every bad line is an
 * error naming the input and its line number.
 */
function readCodexConfig(env: Env, errors: string[]): string[] {
  const text = raw(env, "codex-config");
  if (text === undefined) return [];
  const parsed = parseCodexConfig(text);
  if (parsed.ok) return [...parsed.pairs];
  errors.push(...parsed.issues.map((issue) => issue.replace(/^codex-config /, "input `codex-config` ")));
  return [];
}

/** Input `verify-timeout` (Go duration, 1s..24h; default 10 min) in ms; a problem is pushed onto `errors`. */
function readVerifyTimeout(env: Env, errors: string[]): number {
  const vt = raw(env, "verify-timeout");
  if (vt === undefined) return 10 * 60_000;
  const parsed = parseDuration(vt);
  if (parsed.ok && parsed.ms >= 1000 && parsed.ms <= 24 * 3_600_000) return parsed.ms;
  if (parsed.ok)
    errors.push(`input \`verify-timeout\` ${JSON.stringify(vt)}: give a duration from 1s to 24h`);
  else errors.push(`input \`verify-timeout\`: ${parsed.message}`);
  return 10 * 60_000;
}

/** Input `report-to`: empty or `check-run` (this step posts), or `bot` (the evidence-gate App posts). */
function readReportTo(env: Env, errors: string[]): ReportTo {
  const text = raw(env, "report-to");
  if (text === undefined || text === "check-run") return "check-run";
  if (text === "bot") return "bot";
  errors.push(
    `input \`report-to\` is ${JSON.stringify(text)}: use bot (the evidence-gate App posts the check run) or leave it empty (this step posts it)`,
  );
  return "check-run";
}

/**
 * `timeout-minutes` (whole minutes 1..1440, default {@link DEFAULT_TIMEOUT_MINUTES}: below GitHub's
 * 360-minute job limit) and `concurrency` (1..10, absent = the graph's), each problem pushed onto `errors`.
 */
function readCounts(env: Env, errors: string[]): { timeoutMinutes: number; concurrency?: number } {
  let timeoutMinutes = DEFAULT_TIMEOUT_MINUTES;
  const tm = raw(env, "timeout-minutes");
  if (tm !== undefined) {
    const n = /^\d+$/.test(tm) ? Number(tm) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > 1440)
      errors.push(
        `input \`timeout-minutes\` is ${JSON.stringify(tm)}: give a whole number of minutes from 1 to 1440, below the job's own timeout-minutes`,
      );
    else timeoutMinutes = n;
  }
  const c = raw(env, "concurrency");
  if (c === undefined) return { timeoutMinutes };
  const n = Number(c);
  if (Number.isInteger(n) && n >= 1 && n <= 10) return { timeoutMinutes, concurrency: n };
  errors.push(`input \`concurrency\` is ${JSON.stringify(c)}: give a whole number from 1 to 10`);
  return { timeoutMinutes };
}

/** Reads and checks every input; every problem is reported at once. */
export function readActionInputs(env: Env): InputsResult {
  const errors: string[] = [];
  const mode = readMode(env, errors);
  if (mode !== undefined) strayInputs(env, mode, errors);
  // A blank `verify-cmd` is the input's default: no command given.
  const verifyCmd = raw(env, "verify-cmd");
  const accept = bool(env, "accept-no-build-evidence", errors);
  if (verifyCmd !== undefined && accept && mode?.kind === "auto") {
    errors.push("inputs `verify-cmd` and `accept-no-build-evidence` were both given: pass one or the other");
  }
  const acceptLoaded = bool(env, "accept-loaded-user-config", errors);
  const repairAttempts = readRepairAttempts(raw(env, "repair-attempts"), "input `repair-attempts`", errors);
  const goalLoop = readGoalLoop(
    { maxCycles: raw(env, "max-cycles"), maxCostUsd: raw(env, "max-cost-usd") },
    { maxCycles: "input `max-cycles`", maxCostUsd: "input `max-cost-usd`", refusal: GOAL_LOOP_REFUSAL },
    errors,
  );
  const verifyTimeoutMs = readVerifyTimeout(env, errors);
  const runtimeText = raw(env, "runtime") ?? "claude";
  const runtime = RUNTIMES.find((r) => r === runtimeText);
  if (runtime === undefined)
    errors.push(`input \`runtime\` is ${JSON.stringify(runtimeText)}: use claude or codex`);
  const codexConfig = readCodexConfig(env, errors);
  // auto and run spawn the input's runtime: its model and codex-config are checked now (resume: the
  // engine checks them against the run's recorded runtime).
  if (runtime !== undefined && (mode?.kind === "auto" || mode?.kind === "run")) {
    const model = raw(env, "model");
    const problem = runtimeOptionsProblem(runtime, {
      ...(model !== undefined ? { model } : {}),
      codexConfig,
    });
    // It names `model` or `codex-config` (and `runtime: codex`); the pairs are valid once parsed above.
    if (problem !== null) errors.push(problem);
  }
  const { timeoutMinutes, concurrency } = readCounts(env, errors);
  const githubToken = raw(env, "github-token");
  // Lint makes no API call: no token is needed, even when another input has a problem.
  if (githubToken === undefined && !lintRequested(env))
    errors.push("input `github-token` is empty: leave it at its default (the workflow's github.token)");
  const continueOnFail = bool(env, "continue-on-fail", errors);
  const push = bool(env, "push", errors);
  const pushToken = raw(env, "push-token");
  if (pushToken !== undefined && !push && mode?.kind !== "lint" && mode?.kind !== "resume") {
    errors.push("input `push-token` is only used with `push: true`: set `push: true` or drop `push-token`");
  }
  const comment = raw(env, "comment") === undefined ? true : bool(env, "comment", errors);
  const allowedBots = (raw(env, "allowed-bots") ?? "").split(/[\s,]+/).filter((s) => s !== "");
  const allowPullRequestTarget = bool(env, "allow-pull-request-target", errors);
  const isolateUser = readIsolateUser(env, errors);
  const prUserCache = readPrUserCache(raw(env, "pr-user-cache"), errors);
  const outputLogLimit = readOutputLogLimit(raw(env, "output-log-limit"), errors);
  let pr: number | undefined;
  const prText = raw(env, "pr");
  if (prText !== undefined) {
    const n = Number(prText.replace(/^#/, ""));
    if (Number.isInteger(n) && n > 0) pr = n;
    else errors.push(`input \`pr\` is ${JSON.stringify(prText)}: give the pull request's number, e.g. 42`);
  }
  const verifyEnv = readVerifyEnv(
    raw(env, "verify-env"),
    { label: "input `verify-env`", separators: /[\s,]+/ },
    errors,
  );
  const verifyRepeat = readVerifyRepeat(raw(env, "verify-repeat"), "input `verify-repeat`", errors);
  const verifyBase = bool(env, "verify-base", errors);
  const testReports = readTestReports(raw(env, "test-reports"), errors);
  const reportTo = readReportTo(env, errors);
  // GitHub Enterprise Server: @actions/artifact refuses it, so what needs an artifact cannot work (issue 26).
  const needsArtifacts =
    mode?.kind === "resume" || mode?.kind === "report"
      ? `mode ${mode.kind}`
      : reportTo === "bot" && mode?.kind !== "lint"
        ? "report-to: bot"
        : null;
  const ghes = needsArtifacts !== null ? artifactModeProblem(env.GITHUB_SERVER_URL, needsArtifacts) : null;
  if (ghes !== null) errors.push(ghes);
  if (errors.length > 0 || mode === undefined) {
    return { ok: false, errors: errors.length > 0 ? errors : ["Internal error: no mode and no error"] };
  }
  const opt = <K extends string>(key: K, value: string | undefined): { [P in K]?: string } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
  return {
    ok: true,
    inputs: {
      mode,
      ...opt("verifyCmd", verifyCmd),
      verifyTimeoutMs,
      verifyEnv,
      ...(verifyRepeat !== undefined ? { verifyRepeat } : {}),
      ...(verifyBase ? { verifyBase: true } : {}),
      ...(testReports.length > 0 ? { testReports } : {}),
      acceptNoBuildEvidence: accept,
      acceptLoadedUserConfig: mode.kind === "auto" && acceptLoaded,
      repairAttempts,
      ...goalLoop,
      runtime: runtime ?? "claude",
      ...opt("model", raw(env, "model")),
      claudeVersion: raw(env, "claude-version") ?? DEFAULT_CLAUDE_VERSION,
      codexVersion: raw(env, "codex-version") ?? DEFAULT_CODEX_VERSION,
      ...opt("anthropicApiKey", raw(env, "anthropic-api-key")),
      ...opt("claudeCodeOauthToken", raw(env, "claude-code-oauth-token")),
      ...opt("openaiApiKey", raw(env, "openai-api-key")),
      codexConfig,
      githubToken: githubToken ?? "",
      checkName: raw(env, "check-name") ?? "evidence-gate",
      ...opt("workingDirectory", raw(env, "working-directory")),
      ...(concurrency !== undefined ? { concurrency } : {}),
      timeoutMinutes,
      continueOnFail,
      push,
      ...opt("pushToken", pushToken),
      comment,
      allowedBots,
      allowPullRequestTarget,
      isolateUser,
      prUserCache,
      outputLogLimit,
      ...(pr !== undefined ? { pr } : {}),
      reportTo,
    },
  };
}

/**
 * Input `test-reports` (issue 25 item 1): comma- or newline-separated globs of the report files the verify
 * command writes, relative to its folder; each checked as the policy key's are (`testReportsPatternProblem`).
 */
function readTestReports(value: string | undefined, errors: string[]): string[] {
  if (value === undefined) return [];
  const patterns = value
    .split(/[,\n]/)
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern !== "");
  for (const pattern of patterns) {
    const problem = testReportsPatternProblem(pattern);
    if (problem !== null) errors.push(`input \`test-reports\`: ${problem}`);
  }
  return patterns;
}
