/**
 * The engine's own git never runs a program the pull request configured (issue 21 item 1; ADR 0012;
 * SECURITY.md "The engine's git").
 *
 * In the action, the workspace — its `.git/` included — is writable by the pull request's code (the separate
 * user has the workspace's group, `isolate-user.ts`). A `.git/config` is code: `core.fsmonitor`,
 * `core.hooksPath`, `filter.<x>.clean` with a `.gitattributes` line, `diff.external`, `include.path`, … each
 * names a program git starts; and it can make git lie (an fsmonitor hook saying "nothing changed" makes
 * `git write-tree` return the start tree). Protecting `.git` in place does not hold: the workspace root is
 * writable, so the pull request can rename `.git` and put its own.
 *
 * So, before any PR code runs, {@link makeTrustedGitDir} makes a **trusted git directory** outside the
 * workspace, in a folder only the engine's user can enter (mode 0700), holding the start commit and its tree
 * (a `--depth=1` fetch from the checkout, made while the checkout is still as `actions/checkout` and the
 * push-mode checkout left it), a configuration the engine writes itself (no filter, diff driver, hook,
 * fsmonitor, include, pager, credential helper or remote program: none at all), and its own index (the
 * checkout's, read back onto the start tree, so unchanged files keep their stat data). Inside
 * {@link withTrustedGit}, every engine git call whose `cwd` is inside the workspace runs as
 * `git --git-dir=<trusted> --work-tree=<workspace> -c …` ({@link engineGitCall}) with no system or global
 * configuration and no `GIT_*` variable of the job: the checkout's `.git` is never read again.
 *
 * Git's `safe.directory` rule stays as it is: it guards repository *discovery*, and an explicit
 * `--git-dir` the engine owns is not discovered. Outside a trusted scope (the CLI on a user's own machine,
 * and the action's steps before PR code runs), git uses the repository as it is — it is the user's own
 * configuration — with the keys that only start programs the engine never needs pinned off
 * ({@link PINNED_EVERYWHERE}); in the action's steps before the trusted directory exists, also every
 * other key that could start a program there, the checkout's own filter drivers included
 * ({@link guardCheckoutConfiguration}).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/** A trusted git directory for one run's workspace ({@link makeTrustedGitDir} in `trusted-git-dir.ts`). */
export interface TrustedGitDir {
  /** The git directory (absolute; non-bare configuration, no hooks, owned by the engine's user). */
  readonly gitDir: string;
  /** The workspace's top directory as `git rev-parse --show-toplevel` named it (a real path). */
  readonly workTree: string;
  /** The 0700 folder holding `gitDir` (removed with it). */
  readonly home: string;
  /** The commit the trusted `HEAD` points at (the checkout's `HEAD` when it was made); `null`: unborn. */
  readonly startCommit: string | null;
}

/**
 * Configuration given on every engine git call, in the action and in the CLI: keys whose only effect is to
 * start a program (or to trust a cache a program fills) that the engine's git never needs. A `-c` on the
 * command line wins over every configuration file, `include.path` included. Not pinned here, because a
 * user's own repository may need them and the trusted directory's configuration has none anyway: filters
 * (Git LFS), `diff.external` (an empty value would be run; the engine's diffs pass `--no-ext-diff`),
 * `core.sshCommand` and `credential.helper` (the action's fetches before PR code runs, from an
 * `actions/checkout` with `ssh-key`), `gpg.program` (a CLI user's signed `--commit`).
 */
export const PINNED_EVERYWHERE: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.askPass", ""],
];

/**
 * Configuration added, in the action, to every engine git call made *before* the trusted git directory
 * exists (the loop guard, the event-checkout check, the head checkout and push mode's fetch and checkout,
 * the trusted directory's own reads of the checkout) — calls that must read the checkout's `.git` as it is,
 * which an earlier step of the job, or a pull request's code on a self-hosted runner's kept workspace, may
 * have written. Each key names a program git could start during those calls (a fetch, a checkout, an
 * `add -A` into a scratch index), pinned to one that starts nothing of the checkout's: remote helpers and
 * protocols beyond `file`, `http(s)` and `ssh`, the ssh command, credential helpers (the action sends its
 * token as a header), the alternate-refs command, automatic gc and maintenance, submodules. Per-name keys
 * (`filter.<x>.clean`, …) cannot be pinned by a fixed list: {@link checkoutProgramPins} pins those the
 * checkout's own configuration names. `safe.directory` is left as it is.
 */
const PINNED_BEFORE_SCOPE: readonly (readonly [string, string])[] = [
  ["protocol.allow", "never"],
  ["protocol.file.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.https.allow", "always"],
  ["protocol.ssh.allow", "always"],
  ["core.sshCommand", "ssh"],
  ["credential.helper", ""],
  ["core.alternateRefsCommand", "true"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
];

let checkoutGuarded = false;

/**
 * Called once at the action's start (`pull-request/trusted-executables.ts`): from then on, every engine git call
 * outside a trusted scope gets {@link PINNED_BEFORE_SCOPE} and the checkout's per-name program keys pinned
 * ({@link checkoutProgramPins}). The CLI does not call it: a user's own repository configuration is theirs.
 * `on: false` undoes it (tests, which share one module registry per worker).
 */
export function guardCheckoutConfiguration(on = true): void {
  checkoutGuarded = on;
}

/** Whether {@link guardCheckoutConfiguration} ran (the action). */
export function checkoutConfigurationGuarded(): boolean {
  return checkoutGuarded;
}

/**
 * The `git config` call that lists the per-name keys of the checkout's own configuration (`local` and
 * `worktree` scopes, includes followed: reading configuration starts no program) that could name a program
 * during a call before the trusted scope: filter drivers, and a remote's upload and receive programs.
 */
export const CHECKOUT_PROGRAM_KEYS_ARGS: readonly string[] = [
  "config",
  "--show-scope",
  "--name-only",
  "--get-regexp",
  "^(filter|remote)\\.",
];

/**
 * The `-c` pins for the keys {@link CHECKOUT_PROGRAM_KEYS_ARGS} listed (`scope<TAB>key` lines): each filter
 * driver's `clean`, `smudge` and `process` emptied (git then runs no filter; measured on git 2.39) and
 * `required` off, so a `.gitattributes` line naming it changes nothing; a remote's `uploadpack` and
 * `receivepack` back to git's own programs. Keys of the system and global configuration (the operator's,
 * e.g. Git LFS installed system-wide) are left alone.
 */
export function checkoutProgramPins(listed: string): string[] {
  const pins = new Map<string, string>();
  for (const line of listed.split("\n")) {
    const [scope, key] = line.split("\t");
    if (key === undefined || (scope !== "local" && scope !== "worktree")) continue;
    const lower = key.toLowerCase();
    const filter = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (filter !== null) {
      const name = filter[1]!;
      for (const field of ["clean", "smudge", "process"]) pins.set(`filter.${name}.${field}`, "");
      pins.set(`filter.${name}.required`, "false");
      continue;
    }
    const remote = /^remote\.(.+)\.(uploadpack|receivepack)$/is.exec(key);
    if (remote !== null) pins.set(key, lower.endsWith("uploadpack") ? "git-upload-pack" : "git-receive-pack");
  }
  return [...pins].flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/**
 * Configuration added inside a trusted scope: the trusted directory's own configuration names nothing, and
 * these also keep the job's environment out (attributes and excludes files of the machine, remote
 * protocols that start programs, the index's untracked cache and split index).
 */
const PINNED_TRUSTED: readonly (readonly [string, string])[] = [
  ["core.attributesFile", "/dev/null"],
  ["core.excludesFile", "/dev/null"],
  ["core.untrackedCache", "false"],
  ["core.splitIndex", "false"],
  ["protocol.allow", "never"],
  ["protocol.file.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.https.allow", "always"],
  ["uploadpack.packObjectsHook", ""],
  ["submodule.recurse", "false"],
];

/**
 * Environment set on every engine git call, in the action and in the CLI: no replace refs. A
 * `refs/replace/<HEAD>` a node wrote made `cat-file commit HEAD` answer with another commit's tree, and the
 * CLI's ledger tied HEAD's sha to the edited tree (found by an attack, 2026-12-06); the engine reads
 * objects as they are.
 */
const ENV_EVERYWHERE: Readonly<Record<string, string>> = { GIT_NO_REPLACE_OBJECTS: "1" };

/**
 * Environment set on every engine git call inside a trusted scope: no system or global configuration
 * file (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL`), no system attributes, no pager, no replace refs.
 */
const TRUSTED_ENV: Readonly<Record<string, string>> = {
  ...ENV_EVERYWHERE,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
};

/** A trusted scope: the directory, and the workspace paths no tree the engine makes may hold. */
interface TrustedScope extends TrustedGitDir {
  readonly hidden: () => readonly string[];
}

const storage = new AsyncLocalStorage<TrustedScope>();

/**
 * Runs `body` so that every engine git call it makes in `dir.workTree` uses `dir` ({@link engineGitCall}).
 * `hidden`, asked before each tree the engine makes of the working tree ({@link hiddenPaths}), names
 * absolute paths in the workspace that tree must leave out: the checkout's own git directories that the
 * pull request's code moved aside (`movedCheckoutGits` in `checkout-git.ts`), which are not its work and,
 * committed and pushed, would publish the checkout's `.git` (its `config` may hold the job's token).
 */
export function withTrustedGit<T>(
  dir: TrustedGitDir,
  body: () => Promise<T>,
  hidden: () => readonly string[] = () => [],
): Promise<T> {
  return storage.run({ ...dir, hidden }, body);
}

/**
 * The scope's hidden paths inside the work tree of `cwd`, relative to its top (`/`-separated): `[]` outside
 * a trusted scope or when nothing is hidden. A tree the engine makes holds nothing at these paths — not the
 * moved git directory, and not what the start commit had there either (a `.git` moved onto a `test/` folder
 * the pull request emptied is a deleted `test/`, as the verify command saw it).
 */
export function hiddenPaths(cwd: string): string[] {
  const trusted = storage.getStore();
  if (trusted === undefined || !onTrustedGit(cwd)) return [];
  const root = real(trusted.workTree);
  return trusted
    .hidden()
    .map((path) => relative(root, real(path)))
    .filter((rel) => rel !== "" && !rel.startsWith("..") && !isAbsolute(rel))
    .map((rel) => rel.split("\\").join("/"));
}

/** The trusted git directory of the current scope, or `null` outside {@link withTrustedGit}. */
export function currentTrustedGit(): TrustedGitDir | null {
  return storage.getStore() ?? null;
}

/**
 * Whether an engine git call in `cwd` runs on the trusted git directory (inside {@link withTrustedGit}, `cwd`
 * in its work tree). A caller whose git command would start git in *another* repository of the workspace (a
 * submodule's, whose git directory the pull request can write) uses it to keep that from happening.
 */
export function onTrustedGit(cwd: string): boolean {
  const trusted = currentTrustedGit();
  return trusted !== null && isInside(cwd, trusted.workTree);
}

/** `path` with symbolic links resolved where it exists, else as given (resolved against the cwd). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `dir` is `root` or inside it. */
export function isInside(dir: string, root: string): boolean {
  const rel = relative(real(root), real(dir));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

const configArgs = (pairs: readonly (readonly [string, string])[]): string[] =>
  pairs.flatMap(([key, value]) => ["-c", `${key}=${value}`]);

/** How one engine git call is started: its argv (after `git`), the base environment and the variables set. */
export interface EngineGitCall {
  readonly args: readonly string[];
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly set: Readonly<Record<string, string>>;
  /** True when the call runs on the trusted git directory. */
  readonly trusted: boolean;
}

/**
 * The one place an engine git call's argv and environment are decided (`git.ts` runs it). Every call gets
 * {@link PINNED_EVERYWHERE}; inside a trusted scope, a call whose `cwd` is in the workspace also gets
 * `--git-dir=<trusted> --work-tree=<workspace>`, the trusted pins, no `GIT_*` variable of `baseEnv` (a
 * job's `GIT_DIR`, `GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`, …) and {@link TRUSTED_ENV}. `set` (the
 * caller's own `GIT_INDEX_FILE`, `GIT_OPTIONAL_LOCKS`, a fetch's credential through `GIT_CONFIG_*`) is kept.
 */
export function engineGitCall(
  args: readonly string[],
  o: {
    readonly cwd: string;
    readonly baseEnv: Readonly<Record<string, string | undefined>>;
    readonly set: Readonly<Record<string, string>>;
  },
): EngineGitCall {
  const trusted = currentTrustedGit();
  if (trusted === null || !onTrustedGit(o.cwd)) {
    const before = checkoutGuarded && trusted === null ? configArgs(PINNED_BEFORE_SCOPE) : [];
    return {
      args: [...configArgs(PINNED_EVERYWHERE), ...before, ...args],
      baseEnv: o.baseEnv,
      set: { ...ENV_EVERYWHERE, ...o.set },
      trusted: false,
    };
  }
  return {
    args: [
      `--git-dir=${trusted.gitDir}`,
      `--work-tree=${trusted.workTree}`,
      ...configArgs(PINNED_EVERYWHERE),
      ...configArgs(PINNED_TRUSTED),
      ...args,
    ],
    baseEnv: Object.fromEntries(Object.entries(o.baseEnv).filter(([name]) => !/^GIT_/i.test(name))),
    set: { ...TRUSTED_ENV, HOME: trusted.home, XDG_CONFIG_HOME: trusted.home, ...o.set },
    trusted: true,
  };
}
