/**
 * Test helper shared by real-claude.ts and real-codex.ts: a fresh HOME and workspace, and one model CLI
 * spawned in the workspace with its stdout parsed line by line as it arrives. The process is spawned
 * asynchronously: the scripted model server answers from this test process's event loop, so a synchronous
 * spawn would deadlock. Tests may spawn directly; `src/` goes through `src/proc/`.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";
import { type ModelScript, type ModelServer, startModelServer } from "../support/model-server/index.js";

/** A fresh HOME and workspace under the system temp dir. */
export interface Scratch {
  readonly home: string;
  readonly workspace: string;
  cleanup(): void;
}

/** Makes a {@link Scratch}; `name` goes into the folder names (`eg-NAME-home-…`, `eg-NAME-ws-…`). */
export function makeScratchFor(name: string): Scratch {
  const home = mkdtempSync(join(tmpdir(), `eg-${name}-home-`));
  const workspace = mkdtempSync(join(tmpdir(), `eg-${name}-ws-`));
  return {
    home,
    workspace,
    cleanup: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/**
 * The git identity of commits in scratch repositories, as environment variables: pass it to a CLI run
 * (`env`) when the model's commands may commit.
 */
export const SCRATCH_GIT_IDENTITY: Readonly<Record<string, string>> = Object.freeze({
  GIT_AUTHOR_NAME: "node",
  GIT_AUTHOR_EMAIL: "node@example.invalid",
  GIT_COMMITTER_NAME: "node",
  GIT_COMMITTER_EMAIL: "node@example.invalid",
});

/**
 * Runs `git ARGS` in `cwd` synchronously with a hermetic environment (PATH, the scratch identity, and
 * `GIT_CONFIG_GLOBAL=/dev/null` so the machine's git config never applies); returns trimmed stdout.
 * Throws git's error when it exits non-zero.
 */
export function scratchGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    env: {
      PATH: SPAWN_PATH,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      ...SCRATCH_GIT_IDENTITY,
    },
  })
    .toString()
    .trim();
}

/**
 * A {@link Scratch} whose workspace is a real git repository with one commit holding `notes.txt`
 * ("hello"), the shape a node's working tree has. `head` is that commit's SHA.
 */
export function makeRepoScratchFor(name: string): Scratch & { readonly head: string } {
  const scratch = makeScratchFor(name);
  scratchGit(scratch.workspace, "init", "-q");
  writeFileSync(join(scratch.workspace, "notes.txt"), "hello\n");
  scratchGit(scratch.workspace, "add", "notes.txt");
  scratchGit(scratch.workspace, "commit", "-qm", "start");
  return { ...scratch, head: scratchGit(scratch.workspace, "rev-parse", "HEAD") };
}

/** What one CLI run printed, and its stdout parsed. */
export interface CliRun<T> {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly outcome: T;
  readonly durationMs: number;
}

/**
 * Spawns `bin ARGV` in `cwd` (stdin ignored) with exactly `env`, pushing each stdout line into `parser`
 * as it arrives; resolves once the process closed.
 */
export function spawnParsed<T>(o: {
  readonly bin: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly parser: { push(line: string): void; finish(): T };
}): Promise<CliRun<T>> {
  const { parser } = o;
  const started = performance.now();
  const child = spawn(o.bin, o.argv, { cwd: o.cwd, stdio: ["ignore", "pipe", "pipe"], env: o.env });
  let stdout = "";
  let stderr = "";
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) parser.push(line);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode) => {
      if (pending !== "") parser.push(pending);
      resolve({
        exitCode,
        stdout,
        stderr,
        outcome: parser.finish(),
        durationMs: performance.now() - started,
      });
    });
  });
}

/** The PATH a spawned CLI gets: this process's, else the usual system folders. */
export const SPAWN_PATH = process.env.PATH ?? "/usr/bin:/bin";

/**
 * The rig of a real-CLI test file (registers `afterEach` and `afterAll`): `setup` gives a fresh
 * {@link Scratch} and a model server playing a script (which may name the scratch's paths), both removed
 * after the test; `timed` records a run's wall time, and the file's times and their median are printed at
 * the end.
 */
export function realCliRig(
  cli: string,
  makeScratch: () => Scratch,
): {
  setup(
    script: ModelScript | ((scratch: Scratch) => ModelScript),
  ): Promise<{ readonly server: ModelServer; readonly scratch: Scratch }>;
  timed<R extends { readonly durationMs: number }>(name: string, result: R): R;
} {
  const timings: { name: string; ms: number }[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(() => {
    if (timings.length === 0) return;
    const sorted = timings.map((t) => t.ms).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    const lines = timings.map((t) => `  ${t.name.padEnd(48)} ${(t.ms / 1000).toFixed(2)} s`);
    console.log(
      `real ${cli} runs (wall time incl. CLI start-up):\n${lines.join("\n")}\n  median ${(median / 1000).toFixed(2)} s`,
    );
  });
  return {
    async setup(script) {
      const scratch = makeScratch();
      const server = await startModelServer({
        script: typeof script === "function" ? script(scratch) : script,
      });
      cleanups.push(
        () => server.close(),
        () => scratch.cleanup(),
      );
      return { server, scratch };
    },
    timed(name, result) {
      timings.push({ name, ms: result.durationMs });
      return result;
    },
  };
}
