#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  PLAN_USAGE,
  autoMode,
  parsePlanFlags
} from "./cli-chunk-U75OERYJ.js";
import {
  localModelCli,
  planAuto,
  planLines,
  planTitle,
  promptLines,
  startPlanning,
  withLocalProxy
} from "./cli-chunk-LKTKGGAU.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-7GOMFJEZ.js";
import "./cli-chunk-65TFX77S.js";
import "./cli-chunk-IMFOU6ZW.js";
import {
  executableFor,
  missingCliProblem
} from "./cli-chunk-FMDVH7O5.js";
import {
  checkedRepository,
  claudeNotLoggedInMessage,
  cliSecrets,
  parseOrExit,
  readCliPolicy
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

// src/local-run/plan-only.ts
async function planOnly(request, ports) {
  const { mode, policy } = request;
  const options = {
    goal: mode.goal,
    repoDir: request.repoDir,
    ...request.workingDirectory !== void 0 ? { workingDirectory: request.workingDirectory } : {},
    verify: mode.verify,
    verifyTimeoutMs: request.verifyTimeoutMs ?? 10 * 6e4,
    acceptNoBuildEvidence: mode.acceptNoBuildEvidence,
    acceptLoadedUserConfig: mode.acceptLoadedUserConfig,
    runtime: mode.runtime,
    ...request.codexConfig.length + (ports.modelCli.codexConfig?.length ?? 0) > 0 ? { codexConfig: [...request.codexConfig, ...ports.modelCli.codexConfig ?? []] } : {},
    ...request.model !== void 0 ? { model: request.model } : {},
    surface: request.surface,
    ...policy !== void 0 ? { policy } : {}
  };
  const started = await startPlanning(options);
  if (started.kind !== "ready") return started;
  const executable = executableFor(mode.runtime, ports.modelCli);
  const missingCli = missingCliProblem(mode.runtime, executable, request.baseEnv);
  if (missingCli !== null) return { kind: "usage_error", message: missingCli };
  return planAuto(options, started, {
    executable,
    env: ports.modelCli.modelEnv("planner", mode.runtime),
    timeoutMs: mode.plannerTimeoutMs,
    ...ports.signal ? { signal: ports.signal } : {},
    // The model calls the surface was handed (the port tier's scripted stand-in), as `auto` passes them.
    ...ports.modelCli.modelCalls !== void 0 ? { modelCalls: ports.modelCli.modelCalls } : {}
  });
}

// src/cli/plan-command.ts
async function runCliPlan(argv, io) {
  const parsed = parseOrExit(argv, io, "plan", PLAN_USAGE, parsePlanFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const where = await checkedRepository("plan", f, io, { runs: false });
  if ("exit" in where) return where.exit;
  const { repoDir } = where;
  const secrets = cliSecrets(io.env);
  const redact = (text) => secrets.redactor.text(text);
  const say = {
    line: (text) => (f.json ? io.err : io.out).write(`${redact(text)}
`),
    error: (text) => io.err.write(`evidence-gate plan: ${redact(text)}
`)
  };
  const policyFile = await readCliPolicy(repoDir, say);
  if (policyFile === null) return EXIT.usage;
  const policy = autoRunPolicy(policyFile);
  let result;
  const proxied = await withLocalProxy(
    io,
    { command: "plan", runtime: f.runtime, codexConfig: f.codexConfig, say: say.line },
    async (proxy) => {
      result = await planOnly(
        {
          mode: autoMode({
            goal: f.goal,
            ...f.verifyCmd !== void 0 ? { verifyCmd: f.verifyCmd } : {},
            acceptNoBuildEvidence: f.acceptNoBuildEvidence,
            acceptLoadedUserConfig: f.acceptLoadedUserConfig,
            runtime: f.runtime,
            concurrency: 4,
            ...policy !== void 0 ? { policy } : {},
            surface: "cli"
          }),
          repoDir,
          ...where.workingDirectory !== void 0 ? { workingDirectory: where.workingDirectory } : {},
          ...f.model !== void 0 ? { model: f.model } : {},
          codexConfig: f.codexConfig,
          verifyTimeoutMs: f.verifyTimeoutMs,
          ...policy !== void 0 ? { policy } : {},
          surface: "cli",
          knownSecrets: secrets.knownSecrets,
          baseEnv: io.env
        },
        {
          modelCli: localModelCli({
            modelEnv: secrets.modelEnv,
            ...f.claudePath !== void 0 ? { claudePath: f.claudePath } : {},
            ...f.codexPath !== void 0 ? { codexPath: f.codexPath } : {},
            ...proxy !== void 0 ? { proxy } : {},
            ...io.modelCalls !== void 0 ? { modelCalls: io.modelCalls } : {}
          }),
          ...io.signal ? { signal: io.signal } : {}
        }
      );
      return EXIT.passed;
    }
  );
  if (result === void 0) return proxied;
  if (result.kind === "usage_error" || result.kind === "refused") {
    say.error(result.message);
    return result.kind === "refused" ? EXIT.refused : EXIT.usage;
  }
  const plan = secrets.redactor.deep(result.plan);
  if (f.json) {
    const graph = result.kind === "planned" ? secrets.redactor.deep(result.spec) : null;
    io.out.write(`${JSON.stringify({ plan, graph }, null, 2)}
`);
  }
  if (result.kind === "rejected") {
    const rejected = result.planned;
    const title = io.signal?.aborted ? "plan: interrupted, nothing to run" : planTitle(plan);
    if (!f.json) for (const l of planLines(plan, title)) say.line(l);
    if (rejected.notLoggedIn === true) {
      say.error(claudeNotLoggedInMessage("cli"));
      return EXIT.usage;
    }
    if (rejected.repairAttempted) {
      for (const refusal of rejected.refusals) say.error(`the plan was refused after its repair: ${refusal}`);
    } else {
      say.error(`planning failed: ${rejected.reason}`);
    }
    return io.signal?.aborted ? EXIT.interrupted : EXIT.failed;
  }
  if (!f.json) {
    for (const l of planLines(plan, planTitle(plan))) say.line(l);
    for (const l of promptLines(result.spec.nodes)) say.line(l);
  }
  say.line("plan only: no node ran and no run directory was made");
  return EXIT.passed;
}
export {
  runCliPlan
};
