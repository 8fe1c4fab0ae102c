/**
 * The runner's context, parsed once: the `GITHUB_*` variables and the webhook payload at
 * `GITHUB_EVENT_PATH` (https://docs.github.com/actions/reference/variables-reference). A
 * `pull_request` (or `pull_request_target`) event yields the PR's identity; any other event yields
 * `kind: "other"` with its raw payload. Every problem is collected and reported together, each naming
 * the variable at fault (and, for the payload, the field).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { isDependabot, isForkHead, type RepositoryIdentity } from "./fork.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** The workflow run this process belongs to. */
export interface WorkflowRunContext {
  /** `GITHUB_SERVER_URL`, default `https://github.com` (GHES: the enterprise host). */
  readonly serverUrl: string;
  /** `GITHUB_API_URL`, default `https://api.github.com`. */
  readonly apiUrl: string;
  readonly runId: string;
  readonly runAttempt: number;
  readonly workflow: string | null;
  readonly actor: string | null;
  /** `GITHUB_SHA`: for `pull_request`, GitHub's test merge commit, not the PR head. */
  readonly sha: string | null;
  /** `{serverUrl}/{owner}/{repo}/actions/runs/{runId}` — a `details_url` for the check run. */
  readonly runUrl: string;
}

export interface EventBase {
  /** From `GITHUB_REPOSITORY`: the repository the workflow runs in (the PR's base repository). */
  readonly owner: string;
  readonly repo: string;
  readonly run: WorkflowRunContext;
}

/**
 * A pull request as a run needs it, whichever event named it: read from a `pull_request(_target)` payload
 * here, or from the API for a comment command or a dispatch (`src/github/pull-request-subject.ts`).
 */
export interface PullRequestFields extends EventBase {
  readonly number: number;
  /** The PR head commit: the check run is posted here (SPEC §6). */
  readonly headSha: string;
  readonly headRef: string;
  /** `OWNER/NAME` of the head repository; `null` when the fork was deleted. */
  readonly headRepoFullName: string | null;
  readonly baseSha: string;
  readonly baseRef: string;
  readonly title: string;
  /** `""` when the PR has no description. Untrusted text (SPEC §9). */
  readonly body: string;
  /** The head repository differs from the base (or is gone): read-only token, no secrets (SPEC §10). */
  readonly isFork: boolean;
  /** Opened by Dependabot, or this run was triggered by it: read-only token, Dependabot secrets only. */
  readonly isDependabot: boolean;
  readonly draft: boolean;
  /** The webhook action: `opened`, `synchronize`, `reopened`, … */
  readonly action: string;
  readonly author: { readonly login: string; readonly type: string };
  readonly htmlUrl: string;
}

export interface PullRequestEventContext extends PullRequestFields {
  readonly kind: "pull_request";
}

/**
 * `pull_request_target` runs in the base repository with secrets and a write token: its own kind, so
 * nothing treats it as a plain `pull_request` by accident (SPEC §11 `allow-pull-request-target`).
 */
export interface PullRequestTargetEventContext extends PullRequestFields {
  readonly kind: "pull_request_target";
}

export interface OtherEventContext extends EventBase {
  readonly kind: "other";
  readonly eventName: string;
  /** The webhook payload, or `null` when `GITHUB_EVENT_PATH` is unset. Untrusted; parse before use. */
  readonly payload: unknown;
}

export type EventContext = PullRequestEventContext | PullRequestTargetEventContext | OtherEventContext;

export interface EventContextIssue {
  /** The environment variable at fault, e.g. `GITHUB_REPOSITORY` or `GITHUB_EVENT_PATH`. */
  readonly variable: string;
  readonly message: string;
}

export class EventContextError extends Error {
  override readonly name = "EventContextError";
  readonly issues: readonly EventContextIssue[];

  constructor(issues: readonly EventContextIssue[]) {
    super(
      `Cannot read the workflow run's context:\n${issues.map((i) => `- ${i.variable}: ${i.message}`).join("\n")}`,
    );
    this.issues = issues;
  }
}

const sha = z.string().regex(/^[0-9a-f]{40}$/, "expected a 40-hex commit SHA");
// `id` is kept when the payload has it: the fork test prefers ids (fork.ts `isForkHead`).
const repoRef = z.object({
  id: z.number().int().optional(),
  full_name: z.string().regex(/^[^/\s]+\/[^/\s]+$/, "expected OWNER/NAME"),
});

/** The fields of a `pull_request` webhook payload this product reads; the rest is ignored. */
const pullRequestPayload = z.object({
  action: z.string().min(1),
  pull_request: z.object({
    number: z.number().int().positive(),
    html_url: z.string(),
    title: z.string(),
    body: z.string().nullable().optional(),
    // Absent on servers that predate draft pull requests.
    draft: z.boolean().optional(),
    user: z.object({ login: z.string().min(1), type: z.string() }),
    head: z.object({ sha, ref: z.string().min(1), repo: repoRef.nullable() }),
    base: z.object({ sha, ref: z.string().min(1), repo: repoRef }),
  }),
  repository: repoRef,
});

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(the payload)" : path.map(String).join(".");
}

function readVariable(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function readPayload(path: string, issues: EventContextIssue[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    issues.push({ variable: "GITHUB_EVENT_PATH", message: `cannot read ${path} (${code})` });
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    issues.push({
      variable: "GITHUB_EVENT_PATH",
      message: `${path} is not JSON (${error instanceof Error ? error.message : String(error)})`,
    });
    return undefined;
  }
}

/**
 * Reads the runner's context from `env` (normally `process.env`).
 * @throws {EventContextError} listing every missing or malformed variable and payload field.
 */
export function readEventContext(env: Env): EventContext {
  const issues: EventContextIssue[] = [];
  const require = (name: string): string => {
    const value = readVariable(env, name);
    if (value === undefined)
      issues.push({ variable: name, message: "not set (is this running in GitHub Actions?)" });
    return value ?? "";
  };

  const eventName = require("GITHUB_EVENT_NAME");
  const repository = require("GITHUB_REPOSITORY");
  const runId = require("GITHUB_RUN_ID");
  const [owner = "", repo = "", extra] = repository.split("/");
  if (repository !== "" && (owner === "" || repo === "" || extra !== undefined)) {
    issues.push({
      variable: "GITHUB_REPOSITORY",
      message: `expected OWNER/NAME, got ${JSON.stringify(repository)}`,
    });
  }
  if (runId !== "" && !/^\d+$/.test(runId)) {
    issues.push({ variable: "GITHUB_RUN_ID", message: `expected a number, got ${JSON.stringify(runId)}` });
  }
  const attemptText = readVariable(env, "GITHUB_RUN_ATTEMPT") ?? "1";
  const runAttempt = Number(attemptText);
  if (!Number.isInteger(runAttempt) || runAttempt < 1) {
    issues.push({
      variable: "GITHUB_RUN_ATTEMPT",
      message: `expected a positive number, got ${JSON.stringify(attemptText)}`,
    });
  }
  const serverUrl = (readVariable(env, "GITHUB_SERVER_URL") ?? "https://github.com").replace(/\/+$/, "");
  const apiUrl = (readVariable(env, "GITHUB_API_URL") ?? "https://api.github.com").replace(/\/+$/, "");
  for (const [variable, value] of [
    ["GITHUB_SERVER_URL", serverUrl],
    ["GITHUB_API_URL", apiUrl],
  ] as const) {
    if (!URL.canParse(value))
      issues.push({ variable, message: `expected a URL, got ${JSON.stringify(value)}` });
  }

  const eventPath = readVariable(env, "GITHUB_EVENT_PATH");
  const isPullRequest = eventName === "pull_request" || eventName === "pull_request_target";
  if (eventPath === undefined && isPullRequest) {
    issues.push({
      variable: "GITHUB_EVENT_PATH",
      message: `not set; a ${eventName} event needs its webhook payload`,
    });
  }
  const payload = eventPath === undefined ? null : readPayload(eventPath, issues);

  const actor = readVariable(env, "GITHUB_ACTOR") ?? null;
  const run: WorkflowRunContext = {
    serverUrl,
    apiUrl,
    runId,
    runAttempt,
    workflow: readVariable(env, "GITHUB_WORKFLOW") ?? null,
    actor,
    sha: readVariable(env, "GITHUB_SHA") ?? null,
    runUrl: `${serverUrl}/${owner}/${repo}/actions/runs/${runId}`,
  };

  if (!isPullRequest) {
    if (issues.length > 0) throw new EventContextError(issues);
    return { kind: "other", eventName, owner, repo, run, payload };
  }
  if (payload === undefined || payload === null) throw new EventContextError(issues);

  const parsed = pullRequestPayload.safeParse(payload);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.push({
        variable: "GITHUB_EVENT_PATH",
        message: `${eventPath}: ${fieldPath(issue.path)}: ${issue.message}`,
      });
    }
    throw new EventContextError(issues);
  }
  const { action, pull_request: pr, repository: payloadRepository } = parsed.data;
  if (repository !== "" && payloadRepository.full_name.toLowerCase() !== repository.toLowerCase()) {
    issues.push({
      variable: "GITHUB_REPOSITORY",
      message: `${JSON.stringify(repository)} differs from the payload's repository ${JSON.stringify(payloadRepository.full_name)} (GITHUB_EVENT_PATH)`,
    });
  }
  if (issues.length > 0) throw new EventContextError(issues);

  return {
    kind: eventName === "pull_request" ? "pull_request" : "pull_request_target",
    ...pullRequestFields(pr, { base: { owner, repo, run }, action, actor }),
  };
}

/** What of a pull request the fields are read from: a `pull_request` payload's, or `GET …/pulls/{n}`'s. */
export interface PullRequestShape {
  readonly number: number;
  readonly title: string;
  readonly body?: string | null;
  readonly draft?: boolean;
  readonly html_url: string;
  readonly head: {
    readonly sha: string;
    readonly ref: string;
    readonly repo?: RepositoryIdentity | null;
  };
  readonly base: {
    readonly sha: string;
    readonly ref: string;
    readonly repo: RepositoryIdentity;
  };
  readonly user?: { readonly login: string; readonly type: string } | null;
}

/**
 * The {@link PullRequestFields} of a pull request, however it was read (SPEC §10): the fork and Dependabot
 * tests (`fork.ts`) on its head repository, its author and — for an event — the workflow's actor.
 */
export function pullRequestFields(
  pr: PullRequestShape,
  o: { readonly base: EventBase; readonly action: string; readonly actor?: string | null },
): PullRequestFields {
  const headRepoFullName = pr.head.repo?.full_name ?? null;
  const login = pr.user?.login ?? "";
  return {
    ...o.base,
    number: pr.number,
    headSha: pr.head.sha,
    headRef: pr.head.ref,
    headRepoFullName,
    baseSha: pr.base.sha,
    baseRef: pr.base.ref,
    title: pr.title,
    body: pr.body ?? "",
    isFork: isForkHead(pr.head.repo, pr.base.repo),
    isDependabot: isDependabot(login, o.actor),
    draft: pr.draft ?? false,
    action: o.action,
    author: { login, type: pr.user?.type ?? "User" },
    htmlUrl: pr.html_url,
  };
}
