#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  chooseVerifyCommand
} from "./cli-chunk-LKTKGGAU.js";
import {
  FRESH_RUN,
  LEG,
  REPORT,
  verifyCommandRunsNothing
} from "./cli-chunk-FMDVH7O5.js";
import {
  MAX_CYCLES,
  opt,
  parseFlags,
  readGoalLoop,
  readRepairAttempts
} from "./cli-chunk-OU6P7TWF.js";

// src/run/request.ts
var PLANNER_TIMEOUT_MS = 20 * 6e4;
function autoMode(o) {
  return {
    kind: "auto",
    goal: o.goal,
    verify: chooseVerifyCommand({
      ...o.verifyCmd !== void 0 ? { given: o.verifyCmd } : {},
      acceptNoBuildEvidence: o.acceptNoBuildEvidence,
      ...o.policy !== void 0 ? { policy: o.policy } : {},
      surface: o.surface
    }),
    acceptNoBuildEvidence: o.acceptNoBuildEvidence,
    acceptLoadedUserConfig: o.acceptLoadedUserConfig,
    ...o.repairAttempts !== void 0 && o.repairAttempts > 0 ? { repairAttempts: o.repairAttempts } : {},
    ...o.maxCycles !== void 0 && o.maxCycles > 1 ? { maxCycles: o.maxCycles } : {},
    ...o.maxCostUsd !== void 0 ? { maxCostUsd: o.maxCostUsd } : {},
    runtime: o.runtime,
    concurrency: o.concurrency,
    plannerTimeoutMs: PLANNER_TIMEOUT_MS
  };
}

// src/cli/parse-auto-flags.ts
var LOADED_USER_CONFIG_USAGE = `  --accept-loaded-user-config  accept that planned nodes load YOUR CLI configuration instead of running
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
var AUTO_USAGE = `usage: evidence-gate auto --goal TEXT (--verify-cmd CMD | --accept-no-build-evidence) [options]

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
var PLANNING_OPTIONS = {
  goal: { type: "string" },
  "verify-cmd": { type: "string" },
  "accept-no-build-evidence": { type: "boolean" },
  "accept-loaded-user-config": { type: "boolean" }
};
function planningFlags(f, errors) {
  const goal = f.str("goal");
  if (goal === void 0 || goal.trim() === "")
    errors.push("--goal is required: say what the run should achieve");
  const verifyCmd = f.str("verify-cmd");
  const accept = f.bool("accept-no-build-evidence");
  if (verifyCmd !== void 0 && accept) {
    errors.push("--verify-cmd and --accept-no-build-evidence were both given: pass one or the other");
  }
  if (verifyCmd !== void 0 && verifyCommandRunsNothing(verifyCmd)) {
    errors.push(
      "--verify-cmd is empty (blank, or only # comments): it would pass every time; give a build/test command"
    );
  }
  return {
    goal: goal ?? "",
    ...opt("verifyCmd", verifyCmd),
    acceptNoBuildEvidence: accept,
    acceptLoadedUserConfig: f.bool("accept-loaded-user-config")
  };
}
function parseAutoFlags(argv) {
  return parseFlags(
    argv,
    {
      ...PLANNING_OPTIONS,
      "repair-attempts": { type: "string" },
      "max-cycles": { type: "string" },
      "max-cost-usd": { type: "string" },
      ...FRESH_RUN.options,
      ...LEG.options,
      ...REPORT.options
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
          refusal: "--max-cost-usd is checked between cycles, and --max-cycles is 1: give --max-cycles 2 or more, or drop it"
        },
        errors
      );
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return {
        ...planning,
        ...fresh,
        verifyTimeoutMs: fresh.verifyTimeoutMs ?? 10 * 6e4,
        ...leg,
        concurrency: leg.concurrency ?? 4,
        repairAttempts,
        ...goalLoop,
        ...report
      };
    }
  );
}
var PLAN_USAGE = `usage: evidence-gate plan --goal TEXT (--verify-cmd CMD | --accept-no-build-evidence) [options]

Plans a graph from the goal exactly as \`auto\` would \u2014 the build-evidence decision, the planner call (one
repair call when the plan breaks a rule), the verify command attached to every sink, each planned node's tool
ceiling \u2014 and prints the plan and its tool-ceiling disclosure. No node runs and no run directory is made; the planner call is the only cost.

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
var RUN_ONLY_FLAGS = [
  "verify-env",
  "verify-repeat",
  "verify-base",
  "base",
  "test-reports",
  "continue-on-fail",
  "runs-dir",
  "concurrency",
  "commit",
  "timeout"
];
function parsePlanFlags(argv) {
  return parseFlags(
    argv,
    { ...PLANNING_OPTIONS, ...FRESH_RUN.options, ...LEG.options, json: { type: "boolean" } },
    false,
    (f, errors) => {
      const planning = planningFlags(f, errors);
      for (const name of RUN_ONLY_FLAGS) {
        if (f.given(name))
          errors.push(
            `--${name} does not apply to plan: nothing runs; give it to auto when you run the plan`
          );
      }
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      return {
        ...planning,
        runtime: fresh.runtime,
        ...opt("model", fresh.model),
        ...opt("workingDirectory", fresh.workingDirectory),
        verifyTimeoutMs: fresh.verifyTimeoutMs ?? 10 * 6e4,
        repo: leg.repo,
        ...opt("claudePath", leg.claudePath),
        ...opt("codexPath", leg.codexPath),
        codexConfig: leg.codexConfig,
        json: f.bool("json")
      };
    }
  );
}

export {
  autoMode,
  AUTO_USAGE,
  parseAutoFlags,
  PLAN_USAGE,
  parsePlanFlags
};
