#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  REPORT_COMMAND_USAGE,
  parseReportFlags,
  readSavedLedger
} from "./cli-chunk-4WBDRU74.js";
import "./cli-chunk-5KWKE5IC.js";
import {
  CheckRunClient,
  CheckRunReporter,
  CheckRunWriteError,
  apiUrlFromEnv,
  octokitFromEnv
} from "./cli-chunk-SUJFGUPH.js";
import "./cli-chunk-QIRV2OXE.js";
import "./cli-chunk-NXCD5NAZ.js";
import "./cli-chunk-PWLUMNAY.js";
import "./cli-chunk-65TFX77S.js";
import {
  cliSecrets,
  parseOrExit,
  refuseUsage,
  savedRunsDir
} from "./cli-chunk-OU6P7TWF.js";
import "./cli-chunk-NJKI2YPK.js";
import {
  EXIT
} from "./cli-chunk-RGEBZGUA.js";
import "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";

// src/local-run/report-saved-ledger.ts
function reportableCommits(ledger) {
  if (ledger.postedCommit !== void 0) return [ledger.postedCommit.sha.toLowerCase()];
  return [
    ...new Set(
      [ledger.headSha, ledger.startingCommit?.sha].filter((s) => s !== void 0).map((s) => s.toLowerCase())
    )
  ];
}
async function reportSavedLedger(o) {
  const apiUrl = apiUrlFromEnv(o.env);
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    return {
      kind: "usage_error",
      message: `GITHUB_API_URL ${JSON.stringify(apiUrl)} is not an http(s) URL: unset it for github.com, or give your GitHub Enterprise Server's API URL`
    };
  }
  const allowed = reportableCommits(o.ledger);
  if (!allowed.includes(o.sha.toLowerCase())) {
    return {
      kind: "usage_error",
      message: allowed.length === 0 ? `the ledger of run ${o.ledger.runId} names no commit, so it cannot be tied to ${o.sha}` : `run ${o.ledger.runId}'s ledger is about ${allowed.join(" or ")}, not ${o.sha}: give --sha ${allowed[0]} (a verdict about one tree is never posted on another commit)`
    };
  }
  const [owner, repo] = o.repository.split("/");
  const reporter = new CheckRunReporter({
    client: new CheckRunClient({
      octokit: octokitFromEnv(o.token, o.env),
      owner,
      repo,
      warn: o.warn,
      redact: o.redact,
      surface: "cli"
    }),
    name: o.checkName,
    headSha: o.sha
  });
  try {
    const opened = await reporter.open(
      o.ledger.runId,
      `Run \`${o.ledger.runId}\`: posting its saved ledger.`,
      "evidence-gate: reporting"
    );
    const ref = await reporter.finish(o.ledger);
    return { kind: "posted", ref, tookOver: opened.tookOver !== null };
  } catch (error) {
    if (!(error instanceof CheckRunWriteError)) throw error;
    return { kind: "write_failed", message: o.redact(error.message) };
  }
}

// src/cli/report-command.ts
async function runCliReport(argv, io) {
  const parsed = parseOrExit(argv, io, "report", REPORT_COMMAND_USAGE, parseReportFlags);
  if ("exit" in parsed) return parsed.exit;
  const f = parsed.flags;
  const secrets = cliSecrets(io.env);
  if (secrets.githubToken === void 0)
    return refuseUsage(io, "report", [
      "report needs a token in GITHUB_TOKEN (or GH_TOKEN) with checks: write on the repository"
    ]);
  const saved = readSavedLedger(await savedRunsDir(io, f.repo, f.runsDir), f.runId);
  if ("problem" in saved) return refuseUsage(io, "report", [saved.problem]);
  const sha = f.sha ?? reportableCommits(saved.ledger)[0];
  if (sha === void 0)
    return refuseUsage(io, "report", [
      `run ${f.runId}'s ledger names no commit: give --sha with the commit it verified`
    ]);
  const result = await reportSavedLedger({
    ledger: saved.ledger,
    token: secrets.githubToken,
    env: io.env,
    repository: f.repository,
    sha,
    checkName: f.checkName,
    redact: secrets.redactor.text,
    warn: (m) => io.err.write(`${secrets.redactor.text(m)}
`)
  });
  switch (result.kind) {
    case "usage_error":
      return refuseUsage(io, "report", [result.message]);
    case "write_failed":
      io.err.write(`evidence-gate report: the check run could not be posted: ${result.message}
`);
      return EXIT.failed;
    case "posted":
      io.out.write(
        `${result.tookOver ? "updated" : "created"} check run ${result.ref.id}${result.ref.htmlUrl ? ` (${result.ref.htmlUrl})` : ""} on ${sha}: ${saved.ledger.conclusion.conclusion}
`
      );
      return EXIT.passed;
  }
}
export {
  runCliReport
};
