/**
 * The clean engine process (SPEC §9; research/security.md §4.1, §4.3). The runner starts the action's
 * `node dist/index.js` (and `dist/post.js`) with every input as `INPUT_*` — secrets included — plus
 * `GITHUB_TOKEN` when the workflow sets it, the `ACTIONS_*` service tokens and URLs and the file-command
 * paths. `/proc/<pid>/environ` shows a process's environment as it was at exec, to any process of the same
 * user: scrubbing a child's environment keeps those values out of the child, not out of its parent's
 * `/proc` entry. So the entry process ("launcher") does three things and nothing else:
 *
 * 1. it splits its environment ({@link splitEnvironment}): every variable {@link isHeldVariable} names is
 *    held back, the rest is the engine's clean environment;
 * 2. it clears the held values from its own initial environment block (`initial-environ.ts`, Linux), and
 *    deletes them from `process.env`;
 * 3. it re-executes the same script (`process.execPath`, `process.execArgv`, `process.argv[1]` and the
 *    flag {@link ENGINE_FLAG}) with the clean environment, in its own process group, and hands the held
 *    values over an extra pipe on fd 3 (one JSON document, then end of file); then it only forwards
 *    SIGINT/SIGTERM to the engine and exits with the engine's exit code (128 + the signal's number when
 *    it was killed by a signal).
 *
 * The engine process ({@link ENGINE_FLAG} in its argv) reads fd 3 once, closes it, and gets the held
 * values back as an in-memory environment object (`env` of the `engine` result: its own `process.env`
 * plus the held values), which the entry passes to `runAction(env)` / `runPost(env)`. Its
 * `/proc/<pid>/environ` and `cmdline` never held them. Into its own `process.env` it restores only what a
 * library reads there and nowhere else ({@link isLibraryVariable}): the file-command paths
 * (`@actions/core`'s `setOutput`, `saveState`, `summary`) and the artifact service's `ACTIONS_RUNTIME_TOKEN`,
 * `ACTIONS_RUNTIME_URL`, `ACTIONS_RESULTS_URL` and `ACTIONS_ARTIFACT_*` (`@actions/artifact`). Writing
 * `process.env` does not change `/proc/<pid>/environ` (measured, test/proc/clean-process.test.ts), and no
 * child inherits `process.env`: every spawn passes an environment built by `buildChildEnv`, which drops
 * those names anyway (test/proc/exec-seam.test.ts). Inputs and `GITHUB_TOKEN` stay out of `process.env`.
 * If the launcher dies (killed by the runner or the OOM killer), the engine notices its parent changed
 * within a quarter second and kills itself with SIGKILL, as a single process would have died.
 *
 * On Windows the action runs in place (`kind: "in-place"`): no re-exec, no scrub (untested there).
 */
import { spawn } from "node:child_process";
import { closeSync, readSync } from "node:fs";
import { constants } from "node:os";
import { isSecretLikeName, neverPassableReason } from "./child-env.js";
import { type ScrubResult, scrubInitialEnvironment } from "./initial-environ.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The argv flag that makes the entry script the engine process (never passed by the runner). */
export const ENGINE_FLAG = "--evidence-gate-engine";

/** The engine process's fd the held values arrive on. */
const HANDOVER_FD = 3;

/**
 * Whether a variable is held out of the engine process's initial environment: every name no child may
 * ever get (`neverPassableReason`: `INPUT_*`, `GITHUB_TOKEN`, `GH_TOKEN`, `ACTIONS_*`, the file-command
 * paths, `ANTHROPIC_*`, `CLAUDE_CODE_*`, `OPENAI_*`, `CODEX_*`) and every secret-like name
 * (`isSecretLikeName`: `NPM_TOKEN`, `AWS_*`, `*_PASSWORD`, …). Injection vectors (`NODE_OPTIONS`, …) are
 * not held: they are not secrets, and the engine's own Node is started with them as the runner's was.
 */
export function isHeldVariable(name: string): boolean {
  return neverPassableReason(name) !== null || isSecretLikeName(name);
}

const FILE_COMMANDS: ReadonlySet<string> = new Set([
  "GITHUB_ENV",
  "GITHUB_OUTPUT",
  "GITHUB_PATH",
  "GITHUB_STATE",
  "GITHUB_STEP_SUMMARY",
]);
const ARTIFACT_SERVICE: ReadonlySet<string> = new Set([
  "ACTIONS_RUNTIME_TOKEN",
  "ACTIONS_RUNTIME_URL",
  "ACTIONS_RESULTS_URL",
]);

/**
 * Held variables the engine restores into its own `process.env`, because a library reads them only there:
 * the file-command paths (`@actions/core`) and the artifact service's token and URLs (`@actions/artifact`).
 */
export function isLibraryVariable(name: string): boolean {
  return FILE_COMMANDS.has(name) || ARTIFACT_SERVICE.has(name) || name.startsWith("ACTIONS_ARTIFACT_");
}

/** An environment split into what the engine starts with and what is handed over on fd 3. */
export interface SplitEnvironment {
  readonly clean: Record<string, string>;
  readonly held: Record<string, string>;
}

/** Splits `env` by {@link isHeldVariable}; undefined values are dropped. `env` is not mutated. */
export function splitEnvironment(env: Env): SplitEnvironment {
  const clean: Record<string, string> = {};
  const held: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isHeldVariable(name)) held[name] = value;
    else clean[name] = value;
  }
  return { clean, held };
}

/** What {@link enterCleanProcess} made of this process. */
export type CleanProcess =
  /** This is the runner's entry process: the engine runs in a child; await its exit code and exit with it. */
  | { readonly kind: "launcher"; readonly exitCode: Promise<number>; readonly scrub: ScrubResult }
  /** This is the engine: run the action with `env` (never with `process.env`). */
  | { readonly kind: "engine"; readonly env: Env }
  /** No re-exec on this platform: run the action with `env` (= `process.env`) in this process. */
  | { readonly kind: "in-place"; readonly env: Env; readonly reason: string };

/**
 * Decides this process's role from its argv and starts the engine when it is the launcher. Call it first
 * in an entry script, before anything else is imported or evaluated: until it runs, the runner's process
 * shows the secrets in its `/proc/<pid>/environ`: Node's start-up, the parse of the whole bundle, and the
 * evaluation of whatever the entry imports statically — so an entry imports only this module statically.
 * Measured on a loaded 2-core machine: 0.35–0.75 s for a 13 KB script (Node's start-up), 0.7–1.0 s for
 * `dist/post.js` (1.1 MB), 2.1–2.8 s for `dist/index.js` (6 MB).
 *
 * @throws in the engine role only, when fd 3 holds no valid handover (the flag was given by hand).
 */
export function enterCleanProcess(): CleanProcess {
  if (process.argv.includes(ENGINE_FLAG)) return { kind: "engine", env: receiveHandover() };
  const script = process.argv[1];
  if (process.platform === "win32" || script === undefined)
    return {
      kind: "in-place",
      env: process.env,
      reason:
        script === undefined
          ? "no script to re-execute"
          : "the clean engine process is not built for Windows",
    };
  return launch(script);
}

/**
 * The step-log warning a launcher owes when its own initial environment could not be cleared, or `null`
 * (no value in it: the reason names the step that failed).
 */
export function launcherWarning(entered: CleanProcess): string | null {
  if (entered.kind !== "launcher" || entered.scrub.kind !== "failed") return null;
  return `evidence-gate: the secrets could not be cleared from this step's own initial environment (${entered.scrub.reason}); a process of the same user can read them from /proc/${process.pid}/environ`;
}

function launch(script: string): CleanProcess {
  const { clean, held } = splitEnvironment(process.env);
  const scrub = scrubInitialEnvironment(isHeldVariable);
  for (const name of Object.keys(held)) delete process.env[name];
  const child = spawn(process.execPath, [...process.execArgv, script, ENGINE_FLAG], {
    env: clean,
    stdio: ["inherit", "inherit", "inherit", "pipe"],
    // Its own process group: a signal to the launcher's group reaches the engine once, forwarded below.
    detached: true,
  });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  const exitCode = new Promise<number>((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(`evidence-gate: could not start the engine process: ${error.message}\n`);
      resolve(1);
    });
    child.on("exit", (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
  const pipe = child.stdio[HANDOVER_FD];
  if (pipe !== null && pipe !== undefined && "end" in pipe) {
    pipe.on("error", () => {});
    pipe.end(JSON.stringify({ held }));
  }
  return { kind: "launcher", exitCode, scrub };
}

/** Reads fd 3 to its end (blocking), then closes it. */
function readHandoverFd(): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(HANDOVER_FD, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      throw new Error(
        `evidence-gate: started as the engine process (${ENGINE_FLAG}) without the launcher's handover on fd ${HANDOVER_FD} (${(error as NodeJS.ErrnoException).code ?? "read failed"})`,
      );
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
  }
  closeSync(HANDOVER_FD);
  return Buffer.concat(chunks).toString("utf8");
}

/** The held values, restored: library variables into `process.env`, all into the returned object. */
function receiveHandover(): Env {
  const text = readHandoverFd();
  let held: Record<string, string>;
  try {
    const parsed = JSON.parse(text) as { held?: unknown };
    if (typeof parsed.held !== "object" || parsed.held === null) throw new Error("no held values");
    held = {};
    for (const [name, value] of Object.entries(parsed.held))
      if (typeof value === "string") held[name] = value;
  } catch {
    throw new Error(`evidence-gate: the engine process's handover on fd ${HANDOVER_FD} is not valid`);
  }
  for (const [name, value] of Object.entries(held)) if (isLibraryVariable(name)) process.env[name] = value;
  watchParent();
  return { ...process.env, ...held };
}

/** Ends the engine (SIGKILL) once its launcher is gone (its parent pid changes on reparenting). */
function watchParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, "SIGKILL");
  }, 250).unref();
}
