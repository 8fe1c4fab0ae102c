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
  chooseVerifyCommand,
  emptyVerifyCommandProblem
} from "./cli-chunk-LKTKGGAU.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-7GOMFJEZ.js";
import {
  shownCommand
} from "./cli-chunk-65TFX77S.js";
import "./cli-chunk-QZOVEDA3.js";
import "./cli-chunk-IMFOU6ZW.js";
import {
  REPORT,
  RUN_TIMEOUT,
  VERIFY_BASE,
  VERIFY_REPEAT,
  VERIFY_TIMEOUT,
  readVerifyEnv
} from "./cli-chunk-FMDVH7O5.js";
import {
  checkedRepository,
  opt,
  parseFlags,
  parseOrExit,
  refuseUsage
} from "./cli-chunk-OU6P7TWF.js";
import {
  autoRunPolicy
} from "./cli-chunk-NJKI2YPK.js";
import "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/verify-command.ts
var VERIFY_USAGE = `usage: evidence-gate verify [--verify-cmd CMD] [options]

  --verify-cmd CMD             the command the engine runs once, judged by exit code
                               (default: verify-cmd in .github/evidence-gate.yml)
  --verify-timeout DURATION    its timeout, Go syntax (default 10m)
  --verify-env NAMES           variables passed through to it (comma separated)
${VERIFY_REPEAT.usage}${VERIFY_BASE.usage}  --working-directory DIR      folder to run it in, resolved from --repo (inside the working tree)
  --repo DIR                   a folder in the repository's git working tree (default .); a sub-folder
                               is the working directory
  --runs-dir DIR               where run directories go (default <repo>/.evidence-gate/runs)
${RUN_TIMEOUT.usage}${REPORT.usage}
Exit: 0 the command passed, 1 it failed (a non-zero exit or its timeout), 4 it passed but the conclusion
is action_required (e.g. the verify definition changed; read CONCLUSION), 64 usage error (bad flags, no
command to run), 124 run timed out (--timeout), 130 interrupted.
`;
function parseVerifyFlags(argv) {
  return parseFlags(
    argv,
    {
      "verify-cmd": { type: "string" },
      "verify-env": { type: "string" },
      "working-directory": { type: "string" },
      repo: { type: "string" },
      "runs-dir": { type: "string" },
      ...VERIFY_TIMEOUT.options,
      ...VERIFY_REPEAT.options,
      ...VERIFY_BASE.options,
      ...RUN_TIMEOUT.options,
      ...REPORT.options
    },
    false,
    (f, errors) => {
      const verifyCmd = f.str("verify-cmd");
      const empty = verifyCmd === void 0 ? null : emptyVerifyCommandProblem(verifyCmd, { surface: "cli", declaredBy: "input" });
      if (empty !== null) errors.push(empty);
      const verifyEnv = readVerifyEnv(
        f.str("verify-env"),
        { label: "--verify-env", separators: /,/ },
        errors
      );
      const { verifyTimeoutMs } = VERIFY_TIMEOUT.read(f, errors);
      return {
        ...opt("verifyCmd", verifyCmd),
        verifyTimeoutMs: verifyTimeoutMs ?? 10 * 6e4,
        verifyEnv,
        ...VERIFY_REPEAT.read(f, errors),
        ...VERIFY_BASE.read(f, errors),
        ...opt("workingDirectory", f.str("working-directory")),
        repo: f.str("repo") ?? ".",
        ...opt("runsDir", f.str("runs-dir")),
        ...RUN_TIMEOUT.read(f, errors),
        ...REPORT.read(f, errors)
      };
    }
  );
}
async function runCliVerify(argv, io) {
  const parsed = parseOrExit(argv, io, "verify", VERIFY_USAGE, parseVerifyFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const where = await checkedRepository("verify", f, io, { runs: true });
  if ("exit" in where) return where.exit;
  const { repoDir } = where;
  const prepared = await prepareFreshRun({ command: "verify", flags: f, io, repoDir });
  if ("exit" in prepared) return prepared.exit;
  const { secrets, report, policyFile } = prepared;
  const policy = autoRunPolicy(policyFile);
  const verify = chooseVerifyCommand({
    ...opt("given", f.verifyCmd),
    acceptNoBuildEvidence: false,
    ...opt("policy", policy),
    surface: "cli"
  });
  if (verify.kind === "none") {
    return refuseUsage(io, "verify", [
      "no verify command: give --verify-cmd CMD, or verify-cmd in .github/evidence-gate.yml"
    ]);
  }
  if (verify.kind === "empty") return refuseUsage(io, "verify", [verify.message]);
  const leg = await CliLeg.startFresh({
    repoDir,
    flags: {
      repo: f.repo,
      ...opt("runsDir", f.runsDir),
      commit: false,
      codexConfig: [],
      ...opt("timeout", f.timeout)
    },
    io,
    secrets,
    report,
    what: `verify: ${shownCommand(verify.command)}`
  });
  if ("exit" in leg) return leg.exit;
  const outcome = await startRun(
    {
      mode: { kind: "verify", verify },
      ...leg.requestBase,
      runId: leg.runId,
      ...opt("workingDirectory", where.workingDirectory),
      continueOnFail: false,
      verifyTimeoutMs: f.verifyTimeoutMs,
      verifyEnv: f.verifyEnv,
      ...opt("verifyRepeat", f.verifyRepeat),
      ...f.verifyBase ? { verifyBase: true } : {},
      ...opt("verifyBaseRef", f.baseRef),
      ...opt("testReports", f.testReports),
      ...opt("policy", policy),
      ...opt("postedHeadSha", f.sha)
    },
    leg.ports()
  );
  return leg.conclude(outcome);
}
export {
  VERIFY_USAGE,
  parseVerifyFlags,
  runCliVerify
};
