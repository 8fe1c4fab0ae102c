/**
 * `evidence-gate resume RUN_ID (--approve GATE | --reject GATE | --retry-failed)`: one more leg of a
 * paused or failed run (SPEC §2, §4; research/oh-my-graph.md §7.6–§7.7), reported like `run`: a line per
 * node event, the whole run's ledger, the check run, the exit code by outcome.
 *
 * The approver is `--by LOGIN` (a GitHub login, refused otherwise), else the local user (`$USER`,
 * `$USERNAME`, else the OS account name), recorded as `NAME (local user)` (`core/github-login.ts`).
 * The check run is created only once the engine accepted the resume, so a mistyped gate or run id never
 * replaces the paused run's check run — and before the engine records the leg, so a check run that cannot
 * be created changes nothing: the run stays paused at its gate (or failed), the decision unspent.
 */
import { existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { isLocalAccountName, localApprover } from "../core/github-login.js";
import { unreachable } from "../core/unreachable.js";
import type { ResumeAction } from "../engine/resume-run.js";
import { EXIT } from "../local-run/exit-codes.js";
import { CliLeg, withLocalProxy } from "../local-run/local-leg.js";
import { type CliIo, checkedRepository, refuseUsage, runsDirFor } from "../local-run/local-setup.js";
import { type CheckRunNotCreated, RunReport } from "../local-run/terminal-report.js";
import { cliSecrets } from "../run/credentials.js";
import { recordedRuntime } from "../run/model-proxy.js";
import { startRun } from "../run/start-run.js";
import { parseOrExit } from "./parse-command.js";
import { parseResumeFlags, RESUME_USAGE, type ResumeFlagAction } from "./parse-resume-flags.js";

/** Runs `resume` and returns the process exit code. */
export async function runCliResume(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOrExit(argv, io, "resume", RESUME_USAGE, parseResumeFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  // The local account is no GitHub login: it is recorded as such, so no renderer prints it as `@root`.
  const local = localUser(io.env);
  const by =
    f.action.kind === "retry-failed"
      ? null
      : (f.by ?? (local === undefined || !isLocalAccountName(local) ? undefined : localApprover(local)));
  const where = await checkedRepository("resume", f, io, {
    runs: true,
    extra:
      by !== undefined
        ? []
        : local === undefined
          ? ["cannot tell who decides the gate: give --by LOGIN"]
          : [
              `the local user ${JSON.stringify(local)} is not an account name (letters, digits, ".", "_", "-" or spaces): give --by LOGIN`,
            ],
  });
  if ("exit" in where) return where.exit;
  const { repoDir } = where;
  const runsDir = runsDirFor(repoDir, f.runsDir, io.cwd);
  const notResumable = verifyRunProblem(join(runsDir, f.runId));
  if (notResumable !== null) return refuseUsage(io, "resume", [notResumable])!;
  const action = engineAction(f.action, by ?? "");
  const secrets = cliSecrets(io.env);
  const report = RunReport.open({ command: "resume", flags: f, io, secrets });
  if (typeof report === "string") return refuseUsage(io, "resume", [report])!;
  let headSha = f.sha;
  if (report.checkRun) {
    const head = await report.headFor(repoDir);
    if ("problem" in head) return refuseUsage(io, "resume", [head.problem])!;
    headSha = head.sha;
  }

  return withLocalProxy(
    io,
    {
      command: "resume",
      runtime: recordedRuntime(join(runsDir, f.runId)),
      codexConfig: f.codexConfig,
      say: (line) => report.line(line),
    },
    async (proxy) => {
      const leg = new CliLeg({ runId: f.runId, repoDir, flags: f, io, secrets, report });
      const result = await startRun(
        {
          mode: {
            kind: "resume",
            runId: f.runId,
            action,
            ...(headSha !== undefined ? { headSha } : {}),
            ...(f.concurrency !== undefined ? { concurrency: f.concurrency } : {}),
          },
          ...leg.requestBase,
        },
        leg.ports(
          {
            onRunStarted: async (id, dir) => {
              if (headSha !== undefined && report.checkRun) {
                const notCreated = await report.start(
                  id,
                  headSha,
                  `Run \`${id}\` resumed: ${describeAction(action)}`,
                );
                // Thrown before the engine records the leg: the run stays as it was (resume-run.ts).
                if (notCreated !== null) throw new CheckRunNotCreatedError(notCreated);
              }
              report.line(`resume run ${id} (${dir}): ${describeAction(action)}`);
            },
            // Before any node of the leg runs: the ceiling this leg spawns under, as the first leg chose it.
            onPlan: (plan) => {
              report.line("tool ceiling (as the run's first leg chose it):");
              report.line(`  ${plan.disclosure}`);
            },
          },
          io.signal,
          proxy,
        ),
      ).catch((error: unknown) => {
        if (error instanceof CheckRunNotCreatedError) return error;
        throw error;
      });
      if (result instanceof CheckRunNotCreatedError) {
        report.error(
          `the check run could not be created: ${result.notCreated.message}\nNothing was run and nothing was recorded: run ${f.runId} is as it was (${action.kind === "retry-failed" ? "run --retry-failed again" : `still waiting at gate "${action.gate}"; decide it again`} once the token can create check runs).`,
        );
        // A refused token is the operator's setup to fix, as in a fresh run (`RunReport.startFresh`).
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
          // A rejected gate keeps the run failed: `resume --retry-failed && deploy` must not go ahead.
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
    },
  );
}

/**
 * Thrown by the resume's `onRunStarted` hook when its check run could not be created: the engine has not
 * recorded the leg yet and releases the run (`resume-run.ts`), so nothing was run or recorded.
 */
class CheckRunNotCreatedError extends Error {
  constructor(readonly notCreated: CheckRunNotCreated) {
    super(`the check run could not be created: ${notCreated.message}`);
  }
}

/** The local user: `$USER`, `$USERNAME`, else the OS account name; `undefined` when none is known. */
export function localUser(env: CliIo["env"]): string | undefined {
  const fromEnv = env.USER ?? env.USERNAME;
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv;
  try {
    const name = userInfo().username;
    return name.trim() !== "" ? name : undefined;
  } catch {
    return undefined;
  }
}

function engineAction(action: ResumeFlagAction, by: string): ResumeAction {
  return action.kind === "retry-failed" ? action : { ...action, by };
}

function describeAction(action: ResumeAction): string {
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

/**
 * Why the run in `runDir` cannot be resumed because it is a `verify` run, or `null` when it is not one.
 * A `verify` run (SPEC §10) writes `ledger.json` (mode `verify`, one "verify (engine)" row) and no
 * `state.json`, so the engine's own answer ("state.json does not exist … was the run refused?") would
 * mislead: the fix is to run `evidence-gate verify` again. An unreadable ledger is left to the engine.
 */
export function verifyRunProblem(runDir: string): string | null {
  if (existsSync(join(runDir, "state.json"))) return null;
  const ledgerPath = join(runDir, "ledger.json");
  if (!existsSync(ledgerPath)) return null;
  let ledger: { mode?: unknown; rows?: unknown };
  try {
    ledger = JSON.parse(readFileSync(ledgerPath, "utf8")) as { mode?: unknown; rows?: unknown };
  } catch {
    return null;
  }
  const rows = Array.isArray(ledger.rows) ? (ledger.rows as { label?: unknown }[]) : [];
  if (ledger.mode !== "verify" && !rows.some((row) => row?.label === "verify (engine)")) return null;
  return `${runDir} is a \`verify\` run (its ledger has one "verify (engine)" row and no state.json): a verify run has no graph to resume or retry; run \`evidence-gate verify\` again`;
}
