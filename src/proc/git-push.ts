/**
 * The two git calls that carry a credential (SPEC §9, §10 "Push"): fetching the pull request's head into the
 * checkout, and pushing the nodes' verified commit to the PR branch. Every other git call goes through
 * `git.ts` with no credential at all.
 *
 * How the credential travels: as an HTTP `AUTHORIZATION: basic base64(x-access-token:TOKEN)` header (the form
 * `actions/checkout` uses) in git's environment-borne configuration (`GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_n` /
 * `GIT_CONFIG_VALUE_n`, git ≥ 2.31), scoped to the server's URL (`http.<server>/.extraheader`) and given to that
 * one git process only. So it is never written to `.git/config` or any file, never in an argv (process
 * listings, error messages), and never in a node's or the verify command's environment. The same key is first
 * reset to the empty list, so a header `actions/checkout` persisted for the same URL is not sent twice.
 *
 * The push runs from a **private temporary bare repository** (mode 0700, under the runner's temp folder)
 * whose object store borrows the checkout's objects (`objects/info/alternates`), with no system or global
 * configuration, `HOME` pointed at that folder and hooks off. Nothing the nodes or the verify command could
 * have written — the checkout's `.git/config` (a remote URL, `url.*.insteadOf`, a proxy), its hooks, or a
 * `~/.gitconfig` — takes part in the one git process that holds the token.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildChildEnv } from "./child-env.js";
import { GitError, git } from "./git.js";
import { runProcess } from "./run-process.js";
import { trustedCommand, trustedPathSetting } from "./trusted-tools.js";

export interface GitCredential {
  /** The server's base URL (`GITHUB_SERVER_URL`, e.g. `https://github.com`): the header goes to it only. */
  readonly serverUrl: string;
  /** The token (`push-token`, else `github-token`). Never logged; callers mask it. */
  readonly token: string;
}

export interface GitCallContext {
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly knownSecrets: readonly string[];
}

/** Variables that would make git print its HTTP traffic (headers included): never passed to a credentialed call. */
const TRACE_VARIABLES = /^GIT_(TRACE|CURL_VERBOSE|REDACT_COOKIES)/i;

/**
 * The environment-borne git configuration that gives `credential` to one git process: the scoped
 * `extraheader` reset, then set. Keys are `http.<serverUrl>/.extraheader` (git matches it as a URL prefix).
 */
export function credentialConfig(credential: GitCredential): Record<string, string> {
  const key = `http.${credential.serverUrl.replace(/\/+$/, "")}/.extraheader`;
  const basic = Buffer.from(`x-access-token:${credential.token}`, "utf8").toString("base64");
  return {
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: key,
    GIT_CONFIG_VALUE_0: "",
    GIT_CONFIG_KEY_1: key,
    GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${basic}`,
  };
}

function withoutTracing(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !TRACE_VARIABLES.test(name)));
}

/** The result of one git process run with a credential: exit code and the tails of its output. */
interface CredentialedResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function runCredentialed(
  args: readonly string[],
  o: {
    readonly cwd: string;
    readonly credential: GitCredential;
    readonly context: GitCallContext;
    readonly set?: Readonly<Record<string, string>>;
    readonly timeoutMs: number;
  },
): Promise<CredentialedResult> {
  const result = await runProcess({
    command: trustedCommand("git"),
    args,
    cwd: o.cwd,
    env: buildChildEnv({
      base: withoutTracing(o.context.baseEnv),
      child: { kind: "git" },
      knownSecrets: o.context.knownSecrets,
      set: { GIT_TERMINAL_PROMPT: "0", ...trustedPathSetting(), ...o.set, ...credentialConfig(o.credential) },
    }),
    timeoutMs: o.timeoutMs,
    tailBytes: 64 * 1024,
  });
  if (result.kind !== "exited") {
    throw new GitError(args, result.kind === "spawn_failed" ? result.message : result.kind);
  }
  return { exitCode: result.exitCode, stdout: result.stdoutTail, stderr: result.stderrTail };
}

export interface FetchCommitOptions extends GitCallContext {
  /** The checkout (a git work tree). */
  readonly repoDir: string;
  /** The repository's URL, built from trusted values (`<server>/<owner>/<repo>.git`), never the checkout's remote. */
  readonly url: string;
  readonly credential: GitCredential;
  /** The 40-hex commit to fetch (`pull_request.head.sha`). */
  readonly sha: string;
  readonly timeoutMs?: number;
}

/**
 * Fetches commit `sha` with its full history into the checkout (`--unshallow` when the checkout is
 * shallow, as `actions/checkout` leaves it by default). Tags are not fetched; no ref is written but
 * `FETCH_HEAD`.
 *
 * @throws GitError naming git's answer when the fetch fails (unknown commit, no access, no network).
 */
export async function fetchCommit(o: FetchCommitOptions): Promise<void> {
  const context = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  const shallow =
    (await git(["rev-parse", "--is-shallow-repository"], { cwd: o.repoDir, ...context })) === "true";
  const args = [
    "-c",
    "core.hooksPath=/dev/null",
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-recurse-submodules",
    ...(shallow ? ["--unshallow"] : []),
    o.url,
    o.sha,
  ];
  const result = await runCredentialed(args, {
    cwd: o.repoDir,
    credential: o.credential,
    context,
    timeoutMs: o.timeoutMs ?? 10 * 60_000,
  });
  if (result.exitCode !== 0) {
    throw new GitError(args, `exit ${result.exitCode}: ${result.stderr.trim().slice(-2000)}`);
  }
}

export interface PushCommitOptions extends GitCallContext {
  /** The checkout whose object store holds the commit. */
  readonly repoDir: string;
  /** Where the private push repository is made (the runner's temp folder). */
  readonly tempParent: string;
  readonly url: string;
  readonly credential: GitCredential;
  /** The commit to push. */
  readonly sha: string;
  /** The branch (`pull_request.head.ref`), without `refs/heads/`. */
  readonly branch: string;
  /** The commit the branch must still point at (the PR head the run started from): the push's lease. */
  readonly expectedOld: string;
  readonly timeoutMs?: number;
}

/** What a push did. `rejected`: the server answered and refused the update; `failed`: no answer, no access, … */
export type PushResult =
  | { readonly kind: "pushed" }
  | { readonly kind: "rejected"; readonly reason: string }
  | { readonly kind: "failed"; readonly reason: string };

/**
 * Pushes `sha` to `refs/heads/<branch>` at `url`, only if the branch still points at `expectedOld`
 * (`--force-with-lease=<ref>:<expectedOld>`): a branch that moved since the run started is never
 * overwritten, and a branch reset behind it is not silently fast-forwarded either. Hooks never run
 * (`--no-verify`, `core.hooksPath=/dev/null`). The private repository is removed afterwards.
 *
 * @returns `pushed`, `rejected` with git's per-ref reason (e.g. `stale info`, `protected branch hook declined`), or
 *   `failed` with git's message (authentication, network).
 */
export async function pushCommit(o: PushCommitOptions): Promise<PushResult> {
  if (!/^[0-9a-f]{40}$/.test(o.sha) || !/^[0-9a-f]{40}$/.test(o.expectedOld)) {
    throw new Error(`Internal error: pushCommit needs 40-hex SHAs (got ${o.sha}, ${o.expectedOld})`);
  }
  const context = { baseEnv: o.baseEnv, knownSecrets: o.knownSecrets };
  const objects = join(
    await git(["rev-parse", "--path-format=absolute", "--git-common-dir"], { cwd: o.repoDir, ...context }),
    "objects",
  );
  // mkdtemp makes the folder 0700: no other user reads the repository (or anything git writes there).
  const dir = await mkdtemp(join(o.tempParent, "evidence-gate-push-"));
  // No system or global configuration, HOME = the private folder: only what is written here applies.
  const isolated = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: dir };
  try {
    await git(["init", "--quiet", "--bare", dir], { cwd: dir, ...context, set: isolated });
    await writeFile(join(dir, "objects", "info", "alternates"), `${objects}\n`);
    await git(["config", "core.hooksPath", "/dev/null"], { cwd: dir, ...context, set: isolated });
    const ref = `refs/heads/${o.branch}`;
    const args = [
      "push",
      "--porcelain",
      "--no-verify",
      `--force-with-lease=${ref}:${o.expectedOld}`,
      o.url,
      `${o.sha}:${ref}`,
    ];
    const result = await runCredentialed(args, {
      cwd: dir,
      credential: o.credential,
      context,
      set: isolated,
      timeoutMs: o.timeoutMs ?? 5 * 60_000,
    });
    if (result.exitCode === 0) return { kind: "pushed" };
    // --porcelain: one line per ref, `!` flag for a rejected update, then `from:to`, then `[reason]`.
    const refused = result.stdout
      .split("\n")
      .find((line) => line.startsWith("!\t"))
      ?.split("\t")[2];
    if (refused !== undefined) return { kind: "rejected", reason: refused.trim() };
    return {
      kind: "failed",
      reason: result.stderr.trim().slice(-2000) || `git push exited ${result.exitCode}`,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
