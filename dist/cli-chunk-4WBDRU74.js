#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  renderLedgerText
} from "./cli-chunk-5KWKE5IC.js";
import {
  parseLedgerJson,
  renderLedgerMarkdown
} from "./cli-chunk-QIRV2OXE.js";
import {
  RUN_STATE_SCHEMA_VERSION,
  liveLockHolder
} from "./cli-chunk-PWLUMNAY.js";
import {
  isRunId
} from "./cli-chunk-65TFX77S.js";
import {
  onePositional,
  opt,
  parseFlags,
  repositoryFlagProblem
} from "./cli-chunk-OU6P7TWF.js";

// src/local-run/saved-ledger.ts
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
function readSavedLedger(runsDir, runId) {
  if (!isRunId(runId)) {
    return {
      problem: `${JSON.stringify(runId)} is not a run id (YYYYMMDD-HHMMSS-<6 hex>, as \`run\` printed it)${knownRuns(runsDir)}`
    };
  }
  const runDir = join(runsDir, runId);
  if (!existsSync(runDir) || !statSync(runDir).isDirectory()) {
    return {
      problem: `no run ${runId} in ${runsDir}: give the id a run printed (or --runs-dir where it ran)${knownRuns(runsDir)}`
    };
  }
  const holder = liveLockHolder(runDir);
  if (holder !== null) {
    return {
      problem: `run ${runId} is still in progress (process ${holder} holds ${join(runDir, "run.lock")}): its ledger is written when it ends; wait for it, or stop it first`
    };
  }
  const statePath = join(runDir, "state.json");
  if (existsSync(statePath)) {
    let version;
    try {
      version = JSON.parse(readFileSync(statePath, "utf8"))?.schema_version;
    } catch (error) {
      return {
        problem: `${statePath} is not valid JSON (${error instanceof Error ? error.message : String(error)}): the run directory is damaged`
      };
    }
    if (version !== RUN_STATE_SCHEMA_VERSION) {
      return {
        problem: `${statePath} has schema_version ${JSON.stringify(version)}; this evidence-gate reads ${RUN_STATE_SCHEMA_VERSION}: read the run with the evidence-gate version that wrote it`
      };
    }
  }
  const path = join(runDir, "ledger.json");
  if (!existsSync(path)) {
    return {
      problem: `run ${runId} has no ledger (${path} does not exist): it stopped before its end (a crash or a kill); \`evidence-gate resume ${runId} --retry-failed\` finishes it`
    };
  }
  const text = readFileSync(path, "utf8");
  const parsed = parseLedgerJson(text);
  if (!parsed.ok) {
    return {
      problem: `${path} is not a ledger this evidence-gate reads: ${parsed.issues.slice(0, 3).join("; ")}`
    };
  }
  const { ledger } = parsed;
  if (ledger.conclusion === null) {
    return { problem: `${path} holds an unfinished ledger (no conclusion): the run did not end` };
  }
  if (ledger.runId !== runId) {
    return {
      problem: `${path} is the ledger of run ${ledger.runId}, not ${runId}: the run directory was moved`
    };
  }
  return { ledger: { ...ledger, conclusion: ledger.conclusion }, text, path };
}
function renderSavedLedger(saved, format) {
  switch (format) {
    case "json":
      return saved.text;
    case "markdown":
      return renderLedgerMarkdown(saved.ledger);
    default:
      return `${renderLedgerText(saved.ledger)}
`;
  }
}
function knownRuns(runsDir) {
  let ids;
  try {
    ids = readdirSync(runsDir).filter(isRunId).sort().reverse();
  } catch {
    return "";
  }
  if (ids.length === 0) return "";
  return `; runs in ${runsDir}: ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", \u2026" : ""}`;
}

// src/cli/parse-saved-run-flags.ts
var RUNS_USAGE = `  --repo DIR                   the repository the run ran in (default .)
  --runs-dir DIR               where run directories are (default <repo>/.evidence-gate/runs)
`;
var LEDGER_USAGE = `usage: evidence-gate ledger RUN_ID [--json | --markdown] [options]

  RUN_ID                       the run (the id \`run\`, \`auto\`, \`verify\` or \`resume\` printed)
  --json                       print the ledger JSON (the ledger artifact, byte for byte)
  --markdown                   print the Markdown ledger (the check run's and job summary's text)
${RUNS_USAGE}
Nothing runs: the ledger is read from <runs-dir>/RUN_ID/ledger.json. A run still in progress (its
run.lock held by a live process) has no ledger yet.

Exit: 0 printed, 64 usage error (unknown run id, a run in progress, a run directory of another version).
`;
var REPORT_COMMAND_USAGE = `usage: evidence-gate report RUN_ID --repository OWNER/NAME [--sha SHA] [options]

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
function readSavedRun(f, errors, command) {
  const runId = onePositional(f, errors, {
    missing: `${command} needs the run id: evidence-gate ${command} RUN_ID`,
    extra: (others) => `${command} reads one run; also got ${others}: give one RUN_ID`
  });
  return { runId: runId ?? "", repo: f.str("repo") ?? ".", ...opt("runsDir", f.str("runs-dir")) };
}
var RUNS_OPTIONS = { repo: { type: "string" }, "runs-dir": { type: "string" } };
function parseLedgerFlags(argv) {
  return parseFlags(
    argv,
    { json: { type: "boolean" }, markdown: { type: "boolean" }, ...RUNS_OPTIONS },
    true,
    (f, errors) => {
      const run = readSavedRun(f, errors, "ledger");
      if (f.bool("json") && f.bool("markdown"))
        errors.push("--json and --markdown were both given: give one format");
      return { ...run, format: f.bool("json") ? "json" : f.bool("markdown") ? "markdown" : "text" };
    }
  );
}
function parseReportFlags(argv) {
  return parseFlags(
    argv,
    {
      repository: { type: "string" },
      sha: { type: "string" },
      "check-name": { type: "string" },
      ...RUNS_OPTIONS
    },
    true,
    (f, errors) => {
      const run = readSavedRun(f, errors, "report");
      const repository = f.str("repository");
      if (repository === void 0)
        errors.push("report needs --repository OWNER/NAME: the repository to post the check run to");
      else {
        const problem = repositoryFlagProblem(repository);
        if (problem !== null) errors.push(problem);
      }
      const sha = f.str("sha");
      if (sha !== void 0 && !/^[0-9a-f]{40}$/i.test(sha))
        errors.push(`--sha ${JSON.stringify(sha)}: give the full 40-hex commit SHA`);
      const checkName = f.str("check-name");
      if (checkName !== void 0 && checkName.trim() === "")
        errors.push("--check-name is empty: give the check run's name");
      return {
        ...run,
        repository: repository ?? "",
        ...opt("sha", sha),
        checkName: checkName ?? "evidence-gate"
      };
    }
  );
}

export {
  readSavedLedger,
  renderSavedLedger,
  LEDGER_USAGE,
  REPORT_COMMAND_USAGE,
  parseLedgerFlags,
  parseReportFlags
};
