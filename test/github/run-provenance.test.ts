/**
 * `checkRunProvenance` (issue 22 item 1) against the local GitHub double (every request and response checked
 * against GitHub's OpenAPI description): which pull request a `workflow_run` was for, what it changes, and
 * which files of the base's workflow definition those are — and "unknown", never a pass, whenever it cannot
 * be told.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOctokit } from "../../src/github/octokit.js";
import { checkRunProvenance, localUses, type RunProvenance } from "../../src/github/run-provenance.js";
import type { WorkflowRunEvent } from "../../src/github/workflow-run-event.js";
import { type GitHubServer, startGitHubServer, TEST_TIMING } from "../support/github-server/index.js";

const REPOSITORY = "octo-org/widgets";
const FORK = "forker/widgets";
const HEAD = "0123456789abcdef0123456789abcdef01234567";
const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
const WORKFLOW = ".github/workflows/evidence-gate.yml";

/** The base's workflow: a local action, a local reusable workflow (which uses another local action), a remote action. */
const BASE_WORKFLOW = `on: pull_request
jobs:
  setup:
    uses: ./.github/workflows/setup.yml
  gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - uses: ./.github/actions/prepare/
      - uses: evidence-gate/evidence-gate@v0
`;
const REUSABLE = `on: workflow_call
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - uses: ./tools/cache-action
`;

let server: GitHubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function event(o: Partial<WorkflowRunEvent> = {}): WorkflowRunEvent {
  return {
    action: "completed",
    runId: 30_433_642,
    runAttempt: 1,
    event: "pull_request",
    conclusion: "success",
    headSha: HEAD,
    headBranch: "fix-sum",
    headRepository: FORK,
    repository: REPOSITORY,
    fromFork: true,
    pullRequests: [],
    actor: "forker",
    triggeringActor: "forker",
    htmlUrl: null,
    workflowName: "evidence-gate",
    workflowPath: WORKFLOW,
    displayTitle: null,
    ...o,
  };
}

async function check(
  files: readonly (string | { filename: string; status: "renamed"; previousFilename: string })[],
  o: { readonly upstream?: Partial<WorkflowRunEvent>; readonly fork?: boolean; readonly seed?: boolean } = {},
): Promise<{ found: RunProvenance; github: GitHubServer }> {
  server = await startGitHubServer({ repository: REPOSITORY });
  const github = server;
  github.state.addFile({ ref: BASE_SHA, path: WORKFLOW, content: BASE_WORKFLOW });
  github.state.addFile({ ref: BASE_SHA, path: ".github/workflows/setup.yml", content: REUSABLE });
  github.state.addFile({
    ref: BASE_SHA,
    path: ".github/actions/prepare/action.yml",
    content: "runs:\n  using: composite\n  steps:\n    - uses: ./.github/actions/inner\n",
  });
  if (o.seed !== false) {
    github.state.addPullRequest({
      number: 7,
      headSha: HEAD,
      headRef: "fix-sum",
      ...(o.fork === false ? {} : { headRepository: FORK }),
      baseSha: BASE_SHA,
      files,
    });
  }
  const octokit = createOctokit({ token: "ghs_test", baseUrl: github.url, timing: TEST_TIMING });
  const found = await checkRunProvenance({
    octokit,
    owner: "octo-org",
    repo: "widgets",
    upstream: event(o.upstream),
  });
  return { found, github };
}

describe("checkRunProvenance: was the base branch's workflow definition what ran?", () => {
  it("a fork's pull request that changes only its code: base (found by head owner and branch, its files listed)", async () => {
    const { found, github } = await check(["src/sum.js", ".github/workflows/other.yml", "docs/a.md"]);
    expect(found).toEqual({ kind: "base", pullRequests: [7] });
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/pulls")[0]).toMatchObject({
      query: { head: "forker:fix-sum", state: "open" },
    });
    // The base's copy was read at the pull request's base SHA, and the local files it names after it.
    const read = github.callsTo("GET", "/repos/{owner}/{repo}/contents/{path}").map((c) => c.path);
    expect(read).toContain(`/repos/${REPOSITORY}/contents/.github/workflows/setup.yml`);
    expect(read).toContain(`/repos/${REPOSITORY}/contents/.github/actions/prepare/action.yml`);
    github.assertNoViolations();
  });

  it.each([
    [WORKFLOW, "the workflow file that ran"],
    [".github/evidence-gate.yml", "the policy file"],
    [".github/actions/prepare/run.sh", "the local action ./.github/actions/prepare it uses"],
    [".github/workflows/setup.yml", "the reusable workflow ./.github/workflows/setup.yml it uses"],
    ["tools/cache-action/index.js", "the local action ./tools/cache-action it uses"],
    [".github/actions/inner/action.yml", "the local action ./.github/actions/inner it uses"],
  ])("a pull request that changes %s: rewritten, naming it as %s", async (path, role) => {
    const { found, github } = await check(["src/sum.js", path]);
    expect(found).toEqual({ kind: "rewritten", pullRequest: 7, files: [{ path, role }] });
    github.assertNoViolations();
  });

  it("a rename away from the workflow file counts (its old name is the workflow's)", async () => {
    const { found } = await check([{ filename: "old.yml", status: "renamed", previousFilename: WORKFLOW }]);
    expect(found).toMatchObject({ kind: "rewritten", files: [{ path: WORKFLOW }] });
  });

  it("a same-repository run's linked pull request is read by number", async () => {
    const { found, github } = await check([WORKFLOW], {
      fork: false,
      upstream: { fromFork: false, headRepository: REPOSITORY, pullRequests: [7] },
    });
    expect(found).toMatchObject({ kind: "rewritten", pullRequest: 7 });
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")).toHaveLength(1);
  });

  it("3000 listed files (GitHub's cap) is unknown, never a pass", async () => {
    const many = Array.from({ length: 3001 }, (_, i) => `src/f${i}.js`);
    const { found, github } = await check(many);
    expect(found).toMatchObject({ kind: "unknown", apiStatus: null });
    expect((found as { reason: string }).reason).toContain("GitHub lists at most 3000");
    expect(github.callsTo("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files")).toHaveLength(30);
    github.assertNoViolations();
  });

  it("no open pull request with the run's head (closed, or its head moved on) is unknown", async () => {
    const { found } = await check([], { seed: false });
    expect(found).toMatchObject({ kind: "unknown" });
    expect((found as { reason: string }).reason).toContain(
      `no open pull request of octo-org/widgets has head ${FORK}:fix-sum at ${HEAD}`,
    );
    const moved = await check(["src/sum.js"], { upstream: { headSha: "f".repeat(40) } });
    expect(moved.found).toMatchObject({ kind: "unknown" });
  });

  it("a refused listing is unknown with GitHub's status (the token lacks pull-requests: read)", async () => {
    server = await startGitHubServer({ repository: REPOSITORY });
    server.failNext({ pathPattern: "/repos/{owner}/{repo}/pulls", status: 403 });
    const octokit = createOctokit({ token: "ghs_test", baseUrl: server.url, timing: TEST_TIMING });
    const found = await checkRunProvenance({
      octokit,
      owner: "octo-org",
      repo: "widgets",
      upstream: event(),
    });
    expect(found).toMatchObject({ kind: "unknown", apiStatus: 403 });
  });
});

describe("localUses", () => {
  it("finds ./ paths anywhere, normalised; a path out of the repository or a file that is not YAML is refused", () => {
    expect(localUses(BASE_WORKFLOW, WORKFLOW)).toEqual([
      { path: ".github/workflows/setup.yml", kind: "workflow" },
      { path: ".github/actions/prepare", kind: "action" },
    ]);
    expect(localUses("steps:\n  - uses: ./\n", "a.yml")).toEqual([{ path: ".", kind: "action" }]);
    expect(() => localUses("steps:\n  - uses: ./../x\n", "a.yml")).toThrow(/outside the repository/);
    expect(() => localUses("a: [\n", "a.yml")).toThrow(/is not YAML/);
  });
});
