/**
 * One action step's world, as the GitHub runner sets it up (CONVENTIONS, testing doctrine), for either way
 * of running the action: `node dist/index.js` (`action-harness.ts`, the e2e tier) or the action's
 * `runAction` in-process with the model calls as a port (`action-in-process.ts`, the fast tier). Inputs as
 * `INPUT_<NAME>` variables (upper-cased, dashes kept) with `action.yml`'s defaults filled in for the inputs a
 * test does not give, a real `pull_request` webhook payload at `GITHUB_EVENT_PATH`, `GITHUB_API_URL` at the
 * local GitHub server, the file-command files (`GITHUB_OUTPUT`, `GITHUB_STATE`, `GITHUB_STEP_SUMMARY`) as
 * temp files, `RUNNER_TEMP` and `RUNNER_TOOL_CACHE` as temp folders, and the model credential as the input
 * `anthropic-api-key`. Starts no process but `git rev-parse HEAD`.
 */
import { spawn } from "node:child_process";
import {
  accessSync,
  constants,
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
import { actionInputDefaults as inputDefaults, inputVariable } from "./action-inputs-env.js";
import {
  DEFAULT_REPOSITORY,
  type GitHubServer,
  type RecordedCall,
  type Violation,
} from "./github-server/index.js";
import {
  claudeEnvFor,
  type ModelServer,
  type RecordedRequest,
  SCRIPTED_API_KEY,
} from "./model-server/index.js";
import { REPO_ROOT } from "./repo-root.js";
import { activeWorkflowCommands } from "./workflow-commands.js";

export { activeWorkflowCommands, inputVariable };

const EVENT_FIXTURE = join(REPO_ROOT, "test", "fixtures", "events", "pull_request.opened.json");

/**
 * The API waits of both steps, scaled to one millisecond per second (`EVIDENCE_GATE_BACKOFF_SECOND_MS`,
 * src/github/octokit.ts; README "Check runs"): a scripted 5xx is retried exactly as in production (the same
 * attempts, in the same order) but after 1 + 4 + 9 ms instead of 1 + 4 + 9 s, and writes are not spaced one
 * second apart. test/github/octokit.test.ts holds the production schedule itself. A test that wants
 * GitHub's own waits passes `env: { EVIDENCE_GATE_BACKOFF_SECOND_MS: undefined }`.
 */
export const FAST_BACKOFF = { EVIDENCE_GATE_BACKOFF_SECOND_MS: "1" } as const;

/** The token the action gets as `github-token` (the runner's default is `${{ github.token }}`). */
export const TEST_GITHUB_TOKEN = "ghs_actionHarnessTestToken0000000000000";
export const TEST_RUN_ID = "7654321";
/** `GITHUB_REPOSITORY`: the repository the GitHub server holds from the start. */
export const TEST_REPOSITORY = DEFAULT_REPOSITORY;

export interface ActionStepOptions {
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
  /** `pull_request.head.sha` of the payload; default: the workspace's `HEAD`. */
  readonly headSha?: string;
  /** `pull_request.base.sha`; default: the fixture's. */
  readonly baseSha?: string;
  /** `GITHUB_SHA` (for `pull_request`, the merge commit); default: the workspace's `HEAD`. */
  readonly githubSha?: string;
  /** Folders put first on PATH (e.g. a stand-in `npm`). */
  readonly prependPath?: readonly string[];
  /**
   * The folder `RUNNER_TEMP` is made in (default: the system temp directory). A codex run needs one
   * outside `/tmp` (src/action/codex-home.ts), as on GitHub-hosted runners (`/home/runner/work/_temp`).
   */
  readonly runnerTempParent?: string;
  /**
   * A `RUNNER_TOOL_CACHE` to use, as is (kept after the step). Default: a fresh temp folder the caller
   * fills ({@link StepSetup.fillToolCache}), removed after the step.
   */
  readonly toolCache?: string;
  /** Extra variables over everything else; `undefined` removes one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Edits the webhook payload before it is written (a fork's head repository, `action: synchronize`, …). */
  readonly editPayload?: (payload: Record<string, unknown>) => void;
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

/** What the way of running the step adds to {@link ActionStepOptions}. */
export interface StepSetup {
  /** The scripted model server, when real CLIs talk to one: its URL is the model environment's base URL. */
  readonly model?: ModelServer;
  /** Folders put on PATH after `prependPath` (e.g. `node_modules/.bin`). */
  readonly pathHead?: readonly string[];
  /** Fills the default (fresh) tool cache for the run's inputs (`claude-version`, `codex-version`). */
  readonly fillToolCache?: (toolCache: string, inputs: Readonly<Record<string, string>>) => void;
}

/** A prepared step: its environment and folders; {@link collect} reads what it wrote and removes its files. */
export interface PreparedStep {
  /** Exactly the step's environment (no variable of the test process beyond those named here). */
  readonly env: Record<string, string>;
  readonly files: string;
  readonly home: string;
  readonly runnerTemp: string;
  readonly toolCache: string;
  /** The step's result from its exit code and output; removes the step's files (not `RUNNER_TEMP`). */
  collect(step: {
    readonly exitCode: number | null;
    readonly stdout: string;
    readonly stderr: string;
  }): ActionRun;
  /** Removes the step's files when it could not be collected. */
  abandon(): void;
}

/**
 * Sets up one step's files, folders and environment (see the module comment). The caller runs the step,
 * then calls {@link PreparedStep.collect} (or {@link PreparedStep.abandon}).
 */
export async function prepareActionStep(
  options: ActionStepOptions,
  setup: StepSetup = {},
): Promise<PreparedStep> {
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

  const basePath = pathWithoutClaude(process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin");
  if (!basePath.includes(dirname(process.execPath))) basePath.unshift(dirname(process.execPath));
  const path = [...(options.prependPath ?? []), ...(setup.pathHead ?? []), ...basePath].join(delimiter);

  const inputs: Record<string, string> = {
    ...actionInputDefaults(),
    "anthropic-api-key": SCRIPTED_API_KEY,
    // These tests run as root, where the default (auto) would switch PR code to the separate user; their
    // probes and fake CLIs live in private temp folders. The tests of that user set it themselves.
    "isolate-user": "false",
    ...options.inputs,
  };
  if (options.toolCache === undefined) setup.fillToolCache?.(toolCache, inputs);
  const inputEnv = Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [inputVariable(name), value]),
  );
  // Everything claudeEnvFor sets except the key (it arrives as the input) and HOME (the action gives
  // each CLI a fresh one).
  const {
    ANTHROPIC_API_KEY: _key,
    HOME: _home,
    ...modelEnv
  } = claudeEnvFor(setup.model?.url ?? "http://127.0.0.1:9", home);
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

  const callsBefore = options.github.calls.length;
  const violationsBefore = options.github.violations.length;
  const requestsBefore = setup.model?.requests.length ?? 0;
  const { timeline, restore } = recordTimeline(options.github, setup.model);
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    restore();
    rmSync(files, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    if (options.toolCache === undefined) rmSync(toolCache, { recursive: true, force: true });
  };
  return {
    env: env as Record<string, string>,
    files,
    home,
    runnerTemp,
    toolCache,
    collect: (step) => {
      try {
        return {
          ...step,
          outputs: parseFileCommand(readFileSync(outputPath, "utf8")),
          state: parseFileCommand(readFileSync(statePath, "utf8")),
          summary: readFileSync(summaryPath, "utf8"),
          calls: options.github.calls.slice(callsBefore),
          violations: options.github.violations.slice(violationsBefore),
          modelRequests: setup.model?.requests.slice(requestsBefore) ?? [],
          timeline,
          runnerTemp,
          payload,
          commands: activeWorkflowCommands(step.stdout),
        };
      } finally {
        finish();
      }
    },
    abandon: finish,
  };
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

/**
 * The run's check-run calls in order, each as `<METHOD> <list|create|update> <status>` (list: the head's
 * check runs; create: `POST …/check-runs`; update: `PATCH …/check-runs/{id}`).
 */
export function checkRunApiCalls(run: ActionRun): string[] {
  const names: Record<string, string> = {
    "/repos/{owner}/{repo}/commits/{ref}/check-runs": "list",
    "/repos/{owner}/{repo}/check-runs": "create",
    "/repos/{owner}/{repo}/check-runs/{check_run_id}": "update",
  };
  return run.calls.flatMap((c) => {
    const name = c.route === null ? undefined : names[c.route];
    return name === undefined ? [] : [`${c.method} ${name} ${c.status}`];
  });
}

/** The last write that completed the check run (`conclusion` set), or undefined. */
export function completion(run: ActionRun): CheckRunWriteBody | undefined {
  return checkRunWrites(run)
    .map((w) => w.body)
    .filter((b) => b.conclusion !== undefined)
    .at(-1);
}

export interface RunPostOptions {
  readonly github: GitHubServer;
  /** What the main step saved (`GITHUB_STATE`, parsed): the runner passes each entry as `STATE_<name>`. */
  readonly state: Readonly<Record<string, string>>;
  /** Inputs by their `action.yml` name, over `action.yml`'s defaults (the post step gets the same inputs). */
  readonly inputs?: Readonly<Record<string, string>>;
  /** Extra variables over everything else; `undefined` removes one. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Kill the post step after this long (default 60 s; the bundled post step only). */
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

/** A prepared post step: its environment and working directory; {@link collect} reads what it wrote. */
export interface PreparedPostStep {
  /** Exactly the post step's environment. */
  readonly env: Record<string, string>;
  /** Its working directory (its own `RUNNER_TEMP`). */
  readonly cwd: string;
  /** The step's result from its exit code and output; removes the step's files. */
  collect(step: {
    readonly exitCode: number | null;
    readonly stdout: string;
    readonly stderr: string;
  }): PostRun;
  /** Removes the step's files when it could not be collected (safe after {@link collect}). */
  abandon(): void;
}

/**
 * Sets up one post step's world, as the runner runs a JavaScript action's post step, for either way of
 * running it (`node dist/post.js`: `action-harness.ts`; `runPost` in-process: `action-in-process.ts`): the
 * inputs as `INPUT_<NAME>` variables, the main step's saved state as `STATE_<name>` variables, the runner's
 * `GITHUB_*` variables and fresh file-command files of its own.
 */
export function preparePostStep(options: RunPostOptions): PreparedPostStep {
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
  const abandon = (): void => {
    rmSync(files, { recursive: true, force: true });
    rmSync(runnerTemp, { recursive: true, force: true });
  };
  return {
    env: env as Record<string, string>,
    cwd: runnerTemp,
    collect: (step) => {
      try {
        return {
          ...step,
          summary: readFileSync(summaryPath, "utf8"),
          calls: options.github.calls.slice(callsBefore),
          violations: options.github.violations.slice(violationsBefore),
          commands: activeWorkflowCommands(step.stdout),
        };
      } finally {
        abandon();
      }
    },
    abandon,
  };
}
