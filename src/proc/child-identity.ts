/**
 * The separate user PR code runs as (issue 12 item 3; SECURITY.md "A separate user for PR code"). The
 * action sets it up once (`isolate-user.ts`) and runs the engine inside {@link withChildIdentity}; the exec
 * seam then starts every child marked `prCode` (the verify command, the model CLIs) as that user, and
 * every other child (git, the CLI install) as the engine's own user.
 *
 * The identity travels in an `AsyncLocalStorage` scope rather than through every engine option: it is a
 * property of the process's surroundings (who may read what on this machine), like the environment, and
 * no engine decision depends on it.
 *
 * How a child becomes the user:
 * - `via: "root"` (the engine runs as root): `setpriv --reuid=<uid> --regid=<gid> --init-groups -- <file>
 *   <args>`, the environment handed to setpriv as is (setpriv passes it on unchanged).
 * - `via: "sudo"` (passwordless sudo, as on GitHub-hosted runners): `sudo -n --preserve-env -u <user> --
 *   /usr/bin/env PATH=<PATH> HOME=<home> <file> <args>` — `--preserve-env` keeps the built environment
 *   (sudoers' `ALL` grants imply `SETENV`), and `env` restores `PATH`, which sudo's `secure_path` replaces.
 *   Neither value is a secret (the child's environment holds none; see `child-env.ts`).
 * Either way the child's `HOME` is the run's fresh home (`run-home.ts`) unless its environment already
 * names one (the model CLIs' fresh homes, handed to the user with {@link giveToIdentity}), its `TMPDIR`,
 * `XDG_*_HOME` and shared caches are the run's ({@link ChildIdentity.runEnv}), and git inside it trusts the
 * workspace (`safe.directory=*` through `GIT_CONFIG_COUNT`: the workspace belongs to the runner's user).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { spawnSync } from "node:child_process";
import { chownSync } from "node:fs";
import { findExecutable } from "./which.js";

/** An unprivileged user the engine can start children as. */
export interface ChildIdentity {
  /** Login name (`evidence-gate-pr` by default). */
  readonly user: string;
  readonly uid: number;
  readonly gid: number;
  /**
   * The children's `HOME`: the run's fresh home (`run-home.ts`) once the set-up made it, else the user's
   * login home.
   */
  readonly home: string;
  /**
   * Set on every child started as the user, over its environment: the run's fresh `TMPDIR`, `XDG_*_HOME`
   * and shared caches' variables (`run-home.ts` `RunHome.env`).
   */
  readonly runEnv?: Readonly<Record<string, string>>;
  /** How the engine switches to it: it is root itself, or it runs `sudo -n`. */
  readonly via: "root" | "sudo";
  /** Absolute path of `setpriv` (`via: "root"`). */
  readonly setpriv: string;
}

/**
 * Where the run's PR-code children run: as `identity` (or, `null`, as the engine's user), and how many
 * processes they left behind that the exec seam killed ({@link ChildScope.leftBehind}, for the summary).
 */
export class ChildScope {
  /** Processes PR-code children left running, killed when each child ended (`leftovers.ts`). */
  leftBehind = 0;
  /** Why handing the user's files back failed (`hand-back.ts`), one sentence each, for the log. */
  readonly handBackProblems: string[] = [];
  /** Absolute paths of node scripts started with the engine's own node ({@link ChildScope.runWithOwnNode}). */
  readonly #ownNodeScripts = new Set<string>();

  constructor(readonly identity: ChildIdentity | null) {}

  /**
   * Starts the node script at `path` (absolute; the action's pinned `codex.js`) with the engine's own node
   * (`process.execPath`) from now on, never through its `#!/usr/bin/env node` line: that line finds `node`
   * on the child's `PATH`, which an earlier step's `GITHUB_PATH` (a pull request's `postinstall`) may have
   * put a program of its own first on (issue 12; SECURITY.md "A separate user for PR code").
   */
  runWithOwnNode(path: string): void {
    this.#ownNodeScripts.add(path);
  }

  /** The file and arguments that start `file args` here: `process.execPath file args` for a registered script. */
  launch(file: string, args: readonly string[]): { readonly file: string; readonly args: string[] } {
    return this.#ownNodeScripts.has(file)
      ? { file: process.execPath, args: [file, ...args] }
      : { file, args: [...args] };
  }

  /** Runs `body` so that every `prCode` child it spawns (at any depth of awaits) belongs to this scope. */
  run<T>(body: () => Promise<T>): Promise<T> {
    return storage.run(this, body);
  }
}

const storage = new AsyncLocalStorage<ChildScope>();

/** Runs `body` so that every `prCode` child it spawns runs as `identity` (`null`: as the engine's user). */
export function withChildIdentity<T>(identity: ChildIdentity | null, body: () => Promise<T>): Promise<T> {
  return new ChildScope(identity).run(body);
}

/** The scope `prCode` children are spawned in here, or `null` outside any. */
export function currentChildScope(): ChildScope | null {
  return storage.getStore() ?? null;
}

/** The identity `prCode` children run as here, or `null` (the engine's own user). */
export function currentChildIdentity(): ChildIdentity | null {
  return storage.getStore()?.identity ?? null;
}

/** The command line and environment that start `file args` as `identity`. */
export function commandAs(
  identity: ChildIdentity,
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): { readonly file: string; readonly args: string[]; readonly env: Record<string, string> } {
  const own: Record<string, string> = { ...env, ...identity.runEnv, HOME: env.HOME ?? identity.home };
  if (own.GIT_CONFIG_COUNT === undefined) {
    own.GIT_CONFIG_COUNT = "1";
    own.GIT_CONFIG_KEY_0 = "safe.directory";
    own.GIT_CONFIG_VALUE_0 = "*";
  }
  if (identity.via === "root") {
    const ids = [`--reuid=${identity.uid}`, `--regid=${identity.gid}`, "--init-groups"];
    return { file: identity.setpriv, args: [...ids, "--", file, ...args], env: own };
  }
  // sudo may drop or reset some of these (secure_path, env_delete): `env` sets them again.
  const pinned = [
    `PATH=${own.PATH ?? "/usr/bin:/bin"}`,
    `HOME=${own.HOME}`,
    ...Object.entries(identity.runEnv ?? {}).map(([name, value]) => `${name}=${value}`),
  ];
  return {
    // From the system folders, not the child's PATH (which an earlier step's GITHUB_PATH may have planted).
    file: findExecutable("sudo", SYSTEM_TOOLS_ENV.PATH) ?? "/usr/bin/sudo",
    args: ["-n", "--preserve-env", "-u", identity.user, "--", "/usr/bin/env", ...pinned, file, ...args],
    env: own,
  };
}

/**
 * The environment of the system tools the set-up and the kills run with privileges (`useradd`, `chgrp`,
 * `chown`, `pgrep`, `pkill`, `sudo`, `setpriv`): the system folders only, never the runner's `PATH` — an
 * earlier step's `GITHUB_PATH` entry must not pick what runs as root.
 */
export const SYSTEM_TOOLS_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
  LANG: "C",
};

/**
 * The command that runs `argv` with the engine's privileges over the user (root: as is; else `sudo -n`).
 */
export function privileged(identity: Pick<ChildIdentity, "via">, argv: readonly string[]): string[] {
  return identity.via === "root" ? [...argv] : ["sudo", "-n", ...argv];
}

/**
 * Runs a system tool (`argv`, found on {@link SYSTEM_TOOLS_ENV}'s `PATH`) with the engine's privileges over
 * the user — directly as root, else through `sudo -n` ({@link privileged}) — and waits for it.
 *
 * @returns `null` when it exited 0, else one sentence: `<tool> exited <code or signal>: <first error line>`.
 */
export function runPrivileged(identity: Pick<ChildIdentity, "via">, argv: readonly string[]): string | null {
  const [file, ...args] = privileged(identity, argv);
  const done = spawnSync(file as string, args, { encoding: "utf8", env: { ...SYSTEM_TOOLS_ENV } });
  if (done.status === 0) return null;
  const why = (done.stderr ?? String(done.error ?? "")).trim().split("\n")[0] ?? "";
  return `${argv[0]} exited ${done.status ?? done.signal}${why !== "" ? `: ${why}` : ""}`;
}

/**
 * Hands a folder the engine made (a model CLI's fresh home) to the user `prCode` children run as here, so
 * the child can write it; does nothing outside a {@link withChildIdentity} scope.
 *
 * @throws Error naming the folder when it cannot be handed over.
 */
export function giveToIdentity(path: string): void {
  const identity = currentChildIdentity();
  if (identity === null) return;
  if (identity.via === "root") {
    chownSync(path, identity.uid, identity.gid);
    return;
  }
  const [file, ...args] = privileged(identity, ["chown", "-R", `${identity.uid}:${identity.gid}`, path]);
  const result = spawnSync(file as string, args, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
  if (result.status !== 0)
    throw new Error(`could not hand ${path} to ${identity.user} (sudo -n chown exited ${result.status})`);
}

/**
 * Makes a folder the engine made (the base's worktree, `evidence/base-verify.ts`) writable for the user
 * `prCode` children run as here, the way the set-up makes the workspace writable (`isolate-user.ts`): its
 * group becomes the user's (`chgrp -R`), group read/write is added (`chmod -R g+rwX`) and new folders keep
 * the group (`g+s`); owners are unchanged, so the engine's git still owns the work tree. Does nothing
 * outside a {@link withChildIdentity} scope.
 *
 * @throws Error naming the folder and the step when it cannot be shared.
 */
export function shareWithIdentity(path: string): void {
  const identity = currentChildIdentity();
  if (identity === null) return;
  for (const step of [
    ["chgrp", "-R", String(identity.gid), path],
    ["chmod", "-R", "g+rwX", path],
    ["find", path, "-type", "d", "-exec", "chmod", "g+s", "{}", "+"],
  ]) {
    const [file, ...args] = privileged(identity, step);
    const result = spawnSync(file as string, args, { stdio: "ignore", env: { ...SYSTEM_TOOLS_ENV } });
    if (result.status !== 0)
      throw new Error(`could not share ${path} with ${identity.user} (${step[0]} exited ${result.status})`);
  }
}
