/**
 * `evidence-gate run GRAPH`: run a hand-written graph (SPEC §2, §3, §4) — read the file, run the engine
 * once, print the plan, a line per node event and the ledger, optionally post (or record) the check run,
 * and map the result to an exit code. A graph that does not load is a usage error (exit 64) with every
 * problem printed; nothing runs and nothing is spent.
 */
import { resolve } from "node:path";
import { unreachable } from "../core/unreachable.js";
import { type HandRunResult, runHandWritten } from "../engine/hand-run.js";
import { fragmentsBeside } from "../graph/fragment-source.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import { type CliIo, codexCredentialProblem, parseOrExit, pathProblems, refuseUsage } from "./cli-context.js";
import { CliLeg } from "./cli-leg.js";
import { EXIT } from "./exit-codes.js";
import { readGraphFile } from "./graph-file.js";
import { parseRunFlags, RUN_USAGE } from "./parse-run-flags.js";
import { planLines } from "./progress-lines.js";
import { prepareFreshRun } from "./report-run.js";

/** Runs `run` and returns the process exit code. */
export async function runCliRun(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "run", RUN_USAGE, parseRunFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const repoDir = resolve(io.cwd, f.repo);
  const graphFile = readGraphFile(resolve(io.cwd, f.graph), f.graph);
  const problems = [
    ...pathProblems(repoDir, f, io.cwd),
    ...(graphFile.ok ? [] : [graphFile.error]),
    ...[codexCredentialProblem(io.env, f.runtime, f.codexConfig)].filter((p): p is string => p !== null),
  ];
  const refused = refuseUsage(io, "run", problems);
  if (refused !== null || !graphFile.ok) return refused ?? EXIT.usage;
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

  const leg = await CliLeg.startFresh({ repoDir, flags: f, io, secrets, report, what: f.graph });
  if ("exit" in leg) return leg.exit;
  const result: HandRunResult = await report.guard(leg.runId, () =>
    runHandWritten(
      leg.engineOptions(
        {
          runId: leg.runId,
          graphText: graphFile.text,
          graphSource: f.graph,
          fragments: fragmentsBeside(resolve(io.cwd, f.graph), f.graph),
          inputs: f.inputs,
          repoDir,
          ...(f.workingDirectory !== undefined ? { workingDirectory: f.workingDirectory } : {}),
          ...(f.concurrency !== undefined ? { concurrency: f.concurrency } : {}),
          continueOnFail: f.continueOnFail,
          ...(f.verifyTimeoutMs !== undefined ? { verifyTimeoutCeilingMs: f.verifyTimeoutMs } : {}),
          verifyEnv: f.verifyEnv,
          runtime: f.runtime,
          ...(f.model !== undefined ? { model: f.model } : {}),
          ...(f.sha !== undefined ? { postedHeadSha: f.sha } : {}),
          ...(policy !== undefined
            ? { policy: { requireEvidence: policy.requireEvidence, source: policy.source } }
            : {}),
        },
        {
          onPlan: (plan) => {
            const n = plan.nodes.length;
            for (const l of planLines(plan, `graph ${f.graph}: ${n} node${n === 1 ? "" : "s"}`))
              report.line(l);
          },
        },
      ),
    ),
  );

  switch (result.kind) {
    case "usage_error":
    case "invalid_graph":
      // An invalid graph is the operator's input to fix, like a bad flag: exit 64, nothing ran.
      await report.endedEarly({ kind: "usage-error", message: result.message });
      return EXIT.usage;
    case "finished":
      return leg.finished(result);
    default:
      return unreachable(result);
  }
}
