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
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { runCliResume } from "../../src/cli/resume-command.js";
import { runCliAuto } from "../../src/cli/run-auto-command.js";
import { runCliRun } from "../../src/cli/run-command.js";
import type { CliIo } from "../../src/local-run/local-setup.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import {
  type CliCommands,
  type CliOutputPaths,
  type CliRun,
  type CliRunOptions,
  cliArgv,
  collectCliRun,
  envOver,
  hermeticCliEnv,
  runDirsIn,
} from "./cli-run-result.js";
import { claudeEnvFor, type ModelScript, type ModelServer, startModelServer } from "./model-server/index.js";
import { makeSampleNodeRepo, type TempRepo } from "./temp-repo.js";

export {
  type CliRun,
  type CliRunOptions,
  checkRunsOf,
  DEFAULT_GOAL,
  type RecordedCheckRun,
  rowWords,
} from "./cli-run-result.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The pinned real `claude` CLI (devDependency). */
export { CLAUDE_BIN };

/** The built CLI; `npm run build` makes it. */
export const DIST_CLI = join(ROOT, "dist", "cli.js");

export interface CliHarnessOptions {
  /** Makes the repository (default: the sample Node project, `npm test` failing until sum() is fixed). */
  readonly makeRepo?: () => Promise<TempRepo>;
  /** The model script, built once the repository exists (scripts name files by absolute path). */
  readonly script: (repo: TempRepo) => ModelScript;
}

/** `node dist/cli.js …` running as an async child. */
export interface DistProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** What it printed so far. */
  output(): { readonly stdout: string; readonly stderr: string };
  /** Settles when it exited: its exit code, or the signal that ended it. */
  readonly closed: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/** {@link CliCommands} with the real `claude` (the commands in-process) and `dist/cli.js`. */
export interface CliHarness extends CliCommands {
  readonly server: ModelServer;
  /** The same as `run` through `node dist/cli.js`, as an async child. */
  runDist(flags: readonly string[], options?: CliRunOptions): Promise<CliRun>;
  /**
   * `node dist/cli.js ARGV` as an async child with the harness environment, exactly as given (no flags
   * added): for tests that signal or kill the process.
   */
  spawnDist(argv: readonly string[], options?: Pick<CliRunOptions, "env">): DistProcess;
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
    ...hermeticCliEnv(),
    ...claudeEnvFor(server.url, home),
  });
  const envFor = (extra: CliRunOptions["env"]): Record<string, string> => envOver(baseEnv(), extra);
  /** `LEADING --repo … --claude-path … [outputs] FLAGS`; LEADING defaults to auto's `--goal GOAL`. */
  const argvFor = (flags: readonly string[], o: CliRunOptions, leading?: readonly string[]) =>
    cliArgv({
      repoDir: repo.dir,
      scratch,
      n: ++runs,
      flags,
      options: o,
      leading,
      claudePath: o.claudePath ?? CLAUDE_BIN,
    });
  const collect = (exitCode: number, stdout: string, stderr: string, paths: CliOutputPaths): CliRun =>
    collectCliRun(exitCode, stdout, stderr, paths, runsDir);
  const runDirsNow = (): string[] => runDirsIn(runsDir);

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
