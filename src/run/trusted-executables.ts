/**
 * The action's start: the programs the engine itself runs (`git`, `sh`, `npm`) are resolved once, to
 * absolute paths outside everything the pull request can write (`proc/trusted-tools.ts`; SPEC §9; issue 21
 * item 2), before any git call, any verify command or any model CLI.
 */
import { configureTrustedTools, type TrustedTools } from "../proc/trusted-tools.js";
import type { Runner } from "./runner.js";

/**
 * Resolves the engine's programs against the job's `PATH`, with the workspace (`GITHUB_WORKSPACE`) and
 * `RUNNER_TEMP` as the folders the pull request writes (the separate user's home is excluded by the owner
 * rule: nothing it owns is trusted). Logs which file each program is, and warns for each candidate passed
 * over (a `git` in a workspace folder on `PATH`).
 */
export function trustEngineExecutables(
  env: Readonly<Record<string, string | undefined>>,
  runner: Pick<Runner, "info" | "warning">,
): TrustedTools {
  const roots = [env.GITHUB_WORKSPACE, env.RUNNER_TEMP].filter(
    (root): root is string => root !== undefined && root.trim() !== "",
  );
  const trusted = configureTrustedTools({ pathEnv: env.PATH, untrustedRoots: roots });
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
