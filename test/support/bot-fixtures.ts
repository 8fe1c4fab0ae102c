/**
 * Fixtures for the bot (no test runner inside, so `bench/bot-load.mjs` bundles them too). The bot under test, with real parts: `startBot` (the real HTTP server on loopback, `@octokit/app` and
 * `@octokit/webhooks` inside) talking only to the local GitHub server, which plays GitHub both ways —
 * it authenticates the App (its JWT checked against the test App's public key, installation tokens issued)
 * and it sends the deliveries, signed with the webhook secret, and keeps their log.
 *
 * Payloads are GitHub's published examples (`@octokit/webhooks-examples`) with the fields each test needs
 * put in: the test repository, the installation, head SHAs, run ids.
 */
import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import { SERVER_ERROR_RETRIES } from "../../src/github/octokit.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { renderLedgerJson } from "../../src/ledger/render-json.js";
import type { AppFixture } from "./github-server/fixtures.js";
import { type FaultSpec, type GitHubServer, startGitHubServer } from "./github-server/index.js";
import { buildZip } from "./zip-builder.js";

/** The test App (its check runs are this App's). */
export const BOT_APP: AppFixture = {
  id: 424_242,
  slug: "evidence-gate",
  name: "evidence-gate",
  owner: { login: "evidence-gate", id: 77_000_001, type: "Organization" },
};
export const INSTALLATION_ID = 31_337;
export const WEBHOOK_SECRET = "whsec-test-0123456789abcdefghij";
export const BOT_REPOSITORY = "octo-org/widgets";
export const REPOSITORY_ID = 7_000_001;
export const FORK = "forker/widgets";
export const WORKFLOW_FILE = "evidence-gate.yml";
export const RESUME_WORKFLOW_FILE = "evidence-gate-resume.yml";
/** The resume workflow's inputs (README's, plus the approver the bot passes). */
export const RESUME_INPUTS = ["run-id", "sha", "approve-gate", "reject-gate", "retry-failed", "approver"];

let keys: { readonly privateKey: string; readonly publicKey: string } | undefined;

/** The test App's key pair (2048-bit RSA, made once per test file). */
export function appKeys(): { readonly privateKey: string; readonly publicKey: string } {
  keys ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return keys;
}

/** The bot's environment for `github` (any variable may be overridden or removed with `undefined`). */
export function botEnv(
  github: Pick<GitHubServer, "url">,
  extra: Readonly<Record<string, string | undefined>> = {},
): Record<string, string | undefined> {
  return {
    APP_ID: String(BOT_APP.id),
    PRIVATE_KEY: appKeys().privateKey,
    WEBHOOK_SECRET,
    PORT: "0",
    HOST: "127.0.0.1",
    GITHUB_API_URL: github.url,
    EVIDENCE_GATE_BACKOFF_SECOND_MS: "1",
    ...extra,
  };
}

/** A GitHub server that authenticates the test App, its repository and resume workflow declared. */
export async function startAppGitHubServer(
  o: { readonly otherTokens?: readonly string[] } = {},
): Promise<GitHubServer> {
  const github = await startGitHubServer({
    repository: BOT_REPOSITORY,
    app: BOT_APP,
    appAuth: {
      appId: BOT_APP.id,
      publicKey: appKeys().publicKey,
      installationId: INSTALLATION_ID,
      ...(o.otherTokens === undefined ? {} : { otherTokens: o.otherTokens }),
    },
  });
  github.state.addWorkflow({
    file: RESUME_WORKFLOW_FILE,
    inputs: RESUME_INPUTS.map((name) => ({ name, required: name === "run-id" || name === "sha" })),
  });
  return github;
}

type Json = Record<string, unknown>;

function example(name: string, action: string, pick: (e: Json) => boolean = () => true): Json {
  const all = createRequire(import.meta.url)("@octokit/webhooks-examples") as {
    name: string;
    examples: Json[];
  }[];
  const found = all.find((e) => e.name === name)?.examples.find((e) => e.action === action && pick(e));
  if (found === undefined) throw new Error(`no ${name}.${action} example`);
  return structuredClone(found);
}

/** The test repository as a payload's `repository`. */
function repositoryJson(base: Json | undefined, fullName = BOT_REPOSITORY, id = REPOSITORY_ID): Json {
  const [owner, name] = fullName.split("/") as [string, string];
  return {
    ...(base ?? {}),
    id,
    name,
    full_name: fullName,
    owner: { ...((base?.owner as Json | undefined) ?? {}), login: owner },
    html_url: `https://github.com/${fullName}`,
    default_branch: "main",
  };
}

const installation = { id: INSTALLATION_ID, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMzEzMzc=" };

/** `pull_request` (GitHub's example) for pull request `number` with head `headSha`. */
export function pullRequestPayload(o: {
  readonly action?: string;
  readonly number?: number;
  readonly headSha: string;
  readonly fork?: boolean;
}): Json {
  const payload = example("pull_request", "opened", (e) => e.installation !== undefined);
  const pr = payload.pull_request as Json & { head: Json; base: Json };
  const number = o.number ?? 42;
  payload.action = o.action ?? "opened";
  payload.number = number;
  pr.number = number;
  pr.head = {
    ...pr.head,
    sha: o.headSha,
    repo: repositoryJson(
      pr.head.repo as Json,
      o.fork ? FORK : BOT_REPOSITORY,
      o.fork ? 7_000_002 : REPOSITORY_ID,
    ),
  };
  pr.base = { ...pr.base, repo: repositoryJson(pr.base.repo as Json) };
  payload.repository = repositoryJson(payload.repository as Json);
  payload.installation = installation;
  return payload;
}

export interface WorkflowRunSpec {
  readonly action: "requested" | "in_progress" | "completed";
  readonly runId: number;
  readonly headSha: string;
  readonly attempt?: number;
  readonly fork?: boolean;
  readonly conclusion?: string | null;
  readonly event?: string;
  readonly path?: string;
  /** Same-repository pull requests are linked to the run; a fork's never are. */
  readonly pullRequest?: number;
  /** `display_title` (a workflow's `run-name`); default the example's. */
  readonly displayTitle?: string;
  /** `head_branch`; default `fix-sum`. */
  readonly headBranch?: string;
}

/** `workflow_run` (GitHub's example) for one run of the evidence-gate workflow. */
export function workflowRunPayload(spec: WorkflowRunSpec): Json {
  const payload = example("workflow_run", spec.action === "completed" ? "completed" : "requested", (e) =>
    Boolean((e.workflow_run as Json).actor),
  );
  const wr = payload.workflow_run as Json;
  const base = repositoryJson(wr.repository as Json);
  const fork = spec.fork ?? true;
  const head = fork ? repositoryJson(wr.head_repository as Json, FORK, 7_000_002) : base;
  Object.assign(wr, {
    id: spec.runId,
    run_attempt: spec.attempt ?? 1,
    name: "evidence-gate",
    path: spec.path ?? `.github/workflows/${WORKFLOW_FILE}`,
    event: spec.event ?? "pull_request",
    status:
      spec.action === "completed" ? "completed" : spec.action === "requested" ? "queued" : "in_progress",
    conclusion: spec.action === "completed" ? (spec.conclusion ?? "success") : null,
    head_sha: spec.headSha,
    head_branch: spec.headBranch ?? "fix-sum",
    ...(spec.displayTitle === undefined ? {} : { display_title: spec.displayTitle }),
    html_url: `https://github.com/${BOT_REPOSITORY}/actions/runs/${spec.runId}`,
    repository: base,
    head_repository: head,
    pull_requests:
      fork || spec.pullRequest === undefined
        ? []
        : [
            {
              url: "",
              id: 1,
              number: spec.pullRequest,
              head: {
                ref: "fix-sum",
                sha: spec.headSha,
                repo: { id: REPOSITORY_ID, url: "", name: "widgets" },
              },
              base: {
                ref: "main",
                sha: "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
                repo: { id: REPOSITORY_ID, url: "", name: "widgets" },
              },
            },
          ],
    actor: { ...(wr.actor as Json), login: "forker" },
    triggering_actor: { ...(wr.triggering_actor as Json), login: "forker" },
  });
  payload.action = spec.action;
  payload.repository = base;
  payload.installation = installation;
  return payload;
}

/** `check_run` (GitHub's example) for one of the App's check runs as the server stores it. */
export function checkRunPayload(o: {
  readonly action: "rerequested" | "requested_action";
  readonly checkRunId: number;
  readonly headSha: string;
  readonly name?: string;
  readonly externalId?: string | null;
  readonly sender: string;
  readonly identifier?: string;
  readonly appId?: number;
}): Json {
  const payload = example("check_run", o.action);
  const cr = payload.check_run as Json;
  Object.assign(cr, {
    id: o.checkRunId,
    name: o.name ?? "evidence-gate",
    head_sha: o.headSha,
    external_id: o.externalId ?? null,
    app: { ...(cr.app as Json), id: o.appId ?? BOT_APP.id, slug: BOT_APP.slug },
  });
  if (o.identifier !== undefined) payload.requested_action = { identifier: o.identifier };
  payload.repository = repositoryJson(payload.repository as Json);
  payload.sender = { ...(payload.sender as Json), login: o.sender, type: "User" };
  payload.installation = installation;
  return payload;
}

/** `check_suite.rerequested` (GitHub's example) for the App's suite on `headSha`. */
export function checkSuitePayload(o: {
  readonly headSha: string;
  readonly sender: string;
  readonly appId?: number;
}): Json {
  const payload = example("check_suite", "rerequested");
  const cs = payload.check_suite as Json;
  Object.assign(cs, { head_sha: o.headSha, app: { ...(cs.app as Json), id: o.appId ?? BOT_APP.id } });
  payload.repository = repositoryJson(payload.repository as Json);
  payload.sender = { ...(payload.sender as Json), login: o.sender, type: "User" };
  payload.installation = installation;
  return payload;
}

/** A ledger artifact zip as the action uploads it (`ledger.json` at the root); a string is written as is. */
export function ledgerZip(ledger: Ledger | string): Buffer {
  const text = typeof ledger === "string" ? ledger : renderLedgerJson(ledger);
  return buildZip([{ name: "ledger.json", content: text, deflate: true }]);
}

/** The base SHA of the pull requests {@link uploadLedger} opens (the one `workflowRunPayload` links). */
export const BASE_SHA = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";

/**
 * Puts `ledger` among workflow run `runId`'s artifacts as `evidence-gate-ledger` (a fork's run by default) —
 * and, unless a pull request with head `headSha` is there already or `pullRequest` is `false`, opens the
 * pull request that run was for (#42, head branch `fix-sum` of the fork or of the repository, changing
 * `changedFiles`: default `src/sum.js`), which the App reads to check the run's provenance. A pull request of
 * that number already there is left as it is (a resume run's ledger is about the default branch's head; a
 * test that pushes to the branch moves the head itself, `state.movePullRequestHead`).
 */
export function uploadLedger(
  github: GitHubServer,
  o: {
    readonly ledger: Ledger | string;
    readonly runId: number;
    readonly headSha: string;
    readonly fork?: boolean;
    readonly pullRequest?: number | false;
    readonly changedFiles?: readonly string[];
  },
) {
  const number = o.pullRequest === false ? undefined : (o.pullRequest ?? 42);
  const opened = github.state.pullRequests().some((p) => p.head.sha === o.headSha || p.number === number);
  if (number !== undefined && !opened) {
    github.state.addPullRequest({
      number,
      headSha: o.headSha,
      headRef: "fix-sum",
      ...((o.fork ?? true) ? { headRepository: FORK } : {}),
      baseSha: BASE_SHA,
      files: o.changedFiles ?? ["src/sum.js"],
    });
  }
  return github.state.addArtifact({
    name: "evidence-gate-ledger",
    zip: ledgerZip(o.ledger),
    headSha: o.headSha,
    fromFork: o.fork ?? true,
    workflowRunId: o.runId,
  });
}

/**
 * A `failNext` fault: GitHub's secondary rate limit (403, its message, `Retry-After` in seconds) on the
 * matching request — what plugin-throttling waits out (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api).
 */
export function secondaryRateLimit(o: {
  readonly method: string;
  readonly pathPattern: string;
  readonly retryAfterS: number;
  readonly bodyMatches?: (body: unknown) => boolean;
}): FaultSpec {
  return {
    method: o.method,
    pathPattern: o.pathPattern,
    status: 403,
    headers: { "retry-after": String(o.retryAfterS) },
    body: {
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
    },
    ...(o.bodyMatches === undefined ? {} : { bodyMatches: o.bodyMatches }),
  };
}

/** The artifact list of a workflow run answering 502 past Octokit's retries: one transient outage. */
export function artifactsOutage(): FaultSpec {
  return {
    method: "GET",
    pathPattern: "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
    status: 502,
    times: SERVER_ERROR_RETRIES + 1,
  };
}
