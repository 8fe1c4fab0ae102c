#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  RunReport,
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
  recordedRuntime,
  withLocalProxy
} from "./cli-chunk-LKTKGGAU.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-7GOMFJEZ.js";
import {
  isGitHubLogin,
  isLocalAccountName,
  localApprover
} from "./cli-chunk-65TFX77S.js";
import "./cli-chunk-QZOVEDA3.js";
import "./cli-chunk-IMFOU6ZW.js";
import {
  LEG,
  REPORT
} from "./cli-chunk-FMDVH7O5.js";
import {
  checkedRepository,
  cliSecrets,
  onePositional,
  opt,
  parseFlags,
  parseOrExit,
  refuseUsage,
  runsDirFor
} from "./cli-chunk-OU6P7TWF.js";
import "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import {
  unreachable
} from "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/cli/resume-command.ts
import { existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";

// src/cli/parse-resume-flags.ts
var RESUME_USAGE = `usage: evidence-gate resume RUN_ID (--approve GATE | --reject GATE | --retry-failed) [options]

  RUN_ID                       the run to continue (the id \`run\` or \`auto\` printed)
  --approve GATE               approve the gate the run is waiting at; its dependents run
  --reject GATE                reject it: its dependents are skipped and the run fails
  --retry-failed               run again exactly the nodes that did not pass (after a failure or a
                               session-limit pause); passed nodes and their outputs are kept
  --by LOGIN                   who approves or rejects: a GitHub login, shown as @LOGIN (default: the
                               local user, $USER, recorded as NAME (local user))
  --concurrency N              nodes running at once (default: the concurrency the run started with; max 10)
${LEG.usage}${REPORT.usage}
The leg continues the run in <runs-dir>/RUN_ID with the graph, inputs, runtime, model and tool policies
recorded there, on the same commit the run started at. A codex run's --codex-config pairs are not
recorded (they may carry a secret): give them again. A run started with --accept-loaded-user-config
keeps it (printed before the leg runs); resume has no flag to set or widen it.

Exit: 0 passed (or nothing to retry), 1 failed (a rejected gate included), 2 paused again, 4 passed but
action_required (read CONCLUSION), 64 usage error, 124 timed out (--timeout), 130 interrupted.
`;
var ACTIONS = "--approve GATE, --reject GATE or --retry-failed";
function parseResumeFlags(argv) {
  return parseFlags(
    argv,
    {
      approve: { type: "string" },
      reject: { type: "string" },
      "retry-failed": { type: "boolean" },
      by: { type: "string" },
      ...LEG.options,
      ...REPORT.options,
      // Refused with the reason below, not as an unknown flag.
      input: { type: "string", multiple: true },
      model: { type: "string" },
      "accept-loaded-user-config": { type: "boolean" }
    },
    true,
    (f, errors) => {
      const runId = onePositional(f, errors, {
        missing: "resume needs the run id: evidence-gate resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)",
        extra: (others) => `resume continues one run; also got ${others}: give one RUN_ID`
      });
      for (const name of ["input", "model"]) {
        if (f.given(name))
          errors.push(
            `--${name} does not apply to resume: a resumed leg uses the ${name === "input" ? "inputs" : "model"} the run started with`
          );
      }
      if (f.given("accept-loaded-user-config"))
        errors.push(
          "--accept-loaded-user-config does not apply to resume: it is inherited from the run's first leg (its recorded tool policies), and a resumed leg cannot widen them"
        );
      const approve = f.str("approve");
      const reject = f.str("reject");
      const retry = f.bool("retry-failed");
      const given = [
        ...approve !== void 0 ? ["--approve"] : [],
        ...reject !== void 0 ? ["--reject"] : [],
        ...retry ? ["--retry-failed"] : []
      ];
      let action;
      if (given.length === 0) errors.push(`resume needs one of ${ACTIONS}: say what the resumed leg does`);
      else if (given.length > 1)
        errors.push(`${given.join(" and ")} were given together: give one of ${ACTIONS}`);
      else if (approve !== void 0 || reject !== void 0) {
        const gate = approve ?? reject;
        if (gate.trim() === "") errors.push(`${given[0]} is empty: give the gate's node id`);
        else action = { kind: approve !== void 0 ? "approve" : "reject", gate };
      } else action = { kind: "retry-failed" };
      const by = f.str("by");
      if (by !== void 0 && !isGitHubLogin(by))
        errors.push(
          `--by is ${JSON.stringify(by)}: give a GitHub login (letters, digits and single hyphens, at most 39 characters, no @), e.g. --by octocat; without --by the approver is recorded as the local user`
        );
      if (by !== void 0 && retry)
        errors.push("--by applies to --approve and --reject: --retry-failed decides no gate");
      const leg = LEG.read(f, errors);
      const report = REPORT.read(f, errors);
      return action === void 0 ? void 0 : { runId, action, ...opt("by", by), ...leg, ...report };
    }
  );
}

// src/cli/resume-command.ts
async function runCliResume(argv, io) {
  const parsed = parseOrExit(argv, io, "resume", RESUME_USAGE, parseResumeFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const local = localUser(io.env);
  const by = f.action.kind === "retry-failed" ? null : f.by ?? (local === void 0 || !isLocalAccountName(local) ? void 0 : localApprover(local));
  const where = await checkedRepository("resume", f, io, {
    runs: true,
    extra: by !== void 0 ? [] : local === void 0 ? ["cannot tell who decides the gate: give --by LOGIN"] : [
      `the local user ${JSON.stringify(local)} is not an account name (letters, digits, ".", "_", "-" or spaces): give --by LOGIN`
    ]
  });
  if ("exit" in where) return where.exit;
  const { repoDir } = where;
  const runsDir = runsDirFor(repoDir, f.runsDir, io.cwd);
  const notResumable = verifyRunProblem(join(runsDir, f.runId));
  if (notResumable !== null) return refuseUsage(io, "resume", [notResumable]);
  const action = engineAction(f.action, by ?? "");
  const secrets = cliSecrets(io.env);
  const report = RunReport.open({ command: "resume", flags: f, io, secrets });
  if (typeof report === "string") return refuseUsage(io, "resume", [report]);
  let headSha = f.sha;
  if (report.checkRun) {
    const head = await report.headFor(repoDir);
    if ("problem" in head) return refuseUsage(io, "resume", [head.problem]);
    headSha = head.sha;
  }
  return withLocalProxy(
    io,
    {
      command: "resume",
      runtime: recordedRuntime(join(runsDir, f.runId)),
      codexConfig: f.codexConfig,
      say: (line) => report.line(line)
    },
    async (proxy) => {
      const leg = new CliLeg({ runId: f.runId, repoDir, flags: f, io, secrets, report });
      const result = await startRun(
        {
          mode: {
            kind: "resume",
            runId: f.runId,
            action,
            ...headSha !== void 0 ? { headSha } : {},
            ...f.concurrency !== void 0 ? { concurrency: f.concurrency } : {}
          },
          ...leg.requestBase
        },
        leg.ports(
          {
            onRunStarted: async (id, dir) => {
              if (headSha !== void 0 && report.checkRun) {
                const notCreated = await report.start(
                  id,
                  headSha,
                  `Run \`${id}\` resumed: ${describeAction(action)}`
                );
                if (notCreated !== null) throw new CheckRunNotCreatedError(notCreated);
              }
              report.line(`resume run ${id} (${dir}): ${describeAction(action)}`);
            },
            // Before any node of the leg runs: the ceiling this leg spawns under, as the first leg chose it.
            onPlan: (plan) => {
              report.line("tool ceiling (as the run's first leg chose it):");
              report.line(`  ${plan.disclosure}`);
            }
          },
          io.signal,
          proxy
        )
      ).catch((error) => {
        if (error instanceof CheckRunNotCreatedError) return error;
        throw error;
      });
      if (result instanceof CheckRunNotCreatedError) {
        report.error(
          `the check run could not be created: ${result.notCreated.message}
Nothing was run and nothing was recorded: run ${f.runId} is as it was (${action.kind === "retry-failed" ? "run --retry-failed again" : `still waiting at gate "${action.gate}"; decide it again`} once the token can create check runs).`
        );
        return result.notCreated.tokenRefused ? EXIT.usage : EXIT.failed;
      }
      switch (result.kind) {
        case "usage_error":
          report.error(result.message);
          return EXIT.usage;
        case "setup_failed":
          report.error(result.message);
          return EXIT.failed;
        case "nothing_to_retry":
          if (result.failed) {
            report.error(result.message);
            return EXIT.failed;
          }
          report.line(result.message);
          return EXIT.passed;
        case "finished":
          return leg.finished(result);
        default:
          return unreachable(result);
      }
    }
  );
}
var CheckRunNotCreatedError = class extends Error {
  constructor(notCreated) {
    super(`the check run could not be created: ${notCreated.message}`);
    this.notCreated = notCreated;
  }
  notCreated;
};
function localUser(env) {
  const fromEnv = env.USER ?? env.USERNAME;
  if (fromEnv !== void 0 && fromEnv.trim() !== "") return fromEnv;
  try {
    const name = userInfo().username;
    return name.trim() !== "" ? name : void 0;
  } catch {
    return void 0;
  }
}
function engineAction(action, by) {
  return action.kind === "retry-failed" ? action : { ...action, by };
}
function describeAction(action) {
  switch (action.kind) {
    case "approve":
      return `gate "${action.gate}" approved by ${action.by}; running its dependents`;
    case "reject":
      return `gate "${action.gate}" rejected by ${action.by}; its dependents are skipped`;
    case "retry-failed":
      return "running again the nodes that did not pass (passed nodes and their outputs are kept)";
    default:
      return unreachable(action);
  }
}
function verifyRunProblem(runDir) {
  if (existsSync(join(runDir, "state.json"))) return null;
  const ledgerPath = join(runDir, "ledger.json");
  if (!existsSync(ledgerPath)) return null;
  let ledger;
  try {
    ledger = JSON.parse(readFileSync(ledgerPath, "utf8"));
  } catch {
    return null;
  }
  const rows = Array.isArray(ledger.rows) ? ledger.rows : [];
  if (ledger.mode !== "verify" && !rows.some((row) => row?.label === "verify (engine)")) return null;
  return `${runDir} is a \`verify\` run (its ledger has one "verify (engine)" row and no state.json): a verify run has no graph to resume or retry; run \`evidence-gate verify\` again`;
}
export {
  localUser,
  runCliResume,
  verifyRunProblem
};
