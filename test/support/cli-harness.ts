/**
 * End-to-end harness for `evidence-gate auto`, `run` and `resume`: a scripted model server in this
 * process, a real git repository in a temp directory, the real pinned `claude` CLI, and the CLI command
 * run in-process (`runCliAuto`, `runCliRun`, `runCliResume`) with captured output — or `dist/cli.js` as
 * an ASYNC child (a synchronous spawn would block the model server, which answers from this process's
 * event loop).
 *
 * The environment every run gets is built from nothing: `PATH`, a hermetic git config and
 * `claudeEnvFor(server.url, freshHome)`, plus what a test adds. The developer's `ANTHROPIC_*`, tokens and
 * git config never reach a run.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { runCliResume } from "../../src/cli/resume-command.js";
import { runCliAuto } from "../../src/cli/run-auto-command.js";
import { runCliRun } from "../../src/cli/run-command.js";
import type { RecordedRequest } from "../../src/github/recording-octokit.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { CliIo } from "../../src/local-run/local-setup.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { claudeEnvFor, type ModelScript, type ModelServer, startModelServer } from "./model-server/index.js";
import { MARKS } from "./scenarios/fix-sum.js";
import { makeSampleNodeRepo, type TempRepo } from "./temp-repo.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The pinned real `claude` CLI (devDependency). */
export { CLAUDE_BIN };

/** The built CLI; `npm run build` makes it. */
export const DIST_CLI = join(ROOT, "dist", "cli.js");
/** The goal every scenario run uses unless told otherwise (selects the planner conversation). */
export const DEFAULT_GOAL = `${MARKS.plannerGoal}.`;

export interface CliHarnessOptions {
  /** Makes the repository (default: the sample Node project, `npm test` failing until sum() is fixed). */
  readonly makeRepo?: () => Promise<TempRepo>;
  /** The model script, built once the repository exists (scripts name files by absolute path). */
  readonly script: (repo: TempRepo) => ModelScript;
}

export interface CliRunOptions {
  /** Extra environment over the hermetic base (a value `undefined` removes a base variable). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default {@link DEFAULT_GOAL}. */
  readonly goal?: string;
  /** Add `--check-run-out` (default true). */
  readonly checkRunOut?: boolean;
  /** Add `--summary-out` (default true). */
  readonly summaryOut?: boolean;
  /** `--claude-path` (default the pinned CLI): e.g. a wrapper that records its argv and execs the real one. */
  readonly claudePath?: string;
}

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

/** `node dist/cli.js …` running as an async child. */
export interface DistProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** What it printed so far. */
  output(): { readonly stdout: string; readonly stderr: string };
  /** Settles when it exited: its exit code, or the signal that ended it. */
  readonly closed: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

export interface CliHarness {
  readonly server: ModelServer;
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
  /** `evidence-gate auto --goal … --repo … --claude-path … [outputs] FLAGS`, in-process. */
  run(flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /** The same through `node dist/cli.js`, as an async child. */
  runDist(flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /** `evidence-gate run GRAPH --repo … --claude-path … [outputs] FLAGS`, in-process. */
  runGraph(graph: string, flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /** `evidence-gate resume RUN_ID --repo … --claude-path … [outputs] FLAGS`, in-process. */
  resume(runId: string, flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /**
   * `node dist/cli.js ARGV` as an async child with the harness environment, exactly as given (no flags
   * added): for tests that signal or kill the process.
   */
  spawnDist(argv: readonly string[], options?: Pick<CliRunOptions, "env">): DistProcess;
  /** Writes a graph file into {@link scratch} (outside the repository) and returns its path. */
  writeGraph(name: string, text: string): string;
  cleanup(): Promise<void>;
}

/** {@link startCliHarness} inside a vitest test, cleaned up when the test finishes. */
export async function cliHarness(options: CliHarnessOptions): Promise<CliHarness> {
  const h = await startCliHarness(options);
  onTestFinished(() => h.cleanup());
  return h;
}

/** Starts the model server with the script and makes the repository. Call `cleanup()` when done. */
export async function startCliHarness(options: CliHarnessOptions): Promise<CliHarness> {
  const repo = await (options.makeRepo ?? makeSampleNodeRepo)();
  let server: ModelServer;
  try {
    server = await startModelServer({ script: options.script(repo) });
  } catch (error) {
    await repo.cleanup();
    throw error;
  }
  const home = mkdtempSync(join(tmpdir(), "eg-e2e-home-"));
  const scratch = mkdtempSync(join(tmpdir(), "eg-e2e-out-"));
  const runsDir = join(repo.dir, ".evidence-gate", "runs");
  let runs = 0;

  const baseEnv = (): Record<string, string> => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ...claudeEnvFor(server.url, home),
  });
  const envFor = (extra: CliRunOptions["env"]): Record<string, string> => {
    const env: Record<string, string> = baseEnv();
    for (const [name, value] of Object.entries(extra ?? {})) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    return env;
  };
  /** `LEADING --repo … --claude-path … [outputs] FLAGS`; LEADING defaults to auto's `--goal GOAL`. */
  const argvFor = (flags: readonly string[], o: CliRunOptions, leading?: readonly string[]) => {
    runs += 1;
    const checkRunPath = join(scratch, `check-run-${runs}.json`);
    const summaryPath = join(scratch, `summary-${runs}.md`);
    const argv = [
      ...(leading ?? ["--goal", o.goal ?? DEFAULT_GOAL]),
      "--repo",
      repo.dir,
      "--claude-path",
      o.claudePath ?? CLAUDE_BIN,
      ...(o.checkRunOut === false ? [] : ["--check-run-out", checkRunPath]),
      ...(o.summaryOut === false ? [] : ["--summary-out", summaryPath]),
      ...flags,
    ];
    return { argv, checkRunPath, summaryPath };
  };
  const collect = (
    exitCode: number,
    stdout: string,
    stderr: string,
    paths: { checkRunPath: string; summaryPath: string },
  ): CliRun => {
    // `ledger: PATH` is on stdout, or on stderr under --json (stdout is then the JSON alone).
    const ledgerPath = /^ledger: (.+)$/m.exec(stdout)?.[1] ?? /^ledger: (.+)$/m.exec(stderr)?.[1] ?? null;
    let ledgerFile = ledgerPath;
    if (ledgerFile === null) {
      const found = runDirsNow().map((d) => join(d, "ledger.json"));
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
  };
  const runDirsNow = (): string[] =>
    existsSync(runsDir)
      ? readdirSync(runsDir, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(runsDir, entry.name))
      : [];

  const inProcess = async (
    command: (argv: readonly string[], io: CliIo) => Promise<number>,
    leading: readonly string[] | undefined,
    flags: readonly string[],
    o: CliRunOptions,
  ): Promise<CliRun> => {
    const { argv, ...paths } = argvFor(flags, o, leading);
    let stdout = "";
    let stderr = "";
    const exitCode = await command(argv, {
      cwd: scratch,
      env: envFor(o.env),
      out: { write: (text: string) => (stdout += text) },
      err: { write: (text: string) => (stderr += text) },
    });
    return collect(exitCode, stdout, stderr, paths);
  };

  const spawnDist: CliHarness["spawnDist"] = (argv, o = {}) => {
    if (!existsSync(DIST_CLI)) {
      throw new Error(`${DIST_CLI} is missing: run \`npm run build\` before the end-to-end tests`);
    }
    const child = spawn(process.execPath, [DIST_CLI, ...argv], {
      cwd: scratch,
      env: envFor(o.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code, signal) => resolve({ code, signal }));
    });
    return { child, output: () => ({ stdout, stderr }), closed };
  };

  return {
    server,
    repo,
    home,
    scratch,
    runsDir,
    baseEnv,
    runDirs: runDirsNow,
    run: (flags, o = {}) => inProcess(runCliAuto, undefined, flags, o),
    runGraph: (graph, flags, o = {}) => inProcess(runCliRun, [graph], flags, o),
    resume: (runId, flags, o = {}) => inProcess(runCliResume, [runId], flags, o),
    spawnDist,
    writeGraph(name, text) {
      const path = join(scratch, name);
      writeFileSync(path, text);
      return path;
    },
    async runDist(flags, o = {}) {
      const { argv, ...paths } = argvFor(flags, o);
      const dist = spawnDist(["auto", ...argv], o);
      const { code, signal } = await dist.closed;
      const { stdout, stderr } = dist.output();
      return collect(code ?? (signal !== null ? 128 : 1), stdout, stderr, paths);
    },
    async cleanup() {
      await server.close();
      await repo.cleanup();
      rmSync(home, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
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
