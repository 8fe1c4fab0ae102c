/**
 * `evidence-gate verify` (SPEC §10, §11): the smallest gate — no model; the engine runs the verify command
 * once on the working tree (`runVerifyOnly`), prints the one-row ledger and exits 0 passed / 1 failed (64
 * usage error). The command is `--verify-cmd`, else the working tree's policy file's `verify-cmd`.
 * Reporting (`--json`, `--repository`, `--check-run-out`, `--summary-out`) is `auto`'s.
 */

import { shownCommand } from "../core/shown-command.js";
import { chooseVerifyCommand, emptyVerifyCommandProblem } from "../evidence/verify-choice.js";
import { CliLeg } from "../local-run/local-leg.js";
import { type CliIo, checkedRepository, refuseUsage } from "../local-run/local-setup.js";
import { prepareFreshRun } from "../local-run/terminal-report.js";
import { autoRunPolicy } from "../policy/policy-file.js";
import type { RunTimeout } from "../run/request.js";
import { readVerifyEnv } from "../run/request-fields.js";
import { startRun } from "../run/start-run.js";
import {
  REPORT,
  RUN_TIMEOUT,
  VERIFY_BASE,
  VERIFY_REPEAT,
  VERIFY_TIMEOUT,
  type VerifyBaseFlags,
} from "./flag-groups.js";
import { type Parsed, parseOrExit } from "./parse-command.js";
import { opt, parseFlags, type ReportFlags } from "./shared-flags.js";

export interface VerifyFlags extends ReportFlags, VerifyBaseFlags {
  readonly verifyCmd?: string;
  readonly verifyTimeoutMs: number;
  readonly verifyEnv: readonly string[];
  /** `--verify-repeat N` (1–10); absent = the policy's, else once. */
  readonly verifyRepeat?: number;
  readonly workingDirectory?: string;
  readonly repo: string;
  readonly runsDir?: string;
  /** `--timeout DURATION`: the run's time bound (exit 124). */
  readonly timeout?: RunTimeout;
}

export const VERIFY_USAGE = `usage: evidence-gate verify [--verify-cmd CMD] [options]

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

/** Parses `verify`'s argv (after the subcommand). */
export function parseVerifyFlags(argv: readonly string[]): Parsed<VerifyFlags> {
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
      ...REPORT.options,
    },
    false,
    (f, errors) => {
      const verifyCmd = f.str("verify-cmd");
      const empty =
        verifyCmd === undefined
          ? null
          : emptyVerifyCommandProblem(verifyCmd, { surface: "cli", declaredBy: "input" });
      if (empty !== null) errors.push(empty);
      const verifyEnv = readVerifyEnv(
        f.str("verify-env"),
        { label: "--verify-env", separators: /,/ },
        errors,
      );
      const { verifyTimeoutMs } = VERIFY_TIMEOUT.read(f, errors);
      return {
        ...opt("verifyCmd", verifyCmd),
        verifyTimeoutMs: verifyTimeoutMs ?? 10 * 60_000,
        verifyEnv,
        ...VERIFY_REPEAT.read(f, errors),
        ...VERIFY_BASE.read(f, errors),
        ...opt("workingDirectory", f.str("working-directory")),
        repo: f.str("repo") ?? ".",
        ...opt("runsDir", f.str("runs-dir")),
        ...RUN_TIMEOUT.read(f, errors),
        ...REPORT.read(f, errors),
      };
    },
  );
}

/** Runs `verify` and returns the process exit code. */
export async function runCliVerify(argv: readonly string[], io: CliIo): Promise<number> {
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
    surface: "cli",
  });
  if (verify.kind === "none") {
    return refuseUsage(io, "verify", [
      "no verify command: give --verify-cmd CMD, or verify-cmd in .github/evidence-gate.yml",
    ])!;
  }
  if (verify.kind === "empty") return refuseUsage(io, "verify", [verify.message])!;
  const leg = await CliLeg.startFresh({
    repoDir,
    flags: {
      repo: f.repo,
      ...opt("runsDir", f.runsDir),
      commit: false,
      codexConfig: [],
      ...opt("timeout", f.timeout),
    },
    io,
    secrets,
    report,
    what: `verify: ${shownCommand(verify.command)}`,
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
      ...(f.verifyBase ? { verifyBase: true } : {}),
      ...opt("verifyBaseRef", f.baseRef),
      ...opt("testReports", f.testReports),
      ...opt("policy", policy),
      ...opt("postedHeadSha", f.sha),
    },
    leg.ports(),
  );
  return leg.conclude(outcome);
}
