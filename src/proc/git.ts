/**
 * Runs git through the exec seam with the git child environment of SPEC §9 (no token, no model
 * credential, no action inputs). Used for the evidence tree, the starting commit and `--commit`. Inside a
 * trusted scope (`trusted-git.ts`, ADR 0012) a call in the workspace runs on the trusted git directory.
 */
import { buildChildEnv } from "./child-env.js";
import { type ProcessResult, type RunProcessOptions, runProcess } from "./run-process.js";
import {
  CHECKOUT_PROGRAM_KEYS_ARGS,
  checkoutConfigurationGuarded,
  checkoutProgramPins,
  currentTrustedGit,
  engineGitCall,
} from "./trusted-git.js";
import { trustedCommand, trustedPathSetting } from "./trusted-tools.js";

export interface GitOptions {
  readonly cwd: string;
  /** Environment to scrub and start from (default `process.env`). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Extra variables for this call only, e.g. `GIT_INDEX_FILE` for a temporary index. */
  readonly set?: Readonly<Record<string, string>>;
  readonly knownSecrets?: readonly string[];
  readonly timeoutMs?: number;
}

/** A failed git call, carrying its argv, exit status and stderr tail. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly detail: string,
  ) {
    super(`git ${args.join(" ")} failed: ${detail}`);
    this.name = "GitError";
  }
}

/**
 * In the action, before the trusted scope (issue 21; `trusted-git.ts`): the `-c` pins of the per-name
 * program keys the checkout's own configuration holds (filter drivers, a remote's programs), read with
 * `git config` (which starts no program). Empty in the CLI, inside a trusted scope, and for a call on a
 * git directory the engine names itself (`--git-dir=`, its own).
 */
async function beforeScopePins(args: readonly string[], options: GitOptions): Promise<string[]> {
  if (!checkoutConfigurationGuarded() || currentTrustedGit() !== null) return [];
  if (args.some((arg) => arg.startsWith("--git-dir="))) return [];
  try {
    const listed = await runGit(CHECKOUT_PROGRAM_KEYS_ARGS, options, { tailBytes: 1024 * 1024 }, []);
    return checkoutProgramPins(listed.stdoutTail);
  } catch (error) {
    // Exit 1: no such key (or not a repository, which the call itself will say).
    if (error instanceof GitError) return [];
    throw error;
  }
}

/** Runs git once through the seam and turns every outcome but exit 0 into a {@link GitError}. */
async function runGit(
  args: readonly string[],
  options: GitOptions,
  output: Pick<RunProcessOptions, "tailBytes" | "onStdoutData" | "signal">,
  pins?: readonly string[],
): Promise<Extract<ProcessResult, { kind: "exited" }>> {
  const before = pins ?? (await beforeScopePins(args, options));
  // The trusted git directory and the pinned keys (issue 21 item 1, ADR 0012): decided in one place.
  const call = engineGitCall([...before, ...args], {
    cwd: options.cwd,
    baseEnv: options.baseEnv ?? process.env,
    set: { GIT_TERMINAL_PROMPT: "0", ...trustedPathSetting(), ...options.set },
  });
  const result = await runProcess({
    // The action's trusted git (resolved at start, never a PATH entry the pull request can write).
    command: trustedCommand("git"),
    args: call.args,
    cwd: options.cwd,
    env: buildChildEnv({
      base: call.baseEnv,
      child: { kind: "git" },
      knownSecrets: options.knownSecrets ?? [],
      set: call.set,
    }),
    timeoutMs: options.timeoutMs ?? 120_000,
    // Local git ends by itself within its timeout: no orphan guard (one more process per git call).
    orphanGuard: false,
    ...output,
  });
  if (result.kind !== "exited") {
    throw new GitError(args, result.kind === "spawn_failed" ? result.message : result.kind);
  }
  if (result.exitCode !== 0) {
    throw new GitError(args, `exit ${result.exitCode}: ${result.stderrTail.trim().slice(-2000)}`);
  }
  return result;
}

/**
 * Runs `git ARGS` and returns its stdout (trailing newline trimmed).
 *
 * @throws GitError when git cannot start, times out, or exits non-zero.
 */
export async function git(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await runGit(args, options, { tailBytes: 8 * 1024 * 1024 });
  return result.stdoutTail.replace(/\n$/, "");
}

/**
 * Runs `git ARGS` and hands its stdout to `onStdout` as raw chunks, as they arrive — for output too large
 * for {@link git}'s bounded tail (8 MiB), or not text (`-z` lists). Abort `signal` to stop git early (the
 * call then rejects with a GitError saying `cancelled`).
 *
 * @throws GitError when git cannot start, times out, is cancelled, or exits non-zero.
 */
export async function gitStream(
  args: readonly string[],
  options: GitOptions & { readonly onStdout: (chunk: Buffer) => void; readonly signal?: AbortSignal },
): Promise<void> {
  // stdout goes to the callback; the seam's own tails only carry stderr for the error message.
  await runGit(args, options, {
    tailBytes: 64 * 1024,
    onStdoutData: options.onStdout,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
}
