/**
 * `evidence-gate auto`: parse flags, run the engine once, print the plan, a line per node and the
 * ledger, optionally post (or record) the check run, and map the result to an exit code (SPEC §2).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type AutoRunResult, runAuto } from "../engine/auto-run.js";
import { mintRunId } from "../engine/run-id.js";
import { startingCommit } from "../evidence/evidence-tree.js";
import { CheckRunClient } from "../github/check-run.js";
import { CheckRunReporter } from "../github/check-run-reporter.js";
import { apiUrlFromEnv, createOctokit, type GateOctokit } from "../github/octokit.js";
import { createRecordingOctokit, type RecordedRequest } from "../github/recording-octokit.js";
import { decideConclusion } from "../ledger/conclusion.js";
import type { Ledger } from "../ledger/ledger.js";
import type { LedgerRow } from "../ledger/model.js";
import { renderLedgerJson } from "../ledger/render-json.js";
import { renderLedgerMarkdown } from "../ledger/render-markdown.js";
import { renderLedgerText } from "../ledger/render-text.js";
import { buildChildEnv } from "../proc/child-env.js";
import { EXIT, exitCodeFor } from "./exit-codes.js";
import { AUTO_USAGE, parseAutoFlags } from "./parse-auto-flags.js";

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
  const token = io.env.GITHUB_TOKEN ?? io.env.GH_TOKEN;
  if (f.repository !== undefined && (token === undefined || token === "")) {
    io.err.write("evidence-gate auto: --repository needs a token in GITHUB_TOKEN to post the check run\n");
    return EXIT.usage;
  }
  const knownSecrets = [token].filter((s): s is string => typeof s === "string" && s !== "");

  // The check run: posted to GitHub with --repository, recorded to a file with --check-run-out.
  let octokit: GateOctokit | null = null;
  let recorded: RecordedRequest[] | null = null;
  let owner = "local";
  let repo = "repository";
  if (f.repository !== undefined) {
    [owner, repo] = f.repository.split("/") as [string, string];
    octokit = createOctokit({ token: token!, baseUrl: apiUrlFromEnv(io.env) });
  } else if (f.checkRunOut !== undefined) {
    const recording = createRecordingOctokit();
    octokit = recording.octokit;
    recorded = recording.requests;
  }
  const runsDir =
    f.runsDir !== undefined ? resolve(io.cwd, f.runsDir) : join(repoDir, ".evidence-gate", "runs");
  if (f.runsDir === undefined) ignoreRunsFolder(join(repoDir, ".evidence-gate"));
  const runId = mintRunId();
  let reporter: CheckRunReporter | null = null;
  const makeReporter = (headSha: string): CheckRunReporter =>
    new CheckRunReporter({
      client: new CheckRunClient({ octokit: octokit!, owner, repo, warn: (m) => io.err.write(`${m}\n`) }),
      name: f.checkName,
      headSha,
      onProgressError: (error) =>
        io.err.write(
          `could not update the check run with progress: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
    });
  if (octokit !== null) {
    let headSha = f.sha;
    if (headSha === undefined) {
      try {
        headSha = (await startingCommit(repoDir, { baseEnv: io.env, knownSecrets })).sha;
      } catch (error) {
        io.err.write(
          `evidence-gate auto: --repo ${repoDir}: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        return EXIT.usage;
      }
    }
    reporter = makeReporter(headSha);
    await reporter.start(runId, `Run \`${runId}\` is planning: ${f.goal.split("\n")[0]}`);
  }

  const line = (text: string): void => {
    io.out.write(`${text}\n`);
  };
  let result: AutoRunResult;
  try {
    result = await runAuto({
      runId,
      goal: f.goal,
      repoDir,
      ...(f.workingDirectory !== undefined ? { workingDirectory: f.workingDirectory } : {}),
      ...(f.verifyCmd !== undefined ? { verifyCmd: f.verifyCmd } : {}),
      verifyTimeoutMs: f.verifyTimeoutMs,
      verifyEnv: f.verifyEnv,
      acceptNoBuildEvidence: f.acceptNoBuildEvidence,
      runtime: "claude",
      ...(f.model !== undefined ? { model: f.model } : {}),
      concurrency: f.concurrency,
      onFail: f.continueOnFail ? "continue" : "halt",
      commit: f.commit,
      runsDir,
      surface: "cli",
      claudeExecutable: f.claudePath ?? "claude",
      modelEnv: () =>
        buildChildEnv({ base: io.env, child: { kind: "model", runtime: "claude" }, knownSecrets }),
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
      const decided = decideConclusion({
        rows: [],
        sinks: [],
        gateSinks: [],
        buildEvidence: { kind: "none-detected" },
        postedCommitTree: null,
        requireEvidence: false,
        end,
      });
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
      if (reporter !== null) {
        if (ledger.postedCommit !== undefined && octokit !== null) {
          // --commit made a new commit: the check run for the starting commit is superseded (SPEC §10).
          await reporter.end(
            "neutral",
            `superseded by ${ledger.postedCommit.sha.slice(0, 7)}`,
            `The nodes' changes were committed as ${ledger.postedCommit.sha}; the evidence is reported on that commit.`,
          );
          reporter = makeReporter(ledger.postedCommit.sha);
          await reporter.start(runId, `Run \`${runId}\`: reporting the verified commit.`);
        }
        await reporter.finish(ledger);
      }
      writeRecorded(f.checkRunOut, recorded, io);
      const markdown = renderLedgerMarkdown(ledger);
      if (f.summaryOut !== undefined) writeFileSync(f.summaryOut, markdown);
      if (f.json) io.out.write(renderLedgerJson(ledger));
      else io.out.write(`\n${renderLedgerText(ledger)}\n`);
      if (f.commit && ledger.postedCommit === undefined && ledger.patch !== undefined) {
        line(
          `--commit: nothing was committed because the run did not pass; the nodes' changes are in ${ledger.patch.path}`,
        );
      }
      line(`ledger: ${result.ledgerPath}`);
      return exitCodeFor(ledger);
    }
    default:
      return unreachable(result);
  }
}

/**
 * The default runs folder lives in the repository; a `.gitignore` holding `*` keeps it out of the evidence
 * tree, the patch and any `--commit` (SPEC §11: "git-ignored by the tool").
 */
function ignoreRunsFolder(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const ignore = join(folder, ".gitignore");
  if (!existsSync(ignore))
    writeFileSync(ignore, "# written by evidence-gate: run directories stay out of git\n*\n");
}

function writeRecorded(path: string | undefined, recorded: RecordedRequest[] | null, io: CliIo): void {
  if (path === undefined || recorded === null) return;
  writeFileSync(path, `${JSON.stringify(recorded, null, 2)}\n`);
  io.out.write(`check-run requests: ${path}\n`);
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

function unreachable(value: never): never {
  throw new Error(`Internal error: unexpected result ${JSON.stringify(value)}`);
}

export type { Ledger };
