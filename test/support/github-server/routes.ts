/**
 * The operations the product calls, with GitHub's behaviour for each. Requests reach a handler only
 * after they passed the description's contract; a handler may still refuse what the real API refuses
 * for reasons a schema cannot see (unknown commit, another app's check run) — such a refusal is also
 * a violation, because the product sent something GitHub would reject.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { HttpMethod } from "./contract.js";
import {
  artifactBody,
  checkRunBody,
  contentFileBody,
  gitBlobSha,
  issueCommentBody,
  type Origins,
  pullRequestBody,
  pullRequestFileBody,
  repositoryBody,
  type StoredCheckRun,
  simpleUser,
} from "./fixtures.js";
import { APP_ROUTES } from "./routes-app.js";
import type { GitHubServerState } from "./state.js";

export interface RouteRequest {
  readonly params: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  /** The full request URL (for `Link` pagination headers). */
  readonly url: URL;
}

export interface RouteContext {
  readonly state: GitHubServerState;
  readonly origins: Origins;
  readonly documentationUrl: string;
}

export interface RouteResponse {
  readonly status: number;
  /** JSON body (validated against the description). */
  readonly body?: unknown;
  /** A non-JSON media type (e.g. `application/vnd.github.raw`), which the description does not model. */
  readonly raw?: { readonly contentType: string; readonly text: string };
  readonly headers?: Record<string, string>;
  /** Set when the real API would refuse this request: recorded as a violation. */
  readonly violation?: string;
}

export interface Route {
  readonly method: HttpMethod;
  readonly template: string;
  handle(request: RouteRequest, context: RouteContext): RouteResponse;
}

function githubTime(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function error(status: number, message: string, context: RouteContext, violation?: string): RouteResponse {
  return {
    status,
    body: { message, documentation_url: context.documentationUrl, status: String(status) },
    ...(violation === undefined ? {} : { violation }),
  };
}

function notFound(context: RouteContext): RouteResponse {
  return error(404, "Not Found", context);
}

const SHA = /^[0-9a-f]{40}$/;

interface CheckRunBodyInput {
  name?: string;
  head_sha?: string;
  details_url?: string;
  external_id?: string;
  status?: StoredCheckRun["status"];
  started_at?: string;
  conclusion?: string;
  completed_at?: string;
  output?: { title?: string; summary?: string; text?: string; annotations?: unknown[] };
  actions?: StoredCheckRun["actions"];
}

function repositoryOf(request: RouteRequest, context: RouteContext) {
  return context.state.repository(String(request.params.owner), String(request.params.repo));
}

function checkRunJson(run: StoredCheckRun, context: RouteContext): unknown {
  return checkRunBody(run, context.state.pullRequests(), context.origins);
}

const createCheckRun: Route = {
  method: "POST",
  template: "/repos/{owner}/{repo}/check-runs",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const body = request.body as CheckRunBodyInput;
    const headSha = body.head_sha ?? "";
    if (!SHA.test(headSha)) {
      const message = `No commit found for SHA: ${headSha}`;
      return error(422, message, context, `${message} (head_sha must be a full 40-hex commit SHA)`);
    }
    const { state } = context;
    const now = githubTime();
    const conclusion = body.conclusion ?? null;
    const status = conclusion === null ? (body.status ?? "queued") : "completed";
    const sameSuite = state.checkRuns.find((r) => r.headSha === headSha && r.app.id === state.app.id);
    const run: StoredCheckRun = {
      id: state.nextId(),
      owner: repository.owner.login,
      repo: repository.name,
      app: state.app,
      checkSuiteId: sameSuite?.checkSuiteId ?? state.nextId(),
      name: body.name ?? "",
      headSha,
      externalId: body.external_id ?? null,
      // "If the integrator does not provide this, then the homepage of the GitHub app is used."
      detailsUrl: body.details_url ?? `${context.origins.web}/apps/${state.app.slug}`,
      status,
      conclusion,
      startedAt: body.started_at ?? now,
      completedAt: status === "completed" ? (body.completed_at ?? now) : null,
      output: {
        title: body.output?.title ?? null,
        summary: body.output?.summary ?? null,
        text: body.output?.text ?? null,
        annotationsCount: body.output?.annotations?.length ?? 0,
      },
    };
    if (body.actions !== undefined) run.actions = body.actions;
    state.checkRuns.push(run);
    return { status: 201, body: checkRunJson(run, context) };
  },
};

const updateCheckRun: Route = {
  method: "PATCH",
  template: "/repos/{owner}/{repo}/check-runs/{check_run_id}",
  handle(request, context) {
    const { state } = context;
    const run = state.checkRun(
      String(request.params.owner),
      String(request.params.repo),
      Number(request.params.check_run_id),
    );
    if (run === undefined) return notFound(context);
    if (run.app.id !== state.app.id) {
      return error(
        403,
        "Resource not accessible by integration",
        context,
        `check run ${run.id} belongs to app ${run.app.slug}`,
      );
    }
    const body = request.body as CheckRunBodyInput;
    if (body.name !== undefined) run.name = body.name;
    if (body.details_url !== undefined) run.detailsUrl = body.details_url;
    if (body.external_id !== undefined) run.externalId = body.external_id;
    if (body.started_at !== undefined) run.startedAt = body.started_at;
    if (body.actions !== undefined) run.actions = body.actions;
    if (body.conclusion !== undefined) {
      // "Providing `conclusion` will automatically set the `status` parameter to `completed`."
      run.status = "completed";
      run.conclusion = body.conclusion;
      run.completedAt = body.completed_at ?? githubTime();
    } else if (body.status !== undefined) {
      // GitHub does not reset `conclusion` when a completed run goes back to `in_progress`, and refuses
      // `conclusion: null` (https://github.com/Mergifyio/mergify/pull/444): the double keeps it too.
      run.status = body.status;
    }
    if (body.output !== undefined) {
      run.output.title = body.output.title ?? run.output.title;
      run.output.summary = body.output.summary ?? run.output.summary;
      run.output.text = body.output.text ?? run.output.text;
      // "Each time you update the check run, annotations are appended."
      run.output.annotationsCount += body.output.annotations?.length ?? 0;
    }
    return { status: 200, body: checkRunJson(run, context) };
  },
};

const getCheckRun: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/check-runs/{check_run_id}",
  handle(request, context) {
    // Any check run of the repository is readable (not only the token's own app's).
    const run = context.state.checkRun(
      String(request.params.owner),
      String(request.params.repo),
      Number(request.params.check_run_id),
    );
    return run === undefined ? notFound(context) : { status: 200, body: checkRunJson(run, context) };
  },
};

const listCheckRunsForRef: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/commits/{ref}/check-runs",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const { state } = context;
    const ref = String(request.params.ref);
    const branch = ref.replace(/^(refs\/)?heads\//, "");
    const sha = SHA.test(ref)
      ? ref
      : state.pullRequests().find((p) => p.head.repository === repository && p.head.ref === branch)?.head.sha;
    const q = request.query;
    let runs = state.checkRuns.filter(
      (r) =>
        r.owner === repository.owner.login &&
        r.repo === repository.name &&
        r.headSha === sha &&
        (q.check_name === undefined || r.name === q.check_name) &&
        (q.status === undefined || r.status === q.status) &&
        (q.app_id === undefined || r.app.id === q.app_id),
    );
    if ((q.filter ?? "latest") === "latest") {
      // "`latest` returns the most recent check runs": the newest per app and name.
      runs = runs.filter((r) => !runs.some((o) => o.app.id === r.app.id && o.name === r.name && o.id > r.id));
    }
    runs = [...runs].sort((a, b) => b.id - a.id);
    const perPage = Math.min(Number(q.per_page ?? 30), 100);
    const page = Number(q.page ?? 1);
    const slice = runs.slice((page - 1) * perPage, page * perPage);
    const headers: Record<string, string> = {};
    if (page * perPage < runs.length) {
      const next = new URL(request.url);
      next.searchParams.set("page", String(page + 1));
      headers.link = `<${next.href}>; rel="next"`;
    }
    return {
      status: 200,
      headers,
      body: { total_count: runs.length, check_runs: slice.map((r) => checkRunJson(r, context)) },
    };
  },
};

const getContent: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/contents/{path}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const ref = typeof request.query.ref === "string" ? request.query.ref : repository.defaultBranch;
    const path = String(request.params.path);
    const content = context.state.file(repository, ref, path);
    if (content === undefined) return notFound(context);
    const accept = String(request.headers.accept ?? "");
    if (/application\/vnd\.github(\.v3)?\.raw/.test(accept)) {
      return {
        status: 200,
        raw: { contentType: "application/vnd.github.raw; charset=utf-8", text: content.toString("utf8") },
      };
    }
    return { status: 200, body: contentFileBody({ repository, path, ref, content }, context.origins) };
  },
};

const getPullRequest: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/pulls/{pull_number}",
  handle(request, context) {
    const pull = context.state.pullRequest(
      String(request.params.owner),
      String(request.params.repo),
      Number(request.params.pull_number),
    );
    return pull === undefined
      ? notFound(context)
      : { status: 200, body: pullRequestBody(pull, context.origins) };
  },
};

/** GitHub lists at most this many files of a pull request (`GET …/pulls/{n}/files`). */
const PULL_REQUEST_FILES_CAP = 3000;

const listPullRequests: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/pulls",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const q = request.query;
    const state = typeof q.state === "string" ? q.state : "open";
    // `head`: "user:ref-name" or "organization:ref-name" (the head repository's owner and branch).
    const head = typeof q.head === "string" ? q.head : undefined;
    const all = context.state
      .pullRequests()
      .filter((p) => p.base.repository === repository)
      .filter((p) => state === "all" || p.state === state)
      .filter(
        (p) =>
          head === undefined ||
          `${p.head.repository.owner.login}:${p.head.ref}`.toLowerCase() === head.toLowerCase(),
      )
      .sort((a, b) => b.number - a.number);
    const { slice, headers } = pageOf(all, request);
    return { status: 200, headers, body: slice.map((p) => pullRequestBody(p, context.origins)) };
  },
};

const listPullRequestFiles: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/pulls/{pull_number}/files",
  handle(request, context) {
    const pull = context.state.pullRequest(
      String(request.params.owner),
      String(request.params.repo),
      Number(request.params.pull_number),
    );
    if (pull === undefined) return notFound(context);
    // "Responses include a maximum of 3000 files."
    const listed = pull.files.slice(0, PULL_REQUEST_FILES_CAP);
    const { slice, headers } = pageOf(listed, request);
    return {
      status: 200,
      headers,
      body: slice.map((f) => pullRequestFileBody(pull, f, context.origins)),
    };
  },
};

const getRepository: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    return repository === undefined
      ? notFound(context)
      : { status: 200, body: repositoryBody(repository, context.origins) };
  },
};

/** Where the double serves artifact zips (a stand-in for the blob storage GitHub redirects to). */
export const ARTIFACT_BLOB_PREFIX = "/_artifact-blobs/";

const listArtifactsForRepo: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/actions/artifacts",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const q = request.query;
    // Newest first, as GitHub lists them.
    const all = context.state
      .artifacts(repository.owner.login, repository.name)
      .filter((a) => q.name === undefined || a.name === q.name)
      .sort((a, b) => b.id - a.id);
    const perPage = Math.min(Number(q.per_page ?? 30), 100);
    const page = Number(q.page ?? 1);
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: { total_count: all.length, artifacts: slice.map((a) => artifactBody(a, context.origins)) },
    };
  },
};

const listWorkflowRunArtifacts: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const q = request.query;
    const runId = Number(request.params.run_id);
    // The artifacts one workflow run uploaded, newest first; `name` filters by exact name.
    const all = context.state
      .artifacts(repository.owner.login, repository.name)
      .filter((a) => a.workflowRun.id === runId && (q.name === undefined || a.name === q.name))
      .sort((a, b) => b.id - a.id);
    const perPage = Math.min(Number(q.per_page ?? 30), 100);
    const page = Number(q.page ?? 1);
    const slice = all.slice((page - 1) * perPage, page * perPage);
    return {
      status: 200,
      body: { total_count: all.length, artifacts: slice.map((a) => artifactBody(a, context.origins)) },
    };
  },
};

const downloadArtifact: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    const artifact = context.state.artifact(Number(request.params.artifact_id));
    if (repository === undefined || artifact === undefined || artifact.repository !== repository) {
      return notFound(context);
    }
    // "archive_format: The only supported format is `zip`" (description, actions/download-artifact).
    if (request.params.archive_format !== "zip") return notFound(context);
    if (artifact.expired) return error(410, "Artifact has expired", context);
    // "Gets a redirect URL to download an archive for a repository. This URL expires after 1 minute. Look
    // for `Location:` in the response header to find the URL for the download."
    return {
      status: 302,
      headers: {
        location: `${context.origins.api}${ARTIFACT_BLOB_PREFIX}${artifact.id}.zip?sig=${artifact.signature}`,
      },
    };
  },
};

/**
 * A recursive tree listing of the files the double holds at `tree_sha` (the ref files were added under):
 * every folder and file, sorted, `truncated: false`. Blobs are found again by their SHA (getBlob).
 */
const getTree: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/git/trees/{tree_sha}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const ref = String(request.params.tree_sha);
    const files = context.state.filesAt(repository, ref);
    const api = `${context.origins.api}/repos/${repository.owner.login}/${repository.name}`;
    const folders = new Set<string>();
    for (const path of files.keys()) {
      const parts = path.split("/");
      for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
    }
    const recursive = request.query.recursive !== undefined;
    const entries = [
      ...[...folders].map((path) => ({
        path,
        mode: "040000",
        type: "tree",
        sha: gitBlobSha(Buffer.from(path)),
        url: `${api}/git/trees/${gitBlobSha(Buffer.from(path))}`,
      })),
      ...[...files].map(([path, content]) => ({
        path,
        mode: "100644",
        type: "blob",
        sha: gitBlobSha(content),
        size: content.length,
        url: `${api}/git/blobs/${gitBlobSha(content)}`,
      })),
    ]
      .filter((e) => recursive || !e.path.includes("/"))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    return {
      status: 200,
      body: {
        sha: gitBlobSha(Buffer.from(ref)),
        url: `${api}/git/trees/${ref}`,
        truncated: false,
        tree: entries,
      },
    };
  },
};

/**
 * A git commit object (https://docs.github.com/rest/git/commits#get-a-commit-object) the test added with
 * `state.addCommit`: its tree and parents; 404 for any other SHA, as GitHub answers for an unknown commit.
 */
const getGitCommit: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/git/commits/{commit_sha}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const commit = context.state.commit(repository, String(request.params.commit_sha));
    if (commit === undefined) return notFound(context);
    const api = `${context.origins.api}/repos/${repository.owner.login}/${repository.name}`;
    const web = `${context.origins.web}/${repository.owner.login}/${repository.name}`;
    const person = {
      name: "evidence-gate",
      email: "evidence-gate@users.noreply.github.com",
      date: githubTime(),
    };
    return {
      status: 200,
      body: {
        sha: commit.sha,
        node_id: `C_${commit.sha.slice(0, 12)}`,
        url: `${api}/git/commits/${commit.sha}`,
        html_url: `${web}/commit/${commit.sha}`,
        author: person,
        committer: person,
        tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
        message: commit.message,
        parents: commit.parents.map((sha) => ({
          sha,
          url: `${api}/git/commits/${sha}`,
          html_url: `${web}/commit/${sha}`,
        })),
        verification: {
          verified: false,
          reason: "unsigned",
          signature: null,
          payload: null,
          verified_at: null,
        },
      },
    };
  },
};

const getBlob: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/git/blobs/{file_sha}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const sha = String(request.params.file_sha);
    const content = context.state.blob(repository, sha);
    if (content === undefined) return notFound(context);
    return {
      status: 200,
      body: {
        content: `${(content.toString("base64").match(/.{1,60}/g) ?? []).join("\n")}\n`,
        encoding: "base64",
        url: `${context.origins.api}/repos/${repository.owner.login}/${repository.name}/git/blobs/${sha}`,
        sha,
        size: content.length,
        node_id: `B_${sha.slice(0, 12)}`,
      },
    };
  },
};

/** One page of `items` as GitHub pages a listing: `per_page` (default 30, at most 100), `page`, `Link`. */
export function pageOf<T>(
  items: readonly T[],
  request: RouteRequest,
): { slice: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Number(request.query.per_page ?? 30), 100);
  const page = Number(request.query.page ?? 1);
  const headers: Record<string, string> = {};
  if (page * perPage < items.length) {
    const next = new URL(request.url);
    next.searchParams.set("page", String(page + 1));
    headers.link = `<${next.href}>; rel="next"`;
  }
  return { slice: items.slice((page - 1) * perPage, page * perPage), headers };
}

const listIssueComments: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const number = Number(request.params.issue_number);
    const all = context.state.comments.filter(
      (c) => c.owner === repository.owner.login && c.repo === repository.name && c.issueNumber === number,
    );
    const { slice, headers } = pageOf(all, request);
    return { status: 200, headers, body: slice.map((c) => issueCommentBody(c, context.origins)) };
  },
};

const createIssueComment: Route = {
  method: "POST",
  template: "/repos/{owner}/{repo}/issues/{issue_number}/comments",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const number = Number(request.params.issue_number);
    const comment = context.state.addComment({
      repository: `${repository.owner.login}/${repository.name}`,
      issueNumber: number,
      body: String((request.body as { body?: unknown }).body ?? ""),
    });
    return { status: 201, body: issueCommentBody(comment, context.origins) };
  },
};

const updateIssueComment: Route = {
  method: "PATCH",
  template: "/repos/{owner}/{repo}/issues/comments/{comment_id}",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const id = Number(request.params.comment_id);
    const comment = context.state.comments.find(
      (c) => c.id === id && c.owner === repository.owner.login && c.repo === repository.name,
    );
    if (comment === undefined) return notFound(context);
    if (comment.user.login !== context.state.commenter.login) {
      return error(
        403,
        "Resource not accessible by integration",
        context,
        `comment ${id} belongs to ${comment.user.login}`,
      );
    }
    comment.body = String((request.body as { body?: unknown }).body ?? "");
    comment.updatedAt = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    return { status: 200, body: issueCommentBody(comment, context.origins) };
  },
};

const getCollaboratorPermission: Route = {
  method: "GET",
  template: "/repos/{owner}/{repo}/collaborators/{username}/permission",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const login = String(request.params.username);
    const role = context.state.collaborator(repository.owner.login, repository.name, login);
    // Tests name every user they look up; an unknown login is GitHub's 404 for a user that does not exist.
    if (role === undefined) return notFound(context);
    // "`permission` provides the legacy base roles of admin, write, read, and none"; `role_name` the role.
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    const user = {
      ...simpleUser({ login, id: 5_000_000 + login.length, type: "User" }, context.origins),
      permissions: {
        pull: true,
        triage: role !== "read",
        push: ["admin", "maintain", "write"].includes(role),
        maintain: role === "admin" || role === "maintain",
        admin: role === "admin",
      },
      role_name: role,
    };
    return { status: 200, body: { permission, role_name: role, user } };
  },
};

const createIssueCommentReaction: Route = {
  method: "POST",
  template: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
  handle(request, context) {
    const repository = repositoryOf(request, context);
    if (repository === undefined) return notFound(context);
    const content = String((request.body as { content?: unknown }).content);
    const reaction = {
      id: context.state.nextId(),
      owner: repository.owner.login,
      repo: repository.name,
      commentId: Number(request.params.comment_id),
      content,
    };
    context.state.reactions.push(reaction);
    return {
      status: 201,
      body: {
        id: reaction.id,
        node_id: Buffer.from(`08:Reaction${reaction.id}`).toString("base64"),
        // The token's bot user; its URLs percent-encode the brackets, as GitHub's do.
        user: {
          ...simpleUser({ login: "github-actions%5Bbot%5D", id: 41898282, type: "Bot" }, context.origins),
          login: "github-actions[bot]",
        },
        content,
        created_at: githubTime(),
      },
    };
  },
};

export const ROUTES: readonly Route[] = [
  ...APP_ROUTES,
  getTree,
  getGitCommit,
  getBlob,
  listIssueComments,
  createIssueComment,
  updateIssueComment,
  createCheckRun,
  updateCheckRun,
  getCheckRun,
  listCheckRunsForRef,
  getContent,
  getPullRequest,
  listPullRequests,
  listPullRequestFiles,
  getRepository,
  listArtifactsForRepo,
  listWorkflowRunArtifacts,
  downloadArtifact,
  getCollaboratorPermission,
  createIssueCommentReaction,
];
