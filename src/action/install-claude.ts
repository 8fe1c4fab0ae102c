/**
 * Finds the `claude` CLI for the action, installing the pinned version (input `claude-version`) with npm
 * into the runner's tool cache when it is not on PATH. npm runs through the exec seam with a scrubbed
 * environment (no token, no model key).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as toolCache from "@actions/tool-cache";
import { buildChildEnv } from "../proc/child-env.js";
import { runProcess } from "../proc/run-process.js";
import { findExecutable } from "../proc/which.js";

export type ClaudeLookup =
  | { readonly kind: "found"; readonly path: string; readonly installed: boolean }
  | { readonly kind: "failed"; readonly message: string };

/**
 * @param log called with one line saying what was done (found on PATH, reused from the cache, installed).
 */
export async function ensureClaude(options: {
  readonly version: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
  readonly log: (line: string) => void;
}): Promise<ClaudeLookup> {
  const onPath = findExecutable("claude", options.env.PATH);
  if (onPath !== null) {
    options.log(`claude found on PATH: ${onPath}`);
    return { kind: "found", path: onPath, installed: false };
  }
  const cached = toolCache.find("claude-code", options.version);
  if (cached !== "") {
    const path = join(cached, "node_modules", ".bin", "claude");
    options.log(`claude ${options.version} found in the tool cache: ${path}`);
    return { kind: "found", path, installed: false };
  }
  const temp = options.env.RUNNER_TEMP ?? "/tmp";
  const prefix = join(temp, `claude-code-${options.version}`);
  mkdirSync(prefix, { recursive: true });
  options.log(`claude is not on PATH: installing @anthropic-ai/claude-code@${options.version} with npm`);
  const result = await runProcess({
    command: "npm",
    args: [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefix",
      prefix,
      `@anthropic-ai/claude-code@${options.version}`,
    ],
    cwd: temp,
    env: buildChildEnv({ base: options.env, child: { kind: "verify" }, knownSecrets: options.knownSecrets }),
    timeoutMs: 10 * 60_000,
  });
  if (result.kind !== "exited" || result.exitCode !== 0) {
    const why =
      result.kind === "exited"
        ? `npm exited ${result.exitCode}: ${result.stderrTail.slice(-800)}`
        : result.kind;
    return {
      kind: "failed",
      message: `could not install @anthropic-ai/claude-code@${options.version}: ${why}`,
    };
  }
  const dir = await toolCache.cacheDir(prefix, "claude-code", options.version);
  const path = join(dir, "node_modules", ".bin", "claude");
  options.log(`installed claude ${options.version} into the tool cache: ${path}`);
  return { kind: "found", path, installed: true };
}
