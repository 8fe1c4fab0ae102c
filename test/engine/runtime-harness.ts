/**
 * What differs per runtime in engine tests that run on BOTH runtimes (SPEC §4): the runtimes to
 * `describe.each` over, the tool calls a script makes (claude's built-ins vs codex-cli 0.169.0's
 * `exec_command` / `apply_patch` for `gpt-5.5`; research/fake-model.md §4.2), and reading what the model
 * saw. The harness itself (repository, model server, real CLI or fake per execution) is graph-harness.ts,
 * started with `{runtime}`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, test as vitestTest } from "vitest";
import type { Runtime } from "../../src/policy/disclosure.js";
import type { RecordedRequest } from "../support/model-server/index.js";

/** Both runtimes, for `describe.each(RUNTIMES)`. */
export const RUNTIMES: readonly Runtime[] = ["claude", "codex"];

/** The `once` a {@link describeEachBehaviourOnce} body registers its one-runtime tests with (`.each` too). */
export interface OneRuntimeTest {
  (name: string, fn: () => void | Promise<void>, timeout?: number): void;
  each<T>(cases: readonly T[]): (name: string, fn: (c: T) => void | Promise<void>, timeout?: number) => void;
}

/**
 * For engine behaviour that is the same on both runtimes (scheduling, retries, feedback arcs, resume):
 * `body` is called once per runtime, like `describe.each(RUNTIMES)(title, body)`, but each test it declares
 * with `once` is registered on ONE runtime — the first on claude, the next on codex, and so on in
 * declaration order (each case of a `once.each` counts as one test); a test declared with vitest's own
 * `test` inside `body` still runs on every runtime (for what the runtime changes: the session seam, say). So every behaviour runs once through a real CLI, both
 * CLIs are exercised across the file, and the suite does not pay for each behaviour twice (the brief: the
 * slow real-CLI tests once per behaviour, not once per variant). What does differ per runtime (argv, the
 * session seam, costs) is tested on both in two-runtimes.real-cli.test.ts and the runtime adapters' tests.
 *
 * `body` must declare the same `once` tests in the same order for every runtime (no runtime-dependent test
 * list): a test declared for one runtime only belongs in a plain `describe` of that runtime. Vitest's test names
 * carry the runtime through the describe title (`%s`).
 */
export function describeEachBehaviourOnce(
  title: string,
  body: (runtime: Runtime, once: OneRuntimeTest) => void,
): void {
  RUNTIMES.forEach((runtime, index) => {
    let declared = 0;
    const mine = (): boolean => declared++ % RUNTIMES.length === index;
    const oneRuntimeTest = ((name: string, fn: () => void | Promise<void>, timeout?: number) => {
      if (mine()) vitestTest(name, fn, timeout);
    }) as OneRuntimeTest;
    oneRuntimeTest.each =
      <T>(cases: readonly T[]) =>
      (name: string, fn: (c: T) => void | Promise<void>, timeout?: number) => {
        for (const c of cases) if (mine()) vitestTest.each([c])(name, fn, timeout);
      };
    describe(title.replace("%s", runtime), () => body(runtime, oneRuntimeTest));
  });
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

/**
 * Writes `content` to `file` (absolute), whether or not it exists, as the runtime's model would: claude
 * `Write` (the node must grant `Write` and a mode that allows it, e.g. `acceptEdits`), codex
 * `exec_command printf` (the sandbox of the node's permission mode decides; workspace-write by default).
 */
export function writeCall(runtime: Runtime, file: string, content: string): ToolCall {
  return runtime === "claude"
    ? { name: "Write", input: { file_path: file, content } }
    : shellCall(runtime, `printf '%s' ${shellWord(content)} > ${shellWord(file)}`);
}

function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
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
