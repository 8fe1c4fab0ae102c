/**
 * The action's start: the programs the engine itself runs (`git`, `sh`, `npm`) are resolved once, to
 * absolute paths outside everything the pull request can write (`proc/trusted-tools.ts`; SPEC §9; issue 21
 * item 2), before any git call, any verify command or any model CLI.
 */
import { guardCheckoutConfiguration } from "../proc/trusted-git.js";
import { TrustedGitDirError } from "../proc/trusted-git-dir.js";
import { configureTrustedTools, type TrustedTools, UntrustedToolError } from "../proc/trusted-tools.js";
import type { Runner } from "./runner.js";

/**
 * Resolves the engine's programs against the job's `PATH`, with the workspace (`GITHUB_WORKSPACE`) and
 * `RUNNER_TEMP` as the folders the pull request writes (the separate user's home is excluded by the owner
 * rule: nothing it owns is trusted). Logs which file each program is, and warns for each candidate passed
 * over (a `git` in a workspace folder on `PATH`). From then on, the engine's git calls before the trusted
 * git directory exists pin the program-running keys of the checkout's configuration
 * (`guardCheckoutConfiguration`; issue 21).
 */
export function trustEngineExecutables(
  env: Readonly<Record<string, string | undefined>>,
  runner: Pick<Runner, "info" | "warning">,
): TrustedTools {
  const roots = [env.GITHUB_WORKSPACE, env.RUNNER_TEMP].filter(
    (root): root is string => root !== undefined && root.trim() !== "",
  );
  const trusted = configureTrustedTools({ pathEnv: env.PATH, untrustedRoots: roots });
  guardCheckoutConfiguration();
  const found = Object.entries(trusted.tools).map(([name, tool]) =>
    tool.kind === "found" ? `${name} ${tool.path}` : `${name} (none trusted)`,
  );
  runner.info(`evidence-gate runs its own programs from trusted paths: ${found.join(", ")}`);
  for (const skipped of trusted.skipped)
    runner.warning(
      `evidence-gate: passed over ${skipped} — a folder on PATH the pull request can write, or not owned by root or this user; the engine never runs it (the verify command still sees the job's PATH).`,
    );
  return trusted;
}

/**
 * Whether `error` says the engine has no trusted git to run: no trusted `git` on `PATH` (issue 21 item 2;
 * the message names `PATH` and the fix), or its trusted git directory could not be made (ADR 0012). Both
 * happen before anything runs (the first engine git call, the directory's making) and both are the job's
 * set-up to fix: the action reports them as a usage error, not an internal one.
 */
export function noTrustedGit(error: unknown): boolean {
  return (error instanceof UntrustedToolError && error.tool === "git") || error instanceof TrustedGitDirError;
}
