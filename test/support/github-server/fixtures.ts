/**
 * Response bodies in the shapes GitHub returns, built from the server's state. Every body leaves the
 * server only after it passed the description's response schema, so a field forgotten here fails the
 * test that fetched it (as a `response` violation), not silently.
 */
import { createHash } from "node:crypto";

/** Where the double pretends to live: the API origin (the server's URL) and the web origin. */
export interface Origins {
  readonly api: string;
  readonly web: string;
}

export interface AccountFixture {
  readonly login: string;
  readonly id: number;
  readonly type: "User" | "Organization" | "Bot";
}

export interface RepositoryFixture {
  readonly owner: AccountFixture;
  readonly name: string;
  readonly id: number;
  readonly defaultBranch: string;
  readonly private: boolean;
  readonly fork: boolean;
}

export interface PullRequestFixture {
  readonly number: number;
  readonly id: number;
  readonly title: string;
  readonly body: string | null;
  readonly state: "open" | "closed";
  readonly draft: boolean;
  readonly user: AccountFixture;
  readonly head: { readonly ref: string; readonly sha: string; readonly repository: RepositoryFixture };
  readonly base: { readonly ref: string; readonly sha: string; readonly repository: RepositoryFixture };
  /** What `GET …/pulls/{n}/files` lists: the paths the pull request changes (GitHub lists at most 3000). */
  readonly files: readonly PullRequestFileFixture[];
}

/** One changed file of a pull request (a `diff-entry`). */
export interface PullRequestFileFixture {
  readonly filename: string;
  readonly status: "added" | "removed" | "modified" | "renamed";
  /** The old path of a renamed file. */
  readonly previousFilename?: string;
}

export interface AppFixture {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly owner: AccountFixture;
}

export interface StoredCheckRun {
  readonly id: number;
  readonly owner: string;
  readonly repo: string;
  readonly app: AppFixture;
  readonly checkSuiteId: number;
  name: string;
  headSha: string;
  externalId: string | null;
  detailsUrl: string | null;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotationsCount: number };
  /** The buttons (`actions`) last written; absent until a write sets them. */
  actions?: readonly { readonly label: string; readonly description: string; readonly identifier: string }[];
}

/** A workflow artifact (https://docs.github.com/rest/actions/artifacts), with its zip for downloads. */
export interface ArtifactFixture {
  readonly id: number;
  readonly repository: RepositoryFixture;
  readonly name: string;
  readonly zip: Buffer;
  readonly sizeInBytes: number;
  readonly expired: boolean;
  readonly createdAt: string;
  /** `sha256:<hex>`, or `null` (artifacts uploaded before upload-artifact v4). */
  readonly digest: string | null;
  readonly workflowRun: {
    readonly id: number;
    readonly headSha: string;
    readonly headBranch: string;
    /** The repository the workflow run's head came from: another one for a fork's pull request. */
    readonly headRepositoryId: number;
  };
  /** The signature the blob URL carries (the redirect target's only credential). */
  readonly signature: string;
}

const CREATED_AT = "2024-01-02T03:04:05Z";

function nodeId(kind: string, id: number): string {
  return Buffer.from(`0${kind.length}:${kind}${id}`).toString("base64");
}

/** GitHub's GitHub Actions app, which owns check runs created with `GITHUB_TOKEN` (id 15368). */
export const GITHUB_ACTIONS_APP: AppFixture = {
  id: 15368,
  slug: "github-actions",
  name: "GitHub Actions",
  owner: { login: "github", id: 9919, type: "Organization" },
};

export function simpleUser(account: AccountFixture, origins: Origins): Record<string, unknown> {
  // GitHub percent-encodes a bot's brackets in its URLs (`/users/github-actions%5Bbot%5D`).
  const api = `${origins.api}/users/${encodeURIComponent(account.login)}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId(account.type, account.id),
    avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
    gravatar_id: "",
    url: api,
    html_url: `${origins.web}/${encodeURIComponent(account.login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: account.type,
    site_admin: false,
  };
}

export function fullName(repository: RepositoryFixture): string {
  return `${repository.owner.login}/${repository.name}`;
}

/** Satisfies both `repository` (inside pull requests) and `full-repository` (`GET /repos/{o}/{r}`). */
export function repositoryBody(repository: RepositoryFixture, origins: Origins): Record<string, unknown> {
  const full = fullName(repository);
  const api = `${origins.api}/repos/${full}`;
  const host = new URL(origins.web).host;
  return {
    id: repository.id,
    node_id: nodeId("Repository", repository.id),
    name: repository.name,
    full_name: full,
    owner: simpleUser(repository.owner, origins),
    private: repository.private,
    html_url: `${origins.web}/${full}`,
    description: null,
    fork: repository.fork,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://${host}/${full}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@${host}:${full}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${origins.web}/${full}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: `${origins.web}/${full}`,
    homepage: null,
    language: "TypeScript",
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 108,
    default_branch: repository.defaultBranch,
    open_issues_count: 1,
    open_issues: 1,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repository.private ? "private" : "public",
    pushed_at: CREATED_AT,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    license: null,
    network_count: 0,
    subscribers_count: 1,
  };
}

export function pullRequestBody(pull: PullRequestFixture, origins: Origins): Record<string, unknown> {
  const repo = fullName(pull.base.repository);
  const api = `${origins.api}/repos/${repo}`;
  const html = `${origins.web}/${repo}/pull/${pull.number}`;
  const links = {
    self: `${api}/pulls/${pull.number}`,
    html,
    issue: `${api}/issues/${pull.number}`,
    comments: `${api}/issues/${pull.number}/comments`,
    review_comments: `${api}/pulls/${pull.number}/comments`,
    review_comment: `${api}/pulls/comments{/number}`,
    commits: `${api}/pulls/${pull.number}/commits`,
    statuses: `${api}/statuses/${pull.head.sha}`,
  };
  const side = (s: PullRequestFixture["head"]) => ({
    label: `${s.repository.owner.login}:${s.ref}`,
    ref: s.ref,
    sha: s.sha,
    user: simpleUser(s.repository.owner, origins),
    repo: repositoryBody(s.repository, origins),
  });
  return {
    url: links.self,
    id: pull.id,
    node_id: nodeId("PullRequest", pull.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: links.issue,
    commits_url: links.commits,
    review_comments_url: links.review_comments,
    review_comment_url: links.review_comment,
    comments_url: links.comments,
    statuses_url: links.statuses,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: simpleUser(pull.user, origins),
    body: pull.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    closed_at: null,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: side(pull.head),
    base: side(pull.base),
    _links: Object.fromEntries(Object.entries(links).map(([k, href]) => [k, { href }])),
    author_association:
      pull.head.repository.owner.login === pull.base.repository.owner.login ? "MEMBER" : "CONTRIBUTOR",
    auto_merge: null,
    draft: pull.draft,
    merged: false,
    mergeable: true,
    rebaseable: true,
    mergeable_state: "clean",
    merged_by: null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: pull.files.length,
  };
}

/** A pull request's changed file as `GET …/pulls/{n}/files` lists it (`diff-entry`). */
export function pullRequestFileBody(
  pull: PullRequestFixture,
  file: PullRequestFileFixture,
  origins: Origins,
): Record<string, unknown> {
  const repo = fullName(pull.head.repository);
  const content = Buffer.from(`${file.filename}@${pull.head.sha}`);
  return {
    sha: gitBlobSha(content),
    filename: file.filename,
    status: file.status,
    additions: file.status === "removed" ? 0 : 1,
    deletions: file.status === "added" ? 0 : 1,
    changes: file.status === "added" || file.status === "removed" ? 1 : 2,
    blob_url: `${origins.web}/${repo}/blob/${pull.head.sha}/${file.filename}`,
    raw_url: `${origins.web}/${repo}/raw/${pull.head.sha}/${file.filename}`,
    contents_url: `${origins.api}/repos/${repo}/contents/${file.filename}?ref=${pull.head.sha}`,
    ...(file.previousFilename === undefined ? {} : { previous_filename: file.previousFilename }),
  };
}

/** The blob SHA git would give this content (`git hash-object`). */
export function gitBlobSha(content: Buffer): string {
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]))
    .digest("hex");
}

export function contentFileBody(
  input: {
    readonly repository: RepositoryFixture;
    readonly path: string;
    readonly ref: string;
    readonly content: Buffer;
  },
  origins: Origins,
): Record<string, unknown> {
  const full = fullName(input.repository);
  const sha = gitBlobSha(input.content);
  const self = `${origins.api}/repos/${full}/contents/${input.path}?ref=${encodeURIComponent(input.ref)}`;
  const git = `${origins.api}/repos/${full}/git/blobs/${sha}`;
  const html = `${origins.web}/${full}/blob/${input.ref}/${input.path}`;
  return {
    type: "file",
    encoding: "base64",
    size: input.content.length,
    name: input.path.split("/").at(-1),
    path: input.path,
    // GitHub wraps base64 at 60 characters per line.
    content: `${(input.content.toString("base64").match(/.{1,60}/g) ?? []).join("\n")}\n`,
    sha,
    url: self,
    git_url: git,
    html_url: html,
    download_url: `https://raw.githubusercontent.com/${full}/${input.ref}/${input.path}`,
    _links: { self, git, html },
  };
}

export function appBody(app: AppFixture, origins: Origins): Record<string, unknown> {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId("App", app.id),
    owner: simpleUser(app.owner, origins),
    name: app.name,
    description: null,
    external_url: `${origins.web}/apps/${app.slug}`,
    html_url: `${origins.web}/apps/${app.slug}`,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    permissions: { checks: "write", contents: "read", metadata: "read", pull_requests: "write" },
    events: ["check_run", "pull_request"],
  };
}

export function checkRunBody(
  run: StoredCheckRun,
  pulls: readonly PullRequestFixture[],
  origins: Origins,
): Record<string, unknown> {
  const api = `${origins.api}/repos/${run.owner}/${run.repo}/check-runs/${run.id}`;
  return {
    id: run.id,
    head_sha: run.headSha,
    node_id: nodeId("CheckRun", run.id),
    external_id: run.externalId,
    url: api,
    html_url: `${origins.web}/${run.owner}/${run.repo}/runs/${run.id}`,
    details_url: run.detailsUrl,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: run.output.annotationsCount,
      annotations_url: `${api}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.checkSuiteId },
    app: appBody(run.app, origins),
    // The Checks API lists only pull requests whose head is in this repository (forks: empty).
    pull_requests: pulls
      .filter((p) => p.head.sha === run.headSha && p.head.repository === p.base.repository)
      .map((p) => ({
        id: p.id,
        number: p.number,
        url: `${origins.api}/repos/${fullName(p.base.repository)}/pulls/${p.number}`,
        head: { ref: p.head.ref, sha: p.head.sha, repo: miniRepo(p.head.repository, origins) },
        base: { ref: p.base.ref, sha: p.base.sha, repo: miniRepo(p.base.repository, origins) },
      })),
  };
}

function miniRepo(repository: RepositoryFixture, origins: Origins) {
  return { id: repository.id, url: `${origins.api}/repos/${fullName(repository)}`, name: repository.name };
}

export function artifactBody(artifact: ArtifactFixture, origins: Origins): Record<string, unknown> {
  const api = `${origins.api}/repos/${fullName(artifact.repository)}/actions/artifacts/${artifact.id}`;
  return {
    id: artifact.id,
    node_id: nodeId("Artifact", artifact.id),
    name: artifact.name,
    size_in_bytes: artifact.sizeInBytes,
    url: api,
    archive_download_url: `${api}/zip`,
    expired: artifact.expired,
    created_at: artifact.createdAt,
    expires_at: "2099-01-01T00:00:00Z",
    updated_at: artifact.createdAt,
    digest: artifact.digest,
    workflow_run: {
      id: artifact.workflowRun.id,
      repository_id: artifact.repository.id,
      head_repository_id: artifact.workflowRun.headRepositoryId,
      head_branch: artifact.workflowRun.headBranch,
      head_sha: artifact.workflowRun.headSha,
    },
  };
}

/** `issue-comment` (GET/POST/PATCH issue comments). */
export function issueCommentBody(
  comment: {
    readonly id: number;
    readonly owner: string;
    readonly repo: string;
    readonly issueNumber: number;
    readonly body: string;
    readonly user: AccountFixture;
    readonly createdAt: string;
    readonly updatedAt: string;
  },
  origins: Origins,
): Record<string, unknown> {
  const full = `${comment.owner}/${comment.repo}`;
  return {
    id: comment.id,
    node_id: nodeId("IssueComment", comment.id),
    url: `${origins.api}/repos/${full}/issues/comments/${comment.id}`,
    body: comment.body,
    html_url: `${origins.web}/${full}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    user: simpleUser(comment.user, origins),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    issue_url: `${origins.api}/repos/${full}/issues/${comment.issueNumber}`,
    author_association: comment.user.type === "Bot" ? "NONE" : "MEMBER",
  };
}
