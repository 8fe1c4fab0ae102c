/**
 * A check-run API call GitHub refused or never answered, as an error that carries its evidence (SPEC §6:
 * "A write the API refuses (403 on a fork, missing `checks: write`) is an error the user sees, never a
 * silent pass"): the HTTP status, GitHub's own message, the request that was sent (never its headers:
 * they hold the token), and a message saying what to change when the status says it.
 */

/** Which {@link CheckRunClient} call failed. */
export type CheckRunOperation = "create" | "update" | "restart" | "complete" | "annotate" | "find" | "get";

/** The request a failed write sent (never its headers: they hold the token). */
export interface FailedCheckRunRequest {
  readonly operation: CheckRunOperation;
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
}

/** A check-run API call GitHub refused or never answered. */
export class CheckRunWriteError extends Error {
  override readonly name = "CheckRunWriteError";
  /** HTTP status; `undefined` when no response arrived (network failure). */
  readonly status: number | undefined;
  readonly request: FailedCheckRunRequest;
  /** GitHub's own `message` (and validation `errors`), when it sent one. */
  readonly githubMessage: string | undefined;

  constructor(init: {
    message: string;
    status: number | undefined;
    request: FailedCheckRunRequest;
    githubMessage: string | undefined;
    cause: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.status = init.status;
    this.request = init.request;
    this.githubMessage = init.githubMessage;
  }

  /**
   * True when GitHub refused the token — 401 (bad credentials), 403 or 404 (no `checks: write`, or no
   * access to the repository: GitHub answers 404 for a repository the token may not see) — but not a
   * rate limit (a 403 or 429 saying so: retrying later is the fix). What the operator must change, not a
   * failed run: the CLI exits 64 on it before anything runs (SPEC §10), as the action's other token
   * refusals end `usage-error`.
   */
  get tokenRefused(): boolean {
    const status = this.status;
    if (status !== 401 && status !== 403 && status !== 404) return false;
    return !RATE_LIMITED.test(this.githubMessage ?? "");
  }
}

/** GitHub's words for a rate-limited request (a 403 or 429 whose message says so). */
const RATE_LIMITED = /rate limit/i;

/** One failed call, as {@link checkRunWriteError} reads it. */
export interface FailedCall {
  readonly operation: CheckRunOperation;
  /** What was being done, as the message's opening: `Could not create check run "x" on abc1234 in o/r`. */
  readonly what: string;
  /** Octokit's route, `METHOD /path`, named when the error does not carry its own request. */
  readonly route: string;
  readonly body: unknown;
  /** What the Octokit call threw. */
  readonly cause: unknown;
  /** Who holds the token, so a 403/404 names the fix that works there (default `action`). */
  readonly surface?: CheckRunSurface;
}

/**
 * Where the check-run client runs, for the fix a 403/404 names: the action (the job's `permissions:`), or
 * the CLI (the token in `GITHUB_TOKEN`/`GH_TOKEN`, which has no workflow `permissions:` to edit).
 */
export type CheckRunSurface = "action" | "cli";

interface RequestErrorLike {
  readonly status?: unknown;
  readonly response?: { readonly data?: unknown; readonly headers?: Readonly<Record<string, unknown>> };
  readonly message?: unknown;
  readonly request?: { readonly method?: string; readonly url?: string };
}

/**
 * The {@link CheckRunWriteError} for a call that threw: `status` only when a response arrived, GitHub's
 * message (or the thrown error's), and the request as the error recorded it (else as `route` names it).
 */
export function checkRunWriteError(call: FailedCall): CheckRunWriteError {
  const error = call.cause as RequestErrorLike | null;
  const hasResponse = error?.response !== undefined;
  const status = typeof error?.status === "number" && hasResponse ? error.status : undefined;
  const notTheApi = hasResponse ? notGitHubJson(error?.response) : null;
  const githubMessage =
    notTheApi !== null
      ? undefined
      : (githubMessageOf(call.cause) ?? (typeof error?.message === "string" ? error.message : undefined));
  const [method = "", path = ""] = call.route.split(" ");
  const url = error?.request?.url;
  return new CheckRunWriteError({
    message:
      notTheApi !== null
        ? `${call.what}: ${originOf(url) ?? "the server"} answered ${status ?? "without a status"} with ${notTheApi}, not the GitHub API's JSON. ${API_ROOT_HINT}`
        : describeFailure(call, status, githubMessage, hasResponse, url),
    status,
    request: {
      operation: call.operation,
      method: error?.request?.method ?? method,
      url: error?.request?.url ?? path,
      body: call.body,
    },
    githubMessage,
    cause: call.cause,
  });
}

function githubMessageOf(error: unknown): string | undefined {
  const data = (error as RequestErrorLike | null)?.response?.data;
  if (typeof data !== "object" || data === null) return undefined;
  const { message, errors } = data as { message?: unknown; errors?: unknown };
  if (typeof message !== "string") return undefined;
  if (!Array.isArray(errors) || errors.length === 0) return message;
  const details = errors.map((e) =>
    typeof e === "object" && e !== null && "message" in e ? String(e.message) : JSON.stringify(e),
  );
  return `${message}: ${details.join("; ")}`;
}

function describeFailure(
  call: Pick<FailedCall, "what" | "operation" | "surface">,
  status: number | undefined,
  githubMessage: string | undefined,
  hasResponse: boolean,
  url: string | undefined,
): string {
  const { what } = call;
  if (!hasResponse) {
    const origin = originOf(url);
    const where = origin === null ? "" : ` at ${origin}`;
    return `${what}: no answer from the GitHub API${where} (${githubMessage ?? "network error"}). ${API_ROOT_HINT}`;
  }
  const said = githubMessage === undefined ? "" : ` "${githubMessage}"`;
  const answered = `${what}: GitHub answered ${status}${said}.`;
  if ((status === 403 || status === 429) && RATE_LIMITED.test(githubMessage ?? "")) {
    return `${answered} The API rate limit was hit and the retries ran out; run the job again later.`;
  }
  if (status === 401 && call.surface === "cli") {
    return `${answered} GitHub did not accept the token the CLI uses (GITHUB_TOKEN, else GH_TOKEN): it is expired, revoked or mistyped; give a current token with \`checks: write\` on the repository.`;
  }
  if ((status === 403 || status === 404) && call.surface === "cli") {
    const reading = call.operation === "find" || call.operation === "get";
    return (
      `${answered} ${reading ? "Listing or reading" : "Writing"} check runs there needs the token the CLI uses ` +
      "(GITHUB_TOKEN, else GH_TOKEN) to have `checks: write` on the repository: a fine-grained token with " +
      "the Checks permission set to read and write on that repository, or a classic token with the `repo` " +
      "scope (GitHub docs: REST API endpoints for check runs). A GitHub Actions GITHUB_TOKEN needs " +
      "`permissions: { checks: write }` on its job; on a pull request from a fork it is read-only."
    );
  }
  if (status === 403 || status === 404) {
    return (
      `${answered} Writing check runs needs the token permission \`checks: write\`: add ` +
      "`permissions: { checks: write }` to the job (a GitHub App needs the Checks write permission). " +
      "On a pull request from a fork the GITHUB_TOKEN is read-only whatever the workflow asks for: use the " +
      "two-stage mode there (this workflow uploads the ledger artifact, and a `workflow_run` workflow on the " +
      "base repository posts it with `mode: report`)."
    );
  }
  return answered;
}

/** Where the API root comes from, for answers that say it is wrong. */
const API_ROOT_HINT =
  "The API root comes from GITHUB_API_URL (https://api.github.com when it is not set; on GHES https://HOST/api/v3): check it and the network, then run again.";

/**
 * Why a response is not GitHub's API talking (`"an HTML page (text/html)"`), or `null` when it is JSON.
 * GitHub's REST API answers every status, errors included, with `application/json`; a proxy, a login
 * page or a web server at a wrong `GITHUB_API_URL` answers HTML, whose text would otherwise be pasted into
 * the message as if it were GitHub's.
 */
function notGitHubJson(response: RequestErrorLike["response"]): string | null {
  const type = response?.headers?.["content-type"];
  const contentType = typeof type === "string" ? type.split(";")[0]!.trim().toLowerCase() : "";
  if (contentType.endsWith("json")) return null;
  if (contentType === "" && (typeof response?.data !== "string" || response.data === "")) return null;
  return contentType === "text/html" ? "an HTML page (text/html)" : `a ${contentType || "non-JSON"} body`;
}

/** `https://host[:port]` of a request URL, or `null` when there is none or it does not parse. */
function originOf(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
