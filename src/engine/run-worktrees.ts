/**
 * The managed git worktrees of one leg (SPEC §3 `worktree`; Go ADR 0005, research/oh-my-graph.md §2.2):
 * a node declaring `worktree: NAME` runs in `<run dir>/worktrees/NAME`, a `git worktree` of the
 * repository on the branch `evidence-gate/<run id>/NAME`, created from the run's starting commit the first
 * time a node of the leg names it. Every node naming NAME shares that checkout; nodes naming different
 * worktrees edit in parallel without sharing a file.
 *
 * Every git call goes through the exec seam (`proc/git.ts`: the git child environment of SPEC §9), with
 * `core.hooksPath` pointed at nothing: creating a checkout must not run the repository's own
 * `post-checkout` hook, which is code from the tree under review.
 *
 * At the end of the leg ({@link RunWorktrees.close}) each worktree's changes (tracked and untracked, not
 * ignored) are committed on its branch, the worktree is removed (`git worktree remove --force`, safe once
 * committed) and `git worktree prune` forgets any registration whose folder is gone — so the run
 * directory holds no checkout after the run, whether it passed, failed or was interrupted; the branches
 * stay. A resumed leg whose node must run again adds the worktree back from its branch, so it sees what
 * the earlier legs left there. A checkout an interrupted process could not remove (killed outright) is
 * reused as it is by the next leg of the same run.
 *
 * What this means for the evidence: the verifies of the nodes in the main working tree, the final tree and
 * `patch.diff` never see a worktree's edits — they are on the branch. A node's row names its worktree and
 * branch; `lint` says when a worktree's changes reach no verified sink in the same worktree.
 */
import { existsSync, readdirSync, realpathSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { commitWorkingTree } from "../evidence/patch.js";
import { GitError, git } from "../proc/git.js";

/** What the worktrees are made from and where they go. */
export interface RunWorktreesOptions {
  /** The repository's top directory (the main working tree): every `git worktree` command runs there. */
  readonly repoDir: string;
  /** The run directory: worktrees live under `<runDir>/worktrees/`. */
  readonly runDir: string;
  /** The run id: the branch prefix is `evidence-gate/<runId>`. */
  readonly runId: string;
  /** The commit a new worktree's branch starts at (the run's starting commit, 40 hex). */
  readonly startCommit: string;
  /** The environment git starts from, scrubbed by the git child-env policy (default `process.env`). */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets?: readonly string[];
}

/** One worktree as a node runs in it. */
export interface AcquiredWorktree {
  readonly name: string;
  /** Absolute path of the checkout: `<runDir>/worktrees/<name>`. */
  readonly path: string;
  /** `evidence-gate/<runId>/<name>`. */
  readonly branch: string;
  /**
   * How the checkout came to be this leg: `created` (the branch was made now, from the starting commit),
   * `branch` (added back from the branch an earlier leg left), `reused` (a checkout an interrupted leg left).
   */
  readonly origin: "created" | "branch" | "reused";
}

/** What closing one worktree did. */
export interface ClosedWorktree {
  readonly name: string;
  readonly branch: string;
  /** The commit made of the worktree's changes, `null` when it had none. */
  readonly commit: string | null;
  /** `true` when the checkout is gone from the run directory. */
  readonly removed: boolean;
  /** Why the commit or the removal failed (the checkout is then kept, so no work is lost); absent if fine. */
  readonly problem?: string;
}

/** The folder under the run directory that holds the checkouts. */
export const WORKTREES_FOLDER = "worktrees";

/** The branch a run's worktree NAME is on: `evidence-gate/<runId>/<name>`. */
export function worktreeBranch(runId: string, name: string): string {
  return `evidence-gate/${runId}/${name}`;
}

/** Git, run with no repository hook (`core.hooksPath=/dev/null`). */
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

/** The managed worktrees of one leg: created on first use, all closed by {@link close}. */
export class RunWorktrees {
  readonly #o: RunWorktreesOptions;
  /** One creation per name: concurrent nodes naming the same worktree wait for the same checkout. */
  readonly #acquired = new Map<string, Promise<AcquiredWorktree>>();
  /** Creations run one after another: `worktree prune` and `worktree add` of two names never overlap. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: RunWorktreesOptions) {
    this.#o = options;
  }

  /** The branch worktree `name` is on this run ({@link worktreeBranch}). */
  branchOf(name: string): string {
    return worktreeBranch(this.#o.runId, name);
  }

  /** The folder holding the checkouts: `<runDir>/worktrees`. */
  get folder(): string {
    return join(this.#o.runDir, WORKTREES_FOLDER);
  }

  /**
   * The checkout of worktree `name`, made the first time the leg asks for it (see the module docstring).
   *
   * @throws Error naming the worktree when git cannot create it (its message carries git's), or when
   *   called after {@link close}.
   */
  acquire(name: string): Promise<AcquiredWorktree> {
    if (this.#closed)
      throw new Error(`Internal error: worktree ${JSON.stringify(name)} asked for after close`);
    let pending = this.#acquired.get(name);
    if (pending === undefined) {
      pending = this.#queue.then(() => this.#create(name));
      this.#queue = pending.catch(() => undefined);
      this.#acquired.set(name, pending);
    }
    return pending;
  }

  /**
   * Commits each worktree's changes on its branch, removes the checkouts and prunes git's registrations.
   * Never rejects: a worktree whose commit or removal failed is kept on disk, its problem returned.
   * Waits for creations still in flight. Call once, when no node runs any more.
   */
  async close(): Promise<ClosedWorktree[]> {
    this.#closed = true;
    const closed: ClosedWorktree[] = [];
    const names = [...this.#acquired.keys()].sort();
    for (const name of names) {
      let tree: AcquiredWorktree;
      try {
        tree = await (this.#acquired.get(name) as Promise<AcquiredWorktree>);
      } catch {
        continue; // never created: its node already failed saying why
      }
      closed.push(await this.#closeOne(tree));
    }
    await this.#git(["worktree", "prune"]).catch(() => undefined);
    // The folder goes too once empty, so the run directory shows no trace of a checkout.
    if (existsSync(this.folder) && readdirSync(this.folder).length === 0) rmdirSync(this.folder);
    return closed;
  }

  async #create(name: string): Promise<AcquiredWorktree> {
    const path = join(this.folder, name);
    const branch = worktreeBranch(this.#o.runId, name);
    try {
      // A registration whose folder is gone (removed by hand, a crash) would block `worktree add`.
      await this.#git(["worktree", "prune"]);
      if (existsSync(path)) {
        if (await this.#isRegistered(path)) return { name, path, branch, origin: "reused" };
        // Not a checkout git knows: a half-made folder of an interrupted `worktree add`.
        rmSync(path, { recursive: true, force: true });
      }
      if (await this.#branchExists(branch)) {
        await this.#git([...NO_HOOKS, "worktree", "add", path, branch]);
        return { name, path, branch, origin: "branch" };
      }
      await this.#git([...NO_HOOKS, "worktree", "add", "-b", branch, path, this.#o.startCommit]);
      return { name, path, branch, origin: "created" };
    } catch (error) {
      throw new Error(
        `worktree ${JSON.stringify(name)} could not be created at ${path} on branch ${branch}: ${messageOf(error)}`,
      );
    }
  }

  async #closeOne(tree: AcquiredWorktree): Promise<ClosedWorktree> {
    const { name, branch, path } = tree;
    if (!existsSync(path)) return { name, branch, commit: null, removed: true };
    let commit: string | null;
    try {
      const made = await commitWorkingTree(path, {
        message: `evidence-gate run ${this.#o.runId}: the changes of the nodes in worktree ${name}`,
        ...this.#context(),
      });
      commit = typeof made === "string" ? made : null;
    } catch (error) {
      return {
        name,
        branch,
        commit: null,
        removed: false,
        problem: `its changes could not be committed (${messageOf(error)}), so the checkout ${path} is kept: commit or copy them, then \`git worktree remove --force ${path}\``,
      };
    }
    try {
      await this.#git(["worktree", "remove", "--force", path]);
      return { name, branch, commit, removed: true };
    } catch (error) {
      return {
        name,
        branch,
        commit,
        removed: false,
        problem: `the checkout ${path} could not be removed (${messageOf(error)}); its changes are on ${branch}: remove it with \`git worktree remove --force ${path}\``,
      };
    }
  }

  async #isRegistered(path: string): Promise<boolean> {
    const list = await this.#git(["worktree", "list", "--porcelain"]);
    const real = realpathSync(path);
    return list
      .split("\n")
      .some((line) => line.startsWith("worktree ") && realOrSelf(line.slice("worktree ".length)) === real);
  }

  async #branchExists(branch: string): Promise<boolean> {
    try {
      await this.#git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
      return true;
    } catch (error) {
      if (error instanceof GitError) return false;
      throw error;
    }
  }

  #context(): { baseEnv?: Readonly<Record<string, string | undefined>>; knownSecrets?: readonly string[] } {
    return {
      ...(this.#o.baseEnv !== undefined ? { baseEnv: this.#o.baseEnv } : {}),
      ...(this.#o.knownSecrets !== undefined ? { knownSecrets: this.#o.knownSecrets } : {}),
    };
  }

  #git(args: readonly string[]): Promise<string> {
    return git(args, { cwd: this.#o.repoDir, ...this.#context(), timeoutMs: 60_000 });
  }
}

/** `path` with symlinks resolved, or as given when it does not exist. */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
