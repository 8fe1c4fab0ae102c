/**
 * Finds a model CLI for the action (`claude` or `codex`), installing the pinned version (input
 * `claude-version` / `codex-version`) with npm into the runner's tool cache when it is not on PATH. npm runs
 * through the exec seam with a scrubbed environment (no token, no model key). Called from the engine's
 * `beforeFirstModelCall`, so a run refused before any model call installs nothing (SPEC §5).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as toolCache from "@actions/tool-cache";
import { buildChildEnv } from "../proc/child-env.js";
import { runProcess } from "../proc/run-process.js";
import { findExecutable } from "../proc/which.js";

/** One model CLI as npm ships it. */
export interface ModelCliPackage {
  /** The executable's name (on PATH, and under `node_modules/.bin`). */
  readonly bin: string;
  /** The npm package that provides it. */
  readonly npmPackage: string;
  /** The tool-cache entry name (`RUNNER_TOOL_CACHE/<name>/<version>/<arch>`). */
  readonly cacheName: string;
}

/** `claude` from `@anthropic-ai/claude-code`. */
export const CLAUDE_CLI: ModelCliPackage = {
  bin: "claude",
  npmPackage: "@anthropic-ai/claude-code",
  cacheName: "claude-code",
};

/** `codex` from `@openai/codex` (its platform binary comes as an optional dependency npm picks). */
export const CODEX_CLI: ModelCliPackage = { bin: "codex", npmPackage: "@openai/codex", cacheName: "codex" };

export type CliLookup =
  | { readonly kind: "found"; readonly path: string; readonly installed: boolean }
  | { readonly kind: "failed"; readonly message: string };

/**
 * The CLI's path: on PATH, else `<tool cache>/<cacheName>/<version>`, else installed there with
 * `npm install --prefix RUNNER_TEMP/<cacheName>-<version> <package>@<version>` and cached.
 *
 * @param log called with one line saying what was done (found on PATH, reused from the cache, installed).
 * @returns `failed` with npm's exit code and stderr tail when the install did not work.
 */
export async function ensureCli(
  cli: ModelCliPackage,
  options: {
    readonly version: string;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly knownSecrets: readonly string[];
    readonly log: (line: string) => void;
  },
): Promise<CliLookup> {
  const onPath = findExecutable(cli.bin, options.env.PATH);
  if (onPath !== null) {
    options.log(`${cli.bin} found on PATH: ${onPath}`);
    return { kind: "found", path: onPath, installed: false };
  }
  const cached = toolCache.find(cli.cacheName, options.version);
  if (cached !== "") {
    const path = join(cached, "node_modules", ".bin", cli.bin);
    options.log(`${cli.bin} ${options.version} found in the tool cache: ${path}`);
    return { kind: "found", path, installed: false };
  }
  const temp = options.env.RUNNER_TEMP ?? "/tmp";
  const prefix = join(temp, `${cli.cacheName}-${options.version}`);
  mkdirSync(prefix, { recursive: true });
  const spec = `${cli.npmPackage}@${options.version}`;
  options.log(`${cli.bin} is not on PATH: installing ${spec} with npm`);
  const result = await runProcess({
    command: "npm",
    args: ["install", "--no-audit", "--no-fund", "--prefix", prefix, spec],
    cwd: temp,
    env: buildChildEnv({ base: options.env, child: { kind: "verify" }, knownSecrets: options.knownSecrets }),
    timeoutMs: 10 * 60_000,
  });
  if (result.kind !== "exited" || result.exitCode !== 0) {
    const why =
      result.kind === "exited"
        ? `npm exited ${result.exitCode}: ${result.stderrTail.slice(-800)}`
        : result.kind;
    return { kind: "failed", message: `could not install ${spec}: ${why}` };
  }
  const dir = await toolCache.cacheDir(prefix, cli.cacheName, options.version);
  const path = join(dir, "node_modules", ".bin", cli.bin);
  options.log(`installed ${cli.bin} ${options.version} into the tool cache: ${path}`);
  return { kind: "found", path, installed: true };
}
