/**
 * `evidence-gate auto`: parse flags, run the engine once, print the plan, a line per node and the
 * ledger, optionally post (or record) the check run, and map the result to an exit code (SPEC §2).
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type AutoRunResult, runAuto } from "../engine/auto-run.js";
import { liesInRepository } from "../engine/outside-writes.js";
import { mintRunId } from "../engine/run-id.js";
import { startingCommit } from "../evidence/evidence-tree.js";
import { CheckRunClient, CheckRunWriteError } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import { apiUrlFromEnv, createOctokit, type GateOctokit } from "../github/octokit.js";
import { createRecordingOctokit, type RecordedRequest } from "../github/recording-octokit.js";
import { decideEndWithoutRows } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import type { LedgerRow } from "../ledger/model.js";
import { createRedactor } from "../ledger/redact.js";
import { renderLedgerJson } from "../ledger/render-json.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { unreachable } from "../ledger/unreachable.js";
import { autoRunPolicy, policySummary, readWorkingTreePolicy } from "../policy/policy-file.js";
import { buildChildEnv } from "../proc/child-env.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { AUTO_USAGE, type AutoFlags, parseAutoFlags } from "./parse-auto-flags.js";

/** Credentials the CLI may find in its environment: each value is a known secret (SPEC §9). */
const CREDENTIAL_VARIABLES = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
] as const;
/** The claude CLI's own credentials among them, handed to the model child only. */
const CLAUDE_CREDENTIALS = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"] as const;

export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  /** Aborted on SIGINT/SIGTERM: running nodes are stopped and the run ends cancelled (exit 130). */
  readonly signal?: AbortSignal;
}

/** Runs `auto` and returns the process exit code. */
export async function runCliAuto(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(AUTO_USAGE);
    return EXIT.passed;
  }
  const parsed = parseAutoFlags(argv);
  if (!parsed.ok) {
    io.err.write(`evidence-gate auto: ${parsed.errors.join("\nevidence-gate auto: ")}\n\n${AUTO_USAGE}`);
    return EXIT.usage;
  }
  const f = parsed.flags;
  const repoDir = resolve(io.cwd, f.repo);
  const pathProblems = checkPaths(repoDir, f, io.cwd);
  if (pathProblems.length > 0) {
    io.err.write(`evidence-gate auto: ${pathProblems.join("\nevidence-gate auto: ")}\n`);
    return EXIT.usage;
  }
  // The maintainers' policy file, read from the working tree in the CLI (SPEC §11); a malformed one stops.
  const policyFile = await readWorkingTreePolicy(repoDir);
  if (!policyFile.ok) {
    io.err.write(`evidence-gate auto: ${policyFile.errors.join("\nevidence-gate auto: ")}\n`);
    return EXIT.usage;
  }
  const policy = autoRunPolicy(policyFile);
  if (policy !== undefined)
    (f.json ? io.err : io.out).write(`policy: ${policy.source}: ${policySummary(policyFile.policy)}\n`);
  const token = io.env.GITHUB_TOKEN ?? io.env.GH_TOKEN;
  if (f.repository !== undefined && (token === undefined || token === "")) {
    io.err.write("evidence-gate auto: --repository needs a token in GITHUB_TOKEN to post the check run\n");
    return EXIT.usage;
  }
  // Every credential in the environment is a known secret: dropped by value from every child's environment
  // and redacted from everything the run writes, prints or posts (SPEC §9). A verify command can read this
  // process's initial environment through /proc and print it; redaction keeps that out of the outputs.
  const knownSecrets = CREDENTIAL_VARIABLES.map((name) => io.env[name]).filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  const redactor = createRedactor(knownSecrets);
  // The model child still needs its own credential: value scrubbing would drop it, so it is set explicitly.
  const modelCredentials: Record<string, string> = {};
  for (const name of CLAUDE_CREDENTIALS) {
    const value = io.env[name];
    if (value !== undefined && value !== "") modelCredentials[name] = value;
  }

  // The check run: posted to GitHub with --repository, recorded to a file with --check-run-out.
  let octokit: GateOctokit | null = null;
  let recorded: RecordedRequest[] | null = null;
  let owner = "local";
  let repo = "repository";
  if (f.repository !== undefined) {
    [owner, repo] = f.repository.split("/") as [string, string];
    const apiUrl = apiUrlFromEnv(io.env);
    if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
      io.err.write(
        `evidence-gate auto: GITHUB_API_URL ${JSON.stringify(apiUrl)} is not an http(s) URL: unset it for github.com, or give your GitHub Enterprise Server's API URL\n`,
      );
      return EXIT.usage;
    }
    octokit = createOctokit({ token: token!, baseUrl: apiUrl });
  } else if (f.checkRunOut !== undefined) {
    const recording = createRecordingOctokit();
    octokit = recording.octokit;
    recorded = recording.requests;
  }
  const runsDir =
    f.runsDir !== undefined ? resolve(io.cwd, f.runsDir) : join(repoDir, ".evidence-gate", "runs");
  const runId = mintRunId();
  let reporter: CheckRunReporter | null = null;
  const makeReporter = (headSha: string): CheckRunReporter =>
    new CheckRunReporter({
      client: new CheckRunClient({
        octokit: octokit!,
        owner,
        repo,
        warn: (m) => io.err.write(`${m}\n`),
        redact: redactor.text,
      }),
      name: f.checkName,
      headSha,
      onProgressError: (error) =>
        io.err.write(
          `could not update the check run with progress: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
    });
  if (octokit !== null) {
    let start: Awaited<ReturnType<typeof startingCommit>>;
    try {
      start = await startingCommit(repoDir, { baseEnv: io.env, knownSecrets });
    } catch (error) {
      io.err.write(
        `evidence-gate auto: --repo ${repoDir}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return EXIT.usage;
    }
    // The check is posted on the commit the run verifies: HEAD, or — when HEAD is a test merge commit —
    // the PR head merged into it (its second parent). Any other SHA would carry a verdict about another tree.
    const headSha = f.sha ?? start.sha;
    const allowed = [start.sha, ...(start.parents.length === 2 ? [start.parents[1]!] : [])];
    if (!allowed.some((sha) => sha.toLowerCase() === headSha.toLowerCase())) {
      io.err.write(
        `evidence-gate auto: --sha ${headSha} is not the commit this run verifies: give HEAD (${start.sha})${start.parents.length === 2 ? ` or the head merged into it (${start.parents[1]})` : ""}, or leave --sha out\n`,
      );
      return EXIT.usage;
    }
    reporter = makeReporter(headSha);
    try {
      await reporter.start(runId, `Run \`${runId}\` is starting: ${f.goal.split("\n")[0]}`);
    } catch (error) {
      // Nothing ran yet: say why the check run could not be created, without a stack trace.
      if (!(error instanceof CheckRunWriteError)) throw error;
      io.err.write(`evidence-gate auto: ${redactor.text(error.message)}\nNothing was run.\n`);
      return EXIT.failed;
    }
  }

  // With --json, stdout carries the ledger JSON alone; progress lines go to stderr.
  const line = (text: string): void => {
    (f.json ? io.err : io.out).write(`${text}\n`);
  };
  let result: AutoRunResult;
  try {
    result = await runAuto({
      runId,
      ...(f.sha !== undefined ? { postedHeadSha: f.sha } : {}),
      goal: f.goal,
      repoDir,
      ...(f.workingDirectory !== undefined ? { workingDirectory: f.workingDirectory } : {}),
      ...(f.verifyCmd !== undefined ? { verifyCmd: f.verifyCmd } : {}),
      verifyTimeoutMs: f.verifyTimeoutMs,
      verifyEnv: f.verifyEnv,
      acceptNoBuildEvidence: f.acceptNoBuildEvidence,
      ...(policy !== undefined ? { policy } : {}),
      runtime: "claude",
      ...(f.model !== undefined ? { model: f.model } : {}),
      concurrency: f.concurrency,
      onFail: f.continueOnFail ? "continue" : "halt",
      commit: f.commit,
      runsDir,
      surface: "cli",
      claudeExecutable: f.claudePath ?? "claude",
      modelEnv: () =>
        buildChildEnv({
          base: io.env,
          child: { kind: "model", runtime: "claude" },
          knownSecrets,
          set: modelCredentials,
        }),
      baseEnv: io.env,
      knownSecrets,
      plannerTimeoutMs: 20 * 60_000,
      ...(io.signal ? { signal: io.signal } : {}),
      hooks: {
        onRunStarted: (id, dir) => line(`run ${id} (${dir})`),
        onPlan: (plan) => {
          line(
            `plan: ${plan.nodes.length} node${plan.nodes.length === 1 ? "" : "s"}${plan.repaired ? " (re-planned once after a refusal)" : ""}`,
          );
          for (const node of plan.nodes) {
            const deps = node.dependsOn.length > 0 ? ` ← ${node.dependsOn.join(", ")}` : "";
            const verify = plan.sinkCommands.find((s) => s.nodeId === node.id);
            line(
              `  ${node.id}${deps}  [${node.allowedTools.join(", ")}]${verify ? `  verify: ${verify.command}` : ""}`,
            );
          }
          line(
            plan.buildEvidence.kind === "attached"
              ? `build evidence: ${plan.buildEvidence.command} (engine-run at every sink)`
              : "build evidence: NONE — every verdict below is the model's, about its own work",
          );
          line(indent(plan.disclosure));
        },
        onNodeStarted: (id) => line(`… ${id} started`),
        onNodeVerifying: (id, command) => line(`… ${id} verifying: ${command}`),
        onNodeFinished: (row) => line(nodeLine(row)),
        onProgress: async (ledger, kind) => {
          await reporter?.progress(ledger, kind === "plan");
        },
      },
    });
  } catch (error) {
    if (reporter !== null && !reporter.completed) {
      await reporter.end(
        "failure",
        "evidence-gate: the engine crashed",
        `The run \`${runId}\` ended with an internal error: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    writeRecorded(f.checkRunOut, recorded, io);
    throw error;
  }

  switch (result.kind) {
    case "usage_error":
    case "refused": {
      const end =
        result.kind === "refused"
          ? { kind: "refused" as const, reason: "build-evidence" as const, message: result.message }
          : { kind: "usage-error" as const, message: result.message };
      const decided = decideEndWithoutRows(end);
      io.err.write(`evidence-gate auto: ${result.message}\n`);
      if (reporter !== null)
        await reporter.end(decided.conclusion, decided.title, `${decided.title}\n\n${result.message}`);
      writeRecorded(f.checkRunOut, recorded, io);
      if (f.summaryOut !== undefined) writeFileSync(f.summaryOut, `# evidence-gate\n\n${result.message}\n`);
      line(`conclusion: ${decided.conclusion}`);
      return result.kind === "refused" ? EXIT.refused : EXIT.usage;
    }
    case "finished": {
      const ledger = result.ledger;
      let postError: string | null = null;
      if (reporter !== null) {
        try {
          if (ledger.postedCommit !== undefined && octokit !== null) {
            // --commit made a new commit: the check run for the starting commit is superseded (SPEC §10).
            await reporter.end(
              "neutral",
              `superseded by ${ledger.postedCommit.sha.slice(0, 7)}`,
              `The nodes' changes were committed as ${ledger.postedCommit.sha}; the evidence is reported on that commit.`,
            );
            reporter = makeReporter(ledger.postedCommit.sha);
            await reporter.start(
              runId,
              `Run \`${runId}\`: reporting the verified commit.`,
              "evidence-gate: reporting",
            );
          }
          await reporter.finish(ledger);
        } catch (error) {
          // The ledger is still printed and written below; the failed write is reported and fails the command.
          if (!(error instanceof CheckRunWriteError)) throw error;
          postError = redactor.text(error.message);
        }
      }
      writeRecorded(f.checkRunOut, recorded, io);
      const markdown = renderLedgerMarkdown(ledger);
      if (f.summaryOut !== undefined) writeFileSync(f.summaryOut, markdown);
      if (f.json) io.out.write(renderLedgerJson(ledger));
      else io.out.write(`\n${renderLedgerText(ledger)}\n`);
      if (f.commit && ledger.postedCommit === undefined && ledger.patch !== undefined) {
        const why = ledger.patch.holdsSecret
          ? "the changes hold a known secret (a token or model key), which is never committed"
          : ledger.patch.notCommittedBecause !== undefined
            ? `${ledger.patch.notCommittedBecause} (${ledger.conclusion?.title ?? "see the ledger"})`
            : "the run did not pass";
        line(
          `--commit: nothing was committed because ${why}; the nodes' changes are in ${ledger.patch.path}`,
        );
      }
      line(`ledger: ${result.ledgerPath}`);
      if (postError !== null) {
        io.err.write(
          `evidence-gate auto: the run finished but its check run could not be posted: ${postError}\n`,
        );
        return EXIT.failed;
      }
      return exitCodeFor(ledger);
    }
    default:
      return unreachable(result);
  }
}

/** Paths the run will need, checked before anything runs or is spent. */
function checkPaths(repoDir: string, f: AutoFlags, cwd: string): string[] {
  const problems: string[] = [];
  const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();
  if (!existsSync(repoDir)) problems.push(`--repo ${repoDir} does not exist: give the repository's folder`);
  else if (!isDir(repoDir)) problems.push(`--repo ${repoDir} is not a folder: give the repository's folder`);
  if (f.workingDirectory !== undefined) {
    const wd = resolve(repoDir, f.workingDirectory);
    if (!liesInRepository(wd, { cwd: repoDir, repoRoot: repoDir })) {
      problems.push(
        `--working-directory ${f.workingDirectory} is outside --repo ${repoDir}: give a sub-folder of the repository`,
      );
    } else if (!isDir(wd)) {
      problems.push(`--working-directory ${f.workingDirectory} is not a folder inside ${repoDir}`);
    }
  }
  for (const [flag, value] of [
    ["--check-run-out", f.checkRunOut],
    ["--summary-out", f.summaryOut],
  ] as const) {
    if (value === undefined) continue;
    const target = resolve(cwd, value);
    if (isDir(target)) problems.push(`${flag} ${value} is a folder: give a file path`);
    else if (!isDir(dirname(target)))
      problems.push(`${flag} ${value}: the folder ${dirname(target)} does not exist`);
  }
  return problems;
}

function writeRecorded(path: string | undefined, recorded: RecordedRequest[] | null, io: CliIo): void {
  if (path === undefined || recorded === null) return;
  writeFileSync(path, `${JSON.stringify(recorded, null, 2)}\n`);
  // Progress, not the result: on stderr, so stdout stays the ledger alone under --json.
  io.err.write(`check-run requests: ${path}\n`);
}

function nodeLine(row: LedgerRow): string {
  const cost = row.costUsd === null ? "unknown" : `$${row.costUsd.toFixed(4)}`;
  const secs = `${(row.durationMs / 1000).toFixed(1)}s`;
  const verdict =
    row.verdict === "PASS"
      ? `PASS (${row.qualifier})`
      : row.verdict === "FAIL"
        ? `FAIL ${row.cause}`
        : "SKIPPED";
  return `${row.verdict === "PASS" ? "✓" : "✗"} ${row.nodeId}  ${verdict}  ${cost}  ${secs}  ${row.detail}`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

export type { Ledger };
