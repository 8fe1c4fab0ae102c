/**
 * The engine tier's harness (issue 24 item 3): `runHandWritten`, `resumeRun`, `runAuto` and `runGoalLoop`
 * on either runtime, with the model calls handed down as the run's port (`modelCalls`, engine/run-options.ts)
 * and played by the scripted stand-in (./scripted-calls.ts): no model CLI is spawned, yet every call's
 * stream goes through the REAL stream parser of its runtime and the REAL fold, then through the real
 * engine — scheduling, retries, feedback arcs, gates, the completion gate, sessions, resume, the goal
 * loop — in a real git repository in a temp directory, with real verify commands.
 *
 * Plays are given per label (a node's id, `planner`, `assessor`) and consumed in order across every run
 * and leg of one harness. A call nobody scripted FAILS the test: the call rejects with an error naming the
 * label and the call number, and every run method of the harness throws it after the run (even when the
 * engine turned the rejection into an `internal error` row). What only the real binary shows (argv, the
 * stream against the real CLI, session resume in a real `CODEX_HOME`, process-group killing) stays with
 * ./graph-harness.ts in the `*.real-cli.test.ts` files.
 *
 * The model environment is built from nothing (`PATH`, `LANG`, `HOME`; codex: a fresh `CODEX_HOME` per
 * call, as the action gives each CLI, recorded per label: {@link PortHarness.homesOf}). The run's
 * executable is a stand-in name found on that `PATH` (so the engine's "is the CLI there" check passes); it
 * exits 97 if anything ever spawns it.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { RunId } from "../../src/core/run-id.js";
import { type AutoRunOptions, type AutoRunResult, runAuto } from "../../src/engine/auto-run.js";
import { type GoalLoopOptions, type GoalLoopResult, runGoalLoop } from "../../src/engine/goal-loop.js";
import { type HandRunResult, runHandWritten } from "../../src/engine/hand-run.js";
import type { RunHooks } from "../../src/engine/leg.js";
import { type ResumeAction, type ResumeResult, resumeRun } from "../../src/engine/resume-run.js";
import type { Runtime } from "../../src/policy/disclosure.js";
import type { ClaudeCall } from "../../src/runtime/invoke-claude.js";
import type { CodexCall } from "../../src/runtime/invoke-codex.js";
import {
  agentMessageEvent,
  type FakeScenario,
  initEvent,
  resultEvent,
  threadStartedEvent,
  turnCompletedEvent,
} from "../support/fake-claude/index.js";
import { makeHelloRepo, type TempRepo } from "../support/temp-repo.js";
import { autoDefaults, type FinishedRun, finishedRun } from "./run-readers.js";
import { type LabelledCalls, type ScriptedPlay, scriptedCallsByLabel } from "./scripted-calls.js";

export type { ScriptedPlay };

/** The name the run is given for its model CLI: a script on the harness's PATH that exits 97. */
const STAND_IN = "model-cli-stand-in";

/** Per label (node id, `planner`, `assessor`): its calls' plays, in order. */
export type Plays = Readonly<Record<string, readonly ScriptedPlay[]>>;

export interface PortRunOptions {
  readonly inputs?: Readonly<Record<string, string>>;
  readonly concurrency?: number;
  readonly continueOnFail?: boolean;
  readonly signal?: AbortSignal;
  readonly runId?: RunId;
  readonly hooks?: RunHooks;
  /** `--commit` (default false). */
  readonly commit?: boolean;
  /** resume only: the repository path now. */
  readonly repoDir?: string;
}

export interface PortHarness {
  readonly runtime: Runtime;
  readonly repo: TempRepo;
  readonly scratch: string;
  readonly runsDir: string;
  /** `runHandWritten` on `graphText`; throws unless the run finished, or when a call was not scripted. */
  run(graphText: string, options?: PortRunOptions): Promise<FinishedRun>;
  runRaw(graphText: string, options?: PortRunOptions): Promise<HandRunResult>;
  /** `resumeRun` of `runId`; throws unless the leg finished, or when a call was not scripted. */
  resume(runId: string, action: ResumeAction, options?: PortRunOptions): Promise<FinishedRun>;
  resumeRaw(runId: string, action: ResumeAction, options?: PortRunOptions): Promise<ResumeResult>;
  /** `runAuto` with the harness's runtime, over sensible defaults (no verify, accept none). */
  auto(options: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">): Promise<AutoRunResult>;
  /** `runGoalLoop` with the defaults of {@link auto}. */
  goalLoop(
    options: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">,
    loop: GoalLoopOptions,
  ): Promise<GoalLoopResult>;
  /** The calls the engine made for `label`, in order (prompt, session, cwd, env …). */
  callsOf(label: string): readonly (ClaudeCall | CodexCall)[];
  /** How many calls the engine made for `label`. */
  spawnsOf(label: string): number;
  /** The `CODEX_HOME` (codex) or `HOME` (claude) handed to each call built for `label`, in order. */
  homesOf(label: string): readonly string[];
  cleanup(): Promise<void>;
}

export interface PortHarnessOptions {
  /** Default `claude`. */
  readonly runtime?: Runtime;
  /** Default: a repository with a committed README.md. */
  readonly makeRepo?: () => Promise<TempRepo>;
  readonly plays: Plays;
}

/** Harnesses for a test file's tests, each cleaned up after its test (registers `afterEach`). */
export function portHarnessPerTest(): (options: PortHarnessOptions) => Promise<PortHarness> {
  const harnesses: PortHarness[] = [];
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.cleanup();
  });
  return async (options) => {
    const h = await startPortHarness(options);
    harnesses.push(h);
    return h;
  };
}

/** Makes the repository and the scripted calls. Call `cleanup()` when done. */
export async function startPortHarness(options: PortHarnessOptions): Promise<PortHarness> {
  const runtime = options.runtime ?? "claude";
  const repo = await (options.makeRepo ?? makeHelloRepo)();
  const scratch = mkdtempSync(join(tmpdir(), `eg-port-${runtime}-`));
  const home = join(scratch, "home");
  const bin = join(scratch, "bin");
  const runsDir = join(scratch, "runs");
  for (const dir of [home, bin, join(scratch, "homes")]) mkdirSync(dir);
  writeFileSync(join(bin, STAND_IN), "#!/bin/sh\necho 'the port harness spawned a model CLI' >&2\nexit 97\n");
  chmodSync(join(bin, STAND_IN), 0o755);
  const scripted: LabelledCalls = scriptedCallsByLabel(options.plays);
  const baseEnv = {
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    LANG: "C.UTF-8",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
  };
  const homes = new Map<string, string[]>();
  const modelEnv = (label: string): Record<string, string> => {
    const list = homes.get(label) ?? [];
    homes.set(label, list);
    if (runtime === "claude") {
      list.push(home);
      return { ...baseEnv, HOME: home };
    }
    const codexHome = join(scratch, "homes", `${label.replace(/[^\w.-]/g, "_")}-${list.length + 1}`);
    list.push(codexHome);
    return { ...baseEnv, HOME: codexHome, CODEX_HOME: codexHome };
  };
  const common = (o: PortRunOptions) => ({
    claudeExecutable: STAND_IN,
    codexExecutable: STAND_IN,
    modelEnv,
    modelCalls: scripted.calls,
    baseEnv,
    knownSecrets: [] as string[],
    commit: o.commit ?? false,
    surface: "cli" as const,
    runsDir,
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
  });
  /** Throws the first unscripted call's error: forgetting to script a model fails loudly. */
  const checked = async <T>(result: Promise<T>): Promise<T> => {
    const value = await result;
    const [first] = scripted.unscripted;
    if (first !== undefined) throw first;
    return value;
  };
  const autoOptions = (o: Partial<AutoRunOptions> & Pick<AutoRunOptions, "goal">): AutoRunOptions => {
    const { goal, ...rest } = o;
    return { goal, ...autoDefaults(repo.dir, runtime), ...common({}), ...rest };
  };
  const harness: PortHarness = {
    runtime,
    repo,
    scratch,
    runsDir,
    runRaw: (graphText, o = {}) =>
      checked(
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
      ),
    run: async (graphText, o = {}) => finishedRun(await harness.runRaw(graphText, o), "the run"),
    resumeRaw: (runId, action, o = {}) =>
      checked(
        resumeRun({
          runId,
          action,
          ...(o.repoDir !== undefined ? { repoDir: o.repoDir } : {}),
          ...common(o),
        }),
      ),
    resume: async (runId, action, o = {}) =>
      finishedRun(await harness.resumeRaw(runId, action, o), "the leg"),
    auto: (o) => checked(runAuto(autoOptions(o))),
    goalLoop: (o, loop) => checked(runGoalLoop(autoOptions(o), loop)),
    callsOf: (label) => scripted.madeFor(label),
    spawnsOf: (label) => scripted.madeFor(label).length,
    homesOf: (label) => homes.get(label) ?? [],
    async cleanup() {
      await repo.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  return harness;
}

// ---- plays ----------------------------------------------------------------------------------------

/**
 * A clean turn that replies `reply`: claude `init` + `result` (cost $0.0123, 2 turns), codex
 * `thread.started` + the agent message + `turn.completed` (100 in / 20 out; no USD). `more` adds the
 * play's other fields (`writes`, `exitCode`, `delayMs`, `until`).
 */
export function replied(
  runtime: Runtime,
  reply: string,
  more: {
    readonly writes?: Readonly<Record<string, string>>;
    readonly exitCode?: number;
    readonly delayMs?: number;
    readonly until?: Promise<unknown>;
  } = {},
): ScriptedPlay {
  const lines =
    runtime === "claude"
      ? [initEvent(), resultEvent({ result: reply })]
      : [threadStartedEvent(), agentMessageEvent(reply), turnCompletedEvent()];
  return { lines, ...more };
}

/**
 * Claude's session limit as claude 2.1.332 reported it when the model API answered 429 with the limit
 * notice (test/runtime/fixtures/session-limit-429.jsonl: an `is_error` result, exit 1), with the reset
 * the notice names set to `resetsAt` (as the CLI wrote it, e.g. `5:20pm (UTC)`).
 */
export function claudeSessionLimit(resetsAt: string): ScriptedPlay {
  const captured = readFileSync(
    new URL("../runtime/fixtures/session-limit-429.jsonl", import.meta.url),
    "utf8",
  );
  return {
    lines: captured
      .replaceAll("5:30pm (Europe/Paris)", resetsAt)
      .split("\n")
      .filter((line) => line !== ""),
    exitCode: 1,
  };
}

/**
 * The play of a fake CLI's scenario (test/support/fake-claude): its JSON lines, its exit code, and a
 * raw `stdout` lines, a `hang` as running until the call is aborted or times out. Steps the stand-in cannot
 * show (`stderr`, sleeps, a sleeper process) are refused: a test of those keeps the real process.
 */
export function playOf(scenario: FakeScenario): ScriptedPlay {
  const lines: (Record<string, unknown> | string)[] = [];
  for (const step of scenario.steps) {
    if ("json" in step) lines.push({ ...step.json });
    else if ("stdout" in step) lines.push(step.stdout);
    else if ("hang" in step) return { lines, untilAborted: true };
    else throw new Error(`playOf: the stand-in cannot play ${JSON.stringify(step)}; keep the real process`);
  }
  return { lines, ...(scenario.exitCode !== undefined ? { exitCode: scenario.exitCode } : {}) };
}
