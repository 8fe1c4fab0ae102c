/**
 * One `codex exec` call through the exec seam (SPEC §4 "Codex CLI"): argv from `buildCodexArgv`, the
 * `--json` stdout parsed line by line (`codex-stream.ts`), and the process outcome folded into one
 * {@link CodexCallOutcome} — the same union as `invoke-claude.ts`'s.
 *
 * `turn.failed` is a failure even when the process exits 0 (the contract is the event; every failure
 * measured on codex-cli 0.169.0 also exited 1). Codex reports no USD: the outcome carries `costUsd: null`.
 *
 * The environment is the caller's, complete (as for claude): it decides `HOME` / `CODEX_HOME` (a fresh
 * `CODEX_HOME` per call in the action; the user's own `~/.codex` in the CLI). `CODEX_HOME` must exist, or
 * codex exits 1 with "Error finding codex home" on stderr and nothing on stdout (→ `no_result`). A
 * resumed thread is found only in the `CODEX_HOME` whose `sessions/` holds it, so the engine resumes a
 * thread with the `CODEX_HOME` of the call that started it (`codex-turn.ts`).
 */

import type { ToolPolicy } from "../policy/tool-policy.js";
import type { ClaudePermissionMode } from "./claude-argv.js";
import { type CliCallOutcome, type CliProcessCall, foldCliCall, runModelCli } from "./cli-call.js";
import { buildCodexArgv, type CodexSession } from "./codex-argv.js";
import { type CodexCompleted, type CodexOutcome, createCodexStreamParser } from "./codex-stream.js";

/** One `codex exec` call: the process fields ({@link CliProcessCall}, `executable` = `codex`) and what argv says. */
export interface CodexCall extends CliProcessCall {
  readonly prompt: string;
  /** Mapped to `--sandbox` by `codexSandboxFor` (`plan` → read-only, `bypassPermissions` → danger-full-access, else workspace-write). */
  readonly permissionMode: ClaudePermissionMode;
  /** Only layer 1 renders on codex (`settingSources` set ⇒ the four isolation items). */
  readonly policy: ToolPolicy;
  /** A fresh thread (codex mints its id), or `resume THREAD_ID` (session handoff). */
  readonly session: CodexSession;
  /** `-m MODEL`; absent = codex's own default (or a `model=` pair in `config`). */
  readonly model?: string;
  /** The operator's `codex-config` pairs (`KEY=VALUE`), each emitted as `-c PAIR`, in order. */
  readonly config?: readonly string[];
  /** Complete child environment (built with `buildChildEnv` for a model child). */
  readonly env: Readonly<Record<string, string>>;
  /** Called once, as soon as `thread.started` arrives (while the process still runs). */
  readonly onThreadStarted?: (threadId: string) => void;
  /** Offer codex's plan tool (`buildCodexArgv`'s `planTool`): a completion gate reads the plan. */
  readonly planTool?: boolean;
}

/** What the stream showed before a call ended without a terminal event. */
interface StreamSoFar {
  /** From `thread.started`, when it arrived. */
  readonly threadId: string | null;
  /** Absolute paths of apply_patch changes that did not end `failed`/`declined`. */
  readonly writtenPaths: readonly string[];
}

/** Everything the engine needs from a finished call. Durations in ms. */
export type CodexCallOutcome = CliCallOutcome<CodexCompleted, CodexOutcome, StreamSoFar>;

/** Runs one `codex exec` call to completion. Never rejects for the CLI's own failures. */
export async function invokeCodex(call: CodexCall): Promise<CodexCallOutcome> {
  const parser = createCodexStreamParser();
  const args = buildCodexArgv({
    prompt: call.prompt,
    permissionMode: call.permissionMode,
    policy: call.policy,
    session: call.session,
    ...(call.model !== undefined ? { model: call.model } : {}),
    ...(call.config !== undefined ? { config: call.config } : {}),
    ...(call.planTool === true ? { planTool: true } : {}),
  });
  let published = false;
  const result = await runModelCli(call, args, call.env, (chunk) => {
    parser.write(chunk);
    if (!published && parser.threadId !== null) {
      published = true;
      call.onThreadStarted?.(parser.threadId);
    }
  });
  return foldCliCall("codex", result, parser.finish, (parsed) => ({
    threadId: parsed.threadId,
    writtenPaths: parsed.writtenPaths,
  }));
}
