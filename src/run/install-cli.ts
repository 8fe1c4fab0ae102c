/**
 * The model CLI the action runs (`claude` or `codex`): always the one in the runner's tool cache at the
 * pinned version (input `claude-version` / `codex-version`), installed there with npm when it is not
 * cached — **never a `PATH` lookup** (issue 12 item 4): a `claude` the pull request put on `PATH` (a
 * dependency's `bin` in `node_modules/.bin`, a folder its build wrote into `GITHUB_PATH`) is never the
 * one run. npm runs through the exec seam with a scrubbed environment (no token, no model key) and checks
 * every tarball against the registry's `integrity` (sha512); `--prefer-online` makes it revalidate the
 * package metadata instead of trusting a cached copy. Once chosen, the executable is pinned: its real
 * path, its sha256 (logged) and its file identity (device, inode, size, mtime, ctime); before every model
 * call {@link PinnedCli.problem} checks the file is still that one, so nothing the pull request's code does
 * during the run (a verify command, an agent's tool) swaps it. Called from the engine's
 * `beforeFirstModelCall`, so a run refused before any model call installs nothing (SPEC §5).
 */
import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import * as toolCache from "@actions/tool-cache";
import { buildChildEnv } from "../proc/child-env.js";
import { runProcess } from "../proc/run-process.js";
import { trustedCommand, trustedPathSetting, UntrustedToolError } from "../proc/trusted-tools.js";
import type { ModelCliPackage } from "../runtime/model-runtime.js";

/**
 * The executable the action chose, pinned: `path` is its real path (links resolved, so the link in the
 * tool cache cannot be re-pointed), `sha256` its content hash (hex) when chosen.
 */
export class PinnedCli {
  readonly path: string;
  readonly sha256: string;
  /**
   * `true` when the file is a node script (its `#!` line runs `node`, as `@openai/codex`'s `bin/codex.js`
   * does): the action then starts it with its own node, never the `node` on the child's `PATH`
   * (`ChildScope.runWithOwnNode`). `false` for a native executable (`@anthropic-ai/claude-code`'s).
   */
  readonly nodeScript: boolean;
  readonly #identity: string;

  constructor(path: string, sha256: string) {
    this.path = path;
    this.sha256 = sha256;
    this.nodeScript = runsOnNode(path);
    this.#identity = fileIdentity(path);
  }

  /**
   * Why the executable may not be run now — it was replaced, moved or written since it was chosen — as one
   * sentence naming it; `null` when it is still the file that was chosen.
   */
  problem(): string | null {
    let now: string;
    try {
      now = fileIdentity(this.path);
    } catch (error) {
      now = `gone (${error instanceof Error ? error.message : String(error)})`;
    }
    return now === this.#identity
      ? null
      : `the model CLI ${this.path} changed after the action chose it (sha256 ${this.sha256}); something wrote it during the run, so it is not run`;
  }
}

/** Whether `path` starts with a `#!` line whose program (or `env`'s argument) is `node`. */
function runsOnNode(path: string): boolean {
  const head = Buffer.alloc(256);
  const fd = openSync(path, "r");
  let read: number;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const first = head.subarray(0, read).toString("latin1").split("\n")[0] ?? "";
  return /^#!\s*(?:\S*\/)?(?:env\s+(?:-S\s+)?)?(?:\S*\/)?node(?:\s|$)/.test(first);
}

/** Device, inode, size, mtime and ctime (ns): a rename, a rewrite or a `touch` changes one of them. */
function fileIdentity(path: string): string {
  const s = statSync(path, { bigint: true });
  return [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].join(":");
}

/**
 * sha256 (hex) of the file at `path`, read through one reused 1 MiB buffer: a read stream allocates a
 * fresh 64 KiB chunk per read, and on claude's ~400 MB executable that cost ~2.4 s of mostly system time
 * against ~0.6 s this way (measured on this project's CI machine).
 */
async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  const file = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hash.digest("hex");
}

export type CliLookup =
  | {
      readonly kind: "found";
      /** `<entry>/node_modules/.bin/<bin>` in the tool cache. */
      readonly path: string;
      readonly installed: boolean;
      /** What is run: the real file, pinned. */
      readonly pinned: PinnedCli;
    }
  | { readonly kind: "failed"; readonly message: string };

/**
 * The CLI in `<tool cache>/<cacheName>/<version>`, installed there first (with `npm install
 * {@link NPM_INSTALL_FLAGS} --prefix RUNNER_TEMP/<cacheName>-<version> <package>@<version>`, then cached)
 * when it is not cached.
 * `PATH` is read only to find npm, never the CLI.
 *
 * @param workspace `GITHUB_WORKSPACE`: an executable whose real path lies in it (the pull request's files)
 *   is refused.
 * @param log called with one line saying what was done (reused from the cache, or installed) and the
 *   executable's real path and sha256.
 * @returns `failed` with npm's exit code and stderr tail when the install did not work, or saying why the
 *   cached executable cannot be run.
 */
export async function ensureCli(
  cli: ModelCliPackage,
  options: {
    readonly version: string;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly knownSecrets: readonly string[];
    readonly log: (line: string) => void;
    readonly workspace?: string;
  },
): Promise<CliLookup> {
  const cached = toolCache.find(cli.cacheName, options.version);
  if (cached !== "") {
    const path = join(cached, "node_modules", ".bin", cli.bin);
    options.log(`${cli.bin} ${options.version} found in the tool cache: ${path}`);
    return pin(cli, path, false, options);
  }
  const temp = options.env.RUNNER_TEMP ?? "/tmp";
  const prefix = join(temp, `${cli.cacheName}-${options.version}`);
  mkdirSync(prefix, { recursive: true });
  const spec = `${cli.npmPackage}@${options.version}`;
  options.log(`${cli.bin} ${options.version} is not in the tool cache: installing ${spec} with npm`);
  const npm = npmCommand();
  if ("message" in npm) return { kind: "failed", message: `could not install ${spec}: ${npm.message}` };
  const result = await runProcess({
    command: npm.command,
    args: [...npm.lead, "install", ...NPM_INSTALL_FLAGS, "--prefix", prefix, spec],
    cwd: temp,
    env: buildChildEnv({
      base: options.env,
      child: { kind: "verify" },
      knownSecrets: options.knownSecrets,
      set: trustedPathSetting(),
    }),
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
  return pin(cli, path, true, options);
}

/**
 * `npm install`'s flags. The retry bounds make an unreachable registry fail in seconds: npm's defaults
 * (`fetch-retries` 2, `fetch-retry-mintimeout` 10 s, `fetch-retry-maxtimeout` 60 s) spent ~75 s on a
 * refused connection before giving up (measured with npm 10; issue 26), all of it before the run could say
 * why. Two retries 1–4 s apart still ride out a blip; a slow download is not cut short (`fetch-timeout`,
 * the wait for one response, keeps npm's 5 min).
 */
export const NPM_INSTALL_FLAGS: readonly string[] = [
  "--no-audit",
  "--no-fund",
  "--prefer-online",
  "--fetch-retries=2",
  "--fetch-retry-mintimeout=1000",
  "--fetch-retry-maxtimeout=4000",
];

/**
 * How npm is started: the action's trusted npm (`trusted-tools.ts`), and when it is a node script (npm's
 * `npm-cli.js`, whose `#!/usr/bin/env node` would take the first `node` on `PATH`) on the engine's own node;
 * outside the action, `npm` from the call's `PATH`.
 */
function npmCommand(): { readonly command: string; readonly lead: string[] } | { readonly message: string } {
  let npm: string;
  try {
    npm = trustedCommand("npm");
  } catch (error) {
    if (error instanceof UntrustedToolError) return { message: error.message };
    throw error;
  }
  return npm !== "npm" && runsOnNode(npm)
    ? { command: process.execPath, lead: [npm] }
    : { command: npm, lead: [] };
}

/** Resolves and pins the tool cache's executable, or says why it cannot be run. */
async function pin(
  cli: ModelCliPackage,
  path: string,
  installed: boolean,
  options: { readonly version: string; readonly log: (line: string) => void; readonly workspace?: string },
): Promise<CliLookup> {
  let real: string;
  try {
    real = realpathSync(path);
    if (!statSync(real).isFile()) throw new Error("not a regular file");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      kind: "failed",
      message: `the tool cache's ${cli.bin} ${options.version} at ${path} cannot be run (${why}): remove ${join(path, "..", "..", "..")} so the action installs ${cli.npmPackage}@${options.version} again`,
    };
  }
  if (options.workspace !== undefined) {
    const inside = relative(options.workspace, real);
    if (inside === "" || !(inside === ".." || inside.startsWith(`..${sep}`))) {
      return {
        kind: "failed",
        message: `the tool cache's ${cli.bin} ${options.version} at ${path} leads into the workspace (${real}), which the pull request controls: it is not run. Remove ${join(path, "..", "..", "..")} so the action installs ${cli.npmPackage}@${options.version} again`,
      };
    }
  }
  const pinned = new PinnedCli(real, await sha256Of(real));
  options.log(`${cli.bin} ${options.version} runs as ${real} (sha256 ${pinned.sha256})`);
  return { kind: "found", path, installed, pinned };
}
