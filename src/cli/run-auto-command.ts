/**
 * `evidence-gate auto`: parse flags, run the engine once, print the plan, a line per node and the
 * ledger, optionally post (or record) the check run, and map the result to an exit code (SPEC §2).
 */

import { CliLeg, withLocalProxy } from "../local-run/local-leg.js";
import { type CliIo, checkedRepository } from "../local-run/local-setup.js";
import { prepareFreshRun } from "../local-run/terminal-report.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import { planLines, planTitle } from "../progress/progress-lines.js";
import { autoMode } from "../run/request.js";
import { startRun } from "../run/start-run.js";
import { AUTO_USAGE, parseAutoFlags } from "./parse-auto-flags.js";
import { parseOrExit } from "./parse-command.js";

export type { CliIo };

/** Runs `auto` and returns the process exit code. */
export async function runCliAuto(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "auto", AUTO_USAGE, parseAutoFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const where = await checkedRepository("auto", f, io, { runs: true });
  if ("exit" in where) return where.exit;
  const { repoDir } = where;
  const prepared = await prepareFreshRun({ command: "auto", flags: f, io, repoDir });
  if ("exit" in prepared) return prepared.exit;
  const { secrets, report, policyFile } = prepared;
  const policy = autoRunPolicy(policyFile);

  return withLocalProxy(
    io,
    { command: "auto", runtime: f.runtime, codexConfig: f.codexConfig, say: (line) => report.line(line) },
    async (proxy) => {
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
          mode: autoMode({
            goal: f.goal,
            ...(f.verifyCmd !== undefined ? { verifyCmd: f.verifyCmd } : {}),
            acceptNoBuildEvidence: f.acceptNoBuildEvidence,
            acceptLoadedUserConfig: f.acceptLoadedUserConfig,
            repairAttempts: f.repairAttempts,
            maxCycles: f.maxCycles,
            ...(f.maxCostUsd !== undefined ? { maxCostUsd: f.maxCostUsd } : {}),
            runtime: f.runtime,
            concurrency: f.concurrency,
            ...(policy !== undefined ? { policy } : {}),
            surface: "cli",
          }),
          ...leg.requestBase,
          runId: leg.runId,
          ...(where.workingDirectory !== undefined ? { workingDirectory: where.workingDirectory } : {}),
          ...(f.model !== undefined ? { model: f.model } : {}),
          continueOnFail: f.continueOnFail,
          verifyTimeoutMs: f.verifyTimeoutMs,
          verifyEnv: f.verifyEnv,
          ...(f.verifyRepeat !== undefined ? { verifyRepeat: f.verifyRepeat } : {}),
          ...(f.verifyBase ? { verifyBase: true } : {}),
          ...(f.baseRef !== undefined ? { verifyBaseRef: f.baseRef } : {}),
          ...(f.testReports !== undefined ? { testReports: f.testReports } : {}),
          ...(policy !== undefined ? { policy } : {}),
          ...(f.sha !== undefined ? { postedHeadSha: f.sha } : {}),
        },
        leg.ports(
          {
            onPlan: (plan) => {
              const title = planTitle(plan, { interrupted: io.signal?.aborted === true });
              for (const l of planLines(plan, title)) report.line(l);
            },
          },
          undefined,
          proxy,
        ),
      );
      return leg.conclude(outcome);
    },
  );
}
