/**
 * Where the action puts each codex call's fresh `HOME` / `CODEX_HOME` (SPEC §8, §9: each CLI runs with a
 * fresh home, so the operator's configuration in CI is the base branch's project files only).
 *
 * The folder must lie outside everything codex's `workspace-write` sandbox lets a node's commands write:
 * its working directory (inside the workspace), the system temp directory `/tmp`, and `$TMPDIR`
 * (research/fake-model.md §4.7, "writable roots"; `codexSandboxFor`). A home a node could write is a home a
 * node could plant `config.toml`, `rules/` or `AGENTS.md` in — and a `handoff: session` child resumes its
 * parent's thread in the parent's `CODEX_HOME`, so a planted file would load into the next call. codex
 * also refuses to create its helper aliases in a home under a temp directory (fake-model.md §4.6).
 *
 * So the first of these whose folder lies outside `/tmp`, `$TMPDIR` and the workspace (compared as real
 * paths) is used:
 * 1. `$RUNNER_TEMP/evidence-gate/codex-homes` — on GitHub-hosted runners `RUNNER_TEMP` is
 *    `/home/runner/work/_temp`, a sibling of the workspace, and `TMPDIR` is unset, so this is the one;
 * 2. `$HOME/.evidence-gate/codex-homes` (the runner's own home) — for a self-hosted runner whose
 *    `RUNNER_TEMP` is `$TMPDIR` or under `/tmp`.
 * When neither qualifies the codex run is a usage error naming `RUNNER_TEMP`; nothing is installed or run.
 * (A `danger-full-access` node — `bypassPermissions`, hand-written graphs only — has no sandbox and can
 * write anywhere, its home included: SECURITY.md says so.)
 */
import { join } from "node:path";
import { liesInRepository } from "../engine/outside-writes.js";

export type CodexHomesRoot =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly problem: string };

/**
 * The folder fresh codex homes are made in, from the runner's environment.
 *
 * @param env `RUNNER_TEMP`, `HOME`, `TMPDIR` (as every child inherits it).
 * @param workspace the checkout (`GITHUB_WORKSPACE`), absolute.
 */
export function codexHomesRoot(
  env: Readonly<Record<string, string | undefined>>,
  workspace: string,
): CodexHomesRoot {
  const writable = ["/tmp", env.TMPDIR, workspace].filter((p): p is string => p !== undefined && p !== "");
  const candidates = [
    ["RUNNER_TEMP", env.RUNNER_TEMP, ["evidence-gate", "codex-homes"]],
    ["HOME", env.HOME, [".evidence-gate", "codex-homes"]],
  ] as const;
  for (const [, base, rest] of candidates) {
    if (base === undefined || base === "") continue;
    const path = join(base, ...rest);
    if (!writable.some((root) => liesInRepository(path, { cwd: "/", repoRoot: root })))
      return { ok: true, path };
  }
  const where = candidates.map(([name, base]) => `${name} (${base ?? "unset"})`).join(" and ");
  return {
    ok: false,
    problem: `runtime codex needs a folder for each call's fresh CODEX_HOME that codex's workspace-write sandbox cannot write, and ${where} each lie under one of ${writable.join(", ")}: run on a runner whose RUNNER_TEMP is outside /tmp, $TMPDIR and the workspace. Nothing was run`,
  };
}
