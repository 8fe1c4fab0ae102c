/**
 * Pull requests whose head is not the checkout, for the comment, dispatch and `pull_request_target`
 * triggers: an upstream repository (the base repository `origin` points at) holding `main` with the sample
 * project's bug and a pull request head that fixes it, published as `refs/pull/<n>/head` as GitHub does;
 * and a workspace cloned from it on `main`, as `actions/checkout` leaves an `issue_comment` or
 * `workflow_dispatch` job. `npm test` passes only on the head, so a verify that passed ran on the head.
 *
 * Payloads are GitHub's own webhook examples (`@octokit/webhooks-examples`), with the fields a test varies
 * set on a copy.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git as runGit } from "../../../src/proc/git.js";
import { type GitHubServer, DEFAULT_REPOSITORY as TEST_REPOSITORY } from "../github-server/index.js";
import { commitAll, FIXED_SUM, hermeticGitEnv, makeSampleNodeRepo, type TempRepo } from "../temp-repo.js";

export const PR_NUMBER = 42;

export interface PullRequestHeads {
  /** The base repository: `main` (buggy sum) and `refs/pull/<n>/head` (the fix). */
  readonly upstream: TempRepo;
  /** A clone of the upstream on `main`: the job's workspace. */
  readonly workspace: TempRepo;
  readonly baseSha: string;
  readonly headSha: string;
  /** Moves the pull request's head on (a push after the review): a new commit on `refs/pull/<n>/head`. */
  push(): Promise<string>;
}

/** Makes the upstream and the workspace (both removed by `cleanup` on each). */
export async function makePullRequestHeads(): Promise<PullRequestHeads> {
  const upstream = await makeSampleNodeRepo();
  const baseSha = await upstream.git(["rev-parse", "HEAD"]);
  await upstream.git(["checkout", "--quiet", "-b", "feature"]);
  await upstream.write("src/sum.js", FIXED_SUM);
  const headSha = await commitAll(upstream, "fix sum");
  await upstream.git(["update-ref", `refs/pull/${PR_NUMBER}/head`, headSha]);
  await upstream.git(["checkout", "--quiet", "main"]);
  const dir = await mkdtemp(join(tmpdir(), "evidence-gate-workspace-"));
  await runGit(["clone", "--quiet", "--branch", "main", upstream.dir, dir], {
    cwd: tmpdir(),
    baseEnv: hermeticGitEnv,
  });
  const workspace: TempRepo = {
    dir,
    git: (args) => runGit(args, { cwd: dir, baseEnv: hermeticGitEnv }),
    write: upstream.write,
    read: upstream.read,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
  return {
    upstream,
    workspace,
    baseSha,
    headSha,
    push: async () => {
      await upstream.git(["checkout", "--quiet", "feature"]);
      await upstream.write("NOTES.md", "pushed after the review\n");
      const moved = await commitAll(upstream, "a later push");
      await upstream.git(["update-ref", `refs/pull/${PR_NUMBER}/head`, moved]);
      await upstream.git(["checkout", "--quiet", "main"]);
      return moved;
    },
  };
}

interface WebhookDefinition {
  readonly name: string;
  readonly examples: readonly Record<string, unknown>[];
}

const require = createRequire(import.meta.url);
const EXAMPLES = require("@octokit/webhooks-examples/api.github.com/index.json") as WebhookDefinition[];

/** A deep copy of GitHub's first example payload of `event` (with `action` when given). */
export function webhookExample(event: string, action?: string): Record<string, unknown> {
  const definition = EXAMPLES.find((d) => d.name === event);
  const example = definition?.examples.find((e) => action === undefined || e.action === action);
  if (example === undefined) throw new Error(`no webhook example for ${event}${action ? ` ${action}` : ""}`);
  return structuredClone(example);
}

export interface CommentOptions {
  readonly body: string;
  readonly login?: string;
  /** `User` (default) or `Bot`. */
  readonly type?: "User" | "Bot";
  readonly commentId?: number;
  /** `created` (default), `edited`, `deleted`. */
  readonly action?: string;
  /** Default true: the comment is on a pull request (`issue.pull_request` set). */
  readonly onPullRequest?: boolean;
}

/** An `issue_comment` payload (GitHub's example) on pull request {@link PR_NUMBER} of the test repository. */
export function commentPayload(o: CommentOptions): Record<string, unknown> {
  const payload = webhookExample("issue_comment", o.action ?? "created") as {
    issue: Record<string, unknown>;
    comment: { id: number; body: string; user: { login: string; type: string } };
    repository: { full_name: string; name: string; owner: { login: string } };
  };
  const [owner, name] = TEST_REPOSITORY.split("/") as [string, string];
  payload.repository.full_name = TEST_REPOSITORY;
  payload.repository.name = name;
  payload.repository.owner.login = owner;
  payload.issue.number = PR_NUMBER;
  if (o.onPullRequest ?? true) {
    const html = `https://github.com/${TEST_REPOSITORY}/pull/${PR_NUMBER}`;
    payload.issue.pull_request = {
      url: `https://api.github.com/repos/${TEST_REPOSITORY}/pulls/${PR_NUMBER}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: null,
    };
  } else {
    delete payload.issue.pull_request;
  }
  payload.comment.id = o.commentId ?? 1_100_200_300;
  payload.comment.body = o.body;
  payload.comment.user.login = o.login ?? "maintainer";
  payload.comment.user.type = o.type ?? "User";
  return payload as unknown as Record<string, unknown>;
}

/** A `workflow_dispatch` payload (GitHub's example) with `inputs`. */
export function dispatchPayload(inputs: Record<string, string>): Record<string, unknown> {
  const payload = webhookExample("workflow_dispatch") as {
    inputs: unknown;
    repository: { full_name: string };
  };
  payload.inputs = inputs;
  payload.repository.full_name = TEST_REPOSITORY;
  return payload as unknown as Record<string, unknown>;
}

/** A `push` payload (GitHub's example): an event this action does not run on. */
export function pushPayload(): Record<string, unknown> {
  return webhookExample("push");
}

/** `OWNER/NAME` of the fork {@link holdPullRequest} makes pull request {@link PR_NUMBER} come from. */
export const FORK = "contributor/widgets";

/**
 * Puts pull request {@link PR_NUMBER} of `h` on the GitHub server (a fork's, from {@link FORK}, when
 * `fork`), with `maintainer` (write) and `reader` (read) as collaborators, and `policy` as the base ref's
 * `.github/evidence-gate.yml` when given.
 */
export function holdPullRequest(
  github: GitHubServer,
  h: PullRequestHeads,
  o: { readonly fork?: boolean; readonly policy?: string } = {},
): GitHubServer {
  github.state.addPullRequest({
    number: PR_NUMBER,
    headSha: h.headSha,
    baseSha: h.baseSha,
    title: "Fix sum()",
    body: "Please merge.",
    ...(o.fork ? { headRepository: FORK } : {}),
  });
  github.state.setCollaborator("maintainer", "write");
  github.state.setCollaborator("reader", "read");
  if (o.policy !== undefined)
    github.state.addFile({ ref: h.baseSha, path: ".github/evidence-gate.yml", content: o.policy });
  return github;
}

/**
 * The reactions the GitHub server holds, as `<comment id>:<content>`, after checking that each was created
 * by a `POST` answered 201.
 */
export function reactionsOn(github: GitHubServer): string[] {
  const created = github.callsTo("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions");
  if (created.some((c) => c.status !== 201) || created.length !== github.state.reactions.length)
    throw new Error(
      `reactions: ${created.map((c) => c.status).join(", ")} answered for ${github.state.reactions.length} held`,
    );
  return github.state.reactions.map((r) => `${r.commentId}:${r.content}`);
}
