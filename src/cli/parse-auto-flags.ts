/**
 * Flags of `evidence-gate auto`, parsed once into a typed object or refused with every problem named
 * (SPEC §2, §11). Flags mirror the action's inputs; the groups `auto` shares with `run` and `resume` are
 * parsed by `shared-flags.ts`.
 */
import { verifyCommandRunsNothing } from "../graph/verify-runs-nothing.js";
import { MAX_CYCLES, readGoalLoop } from "../run/max-cycles.js";
import { readRepairAttempts } from "../run/repair-attempts.js";
import { FRESH_RUN, type FreshRunFlags, LEG, REPORT } from "./flag-groups.js";
import type { Parsed } from "./parse-command.js";
import { type FlagReader, type LegFlags, opt, parseFlags, type ReportFlags } from "./shared-flags.js";

export interface AutoFlags
  extends Omit<LegFlags, "concurrency">,
    Omit<FreshRunFlags, "verifyTimeoutMs">,
    ReportFlags {
  readonly goal: string;
  readonly verifyCmd?: string;
  /** `--verify-timeout`: the verify command's timeout (default 10 min). */
  readonly verifyTimeoutMs: number;
  readonly acceptNoBuildEvidence: boolean;
  /** `--accept-loaded-user-config` (SPEC §8, seed 001): planned nodes load the operator's configuration. */
  readonly acceptLoadedUserConfig: boolean;
  /** `--concurrency` (default 4). */
  readonly concurrency: number;
  /** `--repair-attempts N` (SPEC §7; default 0 = off): red builds fed back to each sink's session. */
  readonly repairAttempts: number;
  /** `--max-cycles N` (SPEC §7; default 1 = one run): the goal loop's cycles. */
  readonly maxCycles: number;
  /** `--max-cost-usd USD` (SPEC §7): the goal loop's soft ceiling, checked between cycles; needs N > 1. */
  readonly maxCostUsd?: number;
}

/** The flags, or every problem (each names the flag and the fix). */
export type ParsedFlags = Parsed<AutoFlags>;

/**
 * The help of `--accept-loaded-user-config` (SPEC §8; seed 001 §2.5 says what it must admit): what loads,
 * and the bill — standing grants load with it — and what still binds. `auto` and `plan` print it.
 */
export const LOADED_USER_CONFIG_USAGE = `  --accept-loaded-user-config  accept that planned nodes load YOUR CLI configuration instead of running
                               isolated: claude settings (user, project, local) with your CLAUDE.md,
                               hooks and MCP servers; on codex config.toml, rules, AGENTS.md and MCP
                               servers. Your standing permission grants load too, so on claude a node's
                               declared scope such as Bash(git *) becomes a declaration, not a limit: a
                               call your settings allow will run. Each node's --tools set and deny list
                               still bind; managed (enterprise) policy cannot be widened by it; on codex
                               the sandbox and approval_policy="never" still bind. Agent mapping and
                               skills stay off: evidence-gate stages no agent or skill for a planned
                               node, and a plan cannot name an agent or grant Skill. Printed with the
                               plan, recorded in state.json, inherited by resume (which cannot set it)
`;

/** Usage text of `auto`. */
export const AUTO_USAGE = `usage: evidence-gate auto --goal TEXT (--verify-cmd CMD | --accept-no-build-evidence) [options]

  --goal TEXT                  what the run should achieve (required)
  --verify-cmd CMD             build/test command the engine runs at every sink, judged by exit code
  --accept-no-build-evidence   run without build evidence (verdicts are the model's own)
  --verify-timeout DURATION    verify command timeout, Go syntax (default 10m)
  --repair-attempts N          feed a sink's failing build back to its session up to N times (0-10,
                               default 0 = off); every attempt is its own ledger row
  --max-cycles N               up to N runs for the goal (1-${MAX_CYCLES}, default 1): after each run a
                               tool-less assessor call judges the goal; if unmet, the next run plans
                               again with what it says remains. The last run's conclusion stands
  --max-cost-usd USD           stop the cycles once this much is spent, checked between runs (a soft
                               ceiling; with a runtime that reports no cost the loop stops); needs
                               --max-cycles above 1
${LOADED_USER_CONFIG_USAGE}${FRESH_RUN.usage}  --concurrency N              nodes running at once (default 4, max 10)
${LEG.usage}${REPORT.usage}
Exit: 0 passed, 1 failed, 2 paused (gate or session limit), 3 refused (no build evidence), 4 passed but
action_required (read CONCLUSION), 64 usage error, 124 timed out (--timeout), 130 interrupted.
`;

/** The flags that decide a plan, as `auto` and `plan` both read them. */
interface PlanningFlags {
  readonly goal: string;
  readonly verifyCmd?: string;
  readonly acceptNoBuildEvidence: boolean;
  readonly acceptLoadedUserConfig: boolean;
}

/** The `parseArgs` options of {@link PlanningFlags}. */
const PLANNING_OPTIONS = {
  goal: { type: "string" },
  "verify-cmd": { type: "string" },
  "accept-no-build-evidence": { type: "boolean" },
  "accept-loaded-user-config": { type: "boolean" },
} as const;

/** Reads {@link PlanningFlags}, pushing every problem onto `errors`. */
function planningFlags(f: FlagReader, errors: string[]): PlanningFlags {
  const goal = f.str("goal");
  if (goal === undefined || goal.trim() === "")
    errors.push("--goal is required: say what the run should achieve");
  const verifyCmd = f.str("verify-cmd");
  const accept = f.bool("accept-no-build-evidence");
  if (verifyCmd !== undefined && accept) {
    errors.push("--verify-cmd and --accept-no-build-evidence were both given: pass one or the other");
  }
  if (verifyCmd !== undefined && verifyCommandRunsNothing(verifyCmd)) {
    errors.push(
      "--verify-cmd is empty (blank, or only # comments): it would pass every time; give a build/test command",
    );
  }
  return {
    goal: goal ?? "",
    ...opt("verifyCmd", verifyCmd),
    acceptNoBuildEvidence: accept,
    acceptLoadedUserConfig: f.bool("accept-loaded-user-config"),
  };
}

/** Parses `auto`'s argv (after the subcommand). */
export function parseAutoFlags(argv: readonly string[]): ParsedFlags {
  return parseFlags(
    argv,
    {
      ...PLANNING_OPTIONS,
      "repair-attempts": { type: "string" },
      "max-cycles": { type: "string" },
      "max-cost-usd": { type: "string" },
      ...FRESH_RUN.options,
      ...LEG.options,
      ...REPORT.options,
    },
    false,
    (f, errors) => {
      const planning = planningFlags(f, errors);
      const repairAttempts = readRepairAttempts(f.str("repair-attempts"), "--repair-attempts", errors);
      const goalLoop = readGoalLoop(
        { maxCycles: f.str("max-cycles"), maxCostUsd: f.str("max-cost-usd") },
        {
          maxCycles: "--max-cycles",
          maxCostUsd: "--max-cost-usd",
          refusal:
            "--max-cost-usd is checked between cycles, and --max-cycles is 1: give --max-cycles 2 or more, or drop it",
        },
        errors,
      );
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return {
        ...planning,
        ...fresh,
        verifyTimeoutMs: fresh.verifyTimeoutMs ?? 10 * 60_000,
        ...leg,
        concurrency: leg.concurrency ?? 4,
        repairAttempts,
        ...goalLoop,
        ...report,
      };
    },
  );
}

/**
 * Flags of `evidence-gate plan` (SPEC §2, §11: `auto --plan-only`): the ones that decide the plan, as
 * `auto` reads them. Nothing runs, so the flags that only shape a run (`--verify-env`, `--verify-repeat`,
 * `--continue-on-fail`, `--runs-dir`, `--concurrency`, `--commit`) are refused by name rather than
 * ignored, and no check run is made.
 */
export interface PlanFlags
  extends PlanningFlags,
    Pick<FreshRunFlags, "runtime" | "model" | "workingDirectory"> {
  /** `--verify-timeout` (default 10 min): shown on the attached verify command, as `auto` would attach it. */
  readonly verifyTimeoutMs: number;
  readonly repo: string;
  readonly claudePath?: string;
  /** `--codex-path`: the `codex` executable (codex runs). */
  readonly codexPath?: string;
  /** `--codex-config KEY=VALUE` pairs, `-c` on the planner call (codex runs). */
  readonly codexConfig: readonly string[];
  /** Print `{plan, graph}` as JSON instead of the plan lines. */
  readonly json: boolean;
}

/** Usage text of `plan`. */
export const PLAN_USAGE = `usage: evidence-gate plan --goal TEXT (--verify-cmd CMD | --accept-no-build-evidence) [options]

Plans a graph from the goal exactly as \`auto\` would — the build-evidence decision, the planner call (one
repair call when the plan breaks a rule), the verify command attached to every sink, each planned node's tool
ceiling — and prints the plan and its tool-ceiling disclosure. No node runs and no run directory is made; the planner call is the only cost.

  --goal TEXT                  what the run should achieve (required)
  --verify-cmd CMD             build/test command auto would run at every sink
  --accept-no-build-evidence   plan without build evidence
  --verify-timeout DURATION    verify command timeout, Go syntax (default 10m)
${LOADED_USER_CONFIG_USAGE}  --runtime claude|codex       model CLI (default claude)
  --model M                    model passed to the CLI (default: the CLI's own)
  --working-directory DIR      folder to plan in, resolved from --repo (inside the working tree)
  --repo DIR                   a folder in the repository's git working tree (default .); a sub-folder
                               is the working directory
  --claude-path PATH           the claude executable (default: claude on PATH)
  --codex-path PATH            the codex executable (default: codex on PATH)
  --codex-config KEY=VALUE     codex only, repeatable: -c KEY=VALUE on the planner call
  --json                       print {"plan", "graph"} as JSON instead of the plan lines

Exit: 0 planned, 1 the plan was refused (twice) or planning failed, 3 refused (no build evidence), 64 usage
error, 130 interrupted.
`;

/** Flags `auto` takes that mean nothing when nothing runs, with why. */
const RUN_ONLY_FLAGS = [
  "verify-env",
  "verify-repeat",
  "verify-base",
  "base",
  "test-reports",
  "continue-on-fail",
  "runs-dir",
  "concurrency",
  "commit",
  "timeout",
] as const;

/** Parses `plan`'s argv (after the subcommand). */
export function parsePlanFlags(argv: readonly string[]): Parsed<PlanFlags> {
  return parseFlags(
    argv,
    { ...PLANNING_OPTIONS, ...FRESH_RUN.options, ...LEG.options, json: { type: "boolean" } },
    false,
    (f, errors) => {
      const planning = planningFlags(f, errors);
      for (const name of RUN_ONLY_FLAGS) {
        if (f.given(name))
          errors.push(
            `--${name} does not apply to plan: nothing runs; give it to auto when you run the plan`,
          );
      }
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      return {
        ...planning,
        runtime: fresh.runtime,
        ...opt("model", fresh.model),
        ...opt("workingDirectory", fresh.workingDirectory),
        verifyTimeoutMs: fresh.verifyTimeoutMs ?? 10 * 60_000,
        repo: leg.repo,
        ...opt("claudePath", leg.claudePath),
        ...opt("codexPath", leg.codexPath),
        codexConfig: leg.codexConfig,
        json: f.bool("json"),
      };
    },
  );
}
