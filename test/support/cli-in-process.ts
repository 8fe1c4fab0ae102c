/**
 * The CLI in-process (issue 24 items 1–2: the CLI's decisions in the fast tier): `evidence-gate ARGV` is
 * the CLI's own dispatcher (`runCli`, src/cli/dispatch.ts) called in the test's process as `dist/cli.js`
 * calls it, with the model calls handed down as the run's port (`CliIo.modelCalls`) and played by the
 * scripted stand-in (test/engine/scripted-calls.ts): every call's stream goes through its runtime's real
 * stream parser and fold, then the real engine, the real verify command, git, the run directory, the
 * check-run payload and the ledger printed. A model call nobody scripted fails the test: it rejects in the
 * run, and the command's result is thrown after it, whatever the engine made of the rejection.
 *
 * The command checks its model CLI is on PATH before the first call, so the environment's PATH starts with
 * a folder holding a stand-in `claude` and `codex`; each exits 97 if anything ever runs it, and a command
 * that ran one fails its test (a model call that bypassed the port would otherwise pass as a CLI failure).
 *
 * What only the process shows stays with ./cli-harness.ts (e2e tier): the bundle's start, signals, the
 * real CLI's argv, stream and tool ceiling, stdout as a pipe.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { runCli } from "../../src/cli/dispatch.js";
import type { ClaudeCall } from "../../src/runtime/invoke-claude.js";
import type { CodexCall } from "../../src/runtime/invoke-codex.js";
import type { Plays } from "../engine/port-harness.js";
import { type LabelledCalls, scriptedCallsByLabel } from "../engine/scripted-calls.js";
import {
  type CliCommands,
  type CliRun,
  type CliRunOptions,
  cliArgv,
  collectCliRun,
  envOver,
  hermeticCliEnv,
  runDirsIn,
} from "./cli-run-result.js";
import { makeSampleNodeRepo, type TempRepo } from "./temp-repo.js";

/** A model call the engine made, of either runtime (prompt, label, session, cwd, env …). */
export type MadeCall = ClaudeCall | CodexCall;

/** The file a stand-in CLI in `bin` appends its command line to when anything runs it. */
const spawnedLog = (bin: string): string => join(bin, "spawned.log");

/**
 * The stand-in model CLI on the command's PATH: a shell script that logs its command line in
 * {@link spawnedLog}, says it ran and exits 97.
 */
const standInCli = (bin: string): string =>
  `#!/bin/sh\necho "$0 $*" >> '${spawnedLog(bin)}'\necho 'the in-process CLI spawned a model CLI' >&2\nexit 97\n`;

export interface CliInProcessOptions {
  /** The command's working directory. */
  readonly cwd: string;
  /**
   * The command's whole environment (nothing of the test process's is added). Its `PATH` (default
   * `/usr/bin:/bin`) gets the stand-in CLIs' folder in front.
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Per label (a node's id, `planner`, `assessor`): its model calls' plays, in order (`port-harness.ts`'s
   * `replied` makes a clean turn; a node's edits are its `writes`). Default none: any model call fails.
   */
  readonly plays?: Plays;
  /** What SIGINT/SIGTERM would abort for an interruptible command (default: a signal never aborted). */
  readonly signal?: AbortSignal;
}

/** What one in-process command did. */
export interface CliInProcessResult {
  /** The exit code `runCli` returned (SPEC §2, §10). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The model calls the engine made for `label`, in order. */
  madeFor(label: string): readonly MadeCall[];
  /** Every model call the engine made, of either runtime, in order. */
  readonly calls: readonly MadeCall[];
}

/**
 * Runs `evidence-gate ARGV` once in-process (see the module comment) with `plays` as its model.
 *
 * @throws the first unscripted model call's error, after the command finished; or an error naming the
 *   stand-in CLI's command line when the command spawned it instead of calling the port.
 */
export async function runCliInProcess(
  argv: readonly string[],
  options: CliInProcessOptions,
): Promise<CliInProcessResult> {
  return runWithCalls(argv, options, orderedCalls(options.plays ?? {}));
}

/** Writes the stand-in `claude` and `codex` into the folder `bin` (made when missing); returns `bin`. */
function writeStandIns(bin: string): string {
  mkdirSync(bin, { recursive: true });
  for (const name of ["claude", "codex"]) {
    writeFileSync(join(bin, name), standInCli(bin));
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/**
 * {@link runCliInProcess} with calls that may be shared by several commands (a harness's), and the
 * stand-ins in `bin` when given (else in a temp folder removed after the command).
 */
async function runWithCalls(
  argv: readonly string[],
  options: Omit<CliInProcessOptions, "plays"> & { readonly bin?: string },
  scripted: OrderedCalls,
): Promise<CliInProcessResult> {
  const bin = options.bin ?? writeStandIns(mkdtempSync(join(tmpdir(), "eg-cli-stand-ins-")));
  try {
    let stdout = "";
    let stderr = "";
    const code = await runCli(argv, {
      io: {
        cwd: options.cwd,
        env: { ...options.env, PATH: `${bin}:${options.env.PATH ?? "/usr/bin:/bin"}` },
        out: { write: (text: string) => (stdout += text) },
        err: { write: (text: string) => (stderr += text) },
        modelCalls: scripted.calls,
      },
      armInterrupt: () => options.signal ?? new AbortController().signal,
    });
    const [unscripted] = scripted.unscripted;
    if (unscripted !== undefined) throw unscripted;
    if (existsSync(spawnedLog(bin)))
      throw new Error(
        `the command spawned the stand-in model CLI instead of calling the model port (CliIo.modelCalls): ${readFileSync(spawnedLog(bin), "utf8").trim()}`,
      );
    return { code, stdout, stderr, madeFor: scripted.madeFor, calls: [...scripted.all] };
  } finally {
    if (options.bin === undefined) rmSync(bin, { recursive: true, force: true });
  }
}

/** {@link LabelledCalls} that also keep every call of either runtime, in the order the engine made them. */
interface OrderedCalls extends LabelledCalls {
  readonly all: readonly MadeCall[];
}

/** The scripted stand-in playing `plays` (`scriptedCallsByLabel`), each call also kept in `all`. */
function orderedCalls(plays: Plays): OrderedCalls {
  const scripted = scriptedCallsByLabel(plays);
  const all: MadeCall[] = [];
  return {
    ...scripted,
    all,
    calls: {
      claude: (call) => {
        all.push(call);
        return scripted.calls.claude(call);
      },
      codex: (call) => {
        all.push(call);
        return scripted.calls.codex(call);
      },
    },
  };
}

// ---- a test's repository, scratch folder and commands ------------------------------------------

export interface CliInProcessHarnessOptions {
  /** Makes the repository (default: the sample Node project, `npm test` failing until sum() is fixed). */
  readonly makeRepo?: () => Promise<TempRepo>;
  /** The plays of every command of the harness, consumed in order across them (as one model would). */
  readonly plays?: Plays;
}

/**
 * The in-process twin of ./cli-harness.ts's `CliHarness`: the same commands, flags and results, with
 * the scripted stand-in instead of the model server and the real `claude`.
 */
export interface CliInProcessHarness extends CliCommands {
  /**
   * The stand-in `claude` every command finds on PATH (it exits 97 if run): give it as
   * `CliRunOptions.claudePath` for a command that must carry `--claude-path`.
   */
  readonly claudeStandIn: string;
  /** The stand-in `codex` beside it (`--codex-path`). */
  readonly codexStandIn: string;
  /** The base environment holds a model key, so the key proxy is set up as for a user's run. */
  baseEnv(): Record<string, string>;
  /**
   * `evidence-gate ARGV` exactly as given (no flags added), in {@link scratch} with the harness's
   * environment and plays.
   */
  cli(argv: readonly string[], options?: Pick<CliRunOptions, "env">): Promise<CliInProcessResult>;
  /** The model calls made for `label` so far, over every command, in order. */
  madeFor(label: string): readonly MadeCall[];
  /** Every model call made so far, over every command, in order. */
  calls(): readonly MadeCall[];
}

/** A model key in the shape of Anthropic's (the stand-in never sends it anywhere). */
export const IN_PROCESS_API_KEY = "sk-ant-in-process-stand-in-0000";

/** {@link startCliInProcessHarness} inside a vitest test, cleaned up when the test finishes. */
export async function cliInProcess(options: CliInProcessHarnessOptions = {}): Promise<CliInProcessHarness> {
  const h = await startCliInProcessHarness(options);
  onTestFinished(() => h.cleanup());
  return h;
}

/** Makes the repository, a fresh HOME and a scratch folder. Call `cleanup()` when done. */
export async function startCliInProcessHarness(
  options: CliInProcessHarnessOptions = {},
): Promise<CliInProcessHarness> {
  const repo = await (options.makeRepo ?? makeSampleNodeRepo)();
  const home = mkdtempSync(join(tmpdir(), "eg-cli-home-"));
  const scratch = mkdtempSync(join(tmpdir(), "eg-cli-out-"));
  const runsDir = join(repo.dir, ".evidence-gate", "runs");
  const bin = writeStandIns(join(scratch, ".stand-ins"));
  const scripted = orderedCalls(options.plays ?? {});
  let runs = 0;
  const baseEnv = (): Record<string, string> => ({
    ...hermeticCliEnv(),
    HOME: home,
    ANTHROPIC_API_KEY: IN_PROCESS_API_KEY,
  });
  const cli: CliInProcessHarness["cli"] = (argv, o = {}) =>
    runWithCalls(argv, { cwd: scratch, env: envOver(baseEnv(), o.env), bin }, scripted);
  const command = async (
    name: string,
    leading: readonly string[] | undefined,
    flags: readonly string[],
    o: CliRunOptions,
  ): Promise<CliRun> => {
    const { argv, ...paths } = cliArgv({
      repoDir: repo.dir,
      scratch,
      n: ++runs,
      flags,
      options: o,
      leading,
      ...(o.claudePath !== undefined ? { claudePath: o.claudePath } : {}),
    });
    const r = await cli([name, ...argv], o);
    return collectCliRun(r.code, r.stdout, r.stderr, paths, runsDir);
  };
  return {
    repo,
    home,
    scratch,
    runsDir,
    claudeStandIn: join(bin, "claude"),
    codexStandIn: join(bin, "codex"),
    baseEnv,
    runDirs: () => runDirsIn(runsDir),
    run: (flags, o = {}) => command("auto", undefined, flags, o),
    runGraph: (graph, flags, o = {}) => command("run", [graph], flags, o),
    resume: (runId, flags, o = {}) => command("resume", [runId], flags, o),
    cli,
    writeGraph(name, text) {
      const path = join(scratch, name);
      writeFileSync(path, text);
      return path;
    },
    madeFor: scripted.madeFor,
    calls: () => [...scripted.all],
    async cleanup() {
      await repo.cleanup();
      rmSync(home, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
