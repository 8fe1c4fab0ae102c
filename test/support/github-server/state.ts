/**
 * What the GitHub double knows: repositories, files per ref, commits, pull requests and check runs. Tests seed
 * it before the product runs and read it afterwards ("what would GitHub show now?").
 */
import { createHash, randomBytes } from "node:crypto";
import { AppAuth, type AppAuthOptions } from "./app-auth.js";
import {
  type AccountFixture,
  type AppFixture,
  type ArtifactFixture,
  GITHUB_ACTIONS_APP,
  gitBlobSha,
  type PullRequestFileFixture,
  type PullRequestFixture,
  type RepositoryFixture,
  type StoredCheckRun,
} from "./fixtures.js";
import { WebhookDeliveries } from "./webhook-deliveries.js";

export interface AddRepositoryInput {
  /** `OWNER/NAME`. */
  readonly fullName: string;
  readonly defaultBranch?: string;
  readonly private?: boolean;
  readonly fork?: boolean;
}

export interface AddFileInput {
  /** `OWNER/NAME`; default: the server's default repository. */
  readonly repository?: string;
  /** A branch name or commit SHA; requests without `ref` read the default branch. */
  readonly ref?: string;
  readonly path: string;
  readonly content: string | Buffer;
}

export interface AddPullRequestInput {
  readonly repository?: string;
  readonly number: number;
  readonly title?: string;
  readonly body?: string | null;
  readonly draft?: boolean;
  readonly state?: "open" | "closed";
  readonly author?: string;
  readonly headSha: string;
  readonly headRef?: string;
  /** `OWNER/NAME` of the head repository; a different repository makes the PR a fork PR. */
  readonly headRepository?: string;
  readonly baseSha: string;
  readonly baseRef?: string;
  /**
   * The paths it changes (`GET …/pulls/{n}/files`): a path is a modified file; default one modified
   * `README.md` (the default title's change).
   */
  readonly files?: readonly (string | PullRequestFileFixture)[];
}

/** An issue (or pull-request) comment as the double stores it. */
export interface StoredComment {
  readonly id: number;
  readonly owner: string;
  readonly repo: string;
  readonly issueNumber: number;
  body: string;
  readonly user: AccountFixture;
  readonly createdAt: string;
  updatedAt: string;
}

/** The bot account a `GITHUB_TOKEN` writes comments as. */
export const GITHUB_ACTIONS_BOT: AccountFixture = { login: "github-actions[bot]", id: 41898282, type: "Bot" };

export interface SeedCheckRunInput {
  readonly repository?: string;
  readonly name: string;
  readonly headSha: string;
  readonly app?: AppFixture;
  readonly status?: StoredCheckRun["status"];
  readonly conclusion?: string | null;
  readonly externalId?: string | null;
}

export interface AddArtifactInput {
  readonly repository?: string;
  readonly name: string;
  readonly zip: Buffer;
  readonly expired?: boolean;
  /** Default: now (later artifacts are newer). */
  readonly createdAt?: string;
  /** `workflow_run.head_sha`: for a `pull_request` run, the PR head. */
  readonly headSha: string;
  readonly headBranch?: string;
  /** The workflow run was a fork's pull request (`head_repository_id` ≠ `repository_id`). */
  readonly fromFork?: boolean;
  /** The uploading workflow run's id (what a `workflow_run` event names); default: a fresh id. */
  readonly workflowRunId?: number;
  /** Default: the zip's real `sha256:` digest; `null` for none; any other string to make it lie. */
  readonly digest?: string | null;
  /** Default: the zip's length. */
  readonly sizeInBytes?: number;
}

/** A git commit object the double knows (what `GET …/git/commits/{commit_sha}` answers). */
export interface CommitFixture {
  readonly repository: RepositoryFixture;
  /** 40 hex, lower-case. */
  readonly sha: string;
  readonly tree: string;
  /** Parent SHAs in order (the first parent first). */
  readonly parents: readonly string[];
  readonly message: string;
}

/** A collaborator's role (GitHub's base roles and the two in between). */
export type CollaboratorRole = "admin" | "maintain" | "write" | "triage" | "read";

/** A workflow file the double knows, with the `workflow_dispatch` inputs it declares. */
export interface WorkflowFixture {
  readonly repository: RepositoryFixture;
  /** The file name, e.g. `evidence-gate-resume.yml`. */
  readonly file: string;
  readonly inputs: readonly { readonly name: string; readonly required?: boolean }[];
}

/** A workflow run (what `POST …/actions/runs/{id}/rerun` acts on). */
export interface WorkflowRunFixture {
  readonly id: number;
  readonly repository: RepositoryFixture;
  readonly headSha: string;
  attempt: number;
  /**
   * An attempt is queued or running (set by a re-run; a test sets it back to `false` when that attempt
   * finished): GitHub refuses another re-run with 403 "This workflow is already running".
   */
  running: boolean;
  /** Too old or otherwise not re-runnable: the rerun route answers 403 with GitHub's message. */
  readonly rerunRefused?: string;
  /**
   * What `GET …/actions/runs/{id}` and the run listing answer: a workflow run as GitHub shows it (a webhook
   * payload's `workflow_run` has the same shape); `run_attempt` is {@link attempt}. Without it the run is
   * only re-runnable, not readable.
   */
  body?: Record<string, unknown>;
}

/** A `workflow_dispatch` the product asked for. */
export interface StoredDispatch {
  readonly repository: string;
  readonly workflow: string;
  readonly ref: string;
  readonly inputs: Readonly<Record<string, unknown>>;
}

/** A reaction the product created on an issue comment. */
export interface StoredReaction {
  readonly id: number;
  readonly owner: string;
  readonly repo: string;
  readonly commentId: number;
  readonly content: string;
}

function key(fullName: string): string {
  return fullName.toLowerCase(); // owner and repo names are case-insensitive (description, `owner`/`repo`)
}

export class GitHubServerState {
  readonly defaultRepository: string;
  /** The app whose installation token the product uses (default: GitHub Actions, like `GITHUB_TOKEN`). */
  readonly app: AppFixture;
  readonly checkRuns: StoredCheckRun[] = [];
  /** Issue and pull-request comments, oldest first (tests may seed them with {@link addComment}). */
  readonly comments: StoredComment[] = [];
  /** The account comments written with the product's token are attributed to. */
  readonly commenter: AccountFixture = GITHUB_ACTIONS_BOT;
  readonly #repositories = new Map<string, RepositoryFixture>();
  readonly #files = new Map<string, Buffer>();
  readonly #pulls: PullRequestFixture[] = [];
  readonly #artifacts: ArtifactFixture[] = [];
  readonly #collaborators = new Map<string, CollaboratorRole>();
  readonly #commits: CommitFixture[] = [];
  /** Reactions created through the API, in order. */
  readonly reactions: StoredReaction[] = [];
  /** GitHub App authentication (JWT, installation tokens), when the server was started with `appAuth`. */
  readonly appAuth: AppAuth | null;
  /** The App's webhook: deliveries sent to the bot, and their log. */
  readonly webhooks = new WebhookDeliveries();
  readonly workflows: WorkflowFixture[] = [];
  readonly workflowRuns: WorkflowRunFixture[] = [];
  /** Workflow dispatches accepted, in order. */
  readonly dispatches: StoredDispatch[] = [];
  /** Workflow run ids re-run, in order. */
  readonly reruns: number[] = [];
  #nextId = 4_000_000_001;

  constructor(options: {
    readonly defaultRepository: string;
    readonly app?: AppFixture;
    readonly appAuth?: AppAuthOptions;
  }) {
    this.defaultRepository = options.defaultRepository;
    this.app = options.app ?? GITHUB_ACTIONS_APP;
    this.appAuth = options.appAuth === undefined ? null : new AppAuth(options.appAuth);
    this.addRepository({ fullName: options.defaultRepository });
  }

  /** Declares a workflow file and its `workflow_dispatch` inputs (default repository). */
  addWorkflow(input: {
    readonly file: string;
    readonly inputs: WorkflowFixture["inputs"];
    readonly repository?: string;
  }): WorkflowFixture {
    const workflow = {
      repository: this.#require(input.repository ?? this.defaultRepository),
      file: input.file,
      inputs: input.inputs,
    };
    this.workflows.push(workflow);
    return workflow;
  }

  /** Adds a workflow run that `rerun` can find (default repository, attempt 1). */
  addWorkflowRun(input: {
    readonly id: number;
    readonly headSha: string;
    readonly attempt?: number;
    readonly repository?: string;
    readonly rerunRefused?: string;
    readonly body?: Record<string, unknown>;
  }): WorkflowRunFixture {
    const run: WorkflowRunFixture = {
      id: input.id,
      repository: this.#require(input.repository ?? this.defaultRepository),
      headSha: input.headSha,
      attempt: input.attempt ?? 1,
      running: false,
      ...(input.rerunRefused === undefined ? {} : { rerunRefused: input.rerunRefused }),
      ...(input.body === undefined ? {} : { body: input.body }),
    };
    this.workflowRuns.push(run);
    return run;
  }

  nextId(): number {
    this.#nextId += 1;
    return this.#nextId;
  }

  addRepository(input: AddRepositoryInput): RepositoryFixture {
    const [login, name, extra] = input.fullName.split("/");
    if (login === undefined || name === undefined || extra !== undefined || login === "" || name === "") {
      throw new Error(`github-server: repository must be OWNER/NAME, got ${JSON.stringify(input.fullName)}`);
    }
    const existing = this.#repositories.get(key(input.fullName));
    if (existing !== undefined) return existing;
    const owner: AccountFixture = { login, id: this.nextId(), type: "Organization" };
    const repository: RepositoryFixture = {
      owner,
      name,
      id: this.nextId(),
      defaultBranch: input.defaultBranch ?? "main",
      private: input.private ?? false,
      fork: input.fork ?? false,
    };
    this.#repositories.set(key(input.fullName), repository);
    return repository;
  }

  repository(owner: string, repo: string): RepositoryFixture | undefined {
    return this.#repositories.get(key(`${owner}/${repo}`));
  }

  addFile(input: AddFileInput): void {
    const repository = this.#require(input.repository ?? this.defaultRepository);
    const ref = input.ref ?? repository.defaultBranch;
    const content = typeof input.content === "string" ? Buffer.from(input.content, "utf8") : input.content;
    this.#files.set(this.#fileKey(repository, ref, input.path), content);
  }

  file(repository: RepositoryFixture, ref: string, path: string): Buffer | undefined {
    return this.#files.get(this.#fileKey(repository, ref, path));
  }

  addPullRequest(input: AddPullRequestInput): PullRequestFixture {
    const base = this.#require(input.repository ?? this.defaultRepository);
    const head =
      input.headRepository === undefined
        ? base
        : (this.repository(...(input.headRepository.split("/") as [string, string])) ??
          this.addRepository({ fullName: input.headRepository, fork: true }));
    const pull: PullRequestFixture = {
      number: input.number,
      id: this.nextId(),
      title: input.title ?? "Update the README",
      body: input.body === undefined ? "A pull request body." : input.body,
      state: input.state ?? "open",
      draft: input.draft ?? false,
      user: { login: input.author ?? head.owner.login, id: this.nextId(), type: "User" },
      head: { ref: input.headRef ?? "feature", sha: input.headSha, repository: head },
      base: { ref: input.baseRef ?? base.defaultBranch, sha: input.baseSha, repository: base },
      files: (input.files ?? ["README.md"]).map((f) =>
        typeof f === "string" ? { filename: f, status: "modified" } : f,
      ),
    };
    this.#pulls.push(pull);
    return pull;
  }

  /** Files at `ref` (path → bytes), for tree listings. */
  filesAt(repository: RepositoryFixture, ref: string): Map<string, Buffer> {
    const prefix = `${repository.id}@${ref}:`;
    const files = new Map<string, Buffer>();
    for (const [k, content] of this.#files)
      if (k.startsWith(prefix)) files.set(k.slice(prefix.length), content);
    return files;
  }

  /** A blob any ref of `repository` holds, by its git blob SHA. */
  blob(repository: RepositoryFixture, sha: string): Buffer | undefined {
    const prefix = `${repository.id}@`;
    for (const [k, content] of this.#files) {
      if (k.startsWith(prefix) && gitBlobSha(content) === sha) return content;
    }
    return undefined;
  }

  /** Adds a comment on issue or pull request `issueNumber` (default author: the token's bot). */
  addComment(input: {
    readonly repository?: string;
    readonly issueNumber: number;
    readonly body: string;
    readonly user?: AccountFixture;
  }): StoredComment {
    const repository = this.#require(input.repository ?? this.defaultRepository);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const comment: StoredComment = {
      id: this.nextId(),
      owner: repository.owner.login,
      repo: repository.name,
      issueNumber: input.issueNumber,
      body: input.body,
      user: input.user ?? this.commenter,
      createdAt: now,
      updatedAt: now,
    };
    this.comments.push(comment);
    return comment;
  }

  pullRequest(owner: string, repo: string, number: number): PullRequestFixture | undefined {
    const repository = this.repository(owner, repo);
    return this.#pulls.find((p) => p.base.repository === repository && p.number === number);
  }

  /** Every repository the double knows (the App is installed on all of them). */
  repositories(): readonly RepositoryFixture[] {
    return [...this.#repositories.values()];
  }

  /** Moves pull request `number`'s head to `sha` (a push to its branch); the pull request, or `undefined`. */
  movePullRequestHead(number: number, sha: string, repository?: string): PullRequestFixture | undefined {
    const base = this.#require(repository ?? this.defaultRepository);
    const at = this.#pulls.findIndex((p) => p.base.repository === base && p.number === number);
    if (at === -1) return undefined;
    const pull = this.#pulls[at]!;
    const moved = { ...pull, head: { ...pull.head, sha } };
    this.#pulls[at] = moved;
    return moved;
  }

  pullRequests(): readonly PullRequestFixture[] {
    return this.#pulls;
  }

  /** Adds a check run as if an earlier workflow (or another app) had created it. */
  seedCheckRun(input: SeedCheckRunInput): StoredCheckRun {
    const repository = this.#require(input.repository ?? this.defaultRepository);
    const conclusion = input.conclusion ?? null;
    const status = input.status ?? (conclusion === null ? "in_progress" : "completed");
    const run: StoredCheckRun = {
      id: this.nextId(),
      owner: repository.owner.login,
      repo: repository.name,
      app: input.app ?? this.app,
      checkSuiteId: this.nextId(),
      name: input.name,
      headSha: input.headSha,
      externalId: input.externalId ?? null,
      detailsUrl: null,
      status,
      conclusion,
      startedAt: "2024-01-02T03:04:05Z",
      completedAt: status === "completed" ? "2024-01-02T03:09:05Z" : null,
      output: { title: null, summary: null, text: null, annotationsCount: 0 },
    };
    this.checkRuns.push(run);
    return run;
  }

  /** Adds a workflow artifact as if an earlier workflow run had uploaded it. */
  addArtifact(input: AddArtifactInput): ArtifactFixture {
    const repository = this.#require(input.repository ?? this.defaultRepository);
    const artifact: ArtifactFixture = {
      id: this.nextId(),
      repository,
      name: input.name,
      zip: input.zip,
      sizeInBytes: input.sizeInBytes ?? input.zip.length,
      expired: input.expired ?? false,
      createdAt: input.createdAt ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      digest:
        input.digest === undefined
          ? `sha256:${createHash("sha256").update(input.zip).digest("hex")}`
          : input.digest,
      workflowRun: {
        id: input.workflowRunId ?? this.nextId(),
        headSha: input.headSha,
        headBranch: input.headBranch ?? "feature",
        headRepositoryId: input.fromFork ? this.nextId() : repository.id,
      },
      signature: randomBytes(8).toString("hex"),
    };
    this.#artifacts.push(artifact);
    return artifact;
  }

  artifacts(owner: string, repo: string): readonly ArtifactFixture[] {
    const repository = this.repository(owner, repo);
    return this.#artifacts.filter((a) => a.repository === repository);
  }

  artifact(id: number): ArtifactFixture | undefined {
    return this.#artifacts.find((a) => a.id === id);
  }

  /**
   * Adds a git commit object (default repository), as if it had been pushed: `git/commits` finds it by SHA.
   * @throws when a SHA is not 40 hex (the test's mistake: GitHub's commits always have full SHAs).
   */
  addCommit(input: {
    readonly sha: string;
    readonly tree: string;
    readonly parents: readonly string[];
    readonly message?: string;
    readonly repository?: string;
  }): CommitFixture {
    for (const sha of [input.sha, input.tree, ...input.parents]) {
      if (!/^[0-9a-f]{40}$/.test(sha))
        throw new Error(`github-server: addCommit needs 40-hex SHAs, got ${sha}`);
    }
    const commit: CommitFixture = {
      repository: this.#require(input.repository ?? this.defaultRepository),
      sha: input.sha,
      tree: input.tree,
      parents: input.parents,
      message: input.message ?? "A commit",
    };
    this.#commits.push(commit);
    return commit;
  }

  /** The commit `sha` of `repository`, if added. */
  commit(repository: RepositoryFixture, sha: string): CommitFixture | undefined {
    return this.#commits.find((c) => c.repository === repository && c.sha === sha);
  }

  /** Gives `login` a role on the repository (default: the server's default repository). */
  setCollaborator(login: string, role: CollaboratorRole, repository = this.defaultRepository): void {
    this.#collaborators.set(`${key(repository)}:${login.toLowerCase()}`, role);
  }

  /** `login`'s role on `owner/repo`; `undefined` when they are not a collaborator. */
  collaborator(owner: string, repo: string, login: string): CollaboratorRole | undefined {
    return this.#collaborators.get(`${key(`${owner}/${repo}`)}:${login.toLowerCase()}`);
  }

  checkRun(owner: string, repo: string, id: number): StoredCheckRun | undefined {
    const repository = this.repository(owner, repo);
    if (repository === undefined) return undefined;
    return this.checkRuns.find(
      (r) =>
        r.id === id && key(`${r.owner}/${r.repo}`) === key(`${repository.owner.login}/${repository.name}`),
    );
  }

  #require(fullName: string): RepositoryFixture {
    const repository = this.#repositories.get(key(fullName));
    if (repository === undefined) {
      throw new Error(`github-server: unknown repository ${fullName}; call state.addRepository first`);
    }
    return repository;
  }

  #fileKey(repository: RepositoryFixture, ref: string, path: string): string {
    return `${repository.id}@${ref}:${path.replace(/^\/+/, "")}`;
  }
}
