/**
 * THE harness for engine-level acceptance tests (`runHandWritten`, `resumeRun`, `runAuto`), on either
 * runtime (SPEC §4): a real git repository in a temp directory, the pinned real CLI of the chosen
 * runtime (`claude` 2.1.332 or `codex` 0.169.0) against the scripted model server in this process (so
 * nothing here spawns synchronously), real verify commands, and — only for outcomes the real CLI cannot
 * produce on demand (a non-zero exit after a clean result, garbage output, a hang with a grandchild, an
 * over-budget cost) — the scripted fake CLI (test/support/fake-claude, which writes either runtime's
 * stream), chosen per node execution. Tests that run on both runtimes take `RUNTIMES` and the per-runtime
 * tool calls from ./runtime-harness.ts.
 *
 * How one node execution gets the fake: the run's executable is the bare name `claude` / `codex`, found
 * on PATH as a small `sh` dispatcher written into the scratch folder. It `exec`s the fake when the
 * execution's environment names a fake scenario, else the real CLI (same pid either way, so
 * process-group checks see the real process). The engine builds each execution's environment with
 * `modelEnv(label)` just before the spawn; the harness counts those calls per node and hands the k-th
 * execution of a node the k-th entry of its `executions` list.
 *
 * The environment every child gets is built from nothing: `PATH`, `LANG`, a hermetic git config and
 * - claude: `claudeEnvFor(server.url, home)` with ONE home for the whole harness (claude's `--resume`
 *   finds a session under `$HOME/.claude`, and the engine does not carry homes between claude calls);
 * - codex: `codexEnvFor(server.url, freshHome)` with a FRESH `CODEX_HOME` (= `HOME`) per call, as the
 *   action gives each CLI, and `codexConfigFor(server.url)` as the run's `codex-config` pairs (the server
 *   is reached through those `-c` pairs, not the environment; research/fake-model.md §1, §4.7). A
 *   `handoff: session` child therefore only finds its parent's thread if the engine resumes it in the
 *   parent's `CODEX_HOME`.
 * The developer's `ANTHROPIC_*`, `OPENAI_*`, `CODEX_*`, tokens and git config never reach a child.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { RunId } from "../../src/core/run-id.js";
import { type AutoRunOptions, type AutoRunResult, runAuto } from "../../src/engine/auto-run.js";
import { type GoalLoopOptions, type GoalLoopResult, runGoalLoop } from "../../src/engine/goal-loop.js";
import { type HandRunResult, runHandWritten } from "../../src/engine/hand-run.js";
import type { RunHooks } from "../../src/engine/leg.js";
import type { ResumeAction } from "../../src/engine/resume-run.js";
import { type ResumeResult, resumeRun } from "../../src/engine/resume-run.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import { CLAUDE_BIN } from "../runtime/real-claude.js";
import { CODEX_BIN } from "../runtime/real-codex.js";
import {
  FAKE_CLAUDE,
  type FakeReport,
  type FakeScenario,
  readFakeReport,
} from "../support/fake-claude/index.js";
import {
  claudeEnvFor,
  codexConfigFor,
  codexEnvFor,
  type ModelScript,
  type ModelServer,
  type RecordedRequest,
  SCRIPTED_CODEX_PROVIDER,
  startModelServer,
} from "../support/model-server/index.js";
import { makeTempRepo, type TempRepo } from "../support/temp-repo.js";
import { autoDefaults, type FinishedRun, finishedRun } from "./run-readers.js";
import { historyText } from "./runtime-harness.js";

export type { FinishedRun };

/** A file and an extended regular expression (`grep -E`) to wait for. */
export interface WaitFor {
  readonly file: string;
  readonly pattern: string;
}

/**
 * One node execution played by the fake; with `waitFor`, it starts only once that file matches. Its
 * `runtime` is set by the harness (the run's), so the fake reads the session id from the right argv.
 */
export interface FakeCall extends FakeScenario {
  readonly waitFor?: WaitFor;
}

/**
 * How one node execution is played: the real CLI against the harness's server (`"real"`), the real CLI
 * against another server (`{server}`: claude through its environment; codex by the dispatcher swapping
 * the run's `base_url` pair), the fake, or `"spawn-error"`: the executable is not on the execution's
 * PATH, so the spawn itself fails (as when npm replaces the CLI mid-run).
 */
export type Execution = "real" | "spawn-error" | { readonly server: ModelServer } | FakeCall;

export interface RunOptions {
  readonly inputs?: Readonly<Record<string, string>>;
  readonly concurrency?: number;
  readonly continueOnFail?: boolean;
  /**
   * Per node id: its executions in order, counted across every run and leg of this harness (a resumed
   * leg's first execution of a node that ran once is its 2nd); past the end of the list, the real CLI runs.
   */
  readonly executions?: Readonly<Record<string, readonly Execution[]>>;
  readonly signal?: AbortSignal;
  /** The run id to use (so a test knows the run directory before the run starts). */
  readonly runId?: RunId;
  readonly hooks?: RunHooks;
  /** `--commit` (default false). */
  readonly commit?: boolean;
  /** resume only: the repository path now (the run directory moved to another checkout). */
  readonly repoDir?: string;
  /**
   * Replaces the dispatcher as the run's executable (e.g. a wrapper that records its argv and execs the real
   * CLI): the fake executions of {@link executions} then do not apply.
   */
  readonly executable?: string;
}

export interface GraphHarness {
  readonly runtime: Runtime;
  readonly repo: TempRepo;
  /** The current model server (see {@link GraphHarness.replaceServer}). */
  readonly server: ModelServer;
  /** claude's one HOME (codex gets a fresh home per call: {@link GraphHarness.homesOf}). */
  readonly home: string;
  readonly scratch: string;
  readonly runsDir: string;
  /** `runHandWritten` on `graphText`; throws unless the run finished (a test that wants a refusal uses {@link runRaw}). */
  run(graphText: string, options?: RunOptions): Promise<FinishedRun>;
  runRaw(graphText: string, options?: RunOptions): Promise<HandRunResult>;
  /** `resumeRun` of `runId` (the run keeps its first leg's runtime); throws unless the leg finished. */
  resume(runId: string, action: ResumeAction, options?: RunOptions): Promise<FinishedRun>;
  resumeRaw(runId: string, action: ResumeAction, options?: RunOptions): Promise<ResumeResult>;
  /** `runAuto` with the harness's runtime; `options` over sensible defaults (no verify, accept none). */
  auto(options: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">): Promise<AutoRunResult>;
  /** `runGoalLoop` with the same defaults as {@link auto} (the goal loop, `max-cycles`). */
  goalLoop(
    options: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">,
    loop: GoalLoopOptions,
  ): Promise<GoalLoopResult>;
  /** Stops the model server and starts another with `script` (the next leg's model: e.g. after a limit reset). */
  replaceServer(script: ModelScript): Promise<ModelServer>;
  /** The fake's report of the `call`-th (1-based) execution of `node`, `null` when it never wrote one. */
  fakeReport(node: string, call: number): FakeReport | null;
  /** A {@link WaitFor} that holds until the fake of that execution has started its sleeper. */
  sleeperStarted(node: string, call: number): WaitFor;
  /** How many times the engine built a model environment for `node` (= executions that reached the spawn). */
  spawnsOf(node: string): number;
  /** The homes handed to calls labelled `label` (node id or `planner`), in order (codex: one per call). */
  homesOf(label: string): readonly string[];
  cleanup(): Promise<void>;
}

export interface GraphHarnessOptions {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  /** Default: a repository with a committed README.md. */
  readonly makeRepo?: () => Promise<TempRepo>;
  readonly script: (repo: TempRepo) => ModelScript;
}

/**
 * Harnesses for a test file's tests, each cleaned up after its test (registers `afterEach`).
 *
 * @returns the starter ({@link startGraphHarness}).
 */
export function graphHarnessPerTest(): (options: GraphHarnessOptions) => Promise<GraphHarness> {
  const harnesses: GraphHarness[] = [];
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.cleanup();
  });
  return async (options) => {
    const h = await startGraphHarness(options);
    harnesses.push(h);
    return h;
  };
}

/** The `-c` pair of `codexConfigFor` that names the server (the dispatcher swaps it for `{server}`). */
const BASE_URL_KEY = `model_providers.${SCRIPTED_CODEX_PROVIDER}.base_url=`;

function baseUrlPair(serverUrl: string): string {
  const pair = codexConfigFor(serverUrl).find((p) => p.startsWith(BASE_URL_KEY));
  if (pair === undefined) throw new Error(`codexConfigFor no longer sets ${BASE_URL_KEY}`);
  return pair;
}

/** Starts the model server with the script and makes the repository. Call `cleanup()` when done. */
export async function startGraphHarness(options: GraphHarnessOptions): Promise<GraphHarness> {
  const runtime = options.runtime ?? "claude";
  const repo = await (
    options.makeRepo ?? (() => makeTempRepo({ commit: true, files: { "README.md": "hello\n" } }))
  )();
  let server = await startModelServer({ script: withPlaceholder(options.script(repo)) });
  const scratch = mkdtempSync(join(tmpdir(), `eg-${runtime}-scratch-`));
  const home = join(scratch, "home");
  const homesDir = join(scratch, "homes");
  const runsDir = join(scratch, "runs");
  const bin = join(scratch, "bin");
  for (const dir of [home, homesDir, bin]) mkdirSync(dir);
  const realBin = runtime === "claude" ? CLAUDE_BIN : CODEX_BIN;
  const dispatcher = join(bin, runtime);
  writeFileSync(
    dispatcher,
    [
      "#!/bin/sh",
      'if [ -n "$EG_WAIT_FOR" ]; then',
      '  while ! grep -Eq "$EG_WAIT_PATTERN" "$EG_WAIT_FOR" 2>/dev/null; do sleep 0.05; done',
      "fi",
      `if [ -n "$FAKE_CLAUDE_SCENARIO" ]; then exec ${shellQuote(process.execPath)} ${shellQuote(FAKE_CLAUDE)} "$@"; fi`,
      // codex {server}: the model server is named by a `-c` pair of the run, not by the environment.
      'if [ -n "$EG_CODEX_BASE_URL_PAIR" ]; then',
      '  for arg in "$@"; do',
      "    shift",
      `    case "$arg" in ${BASE_URL_KEY}*) arg="$EG_CODEX_BASE_URL_PAIR" ;; esac`,
      '    set -- "$@" "$arg"',
      "  done",
      "fi",
      `exec ${shellQuote(realBin)} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(dispatcher, 0o755);

  const baseEnv = (): Record<string, string> => ({
    // The dispatcher is found on this PATH (the run's executable is the bare name).
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    LANG: "C.UTF-8",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  });
  const spawns = new Map<string, number>();
  const homes = new Map<string, string[]>();
  const reportPath = (node: string, call: number): string =>
    join(scratch, `fake-${node.replaceAll("/", "~")}-${call}.report.json`);
  /** The real CLI's environment against `url`, recording the home it gets under `label`. */
  const realEnv = (label: string, url: string): Record<string, string> => {
    const list = homes.get(label) ?? [];
    homes.set(label, list);
    if (runtime === "claude") {
      list.push(home);
      return { ...baseEnv(), ...claudeEnvFor(url, home) };
    }
    // A fresh CODEX_HOME per call, like the action: it must exist before codex starts.
    const codexHome = mkdtempSync(join(homesDir, `${label.replace(/[^\w.-]/g, "_")}-`));
    list.push(codexHome);
    return { ...baseEnv(), ...codexEnvFor(url, codexHome) };
  };
  const modelEnvFor =
    (executions: RunOptions["executions"]) =>
    (node: string): Record<string, string> => {
      const call = (spawns.get(node) ?? 0) + 1;
      spawns.set(node, call);
      const env = realEnv(node, server.url);
      const played = executions?.[node]?.[call - 1];
      if (played === undefined || played === "real") return env;
      if (played === "spawn-error") return { ...env, PATH: join(scratch, "no-such-bin") };
      if ("server" in played) {
        return runtime === "claude"
          ? { ...env, ...claudeEnvFor(played.server.url, home) }
          : { ...env, EG_CODEX_BASE_URL_PAIR: baseUrlPair(played.server.url) };
      }
      const { waitFor, ...scenario } = played;
      const scenarioFile = join(scratch, `fake-${node.replaceAll("/", "~")}-${call}.json`);
      writeFileSync(
        scenarioFile,
        JSON.stringify({ ...scenario, runtime, reportFile: reportPath(node, call) }),
      );
      return {
        ...env,
        FAKE_CLAUDE_SCENARIO: scenarioFile,
        ...(waitFor ? { EG_WAIT_FOR: waitFor.file, EG_WAIT_PATTERN: waitFor.pattern } : {}),
      };
    };
  const common = (o: RunOptions) => ({
    claudeExecutable: runtime === "claude" ? (o.executable ?? "claude") : "claude",
    ...(runtime === "codex"
      ? { codexExecutable: o.executable ?? "codex", codexConfig: codexConfigFor(server.url) }
      : {}),
    modelEnv: modelEnvFor(o.executions),
    baseEnv: baseEnv(),
    knownSecrets: [] as string[],
    commit: o.commit ?? false,
    surface: "cli" as const,
    runsDir,
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
  });

  const autoOptions = (o: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">): AutoRunOptions => {
    const { goal, ...rest } = o;
    return { goal, ...autoDefaults(repo.dir, runtime), ...common({}), ...rest };
  };

  const harness: GraphHarness = {
    runtime,
    repo,
    get server() {
      return server;
    },
    home,
    scratch,
    runsDir,
    runRaw: (graphText, o = {}) =>
      runHandWritten({
        graphText,
        graphSource: "graph.yml",
        inputs: o.inputs ?? {},
        repoDir: repo.dir,
        continueOnFail: o.continueOnFail ?? false,
        ...(o.runId !== undefined ? { runId: o.runId } : {}),
        verifyEnv: [],
        runtime,
        ...common(o),
      }),
    run: async (graphText, o = {}) => finishedRun(await harness.runRaw(graphText, o), "the run"),
    resumeRaw: (runId, action, o = {}) =>
      resumeRun({
        runId,
        action,
        ...(o.repoDir !== undefined ? { repoDir: o.repoDir } : {}),
        ...common(o),
      }),
    resume: async (runId, action, o = {}) =>
      finishedRun(await harness.resumeRaw(runId, action, o), "the leg"),
    auto: (o) => runAuto(autoOptions(o)),
    goalLoop: (o, loop) => runGoalLoop(autoOptions(o), loop),
    async replaceServer(script) {
      await server.close();
      server = await startModelServer({ script: withPlaceholder(script) });
      return server;
    },
    fakeReport: (node, call) => readFakeReport(reportPath(node, call)),
    sleeperStarted: (node, call) => ({ file: reportPath(node, call), pattern: '"sleeperPid":[0-9]' }),
    spawnsOf: (node) => spawns.get(node) ?? 0,
    homesOf: (label) => homes.get(label) ?? [],
    async cleanup() {
      await server.close();
      await repo.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  return harness;
}

/** A script needs a conversation; one that no prompt matches stands in for "the real CLI is not used". */
function withPlaceholder(script: ModelScript): ModelScript {
  if (script.conversations.length > 0) return script;
  return {
    conversations: [{ name: "unused", match: "\u0000no prompt has this\u0000", turns: [{ text: "unused" }] }],
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

// ---- reading a run directory (./run-readers.ts, shared with the port harness) ---------------------

export {
  asFail,
  asPass,
  type EventLine,
  eventIndex,
  readEvents,
  readState,
  rowsOf,
  rowWords,
} from "./run-readers.js";

/** The model requests of one scripted conversation. */
export function requestsOf(requests: readonly RecordedRequest[], conversation: string): RecordedRequest[] {
  return requests.filter((r) => r.conversation === conversation);
}

/** The conversation history a request carried, as JSON text (runtime-harness.ts `historyText`). */
export const messagesText = historyText;
