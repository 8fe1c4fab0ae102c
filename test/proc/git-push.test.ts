/**
 * The credentialed git calls (src/proc/git-push.ts; SPEC §9, §10 "Push") against a real smart-HTTP git server
 * that, like github.com, refuses requests without the token: the credential reaches the fetch and the push,
 * is never written to `.git/config`, and nothing the checkout holds (hooks, `insteadOf` rewrites, a persisted
 * header) takes part in the push.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fetchCommit, pushCommit } from "../../src/proc/git-push.js";
import { type GitHttpServer, startGitHttpServer } from "../support/git-http-server.js";
import { commitAll, hermeticGitEnv, makeTempRepo, type TempRepo } from "../support/temp-repo.js";

const TOKEN = "ghp_pushModeTestToken000000000000000000";
const REPO = "octo-org/widgets";

let server: GitHttpServer | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await server?.close();
  server = undefined;
});

/** A server holding `feature` at one commit, a work repo on it, and a temp folder for the push repository. */
async function setup(): Promise<{
  server: GitHttpServer;
  repo: TempRepo;
  head: string;
  url: string;
  temp: string;
}> {
  server = await startGitHttpServer({ token: TOKEN });
  const bare = await server.createRepository(REPO);
  const repo = await makeTempRepo({ commit: true, files: { "a.txt": "one\n" } });
  cleanups.push(repo.cleanup);
  const head = await repo.git(["rev-parse", "HEAD"]);
  await repo.git(["push", "--quiet", bare, "HEAD:refs/heads/feature"]);
  const temp = await mkdtemp(join(tmpdir(), "eg-push-temp-"));
  cleanups.push(() => rm(temp, { recursive: true, force: true }));
  return { server, repo, head, url: `${server.url}/${REPO}.git`, temp };
}

const context = { baseEnv: hermeticGitEnv, knownSecrets: [TOKEN] };

describe("pushCommit", () => {
  it("pushes the commit to the branch with the token (every request authorized), leaving .git/config, hooks and insteadOf rewrites out of it", async () => {
    const { server, repo, head, url, temp } = await setup();
    // A node could have planted these in the checkout: none may take part in the push.
    const marker = join(temp, "hook-ran");
    writeFileSync(join(repo.dir, ".git", "hooks", "pre-push"), `#!/bin/sh\nenv > '${marker}'\n`, {
      mode: 0o755,
    });
    await repo.git(["config", `url.http://127.0.0.1:9/evil/.insteadOf`, `${server.url}/`]);
    await repo.write("a.txt", "two\n");
    const sha = await commitAll(repo, "change");
    const configBefore = readFileSync(join(repo.dir, ".git", "config"), "utf8");

    const result = await pushCommit({
      ...context,
      repoDir: repo.dir,
      tempParent: temp,
      url,
      credential: { serverUrl: server.url, token: TOKEN },
      sha,
      branch: "feature",
      expectedOld: head,
    });

    expect(result).toEqual({ kind: "pushed" });
    expect(await server.gitIn(REPO, ["rev-parse", "refs/heads/feature"])).toBe(sha);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.authorized)).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(repo.dir, ".git", "config"), "utf8")).toBe(configBefore);
    expect(configBefore).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString("base64"));
    // The private push repository is gone.
    expect(readdirSync(temp)).toEqual([]);
  });

  it("a branch that moved since the run started is rejected (stale info), not overwritten", async () => {
    const { server, repo, head, url, temp } = await setup();
    // Someone pushed on top of the PR head meanwhile.
    const other = await makeTempRepo({ commit: false });
    cleanups.push(other.cleanup);
    await other.git(["fetch", "--quiet", join(repo.dir, ".git"), head]);
    await other.git(["checkout", "--quiet", "FETCH_HEAD"]);
    await other.write("b.txt", "theirs\n");
    const theirs = await commitAll(other, "theirs");
    await server.gitIn(REPO, ["fetch", "--quiet", join(other.dir, ".git"), `${theirs}:refs/heads/feature`]);
    await repo.write("a.txt", "ours\n");
    const ours = await commitAll(repo, "ours");

    const result = await pushCommit({
      ...context,
      repoDir: repo.dir,
      tempParent: temp,
      url,
      credential: { serverUrl: server.url, token: TOKEN },
      sha: ours,
      branch: "feature",
      expectedOld: head,
    });

    expect(result).toEqual({ kind: "rejected", reason: expect.stringContaining("stale info") });
    expect(await server.gitIn(REPO, ["rev-parse", "refs/heads/feature"])).toBe(theirs);
  });

  it("a wrong token is a failed push naming git's answer, and the branch is unchanged", async () => {
    const { server, repo, head, url, temp } = await setup();
    await repo.write("a.txt", "two\n");
    const sha = await commitAll(repo, "change");

    const result = await pushCommit({
      ...context,
      repoDir: repo.dir,
      tempParent: temp,
      url,
      credential: { serverUrl: server.url, token: "ghp_wrong" },
      sha,
      branch: "feature",
      expectedOld: head,
    });

    expect(result.kind).toBe("failed");
    expect(result.kind === "failed" && result.reason).toMatch(
      /Authentication failed|401|could not read Username/i,
    );
    expect(await server.gitIn(REPO, ["rev-parse", "refs/heads/feature"])).toBe(head);
  });
});

describe("fetchCommit", () => {
  it("fetches a commit by SHA with full history into a shallow checkout, sending one Authorization header even when the checkout persisted one for the same server", async () => {
    const { server, repo, url } = await setup();
    await repo.write("a.txt", "two\n");
    const second = await commitAll(repo, "second");
    await server.gitIn(REPO, ["fetch", "--quiet", join(repo.dir, ".git"), `${second}:refs/heads/feature`]);
    // A shallow checkout of the base, as actions/checkout leaves it, with its persisted header.
    const checkout = await makeTempRepo({ commit: false });
    cleanups.push(checkout.cleanup);
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
    await checkout.git(["config", `http.${server.url}/.extraheader`, `AUTHORIZATION: basic ${basic}`]);
    await checkout.git(["fetch", "--quiet", "--depth=1", url, "refs/heads/feature"]);
    expect(await checkout.git(["rev-parse", "--is-shallow-repository"])).toBe("true");
    server.requests.length = 0;

    await fetchCommit({
      ...context,
      repoDir: checkout.dir,
      url,
      credential: { serverUrl: server.url, token: TOKEN },
      sha: second,
    });

    expect(await checkout.git(["rev-parse", "--is-shallow-repository"])).toBe("false");
    expect(await checkout.git(["rev-list", "--count", second])).toBe("2");
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.map((r) => r.authorizationHeaders)).toEqual(server.requests.map(() => 1));
    expect(server.requests.every((r) => r.authorized)).toBe(true);
  });
});
