/**
 * The programs the engine itself runs — `git`, `sh`, `npm` — resolved once, at the action's start, to
 * absolute paths nothing the pull request can write (SPEC §9 "PR code never reaches the engine's user";
 * issue 21 item 2). The job's `PATH` may hold a folder of the workspace (`node_modules/.bin` after a set-up
 * step, a `GITHUB_PATH` entry): a `git` the pull request planted there, found first, would run as the
 * engine's user (root, or the runner's) with everything the engine holds. So each candidate on `PATH` is
 * taken only when it is trusted ({@link untrustedReason}): not in or under the workspace, `RUNNER_TEMP`
 * or the separate user's home; the file, its folder and every folder above it owned by root or the engine's
 * own user and not writable by group or others (a sticky folder such as `/tmp` above it is fine: its
 * entries can be renamed only by their owners). The first trusted candidate wins, the untrusted ones
 * before it are named in {@link TrustedTools.skipped}; when none is trusted, using the program throws an
 * {@link UntrustedToolError} naming it and the `PATH` searched.
 *
 * What is run is the path with its folder's links resolved (`realpath(dirname) + basename`): a link
 * folder the pull request could re-point later is not in it. The last link (`/bin/sh` → `dash`) is kept,
 * so a shell keeps the name it was called by; its target is checked too.
 *
 * The PR user's own children (the verify command, the model CLIs and their tools) keep the job's `PATH`:
 * what a build runs is its own business. The engine's own children (`git`, `npm`) get {@link
 * TrustedTools.path}: the job's `PATH` without its untrusted folders, so a program they start by name
 * (`git-lfs` for a filter, `node` for an npm script) is not the pull request's either.
 *
 * Only the action configures this ({@link configureTrustedTools}); the CLI and the App run on a machine the
 * operator controls, where the name is looked up on the call's `PATH` as before.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** The programs the engine runs by name. `sh` is `/bin/sh` (POSIX), the others come from `PATH`. */
export type TrustedToolName = "git" | "sh" | "npm";

const TOOL_NAMES: readonly TrustedToolName[] = ["git", "sh", "npm"];

/** What decides trust: the job's `PATH`, the folders the pull request can write, the trusted owners. */
export interface TrustContext {
  /** The job's `PATH` at the start of the step. */
  readonly pathEnv: string | undefined;
  /**
   * Folders whose contents the pull request writes or may write, each an absolute path: the workspace,
   * `RUNNER_TEMP`, the separate user's home. Nothing in or under them is trusted.
   */
  readonly untrustedRoots: readonly string[];
  /** uids that may own a trusted file or folder (default: root and this process's own uid). */
  readonly owners?: readonly number[];
}

/** One program the engine will run: its absolute path, or why no trusted copy exists. */
export type TrustedTool =
  | { readonly kind: "found"; readonly path: string }
  | { readonly kind: "missing"; readonly message: string };

/** The programs resolved at start, and the trusted `PATH` for the engine's own children. */
export interface TrustedTools {
  readonly tools: Readonly<Record<TrustedToolName, TrustedTool>>;
  /** The job's `PATH` without the folders that are not trusted (`:`-joined; may be empty). */
  readonly path: string;
  /** Each candidate passed over, with why (`/work/repo/node_modules/.bin/git: it lies in …`). */
  readonly skipped: readonly string[];
}

/** No trusted copy of a program the engine must run: its name, the `PATH` searched and what was passed over. */
export class UntrustedToolError extends Error {
  constructor(
    readonly tool: TrustedToolName,
    message: string,
  ) {
    super(message);
    this.name = "UntrustedToolError";
  }
}

const STICKY = 0o1000;
const GROUP_OR_OTHER_WRITE = 0o022;

/** Whether `path` is `root` or lies under it (both absolute and resolved). */
function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel));
}

/** Why the owner or mode of `path` (already stat'ed) makes it untrusted, or `null`. */
function ownerOrModeProblem(
  path: string,
  st: { readonly uid: number; readonly mode: number },
  o: { readonly owners: readonly number[]; readonly stickyOk: boolean },
): string | null {
  if (!o.owners.includes(st.uid))
    return `${path} is owned by uid ${st.uid}, not root or the engine's own user (uid ${o.owners.join(", ")})`;
  if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0 && !(o.stickyOk && (st.mode & STICKY) !== 0))
    return `${path} is writable by its group or by others (mode ${(st.mode & 0o7777).toString(8)})`;
  return null;
}

/** Why folder `dir` (a real path) or a folder above it is untrusted, or `null`. */
function folderChainProblem(dir: string, owners: readonly number[], selfStickyOk: boolean): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const problem = ownerOrModeProblem(d, statSync(d), { owners, stickyOk: d !== dir || selfStickyOk });
    if (problem !== null) return problem;
    if (dirname(d) === d) return null;
  }
}

/** Why `path` lies in a folder the pull request writes, or `null`. */
function rootProblem(path: string, roots: readonly string[]): string | null {
  for (const root of roots) {
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      real = resolve(root);
    }
    if (within(path, real) || within(path, resolve(root)))
      return `${path} lies in ${root}, which the pull request can write`;
  }
  return null;
}

function ownersOf(ctx: TrustContext): readonly number[] {
  return ctx.owners ?? [0, ...(process.getuid !== undefined ? [process.getuid()] : [])];
}

/**
 * Why the executable at `candidate` may not be run by the engine (see the module comment for the rule), or
 * the path to run when it may.
 *
 * @returns `{ path }` (the candidate with its folder's links resolved) or `{ reason }` (one clause).
 */
export function checkExecutable(candidate: string, ctx: TrustContext): { path: string } | { reason: string } {
  const owners = ownersOf(ctx);
  try {
    const dir = realpathSync(dirname(resolve(candidate)));
    const path = join(dir, basename(candidate));
    const real = realpathSync(path);
    const st = statSync(real);
    if (!st.isFile()) return { reason: `${real} is not a regular file` };
    accessSync(real, constants.X_OK);
    const problem =
      rootProblem(path, ctx.untrustedRoots) ??
      rootProblem(real, ctx.untrustedRoots) ??
      folderChainProblem(dir, owners, true) ??
      folderChainProblem(dirname(real), owners, true) ??
      ownerOrModeProblem(real, st, { owners, stickyOk: false });
    return problem === null ? { path } : { reason: problem };
  } catch (error) {
    return { reason: `${candidate}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
  }
}

/** Why a `PATH` folder is not trusted for the engine's own children (not even a sticky one), or `null`. */
function pathFolderProblem(folder: string, ctx: TrustContext): string | null {
  try {
    const real = realpathSync(folder);
    return (
      rootProblem(real, ctx.untrustedRoots) ??
      rootProblem(resolve(folder), ctx.untrustedRoots) ??
      folderChainProblem(real, ownersOf(ctx), false)
    );
  } catch (error) {
    return `${folder}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

/** The first trusted `name` on the context's `PATH` (`sh`: `/bin/sh`), recording what was passed over. */
function resolveTool(name: TrustedToolName, ctx: TrustContext, skipped: string[]): TrustedTool {
  const searched = ctx.pathEnv ?? "";
  const candidates =
    name === "sh"
      ? ["/bin/sh"]
      : searched
          .split(delimiter)
          .filter((folder) => folder !== "" && isAbsolute(folder))
          .map((folder) => join(folder, name));
  const passed: string[] = [];
  for (const candidate of candidates) {
    let executable = false;
    try {
      accessSync(candidate, constants.X_OK);
      executable = true;
    } catch {
      // not here; keep looking
    }
    if (!executable) continue;
    const checked = checkExecutable(candidate, ctx);
    if ("path" in checked) {
      skipped.push(...passed);
      return { kind: "found", path: checked.path };
    }
    passed.push(`${candidate}: ${checked.reason}`);
  }
  skipped.push(...passed);
  const where = name === "sh" ? "at /bin/sh" : `on PATH (${JSON.stringify(searched)})`;
  const why = passed.length > 0 ? `; passed over: ${passed.join("; ")}` : "";
  return {
    kind: "missing",
    message: `no trusted ${name} ${where}: the engine runs ${name} only from a folder nothing the pull request can write (not the workspace, RUNNER_TEMP or the separate user's home; owned by root or the engine's user; not writable by group or others)${why}. Install ${name} in a system folder (e.g. /usr/bin) that is on PATH`,
  };
}

/**
 * Resolves `git`, `sh` and `npm` and the trusted `PATH` for `ctx` (pure apart from reading the file
 * system). A program without a trusted copy is `missing`; it is an error only when it is used.
 */
export function resolveTrustedTools(ctx: TrustContext): TrustedTools {
  const skipped: string[] = [];
  const tools = Object.fromEntries(
    TOOL_NAMES.map((name) => [name, resolveTool(name, ctx, skipped)]),
  ) as Record<TrustedToolName, TrustedTool>;
  const path = (ctx.pathEnv ?? "")
    .split(delimiter)
    .filter((folder) => folder !== "" && isAbsolute(folder) && pathFolderProblem(folder, ctx) === null)
    .join(delimiter);
  return { tools, path, skipped };
}

let configured: TrustedTools | null = null;

/**
 * Resolves the engine's programs once, at the action's start, and makes {@link trustedCommand} and {@link
 * trustedPathSetting} use them for the rest of the process.
 *
 * @returns what was resolved (the caller logs {@link TrustedTools.skipped}).
 */
export function configureTrustedTools(ctx: TrustContext): TrustedTools {
  configured = resolveTrustedTools(ctx);
  return configured;
}

/**
 * Undoes {@link configureTrustedTools}: {@link trustedCommand} answers its fallback again. For tests that run
 * the action in-process (they share one module registry per worker), as `guardCheckoutConfiguration(false)`.
 */
export function forgetTrustedTools(): void {
  configured = null;
}

/**
 * The command to spawn for `name`: its trusted absolute path once {@link configureTrustedTools} ran (the
 * action), else `fallback` (the name, looked up on the call's `PATH` as before: the CLI, the App, tests).
 *
 * @throws UntrustedToolError when the action's start found no trusted copy.
 */
export function trustedCommand(name: TrustedToolName, fallback: string = name): string {
  if (configured === null) return fallback;
  const tool = configured.tools[name];
  if (tool.kind === "missing") throw new UntrustedToolError(name, tool.message);
  return tool.path;
}

/**
 * `{ PATH }` of the trusted folders ({@link TrustedTools.path}) for a child the engine itself runs (`git`,
 * `npm`) once {@link configureTrustedTools} ran — what that child starts by name (`git-lfs` for a filter,
 * `node` for an npm script) is then not the pull request's either — else `{}` (the child keeps its
 * environment's `PATH`).
 */
export function trustedPathSetting(): Record<string, string> {
  return configured === null ? {} : { PATH: configured.path };
}
