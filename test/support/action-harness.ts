/**
 * Runs the bundled action (`node dist/index.js`) the way the GitHub runner does (CONVENTIONS, testing
 * doctrine): inputs as `INPUT_<NAME>` variables (upper-cased, dashes kept) with `action.yml`'s defaults
 * filled in for the inputs a test does not give, a real `pull_request` webhook payload at
 * `GITHUB_EVENT_PATH`, `GITHUB_API_URL` at the local GitHub server, the file-command files
 * (`GITHUB_OUTPUT`, `GITHUB_STATE`, `GITHUB_STEP_SUMMARY`) as temp files, `RUNNER_TEMP` and
 * `RUNNER_TOOL_CACHE` as temp folders, and the model credential as the input `anthropic-api-key`.
 *
 * The child is spawned asynchronously: the scripted model server and the GitHub server live in the test
 * process and must keep answering while the action runs.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterEach } from "vitest";
import { actionInputDefaults as inputDefaults, inputVariable } from "./action-inputs-env.js";
import {
  DEFAULT_REPOSITORY,
  type GitHubServer,
  type RecordedCall,
  startGitHubServer,
  type Violation,
} from "./github-server/index.js";
import {
  claudeEnvFor,
  type ModelScript,
  type ModelServer,
  type RecordedRequest,
  SCRIPTED_API_KEY,
  startModelServer,
} from "./model-server/index.js";
import { REPO_ROOT } from "./repo-root.js";
import type { TempRepo } from "./temp-repo.js";
import { activeWorkflowCommands } from "./workflow-commands.js";

export { activeWorkflowCommands, inputVariable, REPO_ROOT };
export const ACTION_ENTRY = join(REPO_ROOT, "dist", "index.js");
export const POST_ENTRY = join(REPO_ROOT, "dist", "post.js");
export const NODE_MODULES_BIN = join(REPO_ROOT, "node_modules", ".bin");
const EVENT_FIXTURE = join(REPO_ROOT, "test", "fixtures", "events", "pull_request.opened.json");

/**
 * The API waits of both steps, scaled to one millisecond per second (`EVIDENCE_GATE_BACKOFF_SECOND_MS`,
 * src/github/octokit.ts; README "Check runs"): a scripted 5xx is retried exactly as in production (the same
 * attempts, in the same order) but after 1 + 4 + 9 ms instead of 1 + 4 + 9 s, and writes are not spaced one
 * second apart. test/github/octokit.test.ts holds the production schedule itself. A test that wants
 * GitHub's own waits passes `env: { EVIDENCE_GATE_BACKOFF_SECOND_MS: undefined }`.
 */
const FAST_BACKOFF = { EVIDENCE_GATE_BACKOFF_SECOND_MS: "1" } as const;

/** The token the action gets as `github-token` (the runner's default is `${{ github.token }}`). */
export const TEST_GITHUB_TOKEN = "ghs_actionHarnessTestToken0000000000000";
export const TEST_RUN_ID = "7654321";
/** `GITHUB_REPOSITORY`: the repository the GitHub server holds from the start. */
export const TEST_REPOSITORY = DEFAULT_REPOSITORY;

export interface RunActionOptions {
  /** The checkout (`GITHUB_WORKSPACE`). */
  readonly workspace: string;
  /** Inputs by their `action.yml` name (`verify-cmd`, …). `anthropic-api-key` defaults to the scripted key. */
  readonly inputs: Readonly<Record<string, string>>;
  readonly github: GitHubServer;
  /**
   * The triggering event. Default `pull_request` (the fixture payload, head and base as below);
   * `workflow_dispatch` is how a person starts `mode: resume` (payload `inputs` as given, `ref` main).
   */
  readonly event?:
    | "pull_request"
    | { readonly name: "workflow_dispatch"; readonly inputs?: Record<string, string> }
    /** Any event with its payload as given (e.g. a webhook example from `@octokit/webhooks-examples`; `workflow_run` for `mode: report`). */
    | { readonly name: string; readonly payload: Record<string, unknown> };
  /**
   * `OWNER/NAME` of the pull request's head repository (`pull_request`): another repository than
   * {@link TEST_REPOSITORY} makes it a fork's pull request. Default: the base repository.
   */
  readonly headRepository?: string;
  /** The scripted model server (`ANTHROPIC_BASE_URL`); omit for runs that must never reach a model. */
  readonly model?: ModelServer;
  /** `pull_request.head.sha` of the payload; default: the workspace's `HEAD`. */
  readonly headSha?: string;
  /** `pull_request.base.sha`; default: the fixture's. */
  readonly baseSha?: string;
  /** `GITHUB_SHA` (for `pull_request`, the merge commit); default: the workspace's `HEAD`. */
  readonly githubSha?: string;
  /**
   * Put `node_modules/.bin` (where `claude` is) on PATH. Default true; false removes every `claude`, and
   * leaves the default tool cache empty.
   */
  readonly claudeOnPath?: boolean;
  /** Folders put first on PATH (e.g. a stand-in `npm`). */
  readonly prependPath?: readonly string[];
  /**
   * The folder `RUNNER_TEMP` is made in (default: the system temp directory). A codex run needs one
   * outside `/tmp` (src/action/codex-home.ts), as on GitHub-hosted runners (`/home/runner/work/_temp`).
   */
  readonly runnerTempParent?: string;
  /**
   * A `RUNNER_TOOL_CACHE` to use, as is. Default: a fresh temp folder holding `claude` and `codex` at the
   * `claude-version` / `codex-version` of the run's inputs, linked to {@link toolCacheClis}' executables —
   * the action never runs a model CLI from PATH (issue 12 item 4).
   */
  readonly toolCache?: string;
  /** The executables the default tool cache links (default: the pinned CLIs in `node_modules/.bin`). */
  readonly toolCacheClis?: { readonly claude?: string; readonly codex?: string };
  /** Extra variables over everything else; `undefined` removes one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Edits the webhook payload before it is written (a fork's head repository, `action: synchronize`, …). */
  readonly editPayload?: (payload: Record<string, unknown>) => void;
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

/** Something that arrived at one of the servers, in arrival order across both. */
export interface TimelineEntry {
  readonly source: "github" | "model";
  /** The call (GitHub) or request (model) itself. */
  readonly github?: RecordedCall;
  readonly model?: RecordedRequest;
}

export interface ActionRun {
  /** The step's exit code (the runner fails the step on non-zero). */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** `GITHUB_OUTPUT`, parsed. */
  readonly outputs: Readonly<Record<string, string>>;
  /** `GITHUB_STATE`, parsed (what the post step would get as `STATE_*`). */
  readonly state: Readonly<Record<string, string>>;
  /** The job summary file (`GITHUB_STEP_SUMMARY`) as written; `""` when nothing was written. */
  readonly summary: string;
  /** The GitHub server's calls made during this run. */
  readonly calls: readonly RecordedCall[];
  readonly violations: readonly Violation[];
  /** The model server's requests made during this run (`[]` without a model server). */
  readonly modelRequests: readonly RecordedRequest[];
  /** Both servers' traffic during this run, in arrival order. */
  readonly timeline: readonly TimelineEntry[];
  /** `RUNNER_TEMP` of the run (run directories live under it). */
  readonly runnerTemp: string;
  /** The webhook payload given at `GITHUB_EVENT_PATH`. */
  readonly payload: Record<string, unknown>;
  /** The workflow-command lines (`::name …::…`) the runner would act on, i.e. outside stop-commands windows. */
  readonly commands: readonly string[];
}

/** `action.yml`'s inputs with their defaults, as the runner reads them (`github-token`: {@link TEST_GITHUB_TOKEN}). */
export function actionInputDefaults(): Record<string, string> {
  return inputDefaults(TEST_GITHUB_TOKEN);
}

/**
 * Parses a file-command file (`GITHUB_OUTPUT`, `GITHUB_STATE`) as the runner does: `name<<DELIM` … `DELIM`
 * blocks (what `@actions/core` writes) and one-line `name=value` entries. A later entry wins.
 */
export function parseFileCommand(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    if (heredoc !== null && (!line.includes("=") || line.indexOf("<<") < line.indexOf("="))) {
      const [, name, delimiterToken] = heredoc;
      const value: string[] = [];
      i += 1;
      while (i < lines.length && lines[i] !== delimiterToken) value.push(lines[i++]!);
      if (i >= lines.length)
        throw new Error(`file command: ${name} has no closing delimiter ${delimiterToken}`);
      result[name!] = value.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`file command: cannot parse line ${JSON.stringify(line)}`);
    result[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return result;
}

/**
 * Puts `executable` in `cache` as `@actions/tool-cache` finds it: `<name>/<version>/<arch>/node_modules/.bin/<bin>`
 * (a link to the executable's real path) and the `<arch>.complete` marker.
 *
 * @returns the link's path (what the action logs as the tool cache's executable).
 */
export function populateToolCache(
  cache: string,
  name: string,
  version: string,
  bin: string,
  executable: string,
): string {
  const dir = join(cache, name, version, process.arch);
  const link = join(dir, "node_modules", ".bin", bin);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(realpathSync(executable), link);
  writeFileSync(`${dir}.complete`, "");
  return link;
}

/** PATH entries without any folder that holds an executable `claude`. */
function pathWithoutClaude(path: string): string[] {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "")
    .filter((dir) => {
      try {
        accessSync(join(dir, "claude"), constants.X_OK);
        return false;
      } catch {
        return true;
      }
    });
}

/** Records both servers' traffic in arrival order (wraps the `push` of their recording arrays). */
function recordTimeline(
  github: GitHubServer,
  model: ModelServer | undefined,
): {
  timeline: TimelineEntry[];
  restore: () => void;
} {
  const timeline: TimelineEntry[] = [];
  const githubPush = github.calls.push;
  github.calls.push = (...items: RecordedCall[]) => {
    for (const call of items) timeline.push({ source: "github", github: call });
    return githubPush.apply(github.calls, items);
  };
  const modelPush = model?.requests.push;
  if (model !== undefined && modelPush !== undefined) {
    model.requests.push = (...items: RecordedRequest[]) => {
      for (const request of items) timeline.push({ source: "model", model: request });
      return modelPush.apply(model.requests, items);
    };
  }
  return {
    timeline,
    restore: () => {
      github.calls.push = githubPush;
      if (model !== undefined && modelPush !== undefined) model.requests.push = modelPush;
    },
  };
}

async function gitHead(dir: string): Promise<string> {
  const child = spawn("git", ["rev-parse", "HEAD"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    // Any owner's checkout (a test may give it to the user the action runs as: `runAs`).
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "safe.directory",
      GIT_CONFIG_VALUE_0: "*",
    },
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  const code = await new Promise<number | null>((done) => child.on("close", done));
  if (code !== 0) throw new Error(`git rev-parse HEAD failed in ${dir}`);
  return out.trim();
}

/**
 * Runs `node dist/index.js` once. The caller owns the servers; this owns (and removes) its temp files,
 * except `RUNNER_TEMP`, which stays until {@link cleanupActionRun} so tests can read the run directory.
 */
export async function runActionStep(options: RunActionOptions): Promise<ActionRun> {
  if (!existsSync(ACTION_ENTRY)) throw new Error(`${ACTION_ENTRY} is missing: run npm run build`);
  const files = mkdtempSync(join(tmpdir(), "eg-action-files-"));
  const runnerTemp = mkdtempSync(join(options.runnerTempParent ?? tmpdir(), "eg-runner-temp-"));
  const toolCache = options.toolCache ?? mkdtempSync(join(tmpdir(), "eg-tool-cache-"));
  const home = mkdtempSync(join(tmpdir(), "eg-action-home-"));
  const head = await gitHead(options.workspace);
  const headSha = options.headSha ?? head;

  const pullRequest = JSON.parse(readFileSync(EVENT_FIXTURE, "utf8")) as {
    pull_request: { head: { sha: string }; base: { sha: string } };
    repository: unknown;
    sender: unknown;
  } & Record<string, unknown>;
  pullRequest.pull_request.head.sha = headSha;
  if (options.baseSha !== undefined) pullRequest.pull_request.base.sha = options.baseSha;
  if (options.headRepository !== undefined) {
    const head = pullRequest.pull_request.head as unknown as { repo: Record<string, unknown> | null };
    const [login, name] = options.headRepository.split("/");
    head.repo = {
      ...head.repo,
      id: 99_000_001,
      name,
      full_name: options.headRepository,
      fork: true,
      owner: { ...(head.repo?.owner as Record<string, unknown>), login, id: 99_000_002 },
    };
  }
  const dispatch = options.event !== undefined && options.event !== "pull_request" ? options.event : null;
  // A workflow_dispatch payload (GitHub's webhook "workflow_dispatch"): inputs, ref, repository, sender, workflow.
  const payload: Record<string, unknown> =
    dispatch === null
      ? pullRequest
      : "payload" in dispatch
        ? dispatch.payload
        : {
            inputs: dispatch.inputs ?? {},
            ref: "refs/heads/main",
            repository: pullRequest.repository,
            sender: pullRequest.sender,
            workflow: ".github/workflows/evidence-gate-resume.yml",
          };
  options.editPayload?.(payload);
  const eventPath = join(files, "event.json");
  writeFileSync(eventPath, JSON.stringify(payload, null, 2));
  const outputPath = join(files, "output");
  const statePath = join(files, "state");
  const summaryPath = join(files, "step_summary");
  for (const p of [outputPath, statePath, summaryPath]) writeFileSync(p, "");

  const claudeOnPath = options.claudeOnPath ?? true;
  const basePath = pathWithoutClaude(process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin");
  if (!basePath.includes(dirname(process.execPath))) basePath.unshift(dirname(process.execPath));
  const path = [
    ...(options.prependPath ?? []),
    ...(claudeOnPath ? [NODE_MODULES_BIN] : []),
    ...basePath,
  ].join(delimiter);

  const inputs: Record<string, string> = {
    ...actionInputDefaults(),
    "anthropic-api-key": SCRIPTED_API_KEY,
    // These tests run as root, where the default (auto) would switch PR code to the separate user; their
    // probes and fake CLIs live in private temp folders. The tests of that user set it themselves.
    "isolate-user": "false",
    ...options.inputs,
  };
  if (options.toolCache === undefined && (options.claudeOnPath ?? true)) {
    const clis = {
      claude: options.toolCacheClis?.claude ?? join(NODE_MODULES_BIN, "claude"),
      codex: options.toolCacheClis?.codex ?? join(NODE_MODULES_BIN, "codex"),
    };
    populateToolCache(toolCache, "claude-code", inputs["claude-version"]!, "claude", clis.claude);
    populateToolCache(toolCache, "codex", inputs["codex-version"]!, "codex", clis.codex);
  }
  const inputEnv = Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [inputVariable(name), value]),
  );
  // Everything claudeEnvFor sets except the key (it arrives as the input) and HOME (the action gives
  // each CLI a fresh one).
  const {
    ANTHROPIC_API_KEY: _key,
    HOME: _home,
    ...modelEnv
  } = claudeEnvFor(options.model?.url ?? "http://127.0.0.1:9", home);
  const env: Record<string, string | undefined> = {
    PATH: path,
    HOME: home,
    LANG: process.env.LANG ?? "C.UTF-8",
    TMPDIR: process.env.TMPDIR,
    // Hermetic git: the machine's global and system config are not read.
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: dispatch === null ? "pull_request" : dispatch.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: TEST_REPOSITORY,
    GITHUB_REPOSITORY_OWNER: TEST_REPOSITORY.split("/")[0],
    GITHUB_API_URL: options.github.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_GRAPHQL_URL: `${options.github.url}/graphql`,
    GITHUB_RUN_ID: TEST_RUN_ID,
    GITHUB_RUN_NUMBER: "12",
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_WORKFLOW: "evidence-gate",
    GITHUB_JOB: "gate",
    GITHUB_ACTOR: "mona",
    GITHUB_SHA: options.githubSha ?? head,
    GITHUB_REF:
      dispatch === null || dispatch.name === "pull_request" ? "refs/pull/42/merge" : "refs/heads/main",
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STATE: statePath,
    RUNNER_TEMP: runnerTemp,
    RUNNER_TOOL_CACHE: toolCache,
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    ...FAST_BACKOFF,
    ...modelEnv,
    ...inputEnv,
    ...options.env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  if (options.runAs !== undefined) {
    const { uid, gid } = options.runAs;
    for (const dir of [files, runnerTemp, toolCache, home])
      execFileSync("chown", ["-R", "-h", `${uid}:${gid}`, dir]);
  }

  const callsBefore = options.github.calls.length;
  const violationsBefore = options.github.violations.length;
  const requestsBefore = options.model?.requests.length ?? 0;
  const { timeline, restore } = recordTimeline(options.github, options.model);
  try {
    const { exitCode, stdout, stderr } = await runStep(ACTION_ENTRY, {
      cwd: options.workspace,
      env,
      timeoutMs: options.timeoutMs ?? 120_000,
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
      ...(options.runAs ? { runAs: options.runAs } : {}),
    });
    return {
      exitCode,
      stdout,
      stderr,
      outputs: parseFileCommand(readFileSync(outputPath, "utf8")),
      state: parseFileCommand(readFileSync(statePath, "utf8")),
      summary: readFileSync(summaryPath, "utf8"),
      calls: options.github.calls.slice(callsBefore),
      violations: options.github.violations.slice(violationsBefore),
      modelRequests: options.model?.requests.slice(requestsBefore) ?? [],
      timeline,
      runnerTemp,
      payload,
      commands: activeWorkflowCommands(stdout),
    };
  } finally {
    restore();
    rmSync(files, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    if (options.toolCache === undefined) rmSync(toolCache, { recursive: true, force: true });
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

export interface RunPostOptions {
  readonly github: GitHubServer;
  /** What the main step saved (`GITHUB_STATE`, parsed): the runner passes each entry as `STATE_<name>`. */
  readonly state: Readonly<Record<string, string>>;
  /** Inputs by their `action.yml` name, over `action.yml`'s defaults (the post step gets the same inputs). */
  readonly inputs?: Readonly<Record<string, string>>;
  /** Extra variables over everything else; `undefined` removes one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Kill the post step after this long (default 60 s). */
  readonly timeoutMs?: number;
}

export interface PostRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The post step's own job summary file (`GITHUB_STEP_SUMMARY`); `""` when nothing was written. */
  readonly summary: string;
  /** The GitHub server's calls made during this step. */
  readonly calls: readonly RecordedCall[];
  readonly violations: readonly Violation[];
  /** The workflow-command lines (`::error::…`, `::warning::…`) the runner would act on. */
  readonly commands: readonly string[];
}

/**
 * Runs `node dist/post.js` once, as the runner runs a JavaScript action's post step: the inputs as
 * `INPUT_<NAME>` variables, the main step's saved state as `STATE_<name>` variables, the runner's
 * `GITHUB_*` variables and fresh file-command files of its own.
 */
export async function runPostStep(options: RunPostOptions): Promise<PostRun> {
  if (!existsSync(POST_ENTRY)) throw new Error(`${POST_ENTRY} is missing: run npm run build`);
  const files = mkdtempSync(join(tmpdir(), "eg-post-files-"));
  const runnerTemp = mkdtempSync(join(tmpdir(), "eg-runner-temp-"));
  const summaryPath = join(files, "step_summary");
  const outputPath = join(files, "output");
  const statePath = join(files, "state");
  for (const p of [outputPath, statePath, summaryPath]) writeFileSync(p, "");
  const inputs: Record<string, string> = { ...actionInputDefaults(), ...options.inputs };
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: runnerTemp,
    LANG: process.env.LANG ?? "C.UTF-8",
    TMPDIR: process.env.TMPDIR,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_REPOSITORY: TEST_REPOSITORY,
    GITHUB_REPOSITORY_OWNER: TEST_REPOSITORY.split("/")[0],
    GITHUB_API_URL: options.github.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: TEST_RUN_ID,
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STATE: statePath,
    RUNNER_TEMP: runnerTemp,
    RUNNER_OS: "Linux",
    ...FAST_BACKOFF,
    ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [inputVariable(name), value])),
    ...Object.fromEntries(Object.entries(options.state).map(([name, value]) => [`STATE_${name}`, value])),
    ...options.env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const callsBefore = options.github.calls.length;
  const violationsBefore = options.github.violations.length;
  try {
    const { exitCode, stdout, stderr } = await runStep(POST_ENTRY, {
      cwd: runnerTemp,
      env,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return {
      exitCode,
      stdout,
      stderr,
      summary: readFileSync(summaryPath, "utf8"),
      calls: options.github.calls.slice(callsBefore),
      violations: options.github.violations.slice(violationsBefore),
      commands: activeWorkflowCommands(stdout),
    };
  } finally {
    rmSync(files, { recursive: true, force: true });
    rmSync(runnerTemp, { recursive: true, force: true });
  }
}

/** Removes what a run left behind (its `RUNNER_TEMP`). */
export function cleanupActionRun(run: ActionRun): void {
  rmSync(run.runnerTemp, { recursive: true, force: true });
}

/** The end of a step's output and its exit code, for an assertion's message. */
export function stepDebug(
  result: Pick<ActionRun, "exitCode" | "stdout" | "stderr">,
  stdoutChars = 4000,
): string {
  return `exit ${result.exitCode}\n--- stdout\n${result.stdout.slice(-stdoutChars)}\n--- stderr\n${result.stderr.slice(-2000)}`;
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

/** The check-run writes of a run (`POST` create, `PATCH` update/complete), in order, with their bodies. */
export function checkRunWrites(
  run: ActionRun,
): Array<{ method: string; body: CheckRunWriteBody; status: number }> {
  return run.calls
    .filter(
      (c) =>
        c.route === "/repos/{owner}/{repo}/check-runs" ||
        c.route === "/repos/{owner}/{repo}/check-runs/{check_run_id}",
    )
    .map((c) => ({ method: c.method, body: c.body as CheckRunWriteBody, status: c.status }));
}

export interface CheckRunWriteBody {
  readonly name?: string;
  readonly head_sha?: string;
  readonly status?: string;
  readonly conclusion?: string;
  readonly external_id?: string;
  readonly output?: { readonly title?: string; readonly summary?: string; readonly text?: string };
}

/** The last write that completed the check run (`conclusion` set), or undefined. */
export function completion(run: ActionRun): CheckRunWriteBody | undefined {
  return checkRunWrites(run)
    .map((w) => w.body)
    .filter((b) => b.conclusion !== undefined)
    .at(-1);
}

/** One artifact the stand-in artifact service received. */
export interface UploadedArtifact {
  readonly name: string;
  /** The zip as uploaded (blocks committed in order). */
  readonly zip: Buffer;
  readonly finalized: boolean;
  readonly id: number;
}

/**
 * A local stand-in for the runner's artifact service (the Twirp "results" API and the blob store that
 * `@actions/artifact` talks to): `CreateArtifact` answers a signed upload URL on this server, blocks and
 * the block list are stored, `FinalizeArtifact` answers an id. Point the action at it with
 * {@link ArtifactService.env}. Requests without the runtime token are refused with 401.
 */
export interface ArtifactService {
  readonly url: string;
  readonly artifacts: UploadedArtifact[];
  /** `ACTIONS_RUNTIME_TOKEN` (a JWT with the `Actions.Results` scope) and `ACTIONS_RESULTS_URL`. */
  readonly env: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

const TWIRP = "/twirp/github.actions.results.api.v1.ArtifactService/";

export async function startArtifactService(): Promise<ArtifactService> {
  const { createServer } = await import("node:http");
  const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const token = `${b64url({ alg: "none", typ: "JWT" })}.${b64url({
    scp: "Actions.GenericRead:run Actions.Results:run-backend-id:job-backend-id",
  })}.c2lnbmF0dXJl`;
  const artifacts: UploadedArtifact[] = [];
  const blobs = new Map<string, { blocks: Map<string, Buffer>; data: Buffer | null }>();
  let nextId = 100;
  let url = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const at = new URL(req.url ?? "/", url);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (req.method === "POST" && at.pathname.startsWith(TWIRP)) {
        if (req.headers.authorization !== `Bearer ${token}`) return json(401, { code: "unauthenticated" });
        const request = JSON.parse(body.toString("utf8")) as { name: string; size?: string };
        const method = at.pathname.slice(TWIRP.length);
        if (method === "CreateArtifact") {
          blobs.set(request.name, { blocks: new Map(), data: null });
          return json(200, {
            ok: true,
            signedUploadUrl: `${url}/devstoreaccount1/artifacts/${encodeURIComponent(request.name)}.zip?sig=test-signature`,
          });
        }
        if (method === "FinalizeArtifact") {
          const blob = blobs.get(request.name);
          if (blob?.data == null) return json(400, { code: "failed_precondition", msg: "nothing uploaded" });
          const id = nextId++;
          artifacts.push({ name: request.name, zip: blob.data, finalized: true, id });
          return json(200, { ok: true, artifactId: String(id) });
        }
        return json(404, { code: "bad_route", msg: method });
      }
      const blobMatch = /^\/devstoreaccount1\/artifacts\/(.+)\.zip$/.exec(at.pathname);
      if (req.method === "PUT" && blobMatch !== null) {
        if (at.searchParams.get("sig") !== "test-signature") {
          res.writeHead(403).end();
          return;
        }
        const blob = blobs.get(decodeURIComponent(blobMatch[1]!));
        if (blob === undefined) {
          res.writeHead(404).end();
          return;
        }
        const comp = at.searchParams.get("comp");
        if (comp === "block") blob.blocks.set(at.searchParams.get("blockid") ?? "", body);
        else if (comp === "blocklist") {
          const ids = [...body.toString("utf8").matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)</g)].map(
            (m) => m[1]!,
          );
          blob.data = Buffer.concat(ids.map((id) => blob.blocks.get(id) ?? Buffer.alloc(0)));
        } else blob.data = body;
        res.writeHead(201, {
          etag: '"0x8D000000000000"',
          "last-modified": new Date().toUTCString(),
          "x-ms-request-id": "00000000-0000-0000-0000-000000000000",
          "x-ms-version": "2025-01-05",
          "x-ms-request-server-encrypted": "true",
        });
        res.end();
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    artifacts,
    env: { ACTIONS_RUNTIME_TOKEN: token, ACTIONS_RESULTS_URL: `${url}/` },
    close: () =>
      new Promise((done, fail) => {
        server.closeAllConnections();
        server.close((e) => (e ? fail(e) : done()));
      }),
  };
}

/** The files of a zip archive, name → content (stored or deflated entries, read from the central directory). */
export async function readZip(zip: Buffer): Promise<Map<string, Buffer>> {
  const { inflateRawSync } = await import("node:zlib");
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1) throw new Error("not a zip: no end of central directory");
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("zip: bad central directory entry");
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const localData =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(localData, localData + compressedSize);
    if (!name.endsWith("/")) files.set(name, method === 0 ? Buffer.from(data) : inflateRawSync(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}
