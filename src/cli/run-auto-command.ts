/**
 * `evidence-gate auto`: parse flags, run the engine once, print the plan, a line per node and the
 * ledger, optionally post (or record) the check run, and map the result to an exit code (SPEC §2).
 */
import { resolve } from "node:path";
import { unreachable } from "../core/unreachable.js";
import { type AutoRunResult, runAuto } from "../engine/auto-run.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import { type CliIo, codexCredentialProblem, parseOrExit, pathProblems, refuseUsage } from "./cli-context.js";
import { CliLeg } from "./cli-leg.js";
import { EXIT } from "./exit-codes.js";
import { AUTO_USAGE, parseAutoFlags } from "./parse-auto-flags.js";
import { planLines } from "./progress-lines.js";
import { prepareFreshRun } from "./report-run.js";

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
  const result: AutoRunResult = await report.guard(leg.runId, () =>
    runAuto(
      leg.engineOptions(
        {
          runId: leg.runId,
          ...(f.sha !== undefined ? { postedHeadSha: f.sha } : {}),
          goal: f.goal,
          repoDir,
          ...(f.workingDirectory !== undefined ? { workingDirectory: f.workingDirectory } : {}),
          ...(f.verifyCmd !== undefined ? { verifyCmd: f.verifyCmd } : {}),
          verifyTimeoutMs: f.verifyTimeoutMs,
          verifyEnv: f.verifyEnv,
          acceptNoBuildEvidence: f.acceptNoBuildEvidence,
          acceptLoadedUserConfig: f.acceptLoadedUserConfig,
          ...(policy !== undefined ? { policy } : {}),
          runtime: f.runtime,
          ...(f.model !== undefined ? { model: f.model } : {}),
          concurrency: f.concurrency,
          onFail: f.continueOnFail ? "continue" : "halt",
          plannerTimeoutMs: 20 * 60_000,
        },
        {
          onPlan: (plan) => {
            const title = `plan: ${plan.nodes.length} node${plan.nodes.length === 1 ? "" : "s"}${plan.repaired ? " (re-planned once after a refusal)" : ""}`;
            for (const l of planLines(plan, title)) report.line(l);
          },
        },
      ),
    ),
  );

  switch (result.kind) {
    case "usage_error":
      await report.endedEarly({ kind: "usage-error", message: result.message });
      return EXIT.usage;
    case "refused":
      await report.endedEarly({ kind: "refused", reason: "build-evidence", message: result.message });
      return EXIT.refused;
    case "finished":
      return leg.finished(result);
    default:
      return unreachable(result);
  }
}
