/**
 * Runs the bundled action (`node dist/index.js`, and `dist/post.js`) the way the GitHub runner does
 * (CONVENTIONS, testing doctrine), in the step world `action-step.ts` sets up (inputs as `INPUT_*`
 * variables, the webhook payload, the file-command files, `RUNNER_TEMP`, the tool cache), with the real
 * `claude` and `codex` linked into the default tool cache and the model credential as the input
 * `anthropic-api-key`. The in-process twin for the port tier is `action-in-process.ts`.
 *
 * The child is spawned asynchronously: the scripted model server and the GitHub server live in the test
 * process and must keep answering while the action runs.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import {
  type ActionRun,
  type ActionStepOptions,
  actionInputDefaults,
  activeWorkflowCommands,
  type CheckRunWriteBody,
  checkRunApiCalls,
  checkRunWrites,
  cleanupActionRun,
  completion,
  inputVariable,
  type PostRun,
  parseFileCommand,
  populateToolCache,
  prepareActionStep,
  preparePostStep,
  type RunPostOptions,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
  TEST_RUN_ID,
  type TimelineEntry,
} from "./action-step.js";
import {
  type ArtifactService,
  readZip,
  startArtifactService,
  type UploadedArtifact,
} from "./artifact-service.js";
import { type GitHubServer, startGitHubServer } from "./github-server/index.js";
import { type ModelScript, type ModelServer, startModelServer } from "./model-server/index.js";
import { REPO_ROOT } from "./repo-root.js";
import type { TempRepo } from "./temp-repo.js";

export {
  type ActionRun,
  type ActionStepOptions,
  type ArtifactService,
  actionInputDefaults,
  activeWorkflowCommands,
  type CheckRunWriteBody,
  checkRunApiCalls,
  checkRunWrites,
  cleanupActionRun,
  completion,
  inputVariable,
  type PostRun,
  parseFileCommand,
  populateToolCache,
  REPO_ROOT,
  type RunPostOptions,
  readZip,
  startArtifactService,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
  TEST_RUN_ID,
  type TimelineEntry,
  type UploadedArtifact,
};
export const ACTION_ENTRY = join(REPO_ROOT, "dist", "index.js");
export const POST_ENTRY = join(REPO_ROOT, "dist", "post.js");
export const NODE_MODULES_BIN = join(REPO_ROOT, "node_modules", ".bin");

export interface RunActionOptions extends ActionStepOptions {
  /** The scripted model server (`ANTHROPIC_BASE_URL`); omit for runs that must never reach a model. */
  readonly model?: ModelServer;
  /**
   * Put `node_modules/.bin` (where `claude` is) on PATH. Default true; false removes every `claude`, and
   * leaves the default tool cache empty.
   */
  readonly claudeOnPath?: boolean;
  /** The executables the default tool cache links (default: the pinned CLIs in `node_modules/.bin`). */
  readonly toolCacheClis?: { readonly claude?: string; readonly codex?: string };
  /** Kill the action after this long (default 120 s). */
  readonly timeoutMs?: number;
  /** Told once the child is spawned (e.g. to kill it mid-run as a runner or an OOM killer would). */
  readonly onSpawn?: (child: ChildProcess) => void;
  /**
   * Start `node dist/index.js` as this user (the test runs as root), as a runner's service starts it as
   * its own user: the harness's own temp folders and files (the file-command files, the event payload,
   * `HOME`, the default `RUNNER_TEMP` and tool cache) are given to the user first. The workspace and any
   * folder given in `env` are the caller's to give. Default: the test's own user.
   */
  readonly runAs?: { readonly uid: number; readonly gid: number };
}

/**
 * Runs `node dist/index.js` once. The caller owns the servers; this owns (and removes) its temp files,
 * except `RUNNER_TEMP`, which stays until {@link cleanupActionRun} so tests can read the run directory.
 * The default tool cache links the pinned `claude` and `codex` (or `toolCacheClis`).
 */
export async function runActionStep(options: RunActionOptions): Promise<ActionRun> {
  if (!existsSync(ACTION_ENTRY)) throw new Error(`${ACTION_ENTRY} is missing: run npm run build`);
  const claudeOnPath = options.claudeOnPath ?? true;
  const step = await prepareActionStep(options, {
    ...(options.model !== undefined ? { model: options.model } : {}),
    pathHead: claudeOnPath ? [NODE_MODULES_BIN] : [],
    fillToolCache: (toolCache, inputs) => {
      if (!claudeOnPath) return;
      const clis = {
        claude: options.toolCacheClis?.claude ?? join(NODE_MODULES_BIN, "claude"),
        codex: options.toolCacheClis?.codex ?? join(NODE_MODULES_BIN, "codex"),
      };
      populateToolCache(toolCache, "claude-code", inputs["claude-version"]!, "claude", clis.claude);
      populateToolCache(toolCache, "codex", inputs["codex-version"]!, "codex", clis.codex);
    },
  });
  try {
    if (options.runAs !== undefined) {
      const { uid, gid } = options.runAs;
      for (const dir of [step.files, step.runnerTemp, step.toolCache, step.home])
        execFileSync("chown", ["-R", "-h", `${uid}:${gid}`, dir]);
    }
    const result = await runStep(ACTION_ENTRY, {
      cwd: options.workspace,
      env: step.env,
      timeoutMs: options.timeoutMs ?? 120_000,
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      ...(options.runAs ? { runAs: options.runAs } : {}),
    });
    return step.collect(result);
  } finally {
    step.abandon();
  }
}

/**
 * `node ENTRY` as the runner runs a step: in `cwd` with exactly `env`, killed (SIGKILL) after `timeoutMs`;
 * resolves with its exit code (null when killed) and output once it closed.
 */
async function runStep(
  entry: string,
  o: {
    readonly cwd: string;
    readonly env: Record<string, string | undefined>;
    readonly timeoutMs: number;
    readonly onSpawn?: (child: ChildProcess) => void;
    /** Start it as this user (setuid and setgid by Node; supplementary groups dropped). */
    readonly runAs?: { readonly uid: number; readonly gid: number };
  },
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [entry], {
    cwd: o.cwd,
    env: o.env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    ...(o.runAs ?? {}),
  });
  o.onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    stderr += c;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs);
  const exitCode = await new Promise<number | null>((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => done(code));
  }).finally(() => clearTimeout(timer));
  return { exitCode, stdout, stderr };
}

/**
 * Runs `node dist/post.js` once, as the runner runs a JavaScript action's post step (the step's world:
 * `preparePostStep` in action-step.ts).
 */
export async function runPostStep(options: RunPostOptions): Promise<PostRun> {
  if (!existsSync(POST_ENTRY)) throw new Error(`${POST_ENTRY} is missing: run npm run build`);
  const step = preparePostStep(options);
  try {
    const result = await runStep(POST_ENTRY, {
      cwd: step.cwd,
      env: step.env,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return step.collect(result);
  } finally {
    step.abandon();
  }
}

/**
 * What an action test started, all stopped or removed after each test: the servers, the repositories,
 * the runs' `RUNNER_TEMP`s, other folders, and processes a killed step left behind (killed by their ids).
 */
export interface ActionTestResources {
  github?: GitHubServer;
  model?: ModelServer;
  service?: ArtifactService;
  repos: TempRepo[];
  runs: ActionRun[];
  dirs: string[];
  pids: number[];
  /** {@link runActionStep}, its `RUNNER_TEMP` removed after the test. */
  run(options: RunActionOptions): Promise<ActionRun>;
  /** `repo`, removed after the test. */
  keep<R extends TempRepo>(repo: R): R;
  /** Starts the GitHub server and the model server playing `script`, both closed after the test. */
  servers(script: ModelScript): Promise<{ github: GitHubServer; model: ModelServer }>;
}

/** The resources of a test file's action tests, cleaned up after each test (registers `afterEach`). */
export function actionTestResources(): ActionTestResources {
  const open: ActionTestResources = {
    repos: [],
    runs: [],
    dirs: [],
    pids: [],
    run: async (options) => {
      const result = await runActionStep(options);
      open.runs.push(result);
      return result;
    },
    keep: (repo) => {
      open.repos.push(repo);
      return repo;
    },
    servers: async (script) => {
      const github = await startGitHubServer();
      open.github = github;
      const model = await startModelServer({ script });
      open.model = model;
      return { github, model };
    },
  };
  afterEach(async () => {
    // A verify command orphaned by a killed main step (it runs in its own process group): end it by its id.
    for (const pid of open.pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    for (const run of open.runs) cleanupActionRun(run);
    await open.github?.close();
    await open.model?.close();
    await open.service?.close();
    for (const repo of open.repos) await repo.cleanup();
    for (const dir of open.dirs) rmSync(dir, { recursive: true, force: true });
    open.github = undefined;
    open.model = undefined;
    open.service = undefined;
    open.repos = [];
    open.runs = [];
    open.dirs = [];
    open.pids = [];
  });
  return open;
}
