/**
 * `verify-base` (issue 25 item 3; ADR 0017): each sink's verify command also runs on the base commit, and
 * the two results are classified together (`base-comparison.ts`).
 *
 * The base commit: the pull request's base SHA in the action; in the CLI the merge-base of the start
 * commit and `--base <ref>`, else the start commit's first parent. It is checked out once per leg, the first
 * time a sink's verify needs it, as a detached `git worktree` in a fresh temporary folder, made by the
 * engine's git (in the action the trusted git directory, ADR 0012: the checkout's `.git` is not read) with
 * no hook. The base run is the head run's twin: the same command, the same relative folder, the same
 * environment (the verify child environment of SPEC §9 and `verify-env`), the same timeout, `verify-repeat`
 * and receipts, spawned as PR code (the separate user where the run has one: the folder is shared with it
 * as the workspace is, `shareWithIdentity`). Its own evidence tree is taken just before it runs. One base
 * result serves every sink with the same command and folder. The worktree is removed when the leg ends
 * ({@link BaseVerifier.close}).
 *
 * A base that cannot be run (no such commit here, a worktree that cannot be made, a folder the base does
 * not have) is `not_compared` with the reason: never an error of the run, and never a verdict.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import type { BaseComparison, BaseRunEvidence, VerifyEvidence } from "../core/ledger-row.js";
import { shareWithIdentity } from "../proc/child-identity.js";
import { GitError, git } from "../proc/git.js";
import { handBackBeforeEngineReads } from "../proc/hand-back.js";
import { type BaseCommit, compareWithBase, notCompared } from "./base-comparison.js";
import type { BaseRunner, RunVerifyOptions } from "./verify.js";

/**
 * Which base a run compares with (input `verify-base`, flag `--verify-base`, policy key `verify-base`).
 * `commit`: the pull request's base SHA (the action). Else `ref` (`--base <ref>`): the merge-base of the
 * start commit and it. Neither: the start commit's first parent.
 */
export interface VerifyBaseSetting {
  readonly commit?: string;
  readonly ref?: string;
}

/** What a {@link BaseVerifier} works in. */
export interface BaseVerifierOptions {
  /** The repository's top directory (the main working tree); verify folders are taken relative to it. */
  readonly repoDir: string;
  /** The run's starting commit (40 hex). */
  readonly startCommit: string;
  readonly setting: VerifyBaseSetting;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
  /** Where the temporary folder is made (default `os.tmpdir()`). */
  readonly tempParent?: string;
  /** Runs one verify (default `runVerify`; injected to avoid an import cycle with `verify.ts`). */
  readonly runVerify: (options: RunVerifyOptions) => Promise<VerifyEvidence>;
}

/** A checked-out base, or why there is none. */
type Checkout =
  | { readonly ok: true; readonly base: BaseCommit; readonly folder: string; readonly tree: string }
  | {
      readonly ok: false;
      readonly commit: string | null;
      readonly chosenAs: string;
      readonly reason: string;
    };

/** The base runs of one leg: the checkout made on first use, one result per command and folder. */
export class BaseVerifier implements BaseRunner {
  #checkout: Promise<Checkout> | null = null;
  readonly #results = new Map<string, Promise<BaseRunEvidence>>();

  constructor(private readonly o: BaseVerifierOptions) {}

  /** How the base is chosen, in words (`BaseComparison.chosenAs`). */
  get chosenAs(): string {
    return chosenAsWords(this.o.setting);
  }

  /**
   * Runs `options`' command on the base (once per command and folder) and classifies `head` against it.
   * Never rejects for the base's own trouble: that is `not_compared` with the reason.
   */
  async compare(options: RunVerifyOptions, head: VerifyEvidence): Promise<BaseComparison> {
    this.#checkout ??= this.#checkOut();
    const checkout = await this.#checkout;
    if (!checkout.ok) return notCompared(checkout.commit, checkout.chosenAs, checkout.reason);
    const rel = relative(this.o.repoDir, options.cwd);
    if (rel.startsWith("..") || isAbsolute(rel)) {
      return notCompared(
        checkout.base.commit,
        checkout.base.chosenAs,
        `the command ran in ${options.cwd}, outside the repository's main working tree (a managed worktree): only the main working tree is compared with the base`,
      );
    }
    const cwd = join(checkout.tree, rel);
    if (!existsSync(cwd)) {
      return notCompared(
        checkout.base.commit,
        checkout.base.chosenAs,
        `the base has no folder ${rel === "" ? "." : rel}`,
      );
    }
    const key = JSON.stringify([
      options.command,
      rel,
      options.timeoutMs,
      options.expectExit,
      options.outputMatches?.source ?? null,
      options.repeat ?? 1,
    ]);
    let result = this.#results.get(key);
    if (result === undefined) {
      result = this.#runOnBase(options, cwd);
      this.#results.set(key, result);
    }
    return compareWithBase(head, await result, checkout.base);
  }

  async #runOnBase(options: RunVerifyOptions, cwd: string): Promise<BaseRunEvidence> {
    const checkout = await this.#checkout;
    // What an earlier base run made as the separate user, readable for the engine's git (the snapshot).
    const handBack = (): void => {
      if (checkout?.ok === true) handBackBeforeEngineReads([checkout.folder]);
    };
    handBack();
    const {
      base: _base,
      reusedFrom: _reused,
      ...evidence
    } = await this.o.runVerify({
      command: options.command,
      cwd,
      timeoutMs: options.timeoutMs,
      expectExit: options.expectExit,
      env: options.env,
      passThrough: options.passThrough,
      knownSecrets: options.knownSecrets,
      ...(options.echo !== undefined ? { echo: options.echo } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.outputMatches !== undefined ? { outputMatches: options.outputMatches } : {}),
      ...(options.repeat !== undefined ? { repeat: options.repeat } : {}),
      ...(options.receipts !== undefined ? { receipts: options.receipts } : {}),
      beforeReread: handBack,
    });
    return evidence;
  }

  async #checkOut(): Promise<Checkout> {
    const chosenAs = this.chosenAs;
    const gitOptions = { cwd: this.o.repoDir, baseEnv: this.o.baseEnv, knownSecrets: this.o.knownSecrets };
    let commit: string;
    try {
      commit = await resolveBaseCommit(this.o.setting, this.o.startCommit, (args) => git(args, gitOptions));
    } catch (error) {
      return { ok: false, commit: null, chosenAs, reason: gitReason(error) };
    }
    let folder: string | null = null;
    try {
      folder = await mkdtemp(join(this.o.tempParent ?? tmpdir(), "evidence-gate-base-"));
      const tree = join(folder, "tree");
      // No hook: checking out must not run a `post-checkout` hook (code from a tree under review).
      await git(["-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", tree, commit], gitOptions);
      shareWithIdentity(folder);
      return { ok: true, base: { commit, chosenAs }, folder, tree };
    } catch (error) {
      if (folder !== null) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
      return {
        ok: false,
        commit,
        chosenAs,
        reason: `the base's worktree could not be made: ${gitReason(error)}`,
      };
    }
  }

  /**
   * Removes the base's worktree and its folder (what the separate user made in it handed back first, the
   * way the workspace's is) and forgets its registration. Call when no PR code runs (the leg's end).
   *
   * @returns why it could not be removed, or `null`.
   */
  async close(): Promise<string | null> {
    const checkout = await this.#checkout;
    this.#checkout = null;
    if (checkout?.ok !== true) return null;
    const gitOptions = { cwd: this.o.repoDir, baseEnv: this.o.baseEnv, knownSecrets: this.o.knownSecrets };
    handBackBeforeEngineReads([checkout.folder]);
    let problem: string | null = null;
    await git(["worktree", "remove", "--force", checkout.tree], gitOptions).catch((error: unknown) => {
      problem = `git worktree remove ${checkout.tree}: ${gitReason(error)}`;
    });
    await rm(checkout.folder, { recursive: true, force: true });
    await git(["worktree", "prune"], gitOptions).catch(() => undefined);
    return problem;
  }
}

/** {@link VerifyBaseSetting} in words: how the base commit is chosen. */
export function chosenAsWords(setting: VerifyBaseSetting): string {
  if (setting.commit !== undefined) return "the pull request's base";
  if (setting.ref !== undefined) return `the merge-base with ${setting.ref}`;
  return "the start commit's first parent";
}

/**
 * The base commit of `setting` (40 hex): the given commit, the merge-base of `startCommit` and the ref, or
 * `startCommit`'s first parent — each checked to be a commit here.
 *
 * @throws Error saying what is missing (no parent, no such ref, not in this clone: fetch more history).
 */
export async function resolveBaseCommit(
  setting: VerifyBaseSetting,
  startCommit: string,
  runGit: (args: readonly string[]) => Promise<string>,
): Promise<string> {
  const fetchMore =
    "fetch more history (actions/checkout fetch-depth: 0, or git fetch --deepen) so the base commit is in the repository";
  if (setting.commit !== undefined) {
    if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i.test(setting.commit))
      throw new Error(`the pull request's base ${JSON.stringify(setting.commit)} is not a commit SHA`);
    try {
      return (await runGit(["rev-parse", "--verify", "--quiet", `${setting.commit}^{commit}`])).trim();
    } catch {
      throw new Error(`the base commit ${setting.commit} is not in the repository: ${fetchMore}`);
    }
  }
  if (setting.ref !== undefined) {
    if (setting.ref.startsWith("-") || setting.ref === "")
      throw new Error(`--base ${JSON.stringify(setting.ref)} is not a ref`);
    try {
      await runGit(["rev-parse", "--verify", "--quiet", `${setting.ref}^{commit}`]);
    } catch {
      throw new Error(`--base ${setting.ref} names no commit in the repository`);
    }
    try {
      return (await runGit(["merge-base", startCommit, setting.ref])).trim();
    } catch {
      throw new Error(`the start commit and ${setting.ref} have no merge-base here: ${fetchMore}`);
    }
  }
  try {
    return (await runGit(["rev-parse", "--verify", "--quiet", `${startCommit}^1^{commit}`])).trim();
  } catch {
    const shallow = await runGit(["rev-parse", "--is-shallow-repository"]).catch(() => "true");
    throw new Error(
      shallow.trim() === "false"
        ? `the start commit ${startCommit.slice(0, 12)} is the repository's first commit (it has no parent): give the base with --base REF`
        : `the start commit ${startCommit.slice(0, 12)} has no parent here: ${fetchMore}`,
    );
  }
}

function gitReason(error: unknown): string {
  if (error instanceof GitError) return error.detail.trim().split("\n")[0] ?? error.message;
  return error instanceof Error ? error.message : String(error);
}
