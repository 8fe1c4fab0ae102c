#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  AUTO_USAGE,
  autoMode,
  parseAutoFlags
} from "./cli-chunk-U75OERYJ.js";
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
  planTitle,
  withLocalProxy
} from "./cli-chunk-LKTKGGAU.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-7GOMFJEZ.js";
import "./cli-chunk-65TFX77S.js";
import "./cli-chunk-QZOVEDA3.js";
import "./cli-chunk-IMFOU6ZW.js";
import "./cli-chunk-FMDVH7O5.js";
import {
  checkedRepository,
  parseOrExit
} from "./cli-chunk-OU6P7TWF.js";
import {
  autoRunPolicy
} from "./cli-chunk-NJKI2YPK.js";
import "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/run-auto-command.ts
async function runCliAuto(argv, io) {
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
        what: f.goal.split("\n")[0] ?? ""
      });
      if ("exit" in leg) return leg.exit;
      const outcome = await startRun(
        {
          mode: autoMode({
            goal: f.goal,
            ...f.verifyCmd !== void 0 ? { verifyCmd: f.verifyCmd } : {},
            acceptNoBuildEvidence: f.acceptNoBuildEvidence,
            acceptLoadedUserConfig: f.acceptLoadedUserConfig,
            repairAttempts: f.repairAttempts,
            maxCycles: f.maxCycles,
            ...f.maxCostUsd !== void 0 ? { maxCostUsd: f.maxCostUsd } : {},
            runtime: f.runtime,
            concurrency: f.concurrency,
            ...policy !== void 0 ? { policy } : {},
            surface: "cli"
          }),
          ...leg.requestBase,
          runId: leg.runId,
          ...where.workingDirectory !== void 0 ? { workingDirectory: where.workingDirectory } : {},
          ...f.model !== void 0 ? { model: f.model } : {},
          continueOnFail: f.continueOnFail,
          verifyTimeoutMs: f.verifyTimeoutMs,
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
              const title = planTitle(plan, { interrupted: io.signal?.aborted === true });
              for (const l of planLines(plan, title)) report.line(l);
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
  runCliAuto
};
