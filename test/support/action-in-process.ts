/**
 * The action in-process (issue 24 items 1–2: the action's decisions in the fast tier): the action's own
 * `runAction` (src/action/run-action.ts) called in the test's process as `node dist/index.js` calls it, in
 * the same step world the bundled action's tests build (`action-step.ts`: the inputs as `INPUT_*`
 * variables, the webhook payload, the file-command files, `RUNNER_TEMP`, the GitHub API double checking
 * every request against GitHub's description), with the model calls handed down as the run's port
 * (`ActionSeams.modelCalls`) and played by the scripted stand-in (test/engine/scripted-calls.ts): every
 * call's stream goes through its runtime's real stream parser and fold, then the real engine, the real
 * verify command, the real check-run reporter and job summary. A model call nobody scripted fails the
 * run's test (the run's result is thrown after the step, whatever the engine made of the rejection).
 *
 * The tool cache holds a stand-in `claude` and `codex` at the inputs' versions, so the action finds and
 * pins them as it pins the real ones; they exit 97 if anything ever runs them.
 *
 * For the step, the test process's environment is exactly the step's (the worker's `VITEST*` variables
 * kept), its working directory is the workspace, and what it writes on stdout/stderr is captured; all
 * three and `process.exitCode` are restored after. One step at a time per process (vitest runs a file's
 * tests one after another). The post step's `runPost` runs in-process the same way ({@link runPostInProcess}).
 * What only the process shows stays with `action-harness.ts` (e2e): the real CLIs and the tool cache's
 * pinned `claude`, the launcher and the entry's signal handling (a main step killed, then the bundled post
 * step), another user.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach } from "vitest";
import { runPost } from "../../src/action/post.js";
import { type ActionSeams, runAction } from "../../src/action/run-action.js";
import { guardCheckoutConfiguration } from "../../src/proc/trusted-git.js";
import { forgetTrustedTools } from "../../src/proc/trusted-tools.js";
import type { ClaudeCall } from "../../src/runtime/invoke-claude.js";
import type { CodexCall } from "../../src/runtime/invoke-codex.js";
import type { Plays } from "../engine/port-harness.js";
import { scriptedCallsByLabel } from "../engine/scripted-calls.js";
import {
  type ActionRun,
  type ActionStepOptions,
  cleanupActionRun,
  type PostRun,
  populateToolCache,
  prepareActionStep,
  preparePostStep,
  type RunPostOptions,
} from "./action-step.js";
import { type ArtifactService, startArtifactService } from "./artifact-service.js";
import { type GitHubServer, startGitHubServer } from "./github-server/index.js";
import type { TempRepo } from "./temp-repo.js";

export interface InProcessActionOptions extends ActionStepOptions {
  /**
   * Per label (a node's id, `planner`, `assessor`): its model calls' plays, in order (`port-harness.ts`'s
   * `replied` makes a clean turn). Default none: any model call fails the test.
   */
  readonly plays?: Plays;
}

export interface InProcessActionRun extends ActionRun {
  /** The model calls the engine made for `label`, in order (prompt, session, cwd, env …). */
  madeFor(label: string): readonly (ClaudeCall | CodexCall)[];
  /** Every model call the engine made, whatever its label (claude's, then codex's, each in order). */
  readonly modelCallsMade: readonly (ClaudeCall | CodexCall)[];
}

/** The stand-in model CLI the tool cache holds: a shell script that says it ran and exits 97. */
const STAND_IN_CLI = "#!/bin/sh\necho 'the in-process action spawned a model CLI' >&2\nexit 97\n";

/** Writes the stand-in CLI at a private path and links it into `cache` as `name`/`version`'s `bin`. */
function standInTool(cache: string, name: string, version: string, bin: string): void {
  const file = `${cache}/.stand-ins/${name}-${bin}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, STAND_IN_CLI);
  chmodSync(file, 0o755);
  populateToolCache(cache, name, version, bin, file);
}

/**
 * Runs the action's main job once in-process (see the module comment) and returns what the step wrote:
 * exit code (`process.exitCode` as the action left it; 0 when unset), stdout/stderr, outputs, state,
 * job summary, the GitHub double's calls during the step. `RUNNER_TEMP` stays until `cleanupActionRun`.
 *
 * @throws the first unscripted model call's error, after the step (its files removed).
 */
export async function runActionInProcess(
  options: InProcessActionOptions,
  seams: Omit<ActionSeams, "modelCalls"> = {},
): Promise<InProcessActionRun> {
  const scripted = scriptedCallsByLabel(options.plays ?? {});
  const step = await prepareActionStep(options, {
    fillToolCache: (cache, inputs) => {
      standInTool(cache, "claude-code", inputs["claude-version"]!, "claude");
      standInTool(cache, "codex", inputs["codex-version"]!, "codex");
    },
  });
  let ran: StepOutput;
  try {
    ran = await inStep(step.env, options.workspace, () =>
      runAction(step.env, undefined, { ...seams, modelCalls: scripted.calls }),
    );
  } catch (error) {
    step.abandon();
    throw error;
  }
  const run = step.collect(ran);
  const [unscripted] = scripted.unscripted;
  if (unscripted !== undefined) throw unscripted;
  return {
    ...run,
    madeFor: (label) => scripted.madeFor(label),
    modelCallsMade: [...scripted.claude, ...scripted.codex],
  };
}

/** What a step left: its exit code (`process.exitCode` as it left it; 0 when unset) and its output. */
interface StepOutput {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `step` as the runner's step process would run it: `process.env` exactly `env` (the worker's
 * `VITEST*` variables kept), the working directory `cwd`, stdout/stderr captured, `process.exitCode`
 * unset at the start. All four are restored after, whatever `step` did, and what the action's start made
 * process-wide (the trusted programs, the checkout's pins: src/pull-request/trusted-executables.ts) is undone.
 *
 * @throws what `step` threw (after the restore).
 */
async function inStep(
  env: Readonly<Record<string, string>>,
  cwd: string,
  step: () => Promise<unknown>,
): Promise<StepOutput> {
  const saved = { env: { ...process.env }, cwd: process.cwd(), exitCode: process.exitCode };
  const out = { stdout: "", stderr: "" };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture =
    (stream: "stdout" | "stderr") =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      out[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      done?.();
      return true;
    };
  replaceEnv(env, saved.env);
  process.exitCode = undefined;
  process.chdir(cwd);
  process.stdout.write = capture("stdout") as typeof process.stdout.write;
  process.stderr.write = capture("stderr") as typeof process.stderr.write;
  try {
    await step();
    return { exitCode: Number(process.exitCode ?? 0), ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    process.chdir(saved.cwd);
    replaceEnv(saved.env, {});
    process.exitCode = saved.exitCode;
    // The action's start made the engine's programs and the checkout's pins process-wide (it is one process
    // per step on a runner); undone, so a later test in this worker sees the CLI's defaults again.
    forgetTrustedTools();
    guardCheckoutConfiguration(false);
  }
}

/**
 * Runs the action's post step once in-process: the post step's `runPost` (src/action/post.ts) in the
 * world `preparePostStep` (action-step.ts) sets up — the inputs, the main step's saved state as `STATE_*`
 * variables, its own file-command files — as `node dist/post.js` runs it after the launcher. What only
 * the process shows (the launcher, a main step killed by a signal) stays with `action-harness.ts`.
 */
export async function runPostInProcess(options: RunPostOptions): Promise<PostRun> {
  const step = preparePostStep(options);
  try {
    return step.collect(await inStep(step.env, step.cwd, () => runPost(step.env)));
  } finally {
    step.abandon();
  }
}

/** Makes `process.env` exactly `env`, keeping the test worker's own `VITEST*` variables from `worker`. */
function replaceEnv(
  env: Readonly<Record<string, string | undefined>>,
  worker: Readonly<Record<string, string | undefined>>,
): void {
  for (const key of Object.keys(process.env)) delete process.env[key];
  for (const [key, value] of Object.entries(worker))
    if (key.startsWith("VITEST") && value !== undefined) process.env[key] = value;
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
}

/**
 * What a file's in-process action tests started, stopped or removed after each test: the GitHub double,
 * the repositories, the runs' `RUNNER_TEMP`s and other folders.
 */
export interface InProcessActionResources {
  /** {@link runActionInProcess}, its `RUNNER_TEMP` removed after the test. */
  run(options: InProcessActionOptions, seams?: Omit<ActionSeams, "modelCalls">): Promise<InProcessActionRun>;
  /** {@link runPostInProcess}. */
  post(options: RunPostOptions): Promise<PostRun>;
  /** `repo`, removed after the test. */
  keep<R extends TempRepo>(repo: R): R;
  /** A GitHub API double (`startGitHubServer`'s options), closed after the test. */
  github(options?: Parameters<typeof startGitHubServer>[0]): Promise<GitHubServer>;
  /** A folder removed after the test. */
  dir(path: string): string;
  /** A stand-in of the runner's artifact service (`artifact-service.ts`), closed after the test. */
  artifactService(): Promise<ArtifactService>;
}

/** The resources of a test file's in-process action tests, cleaned up after each test (registers `afterEach`). */
export function actionInProcessResources(): InProcessActionResources {
  const runs: ActionRun[] = [];
  const repos: TempRepo[] = [];
  const servers: GitHubServer[] = [];
  const dirs: string[] = [];
  const services: ArtifactService[] = [];
  afterEach(async () => {
    for (const run of runs.splice(0)) cleanupActionRun(run);
    for (const server of servers.splice(0)) await server.close();
    for (const service of services.splice(0)) await service.close();
    for (const repo of repos.splice(0)) await repo.cleanup();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    run: async (options, seams) => {
      const result = await runActionInProcess(options, seams);
      runs.push(result);
      return result;
    },
    post: runPostInProcess,
    keep: (repo) => {
      repos.push(repo);
      return repo;
    },
    github: async (options) => {
      const server = await startGitHubServer(options);
      servers.push(server);
      return server;
    },
    dir: (path) => {
      dirs.push(path);
      return path;
    },
    artifactService: async () => {
      const service = await startArtifactService();
      services.push(service);
      return service;
    },
  };
}
