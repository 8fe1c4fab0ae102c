/**
 * Harness for engine acceptance tests that run on BOTH runtimes: a real git repository in a temp
 * directory, the pinned real CLI of the chosen runtime (`claude` 2.1.332 or `codex` 0.169.0) against the
 * scripted model server in this process (so nothing here spawns synchronously), real verify commands,
 * and the engine's entry points (`runHandWritten`, `resumeRun`, `runAuto`) exactly as the CLI and the
 * action call them, with `runtime` set.
 *
 * Each child's environment is built from nothing: `PATH`, `LANG`, a hermetic git config, and
 * - claude: `claudeEnvFor(server.url, home)` with ONE home for the whole harness (claude's `--resume`
 *   finds a session under `$HOME/.claude`, and the engine does not carry homes between claude calls);
 * - codex: `codexEnvFor(server.url, freshHome)` with a FRESH `CODEX_HOME` (= `HOME`) per call, as the
 *   action gives each CLI, and `codexConfigFor(server.url)` as the run's `codex-config` pairs. A
 *   `handoff: session` child therefore only finds its parent's thread if the engine resumes it in the
 *   parent's `CODEX_HOME` — which these tests prove.
 * The developer's `ANTHROPIC_*`, `OPENAI_*`, `CODEX_*`, tokens and git config never reach a child.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Runtime } from "../../src/engine/agent-node.js";
import { type AutoRunOptions, type AutoRunResult, runAuto } from "../../src/engine/auto-run.js";
import { type HandRunResult, type RunHooks, runHandWritten } from "../../src/engine/hand-run.js";
import { type ResumeAction, type ResumeResult, resumeRun } from "../../src/engine/resume-run.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import {
  claudeEnvFor,
  codexConfigFor,
  codexEnvFor,
  type ModelScript,
  type ModelServer,
  type RecordedRequest,
  startModelServer,
} from "../support/model-server/index.js";
import { makeTempRepo, type TempRepo } from "../support/temp-repo.js";

export const RUNTIMES: readonly Runtime[] = ["claude", "codex"];

/** The pinned real CLIs (devDependencies). */
export const CLAUDE_BIN = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));
export const CODEX_BIN = fileURLToPath(new URL("../../node_modules/.bin/codex", import.meta.url));

export interface RuntimeRunOptions {
  readonly inputs?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly hooks?: RunHooks;
  /** Replaces the harness's executable for this run (e.g. a scripted stand-in). */
  readonly executable?: string;
}

export interface FinishedRuntimeRun {
  readonly ledger: Ledger;
  readonly runDir: string;
  readonly runId: string;
  readonly warnings: readonly string[];
}

export interface RuntimeHarness {
  readonly runtime: Runtime;
  readonly repo: TempRepo;
  readonly server: ModelServer;
  readonly scratch: string;
  readonly runsDir: string;
  run(graphText: string, options?: RuntimeRunOptions): Promise<FinishedRuntimeRun>;
  runRaw(graphText: string, options?: RuntimeRunOptions): Promise<HandRunResult>;
  resume(runId: string, action: ResumeAction, options?: RuntimeRunOptions): Promise<FinishedRuntimeRun>;
  resumeRaw(runId: string, action: ResumeAction, options?: RuntimeRunOptions): Promise<ResumeResult>;
  /** `runAuto` with the harness's runtime; `options` over sensible defaults (no verify, accept none). */
  auto(options: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">): Promise<AutoRunResult>;
  /** The homes handed to calls labelled `label` (node id or `planner`), in order (codex: one per call). */
  homesOf(label: string): readonly string[];
  cleanup(): Promise<void>;
}

export interface RuntimeHarnessOptions {
  readonly runtime: Runtime;
  /** Default: a repository with a committed README.md. */
  readonly makeRepo?: () => Promise<TempRepo>;
  readonly script: (repo: TempRepo) => ModelScript;
}

/** Starts the model server with the script and makes the repository. Call `cleanup()` when done. */
export async function startRuntimeHarness(options: RuntimeHarnessOptions): Promise<RuntimeHarness> {
  const { runtime } = options;
  const repo = await (
    options.makeRepo ?? (() => makeTempRepo({ commit: true, files: { "README.md": "hello\n" } }))
  )();
  const script = options.script(repo);
  const server = await startModelServer({
    // A script needs a conversation; one no prompt matches stands in for "the model is not called".
    script:
      script.conversations.length > 0
        ? script
        : {
            conversations: [
              { name: "unused", match: "\u0000no prompt has this\u0000", turns: [{ text: "unused" }] },
            ],
          },
  });
  const scratch = mkdtempSync(join(tmpdir(), `eg-${runtime}-scratch-`));
  const runsDir = join(scratch, "runs");
  const homesDir = join(scratch, "homes");
  mkdirSync(homesDir);
  const claudeHome = join(homesDir, "claude");
  mkdirSync(claudeHome);
  const homes = new Map<string, string[]>();

  const baseEnv = (): Record<string, string> => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  });
  const modelEnv = (label: string): Record<string, string> => {
    const list = homes.get(label) ?? [];
    homes.set(label, list);
    if (runtime === "claude") {
      list.push(claudeHome);
      return { ...baseEnv(), ...claudeEnvFor(server.url, claudeHome) };
    }
    // A fresh CODEX_HOME per call, like the action: it must exist before codex starts.
    const home = mkdtempSync(join(homesDir, `${label.replace(/[^\w.-]/g, "_")}-`));
    list.push(home);
    return { ...baseEnv(), ...codexEnvFor(server.url, home) };
  };
  const common = (o: RuntimeRunOptions) => ({
    runtime,
    claudeExecutable: runtime === "claude" ? (o.executable ?? CLAUDE_BIN) : CLAUDE_BIN,
    ...(runtime === "codex"
      ? { codexExecutable: o.executable ?? CODEX_BIN, codexConfig: codexConfigFor(server.url) }
      : {}),
    modelEnv,
    baseEnv: baseEnv(),
    knownSecrets: [] as string[],
    commit: false,
    surface: "cli" as const,
    runsDir,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
  });
  const finished = (
    result: HandRunResult | ResumeResult | AutoRunResult,
    what: string,
  ): FinishedRuntimeRun => {
    if (result.kind !== "finished") throw new Error(`${what} did not finish: ${JSON.stringify(result)}`);
    return {
      ledger: result.ledger,
      runDir: result.runDir,
      runId: result.ledger.runId,
      warnings: result.warnings,
    };
  };

  const harness: RuntimeHarness = {
    runtime,
    repo,
    server,
    scratch,
    runsDir,
    runRaw: (graphText, o = {}) =>
      runHandWritten({
        graphText,
        graphSource: "graph.yml",
        inputs: o.inputs ?? {},
        repoDir: repo.dir,
        continueOnFail: false,
        verifyEnv: [],
        ...common(o),
      }),
    run: async (graphText, o = {}) => finished(await harness.runRaw(graphText, o), "the run"),
    resumeRaw: (runId, action, o = {}) => {
      const { runtime: _runtime, ...rest } = common(o);
      return resumeRun({ runId, action, ...rest });
    },
    resume: async (runId, action, o = {}) => finished(await harness.resumeRaw(runId, action, o), "the leg"),
    auto: (o) => {
      const { goal, ...rest } = o;
      return runAuto({
        goal,
        repoDir: repo.dir,
        verifyTimeoutMs: 120_000,
        verifyEnv: [],
        acceptNoBuildEvidence: false,
        acceptLoadedUserConfig: false,
        concurrency: 4,
        onFail: "halt",
        plannerTimeoutMs: 60_000,
        ...common({}),
        ...rest,
      });
    },
    homesOf: (label) => homes.get(label) ?? [],
    async cleanup() {
      await server.close();
      await repo.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  return harness;
}

// ---- scripts that differ by runtime ---------------------------------------------------------------

/** A scripted tool call, as the model server's script takes it. */
export interface ToolCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/**
 * One shell command as the runtime's model would call it: claude `Bash {command}` (the node must grant
 * `Bash`), codex `exec_command {cmd}` (codex-cli 0.169.0 advertises it for `gpt-5.5`).
 */
export function shellCall(runtime: Runtime, command: string): ToolCall {
  return runtime === "claude"
    ? { name: "Bash", input: { command, description: "Run a command" } }
    : { name: "exec_command", input: { cmd: command } };
}

/**
 * Replaces `oldText` with `newText` in `file` (absolute) as the runtime's model would: claude `Edit` (the
 * node must grant `Edit`; claude refuses an edit of a file it has not read, so script a Read first),
 * codex `apply_patch` (an Update File hunk).
 */
export function editCall(runtime: Runtime, file: string, oldText: string, newText: string): ToolCall {
  return runtime === "claude"
    ? { name: "Edit", input: { file_path: file, old_string: oldText, new_string: newText } }
    : {
        name: "apply_patch",
        input: {
          input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-${oldText}\n+${newText}\n*** End Patch\n`,
        },
      };
}

/** A read of `file` (absolute): claude `Read`, codex `exec_command cat`. */
export function readCall(runtime: Runtime, file: string): ToolCall {
  return runtime === "claude"
    ? { name: "Read", input: { file_path: file } }
    : shellCall(runtime, `cat ${file}`);
}

// ---- reading what the model saw --------------------------------------------------------------------

/** The conversation history a recorded request carried (claude `messages`, codex `input`), as JSON text. */
export function historyText(request: RecordedRequest): string {
  const body = request.body as { messages?: unknown; input?: unknown } | null;
  return JSON.stringify(body?.messages ?? body?.input ?? null);
}

/** Pids of running processes whose command line contains `marker` (Linux `/proc`). */
export function pidsWithCommandLine(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
      if (cmdline.includes(marker) && state !== "Z" && state !== "X") pids.push(Number(entry));
    } catch {
      // gone between the listing and the read
    }
  }
  return pids;
}
