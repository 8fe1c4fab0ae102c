#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  prepareFreshRun,
  startRun
} from "./cli-chunk-PSIV42EE.js";
import "./cli-chunk-5KWKE5IC.js";
import "./cli-chunk-Q7OBBQAX.js";
import "./cli-chunk-LIE2LA5P.js";
import "./cli-chunk-SUJFGUPH.js";
import "./cli-chunk-QIRV2OXE.js";
import "./cli-chunk-NXCD5NAZ.js";
import {
  CliLeg,
  planLines,
  withLocalProxy
} from "./cli-chunk-LKTKGGAU.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-7GOMFJEZ.js";
import "./cli-chunk-65TFX77S.js";
import {
  readGraphFile
} from "./cli-chunk-GQCNBO4X.js";
import "./cli-chunk-QZOVEDA3.js";
import "./cli-chunk-IMFOU6ZW.js";
import {
  FRESH_RUN,
  LEG,
  REPORT,
  fragmentsBeside
} from "./cli-chunk-FMDVH7O5.js";
import {
  checkedRepository,
  inputFlags,
  onePositional,
  parseFlags,
  parseOrExit
} from "./cli-chunk-OU6P7TWF.js";
import {
  autoRunPolicy
} from "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/run-command.ts
import { resolve } from "node:path";

// src/cli/parse-run-flags.ts
var RUN_USAGE = `usage: evidence-gate run GRAPH [--input NAME=VALUE]... [options]

  GRAPH                        the graph file (YAML or JSON); check it for free first with \`evidence-gate lint\`
  --input NAME=VALUE           a value for {{ inputs.NAME }} (repeatable)
  --concurrency N              nodes running at once (default: the graph's concurrency, else 4; max 10)
  --verify-timeout DURATION    the largest success_check.verify.timeout the graph may declare (default 10m)
${FRESH_RUN.usage}${LEG.usage}${REPORT.usage}
The graph's own verify commands (success_check.verify, a completion.verify command) are its build
evidence (no refusal applies to run). A gate pauses the run (exit 2) and prints the
\`evidence-gate resume\` commands that approve or reject it.

Exit: 0 passed, 1 failed, 2 paused (gate or session limit), 4 passed but action_required (read
CONCLUSION), 64 usage error (bad flags, unreadable or
invalid graph: every problem is printed and nothing runs), 124 timed out (--timeout), 130 interrupted.
`;
var NOT_FOR_RUN = {
  goal: {
    type: "string",
    why: "--goal belongs to auto: run takes a graph file (evidence-gate run GRAPH); auto plans one from a goal"
  },
  "verify-cmd": {
    type: "string",
    why: "--verify-cmd does not apply to run: a hand-written graph declares each node's success_check.verify (auto --verify-cmd attaches one to planned sinks)"
  },
  "accept-no-build-evidence": {
    type: "boolean",
    why: "--accept-no-build-evidence does not apply to run: no build-evidence refusal applies to a hand-written graph, whose own success_check.verify commands are its evidence"
  },
  "accept-loaded-user-config": {
    type: "boolean",
    why: "--accept-loaded-user-config is meaningless on run: hand-written nodes already load your configuration"
  }
};
function parseRunFlags(argv) {
  return parseFlags(
    argv,
    {
      input: { type: "string", multiple: true },
      ...FRESH_RUN.options,
      ...LEG.options,
      ...REPORT.options,
      ...NOT_FOR_RUN
    },
    true,
    (f, errors) => {
      for (const [name, { why }] of Object.entries(NOT_FOR_RUN)) {
        if (f.given(name)) errors.push(why);
      }
      const graph = onePositional(f, errors, {
        missing: "run needs the graph file to run: evidence-gate run GRAPH",
        extra: (others) => `run takes one graph file; also got ${others}: run them one at a time (a value with spaces needs quotes)`
      });
      const inputs = inputFlags(f.list("input"), errors);
      const fresh = FRESH_RUN.read(f, errors);
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return { graph, inputs, ...fresh, ...leg, ...report };
    }
  );
}

// src/cli/run-command.ts
async function runCliRun(argv, io) {
  const parsed = parseOrExit(argv, io, "run", RUN_USAGE, parseRunFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const graphFile = readGraphFile(resolve(io.cwd, f.graph), f.graph);
  const where = await checkedRepository("run", f, io, {
    runs: true,
    extra: graphFile.ok ? [] : [graphFile.error]
  });
  if ("exit" in where || !graphFile.ok) return "exit" in where ? where.exit : EXIT.usage;
  const { repoDir } = where;
  const prepared = await prepareFreshRun({ command: "run", flags: f, io, repoDir });
  if ("exit" in prepared) return prepared.exit;
  const { secrets, report, policyFile } = prepared;
  const policy = autoRunPolicy(policyFile);
  if (policyFile.policy.verifyCmd !== void 0 || policyFile.policy.plannedTools.length > 0) {
    report.line(
      "policy: verify-cmd and planned-tools apply to auto's planned graphs only; this graph's nodes use their own success_check.verify and allowed_tools"
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
            ...f.concurrency !== void 0 ? { concurrency: f.concurrency } : {},
            ...f.verifyTimeoutMs !== void 0 ? { verifyTimeoutCeilingMs: f.verifyTimeoutMs } : {}
          },
          ...leg.requestBase,
          runId: leg.runId,
          ...where.workingDirectory !== void 0 ? { workingDirectory: where.workingDirectory } : {},
          ...f.model !== void 0 ? { model: f.model } : {},
          continueOnFail: f.continueOnFail,
          verifyTimeoutMs: f.verifyTimeoutMs ?? 10 * 6e4,
          verifyEnv: f.verifyEnv,
          ...f.verifyRepeat !== void 0 ? { verifyRepeat: f.verifyRepeat } : {},
          ...f.verifyBase ? { verifyBase: true } : {},
          ...f.baseRef !== void 0 ? { verifyBaseRef: f.baseRef } : {},
          ...f.testReports !== void 0 ? { testReports: f.testReports } : {},
          ...policy !== void 0 ? { policy } : {},
          ...f.sha !== void 0 ? { postedHeadSha: f.sha } : {}
        },
        leg.ports(
          {
            onPlan: (plan) => {
              const n = plan.nodes.length;
              for (const l of planLines(plan, `graph ${f.graph}: ${n} node${n === 1 ? "" : "s"}`))
                report.line(l);
            }
          },
          void 0,
          proxy
        )
      );
      return leg.conclude(outcome);
    }
  );
}
export {
  runCliRun
};
