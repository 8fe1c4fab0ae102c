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
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import {
  type ActionRun,
  type ActionStepOptions,
  actionInputDefaults,
  activeWorkflowCommands,
  type CheckRunWriteBody,
  checkRunWrites,
  cleanupActionRun,
  completion,
  FAST_BACKOFF,
  inputVariable,
  parseFileCommand,
  populateToolCache,
  prepareActionStep,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
  TEST_RUN_ID,
  type TimelineEntry,
} from "./action-step.js";
import {
  type GitHubServer,
  type RecordedCall,
  startGitHubServer,
  type Violation,
} from "./github-server/index.js";
import { type ModelScript, type ModelServer, startModelServer } from "./model-server/index.js";
import { REPO_ROOT } from "./repo-root.js";
import type { TempRepo } from "./temp-repo.js";

export {
  type ActionRun,
  type ActionStepOptions,
  actionInputDefaults,
  activeWorkflowCommands,
  type CheckRunWriteBody,
  checkRunWrites,
  cleanupActionRun,
  completion,
  inputVariable,
  parseFileCommand,
  populateToolCache,
  REPO_ROOT,
  stepDebug,
  TEST_GITHUB_TOKEN,
  TEST_REPOSITORY,
  TEST_RUN_ID,
  type TimelineEntry,
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
