/**
 * The world of `push: true` (SPEC §10 "Push"; ADR 0008) for the action's tests, bundled or in-process: the
 * "PR branch" in a real bare repository served by `git http-backend` on loopback (the action's
 * `GITHUB_SERVER_URL`), which refuses any request without {@link PUSH_TOKEN}, and the checkout
 * `actions/checkout` leaves on `pull_request` with `persist-credentials: false` (a shallow, detached test
 * merge commit, or the head).
 */

import { type GitHttpServer, startGitHttpServer } from "../git-http-server.js";
import { DEFAULT_REPOSITORY as TEST_REPOSITORY } from "../github-server/index.js";
import { commitAll, makeSampleNodeRepo, makeTempRepo, type TempRepo } from "../temp-repo.js";

/** The push token: the only credential the git server accepts (the GitHub token is another value). */
export const PUSH_TOKEN = "ghp_pushModeE2eToken0000000000000000000";
/** {@link PUSH_TOKEN} as git sends it (HTTP basic, `x-access-token`). */
export const PUSH_BASIC = Buffer.from(`x-access-token:${PUSH_TOKEN}`).toString("base64");
/** `pull_request.head.ref` of the event fixture. */
export const BRANCH = "retry-exporter";

export interface PushWorld {
  readonly git: GitHttpServer;
  /** The checkout (`GITHUB_WORKSPACE`). */
  readonly workspace: TempRepo;
  readonly headSha: string;
  readonly baseSha: string;
  readonly mergeSha: string;
  /** The repository the remote was filled from (full history). */
  readonly source: TempRepo;
}

/** What the caller removes after the test: the world's repositories and its git server (to close). */
export interface PushWorldKeeper {
  repo<R extends TempRepo>(repo: R): R;
  server(server: GitHttpServer): void;
}

/**
 * Makes the world, each part handed to `keep` as soon as it exists. The remote holds `main` (base, moved
 * on) and `retry-exporter` (the PR head: the buggy sample project plus a README), and `refs/pull/42/merge`. The workspace is a fresh `git init` with no identity that fetched the
 * merge ref at depth 1 and checked it out detached — as `actions/checkout` does with `persist-credentials: false`.
 * `mergeCheckout: false` checks out the head itself instead.
 */
export async function makePushWorld(
  keep: PushWorldKeeper,
  o: {
    readonly mergeCheckout?: boolean;
    /** Files committed on `main` before the branch point (so the base commit holds them too). */
    readonly baseFiles?: Readonly<Record<string, string>>;
    /** Files the pull request's commit changes besides the README. */
    readonly headFiles?: Readonly<Record<string, string>>;
  } = {},
): Promise<PushWorld> {
  const gitServer = await startGitHttpServer({ token: PUSH_TOKEN });
  keep.server(gitServer);
  const bare = await gitServer.createRepository(TEST_REPOSITORY);
  const source = keep.repo(await makeSampleNodeRepo());
  if (o.baseFiles !== undefined) {
    for (const [path, content] of Object.entries(o.baseFiles)) await source.write(path, content);
    await commitAll(source, "the base's files");
  }
  const baseStart = await source.git(["rev-parse", "HEAD"]);
  await source.git(["checkout", "--quiet", "-b", BRANCH]);
  await source.write("README.md", "the pull request\n");
  for (const [path, content] of Object.entries(o.headFiles ?? {})) await source.write(path, content);
  const headSha = await commitAll(source, "the pull request");
  await source.git(["checkout", "--quiet", "main"]);
  await source.write("CHANGELOG.md", "the base moved on\n");
  const baseSha = await commitAll(source, "base change");
  await source.git(["checkout", "--quiet", "--detach", baseSha]);
  await source.git([
    "merge",
    "--quiet",
    "--no-ff",
    "--no-edit",
    "-m",
    `Merge ${headSha} into ${baseSha}`,
    headSha,
  ]);
  const mergeSha = await source.git(["rev-parse", "HEAD"]);
  await source.git([
    "push",
    "--quiet",
    bare,
    `${baseSha}:refs/heads/main`,
    `${headSha}:refs/heads/${BRANCH}`,
    `${mergeSha}:refs/pull/42/merge`,
  ]);
  if (baseStart === baseSha) throw new Error("push world: the base did not move on");
  const workspace = keep.repo(await makeTempRepo({ identity: false }));
  const url = `${gitServer.url}/${TEST_REPOSITORY}.git`;
  const ref = o.mergeCheckout === false ? `refs/heads/${BRANCH}` : "refs/pull/42/merge";
  await workspace.git([
    "-c",
    `http.extraheader=AUTHORIZATION: basic ${PUSH_BASIC}`,
    "fetch",
    "--quiet",
    "--depth=1",
    url,
    ref,
  ]);
  await workspace.git(["checkout", "--quiet", "--detach", "FETCH_HEAD"]);
  gitServer.requests.length = 0;
  return { git: gitServer, workspace, headSha, baseSha, mergeSha, source };
}
