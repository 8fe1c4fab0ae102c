/**
 * `evidence-gate report RUN_ID --repository OWNER/NAME [--sha SHA]` (SPEC §11): a saved run's ledger
 * posted as a completed check run, without re-running it — the token from `GITHUB_TOKEN` (else
 * `GH_TOKEN`), the API from `GITHUB_API_URL`. One check run per check name and head SHA, as the action
 * keeps it (`src/local-run/report-saved-ledger.ts`).
 */

import { EXIT } from "../local-run/exit-codes.js";
import { type CliIo, refuseUsage, savedRunsDir } from "../local-run/local-setup.js";
import { reportableCommits, reportSavedLedger } from "../local-run/report-saved-ledger.js";
import { readSavedLedger } from "../local-run/saved-ledger.js";
import { cliSecrets } from "../run/credentials.js";
import { parseOrExit } from "./parse-command.js";
import { parseReportFlags, REPORT_COMMAND_USAGE } from "./parse-saved-run-flags.js";

/** Runs `report` and returns the process exit code (0 posted, 1 the write was refused, 64 usage error). */
export async function runCliReport(
  argv: readonly string[],
  io: Pick<CliIo, "cwd" | "env" | "out" | "err">,
): Promise<number> {
  const parsed = parseOrExit(argv, io, "report", REPORT_COMMAND_USAGE, parseReportFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const secrets = cliSecrets(io.env);
  if (secrets.githubToken === undefined)
    return refuseUsage(io, "report", [
      "report needs a token in GITHUB_TOKEN (or GH_TOKEN) with checks: write on the repository",
    ])!;
  const saved = readSavedLedger(await savedRunsDir(io, f.repo, f.runsDir), f.runId);
  if ("problem" in saved) return refuseUsage(io, "report", [saved.problem])!;
  const sha = f.sha ?? reportableCommits(saved.ledger)[0];
  if (sha === undefined)
    return refuseUsage(io, "report", [
      `run ${f.runId}'s ledger names no commit: give --sha with the commit it verified`,
    ])!;

  const result = await reportSavedLedger({
    ledger: saved.ledger,
    token: secrets.githubToken,
    env: io.env,
    repository: f.repository,
    sha,
    checkName: f.checkName,
    redact: secrets.redactor.text,
    warn: (m) => io.err.write(`${secrets.redactor.text(m)}\n`),
  });
  switch (result.kind) {
    case "usage_error":
      return refuseUsage(io, "report", [result.message])!;
    case "write_failed":
      io.err.write(`evidence-gate report: the check run could not be posted: ${result.message}\n`);
      return EXIT.failed;
    case "posted":
      io.out.write(
        `${result.tookOver ? "updated" : "created"} check run ${result.ref.id}${result.ref.htmlUrl ? ` (${result.ref.htmlUrl})` : ""} on ${sha}: ${saved.ledger.conclusion.conclusion}\n`,
      );
      return EXIT.passed;
  }
}
