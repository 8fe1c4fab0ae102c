/**
 * Flags of the commands that read a saved run back (SPEC §11): `ledger RUN_ID [--json | --markdown]` and
 * `report RUN_ID --repository OWNER/NAME [--sha SHA]`, parsed once into a typed object or refused with
 * every problem named. Both find the run as `run` and `resume` do: `--repo DIR` (default `.`) and
 * `--runs-dir DIR` (default `<repo>/.evidence-gate/runs`).
 */
import type { Parsed } from "./parse-command.js";
import { type FlagReader, onePositional, opt, parseFlags, repositoryFlagProblem } from "./shared-flags.js";

/** Where the saved run is, and which. */
export interface SavedRunFlags {
  readonly runId: string;
  /** `--repo DIR` (default `.`). */
  readonly repo: string;
  /** `--runs-dir DIR`, relative to the command's directory. */
  readonly runsDir?: string;
}

/** `ledger`'s flags: the format (text table by default). */
export interface LedgerFlags extends SavedRunFlags {
  readonly format: "text" | "json" | "markdown";
}

/** `report`'s flags: where the check run is posted. */
export interface ReportCommandFlags extends SavedRunFlags {
  /** `OWNER/NAME`. */
  readonly repository: string;
  /** `--sha` (40 hex); absent = the commit the ledger is about. */
  readonly sha?: string;
  readonly checkName: string;
}

const RUNS_USAGE = `  --repo DIR                   the repository the run ran in (default .)
  --runs-dir DIR               where run directories are (default <repo>/.evidence-gate/runs)
`;

/** Usage text of `ledger`. */
export const LEDGER_USAGE = `usage: evidence-gate ledger RUN_ID [--json | --markdown] [options]

  RUN_ID                       the run (the id \`run\`, \`auto\`, \`verify\` or \`resume\` printed)
  --json                       print the ledger JSON (the ledger artifact, byte for byte)
  --markdown                   print the Markdown ledger (the check run's and job summary's text)
${RUNS_USAGE}
Nothing runs: the ledger is read from <runs-dir>/RUN_ID/ledger.json. A run still in progress (its
run.lock held by a live process) has no ledger yet.

Exit: 0 printed, 64 usage error (unknown run id, a run in progress, a run directory of another version).
`;

/** Usage text of `report`. */
export const REPORT_COMMAND_USAGE = `usage: evidence-gate report RUN_ID --repository OWNER/NAME [--sha SHA] [options]

  RUN_ID                       the run whose saved ledger is posted
  --repository OWNER/NAME      the repository to post the check run to (token from GITHUB_TOKEN;
                               GITHUB_API_URL for GitHub Enterprise Server)
  --sha SHA                    the commit to post on (default: the commit the ledger is about; any
                               other commit is refused)
  --check-name NAME            check run name (default evidence-gate)
${RUNS_USAGE}
Posting twice on one commit leaves one check run: an evidence-gate check run already on that commit
is taken over and completed with this ledger.

Exit: 0 posted, 1 the API refused the write, 64 usage error.
`;

function readSavedRun(f: FlagReader, errors: string[], command: "ledger" | "report"): SavedRunFlags {
  const runId = onePositional(f, errors, {
    missing: `${command} needs the run id: evidence-gate ${command} RUN_ID`,
    extra: (others) => `${command} reads one run; also got ${others}: give one RUN_ID`,
  });
  return { runId: runId ?? "", repo: f.str("repo") ?? ".", ...opt("runsDir", f.str("runs-dir")) };
}

const RUNS_OPTIONS = { repo: { type: "string" }, "runs-dir": { type: "string" } } as const;

/** Parses `ledger`'s argv (after the subcommand). */
export function parseLedgerFlags(argv: readonly string[]): Parsed<LedgerFlags> {
  return parseFlags(
    argv,
    { json: { type: "boolean" }, markdown: { type: "boolean" }, ...RUNS_OPTIONS },
    true,
    (f, errors) => {
      const run = readSavedRun(f, errors, "ledger");
      if (f.bool("json") && f.bool("markdown"))
        errors.push("--json and --markdown were both given: give one format");
      return { ...run, format: f.bool("json") ? "json" : f.bool("markdown") ? "markdown" : "text" };
    },
  );
}

/** Parses `report`'s argv (after the subcommand). */
export function parseReportFlags(argv: readonly string[]): Parsed<ReportCommandFlags> {
  return parseFlags(
    argv,
    {
      repository: { type: "string" },
      sha: { type: "string" },
      "check-name": { type: "string" },
      ...RUNS_OPTIONS,
    },
    true,
    (f, errors) => {
      const run = readSavedRun(f, errors, "report");
      const repository = f.str("repository");
      if (repository === undefined)
        errors.push("report needs --repository OWNER/NAME: the repository to post the check run to");
      else {
        const problem = repositoryFlagProblem(repository);
        if (problem !== null) errors.push(problem);
      }
      const sha = f.str("sha");
      if (sha !== undefined && !/^[0-9a-f]{40}$/i.test(sha))
        errors.push(`--sha ${JSON.stringify(sha)}: give the full 40-hex commit SHA`);
      const checkName = f.str("check-name");
      if (checkName !== undefined && checkName.trim() === "")
        errors.push("--check-name is empty: give the check run's name");
      return {
        ...run,
        repository: repository ?? "",
        ...opt("sha", sha),
        checkName: checkName ?? "evidence-gate",
      };
    },
  );
}
