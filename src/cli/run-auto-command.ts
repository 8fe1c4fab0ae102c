/**
 * `evidence-gate auto`: parse flags, run the engine once, print the plan, a line per node and the
 * ledger, optionally post (or record) the check run, and map the result to an exit code (SPEC §2).
 */
import { resolve } from "node:path";
import { chooseVerifyCommand } from "../evidence/verify-choice.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import { planLines } from "../progress/progress-lines.js";
import { codexCredentialProblem } from "../run/credentials.js";
import { CliLeg } from "../run/local-leg.js";
import { type CliIo, pathProblems, refuseUsage } from "../run/local-setup.js";
import { startRun } from "../run/start-run.js";
import { prepareFreshRun } from "../run/terminal-report.js";
import { AUTO_USAGE, parseAutoFlags } from "./parse-auto-flags.js";
import { parseOrExit } from "./parse-command.js";

export type { CliIo };

/** Runs `auto` and returns the process exit code. */
export async function runCliAuto(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "auto", AUTO_USAGE, parseAutoFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const repoDir = resolve(io.cwd, f.repo);
  const refused = refuseUsage(io, "auto", [
    ...pathProblems(repoDir, f, io.cwd),
    ...[codexCredentialProblem(io.env, f.runtime, f.codexConfig)].filter((p): p is string => p !== null),
  ]);
  if (refused !== null) return refused;
  const prepared = await prepareFreshRun({ command: "auto", flags: f, io, repoDir });
  if ("exit" in prepared) return prepared.exit;
  const { secrets, report, policyFile } = prepared;
  const policy = autoRunPolicy(policyFile);

  const leg = await CliLeg.startFresh({
    repoDir,
    flags: f,
    io,
    secrets,
    report,
    what: f.goal.split("\n")[0] ?? "",
  });
  if ("exit" in leg) return leg.exit;
  const outcome = await startRun(
    {
      mode: {
        kind: "auto",
        goal: f.goal,
        verify: chooseVerifyCommand({
          ...(f.verifyCmd !== undefined ? { given: f.verifyCmd } : {}),
          acceptNoBuildEvidence: f.acceptNoBuildEvidence,
          ...(policy !== undefined ? { policy } : {}),
          surface: "cli",
        }),
        acceptNoBuildEvidence: f.acceptNoBuildEvidence,
        acceptLoadedUserConfig: f.acceptLoadedUserConfig,
        ...(f.repairAttempts > 0 ? { repairAttempts: f.repairAttempts } : {}),
        runtime: f.runtime,
        concurrency: f.concurrency,
        plannerTimeoutMs: 20 * 60_000,
      },
      ...leg.requestBase,
      runId: leg.runId,
      ...(f.workingDirectory !== undefined ? { workingDirectory: f.workingDirectory } : {}),
      ...(f.model !== undefined ? { model: f.model } : {}),
      continueOnFail: f.continueOnFail,
      verifyTimeoutMs: f.verifyTimeoutMs,
      verifyEnv: f.verifyEnv,
      ...(policy !== undefined ? { policy } : {}),
      ...(f.sha !== undefined ? { postedHeadSha: f.sha } : {}),
    },
    leg.ports({
      onPlan: (plan) => {
        const title = `plan: ${plan.nodes.length} node${plan.nodes.length === 1 ? "" : "s"}${plan.repaired ? " (re-planned once after a refusal)" : ""}`;
        for (const l of planLines(plan, title)) report.line(l);
      },
    }),
  );
  return leg.conclude(outcome);
}
