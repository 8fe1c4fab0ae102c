/**
 * What a test reads back from one `evidence-gate auto | run | resume` command, however it ran: the CLI
 * in-process with the scripted stand-in (./cli-in-process.ts, fast tier) or with the real `claude` and
 * `dist/cli.js` (./cli-harness.ts, e2e tier). Both harnesses build the command line and collect its
 * result here, so a test moved from one tier to the other keeps its assertions word for word.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { RecordedRequest } from "../../src/github/recording-octokit.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { GATED_FIX_GRAPH } from "./scenarios/cli-graphs.js";
import { MARKS } from "./scenarios/fix-sum.js";
import type { TempRepo } from "./temp-repo.js";

/** The goal every scenario run uses unless told otherwise (selects the planner conversation). */
export const DEFAULT_GOAL = `${MARKS.plannerGoal}.`;

/** How a harness runs one command. */
export interface CliRunOptions {
  /** Extra environment over the hermetic base (a value `undefined` removes a base variable). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default {@link DEFAULT_GOAL}. */
  readonly goal?: string;
  /** Add `--check-run-out` (default true). */
  readonly checkRunOut?: boolean;
  /** Add `--summary-out` (default true). */
  readonly summaryOut?: boolean;
  /**
   * `--claude-path`: the real-CLI harness passes the pinned CLI by default (or this, e.g. a wrapper that
   * records its argv and execs the real one); the in-process harness passes it only when given (its
   * stand-in `claude` is on PATH).
   */
  readonly claudePath?: string;
}

/** One finished command, as the test reads it. */
export interface CliRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The path printed on the `ledger: PATH` line, or `null` when none was printed. */
  readonly ledgerPath: string | null;
  /** The parsed `ledger.json` (from the printed path, else the only run directory's), or `null`. */
  readonly ledger: Ledger | null;
  /** The run directory holding the ledger, or `null`. */
  readonly runDir: string | null;
  /** The check-run requests recorded with `--check-run-out`, or `null` when the file was not written. */
  readonly checkRunRequests: RecordedRequest[] | null;
  /** The Markdown written with `--summary-out`, or `null` when the file was not written. */
  readonly summary: string | null;
}

/**
 * What both harnesses give a test (./cli-harness.ts with the real `claude`, ./cli-in-process.ts with the
 * scripted stand-in): a repository, the folders around it, and the run-making commands with the same
 * flags and results. Each command runs with `--repo`, `--check-run-out` and `--summary-out` added.
 */
export interface CliCommands {
  readonly repo: TempRepo;
  /** The CLI's fresh HOME. */
  readonly home: string;
  /** A temp directory outside the repository, for outputs (check-run requests, summary, dumps). */
  readonly scratch: string;
  /** The default runs folder, `<repo>/.evidence-gate/runs`. */
  readonly runsDir: string;
  /** The environment a run gets before `CliRunOptions.env`. */
  baseEnv(): Record<string, string>;
  /** Run directories that exist now under {@link runsDir}. */
  runDirs(): string[];
  /** `evidence-gate auto --goal … --repo … [outputs] FLAGS`. */
  run(flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /** `evidence-gate run GRAPH --repo … [outputs] FLAGS`. */
  runGraph(graph: string, flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /** `evidence-gate resume RUN_ID --repo … [outputs] FLAGS`. */
  resume(runId: string, flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /** Writes a graph file into {@link scratch} (outside the repository) and returns its path. */
  writeGraph(name: string, text: string): string;
  cleanup(): Promise<void>;
}

/** Where a command's `--check-run-out` and `--summary-out` files go (absent until it writes them). */
export interface CliOutputPaths {
  readonly checkRunPath: string;
  readonly summaryPath: string;
}

/**
 * The command line `LEADING --repo REPO [--claude-path PATH] [outputs] FLAGS`; LEADING defaults to auto's
 * `--goal GOAL`. The output files are named `check-run-N.json` / `summary-N.md` in `scratch` (`n` counts
 * the harness's commands, so no two commands share a file).
 */
export function cliArgv(o: {
  readonly repoDir: string;
  readonly scratch: string;
  readonly n: number;
  readonly flags: readonly string[];
  readonly options: CliRunOptions;
  readonly leading?: readonly string[] | undefined;
  readonly claudePath?: string;
}): { readonly argv: string[] } & CliOutputPaths {
  const checkRunPath = join(o.scratch, `check-run-${o.n}.json`);
  const summaryPath = join(o.scratch, `summary-${o.n}.md`);
  const argv = [
    ...(o.leading ?? ["--goal", o.options.goal ?? DEFAULT_GOAL]),
    "--repo",
    o.repoDir,
    ...(o.claudePath !== undefined ? ["--claude-path", o.claudePath] : []),
    ...(o.options.checkRunOut === false ? [] : ["--check-run-out", checkRunPath]),
    ...(o.options.summaryOut === false ? [] : ["--summary-out", summaryPath]),
    ...o.flags,
  ];
  return { argv, checkRunPath, summaryPath };
}

/**
 * The environment a harness's command starts from, built from nothing: the test process's `PATH`, a UTF-8
 * locale and a git with no global or system config (the developer's never reaches a run).
 */
export function hermeticCliEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  };
}

/** `base` with `extra` over it; a value `undefined` in `extra` removes the variable. */
export function envOver(
  base: Readonly<Record<string, string>>,
  extra: CliRunOptions["env"],
): Record<string, string> {
  const env: Record<string, string> = { ...base };
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** The run directories under `runsDir` now (none when it does not exist). */
export function runDirsIn(runsDir: string): string[] {
  return existsSync(runsDir)
    ? readdirSync(runsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(runsDir, entry.name))
    : [];
}

/**
 * The {@link CliRun} of a command that exited `exitCode` after printing `stdout`/`stderr`: the ledger from
 * the `ledger: PATH` line (stdout, or stderr under `--json`), else from the only run directory in
 * `runsDir`; the output files when the command wrote them.
 */
export function collectCliRun(
  exitCode: number,
  stdout: string,
  stderr: string,
  paths: CliOutputPaths,
  runsDir: string,
): CliRun {
  const ledgerPath = /^ledger: (.+)$/m.exec(stdout)?.[1] ?? /^ledger: (.+)$/m.exec(stderr)?.[1] ?? null;
  let ledgerFile = ledgerPath;
  if (ledgerFile === null) {
    const found = runDirsIn(runsDir).map((d) => join(d, "ledger.json"));
    ledgerFile = found.length === 1 && existsSync(found[0]!) ? found[0]! : null;
  }
  return {
    exitCode,
    stdout,
    stderr,
    ledgerPath,
    ledger: ledgerFile !== null ? (JSON.parse(readFileSync(ledgerFile, "utf8")) as Ledger) : null,
    runDir: ledgerFile !== null ? join(ledgerFile, "..") : null,
    checkRunRequests: existsSync(paths.checkRunPath)
      ? (JSON.parse(readFileSync(paths.checkRunPath, "utf8")) as RecordedRequest[])
      : null,
    summary: existsSync(paths.summaryPath) ? readFileSync(paths.summaryPath, "utf8") : null,
  };
}

/**
 * `node VERDICT (qualifier)` / `node FAIL cause[ superseded]` / `node PAUSED session_limit[, resets …]` /
 * `node SKIPPED` per row, in ledger order.
 */
export function rowWords(ledger: Ledger): string[] {
  return ledger.rows.map((row) =>
    row.verdict === "PASS"
      ? `${row.nodeId} PASS (${row.qualifier})`
      : row.verdict === "FAIL"
        ? `${row.nodeId} FAIL ${row.cause}${row.superseded ? " superseded" : ""}`
        : row.verdict === "PAUSED"
          ? `${row.nodeId} PAUSED ${row.pause}${row.resetsAt !== null ? `, resets ${row.resetsAt}` : ""}`
          : `${row.nodeId} SKIPPED`,
  );
}

/** One check run as the recorded requests describe it. */
export interface RecordedCheckRun {
  readonly id: number;
  readonly headSha: string;
  /** Every PATCH body sent to it, in order. */
  readonly updates: Record<string, unknown>[];
  /** The completing PATCH bodies (status `completed`). */
  readonly completions: { conclusion: string; title: string; summary: string }[];
}

/**
 * Replays recorded requests into check runs. The recording client answers every request that is not
 * addressed to `/check-runs/ID` with the next id, starting at 1 (src/github/recording-octokit.ts).
 *
 * @throws when a request addresses a check run no earlier request created.
 */
export function checkRunsOf(requests: readonly RecordedRequest[]): RecordedCheckRun[] {
  const runs = new Map<number, RecordedCheckRun>();
  let nextId = 1;
  for (const request of requests) {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const addressed = /\/check-runs\/(\d+)$/.exec(request.path);
    if (addressed === null) {
      const id = nextId++;
      if (request.method === "POST" && /\/check-runs$/.test(request.path)) {
        runs.set(id, { id, headSha: String(body.head_sha), updates: [], completions: [] });
      }
      continue;
    }
    const run = runs.get(Number(addressed[1]));
    if (run === undefined) throw new Error(`a request addressed check run ${addressed[1]}, never created`);
    run.updates.push(body);
    if (body.status === "completed") {
      const output = (body.output ?? {}) as Record<string, unknown>;
      run.completions.push({
        conclusion: String(body.conclusion),
        title: String(output.title ?? ""),
        summary: String(output.summary ?? ""),
      });
    }
  }
  return [...runs.values()];
}

/**
 * Runs the gated fix graph (`GATED_FIX_GRAPH`) with FLAGS and checks it paused at `approve` after
 * `implement` passed (exit 2, action_required, outcome paused).
 */
export async function pausedAtGate(
  h: Pick<CliCommands, "runGraph" | "writeGraph">,
  flags: readonly string[] = [],
): Promise<CliRun & { runId: string }> {
  const r = await h.runGraph(h.writeGraph("gated.yml", GATED_FIX_GRAPH), flags);
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.ledger?.conclusion).toMatchObject({ conclusion: "action_required", outcome: "paused" });
  expect(rowWords(r.ledger!)).toEqual(["implement PASS (exit-only)", "approve SKIPPED", "check SKIPPED"]);
  return { ...r, runId: r.ledger!.runId };
}
