/**
 * The groups of flags several commands take (SPEC §2, §11), each its `parseArgs` options, its usage lines
 * and its reader: where a run leg runs (`--repo`, `--runs-dir`, `--claude-path`, `--codex-path`,
 * `--codex-config`, `--concurrency`, `--commit`), what a fresh run passes its nodes (`--runtime`, `--model`,
 * `--verify-env`, …), and how the result is reported (`--json`, `--repository`, `--check-run-out`, …). Each
 * problem is a sentence naming the flag and the fix.
 */

import { MAX_VERIFY_REPEAT } from "../core/ledger-row.js";
import { testReportsPatternProblem } from "../core/test-reports-pattern.js";
import { type Runtime, runtimeOptionsProblem } from "../engine/runtime-setup.js";
import { parseDuration } from "../graph/duration.js";
import type { LegFlags, ReportFlags } from "../local-run/local-setup.js";
import { readVerifyEnv, readVerifyRepeat } from "../run/request-fields.js";
import { parseCodexConfig } from "../runtime/codex-argv.js";
import {
  type FlagGroup,
  type FlagReader,
  type FlagSpec,
  opt,
  repositoryFlagProblem,
} from "./shared-flags.js";

/** `--timeout DURATION`: the whole run's time bound (SPEC §6 `timed_out`, exit 124; issue 14). */
const RUN_TIMEOUT_OPTIONS = { timeout: { type: "string" } } as const satisfies Record<string, FlagSpec>;

/** The largest `--timeout`: a week (a bound past it is no bound anyone means). */
const MAX_RUN_TIMEOUT_MS = 7 * 24 * 3_600_000;

/** Reads {@link RUN_TIMEOUT_OPTIONS}, pushing a bad duration onto `errors`. */
function runTimeoutFlags(f: FlagReader, errors: string[]): Pick<LegFlags, "timeout"> {
  const given = f.str("timeout");
  if (given === undefined) return {};
  const parsed = parseDuration(given);
  if (parsed.ok && parsed.ms >= 1000 && parsed.ms <= MAX_RUN_TIMEOUT_MS)
    return { timeout: { ms: parsed.ms, limit: given, setting: "--timeout" } };
  if (parsed.ok) errors.push(`--timeout ${JSON.stringify(given)}: give a duration from 1s to 168h`);
  else errors.push(`--timeout: ${parsed.message}`);
  return {};
}

/** Flags of every command that runs a leg of a run. */
const LEG_OPTIONS = {
  ...RUN_TIMEOUT_OPTIONS,
  repo: { type: "string" },
  "runs-dir": { type: "string" },
  "claude-path": { type: "string" },
  "codex-path": { type: "string" },
  "codex-config": { type: "string", multiple: true },
  concurrency: { type: "string" },
  commit: { type: "boolean" },
} as const satisfies Record<string, FlagSpec>;

/** Reads {@link LEG_OPTIONS}, pushing every problem onto `errors`. */
function legFlags(f: FlagReader, errors: string[]): LegFlags {
  let concurrency: number | undefined;
  const c = f.str("concurrency");
  if (c !== undefined) {
    const n = /^\d+$/.test(c) ? Number(c) : Number.NaN;
    if (!Number.isInteger(n) || n < 1 || n > 10)
      errors.push(
        `--concurrency must be a whole number from 1 to 10 (got ${/^[\w.+-]+$/.test(c) ? c : JSON.stringify(c)})`,
      );
    else concurrency = n;
  }
  return {
    repo: f.str("repo") ?? ".",
    ...opt("runsDir", f.str("runs-dir")),
    ...opt("claudePath", f.str("claude-path")),
    ...opt("codexPath", f.str("codex-path")),
    codexConfig: codexConfigFlags(f),
    ...opt("concurrency", concurrency),
    commit: f.bool("commit"),
    ...runTimeoutFlags(f, errors),
  };
}

/**
 * `--codex-config` entries, each normalised to `KEY=VALUE` (spaces around `=` dropped) when it parses as
 * exactly one pair; any other entry is kept as given, so `runtimeOptionsProblem` names it.
 */
function codexConfigFlags(f: FlagReader): string[] {
  return f.list("codex-config").map((entry) => {
    const parsed = parseCodexConfig(entry);
    return parsed.ok && parsed.pairs.length === 1 ? parsed.pairs[0]! : entry;
  });
}

/** `--verify-timeout D`: `auto`'s verify command timeout; `run`'s and `lint`'s graph verify ceiling. */
const VERIFY_TIMEOUT_OPTIONS = {
  "verify-timeout": { type: "string" },
} as const satisfies Record<string, FlagSpec>;

/** `--verify-timeout` read: in ms (1s..24h); absent = the command's default. */
export interface VerifyTimeoutFlags {
  readonly verifyTimeoutMs?: number;
}

/** Reads {@link VERIFY_TIMEOUT_OPTIONS}, pushing a bad duration onto `errors`. */
function verifyTimeoutFlags(f: FlagReader, errors: string[]): VerifyTimeoutFlags {
  const vt = f.str("verify-timeout");
  if (vt === undefined) return {};
  const parsed = parseDuration(vt);
  if (parsed.ok && parsed.ms >= 1000 && parsed.ms <= 24 * 3_600_000) return { verifyTimeoutMs: parsed.ms };
  if (parsed.ok) errors.push(`--verify-timeout ${JSON.stringify(vt)}: give a duration from 1s to 24h`);
  else errors.push(`--verify-timeout: ${parsed.message}`);
  return {};
}

/** `--verify-repeat N`: runs per verify command (issue 25 item 5). */
const VERIFY_REPEAT_OPTIONS = {
  "verify-repeat": { type: "string" },
} as const satisfies Record<string, FlagSpec>;

/** `--verify-repeat` read: 1–{@link MAX_VERIFY_REPEAT}; absent = the policy's, else once. */
export interface VerifyRepeatFlags {
  readonly verifyRepeat?: number;
}

/** Reads {@link VERIFY_REPEAT_OPTIONS}, pushing a bad count onto `errors`. */
function verifyRepeatFlags(f: FlagReader, errors: string[]): VerifyRepeatFlags {
  return opt("verifyRepeat", readVerifyRepeat(f.str("verify-repeat"), "--verify-repeat", errors));
}

/** The usage line of {@link VERIFY_REPEAT_OPTIONS}. */
const VERIFY_REPEAT_USAGE = `  --verify-repeat N            run each verify command N times (1-${MAX_VERIFY_REPEAT}) on the same tree; mixed
                               results are flaky, never a pass
`;

/** `--verify-repeat N` alone (part of {@link FRESH_RUN}): `verify` takes it too. */
export const VERIFY_REPEAT: FlagGroup<VerifyRepeatFlags> = {
  options: VERIFY_REPEAT_OPTIONS,
  usage: VERIFY_REPEAT_USAGE,
  read: verifyRepeatFlags,
};

/**
 * `--verify-base`, `--base REF` (issue 25 item 3; ADR 0017) and `--test-reports PATTERNS` (issue 25 item 1):
 * compare each sink's verify with the base, and where the verify command writes its JUnit/TAP reports.
 */
const VERIFY_BASE_OPTIONS = {
  "verify-base": { type: "boolean" },
  base: { type: "string" },
  "test-reports": { type: "string" },
} as const satisfies Record<string, FlagSpec>;

/** {@link VERIFY_BASE_OPTIONS} read. */
export interface VerifyBaseFlags {
  /** `--verify-base`: run each sink's verify on the base too. */
  readonly verifyBase: boolean;
  /** `--base REF`: the base is the merge-base of the start commit and REF (default: its first parent). */
  readonly baseRef?: string;
  /** `--test-reports`: comma-separated globs, relative to the verify command's folder, added to the policy's. */
  readonly testReports?: readonly string[];
}

/** Reads {@link VERIFY_BASE_OPTIONS}, pushing every problem onto `errors`. */
function verifyBaseFlags(f: FlagReader, errors: string[]): VerifyBaseFlags {
  const verifyBase = f.bool("verify-base");
  const baseRef = f.str("base");
  if (baseRef !== undefined && !verifyBase)
    errors.push("--base REF names the base --verify-base compares with: give --verify-base too");
  if (baseRef !== undefined && (baseRef === "" || baseRef.startsWith("-")))
    errors.push(
      `--base ${JSON.stringify(baseRef)} is not a ref: give a branch, tag or commit (e.g. --base main)`,
    );
  const given = f.str("test-reports");
  const testReports =
    given === undefined
      ? undefined
      : given
          .split(",")
          .map((pattern) => pattern.trim())
          .filter((pattern) => pattern !== "");
  for (const pattern of testReports ?? []) {
    const problem = testReportsPatternProblem(pattern);
    if (problem !== null) errors.push(`--test-reports: ${problem}`);
  }
  if (testReports !== undefined && testReports.length === 0)
    errors.push("--test-reports is empty: give comma-separated globs, e.g. --test-reports 'reports/*.xml'");
  return {
    verifyBase,
    ...opt("baseRef", baseRef),
    ...(testReports !== undefined && testReports.length > 0 ? { testReports } : {}),
  };
}

/** The usage lines of {@link VERIFY_BASE_OPTIONS}. */
const VERIFY_BASE_USAGE = `  --verify-base                also run each sink's verify command on the base (a worktree of its own) and
                               say fixed / passes on both / fails on both / introduced; never a verdict
  --base REF                   with --verify-base: the base is the merge-base with REF (default: the
                               start commit's first parent)
  --test-reports GLOBS         comma-separated JUnit XML / TAP files the verify command writes (relative
                               to its folder), read for the test receipt; added to the policy's
`;

/** `--verify-base`, `--base`, `--test-reports` alone (part of {@link FRESH_RUN}): `verify` takes them too. */
export const VERIFY_BASE: FlagGroup<VerifyBaseFlags> = {
  options: VERIFY_BASE_OPTIONS,
  usage: VERIFY_BASE_USAGE,
  read: verifyBaseFlags,
};

/** Flags of a fresh run (`auto`, `run`): what its nodes and verify commands get. */
const FRESH_RUN_OPTIONS = {
  runtime: { type: "string" },
  model: { type: "string" },
  "working-directory": { type: "string" },
  ...VERIFY_TIMEOUT_OPTIONS,
  "verify-env": { type: "string" },
  ...VERIFY_REPEAT_OPTIONS,
  ...VERIFY_BASE_OPTIONS,
  "continue-on-fail": { type: "boolean" },
} as const satisfies Record<string, FlagSpec>;

/** What a fresh run passes its nodes and verify commands. */
export interface FreshRunFlags {
  /** `--runtime claude|codex` (default `claude`): the CLI every model call of the run spawns (SPEC §4). */
  readonly runtime: Runtime;
  readonly model?: string;
  readonly workingDirectory?: string;
  /** `--verify-timeout` in ms (1s..24h); absent = the command's default. */
  readonly verifyTimeoutMs?: number;
  readonly verifyEnv: readonly string[];
  /** `--verify-repeat` (1–10); absent = the policy's, else once. */
  readonly verifyRepeat?: number;
  /** `--verify-base`, `--base`, `--test-reports` ({@link VerifyBaseFlags}). */
  readonly verifyBase: boolean;
  readonly baseRef?: string;
  readonly testReports?: readonly string[];
  readonly continueOnFail: boolean;
}

const RUNTIMES: readonly Runtime[] = ["claude", "codex"];

/**
 * Reads {@link FRESH_RUN_OPTIONS}, pushing every problem onto `errors`. `--model` and `--codex-config` (a
 * {@link LEG} flag, parsed with these) are checked against the runtime here, as the engine checks them
 * (`runtimeOptionsProblem`): `--codex-config` on claude, a codex model `-m` cannot take, a bad pair.
 */
function freshRunFlags(f: FlagReader, errors: string[]): FreshRunFlags {
  const given = f.str("runtime") ?? "claude";
  const runtime = RUNTIMES.find((r) => r === given);
  if (runtime === undefined)
    errors.push(`--runtime ${JSON.stringify(given)} is not a runtime: use claude or codex`);
  else {
    const problem = runtimeOptionsProblem(runtime, {
      ...opt("model", f.str("model")),
      codexConfig: codexConfigFlags(f),
    });
    if (problem !== null) errors.push(problem);
  }
  const { verifyTimeoutMs } = verifyTimeoutFlags(f, errors);
  const verifyEnv = readVerifyEnv(f.str("verify-env"), { label: "--verify-env", separators: /,/ }, errors);
  return {
    runtime: runtime ?? "claude",
    ...opt("model", f.str("model")),
    ...opt("workingDirectory", f.str("working-directory")),
    ...opt("verifyTimeoutMs", verifyTimeoutMs),
    verifyEnv,
    ...verifyRepeatFlags(f, errors),
    ...verifyBaseFlags(f, errors),
    continueOnFail: f.bool("continue-on-fail"),
  };
}

/** Flags saying how the result is reported: printed, posted as a check run, recorded, summarised. */
const REPORT_OPTIONS = {
  json: { type: "boolean" },
  repository: { type: "string" },
  sha: { type: "string" },
  "check-name": { type: "string" },
  "check-run-out": { type: "string" },
  "summary-out": { type: "string" },
} as const satisfies Record<string, FlagSpec>;

/** Reads {@link REPORT_OPTIONS}, pushing every problem onto `errors`. */
function reportFlags(f: FlagReader, errors: string[]): ReportFlags {
  const repository = f.str("repository");
  const repositoryProblem = repository === undefined ? null : repositoryFlagProblem(repository);
  if (repositoryProblem !== null) errors.push(repositoryProblem);
  const sha = f.str("sha");
  if (sha !== undefined && !/^[0-9a-f]{40}$/i.test(sha)) {
    errors.push(`--sha ${JSON.stringify(sha)}: give the full 40-hex commit SHA`);
  }
  const checkName = f.str("check-name");
  if (checkName !== undefined && checkName.trim() === "")
    errors.push("--check-name is empty: give the check run's name");
  const checkRunOut = f.str("check-run-out");
  if (sha !== undefined && repository === undefined && checkRunOut === undefined) {
    errors.push(
      "--sha names the commit a check run is posted on, but no check run is posted or recorded: give --repository OWNER/NAME or --check-run-out FILE with it, or drop --sha",
    );
  }
  if (repository !== undefined && checkRunOut !== undefined) {
    errors.push(
      "--repository and --check-run-out were both given: post the check run, or record it to a file, not both",
    );
  }
  if (checkRunOut !== undefined && checkRunOut === f.str("summary-out")) {
    errors.push("--check-run-out and --summary-out name the same file: give two files");
  }
  return {
    json: f.bool("json"),
    ...opt("repository", repository),
    ...opt("sha", sha),
    checkName: checkName ?? "evidence-gate",
    ...opt("checkRunOut", checkRunOut),
    ...opt("summaryOut", f.str("summary-out")),
  };
}

/** The usage lines of {@link FRESH_RUN_OPTIONS} (`verify-timeout` is each command's own line). */
const FRESH_RUN_USAGE = `  --verify-env NAMES           comma-separated variables passed to the verify commands
${VERIFY_REPEAT_USAGE}${VERIFY_BASE_USAGE}  --runtime claude|codex       model CLI every node (and auto's planner) runs (default claude)
  --model M                    model passed to the CLI (claude --model, codex -m; default: the CLI's own)
  --working-directory DIR      folder to run in, resolved from --repo (inside the working tree)
  --continue-on-fail           prune only a failed node's descendants instead of halting
`;

/** The usage line of {@link RUN_TIMEOUT_OPTIONS}. */
const RUN_TIMEOUT_USAGE = `  --timeout DURATION           stop the whole run after DURATION (e.g. 30m): every running node's
                               processes are killed, the run ends timed_out, exit 124
`;

/** The usage lines of {@link LEG_OPTIONS} (`concurrency` is each command's own line). */
const LEG_USAGE = `${RUN_TIMEOUT_USAGE}  --repo DIR                   a folder in the repository's git working tree (default .); a sub-folder
                               is the working directory
  --commit                     commit the nodes' changes when the run ends
  --runs-dir DIR               where run directories are (default <repo>/.evidence-gate/runs)
  --claude-path PATH           the claude executable (default: claude on PATH)
  --codex-path PATH            the codex executable (default: codex on PATH)
  --codex-config KEY=VALUE     codex runs: passed as -c KEY=VALUE on every codex call, e.g. a provider or
                               gateway; only model, model_provider(s), model_* tuning, analytics.*,
                               otel.* and features.<name>=false keys (repeatable; not recorded: give them
                               again to resume)
`;

/** The usage lines of {@link REPORT_OPTIONS}, shared by every command's help. */
const REPORT_USAGE = `  --json                       print the ledger as JSON instead of the table (progress goes to stderr)
  --repository OWNER/NAME      post the check run to this repository (token from GITHUB_TOKEN)
  --sha SHA                    head SHA for the check run (default: the posted commit)
  --check-name NAME            check run name (default evidence-gate)
  --check-run-out FILE         write the check-run requests (method, path, body) to FILE instead of sending
  --summary-out FILE           write the Markdown ledger (the job summary) to FILE
`;

/**
 * Where and how a leg runs: `--repo`, `--runs-dir`, `--claude-path`, `--codex-path`, `--codex-config`,
 * `--concurrency`, `--commit`.
 */
export const LEG: FlagGroup<LegFlags> = { options: LEG_OPTIONS, usage: LEG_USAGE, read: legFlags };

/** `--timeout DURATION` alone (part of {@link LEG}): `verify` takes it too. */
export const RUN_TIMEOUT: FlagGroup<Pick<LegFlags, "timeout">> = {
  options: RUN_TIMEOUT_OPTIONS,
  usage: RUN_TIMEOUT_USAGE,
  read: runTimeoutFlags,
};

/** What a fresh run passes its nodes: `--runtime`, `--model`, `--working-directory`, `--verify-*`, …. */
export const FRESH_RUN: FlagGroup<FreshRunFlags> = {
  options: FRESH_RUN_OPTIONS,
  usage: FRESH_RUN_USAGE,
  read: freshRunFlags,
};

/**
 * `--verify-timeout` alone (part of {@link FRESH_RUN}): `lint` takes it so a graph linted with the ceiling
 * `run --verify-timeout` would use is judged as that run would judge it. Usage lines are each command's own.
 */
export const VERIFY_TIMEOUT: FlagGroup<VerifyTimeoutFlags> = {
  options: VERIFY_TIMEOUT_OPTIONS,
  usage: "",
  read: verifyTimeoutFlags,
};

/** How the result is reported: `--json`, `--repository`, `--sha`, `--check-*`, `--summary-out`. */
export const REPORT: FlagGroup<ReportFlags> = {
  options: REPORT_OPTIONS,
  usage: REPORT_USAGE,
  read: reportFlags,
};
