/**
 * `evidence-gate run GRAPH`: run a hand-written graph (SPEC §2, §3, §4) — read the file, run the engine
 * once, print the plan, a line per node event and the ledger, optionally post (or record) the check run,
 * and map the result to an exit code. A graph that does not load is a usage error (exit 64) with every
 * problem printed; nothing runs and nothing is spent.
 */
import { resolve } from "node:path";
import { fragmentsBeside } from "../graph/fragment-source.js";
import { EXIT } from "../local-run/exit-codes.js";
import { CliLeg, withLocalProxy } from "../local-run/local-leg.js";
import { type CliIo, checkedRepository } from "../local-run/local-setup.js";
import { prepareFreshRun } from "../local-run/terminal-report.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import { planLines } from "../progress/progress-lines.js";
import { startRun } from "../run/start-run.js";
import { readGraphFile } from "./graph-file.js";
import { parseOrExit } from "./parse-command.js";
import { parseRunFlags, RUN_USAGE } from "./parse-run-flags.js";

/** Runs `run` and returns the process exit code. */
export async function runCliRun(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "run", RUN_USAGE, parseRunFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const graphFile = readGraphFile(resolve(io.cwd, f.graph), f.graph);
  const where = await checkedRepository("run", f, io, {
    runs: true,
    extra: graphFile.ok ? [] : [graphFile.error],
  });
  if ("exit" in where || !graphFile.ok) return "exit" in where ? where.exit : EXIT.usage;
  const { repoDir } = where;
  const prepared = await prepareFreshRun({ command: "run", flags: f, io, repoDir });
  if ("exit" in prepared) return prepared.exit;
  const { secrets, report, policyFile } = prepared;
  // For a hand-written graph only the policy's `require-evidence` applies: its verify commands and tools
  // are the graph's own.
  const policy = autoRunPolicy(policyFile);
  if (policyFile.policy.verifyCmd !== undefined || policyFile.policy.plannedTools.length > 0) {
    report.line(
      "policy: verify-cmd and planned-tools apply to auto's planned graphs only; this graph's nodes use their own success_check.verify and allowed_tools",
    );
  }

  return withLocalProxy(
    io,
    { command: "run", runtime: f.runtime, codexConfig: f.codexConfig, say: (line) => report.line(line) },
    async (proxy) => {
      const leg = await CliLeg.startFresh({ repoDir, flags: f, io, secrets, report, what: f.graph });
      if ("exit" in leg) return leg.exit;
      const outcome = await startRun(
        {
          mode: {
            kind: "run",
            graphText: graphFile.text,
            graphSource: f.graph,
            fragments: fragmentsBeside(resolve(io.cwd, f.graph), f.graph),
            inputs: f.inputs,
            runtime: f.runtime,
            ...(f.concurrency !== undefined ? { concurrency: f.concurrency } : {}),
            ...(f.verifyTimeoutMs !== undefined ? { verifyTimeoutCeilingMs: f.verifyTimeoutMs } : {}),
          },
          ...leg.requestBase,
          runId: leg.runId,
          ...(where.workingDirectory !== undefined ? { workingDirectory: where.workingDirectory } : {}),
          ...(f.model !== undefined ? { model: f.model } : {}),
          continueOnFail: f.continueOnFail,
          verifyTimeoutMs: f.verifyTimeoutMs ?? 10 * 60_000,
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
              const n = plan.nodes.length;
              for (const l of planLines(plan, `graph ${f.graph}: ${n} node${n === 1 ? "" : "s"}`))
                report.line(l);
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
