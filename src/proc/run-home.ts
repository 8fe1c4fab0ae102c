/**
 * A fresh home per run for the separate user (issue 21 item 3; SECURITY.md "A separate user for PR code").
 * The user's login home (`/home/evidence-gate-pr`) survives between jobs on a self-hosted runner: a
 * `~/.npmrc` one pull request's build planted there turned a later pull request's failing build green. So:
 *
 * 1. The login home is emptied and given to root (mode 0755) at every set-up ({@link lockLoginHome}): the
 *    user can read it and write nothing in it, so a tool that finds the home through `getpwuid` (ssh) and
 *    not `$HOME` finds nothing a pull request left, and nothing can be left there any more.
 * 2. Each run gets `<parent>/pr-user-XXXXXX/` ({@link makeRunHome}; `<parent>` is
 *    `<RUNNER_TEMP>/evidence-gate`, outside the workspace), owned by the user, mode 0700 (nobody else reads
 *    it), holding `home`, `tmp`, `cache`, `config`, `data` and `state`; every PR-code child gets them as
 *    `HOME` (unless its environment names one: a model CLI's own fresh home), `TMPDIR`, `XDG_CACHE_HOME`,
 *    `XDG_CONFIG_HOME`, `XDG_DATA_HOME` and `XDG_STATE_HOME` ({@link RunHome.env}), so npm's and pip's
 *    caches and configuration, and everything else that follows those variables, start empty.
 * 3. It is removed when the run ends ({@link removeRunHome}: after every process of the user was killed),
 *    and by the post step where the main step could not (cancelled, killed): the folder is saved as state.
 *
 * 4. What the user leaves in the machine's shared temporary folders (`/tmp`, `/var/tmp`, `/dev/shm`: every user
 *    may write them, so a build can leave a file there for the next pull request's build, whose `TMPDIR` is
 *    fresh but whose tools may still look there by name) is removed at the run's end and at the next
 *    set-up ({@link sweepSharedTemp}): each entry owned by the user's uid, never one of another owner,
 *    never through a link.
 *
 * Shared caches (input `pr-user-cache`) are the operator's choice: each named one lives in
 * `/var/cache/evidence-gate-pr/<name>` (owned by the user, mode 0700), kept between runs, and its variable
 * points there ({@link SHARED_CACHES}). What one pull request's build writes in it, the next one's reads.
 */
import { lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { type ChildIdentity, runPrivileged } from "./child-identity.js";

/**
 * The shared caches input `pr-user-cache` may name, each with the variable that points the tool at it
 * (npm: `npm_config_cache`, npm docs "config: cache"; pip: `PIP_CACHE_DIR`, pip docs "Caching").
 */
export const SHARED_CACHES = { npm: "npm_config_cache", pip: "PIP_CACHE_DIR" } as const;

/** A name input `pr-user-cache` accepts. */
export type SharedCache = keyof typeof SHARED_CACHES;

/** Where the shared caches live, one folder per name, kept between runs. */
export const SHARED_CACHE_ROOT = "/var/cache/evidence-gate-pr";

/** The folders of one run's fresh home, made by {@link makeRunHome}. */
export interface RunHome {
  /** `<parent>/pr-user-XXXXXX`: removed whole when the run ends. */
  readonly root: string;
  /** `home` inside {@link root}: the PR-code children's `HOME`. */
  readonly home: string;
  /** What every PR-code child gets: `TMPDIR`, `XDG_*_HOME` and the shared caches' variables (not `HOME`). */
  readonly env: Readonly<Record<string, string>>;
  /** The shared caches in use, with their folders (empty without `pr-user-cache`). */
  readonly sharedCaches: readonly { readonly name: SharedCache; readonly path: string }[];
}

type Via = Pick<ChildIdentity, "via">;

/**
 * Empties the user's login home and gives it to root, mode 0755 (step 1 of the module comment). Run only
 * when no process of the user runs. Idempotent.
 *
 * @returns why it could not, or `null`.
 */
export function lockLoginHome(identity: ChildIdentity, loginHome: string): string | null {
  if (!loginHome.startsWith("/") || loginHome === "/")
    return `the login home ${loginHome} is not a folder of its own`;
  for (const step of [
    ["mkdir", "-p", loginHome],
    // Root's first, so nothing new can appear at its top while it is emptied.
    ["chown", "-h", "0:0", loginHome],
    ["chmod", "0755", loginHome],
    // -xdev: what the user mounted or linked there is not followed (find deletes a link, not its target).
    ["find", loginHome, "-xdev", "-mindepth", "1", "-delete"],
  ]) {
    const problem = runPrivileged(identity, step);
    if (problem !== null) return `emptying the login home ${loginHome} failed (${problem})`;
  }
  return null;
}

/**
 * Makes one run's fresh home under `parent` (step 2 of the module comment), and the shared caches named in
 * `caches` under {@link SHARED_CACHE_ROOT}.
 *
 * @throws Error naming the folder and the failed command when it cannot be made or given to the user.
 */
export function makeRunHome(
  identity: ChildIdentity,
  parent: string,
  caches: readonly SharedCache[],
): RunHome {
  mkdirSync(parent, { recursive: true });
  const root = mkdtempSync(join(parent, "pr-user-"));
  const dirs = { home: "home", tmp: "tmp", cache: "cache", config: "config", data: "data", state: "state" };
  for (const name of Object.values(dirs)) mkdirSync(join(root, name), { mode: 0o700 });
  const owner = `${identity.uid}:${identity.gid}`;
  const sharedCaches = caches.map((name) => ({ name, path: join(SHARED_CACHE_ROOT, name) }));
  for (const step of [
    ["chown", "-R", owner, root],
    ["chmod", "0700", root],
    ...sharedCaches.flatMap(({ path }) => [
      ["mkdir", "-p", path],
      ["chown", owner, path],
      ["chmod", "0700", path],
    ]),
  ]) {
    const problem = runPrivileged(identity, step);
    if (problem !== null)
      throw new Error(`could not make ${root} the fresh home of ${identity.user} (${problem})`);
  }
  const env: Record<string, string> = {
    TMPDIR: join(root, dirs.tmp),
    XDG_CACHE_HOME: join(root, dirs.cache),
    XDG_CONFIG_HOME: join(root, dirs.config),
    XDG_DATA_HOME: join(root, dirs.data),
    XDG_STATE_HOME: join(root, dirs.state),
  };
  for (const { name, path } of sharedCaches) env[SHARED_CACHES[name]] = path;
  return { root, home: join(root, dirs.home), env, sharedCaches };
}

/**
 * Removes one run's fresh home (step 3), as root or through `sudo -n` (`via`): `rm -rf --one-file-system`,
 * which removes a link and never what it points to. Call it only when no process of the user runs. A
 * folder already gone is no error.
 *
 * @returns why it could not be removed, or `null`.
 */
export function removeRunHome(identity: Via, root: string): string | null {
  if (!/\/pr-user-[^/]+$/.test(root)) return `${root} is not a run's fresh home (pr-user-XXXXXX)`;
  const problem = runPrivileged(identity, ["rm", "-rf", "--one-file-system", root]);
  return problem === null ? null : `could not remove ${root} (${problem})`;
}

/**
 * The machine's shared temporary folders: every user may write them (sticky, mode 1777), so what the
 * separate user leaves there outlives its run unless {@link sweepSharedTemp} removes it.
 */
export const SHARED_TEMP_DIRS: readonly string[] = ["/tmp", "/var/tmp", "/dev/shm"];

/** `path` as a `find -path` pattern that matches it literally (its glob characters escaped). */
const literalPattern = (path: string): string => path.replace(/[\\*?[\]]/g, "\\$&");

/**
 * Removes every file, folder and link owned by the user's uid in each of `dirs` (default
 * {@link SHARED_TEMP_DIRS}; step 4 of the module comment), as root or through `sudo -n`: `find <dir> -xdev
 * -mindepth 1 -uid <uid> -delete`, which never follows a link (a link is removed, not its target), never
 * leaves the folder's file system (a mount the user made is not entered) and removes nothing of another
 * owner (a folder of the user holding another owner's file stays, and is named in the problems). A `dir` that
 * is not a real folder (missing, a link) is passed over. `keep` are folders whose contents are not removed
 * whoever owns them (the workspace and `RUNNER_TEMP` where they lie under a swept folder: their files are
 * handed back, not deleted). Call it only when no process of the user runs (after `killUserProcesses`).
 *
 * @returns one sentence per folder that could not be swept whole (empty: all swept).
 */
export function sweepSharedTemp(
  identity: Pick<ChildIdentity, "via" | "uid">,
  o: { readonly dirs?: readonly string[]; readonly keep?: readonly string[] } = {},
): string[] {
  const problems: string[] = [];
  const kept = (o.keep ?? []).flatMap((dir) => [
    "!",
    "-path",
    literalPattern(dir),
    "!",
    "-path",
    `${literalPattern(dir)}/*`,
  ]);
  for (const dir of o.dirs ?? SHARED_TEMP_DIRS) {
    let real: boolean;
    try {
      real = lstatSync(dir).isDirectory();
    } catch {
      real = false;
    }
    if (!real) continue;
    const problem = runPrivileged(identity, [
      "find",
      dir,
      "-xdev",
      "-mindepth",
      "1",
      "-uid",
      String(identity.uid),
      ...kept,
      "-delete",
    ]);
    if (problem !== null)
      problems.push(`could not remove everything of uid ${identity.uid} in ${dir} (${problem})`);
  }
  return problems;
}
