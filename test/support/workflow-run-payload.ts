/**
 * A `workflow_run` (completed) payload as GitHub sends it for a (fork's) pull request run: GitHub's example
 * (`@octokit/webhooks-examples`) with the fields of a fork's pull request run put in — `event: pull_request`,
 * a head repository that is not the repository, an empty `pull_requests` list (what GitHub sends for a
 * fork). What `mode: report` reads; shared by its end-to-end tests and its in-process ones.
 */
import { createRequire } from "node:module";
import { DEFAULT_REPOSITORY, type GitHubServer } from "./github-server/index.js";

/** `pull_request.base.sha` of the event fixture. */
export const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
/** The fork the pull request comes from. */
export const FORK = "forker/widgets";
/** The id of the workflow run the payload reports. */
export const WORKFLOW_RUN_ID = 30_433_642;

const TEST_REPOSITORY = DEFAULT_REPOSITORY;

export interface WorkflowRunSpec {
  readonly headSha: string;
  readonly fork?: boolean;
  readonly action?: string;
  readonly event?: string;
  readonly conclusion?: string;
  readonly actor?: string;
}

/** GitHub's `workflow_run` example payload, made the completed run of a (fork's) pull request. */
export function workflowRunPayload(spec: WorkflowRunSpec): Record<string, unknown> {
  const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as {
    name: string;
    examples: Record<string, unknown>[];
  }[];
  const example = examples
    .find((e) => e.name === "workflow_run")!
    .examples.find(
      (e) =>
        e.action === "completed" &&
        (e.workflow_run as { status: string; actor?: unknown }).actor !== undefined,
    )!;
  const payload = structuredClone(example) as Record<string, unknown> & {
    workflow_run: Record<string, unknown> & {
      repository: Record<string, unknown>;
      head_repository: Record<string, unknown>;
      actor: Record<string, unknown>;
      triggering_actor: Record<string, unknown>;
    };
    repository: Record<string, unknown>;
  };
  const [owner, name] = TEST_REPOSITORY.split("/");
  const base = { ...payload.workflow_run.repository, id: 7_000_001, name, full_name: TEST_REPOSITORY };
  const fork = spec.fork ?? true;
  const [forkOwner, forkName] = FORK.split("/");
  const wr = payload.workflow_run;
  Object.assign(wr, {
    id: WORKFLOW_RUN_ID,
    name: "evidence-gate (pull request)",
    path: ".github/workflows/evidence-gate-pr.yml",
    event: spec.event ?? "pull_request",
    status: "completed",
    conclusion: spec.conclusion ?? "success",
    head_sha: spec.headSha,
    head_branch: "fix-sum",
    html_url: `https://github.com/${TEST_REPOSITORY}/actions/runs/${WORKFLOW_RUN_ID}`,
    repository: base,
    head_repository: fork
      ? { ...wr.head_repository, id: 7_000_002, name: forkName, full_name: FORK, owner: { login: forkOwner } }
      : base,
    // GitHub links no pull request to a fork's run.
    pull_requests: fork
      ? []
      : [
          {
            url: "",
            id: 1,
            number: 42,
            head: { ref: "fix-sum", sha: spec.headSha, repo: { id: 7_000_001, url: "", name } },
            base: { ref: "main", sha: BASE_SHA, repo: { id: 7_000_001, url: "", name } },
          },
        ],
    actor: { ...wr.actor, login: spec.actor ?? forkOwner },
    triggering_actor: { ...wr.triggering_actor, login: spec.actor ?? forkOwner },
  });
  payload.action = spec.action ?? "completed";
  payload.repository = {
    ...payload.repository,
    id: 7_000_001,
    name,
    full_name: TEST_REPOSITORY,
    owner: { login: owner },
  };
  return payload;
}

/** The upstream workflow file (`workflow_run.path` of {@link workflowRunPayload}). */
export const PR_WORKFLOW = ".github/workflows/evidence-gate-pr.yml";

/**
 * Puts on the GitHub server the fork's open pull request #42 whose head is `headSha` (GitHub has one for
 * every fork `pull_request` run; the report finds it by head owner and branch), changing `files`, and the
 * base's copy of the workflow at {@link BASE_SHA}, which uses the local action `./.github/actions/setup`.
 */
export function openForkPullRequest(
  github: GitHubServer,
  headSha: string,
  files: readonly string[] = ["src/sum.js"],
) {
  github.state.addFile({
    ref: BASE_SHA,
    path: PR_WORKFLOW,
    content: [
      "on: pull_request",
      "jobs:",
      "  gate:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - uses: actions/checkout@v5",
      "      - uses: ./.github/actions/setup",
      "      - uses: evidence-gate/evidence-gate@v0",
      "",
    ].join("\n"),
  });
  return github.state.addPullRequest({
    number: 42,
    headSha,
    headRef: "fix-sum",
    headRepository: FORK,
    baseSha: BASE_SHA,
    files,
  });
}
